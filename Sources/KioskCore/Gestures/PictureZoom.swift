/// How the centred picture is zoomed (seed 002's scroll view, 1x to 2x):
/// a scale and where the picture's middle is, relative to its place at 1x.
/// Pure math for pinches, pans, double taps and the spring back; the
/// recogniser feeds it fingers, the show draws what it says.
///
/// Coordinates are screen pixels relative to the middle of the picture as
/// shown at 1x (the slot's middle). At scale `s` with offset `t`, the
/// picture's point `u` (0...1 across each side) is at `t + s (u - 1/2) F`,
/// `F` being the picture's fitted size.
public struct PictureZoom: Equatable, Sendable {
    public var scale: Double
    /// Where the picture's middle is, from its middle at 1x.
    public var offsetX: Double
    public var offsetY: Double

    public static let fit = PictureZoom(scale: 1, offsetX: 0, offsetY: 0)

    public init(scale: Double, offsetX: Double, offsetY: Double) {
        self.scale = scale
        self.offsetX = offsetX
        self.offsetY = offsetY
    }

    public var isZoomed: Bool { scale > 1 }

    /// What bounds a zoom: the picture's size at 1x, and the largest scale.
    public struct Limits: Equatable, Sendable {
        public let fittedWidth: Double
        public let fittedHeight: Double
        /// `max_zoom`, but never past the photo's own resolution (its
        /// pixels one to one on the screen), and never under 1.
        public let maximumScale: Double
        /// How far under 1x a pinch may go before it is let go (it springs back).
        public static let smallestDuringPinch = 0.5

        public init(fitted: PixelSize, original: PixelSize, maximumZoom: Double) {
            fittedWidth = Double(fitted.width)
            fittedHeight = Double(fitted.height)
            let native = min(Double(original.width) / Double(max(1, fitted.width)), Double(original.height) / Double(max(1, fitted.height)))
            maximumScale = max(1, min(maximumZoom, native))
        }
    }

    /// The zoom while two fingers pinch: they started at `startMidpoint`,
    /// `startDistance` apart, with the picture at `start`; now they are at
    /// `midpoint`, `distance` apart. The scale follows the distance (from
    /// 1/2 to the maximum), and the picture's point that was under the
    /// first midpoint is under the new one, unless that would show past the
    /// picture's edge: then the pan stops at the edge.
    public static func pinched(
        from start: PictureZoom, startMidpoint: (x: Double, y: Double), startDistance: Double,
        midpoint: (x: Double, y: Double), distance: Double, limits: Limits
    ) -> PictureZoom {
        guard startDistance > 0, distance > 0 else { return start }
        let scale = min(limits.maximumScale, max(Limits.smallestDuringPinch, start.scale * distance / startDistance))
        let ratio = scale / start.scale
        let zoom = PictureZoom(
            scale: scale,
            offsetX: midpoint.x - ratio * (startMidpoint.x - start.offsetX),
            offsetY: midpoint.y - ratio * (startMidpoint.y - start.offsetY))
        return zoom.clamped(limits)
    }

    /// One finger moved the zoomed picture by `dx`, `dy`: within its edges.
    public func panned(dx: Double, dy: Double, limits: Limits) -> PictureZoom {
        PictureZoom(scale: scale, offsetX: offsetX + dx, offsetY: offsetY + dy).clamped(limits)
    }

    /// A double tap at `point`: back to 1x when zoomed, else 2x (or the
    /// maximum, if smaller) about the tapped point.
    public func doubleTapped(at point: (x: Double, y: Double), limits: Limits) -> PictureZoom {
        if isZoomed { return .fit }
        return Self.pinched(from: self, startMidpoint: point, startDistance: 1, midpoint: point,
                            distance: min(2, limits.maximumScale) / scale, limits: limits)
    }

    /// Where the zoom goes when the fingers lift: under 1x it springs back to 1x.
    public func settled(_ limits: Limits) -> PictureZoom {
        scale <= 1 ? .fit : clamped(limits)
    }

    /// The offset kept so the zoomed picture still covers where it was at
    /// 1x: at scale `s` the middle moves at most `(s - 1) F / 2` each way.
    /// Under 1x the picture stays in the middle.
    public func clamped(_ limits: Limits) -> PictureZoom {
        let scale = min(limits.maximumScale, max(Limits.smallestDuringPinch, scale))
        let reachX = max(0, (scale - 1) * limits.fittedWidth / 2), reachY = max(0, (scale - 1) * limits.fittedHeight / 2)
        return PictureZoom(scale: scale, offsetX: min(reachX, max(-reachX, offsetX)), offsetY: min(reachY, max(-reachY, offsetY)))
    }

    /// Zoomed by `scale` with the picture's point `focus` (each 0...1
    /// across its width and down its height) in the middle of its window,
    /// as far as the picture's edges allow (`kioskd snapshot --zoom --focus`).
    public static func focused(on focus: (x: Double, y: Double), scale: Double, limits: Limits) -> PictureZoom {
        let scale = min(limits.maximumScale, max(1, scale))
        return PictureZoom(
            scale: scale, offsetX: (0.5 - focus.x) * scale * limits.fittedWidth, offsetY: (0.5 - focus.y) * scale * limits.fittedHeight
        ).clamped(limits)
    }

    /// The picture's point (each 0...1 across its width and down its
    /// height) in the middle of its window: what ``focused(on:scale:limits:)``
    /// takes back to this zoom.
    public func focus(_ limits: Limits) -> (x: Double, y: Double) {
        (0.5 - offsetX / (scale * limits.fittedWidth), 0.5 - offsetY / (scale * limits.fittedHeight))
    }

    /// The zoomed picture seen through `window` (its slot, the picture at
    /// 1x centred in it): the whole pixels of the window it covers, and
    /// the part of the picture those show (what is decoded again, sharp,
    /// at that size).
    public func view(in window: PixelSize, limits: Limits) -> (onScreen: PixelRect, region: PictureRegion) {
        func span(_ offset: Double, _ fitted: Double, _ length: Int) -> (first: Int, end: Int, low: Double, high: Double) {
            let extent = scale * fitted
            let start = Double(length) / 2 + offset - extent / 2
            let first = max(0, Int(start.rounded())), end = max(first + 1, min(length, Int((start + extent).rounded())))
            return (first, end, max(0, (Double(first) - start) / extent), min(1, (Double(end) - start) / extent))
        }
        let x = span(offsetX, limits.fittedWidth, window.width), y = span(offsetY, limits.fittedHeight, window.height)
        return (PixelRect(x: x.first, y: y.first, width: x.end - x.first, height: y.end - y.first),
                PictureRegion(left: x.low, top: y.low, right: x.high, bottom: y.high))
    }

    /// The part of the picture on screen, each side in 0...1 of the
    /// picture's width or height (what the worker decodes again, sharp).
    /// `visibleWidth`, `visibleHeight`: the window the zoomed picture is
    /// seen through (its slot), centred where the picture is at 1x.
    public func visibleRegion(
        visibleWidth: Double, visibleHeight: Double, limits: Limits
    ) -> (left: Double, top: Double, right: Double, bottom: Double) {
        func span(_ offset: Double, _ fitted: Double, _ window: Double) -> (Double, Double) {
            let low = 0.5 + (-window / 2 - offset) / (scale * fitted)
            let high = 0.5 + (window / 2 - offset) / (scale * fitted)
            return (max(0, low), min(1, high))
        }
        let (left, right) = span(offsetX, limits.fittedWidth, visibleWidth)
        let (top, bottom) = span(offsetY, limits.fittedHeight, visibleHeight)
        return (left, top, right, bottom)
    }
}
