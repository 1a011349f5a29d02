import CAVIF
import KioskCore
import KioskRendering
import SystemCalls

/// AVIF photos (AV1 in a HEIF container, as many Android phones, browsers
/// and messaging apps save them) through libavif and its dav1d decoder:
/// 8-, 10- and 12-bit, 4:2:0, 4:2:2, 4:4:4 and monochrome, grids (composed
/// by libavif), alpha over the background.
///
/// libavif rather than libheif (which reads AVIF too, through the same
/// dav1d): measured here on a 24 Mpx 4:4:4 AVIF, libavif decoded it in
/// 203 to 216 ms with a peak of 96 MB, libheif 1.15 in 249 to 278 ms with
/// a peak of 176 MB (libheif copies dav1d's picture into its own).
///
/// The decoded planes are converted row by row as they are resampled
/// (``YCbCrPicture``); HDR (PQ, HLG) is tone-mapped (``HDRToneMapping``).
///
/// Orientation exactly once: libavif reports the container's crop, turn and
/// mirror (`clap`, `irot`, `imir`) without applying them; kioskd applies
/// them here, in that order, and ignores the EXIF Orientation, which
/// repeats the container's turn. The `Exif` item gives the date taken.
/// An image sequence (an animated AVIF) shows its first frame and says so.
public enum AVIFCodec {
    /// A file parsed by libavif: the decoder, which owns the decoded planes, and the file it reads.
    final class Decoder {
        let decoder: UnsafeMutablePointer<avifDecoder>
        /// libavif reads the file from here for as long as the decoder lives.
        private let bytes: UnsafeMutableRawBufferPointer
        let path: String

