import CHEIF
import Dispatch
import KioskCore
import KioskRendering
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// HEIC and HEIF photos (an iPhone's default) through libheif, with its
/// libde265 decoder: the file's primary image (grids and overlays composed
/// by libheif), 10- and 12-bit brought to 8, alpha over the background.
///
/// Orientation exactly once: the container's rotation, mirroring and crop
/// (`irot`, `imir`, `clap`) are applied by libheif as it decodes, and the
/// EXIF Orientation an iPhone still writes (6 for a portrait) is ignored,
/// or the photo would lie on its side. The `Exif` item gives the date taken.
///
/// The primary image is decoded to the planes libheif's HEVC decoder
/// makes (YCbCr 4:2:0 for a phone's photo: 18 MB at 12 Mpx, not 48 MB as
/// XRGB), and converted row by row as it is resampled (``YCbCrPicture``).
public enum HEIFCodec {
    /// libheif, mapped on first use (``OnDemandLibrary``); it then loads its
    /// decoder plugins, once.
    private static let library = Result { () throws(MissingLibrary) in
        try OnDemandLibrary.heif.open()
        _ = heif_init(nil)
    }

    /// Maps libheif and libyuv if they are not yet: before any other call
    /// into them, for the picture at `path`.
    static func openLibraries(reading path: String) throws(ImageFileError) {
        try OnDemandLibrary.open(.yuv, reading: path)
        do throws(MissingLibrary) { try library.get() } catch { throw ImageFileError(path: path, reason: .libraryMissing(error)) }
    }

    /// A decoded file's primary image: its libheif context and handle, released together.
    final class PrimaryImage {
        let context: OpaquePointer
        let handle: OpaquePointer
        /// libheif reads the file from here, when it was given in memory, for as long as the context lives.
        private let bytes: UnsafeMutableRawBufferPointer?
        /// The file's length in `bytes` (which holds at least one byte).
        private let length: Int
        let path: String

