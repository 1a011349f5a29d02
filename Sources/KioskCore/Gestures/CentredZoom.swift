/// What fingers do to the centred picture's zoom (``SwipeRecognizer``'s
/// two-finger gestures, the pan of a zoomed picture, the double tap), in
/// screen pixels.
public enum ZoomTouch: Hashable, Sendable {
    case pinchBegan(midpoint: ScreenPoint, distance: Double)
    case pinchMoved(midpoint: ScreenPoint, distance: Double)
    case panned(dx: Double, dy: Double)
    /// The pinch or pan ended (the fingers lifted, or were cancelled).
    case ended
    case doubleTapped(at: ScreenPoint)

    /// The zoom's side of a gesture; nil for what only the strip follows.
    /// A cancelled gesture (a palm, lost events) ends a pinch or pan too.
    public init?(_ gesture: SwipeGesture) {
        switch gesture {
        case .pinchBegan(let midpoint, let distance): self = .pinchBegan(midpoint: midpoint, distance: distance)
        case .pinchMoved(let midpoint, let distance): self = .pinchMoved(midpoint: midpoint, distance: distance)
        case .panned(let dx, let dy): self = .panned(dx: dx, dy: dy)
        case .zoomEnded, .cancelled: self = .ended
        case .doubleTapped(let point): self = .doubleTapped(at: point)
        case .caught, .dragged, .released, .tapped: return nil
        }
    }
}

/// The zoom of the centred picture in the running show (seed 002's scroll
/// view, 1x to `max_zoom`), over time:
/// - a pinch follows the fingers (``PictureZoom/pinched(from:startMidpoint:startDistance:midpoint:distance:limits:)``),
///   one finger pans a zoomed picture within its edges;
/// - when the fingers lift below 1x the picture springs back to 1x
///   (``springDuration``, easing out); a double tap toggles between 1x
///   and 2x about the tapped point with the same animation;
/// - ``zoomBackDue(after:)`` says when, nobody having touched it since,
///   it zooms back to 1x (``zoomBack(at:duration:easing:)``: the show's
///   `resume_after`, `transition` and `easing`).
///
/// Touches are screen pixels; ``centre`` is where the picture's middle is
/// on the screen at 1x, the origin of ``PictureZoom``'s offsets.
public struct CentredZoom: Equatable, Sendable {
    public let limits: PictureZoom.Limits
    public let centre: ScreenPoint
    /// The zoom while no animation runs (during a pinch, the fingers').
    private var resting: PictureZoom
    private var pinch: (start: PictureZoom, midpoint: (x: Double, y: Double), distance: Double)?
    private var animation: Animation?
    /// When a finger last did something to it.
    public private(set) var lastTouched: Double
    /// When the fingers last changed the zoom.
    public private(set) var lastChanged: Double
    /// True from a pinch's or pan's first move to its end.
    public private(set) var isTouched = false

    private struct Animation: Equatable {
        var from: PictureZoom
        var start: Double
        var duration: Double
        var easing: Easing
    }

    /// How long the spring back and a double tap's zoom take (seconds).
    public static let springDuration = 0.25

    public init(limits: PictureZoom.Limits, centre: ScreenPoint, at now: Double) {
        self.limits = limits
        self.centre = centre
        resting = .fit
        lastTouched = now
        lastChanged = now
    }

    public static func == (a: CentredZoom, b: CentredZoom) -> Bool {
        a.limits == b.limits && a.centre == b.centre && a.resting == b.resting && a.animation == b.animation
            && a.lastTouched == b.lastTouched && a.lastChanged == b.lastChanged && a.isTouched == b.isTouched
            && a.pinch?.start == b.pinch?.start && a.pinch?.distance == b.pinch?.distance
            && a.pinch?.midpoint.x == b.pinch?.midpoint.x && a.pinch?.midpoint.y == b.pinch?.midpoint.y
    }