        /// Parses the container only: sizes, transforms and metadata, no pixels.
        init(_ file: [UInt8], path: String, maximumPixels: Int) throws(ImageFileError) {
            self.path = path
            try OnDemandLibrary.open(.avif, .yuv, reading: path)
            guard let decoder = avifDecoderCreate() else { throw ImageFileError(path: path, reason: .corrupt("libavif cannot allocate a decoder")) }
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, file.count), alignment: 16)
            file.withUnsafeBytes { copy.copyMemory(from: $0) }
            (self.decoder, bytes) = (decoder, copy)
            decoder.pointee.maxThreads = 2
            decoder.pointee.ignoreXMP = AVIF_TRUE
            // What phones write is shown even where it bends the rules (a missing `pixi`, an odd `clap`).
            decoder.pointee.strictFlags = UInt32(AVIF_STRICT_DISABLED.rawValue)
            // Refused inside libavif too, before it allocates a grid or a frame.
            // (libavif takes no more than its own default, 16384 x 16384.)
            decoder.pointee.imageSizeLimit = UInt32(clamping: min(maximumPixels, 16384 * 16384))
            try check(avifDecoderSetIOMemory(decoder, copy.baseAddress!.assumingMemoryBound(to: UInt8.self), file.count))
            try check(avifDecoderParse(decoder))
        }

        deinit {
            avifDecoderDestroy(decoder)
            bytes.deallocate()
        }

        func check(_ result: avifResult) throws(ImageFileError) {
            guard result != AVIF_RESULT_OK else { return }
            let detail = Self.message(decoder.pointee.diag)
            let reason = String(cString: avifResultToString(result)) + (detail.isEmpty ? "" : ": " + detail)
            throw ImageFileError(path: path, reason: .corrupt(reason))
        }

        /// libavif's words on what it refused, without its "[Strict] " tag.
        static func message(_ diagnostics: avifDiagnostics) -> String {
            let text = withUnsafeBytes(of: diagnostics.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return text.hasPrefix("[Strict] ") ? String(text.dropFirst(9)) : text
        }

        var image: avifImage { decoder.pointee.image.pointee }

        /// The stored part shown: the `clap` crop, or all of it.
        var crop: PixelRect { cleanAperture.rect }

        /// The `clap` crop, and why it is not applied when it cannot be.
        /// Asked as for 4:4:4: libavif refuses an odd origin with subsampled
        /// chroma (0.11 an odd size too), which MIAF allows once the chroma
        /// is upsampled, and the planes are converted a pixel at a time, each
        /// with the chroma sample covering it, so the crop falls after the
        /// conversion wherever it starts. A `clap` outside the picture, or in
        /// fractions of a pixel, still shows the whole picture, and says so.
        private var cleanAperture: (rect: PixelRect, refusal: String?) {
            let image = self.image
            let whole = PixelRect(x: 0, y: 0, width: Int(image.width), height: Int(image.height))
            guard image.transformFlags & UInt32(AVIF_TRANSFORM_CLAP.rawValue) != 0 else { return (whole, nil) }
            var rect = avifCropRect(), diagnostics = avifDiagnostics()
            var clap = image.clap
            guard avifCropRectConvertCleanApertureBox(&rect, &clap, image.width, image.height, AVIF_PIXEL_FORMAT_YUV444, &diagnostics) == AVIF_TRUE else {
                return (whole, "has a clean aperture (clap) that cannot be applied (\(Self.message(diagnostics))): showing the whole picture")
            }
            return (PixelRect(x: Int(rect.x), y: Int(rect.y), width: Int(rect.width), height: Int(rect.height)), nil)
        }

        /// The container's turn and mirror as one orientation.
        var orientation: ImageOrientation {
            var image = self.image
            let turns = image.transformFlags & UInt32(AVIF_TRANSFORM_IROT.rawValue) != 0 ? Int(image.irot.angle) : 0
            let mirror = image.transformFlags & UInt32(AVIF_TRANSFORM_IMIR.rawValue) != 0 ? ImageOrientation.ContainerMirror(rawValue: Int(kiosk_avif_mirror(&image))) : nil
            return ImageOrientation(quarterTurnsAnticlockwise: turns, mirror: mirror)
        }

        /// The size shown: cropped and turned.
        var size: PixelSize { orientation.uprightSize(of: crop.size) }

        /// The EXIF as libexif reads it; nil when there is none.
        var exif: [UInt8]? {
            let exif = image.exif
            guard exif.size > 4, let data = exif.data else { return nil }
            return EXIFDateTaken.tiff(fromExifItem: Array(UnsafeBufferPointer(start: data, count: exif.size)))
        }

        var note: String? {
            let sequence = decoder.pointee.imageCount > 1 ? "is an image sequence of \(decoder.pointee.imageCount) frames: showing its first" : nil
            let notes = [sequence, cleanAperture.refusal].compactMap { $0 }
            return notes.isEmpty ? nil : notes.joined(separator: "; ")
        }

        /// The first image decoded to its planes (which the decoder keeps).
        func decodePlanes() throws(ImageFileError) -> YCbCrPicture {
            try check(avifDecoderNextImage(decoder))
            let image = self.image
            let size = PixelSize(width: Int(image.width), height: Int(image.height))
            guard size.width > 0, size.height > 0, (8...16).contains(Int(image.depth)), let y = image.yuvPlanes.0 else {
                throw ImageFileError(path: path, reason: .corrupt("libavif gave no picture kioskd can read"))
            }
            func plane(_ base: UnsafeMutablePointer<UInt8>?, _ rowBytes: UInt32) -> YCbCrPicture.Plane? {
                base.map { YCbCrPicture.Plane(base: UnsafeRawPointer($0), rowBytes: Int(rowBytes)) }
            }
            let monochrome = image.yuvFormat == AVIF_PIXEL_FORMAT_YUV400
            let chroma = plane(image.yuvPlanes.1, image.yuvRowBytes.1).flatMap { cb in plane(image.yuvPlanes.2, image.yuvRowBytes.2).map { (cb: cb, cr: $0) } }
            guard monochrome || chroma != nil else { throw ImageFileError(path: path, reason: .corrupt("libavif gave no chroma planes")) }
            var colour = YCbCrPicture.Colour()
            colour.matrix = Int(image.matrixCoefficients)
            colour.primaries = Int(image.colorPrimaries)
            colour.transfer = Int(image.transferCharacteristics)
            colour.fullRange = image.yuvRange == AVIF_RANGE_FULL
            let shift: (x: Int, y: Int) = switch image.yuvFormat {
            case AVIF_PIXEL_FORMAT_YUV420: (1, 1)
            case AVIF_PIXEL_FORMAT_YUV422: (1, 0)
            default: (0, 0)
            }
            return YCbCrPicture(
                size: size, luma: YCbCrPicture.Plane(base: UnsafeRawPointer(y), rowBytes: Int(image.yuvRowBytes.0)),
                chroma: monochrome ? nil : chroma, chromaShift: shift, alpha: plane(image.alphaPlane, image.alphaRowBytes),
                depth: Int(image.depth), alphaDepth: Int(image.depth), premultiplied: image.alphaPremultiplied == AVIF_TRUE,
                colour: colour, owner: self)
        }
    }
}

