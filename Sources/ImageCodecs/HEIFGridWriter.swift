import CHEIF
import KioskCore
import KioskRendering

/// Writes a HEIC as an iPhone stores a photo: the picture cut into square
/// tiles (512x512), each a hidden HEVC image, and a `grid` item, the
/// primary image, that composes them. For the tests and `make bench`: no
/// tool on Debian 12 writes one (`heif-enc` 1.15 writes a single image,
/// and libheif 1.15's API has no grids).
///
/// Each tile is encoded by libheif (x265) as a file of its own; its `hvcC`
/// (the decoder configuration) and its coded data are taken from that file
/// and written into one container with the `grid`, its `dimg` references
/// and the properties tying them together (ISO/IEC 23008-12, 6.6.2.3).
/// Tiles at the right and bottom edges repeat the picture's last column
/// and row; the grid's output size crops them off, as a camera's do.
public enum HEIFGridWriter {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static func encode(_ image: RasterImage, tile: Int = 512, quality: Int = 85) throws(Failure) -> [UInt8] {
        let columns = (image.width + tile - 1) / tile, rows = (image.height + tile - 1) / tile
        guard columns <= 256, rows <= 256, image.width < 1 << 16, image.height < 1 << 16 else { throw Failure(description: "too large for a grid of 16-bit sizes") }
        var configurations: [[UInt8]] = [], tiles: [(configuration: Int, data: [UInt8])] = []
        for row in 0..<rows {
            for column in 0..<columns {
                let file = try encodeTile(image, x: column * tile, y: row * tile, size: tile, quality: quality)
                let (configuration, data) = try configurationAndData(of: file)
                if let known = configurations.firstIndex(of: configuration) {
                    tiles.append((known, data))
                } else {
                    configurations.append(configuration)
                    tiles.append((configurations.count - 1, data))
                }
            }
        }
        let gridID = tiles.count + 1
        func meta(dataStart: Int) -> [UInt8] {
            var locations = u16(tiles.count + 1)
            var offset = dataStart
            for (index, tile) in tiles.enumerated() {
                locations += join(u16(index + 1), u16(0), u16(0), u16(1), u32(offset), u32(tile.data.count))
                offset += tile.data.count
            }
            locations += join(u16(gridID), u16(1), u16(0), u16(1), u32(0), u32(8))   // construction method 1: in idat
            var entries = u16(tiles.count + 1)
            for index in tiles.indices { entries += fullBox("infe", version: 2, flags: 1, join(u16(index + 1), u16(0), ascii("hvc1"), [0])) }
            entries += fullBox("infe", version: 2, flags: 0, join(u16(gridID), u16(0), ascii("grid"), [0]))
            let references = box("dimg", join(u16(gridID), u16(tiles.count), tiles.indices.flatMap { u16($0 + 1) }))
            let grid = join([0, 0, UInt8(rows - 1), UInt8(columns - 1)], u16(image.width), u16(image.height))
            // Properties: the configurations, then the tile's size, then the picture's.
            let tileSize = configurations.count + 1, pictureSize = configurations.count + 2
            var associations = u32(tiles.count + 1)
            for (index, tile) in tiles.enumerated() {
                associations += join(u16(index + 1), [2, 0x80 | UInt8(tile.configuration + 1), UInt8(tileSize)])
            }
            associations += join(u16(gridID), [1, UInt8(pictureSize)])
            var properties: [UInt8] = configurations.flatMap { $0 }
            properties += fullBox("ispe", u32(tile) + u32(tile))
            properties += fullBox("ispe", u32(image.width) + u32(image.height))
            // Joined, not summed: a long sum of arrays is more than Swift 6.0's type checker will take.
            var contents = fullBox("hdlr", join(u32(0), ascii("pict"), u32(0), u32(0), u32(0), [0]))
            contents += fullBox("pitm", u16(gridID))
            contents += fullBox("iloc", version: 1, join([0x44, 0x00], locations))
            contents += fullBox("iinf", entries)
            contents += fullBox("iref", references)
            contents += box("idat", grid)
            contents += box("iprp", join(box("ipco", properties), fullBox("ipma", associations)))
            return fullBox("meta", contents)
        }
        let fileType = box("ftyp", join(ascii("heic"), u32(0), ascii("mif1"), ascii("heic")))
        let start = fileType.count + meta(dataStart: 0).count + 8
        return join(fileType, meta(dataStart: start), box("mdat", tiles.flatMap { $0.data }))
    }

