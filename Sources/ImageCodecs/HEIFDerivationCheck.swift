/// A check run before libheif decodes a HEIF file: Debian 12's libheif
/// 1.15 follows a derived image's inputs (a `grid`'s tiles, an overlay's
/// layers, through `dimg` references) with no check for a cycle. A grid
/// listed among its own tiles makes it start threads until none can be
/// made (it then throws an exception through its C API, which ends the
/// process) or, decoding on one thread, recurse until the stack runs out.
/// The fuzz target found such a file of 1,004 bytes; `heif-info` 1.15
/// dies on it too. Later libheif versions refuse such files themselves.
///
/// So kioskd reads the file's item references first (the `iref` box in
/// the `meta` box: a few kilobytes at the file's start in every photo)
/// and refuses a file whose derived images form a cycle, or nest deeper
/// than ``maximumDepth`` (an iPhone's grid is one level: grid, then tiles;
/// deeper nesting only multiplies libheif's threads).
///
/// libheif 1.15 also allocates a grid's or an overlay's canvas at the size
/// the derived image's own data declares, whatever its `ispe` (the size
/// the pixel limit was checked against) says: a 675-byte grid the fuzz
/// target made declared 26991x30316 and took libheif past 2 GB. Each such
/// declared canvas is held to the pixel limit too. This reads box headers,
/// reference lists and those sizes only; decoding stays libheif's. A
/// derived image whose input the file does not list, or lists as something
/// other than a picture (an `Exif` item, a `mime` item, a type it does not
/// know), is refused too: libheif 1.15 asserts such an input is among its
/// pictures, and an assertion ends the process. The pictures are the types
/// libheif 1.15 decodes (``pictureTypes``), whatever libheif is linked: a
/// grid of the kinds later versions added (`jpeg`, `avc1`, `unci` tiles) is
/// refused by name with a newer libheif too. No phone or camera writes one.
public enum HEIFDerivationCheck {
    public static let maximumDepth = 3
    /// The item types libheif 1.15 takes for pictures (`item_type_is_image`);
    /// a derived image made from any other is refused.
    static let pictureTypes: Set<String> = ["hvc1", "av01", "vvc1", "grid", "iden", "iovl"]
    /// A `meta` box larger than this is refused rather than read: phones write a few tens of kilobytes.
    static let maximumMetaBytes = 16 << 20

    /// Why the file must not be decoded, or nil. `read(offset, count)` gives
    /// up to `count` bytes from `offset` (fewer at the end of the file).
    public static func refusal(maximumPixels: Int, read: (Int, Int) -> [UInt8]) -> ImageFileError.Reason? {
        let meta: [UInt8]
        switch ISOBMFF.topLevelMeta(maximumBytes: maximumMetaBytes, read: read) {
        case .none: return nil
        case .tooLarge: return .corrupt("its description (meta box) is over 16 MB")
        case .twice: return .corrupt("it holds two descriptions (meta boxes)")
        case .found(let bytes): meta = bytes
        }
        let items = HEIFItems(meta)
        if let cycle = derivationRefusal(meta, items: items.types) { return .corrupt(cycle) }
        for (item, type) in items.types.sorted(by: { $0.key < $1.key }) where type == "grid" || type == "iovl" {
            // Where kioskd cannot read the size, libheif is not asked to.
            guard let canvas = items.declaredCanvas(of: item, read: read) else { return .corrupt("its \(type) image's description cannot be read") }
            let (pixels, overflow) = canvas.size.width.multipliedReportingOverflow(by: canvas.size.height)
            if overflow || pixels > maximumPixels { return .tooLarge(canvas.size) }
        }
        return nil
    }

