import KioskCore

/// What a HEIF file's `meta` box says of its items (ISO/IEC 23008-12):
/// the primary item (`pitm`), each item's type (`iinf`), where its data
/// lies (`iloc`, `idat`), what it is made from (`iref`) and its
/// properties (`iprp`). Read for ``HEIFGridTiles``, ``HEIFDerivationCheck``
/// and ``HEIFGridWriter``. A box that stops making sense is read as far as
/// it does: what uses this checks what it needs.
struct HEIFItems {
    let meta: [UInt8]
    var primary: UInt32 = 0
    var types: [UInt32: String] = [:]
    var locations: [UInt32: Location] = [:]
    /// `dimg` references: a derived image, to the images it is made from.
    var derivedFrom: [UInt32: [UInt32]] = [:]
    /// `auxl` references, turned round: an image, to its auxiliary images (alpha, depth, a gain map).
    var auxiliaries: [UInt32: [UInt32]] = [:]
    /// `ipco`'s boxes, whole; items name them from 1.
    var properties: [ISOBMFF.Box] = []
    var associations: [UInt32: [Int]] = [:]
    var itemData: Range<Int>?

    struct Location {
        let constructionMethod: Int
        let dataReference: Int
        let extents: [(offset: Int, length: Int)]
    }

    init(_ meta: [UInt8]) {
        self.meta = meta
        for box in ISOBMFF.boxes(in: meta, 4..<meta.count) {
            var reader = ISOBMFF.Reader(meta, box.contents)
            switch box.type {
            case "pitm":
                guard let (version, _) = reader.versionAndFlags(), let id = reader.number(version == 0 ? 2 : 4) else { continue }
                primary = UInt32(id)
            case "iinf":
                guard let (version, _) = reader.versionAndFlags(), reader.number(version == 0 ? 2 : 4) != nil else { continue }
                for entry in ISOBMFF.boxes(in: meta, reader.offset..<box.contents.upperBound) where entry.type == "infe" {
                    var item = ISOBMFF.Reader(meta, entry.contents)
                    guard let (version, _) = item.versionAndFlags(), version >= 2,
                          let id = item.number(version == 2 ? 2 : 4), item.number(2) != nil, let type = item.fourCC() else { continue }
                    types[UInt32(id)] = type
                }
            case "iloc":
                readLocations(&reader)
            case "iref":
                guard let (version, _) = reader.versionAndFlags() else { continue }
                let idBytes = version == 0 ? 2 : 4
                for entry in ISOBMFF.boxes(in: meta, reader.offset..<box.contents.upperBound) {
                    var reference = ISOBMFF.Reader(meta, entry.contents)
                    guard let from = reference.number(idBytes), let count = reference.number(2) else { break }
                    var to: [UInt32] = []
                    for _ in 0..<count {
                        guard let id = reference.number(idBytes) else { break }
                        to.append(UInt32(id))
                    }
                    if entry.type == "dimg" { derivedFrom[UInt32(from), default: []] += to }
                    if entry.type == "auxl" { for master in to { auxiliaries[master, default: []].append(UInt32(from)) } }
                }
            case "iprp":
                for part in ISOBMFF.boxes(in: meta, box.contents) {
                    if part.type == "ipco" { properties = ISOBMFF.boxes(in: meta, part.contents) }
                    if part.type == "ipma" { readAssociations(part) }
                }
            case "idat":
                itemData = box.contents
            default: break
            }
        }
    }

    /// `iloc` (ISO/IEC 14496-12, 8.11.3): versions 0 to 2.
    private mutating func readLocations(_ reader: inout ISOBMFF.Reader) {
        guard let (version, _) = reader.versionAndFlags(), version <= 2, let sizes = reader.number(2) else { return }
        let offsetSize = Int(sizes >> 12), lengthSize = Int(sizes >> 8 & 15), baseSize = Int(sizes >> 4 & 15)
        let indexSize = version == 0 ? 0 : Int(sizes & 15)
        guard [offsetSize, lengthSize, baseSize, indexSize].allSatisfy({ [0, 4, 8].contains($0) }),
              let count = reader.number(version < 2 ? 2 : 4) else { return }
        for _ in 0..<count {
            guard let id = reader.number(version < 2 ? 2 : 4) else { return }
            var method = 0
            if version >= 1 {
                guard let field = reader.number(2) else { return }
                method = Int(field & 15)
            }
            guard let reference = reader.integer(2), let base = reader.integer(baseSize), let extentCount = reader.number(2) else { return }
            var extents: [(offset: Int, length: Int)] = []
            for _ in 0..<extentCount {
                guard reader.number(indexSize) != nil, let offset = reader.integer(offsetSize), let length = reader.integer(lengthSize),
                      offset <= Int.max - base else { return }
                extents.append((base + offset, length))
            }
            locations[UInt32(id)] = Location(constructionMethod: method, dataReference: reference, extents: extents)
        }
    }

