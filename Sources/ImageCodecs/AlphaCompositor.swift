import KioskCore

/// Colours with transparency made opaque over the kiosk's background, as
/// every codec that has alpha shows them (PNG, WebP, HEIF): exact for
/// alpha 0 and 255, rounded in between, so a logo with alpha sits on the
/// strip as drawn.
struct AlphaCompositor {
    let red: UInt32, green: UInt32, blue: UInt32

    init(_ background: RGBColor) {
        (red, green, blue) = (UInt32(background.red), UInt32(background.green), UInt32(background.blue))
    }

    /// `r`, `g`, `b` at `alpha` (each 0...255) as XRGB8888.
    @inline(__always)
    func over(_ r: UInt32, _ g: UInt32, _ b: UInt32, alpha a: UInt32) -> UInt32 {
        if a == 255 { return r << 16 | g << 8 | b }
        func mix(_ c: UInt32, _ bg: UInt32) -> UInt32 { (c * a + bg * (255 - a) + 127) / 255 }
        return mix(r, red) << 16 | mix(g, green) << 8 | mix(b, blue)
    }

    /// Pixel `i` of RGBA8 `bytes` as XRGB8888.
    @inline(__always)
    func over(rgba bytes: [UInt8], _ i: Int) -> UInt32 {
        over(UInt32(bytes[4 * i]), UInt32(bytes[4 * i + 1]), UInt32(bytes[4 * i + 2]), alpha: UInt32(bytes[4 * i + 3]))
    }
}
