import CSPNG
#if canImport(Glibc)
import Glibc
#endif
import KioskCore
import SystemCalls
import KioskRendering

/// PNG through libspng: decoding (any colour type, bit depth, palette or
/// transparency, delivered as RGBA8) and encoding the snapshot.
public enum PNGCodec {
    /// The picture's size from its header, without decoding.
    public static func size(of png: [UInt8], path: String) throws(ImageFileError) -> PixelSize {
        let context = try Context(decoding: png, path: path, maximumSide: Int(UInt32.max))
        return try context.header()
    }

    /// Interlaced (Adam7) PNGs arrive in seven passes, so they cannot be
    /// reduced row by row: they decode whole, and only up to this many
    /// pixels (8 Mpx, 32 MiB). Photos are almost never interlaced.
    public static let maximumInterlacedPixels = 8 << 20

    /// Decodes and composites any transparency onto `background` (the kiosk's
    /// background colour, so a logo with alpha sits on the strip as drawn).
    ///
    /// Rows are decoded one at a time and averaged in `k` x `k` blocks, for
    /// the largest whole `k` that keeps the result at least `minimumSize`
    /// (nil: full size). Memory is the reduced picture plus one row, however
    /// large the PNG claims to be: a decompression bomb of 64 Mpx costs a
    /// slot's worth, not 256 MiB.
    public static func decode(
        _ png: [UInt8], path: String, background: RGBColor, minimumSize: PixelSize? = nil, maximumPixels: Int
    ) throws(ImageFileError) -> RasterImage {
        let context = try Context(decoding: png, path: path, maximumSide: 65535)
        let (size, interlaced) = try context.headerAndInterlace()
        // Refuse before allocating (a small file can claim a huge picture).
        guard size.pixelCount <= maximumPixels else { throw ImageFileError(path: path, reason: .tooLarge(size)) }
        let blend = AlphaCompositor(background)
        if interlaced {
            guard size.pixelCount <= maximumInterlacedPixels else { throw ImageFileError(path: path, reason: .tooLarge(size)) }
            var rgba = [UInt8](repeating: 0, count: size.pixelCount * 4)
            try context.check(rgba.withUnsafeMutableBytes {
                spng_decode_image(context.raw, $0.baseAddress, $0.count, Int32(SPNG_FMT_RGBA8.rawValue),
                                  Int32(SPNG_DECODE_TRNS.rawValue))
            })
            return RasterImage(size: size, pixels: (0..<size.pixelCount).map { blend.over(rgba: rgba, $0) })
        }
        let k = minimumSize.map { max(1, min(size.width / max(1, $0.width), size.height / max(1, $0.height))) } ?? 1
        let reduced = PixelSize(width: size.width / k, height: size.height / k)
        // The last block of a row or column takes the remainder.
        let block = { (i: Int, count: Int) in min(i / k, count - 1) }
        let blockWidth = (0..<reduced.width).map { $0 == reduced.width - 1 ? size.width - $0 * k : k }
        var out = [UInt32](repeating: 0, count: reduced.pixelCount)
        var sums = [UInt32](repeating: 0, count: reduced.width * 3)
        var row = [UInt8](repeating: 0, count: size.width * 4)
        try context.check(spng_decode_image(
            context.raw, nil, 0, Int32(SPNG_FMT_RGBA8.rawValue),
            Int32(SPNG_DECODE_TRNS.rawValue | SPNG_DECODE_PROGRESSIVE.rawValue)))
        for y in 0..<size.height {
            let status = row.withUnsafeMutableBytes { spng_decode_row(context.raw, $0.baseAddress, $0.count) }
            guard status == 0 || (status == Int32(SPNG_EOI.rawValue) && y == size.height - 1) else {
                try context.check(status == Int32(SPNG_EOI.rawValue) ? Int32(SPNG_EOF.rawValue) : status)
                break
            }
            for x in 0..<size.width {
                let p = blend.over(rgba: row, x), b = 3 * block(x, reduced.width)
                sums[b] += p >> 16 & 0xFF
                sums[b + 1] += p >> 8 & 0xFF
                sums[b + 2] += p & 0xFF
            }
            let r = block(y, reduced.height)
            guard y == size.height - 1 || (r < reduced.height - 1 && y == (r + 1) * k - 1) else { continue }
            let rows = r == reduced.height - 1 ? size.height - r * k : k
            for c in 0..<reduced.width {
                let n = UInt32(blockWidth[c] * rows)
                func mean(_ sum: UInt32) -> UInt32 { (sum + n / 2) / n }
                out[r * reduced.width + c] = mean(sums[3 * c]) << 16 | mean(sums[3 * c + 1]) << 8 | mean(sums[3 * c + 2])
                sums[3 * c] = 0
                sums[3 * c + 1] = 0
                sums[3 * c + 2] = 0
            }
        }
        return RasterImage(size: reduced, pixels: out)
    }