        /// From the file's bytes in memory (copied: libheif reads them as it decodes).
        convenience init(_ file: [UInt8], path: String) throws(ImageFileError) {
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, file.count), alignment: 16)
            file.withUnsafeBytes { copy.copyMemory(from: $0) }
            try self.init(path: path, keeping: copy, length: file.count) { heif_context_read_from_memory_without_copy($0, copy.baseAddress, file.count, nil) }
        }

        /// From the file at `path`, which libheif opens and reads as it
        /// needs: the boxes that describe it now, each tile's coded data as
        /// it is decoded. The file is never in memory whole.
        convenience init(readingFile path: String) throws(ImageFileError) {
            try self.init(path: path, keeping: nil, length: 0) { heif_context_read_from_file($0, path, nil) }
        }

        /// Another context on the same file, for another thread to decode
        /// tiles with (libheif decodes one context's tiles one at a time).
        /// It reads this one's bytes, so it must not outlive it.
        func sibling() throws(ImageFileError) -> PrimaryImage {
            guard let bytes else { return try PrimaryImage(readingFile: path) }
            let length = self.length
            return try PrimaryImage(path: path, keeping: nil, length: length) { heif_context_read_from_memory_without_copy($0, bytes.baseAddress, length, nil) }
        }

        private init(path: String, keeping bytes: UnsafeMutableRawBufferPointer?, length: Int, read: (OpaquePointer) -> heif_error) throws(ImageFileError) {
            do throws(ImageFileError) {
                try HEIFCodec.openLibraries(reading: path)
            } catch {
                bytes?.deallocate()
                throw error
            }
            self.path = path
            self.length = length
            guard let context = heif_context_alloc() else {
                bytes?.deallocate()
                throw ImageFileError(path: path, reason: .corrupt("libheif cannot allocate a context"))
            }
            var handle: OpaquePointer?
            var error = read(context)
            if error.code == heif_error_Ok { error = heif_context_get_primary_image_handle(context, &handle) }
            guard error.code == heif_error_Ok, let handle else {
                // The message lives in the context: read before it is freed.
                let reason = HEIFCodec.describe(error)
                heif_context_free(context)
                bytes?.deallocate()
                throw ImageFileError(path: path, reason: .corrupt(reason))
            }
            self.bytes = bytes
            self.context = context
            self.handle = handle
        }

        deinit {
            heif_image_handle_release(handle)
            heif_context_free(context)
            bytes?.deallocate()
        }

        /// A burst, a collection or a stereo pair holds more than one image:
        /// the show shows the primary one and says so, once.
        var note: String? {
            let count = Int(heif_context_get_number_of_top_level_images(context))
            return count > 1 ? "holds \(count) images (a burst, a collection or a stereo pair): showing its primary image" : nil
        }

        /// The size shown: after the container's turn and crop.
        var size: PixelSize { PixelSize(width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle))) }

        /// The image decoded upright as libheif's decoder leaves it (see
        /// ``YCbCrPicture``: a 12 Mpx 4:2:0 photo is 18 MB), refused over
        /// `maximumPixels` before anything is decoded. libheif composes grids
        /// and overlays and applies the container's turn and crop; it converts
        /// nothing, and 10- and 12-bit samples stay as they are.
        func decodePlanes(maximumPixels: Int) throws(ImageFileError) -> YCbCrPicture {
            let size = self.size
            try checkBeforeDecoding(maximumPixels: maximumPixels)
            var decoded: OpaquePointer?
            let error = heif_decode_image(handle, &decoded, heif_colorspace_undefined, heif_chroma_undefined, nil)
            guard error.code == heif_error_Ok, let decoded else { throw ImageFileError(path: path, reason: .corrupt(HEIFCodec.describe(error))) }
            return try planes(of: DecodedImage(decoded), size: size)
        }

        /// How a grid's tiles are decoded one at a time.
        enum TileDecoder {
            /// libheif 1.18 and later: its tile API, through a context per thread.
            case libheif
            /// libheif 1.15: each tile handed to it as a file of its own (``HEIFGridTiles``).
            case singleFiles(HEIFGridTiles)
        }

        /// A grid whose tiles can be decoded one at a time: its layout after
        /// the container's turn and crop, and how. Nil for a single image, and
        /// where the tiles cannot be decoded alone (libheif 1.18 then reports
        /// one tile; with 1.15, ``HEIFGridTiles`` reads no plain grid).
        var tiling: (layout: TileLayout, decoder: TileDecoder)? {
            let found: (layout: TileLayout, decoder: TileDecoder)
            if kiosk_heif_decodes_tiles() != 0 {
                var layout = [UInt32](repeating: 0, count: 8)
                guard kiosk_heif_tiling(handle, &layout) != 0 else { return nil }
                found = (TileLayout(
                    columns: Int(layout[0]), rows: Int(layout[1]), tile: PixelSize(width: Int(layout[2]), height: Int(layout[3])),
                    size: PixelSize(width: Int(layout[4]), height: Int(layout[5])), offset: (x: Int(layout[6]), y: Int(layout[7]))), .libheif)
            } else {
                guard let grid = withFileParts({ read in HEIFGridTiles.read(read) }) ?? nil else { return nil }
                found = (grid.layout, .singleFiles(grid))
            }
            let tiling = found.layout
            guard tiling.columns * tiling.rows > 1, tiling.tile.width > 0, tiling.tile.height > 0, tiling.size == size,
                  tiling.columns * tiling.tile.width >= tiling.size.width + tiling.offset.x,
                  tiling.rows * tiling.tile.height >= tiling.size.height + tiling.offset.y else { return nil }
            return found
        }

        /// The picture decoded a row of tiles at a time and fitted to `fitted`:
        /// only one row of tiles is in memory (an iPhone's 8 tiles of 512x512,
        /// 3 MB), not the composed grid. The tiles of a row are decoded on
        /// every core, each thread through a context of its own: libheif
        /// decodes one context's tiles one at a time (measured with libheif
        /// 1.23 on a 48-tile grid: 768 ms with two threads on one context,
        /// 383 to 402 with a context each, 404 for its own whole decode).
        func decodeInTileRows(_ tiling: TileLayout, by decoder: TileDecoder, fittedTo fitted: PixelSize, background: RGBColor, maximumPixels: Int) throws(ImageFileError) -> RasterImage {
            try checkBeforeDecoding(maximumPixels: maximumPixels)
            let workers = max(1, min(tiling.columns, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
            switch decoder {
            case .libheif:
                var contexts = [self]
                for _ in 1..<workers { contexts.append(try sibling()) }
                let handles = contexts.map { SharedHandle($0.handle) }
                return try withExtendedLifetime(contexts) { () throws(ImageFileError) in
                    try resampled(tiling, fittedTo: fitted, background: background, workers: workers) { row throws(ImageFileError) in
                        { worker, column in
                            var decoded: OpaquePointer?
                            let error = kiosk_heif_decode_tile(handles[worker].handle, &decoded, UInt32(column), UInt32(row))
                            guard error.code == heif_error_Ok else { return .failure(TileFailure(reason: HEIFCodec.describe(error))) }
                            return decoded.map { .success(DecodedImage($0)) } ?? .failure(TileFailure(reason: "libheif gave no tile"))
                        }
                    }
                }
            case .singleFiles(let grid):
                let picture = try withFileParts { read throws(ImageFileError) in
                    try resampled(tiling, fittedTo: fitted, background: background, workers: workers) { row throws(ImageFileError) in
                        // The row's tiles read here; the threads only decode.
                        let files = try (0..<tiling.columns).map { column throws(ImageFileError) in
                            guard let file = grid.file(forTileAt: column, row, read: read) else {
                                throw ImageFileError(path: path, reason: .corrupt("a tile's data lies past the end of the file"))
                            }
                            return file
                        }
                        return { _, column in HEIFCodec.decodeAlone(files[column]) }
                    }
                }
                guard let picture else { throw ImageFileError(path: path, reason: .corrupt("the file could not be opened again to read its tiles")) }
                return picture
            }
        }

        /// The tiles' rows decoded on `workers` threads (`decoder(row)` gives
        /// the function that decodes a row's tile on a thread) and resampled.
        private func resampled(
            _ tiling: TileLayout, fittedTo fitted: PixelSize, background: RGBColor, workers: Int,
            decoder: (_ row: Int) throws(ImageFileError) -> @Sendable (_ worker: Int, _ column: Int) -> Result<DecodedImage, TileFailure>
        ) throws(ImageFileError) -> RasterImage {
            try YCbCrPicture.resampled(tiling, to: fitted, background: background) { row throws(ImageFileError) in
                let decode = try decoder(row)
                let results = TileResults(count: tiling.columns)
                let path = self.path
                // Not a WorkerThread: this is a fork and join inside one decode
                // (libheif decodes a context's tiles one at a time, so a row's
                // tiles go to one context per core and the decode waits for all
                // of them), where WorkerThread is a long-lived thread taking
                // jobs from the run loop. Dispatch's pool, sized to the cores,
                // already lives in every Swift process.
                DispatchQueue.concurrentPerform(iterations: workers) { worker in
                    // libde265's complaints on these threads are about this file too.
                    LibraryMessages.about(path) {
                        for column in stride(from: worker, to: tiling.columns, by: workers) { results.slots[column] = decode(worker, column) }
                    }
                }
                return try results.slots.map { result throws(ImageFileError) in
                    switch result {
                    case .success(let image)?:
                        let tileSize = PixelSize(width: Int(heif_image_get_primary_width(image.image)), height: Int(heif_image_get_primary_height(image.image)))
                        guard tileSize.width >= tiling.tile.width, tileSize.height >= tiling.tile.height else {
                            throw ImageFileError(path: path, reason: .corrupt("libheif gave a tile smaller than its grid says"))
                        }
                        return try planes(of: image, size: tileSize)
                    case .failure(let failure)?: throw ImageFileError(path: path, reason: .corrupt(failure.reason))
                    case nil: throw ImageFileError(path: path, reason: .corrupt("libheif gave no tile"))
                    }
                }
            }
        }

        /// The planes of an image libheif decoded (the whole picture, or one tile of `size`).
        func planes(of image: DecodedImage, size: PixelSize) throws(ImageFileError) -> YCbCrPicture {
            let decoded = image.image
            func plane(_ channel: heif_channel) -> YCbCrPicture.Plane? {
                guard heif_image_has_channel(decoded, channel) != 0 else { return nil }
                var stride: Int32 = 0
                return heif_image_get_plane_readonly(decoded, channel, &stride).map { YCbCrPicture.Plane(base: UnsafeRawPointer($0), rowBytes: Int(stride)) }
            }
            let colourspace = heif_image_get_colorspace(decoded), chroma = heif_image_get_chroma_format(decoded)
            let rgb = colourspace == heif_colorspace_RGB
            // Planar RGB reads as GBR: green where luma is, blue and red where Cb and Cr are.
            let channels = rgb ? (heif_channel_G, heif_channel_B, heif_channel_R) : (heif_channel_Y, heif_channel_Cb, heif_channel_Cr)
            let depth = Int(heif_image_get_bits_per_pixel_range(decoded, channels.0))
            let planeSize = PixelSize(width: Int(heif_image_get_width(decoded, channels.0)), height: Int(heif_image_get_height(decoded, channels.0)))
            guard let luma = plane(channels.0), planeSize == size, (8...16).contains(depth),
                  rgb ? chroma == heif_chroma_444 : colourspace == heif_colorspace_YCbCr || colourspace == heif_colorspace_monochrome else {
                throw ImageFileError(path: path, reason: .corrupt("libheif gave no picture kioskd can read (colour space \(colourspace.rawValue), chroma \(chroma.rawValue))"))
            }
            var colour = YCbCrPicture.Colour()
            var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
            if heif_image_get_nclx_color_profile(decoded, &nclx).code == heif_error_Ok || heif_image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok,
               let profile = nclx?.pointee {
                colour.matrix = Int(profile.matrix_coefficients.rawValue)
                colour.primaries = Int(profile.color_primaries.rawValue)
                colour.transfer = Int(profile.transfer_characteristics.rawValue)
                colour.fullRange = profile.full_range_flag != 0
            }
            heif_nclx_color_profile_free(nclx)
            if rgb { (colour.matrix, colour.fullRange) = (0, true) }
            if heif_image_has_content_light_level(decoded) != 0 {
                var light = heif_content_light_level()
                heif_image_get_content_light_level(decoded, &light)
                if light.max_content_light_level > 0 { colour.peakNits = Float(light.max_content_light_level) }
            }
            let chromaPlanes = plane(channels.1).flatMap { cb in plane(channels.2).map { (cb: cb, cr: $0) } }
            let alpha = plane(heif_channel_Alpha)
            return YCbCrPicture(
                size: size, luma: luma, chroma: colourspace == heif_colorspace_monochrome ? nil : chromaPlanes,
                chromaShift: chroma == heif_chroma_420 ? (1, 1) : chroma == heif_chroma_422 ? (1, 0) : (0, 0),
                alpha: alpha, depth: depth, alphaDepth: alpha == nil ? 8 : Int(heif_image_get_bits_per_pixel_range(decoded, heif_channel_Alpha)),
                premultiplied: heif_image_handle_is_premultiplied_alpha(handle) != 0, colour: colour, owner: image)
        }

        /// What is refused before libheif decodes a pixel, whole or in tiles:
        /// no pixels, over `maximumPixels`, or derived images libheif 1.15
        /// cannot survive (``HEIFDerivationCheck``, read from where libheif
        /// reads; a file that can no longer be opened libheif reports itself).
        private func checkBeforeDecoding(maximumPixels: Int) throws(ImageFileError) {
            let size = self.size
            guard size.width > 0, size.height > 0 else { throw ImageFileError(path: path, reason: .corrupt("a HEIF image with no pixels")) }
            guard size.pixelCount <= maximumPixels else { throw ImageFileError(path: path, reason: .tooLarge(size)) }
            if let refusal = withFileParts({ read in HEIFDerivationCheck.refusal(maximumPixels: maximumPixels, read: read) }) ?? nil {
                throw ImageFileError(path: path, reason: refusal)
            }
        }

        /// `body` given parts of the file, read from where libheif reads it:
        /// `read(offset, count)` gives up to `count` bytes from `offset`.
        /// Nil when the file can no longer be opened.
        func withFileParts<T, Failure: Error>(_ body: (_ read: (Int, Int) -> [UInt8]) throws(Failure) -> T) throws(Failure) -> T? {
            if let bytes {
                return try body { offset, count in
                    offset < length ? Array(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + min(count, length - offset))])) : []
                }
            }
            guard let file = try? FileDescriptor(opening: path, flags: O_RDONLY) else { return nil }
            return try body { (try? readFilePart(file, path: path, at: $0, count: $1)) ?? [] }
        }

        /// The `Exif` item as libexif reads it; nil when there is none.
        var exif: [UInt8]? {
            var id = heif_item_id()
            guard heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) == 1 else { return nil }
            let size = heif_image_handle_get_metadata_size(handle, id)
            guard size > 4, size < 1 << 20 else { return nil }
            var item = [UInt8](repeating: 0, count: size)
            guard heif_image_handle_get_metadata(handle, id, &item).code == heif_error_Ok else { return nil }
            return EXIFDateTaken.tiff(fromExifItem: item)
        }
    }

    /// A grid's tiles as libheif lays them out for decoding one at a time.
    struct TileLayout {
        let columns: Int, rows: Int
        let tile: PixelSize
        /// The picture's size.
        let size: PixelSize
        /// Where the picture starts in the top left tile (a turned or cropped grid's may not be at its corner).
        let offset: (x: Int, y: Int)
    }

    /// An image handle, for the thread that decodes tiles through it.
    final class SharedHandle: @unchecked Sendable {
        let handle: OpaquePointer
        init(_ handle: OpaquePointer) { self.handle = handle }
    }

    /// What each thread decoding a row's tiles made of its tile: one slot
    /// each, written by that thread alone before `concurrentPerform` returns.
    final class TileResults: @unchecked Sendable {
        let slots: UnsafeMutableBufferPointer<Result<DecodedImage, TileFailure>?>
        init(count: Int) {
            slots = .allocate(capacity: count)
            slots.initialize(repeating: nil)
        }
        deinit {
            _ = slots.deinitialize()
            slots.deallocate()
        }
    }

    struct TileFailure: Error { let reason: String }

    /// A decoded `heif_image`, released with the last picture made from its planes.
    final class DecodedImage {
        let image: OpaquePointer
        init(_ image: OpaquePointer) { self.image = image }
        deinit { heif_image_release(image) }
    }

    /// libheif's words for `error`, on one line (some of its messages end
    /// in a newline), a byte of the file that is not a readable character
    /// shown as "?" (libheif writes a damaged file's construction method, or
    /// a property's four letters, into its messages as they are).
    static func describe(_ error: heif_error) -> String {
        let words = error.message.map { String(cString: $0) } ?? ""
        func readable(_ scalar: Unicode.Scalar) -> Unicode.Scalar { scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\u{FFFD}" ? "?" : scalar }
        let line = words.split(whereSeparator: \.isNewline)
            .map { String(String.UnicodeScalarView($0.unicodeScalars.map(readable))).trimmingWhitespace() }
            .filter { !$0.isEmpty }.joined(separator: "; ")
        return line.isEmpty ? "libheif error \(error.code.rawValue)" : line
    }
}

