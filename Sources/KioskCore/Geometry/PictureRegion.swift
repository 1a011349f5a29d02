/// A rectangle of whole pixels.
public struct PixelRect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// A part of a picture, each side a fraction (0...1) of its width or
/// height: what a zoomed picture shows (``PictureZoom/visibleRegion(visibleWidth:visibleHeight:limits:)``),
/// whatever size the picture is decoded at.
public struct PictureRegion: Hashable, Sendable {
    public var left: Double
    public var top: Double
    public var right: Double
    public var bottom: Double

    public init(left: Double, top: Double, right: Double, bottom: Double) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
    }

    public static let whole = PictureRegion(left: 0, top: 0, right: 1, bottom: 1)

    /// The whole pixels of a picture of `size` that the region covers,
    /// rounded outward, at least one pixel, within the picture.
    public func pixels(of size: PixelSize) -> PixelRect {
        func span(_ low: Double, _ high: Double, _ length: Int) -> (Int, Int) {
            let first = min(length - 1, max(0, Int((low * Double(length)).rounded(.down))))
            let end = max(first + 1, min(length, Int((high * Double(length)).rounded(.up))))
            return (first, end - first)
        }
        let (x, width) = span(left, right, size.width), (y, height) = span(top, bottom, size.height)
        return PixelRect(x: x, y: y, width: width, height: height)
    }
}

extension ImageOrientation {
    /// The stored pixels that show the upright picture's pixels `rect`
    /// (`stored`: the stored size): a crop made before turning upright.
    public func storedRect(forUpright rect: PixelRect, stored: PixelSize) -> PixelRect {
        let a = storedPixel(forUpright: rect.x, rect.y, stored: stored)
        let b = storedPixel(forUpright: rect.x + rect.width - 1, rect.y + rect.height - 1, stored: stored)
        return PixelRect(x: min(a.x, b.x), y: min(a.y, b.y), width: abs(a.x - b.x) + 1, height: abs(a.y - b.y) + 1)
    }
}
