import CHEIF
import KioskCore
import KioskRendering

/// HEIC and HEIF photos (an iPhone's default) through libheif, with its
/// libde265 decoder: the file's primary image (grids and overlays composed
/// by libheif), 10- and 12-bit brought to 8, alpha over the background.
///
/// Orientation exactly once: the container's rotation, mirroring and crop
/// (`irot`, `imir`, `clap`) are applied by libheif as it decodes, and the
/// EXIF Orientation an iPhone still writes (6 for a portrait) is ignored,
/// or the photo would lie on its side. The `Exif` item gives the date taken.
///
/// This first version decodes the primary image whole as 8-bit RGB (or
/// RGBA), then resamples it: a 12 Mpx photo costs 36 MB while it is
/// decoded. Decoding to YCbCr planes and converting while resampling is
/// the next step (issue 34).
public enum HEIFCodec {
    /// libheif loads its decoder plugins once.
    private static let initialised: Bool = heif_init(nil).code == heif_error_Ok

    /// A decoded file's primary image: its libheif context and handle, released together.
    final class PrimaryImage {
        let context: OpaquePointer
        let handle: OpaquePointer
        /// libheif reads the file from here for as long as the context lives.
        private let bytes: UnsafeMutableRawBufferPointer
        let path: String

        init(_ file: [UInt8], path: String) throws(ImageFileError) {
            _ = HEIFCodec.initialised
            self.path = path
            guard let context = heif_context_alloc() else { throw ImageFileError(path: path, reason: .corrupt("libheif cannot allocate a context")) }
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, file.count), alignment: 16)
            file.withUnsafeBytes { copy.copyMemory(from: $0) }
            var handle: OpaquePointer?
            var error = heif_context_read_from_memory_without_copy(context, copy.baseAddress, file.count, nil)
            if error.code == heif_error_Ok { error = heif_context_get_primary_image_handle(context, &handle) }
            guard error.code == heif_error_Ok, let handle else {
                heif_context_free(context)
                copy.deallocate()
                throw ImageFileError(path: path, reason: .corrupt(HEIFCodec.describe(error)))
            }
            bytes = copy
            self.context = context
            self.handle = handle
        }

        deinit {
            heif_image_handle_release(handle)
            heif_context_free(context)
            bytes.deallocate()
        }

        /// A burst, a collection or a stereo pair holds more than one image:
        /// the show shows the primary one and says so, once.
        var note: String? {
            let count = Int(heif_context_get_number_of_top_level_images(context))
            return count > 1 ? "holds \(count) images (a burst, a collection or a stereo pair): showing its primary image" : nil
        }

        /// The size shown: after the container's turn and crop.
        var size: PixelSize { PixelSize(width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle))) }

        /// The image decoded whole, upright, as XRGB8888 over `background`;
        /// refused over `maximumPixels` before anything is decoded.
        func decode(background: RGBColor, maximumPixels: Int) throws(ImageFileError) -> RasterImage {
            let size = self.size
            guard size.width > 0, size.height > 0 else { throw ImageFileError(path: path, reason: .corrupt("a HEIF image with no pixels")) }
            guard size.pixelCount <= maximumPixels else { throw ImageFileError(path: path, reason: .tooLarge(size)) }
            let alpha = heif_image_handle_has_alpha_channel(handle) != 0
            guard let options = heif_decoding_options_alloc() else { throw ImageFileError(path: path, reason: .corrupt("libheif cannot allocate options")) }
            defer { heif_decoding_options_free(options) }
            options.pointee.convert_hdr_to_8bit = 1
            var image: OpaquePointer?
            let error = heif_decode_image(handle, &image, heif_colorspace_RGB, alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, options)
            guard error.code == heif_error_Ok, let image else { throw ImageFileError(path: path, reason: .corrupt(HEIFCodec.describe(error))) }
            defer { heif_image_release(image) }
            var stride: Int32 = 0
            guard let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride),
                  Int(heif_image_get_width(image, heif_channel_interleaved)) == size.width,
                  Int(heif_image_get_height(image, heif_channel_interleaved)) == size.height else {
                throw ImageFileError(path: path, reason: .corrupt("libheif gave no picture of the size its header says"))
            }
            let channels = alpha ? 4 : 3
            let blend = AlphaCompositor(background)
            var pixels = [UInt32](repeating: 0, count: size.pixelCount)
            for y in 0..<size.height {
                let row = plane + y * Int(stride)
                for x in 0..<size.width {
                    let p = row + x * channels
                    pixels[y * size.width + x] = blend.over(UInt32(p[0]), UInt32(p[1]), UInt32(p[2]), alpha: alpha ? UInt32(p[3]) : 255)
                }
            }
            return RasterImage(size: size, pixels: pixels)
        }

        /// The `Exif` item as libexif reads it (`Exif\0\0`, then the TIFF
        /// that the item's first four bytes point past); nil when there is none.
        var exif: [UInt8]? {
            var id = heif_item_id()
            guard heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) == 1 else { return nil }
            let size = heif_image_handle_get_metadata_size(handle, id)
            guard size > 4, size < 1 << 20 else { return nil }
            var item = [UInt8](repeating: 0, count: size)
            guard heif_image_handle_get_metadata(handle, id, &item).code == heif_error_Ok else { return nil }
            let offset = Int(item[0]) << 24 | Int(item[1]) << 16 | Int(item[2]) << 8 | Int(item[3])
            guard offset >= 0, 4 + offset < item.count else { return nil }
            let header: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]   // "Exif\0\0"
            let tiff = Array(item[(4 + offset)...])
            return tiff.starts(with: header) ? tiff : header + tiff
        }
    }

    static func describe(_ error: heif_error) -> String {
        error.message.map { String(cString: $0) } ?? "libheif error \(error.code.rawValue)"
    }
}

