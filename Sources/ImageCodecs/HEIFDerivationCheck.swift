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
/// deeper nesting only multiplies libheif's threads). This reads box
/// headers and reference lists only; decoding stays libheif's.
public enum HEIFDerivationCheck {
    public static let maximumDepth = 3
    /// A `meta` box larger than this is refused rather than read: phones write a few tens of kilobytes.
    static let maximumMetaBytes = 16 << 20

    /// Why the file must not be decoded, or nil. `read(offset, count)` gives
    /// up to `count` bytes from `offset` (fewer at the end of the file).
    public static func refusal(read: (Int, Int) -> [UInt8]) -> String? {
        let meta: [UInt8]
        switch metaBox(read: read) {
        case .none: return nil
        case .tooLarge: return "its description (meta box) is over 16 MB"
        case .found(let bytes): meta = bytes
        }
        var inputs: [UInt32: [UInt32]] = [:]
        for box in children(of: meta, from: 4) where box.type == "iref" {
            // Read as libheif 1.15 reads it: entry after entry, each entry's
            // own size ignored (a fuzzed file's say 100 MB and are still
            // followed), so the check sees the references libheif will.
            let reference = Array(meta[box.contents])
            guard let version = reference.first else { continue }
            let idBytes = version == 0 ? 2 : 4
            var at = 4
            func number(_ bytes: Int) -> UInt64? {
                guard at + bytes <= reference.count else { return nil }
                defer { at += bytes }
                return reference[at..<(at + bytes)].reduce(0) { $0 << 8 | UInt64($1) }
            }
            while let size = number(4), at + 4 <= reference.count {
                let type = String(decoding: reference[at..<(at + 4)], as: UTF8.self)
                at += 4
                if size == 1, number(8) == nil { break }
                guard let from = number(idBytes).map(UInt32.init), let count = number(2) else { break }
                var to: [UInt32] = []
                for _ in 0..<count {
                    guard let id = number(idBytes) else { break }
                    to.append(UInt32(id))
                }
                switch type {
                case "dimg": inputs[from, default: []] += to   // a derived image and its inputs
                case "auxl": for master in to { inputs[master, default: []].append(from) }   // an image and its alpha
                default: break
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

    private enum Refusal: Error {
        case cycle(UInt32)
        case tooDeep
    }

    private enum Meta {
        case none, tooLarge
        case found([UInt8])
    }

    /// The top-level `meta` box's contents.
    private static func metaBox(read: (Int, Int) -> [UInt8]) -> Meta {
        var offset = 0
        for _ in 0..<64 {
            let header = read(offset, 16)
            guard header.count >= 8 else { return .none }
            var size = Int(header[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            var headerBytes = 8
            if size == 1 {
                guard header.count >= 16 else { return .none }
                size = Int(clamping: header[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
                headerBytes = 16
            }
            if header[4..<8].elementsEqual("meta".utf8) {
                // 0: the box runs to the end of the file.
                guard size == 0 || size - headerBytes <= maximumMetaBytes else { return .tooLarge }
                let contents = read(offset + headerBytes, size == 0 ? maximumMetaBytes + 1 : size - headerBytes)
                return contents.count > maximumMetaBytes ? .tooLarge : .found(contents)
            }
            guard size >= headerBytes else { return .none }
            offset += size
        }
        return .none
    }

    /// The boxes in `bytes` from `start`: each one's type and where its contents lie.
    private static func children(of bytes: [UInt8], from start: Int) -> [(type: String, contents: Range<Int>)] {
        var boxes: [(String, Range<Int>)] = []
        var offset = start
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset..<(offset + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            let end = size == 0 ? bytes.count : offset + size
            guard size == 0 || size >= 8, end <= bytes.count else { break }
            boxes.append((String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self), (offset + 8)..<end))
            offset = end
        }
        return boxes
    }
}