    /// `ipma`: which properties each item has, in order (from 1; 0 is none).
    private mutating func readAssociations(_ box: ISOBMFF.Box) {
        var reader = ISOBMFF.Reader(meta, box.contents)
        guard let (version, flags) = reader.versionAndFlags(), let count = reader.number(4) else { return }
        for _ in 0..<count {
            guard let id = reader.number(version < 1 ? 2 : 4), let listed = reader.number(1) else { return }
            var indexes: [Int] = []
            for _ in 0..<listed {
                guard let entry = reader.number(flags & 1 == 1 ? 2 : 1) else { return }
                indexes.append(Int(entry & (flags & 1 == 1 ? 0x7FFF : 0x7F)))
            }
            associations[UInt32(id), default: []] += indexes
        }
    }

    /// An item's properties, whole, in order; nil if one is missing.
    func properties(of item: UInt32) -> [(type: String, bytes: [UInt8])]? {
        var found: [(String, [UInt8])] = []
        for index in associations[item] ?? [] where index > 0 {
            guard index <= properties.count else { return nil }
            let box = properties[index - 1]
            found.append((box.type, Array(meta[box.whole])))
        }
        return found
    }

    /// The first `count` bytes (or fewer) of an item's data, its extents
    /// joined, in the file (read through `read`) or in `idat`. As libheif
    /// 1.15 reads it: the data reference index is not looked at.
    func data(of item: UInt32, upTo count: Int, read: (Int, Int) -> [UInt8]) -> [UInt8]? {
        guard let location = locations[item], location.constructionMethod <= 1 else { return nil }
        var data: [UInt8] = []
        for extent in location.extents where data.count < count {
            let wanted = min(extent.length, count - data.count)
            if location.constructionMethod == 0 {
                data += read(extent.offset, wanted)
            } else {
                guard let itemData, extent.offset < itemData.count else { return data }
                let start = itemData.lowerBound + extent.offset
                data += meta[start..<min(itemData.upperBound, start + wanted)]
            }
        }
        return data
    }

    /// The picture a derived image's own data says it makes: a `grid`'s or
    /// an overlay's (`iovl`) output size (ISO/IEC 23008-12, 6.6.2.3 and
    /// 6.6.2.2), which libheif allocates whatever the item's `ispe` says.
    /// With a grid's rows and columns.
    func declaredCanvas(of item: UInt32, read: (Int, Int) -> [UInt8]) -> (size: PixelSize, rows: Int, columns: Int)? {
        let type = types[item]
        guard type == "grid" || type == "iovl", let bytes = data(of: item, upTo: 20, read: read) else { return nil }
        var reader = ISOBMFF.Reader(bytes, 0..<bytes.count)
        // The version is not checked: libheif 1.15 reads a grid whatever its version says.
        guard reader.number(1) != nil, let flags = reader.number(1) else { return nil }
        var rows = 1, columns = 1
        if type == "grid" {
            guard let r = reader.integer(1), let c = reader.integer(1) else { return nil }
            (rows, columns) = (r + 1, c + 1)
        } else {
            guard reader.number(8) != nil else { return nil }   // the fill colour, four 16-bit channels
        }
        let fieldBytes = flags & 1 == 0 ? 2 : 4
        guard let width = reader.integer(fieldBytes), let height = reader.integer(fieldBytes) else { return nil }
        return (PixelSize(width: width, height: height), rows, columns)
    }

    /// Whether an auxiliary image is an alpha plane, as libheif 1.15 tells
    /// (its `auxC` type); a depth map or an iPhone's HDR gain map is not.
    func isAlpha(_ item: UInt32) -> Bool {
        guard let type = properties(of: item)?.first(where: { $0.type == "auxC" })?.bytes.dropFirst(12).prefix(while: { $0 != 0 }) else { return false }
        return ["urn:mpeg:avc:2015:auxid:1", "urn:mpeg:hevc:2015:auxid:1", "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha"].contains(String(decoding: type, as: UTF8.self))
    }
}
