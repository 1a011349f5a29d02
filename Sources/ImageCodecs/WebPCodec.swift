import CWebP
import KioskCore
import SystemCalls
import KioskRendering

/// WebP through libwebp: lossy, lossless and alpha stills, decoded by
/// libwebp's own scaler straight at the fitted size (as the DCT scale does
/// for JPEG: a 12 Mpx WebP for a 1344x896 slot never exists at 12 Mpx in
/// kioskd's memory when it is lossy), turned upright as its `EXIF` chunk's
/// Orientation says, transparency composited over the background.
///
/// An animated WebP plays as an animated GIF does (``WebPAnimation``).
public enum WebPCodec {
    /// The features of the WebP in `bytes`: its canvas, alpha and animation.
    static func features(of bytes: [UInt8], path: String) throws(ImageFileError) -> WebPBitstreamFeatures {
        try OnDemandLibrary.open(.webP, .webPDemux, reading: path)
        var features = WebPBitstreamFeatures()
        let status = bytes.withUnsafeBufferPointer { WebPGetFeatures($0.baseAddress, $0.count, &features) }
        guard status == VP8_STATUS_OK else { throw ImageFileError(path: path, reason: .corrupt(describe(status))) }
        guard features.width > 0, features.height > 0 else { throw ImageFileError(path: path, reason: .corrupt("a WebP with no pixels")) }
        return features
    }

    /// The `EXIF` chunk, as libexif reads it (with the `Exif\0\0` header
    /// some writers leave out); nil when there is none or the file is cut short before it.
    static func exif(in bytes: [UInt8]) -> [UInt8]? {
        guard (try? OnDemandLibrary.open(.webP, .webPDemux, reading: "")) != nil else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> [UInt8]? in
            var data = WebPData(bytes: buffer.baseAddress, size: buffer.count)
            var state = WEBP_DEMUX_PARSING_HEADER
            guard let demux = WebPDemuxPartial(&data, &state) else { return nil }
            defer { WebPDemuxDelete(demux) }
            var chunk = WebPChunkIterator()
            guard WebPDemuxGetChunk(demux, "EXIF", 1, &chunk) != 0 else { return nil }
            defer { WebPDemuxReleaseChunkIterator(&chunk) }
            let payload = Array(UnsafeBufferPointer(start: chunk.chunk.bytes, count: chunk.chunk.size))
            let header: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]   // "Exif\0\0"
            return payload.starts(with: header) ? payload : header + payload
        }
    }

    /// The still in `bytes`, whose header says it is `stored` pixels, decoded
    /// by libwebp, cut to `crop` (stored pixels) when given and scaled to
    /// `size`, its transparency over `background`.
    static func decodeStill(
        _ bytes: [UInt8], path: String, stored: PixelSize, crop: PixelRect? = nil, scaledTo size: PixelSize, background: RGBColor, maximumPixels: Int
    ) throws(ImageFileError) -> RasterImage {
        // Lossless WebPs are decoded whole inside libwebp: refused from the header before.
        guard stored.pixelCount <= maximumPixels else { throw ImageFileError(path: path, reason: .tooLarge(stored)) }
        try OnDemandLibrary.open(.webP, .webPDemux, reading: path)
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw ImageFileError(path: path, reason: .corrupt("libwebp's version does not match its headers")) }
        if let crop {
            config.options.use_cropping = 1
            config.options.crop_left = Int32(crop.x)
            config.options.crop_top = Int32(crop.y)
            config.options.crop_width = Int32(crop.width)
            config.options.crop_height = Int32(crop.height)
        }
        let cut = crop?.size ?? stored
        if cut != size {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(size.width)
            config.options.scaled_height = Int32(size.height)
        }
        // MODE_BGRA's bytes B, G, R, A are XRGB8888 words with alpha on top (little-endian).
        var pixels = [UInt32](repeating: 0, count: size.pixelCount)
        let status = pixels.withUnsafeMutableBytes { output in
            config.output.colorspace = MODE_BGRA
            config.output.is_external_memory = 1
            config.output.u.RGBA.rgba = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
            config.output.u.RGBA.stride = Int32(size.width * 4)
            config.output.u.RGBA.size = output.count
            return bytes.withUnsafeBufferPointer { WebPDecode($0.baseAddress, $0.count, &config) }
        }
        WebPFreeDecBuffer(&config.output)
        guard status == VP8_STATUS_OK else { throw ImageFileError(path: path, reason: .corrupt(describe(status))) }
        composite(&pixels, over: background)
        return RasterImage(size: size, pixels: pixels)
    }

    /// BGRA words (alpha on top) made XRGB8888 over `background` (``AlphaCompositor``).
    static func composite(_ pixels: inout [UInt32], over background: RGBColor) {
        let blend = AlphaCompositor(background)
        for i in pixels.indices {
            let p = pixels[i]
            pixels[i] = blend.over(p >> 16 & 0xFF, p >> 8 & 0xFF, p & 0xFF, alpha: p >> 24)
        }
    }

    private static func describe(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OUT_OF_MEMORY: return "out of memory"
        case VP8_STATUS_INVALID_PARAM: return "invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: return "a broken WebP bitstream"
        case VP8_STATUS_UNSUPPORTED_FEATURE: return "a WebP feature libwebp does not support"
        case VP8_STATUS_SUSPENDED: return "suspended"
        case VP8_STATUS_USER_ABORT: return "aborted"
        case VP8_STATUS_NOT_ENOUGH_DATA: return "the WebP ends too early (truncated)"
        default: return "libwebp status \(status.rawValue)"
        }
    }
}