extension AVIFCodec: PictureCodec {
    public static let name = "AVIF"
    public static let fileExtensions = ["avif"]

    /// An `ftyp` whose main brand is AVIF's: `avif` for a still, `avis` for
    /// a sequence. (A file branded only with the generic `mif1` goes to
    /// ``HEIFCodec``, whose libheif has an AV1 decoder too.)
    public static func recognises(_ head: borrowing [UInt8]) -> Bool {
        guard head.count >= 12, head[4..<8].elementsEqual("ftyp".utf8) else { return false }
        return head[8..<12].elementsEqual("avif".utf8) || head[8..<12].elementsEqual("avis".utf8)
    }

    public static func header(of bytes: [UInt8], path: String, options: DecodeOptions) throws(ImageFileError) -> PictureHeader {
        let decoder = try Decoder(bytes, path: path, maximumPixels: options.maximumAVIFPixels)
        return PictureHeader(storedSize: decoder.size)
    }

    public static func decode(
        bytes: consuming [UInt8], path: String, fittedTo slot: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> DecodedPicture {
        let decoder = try Decoder(bytes, path: path, maximumPixels: options.maximumAVIFPixels)
        bytes = []
        let (crop, orientation, upright) = (decoder.crop, decoder.orientation, decoder.size)
        guard upright.width > 0, upright.height > 0 else { throw ImageFileError(path: path, reason: .corrupt("an AVIF image with no pixels")) }
        // Refused before a pixel is decoded.
        guard upright.pixelCount <= options.maximumAVIFPixels else { throw ImageFileError(path: path, reason: .tooLarge(upright)) }
        let planes = try decoder.decodePlanes()
        let picture = planes.resampled(cropping: crop, to: aspectFitSize(of: upright, in: slot), turning: orientation, background: options.background)
        return DecodedPicture(
            picture: picture,
            info: PictureInfo(format: name, originalSize: upright, dateTaken: decoder.exif.flatMap(EXIFDateTaken.read), note: decoder.note))
    }

    /// Decoded whole to planes; only the region is converted, as it is resampled.
    public static func decodeRegion(
        bytes: consuming [UInt8], path: String, region: PictureRegion, at size: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> RasterImage {
        let decoder = try Decoder(bytes, path: path, maximumPixels: options.maximumAVIFPixels)
        bytes = []
        let (crop, orientation) = (decoder.crop, decoder.orientation)
        let planes = try decoder.decodePlanes()
        let wanted = region.pixels(of: orientation.uprightSize(of: crop.size))
        let cut = orientation.storedRect(forUpright: wanted, stored: crop.size)
        return planes.resampled(
            cropping: PixelRect(x: crop.x + cut.x, y: crop.y + cut.y, width: cut.width, height: cut.height), to: size,
            turning: orientation, background: options.background)
    }

    /// The `Exif` item; the whole file is read, as libavif parses it whole.
    public static func dateTaken(path: String, head: [UInt8]) -> Int64? {
        guard let bytes = try? readWholeFile(path, limit: DecodeOptions.defaultMaximumFileBytes),
              let decoder = try? Decoder(bytes, path: path, maximumPixels: DecodeOptions(background: .black).maximumAVIFPixels) else { return nil }
        return decoder.exif.flatMap(EXIFDateTaken.read)
    }
}
