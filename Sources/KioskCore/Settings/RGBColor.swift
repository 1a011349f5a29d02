/// An opaque colour, stored as the XRGB8888 value the display scans out.
public struct RGBColor: Hashable, Sendable, CustomStringConvertible {
    public let red: UInt8
    public let green: UInt8
    public let blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public init(xrgb: UInt32) {
        self.init(red: UInt8(truncatingIfNeeded: xrgb >> 16), green: UInt8(truncatingIfNeeded: xrgb >> 8),
                  blue: UInt8(truncatingIfNeeded: xrgb))
    }

    /// Parses `RRGGBB` or `#RRGGBB` (hexadecimal, either case).
    public init?(hex text: String) {
        let digits = text.hasPrefix("#") ? String(text.dropFirst()) : text
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else {
            return nil
        }
        self.init(xrgb: value)
    }

    public static let black = RGBColor(red: 0, green: 0, blue: 0)

    /// `0x00RRGGBB`: little-endian XRGB8888, the format of the frame buffers.
    public var xrgb: UInt32 { UInt32(red) << 16 | UInt32(green) << 8 | UInt32(blue) }

    public var description: String {
        let hex = String(xrgb, radix: 16, uppercase: true)
        return String(repeating: "0", count: 6 - hex.count) + hex
    }
}
