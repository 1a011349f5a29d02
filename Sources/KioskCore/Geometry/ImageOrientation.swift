/// How a camera stored a picture, from the EXIF Orientation tag (1 to 8):
/// the turn or mirror that shows it upright. Phones store most portrait
/// photos as landscape pixels tagged 6 ("turn 90 degrees clockwise").
public enum ImageOrientation: Int, Hashable, Sendable, CaseIterable {
    case upright = 1
    case mirrored = 2
    case upsideDown = 3
    case mirroredUpsideDown = 4
    case transposed = 5
    case turnedClockwise = 6
    case transversed = 7
    case turnedCounterClockwise = 8

    /// True for 5 to 8, which swap width and height.
    public var swapsSides: Bool { rawValue >= 5 }

    /// The size the picture shows at, upright.
    public func uprightSize(of stored: PixelSize) -> PixelSize {
        swapsSides ? PixelSize(width: stored.height, height: stored.width) : stored
    }

    /// For a pixel (x, y) of the upright picture, the stored pixel it shows.
    /// `stored` is the stored (not upright) size.
    public func storedPixel(forUpright x: Int, _ y: Int, stored: PixelSize) -> (x: Int, y: Int) {
        let w = stored.width, h = stored.height
        switch self {
        case .upright: return (x, y)
        case .mirrored: return (w - 1 - x, y)
        case .upsideDown: return (w - 1 - x, h - 1 - y)
        case .mirroredUpsideDown: return (x, h - 1 - y)
        case .transposed: return (y, x)
        case .turnedClockwise: return (y, h - 1 - x)
        case .transversed: return (w - 1 - y, h - 1 - x)
        case .turnedCounterClockwise: return (w - 1 - y, x)
        }
    }
}
