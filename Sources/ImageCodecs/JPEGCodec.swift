import CLibJPEG
import CTurboJPEG
import KioskCore
import KioskRendering
import SystemCalls

/// JPEG through libjpeg-turbo's TurboJPEG API (2.1: `tjDecompressHeader3`,
/// `tjDecompress2`, `tjCompress2`). TurboJPEG reports errors through its handle
/// and never calls `exit()`, unlike libjpeg's default error manager.
public enum JPEGCodec {
    /// A DCT scaling factor: the decoder produces `num/denom` of the full size
    /// almost for free, by skipping high-frequency coefficients.
    public struct ScalingFactor: Hashable, Sendable, CustomStringConvertible {
        public let num: Int
        public let denom: Int

        public init(num: Int, denom: Int) {
            self.num = num
            self.denom = denom
        }

        /// TurboJPEG's `TJSCALED`: the scaled dimension, rounded up.
        public func scaled(_ dimension: Int) -> Int { (dimension * num + denom - 1) / denom }
        public func scaled(_ size: PixelSize) -> PixelSize {
            PixelSize(width: scaled(size.width), height: scaled(size.height))
        }
        public var description: String { "\(num)/\(denom)" }
    }

    /// The factors this libjpeg-turbo offers (`tjGetScalingFactors`).
    public static let scalingFactors: [ScalingFactor] = {
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count), count > 0 else { return [ScalingFactor(num: 1, denom: 1)] }
        return (0..<Int(count)).map { ScalingFactor(num: Int(factors[$0].num), denom: Int(factors[$0].denom)) }
    }()

    /// The smallest decode that is still at least `target` in both directions,
    /// so the resampler only ever reduces from real detail. A source smaller
    /// than the target decodes at full size (1/1). Factors above 1/1 are never
    /// chosen: upscaling is the resampler's job.
    public static func scalingFactor(
        for source: PixelSize, atLeast target: PixelSize, from factors: [ScalingFactor] = scalingFactors
    ) -> ScalingFactor {
        let candidates = factors.filter { $0.num <= $0.denom }
        let fitting = candidates.filter {
            $0.scaled(source.width) >= target.width && $0.scaled(source.height) >= target.height
        }
        let smaller = { (a: ScalingFactor, b: ScalingFactor) in a.num * b.denom < b.num * a.denom }
        return fitting.min(by: smaller) ?? ScalingFactor(num: 1, denom: 1)
    }

    /// The picture's size from its header (`tjDecompressHeader3`).
    public static func size(of jpeg: [UInt8], path: String) throws(ImageFileError) -> PixelSize {
        let handle = try Handle(decompressing: path)
        return try handle.header(jpeg)
    }

    /// True for the libjpeg warnings that leave the picture whole. Phones
    /// and editors write stray bytes before markers ("Corrupt JPEG data: 3
    /// extraneous bytes before marker 0xd9"), broken ICC profiles (kioskd
    /// does not use them) and unknown Adobe transform codes: those photos show.
    public static func isHarmless(_ warning: String) -> Bool {
        (warning.hasPrefix("Corrupt JPEG data: ") && warning.contains(" extraneous bytes before marker "))
            || warning.hasPrefix("Corrupt JPEG data: bad ICC marker")
            || warning.hasPrefix("Unknown Adobe color transform code")
    }

    /// Decodes at the smallest DCT scale still at least `minimumSize`
    /// (pass nil for the full size), straight into XRGB8888.
    ///
    /// A warning that means missing or corrupt picture data ("Premature end
    /// of JPEG file" from a half-copied file, "premature end of data
    /// segment") fails the decode: a half-grey picture is worse on a kiosk
    /// than skipping it. The harmless ones (``isHarmless(_:)``) do not.
    public static func decode(
        _ jpeg: [UInt8], path: String, minimumSize: PixelSize?, maximumPixels: Int
    ) throws(ImageFileError) -> RasterImage {
        let handle = try Handle(decompressing: path)
        let (full, cmyk) = try handle.headerAndColourspace(jpeg)
        let factor = minimumSize.map { scalingFactor(for: full, atLeast: $0) } ?? ScalingFactor(num: 1, denom: 1)
        let size = factor.scaled(full)
        // Refuse before allocating: a 65535x65535 header must not cost 16 GiB.
        guard size.pixelCount <= maximumPixels else { throw ImageFileError(path: path, reason: .tooLarge(full)) }
        // libjpeg cannot turn CMYK (print workflows, Photoshop) into RGB:
        // take the inks and convert them here. Either way 4 bytes a pixel.
        // Not zeroed first (one more pass over 6 MB for a 24 Mpx photo at
        // 1/4): a decode that succeeds wrote every pixel, and one that did
        // not (an error, or a warning about missing data) throws below, so
        // its memory is never shown.
        let format = cmyk ? TJPF_CMYK : TJPF_BGRX
        var status: Int32 = 0
        var pixels = [UInt32](unsafeUninitializedCapacity: size.pixelCount) { out, initialized in
            status = tjDecompress2(
                handle.raw, jpeg, UInt(jpeg.count), UnsafeMutableRawPointer(out.baseAddress!).assumingMemoryBound(to: UInt8.self),
                Int32(size.width), Int32(size.width * 4), Int32(size.height), Int32(format.rawValue), 0)
            initialized = size.pixelCount
        }
        if status != 0 {
            let warning = tjGetErrorCode(handle.raw) == Int32(TJERR_WARNING.rawValue)
            guard warning && isHarmless(String(cString: tjGetErrorStr2(handle.raw))) else { throw handle.error() }
        }
        if cmyk { convertInvertedCMYKToXRGB(&pixels) }
        return RasterImage(size: size, pixels: pixels)
    }

    /// Decodes straight to `fitted` (the upright size), turned upright as
    /// `orientation` says: at the smallest DCT scale still at least that
    /// size, each row resampled as libjpeg decodes it (libjpeg's own API
    /// through ``CLibJPEG``), so the decoded picture (6 MB for a 24 Mpx
    /// photo at 1/4, 24 MB at 1/2 for a 4K screen) is never in memory whole:
    /// one row of it is. The pixels are those of
    /// ``decode(_:path:minimumSize:maximumPixels:)`` then
    /// ``resample(_:to:turning:)``, and warnings are treated the same.
    public static func decode(
        _ jpeg: [UInt8], path: String, fittedTo fitted: PixelSize, turning orientation: ImageOrientation, maximumPixels: Int
    ) throws(ImageFileError) -> RasterImage {
        _ = try size(of: jpeg, path: path)
        // The closure's typed error comes back through a Result: Swift 6.0's withUnsafeBufferPointer rethrows untyped.
        let decoded = jpeg.withUnsafeBufferPointer { data in
            Result { () throws(ImageFileError) -> RasterImage in
                try RowReader(path: path) { kiosk_jpeg_rows_open(data.baseAddress, UInt(data.count), &$0, &$1, &$2, $3) }
                    .decode(fittedTo: { _ in fitted }, turning: orientation, maximumPixels: maximumPixels)
            }
        }
        return try decoded.get()
    }

    /// The same, read from `file` as it is decoded (libjpeg's stdio
    /// source), so neither the file nor the decoded picture is ever in
    /// memory whole: a 24 Mpx photo's 5 to 10 MB of file are 4 KiB at a
    /// time. `fit` gives the upright size to resample to from the stored
    /// size in the header. Takes `file` over: it is closed when the decode ends.
    public static func decode(
        file: consuming FileDescriptor, path: String, fittedTo fit: (_ stored: PixelSize) -> PixelSize,
        turning orientation: ImageOrientation, maximumPixels: Int
    ) throws(ImageFileError) -> RasterImage {
        let descriptor = file.release()
        return try RowReader(path: path) { kiosk_jpeg_rows_open_file(descriptor, &$0, &$1, &$2, $3) }
            .decode(fittedTo: fit, turning: orientation, maximumPixels: maximumPixels)
    }

    /// A JPEG opened for decoding a row at a time (``CLibJPEG``), its header read.
    private final class RowReader {
        let path: String
        private let reader: OpaquePointer
        private var info = kiosk_jpeg_rows_info()
        private var message = [CChar](repeating: 0, count: 256)

        init(
            path: String,
            open: (inout OpaquePointer?, inout kiosk_jpeg_rows_info, inout [CChar], Int) -> Int32
        ) throws(ImageFileError) {
            self.path = path
            var opened: OpaquePointer?
            guard open(&opened, &info, &message, message.count) == 0, let opened else {
                throw ImageFileError(path: path, reason: .corrupt(Self.text(message)))
            }
            reader = opened
        }

        deinit { kiosk_jpeg_rows_close(reader) }

        static func text(_ chars: [CChar]) -> String { String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }

        /// Decodes at the smallest DCT scale still at least the fitted size, each row resampled as it comes.
        func decode(
            fittedTo fit: (PixelSize) -> PixelSize, turning orientation: ImageOrientation, maximumPixels: Int
        ) throws(ImageFileError) -> RasterImage {
            let full = PixelSize(width: Int(info.width), height: Int(info.height))
            let fitted = fit(full)
            let factor = scalingFactor(for: full, atLeast: orientation.swapsSides ? PixelSize(width: fitted.height, height: fitted.width) : fitted)
            // Refuse before decoding: a 65535x65535 header must not cost minutes.
            guard factor.scaled(full).pixelCount <= maximumPixels else { throw ImageFileError(path: path, reason: .tooLarge(full)) }
            guard kiosk_jpeg_rows_start(reader, UInt32(factor.num), UInt32(factor.denom), UInt(maximumPixels), &info, &message, message.count) == 0 else {
                throw ImageFileError(path: path, reason: .corrupt(Self.text(message)))
            }
            var failure: String?
            var row = [UInt32](repeating: 0, count: Int(info.width))
            let picture = row.withUnsafeMutableBufferPointer { row in
                var next = 0
                return resample(rowsOf: PixelSize(width: Int(info.width), height: Int(info.height)), to: fitted, turning: orientation) { wanted in
                    // Rows passed over are decoded and dropped; after a failure, the rest is not decoded.
                    while next <= wanted && failure == nil {
                        if kiosk_jpeg_rows_read(reader, UnsafeMutableRawPointer(row.baseAddress!).assumingMemoryBound(to: UInt8.self), &message, message.count) != 0 {
                            failure = Self.text(message)
                        } else if info.cmyk != 0 {
                            convertInvertedCMYKToXRGB(row)
                        }
                        next += 1
                    }
                    return UnsafePointer(row.baseAddress!)
                }
            }
            if let failure { throw ImageFileError(path: path, reason: .corrupt(failure)) }
            var warning = [CChar](repeating: 0, count: 256)
            kiosk_jpeg_rows_warning(reader, &warning, warning.count)
            let warned = Self.text(warning)
            guard warned.isEmpty || isHarmless(warned) else { throw ImageFileError(path: path, reason: .corrupt(warned)) }
            return picture
        }
    }

    /// The stored pixels `rect` of a JPEG, decoded at the smallest DCT
    /// scale whose part is still at least `minimumSize` (libjpeg's own
    /// API through ``CLibJPEG``: only the columns wanted go through the
    /// inverse DCT, the rows above are skipped without it, and nothing
    /// below is read). Returns the decoded part, which starts at or before
    /// `rect` (columns begin on an iMCU), and where `rect` is in it.
    /// Warnings are treated as ``decode(_:path:minimumSize:maximumPixels:)`` treats them.
    public static func decodeRegion(
        _ jpeg: [UInt8], path: String, rect: PixelRect, minimumSize: PixelSize, maximumPixels: Int
    ) throws(ImageFileError) -> (picture: RasterImage, exact: PictureRegion) {
        let denominator = [8, 4, 2].first { rect.width >= minimumSize.width * $0 && rect.height >= minimumSize.height * $0 } ?? 1
        var region = kiosk_jpeg_region()
        var message = [CChar](repeating: 0, count: 256)
        let status = jpeg.withUnsafeBufferPointer { data in
            kiosk_jpeg_decode_region(
                data.baseAddress, UInt(data.count), UInt32(rect.x), UInt32(rect.y), UInt32(rect.width), UInt32(rect.height),
                UInt32(denominator), UInt(maximumPixels), &region, &message, message.count)
        }
        guard status == 0, let start = region.pixels else {
            throw ImageFileError(path: path, reason: .corrupt(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        defer { kiosk_jpeg_region_free(&region) }
        let warning = withUnsafeBytes(of: region.warning) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard warning.isEmpty || isHarmless(warning) else { throw ImageFileError(path: path, reason: .corrupt(warning)) }
        let size = PixelSize(width: Int(region.width), height: Int(region.height))
        var pixels = [UInt32](repeating: 0, count: size.pixelCount)
        pixels.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: start, count: size.pixelCount * 4)) }
        if region.cmyk != 0 { convertInvertedCMYKToXRGB(&pixels) }
        let d = Double(denominator), x = Double(region.x), y = Double(region.y)
        let exact = PictureRegion(
            left: max(0, (Double(rect.x) / d - x) / Double(size.width)), top: max(0, (Double(rect.y) / d - y) / Double(size.height)),
            right: min(1, (Double(rect.x + rect.width) / d - x) / Double(size.width)),
            bottom: min(1, (Double(rect.y + rect.height) / d - y) / Double(size.height)))
        return (RasterImage(size: size, pixels: pixels), exact)
    }

    /// CMYK JPEGs store inverted inks (Adobe's convention, which libjpeg-turbo
    /// follows): each byte is 255 minus the ink, so red = C * K / 255.
    static func convertInvertedCMYKToXRGB(_ pixels: inout [UInt32]) {
        pixels.withUnsafeMutableBufferPointer { convertInvertedCMYKToXRGB($0) }
    }

    static func convertInvertedCMYKToXRGB(_ pixels: UnsafeMutableBufferPointer<UInt32>) {
        for i in pixels.indices {
            let p = pixels[i]   // bytes in memory: C, M, Y, K (little-endian)
            let c = p & 0xFF, m = (p >> 8) & 0xFF, y = (p >> 16) & 0xFF, k = p >> 24
            pixels[i] = ((c * k + 127) / 255) << 16 | ((m * k + 127) / 255) << 8 | ((y * k + 127) / 255)
        }
    }

    /// How ``encode(_:quality:kind:)`` stores the picture.
    public enum EncodingKind: Sendable {
        /// Baseline YCbCr 4:2:0, as cameras do.
        case colour
        case grayscale
        case progressive
        /// Inverted CMYK (as Photoshop writes), converted from the RGB pixels.
        case cmyk
    }

    /// Encodes XRGB8888 pixels (`tjCompress2`). Used to generate the demo
    /// pictures, test files and benchmark images.
    public static func encode(_ image: RasterImage, quality: Int = 90, kind: EncodingKind = .colour) throws(ImageFileError) -> [UInt8] {
        guard let raw = tjInitCompress() else { throw ImageFileError(path: "<jpeg encoder>", reason: .corrupt("tjInitCompress failed")) }
        defer { tjDestroy(raw) }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var length: UInt = 0
        var pixels = image.pixels
        var format = TJPF_BGRX
        if kind == .cmyk {
            format = TJPF_CMYK
            for i in pixels.indices {
                let p = pixels[i]
                let r = (p >> 16) & 0xFF, g = (p >> 8) & 0xFF, b = p & 0xFF
                let k = max(r, g, b, 1)   // inverted: 255 - black ink
                pixels[i] = (r * 255 / k) | (g * 255 / k) << 8 | (b * 255 / k) << 16 | k << 24
            }
        }
        let subsampling = kind == .grayscale ? TJSAMP_GRAY : (kind == .cmyk ? TJSAMP_444 : TJSAMP_420)
        let flags = kind == .progressive ? TJFLAG_PROGRESSIVE : 0
        let status = pixels.withUnsafeBytes { source in
            tjCompress2(
                raw, source.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(image.width), Int32(image.width * 4),
                Int32(image.height), Int32(format.rawValue), &output, &length, Int32(subsampling.rawValue),
                Int32(quality), flags)
        }
        defer { if let output { tjFree(output) } }
        guard status == 0, let output else {
            throw ImageFileError(path: "<jpeg encoder>", reason: .corrupt(String(cString: tjGetErrorStr2(raw))))
        }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }

    /// One TurboJPEG decompressor, destroyed with its scope.
    private final class Handle {
        let raw: tjhandle
        let path: String

        init(decompressing path: String) throws(ImageFileError) {
            guard let raw = tjInitDecompress() else {
                throw ImageFileError(path: path, reason: .corrupt("tjInitDecompress failed"))
            }
            self.raw = raw
            self.path = path
        }

        deinit { tjDestroy(raw) }

        func header(_ jpeg: [UInt8]) throws(ImageFileError) -> PixelSize { try headerAndColourspace(jpeg).size }

        func headerAndColourspace(_ jpeg: [UInt8]) throws(ImageFileError) -> (size: PixelSize, cmyk: Bool) {
            var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colourspace: Int32 = 0
            guard tjDecompressHeader3(raw, jpeg, UInt(jpeg.count), &width, &height, &subsampling, &colourspace) == 0
            else { throw error() }
            guard width > 0, height > 0 else { throw ImageFileError(path: path, reason: .corrupt("zero-sized picture")) }
            let cmyk = colourspace == Int32(TJCS_CMYK.rawValue) || colourspace == Int32(TJCS_YCCK.rawValue)
            return (PixelSize(width: Int(width), height: Int(height)), cmyk)
        }

        func error() -> ImageFileError {
            ImageFileError(path: path, reason: .corrupt(String(cString: tjGetErrorStr2(raw))))
        }
    }
}

