import KioskCore

/// A grid HEIC's tiles as the container lays them out, for libheif 1.15
/// (Debian 12), whose API has no way to decode a tile alone: it composes
/// every grid whole, as 8-bit RGB 4:4:4 (36 MB for an iPhone's 12 Mpx,
/// where its 4:2:0 tiles hold 18). kioskd reads where each tile's coded
/// data lies and hands libheif each tile as a file of its own: the tile's
/// decoder configuration (`hvcC`), size and colour, the grid's turn and
/// mirror (`irot`, `imir`, in the grid's order), and its data. libheif
/// decodes and turns each one; only a row of tiles is ever in memory.
///
/// Read from the `meta` box (ISO/IEC 23008-12: `pitm`, `iinf`, `iloc`,
/// `iref`, `iprp`, `idat`). Anything but a plain grid of HEVC tiles (a
/// crop, an alpha plane (a depth map or an iPhone's HDR gain map is fine:
/// neither is shown), tiles in `idat` or in another file, tiles with
/// turns of their own, transforms in an order the turn tables do not
/// follow) reads as nil, and libheif decodes the file whole as before.
struct HEIFGridTiles {
    /// The layout after the grid's turn and mirror.
    let layout: HEIFCodec.TileLayout
    /// How the grid's transforms turn its tiles, and where they put each one.
    private let orientation: ImageOrientation
    private let storedColumns: Int
    private let storedTile: PixelSize
    /// In the grid's order (row by row, as stored).
    private let tiles: [Tile]
    /// The grid's `irot` and `imir`, whole, in its order: each tile is turned by them.
    private let transforms: [[UInt8]]

    struct Tile {
        /// `hvcC`, `ispe` and `colr` (the tile's, or the grid's where it has none), whole.
        let properties: [[UInt8]]
        /// Where the coded data lies in the file, in order.
        let extents: [(offset: Int, length: Int)]
    }

    /// A tile's coded data larger than this is refused: an iPhone's are 100 to 300 kB.
    static let maximumTileBytes = 8 << 20

    /// The primary image's grid, read through `read(offset, count)` (up to
    /// `count` bytes of the file from `offset`); nil when it is not a grid
    /// this reads (see above).
    static func read(_ read: (Int, Int) -> [UInt8]) -> HEIFGridTiles? {
        guard case .found(let meta) = ISOBMFF.topLevelMeta(maximumBytes: HEIFDerivationCheck.maximumMetaBytes, read: read) else { return nil }
        return grid(of: HEIFItems(meta), read: read)
    }

    /// The file libheif decodes for the tile shown at (`column`, `row`) of
    /// ``layout``, its data read through `read`; nil when the file holds
    /// less data than its `iloc` says.
    func file(forTileAt column: Int, _ row: Int, read: (Int, Int) -> [UInt8]) -> [UInt8]? {
        let shownTile = layout.tile
        let stored = orientation.storedPixel(
            forUpright: column * shownTile.width, row * shownTile.height,
            stored: PixelSize(width: storedColumns * storedTile.width, height: tiles.count / storedColumns * storedTile.height))
        let tile = tiles[stored.y / storedTile.height * storedColumns + stored.x / storedTile.width]
        var data: [UInt8] = []
        for extent in tile.extents {
            let part = read(extent.offset, extent.length)
            guard part.count == extent.length else { return nil }
            data += part
        }
        return Self.singleImageFile(properties: tile.properties + transforms, data: data)
    }

    /// A HEIF file of one HEVC image: its properties (the first is the
    /// decoder configuration, essential, as are the transforms) and data.
    private static func singleImageFile(properties: [[UInt8]], data: [UInt8]) -> [UInt8] {
        let essential = Set(["hvcC", "irot", "imir"])
        var associations = ISOBMFF.join(ISOBMFF.u32(1), ISOBMFF.u16(1), [UInt8(properties.count)])
        for (index, property) in properties.enumerated() {
            let type = String(decoding: property[4..<8], as: UTF8.self)
            associations.append((essential.contains(type) ? 0x80 : 0) | UInt8(index + 1))
        }
        return ISOBMFF.heicFile(description: { dataStart in
            ISOBMFF.join(
                ISOBMFF.fullBox("pitm", ISOBMFF.u16(1)),
                // Offsets and lengths of 4 bytes, no base offset; item 1, in this file, one extent.
                ISOBMFF.fullBox("iloc", ISOBMFF.join([0x44, 0x00], ISOBMFF.u16(1), ISOBMFF.u16(1), ISOBMFF.u16(0), ISOBMFF.u16(1), ISOBMFF.u32(dataStart), ISOBMFF.u32(data.count))),
                ISOBMFF.fullBox("iinf", ISOBMFF.join(ISOBMFF.u16(1), ISOBMFF.fullBox("infe", version: 2, ISOBMFF.join(ISOBMFF.u16(1), ISOBMFF.u16(0), ISOBMFF.ascii("hvc1"), [0])))),
                ISOBMFF.box("iprp", ISOBMFF.join(ISOBMFF.box("ipco", properties.flatMap { $0 }), ISOBMFF.fullBox("ipma", associations))))
        }, data: data)
    }