    /// The `size` x `size` part of `image` at (`x`, `y`), edges repeated, as a HEIC of its own.
    private static func encodeTile(_ image: RasterImage, x: Int, y: Int, size: Int, quality: Int) throws(Failure) -> [UInt8] {
        func check(_ error: heif_error) throws(Failure) {
            if error.code != heif_error_Ok { throw Failure(description: error.message.map { String(cString: $0) } ?? "libheif error") }
        }
        _ = heif_init(nil)
        guard let context = heif_context_alloc() else { throw Failure(description: "no libheif context") }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder))
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, Int32(quality)))
        var picture: OpaquePointer?
        try check(heif_image_create(Int32(size), Int32(size), heif_colorspace_RGB, heif_chroma_interleaved_RGB, &picture))
        defer { heif_image_release(picture) }
        try check(heif_image_add_plane(picture, heif_channel_interleaved, Int32(size), Int32(size), 8))
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(picture, heif_channel_interleaved, &stride) else { throw Failure(description: "no plane") }
        for row in 0..<size {
            for column in 0..<size {
                let p = image[min(x + column, image.width - 1), min(y + row, image.height - 1)], at = row * Int(stride) + 3 * column
                (plane[at], plane[at + 1], plane[at + 2]) = (UInt8(truncatingIfNeeded: p >> 16), UInt8(truncatingIfNeeded: p >> 8), UInt8(truncatingIfNeeded: p))
            }
        }
        try check(heif_context_encode_image(context, picture, encoder, nil, nil))
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        var writer = heif_writer(writer_api_version: 1) { _, data, size, userdata in
            let sink = Unmanaged<Sink>.fromOpaque(userdata!).takeUnretainedValue()
            sink.bytes += UnsafeRawBufferPointer(start: data, count: size)
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
        }
        try check(heif_context_write(context, &writer, Unmanaged.passUnretained(sink).toOpaque()))
        return sink.bytes
    }

    /// A one-image HEIC's `hvcC` box (whole) and its image's coded data (through `iloc`).
    private static func configurationAndData(of file: [UInt8]) throws(Failure) -> ([UInt8], [UInt8]) {
        guard let meta = child("meta", of: file[...], skipping: 0), let properties = child("iprp", of: meta, skipping: 4).flatMap({ child("ipco", of: $0, skipping: 0) }),
              let configuration = child("hvcC", of: properties, skipping: 0, whole: true), let locations = child("iloc", of: meta, skipping: 4) else {
            throw Failure(description: "libheif wrote a tile kioskd cannot take apart")
        }
        // iloc: version and flags, field sizes, item count, then the first item's one extent.
        let bytes = Array(locations)
        let version = bytes[0], offsetSize = Int(bytes[4] >> 4), lengthSize = Int(bytes[4] & 15), baseSize = Int(bytes[5] >> 4)
        let indexSize = version >= 1 ? Int(bytes[5] & 15) : 0
        var at = 6 + 2 + 2 + (version >= 1 ? 2 : 0) + 2   // item count, ID, construction method, data reference
        func read(_ count: Int) -> Int { defer { at += count }; return (0..<count).reduce(0) { $0 << 8 | Int(bytes[at + $1]) } }
        let base = read(baseSize)
        guard read(2) == 1 else { throw Failure(description: "a tile in more than one extent") }
        _ = read(indexSize)
        let offset = base + read(offsetSize), length = read(lengthSize)
        guard offset >= 0, length > 0, offset + length <= file.count else { throw Failure(description: "a tile's data outside its file") }
        return (Array(configuration), Array(file[offset..<(offset + length)]))
    }

    /// The first box of `type` among the boxes in `bytes` after `skipping`
    /// bytes (a full box's version and flags): its contents, or itself whole.
    private static func child(_ type: String, of bytes: ArraySlice<UInt8>, skipping: Int, whole: Bool = false) -> ArraySlice<UInt8>? {
        var at = bytes.startIndex + skipping
        while at + 8 <= bytes.endIndex {
            let size = bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, at + size <= bytes.endIndex else { return nil }
            if String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self) == type { return bytes[(whole ? at : at + 8)..<(at + size)] }
            at += size
        }
        return nil
    }

    private static func u16(_ value: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)] }
    private static func u32(_ value: Int) -> [UInt8] { join(u16(value >> 16), u16(value)) }
    private static func join(_ parts: [UInt8]...) -> [UInt8] { parts.flatMap { $0 } }
    private static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
    private static func box(_ type: String, _ contents: [UInt8]) -> [UInt8] { join(u32(8 + contents.count), ascii(type), contents) }
    private static func fullBox(_ type: String, version: UInt8 = 0, flags: Int = 0, _ contents: [UInt8]) -> [UInt8] {
        box(type, join([version, UInt8(truncatingIfNeeded: flags >> 16), UInt8(truncatingIfNeeded: flags >> 8), UInt8(truncatingIfNeeded: flags)], contents))
    }
}
