#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskRendering

/// Pictures made on the spot for the tests and the benchmark, so nothing
/// large is committed: photo-like content and camera-style EXIF.
public enum GeneratedPictures {
    /// A photo-like picture: a sky gradient over rolling hills, with fine
    /// grain so it compresses like a photo (about 1.3 bits a pixel at JPEG
    /// quality 90), not like a flat card. `variant` shifts the colours and
    /// the grain, so every variant is a different file.
    public static func photo(_ size: PixelSize, variant: Int = 0) -> RasterImage {
        var pixels = [UInt32](repeating: 0, count: size.pixelCount)
        let w = size.width, h = size.height
        let shift = UInt32(truncatingIfNeeded: variant &* 37) & 0x3F
        let hills = (0..<w).map { h / 2 + Int(Double(h) / 10 * sin(Double($0) / Double(w) * 9 + Double(variant))) }
        pixels.withUnsafeMutableBufferPointer { out in
            var seed = UInt32(truncatingIfNeeded: variant &* 7919 &+ 1)
            for y in 0..<h {
                for x in 0..<w {
                    seed = seed &* 1_664_525 &+ 1_013_904_223
                    let grain = Int32(seed >> 28) - 8
                    let hill = hills[x]
                    var r: Int32, g: Int32, b: Int32
                    if y < hill {
                        r = Int32(90 + 80 * y / max(1, hill)); g = Int32(140 + 60 * y / max(1, hill)); b = 230
                    } else {
                        r = Int32(40 + (x * 60) / w); g = Int32(110 + 50 * (y - hill) / max(1, h - hill)); b = 50
                    }
                    r += grain + Int32(shift); g += grain; b += grain - Int32(shift)
                    out[y * w + x] = UInt32(clamping: min(255, max(0, r))) << 16
                        | UInt32(clamping: min(255, max(0, g))) << 8 | UInt32(clamping: min(255, max(0, b)))
                }
            }
        }
        return RasterImage(size: size, pixels: pixels)
    }

    /// An APP1 segment holding a minimal EXIF block: a TIFF header and IFD 0
    /// with one entry, Orientation (0x0112, SHORT) = `value`.
    public static func exifSegment(orientation value: UInt16, bigEndian: Bool = false) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] {
            bigEndian ? u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF)) : u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16))
        }
        var tiff = (bigEndian ? Array("MM".utf8) : Array("II".utf8)) + u16(42) + u32(8)
        tiff += u16(1)                                 // one entry
        tiff += u16(0x0112) + u16(3) + u32(1) + u16(value) + u16(0)
        tiff += u32(0)                                 // no next IFD
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = UInt16(payload.count + 2)
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// A JPEG as a camera stores it: the picture plus the EXIF segment after SOI.
    public static func cameraJPEG(
        _ image: RasterImage, orientation: UInt16, bigEndian: Bool = false, quality: Int = 95
    ) throws(ImageFileError) -> [UInt8] {
        let plain = try JPEGCodec.encode(image, quality: quality)
        return Array(plain.prefix(2)) + exifSegment(orientation: orientation, bigEndian: bigEndian) + Array(plain.dropFirst(2))
    }
}