    /// Why the derived images must not be decoded (a cycle, too deep, or
    /// made from an item the file does not list or that is not a picture),
    /// or nil. `items`: the items the file lists, with their types (none:
    /// the file lists none, and libheif refuses it).
    private static func derivationRefusal(_ meta: [UInt8], items: [UInt32: String]) -> String? {
        var inputs: [UInt32: [UInt32]] = [:]
        for box in ISOBMFF.boxes(in: meta, 4..<meta.count) where box.type == "iref" {
            // Read as libheif 1.15 reads it: entry after entry, each entry's
            // own size ignored (a fuzzed file's say 100 MB and are still
            // followed), so the check sees the references libheif will.
            var reference = ISOBMFF.Reader(meta, box.contents)
            guard let (version, _) = reference.versionAndFlags() else { continue }
            let idBytes = version == 0 ? 2 : 4
            while let size = reference.number(4), let type = reference.fourCC() {
                if size == 1, reference.number(8) == nil { break }
                guard let from = reference.number(idBytes).map(UInt32.init), let count = reference.number(2) else { break }
                var to: [UInt32] = []
                for _ in 0..<count {
                    guard let id = reference.number(idBytes) else { break }
                    to.append(UInt32(id))
                }
                switch type {
                case "dimg": inputs[from, default: []] += to   // a derived image and its inputs
                // An image and its alpha; libheif 1.15 looks for auxiliary images among its pictures only.
                case "auxl" where items.isEmpty || pictureTypes.contains(items[from] ?? ""):
                    for master in to { inputs[master, default: []].append(from) }
                default: break
                }
            }
        }
        // An input the file does not list, or not as a picture: libheif
        // 1.15 asserts it is among its pictures (decode_image_planar's
        // `imginfo`), which ends the process. The fuzz target made two such
        // files: an `iden` image whose one input is item 12802 (475 bytes),
        // and one whose input is typed `hvc0` (701 bytes, from `hvc1`).
        if !items.isEmpty {
            for (item, list) in inputs.sorted(by: { $0.key < $1.key }) {
                for input in list {
                    guard let type = items[input] else { return "its image \(item) is made from an item it does not have (\(input))" }
                    if !pictureTypes.contains(type) {
                        return "its image \(item) is made from item \(input), which is not a picture (\(named(type)))"
                    }
                }
            }
        }
        // How many levels of inputs lie under each item (memoised), cut off
        // past the limit, so the walk itself never goes deeper than that.
        var levels: [UInt32: Int] = [:]
        var onPath: Set<UInt32> = []
        func levelsUnder(_ item: UInt32, depth: Int) -> Result<Int, Refusal> {
            if let known = levels[item] { return depth + known > maximumDepth ? .failure(.tooDeep) : .success(known) }
            guard let list = inputs[item] else { return .success(0) }
            if onPath.contains(item) { return .failure(.cycle(item)) }
            if depth >= maximumDepth { return .failure(.tooDeep) }
            onPath.insert(item)
            defer { onPath.remove(item) }
            var most = 0
            for input in list {
                switch levelsUnder(input, depth: depth + 1) {
                case .failure(let refusal): return .failure(refusal)
                case .success(let under): most = max(most, under + 1)
                }
            }
            levels[item] = most
            return .success(most)
        }
        for item in inputs.keys.sorted() {
            if case .failure(let refusal) = levelsUnder(item, depth: 0) {
                switch refusal {
                case .cycle(let item): return "its images are made from themselves (item \(item))"
                case .tooDeep: return "its images are derived from others more than \(maximumDepth) deep"
                }
            }
        }
        return nil
    }

    /// An item type for a message: in quotes when it is four printable
    /// ASCII characters; a fuzzed file's may be any bytes.
    static func named(_ type: String) -> String {
        let bytes = Array(type.utf8)
        let printable = bytes.count == 4 && bytes.allSatisfy { (0x21...0x7E).contains($0) && $0 != 0x22 && $0 != 0x5C }
        return printable ? "\"" + type + "\"" : "a type of unprintable bytes"
    }

    private enum Refusal: Error {
        case cycle(UInt32)
        case tooDeep
    }
}
