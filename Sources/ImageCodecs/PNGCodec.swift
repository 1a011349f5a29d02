import CSPNG
#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import KioskRendering

/// PNG through libspng: decoding (any colour type, bit depth, palette or
/// transparency, delivered as RGBA8) and encoding the snapshot.
public enum PNGCodec {
    /// The picture's size from its header, without decoding.
    public static func size(of png: [UInt8], path: String) throws(ImageFileError) -> PixelSize {
        let context = try Context(decoding: png, path: path, maximumSide: Int(UInt32.max))
        return try context.header()
    }

    /// Decodes and composites any transparency onto `background` (the kiosk's
    /// background colour, so a logo with alpha sits on the strip as drawn).
    public static func decode(
        _ png: [UInt8], path: String, background: RGBColor, maximumPixels: Int
    ) throws(ImageFileError) -> RasterImage {
        let context = try Context(decoding: png, path: path, maximumSide: 65535)
        let size = try context.header()
        // Refuse before allocating (a small file can claim a huge picture).
        guard size.pixelCount <= maximumPixels else { throw ImageFileError(path: path, reason: .tooLarge(size)) }
        var rgba = [UInt8](repeating: 0, count: size.pixelCount * 4)
        try context.check(rgba.withUnsafeMutableBytes {
            spng_decode_image(context.raw, $0.baseAddress, $0.count, Int32(SPNG_FMT_RGBA8.rawValue),
                              Int32(SPNG_DECODE_TRNS.rawValue))
        })
        let (bgR, bgG, bgB) = (UInt32(background.red), UInt32(background.green), UInt32(background.blue))
        var pixels = [UInt32](repeating: 0, count: size.pixelCount)
        for i in 0..<size.pixelCount {
            let r = UInt32(rgba[4 * i]), g = UInt32(rgba[4 * i + 1]), b = UInt32(rgba[4 * i + 2])
            let a = UInt32(rgba[4 * i + 3])
            // Exact for a = 0 and a = 255; rounded in between.
            func over(_ c: UInt32, _ bg: UInt32) -> UInt32 { (c * a + bg * (255 - a) + 127) / 255 }
            pixels[i] = over(r, bgR) << 16 | over(g, bgG) << 8 | over(b, bgB)
        }
        return RasterImage(size: size, pixels: pixels)
    }

    /// Encodes as 8-bit RGB: exactly the scanned-out colours, no alpha.
    public static func encode(_ image: RasterImage) throws(ImageFileError) -> [UInt8] {
        let path = "<png encoder>"
        guard let raw = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else {
            throw ImageFileError(path: path, reason: .corrupt("spng_ctx_new failed"))
        }
        defer { spng_ctx_free(raw) }
        func check(_ status: Int32) throws(ImageFileError) {
            guard status == 0 else { throw ImageFileError(path: path, reason: .corrupt(String(cString: spng_strerror(status)))) }
        }
        try check(spng_set_option(raw, SPNG_ENCODE_TO_BUFFER, 1))
        var header = spng_ihdr()
        header.width = UInt32(image.width)
        header.height = UInt32(image.height)
        header.bit_depth = 8
        header.color_type = UInt8(SPNG_COLOR_TYPE_TRUECOLOR.rawValue)
        try check(spng_set_ihdr(raw, &header))
        var rgb = [UInt8](repeating: 0, count: image.size.pixelCount * 3)
        for (i, p) in image.pixels.enumerated() {
            rgb[3 * i] = UInt8(truncatingIfNeeded: p >> 16)
            rgb[3 * i + 1] = UInt8(truncatingIfNeeded: p >> 8)
            rgb[3 * i + 2] = UInt8(truncatingIfNeeded: p)
        }
        try check(rgb.withUnsafeBytes {
            spng_encode_image(raw, $0.baseAddress, $0.count, Int32(SPNG_FMT_PNG.rawValue), Int32(SPNG_ENCODE_FINALIZE.rawValue))
        })
        var length = 0
        var status: Int32 = 0
        guard let buffer = spng_get_png_buffer(raw, &length, &status) else { try check(status); return [] }
        defer { free(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length))
    }

    /// One libspng decoder. libspng keeps a pointer to the PNG's bytes, so the
    /// context owns a copy that lives exactly as long as it does.
    private final class Context {
        let raw: OpaquePointer
        let path: String
        let bytes: UnsafeMutableRawBufferPointer

        init(decoding png: [UInt8], path: String, maximumSide: Int) throws(ImageFileError) {
            guard let raw = spng_ctx_new(0) else { throw ImageFileError(path: path, reason: .corrupt("spng_ctx_new failed")) }
            self.raw = raw
            self.path = path
            self.bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, png.count), alignment: 1)
            png.withUnsafeBytes { bytes.copyMemory(from: $0) }
            // Ancillary chunks (text, ICC) are capped so a hostile file cannot
            // make us buffer megabytes of metadata.
            try check(spng_set_chunk_limits(raw, 1 << 20, 4 << 20))
            let side = UInt32(min(maximumSide, Int(Int32.max)))
            try check(spng_set_image_limits(raw, side, side))
            try check(spng_set_png_buffer(raw, bytes.baseAddress, png.count))
        }

        deinit {
            spng_ctx_free(raw)
            bytes.deallocate()
        }

        func header() throws(ImageFileError) -> PixelSize {
            var header = spng_ihdr()
            try check(spng_get_ihdr(raw, &header))
            return PixelSize(width: Int(header.width), height: Int(header.height))
        }

        func check(_ status: Int32) throws(ImageFileError) {
            guard status == 0 else { throw ImageFileError(path: path, reason: .corrupt(String(cString: spng_strerror(status)))) }
        }
    }
}