extension HEIFCodec: PictureCodec {
    public static let name = "HEIF"
    public static let fileExtensions = ["heic", "heif", "hif"]

    /// libheif's own check, for the HEVC brands (AVIF, its AV1 sibling, is
    /// not read yet: which library reads it is still to be measured).
    public static func recognises(_ head: borrowing [UInt8]) -> Bool {
        guard head.count >= 12 else { return false }
        let (filetype, brand) = head.withUnsafeBufferPointer { ($0.baseAddress.map { heif_check_filetype($0, 12) }, $0.baseAddress.map { heif_read_main_brand($0, 12) }) }
        guard filetype == heif_filetype_yes_supported || filetype == heif_filetype_maybe, let brand else { return false }
        func fourcc(_ text: String) -> heif_brand2 { text.utf8.reduce(0) { $0 << 8 | heif_brand2($1) } }
        return ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"].map(fourcc).contains(brand)
    }

    /// The size after the container's transforms; no EXIF turn (libheif has applied the container's).
    public static func header(of bytes: [UInt8], path: String, options: DecodeOptions) throws(ImageFileError) -> PictureHeader {
        PictureHeader(storedSize: try PrimaryImage(bytes, path: path).size)
    }

    public static func decode(
        bytes: consuming [UInt8], path: String, fittedTo slot: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> DecodedPicture {
        let primary = try PrimaryImage(bytes, path: path)
        bytes = []
        let decoded = try primary.decode(background: options.background, maximumPixels: options.maximumHEIFPixels)
        return DecodedPicture(
            picture: resample(decoded, to: aspectFitSize(of: decoded.size, in: slot)),
            info: PictureInfo(format: name, originalSize: decoded.size, dateTaken: primary.exif.flatMap(EXIFDateTaken.read), note: primary.note))
    }

    /// Decoded whole, then cut and resampled.
    public static func decodeRegion(
        bytes: consuming [UInt8], path: String, region: PictureRegion, at size: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> RasterImage {
        let decoded = try PrimaryImage(bytes, path: path).decode(background: options.background, maximumPixels: options.maximumHEIFPixels)
        bytes = []
        return resample(decoded.cropped(to: region.pixels(of: decoded.size)), to: size)
    }

    /// The `Exif` item: the whole file is read (it usually sits in the `meta` box at the start, but need not).
    public static func dateTaken(path: String, head: [UInt8]) -> Int64? {
        guard let bytes = try? readWholeFile(path, limit: DecodeOptions.defaultMaximumFileBytes),
              let primary = try? PrimaryImage(bytes, path: path) else { return nil }
        return primary.exif.flatMap(EXIFDateTaken.read)
    }
}