extension WebPCodec: PictureCodec {
    public static let name = "WebP"
    public static let fileExtensions = ["webp"]

    /// `RIFF`, a size, `WEBP`.
    public static func recognises(_ head: borrowing [UInt8]) -> Bool {
        head.count >= 12 && head.starts(with: [0x52, 0x49, 0x46, 0x46]) && head[8] == 0x57 && head[9] == 0x45 && head[10] == 0x42 && head[11] == 0x50
    }

    /// The `EXIF` chunk comes after the picture: the file is read whole,
    /// but only when its `VP8X` header says it has one (most WebPs do not).
    public static func dateTaken(path: String, head: [UInt8]) -> Int64? {
        guard hasEXIF(head), let bytes = try? readWholeFile(path, limit: DecodeOptions.defaultMaximumFileBytes) else { return nil }
        return exif(in: bytes).flatMap(EXIFDateTaken.read)
    }

    /// The `EXIF` chunk comes after the picture: from a file's start that
    /// ends before it, while the `VP8X` header says there is one, this
    /// throws, and the loader reads the whole file
    /// (``PictureLoader/uprightSize(of:)``).
    public static func header(of bytes: [UInt8], path: String, options: DecodeOptions) throws(ImageFileError) -> PictureHeader {
        let features = try self.features(of: bytes, path: path)
        let exif = self.exif(in: bytes)
        if exif == nil, options.exifRotate, hasEXIF(bytes), bytes.count < riffLength(bytes) {
            throw ImageFileError(path: path, reason: .corrupt("the WebP's EXIF chunk lies beyond the bytes read"))
        }
        return PictureHeader(
            storedSize: PixelSize(width: Int(features.width), height: Int(features.height)),
            orientation: exif.map(EXIFOrientation.read) ?? .upright)
    }

    /// Whether the `VP8X` header's flags say the file has an `EXIF` chunk.
    static func hasEXIF(_ head: [UInt8]) -> Bool {
        let exifFlag: UInt8 = 0x08
        return head.count > 20 && head[12..<16].elementsEqual("VP8X".utf8) && head[20] & exifFlag != 0
    }

    /// The file's length as its RIFF header gives it.
    static func riffLength(_ head: [UInt8]) -> Int {
        guard head.count >= 8 else { return 0 }
        return (Int(head[4]) | Int(head[5]) << 8 | Int(head[6]) << 16 | Int(head[7]) << 24) + 8
    }