extension HEIFCodec {
    /// One HEVC image in a file of its own (a grid's tile, written by
    /// ``HEIFGridTiles``), decoded by libheif to its decoder's planes.
    static func decodeAlone(_ file: [UInt8]) -> Result<DecodedImage, TileFailure> {
        guard let context = heif_context_alloc() else { return .failure(TileFailure(reason: "libheif cannot allocate a context")) }
        defer { heif_context_free(context) }
        return file.withUnsafeBytes { bytes in
            var handle: OpaquePointer?, decoded: OpaquePointer?
            var error = heif_context_read_from_memory_without_copy(context, bytes.baseAddress, bytes.count, nil)
            if error.code == heif_error_Ok { error = heif_context_get_primary_image_handle(context, &handle) }
            if error.code == heif_error_Ok { error = heif_decode_image(handle, &decoded, heif_colorspace_undefined, heif_chroma_undefined, nil) }
            heif_image_handle_release(handle)
            // The message lives in the context: read before it is freed.
            guard error.code == heif_error_Ok, let decoded else { return .failure(TileFailure(reason: HEIFCodec.describe(error))) }
            return .success(DecodedImage(decoded))
        }
    }
}

extension HEIFCodec: PictureCodec {
    public static let name = "HEIF"
    public static let fileExtensions = ["heic", "heif", "hif"]