    /// Encodes as 8-bit RGB: exactly the scanned-out colours, no alpha.
    public static func encode(_ image: RasterImage) throws(ImageFileError) -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: image.size.pixelCount * 3)
        for (i, p) in image.pixels.enumerated() {
            rgb[3 * i] = UInt8(truncatingIfNeeded: p >> 16)
            rgb[3 * i + 1] = UInt8(truncatingIfNeeded: p >> 8)
            rgb[3 * i + 2] = UInt8(truncatingIfNeeded: p)
        }
        return try encode(samples: rgb, size: image.size, colourType: .truecolour)
    }

    /// PNG colour types (the IHDR's), for ``encode(samples:size:colourType:bitDepth:palette:interlaced:)``.
    public enum ColourType: UInt8, Sendable {
        case grayscale = 0, truecolour = 2, indexed = 3, grayscaleAlpha = 4, truecolourAlpha = 6
    }

    /// Encodes raw PNG samples as the PNG stores them (rows of `colourType`
    /// at `bitDepth`, packed; 16-bit samples in host byte order, as libspng's
    /// `SPNG_FMT_PNG` takes them). `palette` is RGBA per
    /// entry for indexed PNGs (alpha below 255 goes in a tRNS chunk). The
    /// snapshot writes RGB; the tests make every other kind of PNG with it.
    public static func encode(
        samples: [UInt8], size: PixelSize, colourType: ColourType, bitDepth: UInt8 = 8,
        palette: [(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8)] = [], interlaced: Bool = false
    ) throws(ImageFileError) -> [UInt8] {
        let path = "<png encoder>"
        try OnDemandLibrary.open(.spng, reading: path)
        guard let raw = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else {
            throw ImageFileError(path: path, reason: .corrupt("spng_ctx_new failed"))
        }
        defer { spng_ctx_free(raw) }
        func check(_ status: Int32) throws(ImageFileError) {
            guard status == 0 else { throw ImageFileError(path: path, reason: .corrupt(String(cString: spng_strerror(status)))) }
        }
        try check(spng_set_option(raw, SPNG_ENCODE_TO_BUFFER, 1))
        var header = spng_ihdr()
        header.width = UInt32(size.width)
        header.height = UInt32(size.height)
        header.bit_depth = bitDepth
        header.color_type = colourType.rawValue
        header.interlace_method = interlaced ? 1 : 0
        try check(spng_set_ihdr(raw, &header))
        if !palette.isEmpty {
            var plte = spng_plte()
            plte.n_entries = UInt32(palette.count)
            var trns = spng_trns()
            trns.n_type3_entries = UInt32(palette.count)
            withUnsafeMutableBytes(of: &plte.entries) { entries in
                withUnsafeMutableBytes(of: &trns.type3_alpha) { alpha in
                    for (i, entry) in palette.enumerated() {
                        entries[4 * i] = entry.red
                        entries[4 * i + 1] = entry.green
                        entries[4 * i + 2] = entry.blue
                        alpha[i] = entry.alpha
                    }
                }
            }
            try check(spng_set_plte(raw, &plte))
            if palette.contains(where: { $0.alpha < 255 }) { try check(spng_set_trns(raw, &trns)) }
        }
        try check(samples.withUnsafeBytes {
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
            try OnDemandLibrary.open(.spng, reading: path)
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

        func header() throws(ImageFileError) -> PixelSize { try headerAndInterlace().size }

        func headerAndInterlace() throws(ImageFileError) -> (size: PixelSize, interlaced: Bool) {
            var header = spng_ihdr()
            try check(spng_get_ihdr(raw, &header))
            return (PixelSize(width: Int(header.width), height: Int(header.height)), header.interlace_method != 0)
        }

        func check(_ status: Int32) throws(ImageFileError) {
            guard status == 0 else { throw ImageFileError(path: path, reason: .corrupt(String(cString: spng_strerror(status)))) }
        }
    }
}

extension PNGCodec: PictureCodec {
    public static let name = "PNG"
    public static let fileExtensions = ["png"]

    public static func recognises(_ head: borrowing [UInt8]) -> Bool {
        head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    public static func header(of bytes: [UInt8], path: String, options: DecodeOptions) throws(ImageFileError) -> PictureHeader {
        PictureHeader(storedSize: try size(of: bytes, path: path))
    }

    /// The file's bytes are freed as soon as the decoder is done with
    /// them, before the resampler allocates: at most two picture-sized
    /// buffers are alive at once.
    public static func decode(
        bytes: consuming [UInt8], path: String, fittedTo slot: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> DecodedPicture {
        let original = try size(of: bytes, path: path)
        let fitted = aspectFitSize(of: original, in: slot)
        let decoded = try decode(bytes, path: path, background: options.background, minimumSize: fitted, maximumPixels: options.maximumPNGPixels)
        bytes = []
        return DecodedPicture(picture: resample(decoded, to: fitted), info: PictureInfo(format: name, originalSize: original))
    }

    /// Decoded whole, reduced as it is when fitted (but to what the region needs), then cut.
    public static func decodeRegion(
        bytes: consuming [UInt8], path: String, region: PictureRegion, at size: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> RasterImage {
        let full = try self.size(of: bytes, path: path)
        let wanted = region.pixels(of: full)
        let minimum = PixelSize(
            width: (size.width * full.width + wanted.width - 1) / wanted.width, height: (size.height * full.height + wanted.height - 1) / wanted.height)
        let decoded = try decode(bytes, path: path, background: options.background, minimumSize: minimum, maximumPixels: options.maximumPNGPixels)
        bytes = []
        return resample(decoded.cropped(to: region.pixels(of: decoded.size)), to: size)
    }
}
