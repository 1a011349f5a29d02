import CHEIF
import KioskCore
import KioskRendering
import SystemCalls

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

    /// `image` as a grid of `tile`-square tiles; `turns` quarter turns
    /// anticlockwise (`irot`) then `mirror` (`imir`) on the grid, as a phone
    /// records how to show what its sensor saw. `auxiliary`: the type
    /// (`auxC`) of an auxiliary image joined to the grid (`auxl`), as an
    /// iPhone joins its HDR gain map ("urn:com:apple:photo:2020:aux:hdrgainmap");
    /// its pixels are the first tile's.
    public static func encode(
        _ image: RasterImage, tile: Int = 512, quality: Int = 85, turns: Int = 0, mirror: ImageOrientation.ContainerMirror? = nil,
        auxiliary: String? = nil
    ) throws(Failure) -> [UInt8] {
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
        let gridID = tiles.count + 1, auxiliaryID = gridID + 1
        let items = tiles.count + 1 + (auxiliary == nil ? 0 : 1)
        /// The `meta` box's boxes after its `hdlr`, the tiles' data at `dataStart`.
        func description(dataStart: Int) -> [UInt8] {
            var locations = ISOBMFF.u16(items)
            var offset = dataStart
            for (index, tile) in tiles.enumerated() {
                locations += ISOBMFF.join(ISOBMFF.u16(index + 1), ISOBMFF.u16(0), ISOBMFF.u16(0), ISOBMFF.u16(1), ISOBMFF.u32(offset), ISOBMFF.u32(tile.data.count))
                offset += tile.data.count
            }
            locations += ISOBMFF.join(ISOBMFF.u16(gridID), ISOBMFF.u16(1), ISOBMFF.u16(0), ISOBMFF.u16(1), ISOBMFF.u32(0), ISOBMFF.u32(8))   // construction method 1: in idat
            if auxiliary != nil {
                locations += ISOBMFF.join(ISOBMFF.u16(auxiliaryID), ISOBMFF.u16(0), ISOBMFF.u16(0), ISOBMFF.u16(1), ISOBMFF.u32(dataStart), ISOBMFF.u32(tiles[0].data.count))
            }
            var entries = ISOBMFF.u16(items)
            for index in tiles.indices { entries += ISOBMFF.fullBox("infe", version: 2, flags: 1, ISOBMFF.join(ISOBMFF.u16(index + 1), ISOBMFF.u16(0), ISOBMFF.ascii("hvc1"), [0])) }
            entries += ISOBMFF.fullBox("infe", version: 2, flags: 0, ISOBMFF.join(ISOBMFF.u16(gridID), ISOBMFF.u16(0), ISOBMFF.ascii("grid"), [0]))
            if auxiliary != nil { entries += ISOBMFF.fullBox("infe", version: 2, flags: 1, ISOBMFF.join(ISOBMFF.u16(auxiliaryID), ISOBMFF.u16(0), ISOBMFF.ascii("hvc1"), [0])) }
            var references = ISOBMFF.box("dimg", ISOBMFF.join(ISOBMFF.u16(gridID), ISOBMFF.u16(tiles.count), tiles.indices.flatMap { ISOBMFF.u16($0 + 1) }))
            if auxiliary != nil { references += ISOBMFF.box("auxl", ISOBMFF.join(ISOBMFF.u16(auxiliaryID), ISOBMFF.u16(1), ISOBMFF.u16(gridID))) }
            let grid = ISOBMFF.join([0, 0, UInt8(rows - 1), UInt8(columns - 1)], ISOBMFF.u16(image.width), ISOBMFF.u16(image.height))
            // Properties: the configurations, then the tile's size, then the picture's.
            // Then the grid's turn and mirror, in the order they apply.
            let tileSize = configurations.count + 1, pictureSize = configurations.count + 2
            var associations = ISOBMFF.u32(items)
            for (index, tile) in tiles.enumerated() {
                associations += ISOBMFF.join(ISOBMFF.u16(index + 1), [2, 0x80 | UInt8(tile.configuration + 1), UInt8(tileSize)])
            }
            var transforms: [[UInt8]] = []
            if turns % 4 != 0 { transforms.append(ISOBMFF.box("irot", [UInt8(((turns % 4) + 4) % 4)])) }
            if let mirror { transforms.append(ISOBMFF.box("imir", [UInt8(mirror.rawValue)])) }
            associations += ISOBMFF.join(ISOBMFF.u16(gridID), [UInt8(1 + transforms.count), UInt8(pictureSize)], transforms.indices.map { 0x80 | UInt8(pictureSize + 1 + $0) })
            var properties: [UInt8] = configurations.flatMap { $0 }
            properties += ISOBMFF.fullBox("ispe", ISOBMFF.u32(tile) + ISOBMFF.u32(tile))
            properties += ISOBMFF.fullBox("ispe", ISOBMFF.u32(image.width) + ISOBMFF.u32(image.height))
            properties += transforms.flatMap { $0 }
            if let auxiliary {
                properties += ISOBMFF.fullBox("auxC", ISOBMFF.join(ISOBMFF.ascii(auxiliary), [0]))
                let type = pictureSize + transforms.count + 1
                associations += ISOBMFF.join(ISOBMFF.u16(auxiliaryID), [3, 0x80 | UInt8(tiles[0].configuration + 1), UInt8(tileSize), 0x80 | UInt8(type)])
            }
            // Joined, not summed: a long sum of arrays is more than Swift 6.0's type checker will take.
            var contents = ISOBMFF.fullBox("pitm", ISOBMFF.u16(gridID))
            contents += ISOBMFF.fullBox("iloc", version: 1, ISOBMFF.join([0x44, 0x00], locations))
            contents += ISOBMFF.fullBox("iinf", entries)
            contents += ISOBMFF.fullBox("iref", references)
            contents += ISOBMFF.box("idat", grid)
            contents += ISOBMFF.box("iprp", ISOBMFF.join(ISOBMFF.box("ipco", properties), ISOBMFF.fullBox("ipma", associations)))
            return contents
        }
        return ISOBMFF.heicFile(description: description, data: tiles.flatMap { $0.data })
    }

    /// The `size` x `size` part of `image` at (`x`, `y`), edges repeated, as a HEIC of its own.
    private static func encodeTile(_ image: RasterImage, x: Int, y: Int, size: Int, quality: Int) throws(Failure) -> [UInt8] {
        func check(_ error: heif_error) throws(Failure) {
            if error.code != heif_error_Ok { throw Failure(description: error.message.map { String(cString: $0) } ?? "libheif error") }
        }
        do throws(ImageFileError) { try HEIFCodec.openLibraries(reading: "<HEIC encoder>") } catch { throw Failure(description: error.why) }
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

    /// A one-image HEIC's `hvcC` box (whole) and its image's coded data.
    private static func configurationAndData(of file: [UInt8]) throws(Failure) -> ([UInt8], [UInt8]) {
        let read = ISOBMFF.parts(of: file)
        guard case .found(let meta) = ISOBMFF.topLevelMeta(maximumBytes: 1 << 20, read: read) else { throw Failure(description: "libheif wrote a tile with no description") }
        let items = HEIFItems(meta)
        guard let configuration = items.properties(of: items.primary)?.first(where: { $0.type == "hvcC" }),
              let extents = items.locations[items.primary]?.extents, extents.count == 1 else {
            throw Failure(description: "libheif wrote a tile kioskd cannot take apart (tiles under 64 pixels: x265 codes 64 and libheif crops them in a derived image)")
        }
        let data = read(extents[0].offset, extents[0].length)
        guard data.count == extents[0].length, !data.isEmpty else { throw Failure(description: "a tile's data outside its file") }
        return (configuration.bytes, data)
    }
}