    /// The zoom shown at `time`.
    public func zoom(at time: Double) -> PictureZoom {
        guard let animation, time < animation.start + animation.duration else { return resting }
        let e = animation.easing.progress((time - animation.start) / animation.duration)
        func mix(_ a: Double, _ b: Double) -> Double { a + (b - a) * e }
        return PictureZoom(
            scale: mix(animation.from.scale, resting.scale), offsetX: mix(animation.from.offsetX, resting.offsetX),
            offsetY: mix(animation.from.offsetY, resting.offsetY))
    }

    /// Where the zoom is going: the fingers' zoom, or an animation's end.
    public var destination: PictureZoom { resting }

    public func isAnimating(at time: Double) -> Bool { animation.map { time < $0.start + $0.duration } ?? false }

    /// True once it is back at 1x, untouched and still: the zoom is over.
    public func isOver(at time: Double) -> Bool { !isTouched && !isAnimating(at: time) && resting.scale <= 1 }

    /// True while nothing moves it: no finger, no animation (what the sharp region is decoded for).
    public func isStill(at time: Double) -> Bool { !isTouched && !isAnimating(at: time) }

    /// How long fingers must hold the zoom still before its sharp region is
    /// decoded, ahead of their lift (most pinches stop before they lift).
    public static let holdBeforeSharp = 0.1

    /// True when the zoom shown now is worth decoding sharp: still, or
    /// held still by the fingers for ``holdBeforeSharp``.
    public func isSettling(at time: Double) -> Bool {
        // The same sum as settlesAt: a wake-up at that time finds it settling.
        isStill(at: time) || (isTouched && time >= lastChanged + Self.holdBeforeSharp)
    }

    /// While fingers hold it, when it will have been held still long enough
    /// (``isSettling(at:)``); nil otherwise.
    public var settlesAt: Double? { isTouched ? lastChanged + Self.holdBeforeSharp : nil }

    /// When it zooms back to 1x by itself: `after` seconds from the last
    /// touch, if it is zoomed and untouched; nil otherwise.
    public func zoomBackDue(after seconds: Double) -> Double? {
        isTouched || resting.scale <= 1 ? nil : lastTouched + seconds
    }

    public mutating func apply(_ touch: ZoomTouch, at now: Double) {
        lastTouched = now
        switch touch {
        case .pinchBegan(let midpoint, let distance):
            resting = zoom(at: now)
            animation = nil
            pinch = (resting, relative(midpoint), distance)
            isTouched = true
            lastChanged = now
        case .pinchMoved(let midpoint, let distance):
            guard let pinch else { return }
            let moved = PictureZoom.pinched(
                from: pinch.start, startMidpoint: pinch.midpoint, startDistance: pinch.distance,
                midpoint: relative(midpoint), distance: distance, limits: limits)
            if moved != resting { lastChanged = now }
            resting = moved
        case .panned(let dx, let dy):
            guard pinch == nil, dx.isFinite, dy.isFinite else { return }
            let moved = zoom(at: now).panned(dx: dx, dy: dy, limits: limits)
            if moved != resting || animation != nil { lastChanged = now }
            resting = moved
            animation = nil
            isTouched = true
        case .ended:
            pinch = nil
            isTouched = false
            let settled = resting.settled(limits)
            if settled != resting { animate(to: settled, at: now, duration: Self.springDuration, easing: .easeOut) }
        case .doubleTapped(let point):
            guard !isTouched else { return }
            let shown = zoom(at: now)
            let target = (shown.isZoomed ? resting : shown).doubleTapped(at: relative(point), limits: limits)
            resting = shown
            animate(to: target, at: now, duration: Self.springDuration, easing: .easeOut)
        }
    }

    /// Zooms back to 1x from wherever it is, over `duration`.
    public mutating func zoomBack(at now: Double, duration: Double, easing: Easing) {
        pinch = nil
        isTouched = false
        animate(to: .fit, at: now, duration: duration, easing: easing)
    }

    private mutating func animate(to target: PictureZoom, at now: Double, duration: Double, easing: Easing) {
        let from = zoom(at: now)
        resting = target
        animation = from == target ? nil : Animation(from: from, start: now, duration: duration, easing: easing)
    }

    private func relative(_ point: ScreenPoint) -> (x: Double, y: Double) { (point.x - centre.x, point.y - centre.y) }
}
