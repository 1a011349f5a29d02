/// The directory Samsung's camera appends after a JPEG (or in a HEIC's
/// `sefd` box): its motion photo's video is one of the blocks it lists,
/// `MotionPhoto_Data` (type 0x0a30). The layout is exiftool's
/// (`Image::ExifTool::Samsung`, `ProcessSamsung`), all little-endian:
///
///     [JPEG ... FFD9] [block] ... [block] [SEFH directory] [u32 dirLen] "SEFT"
///
/// The directory starts `SEFH`, a version, a count, then 12-byte entries
/// (`00 00`, u16 type, u32 distance back from the directory's start to the
/// block, u32 block size). A block starts with the same four bytes as its
/// entry, a u32 name length and the name; its payload follows.
///
/// Pure: the caller reads the file's last bytes (the directory is at most
/// 64 KiB long) and then each block's first bytes.
public struct SamsungTrailer: Equatable, Sendable {
    /// One block the directory lists: where it is in the file.
    public struct Entry: Equatable, Sendable {
        public let type: UInt16
        /// The block's first byte, and its size (header, name and payload).
        public let start: Int64
        public let size: Int64

        /// The block's name and payload, from its first bytes (`header`: at
        /// least 8, and the name's); nil when they do not match the entry.
        public func block(header: [UInt8]) -> Block? {
            guard header.count >= 8, header[0] == 0, header[1] == 0, littleEndian(header, 2, 2) == UInt64(type) else { return nil }
            let nameLength = Int64(littleEndian(header, 4, 4))
            guard nameLength + 8 <= size, header.count >= 8 + Int(nameLength) else { return nil }
            let name = String(decoding: header[8..<(8 + Int(nameLength))], as: UTF8.self)
            return Block(name: name, payload: (start + 8 + nameLength)..<(start + size))
        }
    }

    /// A block's name (`MotionPhoto_Data`) and where its payload lies.
    public struct Block: Equatable, Sendable {
        public let name: String
        public let payload: Range<Int64>
    }

    /// The motion photo video's type.
    public static let motionPhotoType: UInt16 = 0x0a30
    /// How many bytes of the file's end to read: the directory, its footer, and room.
    public static let tailLength = 0x10000 + 8

    /// The blocks listed, in the directory's order.
    public let entries: [Entry]
    /// Where the directory starts: the bytes before it and after the
    /// image are the blocks.
    public let directoryStart: Int64

    /// The directory at the end of a file of `fileSize` bytes whose last
    /// bytes are `tail`; nil when there is none (no `SEFT` footer) or it is
    /// malformed (a length or an entry pointing outside the file).
    public init?(tail: [UInt8], fileSize: Int64) {
        let count = tail.count
        guard count >= 8, Int64(count) <= fileSize, Array(tail[(count - 4)...]) == Array("SEFT".utf8) else { return nil }
        let directoryLength = Int(littleEndian(tail, count - 8, 4))
        // exiftool's bounds: at least the header, less than 64 KiB, and inside what was read.
        guard directoryLength >= 12, directoryLength < 0x10000, directoryLength + 8 <= count else { return nil }
        let base = count - 8 - directoryLength
        guard Array(tail[base..<(base + 4)]) == Array("SEFH".utf8) else { return nil }
        let entryCount = Int(littleEndian(tail, base + 8, 4))
        guard entryCount <= (directoryLength - 12) / 12 else { return nil }
        let start = fileSize - 8 - Int64(directoryLength)
        var entries: [Entry] = []
        for index in 0..<entryCount {
            let at = base + 12 + 12 * index
            guard tail[at] == 0, tail[at + 1] == 0 else { return nil }
            let distance = Int64(littleEndian(tail, at + 4, 4)), size = Int64(littleEndian(tail, at + 8, 4))
            guard distance <= start, size >= 8, size <= distance else { return nil }
            entries.append(Entry(type: UInt16(littleEndian(tail, at + 2, 2)), start: start - distance, size: size))
        }
        self.entries = entries
        directoryStart = start
    }

    /// The entry of the motion photo's video, if the directory lists one.
    public var motionPhoto: Entry? { entries.first { $0.type == Self.motionPhotoType } }

    /// Where the video is, from its block's payload: the payload itself, or
    /// (a HEIC's `mpv2` form, 12 bytes) the big-endian offset and size it
    /// names. Nil when the payload names a range outside the file.
    public static func video(in block: Block, payloadHead: [UInt8], fileSize: Int64) -> Range<Int64>? {
        if block.payload.count == 12, payloadHead.count >= 12, Array(payloadHead[0..<4]) == Array("mpv2".utf8) {
            let offset = Int64(bigEndian(payloadHead, 4)), size = Int64(bigEndian(payloadHead, 8))
            guard size > 0, offset + size <= fileSize else { return nil }
            return offset..<(offset + size)
        }
        return block.payload.isEmpty || block.payload.upperBound > fileSize ? nil : block.payload
    }
}

private func littleEndian(_ bytes: [UInt8], _ at: Int, _ count: Int) -> UInt64 {
    (0..<count).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * $1) }
}

private func bigEndian(_ bytes: [UInt8], _ at: Int) -> UInt32 {
    (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[at + $1]) }
}