    /// libheif's own check, for the HEVC brands (AVIF, its AV1 sibling, is
    /// not read yet: which library reads it is still to be measured).
    ///
    /// Only a file that starts as an ISO media file (`ftyp`) is shown to
    /// libheif, so that other files never map it. Where libheif cannot be
    /// loaded, the major brand alone decides, and decoding says which
    /// package is missing.
    public static func recognises(_ head: borrowing [UInt8]) -> Bool {
        guard head.count >= 12, head[4..<8].elementsEqual("ftyp".utf8) else { return false }
        func fourcc<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> heif_brand2 { bytes.reduce(0) { $0 << 8 | heif_brand2($1) } }
        let brands = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"].map { fourcc($0.utf8) }
        guard (try? openLibraries(reading: "")) != nil else { return brands.contains(fourcc(head[8..<12])) }
        let (filetype, brand) = head.withUnsafeBufferPointer { ($0.baseAddress.map { heif_check_filetype($0, 12) }, $0.baseAddress.map { heif_read_main_brand($0, 12) }) }
        guard filetype == heif_filetype_yes_supported || filetype == heif_filetype_maybe, let brand else { return false }
        return brands.contains(brand)
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
        return try decode(primary, fittedTo: slot, options: options)
    }

    /// Read by libheif from the file as it decodes (``PrimaryImage/init(readingFile:)``):
    /// the show's way, which never holds a 12 Mpx HEIC's 3 to 8 MB whole.
    public static func decode(
        file: consuming FileDescriptor, head: [UInt8], path: String, fittedTo slot: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> DecodedPicture {
        _ = consume file
        return try decode(try PrimaryImage(readingFile: path), fittedTo: slot, options: options)
    }

    private static func decode(_ primary: consuming PrimaryImage, fittedTo slot: PixelSize, options: DecodeOptions) throws(ImageFileError) -> DecodedPicture {
        var primary: PrimaryImage? = primary
        if case let (tiling, decoder)? = primary!.tiling {
            // A grid: a row of tiles at a time, never the composed grid.
            let picture = try primary!.decodeInTileRows(
                tiling, by: decoder, fittedTo: aspectFitSize(of: tiling.size, in: slot), background: options.background, maximumPixels: options.maximumHEIFPixels)
            return DecodedPicture(
                picture: picture, info: PictureInfo(format: name, originalSize: tiling.size, dateTaken: primary!.exif.flatMap(EXIFDateTaken.read), note: primary!.note))
        }
        let planes = try primary!.decodePlanes(maximumPixels: options.maximumHEIFPixels)
        let info = PictureInfo(format: name, originalSize: planes.size, dateTaken: primary!.exif.flatMap(EXIFDateTaken.read), note: primary!.note)
        primary = nil  // the file and libheif's context go before the picture is made
        let whole = PixelRect(x: 0, y: 0, width: planes.size.width, height: planes.size.height)
        return DecodedPicture(picture: planes.resampled(cropping: whole, to: aspectFitSize(of: planes.size, in: slot), background: options.background), info: info)
    }

    /// Decoded whole to planes; only the region is converted, as it is resampled.
    public static func decodeRegion(
        bytes: consuming [UInt8], path: String, region: PictureRegion, at size: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> RasterImage {
        let planes = try PrimaryImage(bytes, path: path).decodePlanes(maximumPixels: options.maximumHEIFPixels)
        bytes = []
        return planes.resampled(cropping: region.pixels(of: planes.size), to: size, background: options.background)
    }

    /// The `Exif` item, wherever it is in the file; libheif reads the
    /// boxes that describe the file and the item, not the pictures.
    public static func dateTaken(path: String, head: [UInt8]) -> Int64? {
        exif(ofFile: path).flatMap(EXIFDateTaken.read)
    }

    /// The primary image's `Exif` item as libexif reads it; nil when it has none.
    static func exif(ofFile path: String) -> [UInt8]? { (try? PrimaryImage(readingFile: path))?.exif }
}
