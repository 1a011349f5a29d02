#if canImport(Glibc)
import Glibc
#endif

extension RGBColor {
    /// The colour's relative luminance, 0 (black) to 1 (white), as WCAG
    /// defines it for contrast: each channel linearised from sRGB, weighted.
    public var luminance: Double {
        func linear(_ channel: UInt8) -> Double {
            let c = Double(channel) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// WCAG's contrast ratio between two relative luminances (``luminance``):
    /// 1 (none) to 21 (black on white).
    public static func contrastRatio(_ a: Double, _ b: Double) -> Double {
        (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }
}