    /// Scaled by libwebp to the stored picture's fitted size, then turned
    /// upright (a turn alone when the sizes already match).
    public static func decode(
        bytes: consuming [UInt8], path: String, fittedTo slot: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> DecodedPicture {
        let features = try self.features(of: bytes, path: path)
        let stored = PixelSize(width: Int(features.width), height: Int(features.height))
        let exif = self.exif(in: bytes)
        if features.has_animation != 0 {
            // Its first frame and its schedule, as a GIF's; the frames play through openAnimation.
            let schedule = try WebPAnimation.schedule(of: bytes, path: path)
            let animation = try WebPAnimation(bytes: bytes, path: path, background: options.background, fittedTo: slot, maximumPixels: options.maximumGIFPixels)
            return DecodedPicture(
                picture: try animation.decodeNext(), info: PictureInfo(format: name, originalSize: stored, dateTaken: exif.flatMap(EXIFDateTaken.read)),
                animation: schedule.isAnimated ? schedule : nil)
        }
        let orientation = options.orientation(exif.map(EXIFOrientation.read) ?? .upright)
        let upright = orientation.uprightSize(of: stored)
        let fitted = aspectFitSize(of: upright, in: slot)
        let storedFitted = orientation.swapsSides ? PixelSize(width: fitted.height, height: fitted.width) : fitted
        let decoded = try decodeStill(
            bytes, path: path, stored: stored, scaledTo: storedFitted, background: options.background, maximumPixels: options.maximumWebPPixels)
        bytes = []
        return DecodedPicture(
            picture: resample(decoded, to: fitted, turning: orientation),
            info: PictureInfo(format: name, originalSize: upright, dateTaken: exif.flatMap(EXIFDateTaken.read)))
    }

    /// libwebp cuts the region out (in stored pixels) at full resolution,
    /// then it is resampled to `size` and turned: only the region is ever
    /// decoded into kioskd's memory. libwebp starts a cut on even pixels
    /// (its chroma is halved), so the cut starts up to one pixel early and
    /// the exact region is taken from it.
    public static func decodeRegion(
        bytes: consuming [UInt8], path: String, region: PictureRegion, at size: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> RasterImage {
        let features = try self.features(of: bytes, path: path)
        let stored = PixelSize(width: Int(features.width), height: Int(features.height))
        let orientation = options.orientation(exif(in: bytes).map(EXIFOrientation.read) ?? .upright)
        let wanted = orientation.storedRect(forUpright: region.pixels(of: orientation.uprightSize(of: stored)), stored: stored)
        let decoded: RasterImage, exact: PixelRect
        if features.has_animation == 0 {
            let cut = PixelRect(x: wanted.x & ~1, y: wanted.y & ~1, width: wanted.width + wanted.x % 2, height: wanted.height + wanted.y % 2)
            decoded = try decodeStill(
                bytes, path: path, stored: stored, crop: cut, scaledTo: cut.size, background: options.background, maximumPixels: options.maximumWebPPixels)
            exact = PixelRect(x: wanted.x - cut.x, y: wanted.y - cut.y, width: wanted.width, height: wanted.height)
        } else {
            // An animation's first frame, the whole canvas, bounded as its playing is.
            decoded = try WebPAnimation(bytes: bytes, path: path, background: options.background, fittedTo: nil, maximumPixels: options.maximumGIFPixels)
                .decodeNext()
            exact = wanted
        }
        bytes = []
        return resample(decoded.cropped(to: exact), to: size, turning: orientation)
    }

    /// The whole file is read (libwebp's animation decoder needs it in memory), then played.
    public static func openAnimation(path: String, fittedTo slot: PixelSize, options: DecodeOptions) throws(ImageFileError) -> (any PictureAnimation)? {
        let bytes = try readWholeFile(path, limit: options.maximumFileBytes)
        guard try features(of: bytes, path: path).has_animation != 0 else { return nil }
        return try WebPAnimation(bytes: bytes, path: path, background: options.background, fittedTo: slot, maximumPixels: options.maximumGIFPixels)
    }
}