    /// The primary image as a grid of HEVC tiles, if it is one this reads.
    private static func grid(of items: HEIFItems, read: (Int, Int) -> [UInt8]) -> HEIFGridTiles? {
        let primary = items.primary
        // With alpha, libheif decodes the grid whole (it joins the alpha plane to it); a depth map or a gain map is not shown.
        guard items.types[primary] == "grid", !(items.auxiliaries[primary] ?? []).contains(where: items.isAlpha), let tileIDs = items.derivedFrom[primary],
              let gridProperties = items.properties(of: primary) else { return nil }
        guard let declared = items.declaredCanvas(of: primary, read: read), tileIDs.count == declared.rows * declared.columns, tileIDs.count > 1 else { return nil }
        let (size, rows, columns) = declared
        let (width, height) = (size.width, size.height)

        // The grid's turn and mirror, irot before imir, as the turn tables have them; no crop.
        var transforms: [[UInt8]] = [], turns = 0, mirror: ImageOrientation.ContainerMirror?
        var colour: [[UInt8]] = []
        for property in gridProperties {
            switch property.type {
            case "irot":
                guard transforms.isEmpty, property.bytes.count == 9 else { return nil }
                turns = Int(property.bytes[8] & 3)
                transforms.append(property.bytes)
            case "imir":
                guard mirror == nil, property.bytes.count == 9 else { return nil }
                mirror = ImageOrientation.ContainerMirror(rawValue: Int(property.bytes[8] & 1))
                transforms.append(property.bytes)
            case "colr": colour.append(property.bytes)
            case "ispe", "pixi", "pasp": break
            default: return nil   // a crop, or something this does not know
            }
        }

        var tiles: [Tile] = []
        var tileSize: PixelSize?
        for id in tileIDs {
            guard items.types[id] == "hvc1", let location = items.locations[id], location.constructionMethod == 0, location.dataReference == 0,
                  (1...64).contains(location.extents.count), location.extents.allSatisfy({ (1...maximumTileBytes).contains($0.length) }),
                  location.extents.reduce(0, { $0 + $1.length }) <= maximumTileBytes,
                  let tileProperties = items.properties(of: id) else { return nil }
            var kept: [[UInt8]] = [], configurations = 0, ownColour = false, ownSize: PixelSize?
            for property in tileProperties {
                switch property.type {
                case "hvcC":
                    configurations += 1
                    kept.insert(property.bytes, at: 0)
                case "ispe":
                    var size = ISOBMFF.Reader(property.bytes, 12..<property.bytes.count)
                    guard property.bytes.count == 20, let width = size.integer(4), let height = size.integer(4) else { return nil }
                    ownSize = PixelSize(width: width, height: height)
                    kept.append(property.bytes)
                case "colr":
                    ownColour = true
                    kept.append(property.bytes)
                case "pixi", "pasp": break
                default: return nil   // a tile turned or cropped on its own
                }
            }
            // At most a few properties each: the single-tile file numbers them in a byte.
            guard configurations == 1, let ownSize, ownSize.width > 0, ownSize.height > 0, tileSize == nil || tileSize == ownSize,
                  kept.count + colour.count + transforms.count <= 16 else { return nil }
            tileSize = ownSize
            tiles.append(Tile(properties: ownColour ? kept : kept + colour, extents: location.extents))
        }
        // Every tile holds part of the picture, and the tiles cover it.
        guard let tile = tileSize, columns * tile.width >= width, rows * tile.height >= height,
              (columns - 1) * tile.width < width, (rows - 1) * tile.height < height else { return nil }

        let orientation = ImageOrientation(quarterTurnsAnticlockwise: turns, mirror: mirror)
        let canvas = PixelSize(width: columns * tile.width, height: rows * tile.height)
        let shown = orientation.uprightSize(of: size), shownCanvas = orientation.uprightSize(of: canvas)
        // Where the picture lies in the turned tiles: whichever corner keeps it on its pixels.
        func onThePicture(_ x: Int, _ y: Int) -> Bool {
            let stored = orientation.storedPixel(forUpright: x, y, stored: canvas)
            return stored.x < width && stored.y < height
        }
        var offsets: [(x: Int, y: Int)] = []
        for x in [0, shownCanvas.width - shown.width] {
            for y in [0, shownCanvas.height - shown.height] where onThePicture(x, y) && onThePicture(x + shown.width - 1, y + shown.height - 1) {
                offsets.append((x, y))
            }
        }
        guard let offset = offsets.first else { return nil }
        let shownTile = orientation.uprightSize(of: tile)
        return HEIFGridTiles(
            layout: HEIFCodec.TileLayout(
                columns: shownCanvas.width / shownTile.width, rows: shownCanvas.height / shownTile.height, tile: shownTile, size: shown, offset: offset),
            orientation: orientation, storedColumns: columns, storedTile: tile, tiles: tiles, transforms: transforms)
    }
}