extension JPEGCodec: PictureCodec {
    public static let name = "JPEG"
    public static let fileExtensions = ["jpg", "jpeg"]

    public static func recognises(_ head: borrowing [UInt8]) -> Bool { head.starts(with: [0xFF, 0xD8, 0xFF]) }

    public static func header(of bytes: [UInt8], path: String, options: DecodeOptions) throws(ImageFileError) -> PictureHeader {
        PictureHeader(storedSize: try size(of: bytes, path: path), orientation: EXIFOrientation.read(bytes))
    }

    /// Fits the upright picture from the header's full size; the DCT-scaled
    /// decode (in stored orientation) is only a cheaper starting point,
    /// resampled row by row as it is decoded and turned upright by the
    /// resampler as it writes.
    public static func decode(
        bytes: consuming [UInt8], path: String, fittedTo slot: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> DecodedPicture {
        let stored = try size(of: bytes, path: path)
        let orientation = options.orientation(EXIFOrientation.read(bytes))
        let upright = orientation.uprightSize(of: stored)
        let picture = try decode(
            bytes, path: path, fittedTo: aspectFitSize(of: upright, in: slot), turning: orientation, maximumPixels: options.maximumScaledJPEGPixels)
        return DecodedPicture(picture: picture, info: PictureInfo(format: name, originalSize: upright, dateTaken: EXIFDateTaken.read(bytes)))
    }

    /// Read from the file as it is decoded and resampled row by row, so
    /// neither the file (5 to 10 MB for a 24 Mpx photo) nor the decoded
    /// picture is ever in memory whole: the fitted picture is the only
    /// picture-sized buffer. EXIF is in `head` (``EXIFOrientation/searchLimit``).
    public static func decode(
        file: consuming FileDescriptor, head: [UInt8], path: String, fittedTo slot: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> DecodedPicture {
        let orientation = options.orientation(EXIFOrientation.read(head))
        var upright = PixelSize(width: 0, height: 0)
        let picture = try decode(
            file: file, path: path,
            fittedTo: { stored in
                upright = orientation.uprightSize(of: stored)
                return aspectFitSize(of: upright, in: slot)
            },
            turning: orientation, maximumPixels: options.maximumScaledJPEGPixels)
        return DecodedPicture(picture: picture, info: PictureInfo(format: name, originalSize: upright, dateTaken: EXIFDateTaken.read(head)))
    }

    /// The region alone is decoded (``decodeRegion(_:path:rect:minimumSize:maximumPixels:)``,
    /// in its stored orientation), at the smallest DCT scale still at least
    /// `size`: only about the region at screen resolution is ever in
    /// memory, never the whole photo zoomed.
    public static func decodeRegion(
        bytes: consuming [UInt8], path: String, region: PictureRegion, at size: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> RasterImage {
        let stored = try self.size(of: bytes, path: path)
        let orientation = options.orientation(EXIFOrientation.read(bytes))
        let wanted = region.pixels(of: orientation.uprightSize(of: stored))
        let cut = orientation.storedRect(forUpright: wanted, stored: stored)
        // `size` is upright: the stored part must cover it with its sides turned back.
        let storedTarget = orientation.swapsSides ? PixelSize(width: size.height, height: size.width) : size
        let (decoded, exact) = try decodeRegion(bytes, path: path, rect: cut, minimumSize: storedTarget, maximumPixels: options.maximumScaledJPEGPixels)
        bytes = []
        return resample(decoded.cropped(to: exact.pixels(of: decoded.size)), to: size, turning: orientation)
    }
}
