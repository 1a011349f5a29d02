/// The box structure HEIF and AVIF files are made of (ISO/IEC 14496-12,
/// 4.2): each box a 32-bit size (1: a 64-bit size follows; 0: to the end),
/// a four-character type, then its contents; a "full" box's contents start
/// with a version byte and 24 bits of flags. kioskd reads boxes only where
/// libheif 1.15 gives no way in (``HEIFDerivationCheck``, ``HEIFGridTiles``)
/// and writes them for the grids ``HEIFGridWriter`` makes; every picture is
/// still decoded by libheif.
enum ISOBMFF {
    /// A box in a byte array: its type, and where it and its contents lie.
    struct Box {
        let type: String
        let whole: Range<Int>
        let contents: Range<Int>
    }

    /// The boxes one after another in `range` of `bytes`, up to the first
    /// that does not fit.
    static func boxes(in bytes: [UInt8], _ range: Range<Int>) -> [Box] {
        var found: [Box] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            var reader = Reader(bytes, offset..<range.upperBound)
            guard let declared = reader.number(4), let type = reader.fourCC() else { break }
            var size = Int(declared)
            if declared == 1 {
                guard let large = reader.number(8), large <= UInt64(Int.max) else { break }
                size = Int(large)
            }
            let start = reader.offset
            let end = size == 0 ? range.upperBound : offset + size
            guard size == 0 || size >= start - offset, end <= range.upperBound else { break }
            found.append(Box(type: type, whole: offset..<end, contents: start..<end))
            offset = end
        }
        return found
    }

    /// `read(offset, count)` over a file in memory: up to `count` bytes from `offset`, fewer at its end.
    static func parts(of file: [UInt8]) -> (Int, Int) -> [UInt8] {
        { offset, count in offset < file.count ? Array(file[offset..<(offset + min(count, file.count - offset))]) : [] }
    }

    enum TopLevelMeta {
        case none, tooLarge
        /// More than one: libheif 1.15 takes the last, a checker might read the first.
        case twice
        case found([UInt8])
    }

    /// The contents of a file's top-level `meta` box (its description: a few
    /// kilobytes to tens of kilobytes in a photo), read through `read(offset,
    /// count)`, which gives up to `count` bytes (fewer at the file's end).
    /// Looked for among the first 64 boxes, and refused over `maximumBytes`.
    /// The file holds one (ISO/IEC 14496-12, 8.11.1); a second, which a
    /// fuzzed file had, is reported.
    static func topLevelMeta(maximumBytes: Int, read: (Int, Int) -> [UInt8]) -> TopLevelMeta {
        var offset = 0
        var found: TopLevelMeta = .none
        for _ in 0..<64 {
            var header = Reader(read(offset, 16), 0..<16)
            guard let declared = header.number(4), let type = header.fourCC() else { return found }
            var size = Int(declared)
            if declared == 1 {
                guard let large = header.number(8) else { return found }
                size = Int(clamping: large)
            }
            let headerBytes = header.offset
            if type == "meta" {
                guard case .none = found else { return .twice }
                // 0: the box runs to the end of the file.
                guard size == 0 || size - headerBytes <= maximumBytes else { return .tooLarge }
                let contents = read(offset + headerBytes, size == 0 ? maximumBytes + 1 : size - headerBytes)
                guard contents.count <= maximumBytes else { return .tooLarge }
                found = .found(contents)
            }
            // 0: the last box, to the end of the file.
            guard size >= headerBytes, offset <= Int.max - size else { return found }
            offset += size
        }
        return found
    }

    /// Big-endian fields read in sequence from a range of bytes; nil past its end.
    struct Reader {
        let bytes: [UInt8]
        let end: Int
        var offset: Int

        init(_ bytes: [UInt8], _ range: Range<Int>) {
            self.bytes = bytes
            self.end = min(range.upperBound, bytes.count)
            self.offset = range.lowerBound
        }

        var remaining: Int { end - offset }

        /// An unsigned number of `count` bytes (0 to 8; 0 reads as 0).
        mutating func number(_ count: Int) -> UInt64? {
            guard (0...8).contains(count), count <= remaining else { return nil }
            defer { offset += count }
            return bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | UInt64($1) }
        }

        /// An unsigned number of `count` bytes that must fit `Int`.
        mutating func integer(_ count: Int) -> Int? {
            number(count).flatMap { $0 <= UInt64(Int.max) ? Int($0) : nil }
        }

        mutating func fourCC() -> String? {
            guard remaining >= 4 else { return nil }
            defer { offset += 4 }
            return String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
        }

        /// A full box's version and flags.
        mutating func versionAndFlags() -> (version: UInt8, flags: UInt32)? {
            guard let word = number(4) else { return nil }
            return (UInt8(word >> 24), UInt32(word & 0xFF_FFFF))
        }
    }

    // Writing, for ``HEIFGridWriter`` and the single tiles ``HEIFGridTiles`` hands libheif.

    static func u16(_ value: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)] }
    static func u32(_ value: Int) -> [UInt8] { join(u16(value >> 16), u16(value)) }
    /// Joined, not summed: a long sum of arrays is more than Swift 6.0's type checker will take.
    static func join(_ parts: [UInt8]...) -> [UInt8] { parts.flatMap { $0 } }
    static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
    static func box(_ type: String, _ contents: [UInt8]) -> [UInt8] { join(u32(8 + contents.count), ascii(type), contents) }
    static func fullBox(_ type: String, version: UInt8 = 0, flags: Int = 0, _ contents: [UInt8]) -> [UInt8] {
        box(type, join([version, UInt8(truncatingIfNeeded: flags >> 16), UInt8(truncatingIfNeeded: flags >> 8), UInt8(truncatingIfNeeded: flags)], contents))
    }

    /// A HEIC file: its `ftyp`, the `meta` box (an `hdlr` saying "pict",
    /// then the boxes `description(dataStart)` makes), and `data` in an `mdat`
    /// that begins at `dataStart` in the file. The description's offsets are
    /// of fixed width, so its length does not depend on `dataStart`.
    static func heicFile(description: (_ dataStart: Int) -> [UInt8], data: [UInt8]) -> [UInt8] {
        let fileType = box("ftyp", join(ascii("heic"), u32(0), ascii("mif1"), ascii("heic")))
        func meta(_ dataStart: Int) -> [UInt8] {
            fullBox("meta", join(fullBox("hdlr", join(u32(0), ascii("pict"), u32(0), u32(0), u32(0), [0])), description(dataStart)))
        }
        let dataStart = fileType.count + meta(0).count + 8
        return join(fileType, meta(dataStart), box("mdat", data))
    }
}
