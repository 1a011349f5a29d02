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

extension ImageOrientation {
    /// How a HEIF or AVIF container's `imir` box mirrors (ISO/IEC 23008-12, 6.5.12).
    public enum ContainerMirror: Int, Sendable {
        /// Mode 0: the top and bottom are exchanged.
        case topAndBottom = 0
        /// Mode 1: the left and right are exchanged.
        case leftAndRight = 1
    }

    /// The turn a HEIF or AVIF container's transforms make together, in the
    /// order the formats apply them: `irot`, `quarterTurns` anticlockwise,
    /// then `imir`. (A crop, `clap`, comes first and does not turn.)
    /// Found by following a pixel through both, so the table cannot drift
    /// from ``storedPixel(forUpright:_:stored:)``.
    public init(quarterTurnsAnticlockwise quarterTurns: Int, mirror: ContainerMirror?) {
        let stored = PixelSize(width: 2, height: 3)
        let turns = ((quarterTurns % 4) + 4) % 4
        func storedPixel(_ x: Int, _ y: Int) -> (x: Int, y: Int) {
            // Undo the mirror on the turned picture, then each quarter turn.
            var size = turns % 2 == 1 ? PixelSize(width: stored.height, height: stored.width) : stored
            var (x, y) = (x, y)
            switch mirror {
            case .leftAndRight?: x = size.width - 1 - x
            case .topAndBottom?: y = size.height - 1 - y
            case nil: break
            }
            for _ in 0..<turns {
                // A quarter turn anticlockwise shows at (x, y) what was at (width - 1 - y, x) before it.
                size = PixelSize(width: size.height, height: size.width)
                (x, y) = (size.width - 1 - y, x)
            }
            return (x, y)
        }
        self = Self.allCases.first { orientation in
            let upright = orientation.uprightSize(of: stored)
            guard upright == (turns % 2 == 1 ? PixelSize(width: 3, height: 2) : stored) else { return false }
            return (0..<upright.height).allSatisfy { y in
                (0..<upright.width).allSatisfy { x in orientation.storedPixel(forUpright: x, y, stored: stored) == storedPixel(x, y) }
            }
        }!
    }
}
