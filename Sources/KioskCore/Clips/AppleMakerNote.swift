/// Apple's makernote, as iPhones write it in a photo's EXIF (the Exif
/// IFD's tag 0x927C): `Apple iOS\0`, a version, the byte order (`MM` on
/// every iPhone seen, `II` allowed), then a TIFF IFD at byte 14 whose
/// values are placed at offsets from the makernote's own start (exiftool:
/// `Base => '$start - 14'`). Tag 17 is the Live Photo's content identifier.
///
/// libexif 0.6.24 finds Apple's makernote but reads every value stored
/// out of line six bytes early (`exif_mnote_data_apple_load` adds the
/// value's offset to the makernote's without the `Exif\0\0` header its
/// buffer starts with), so a UUID comes back empty; libexif still finds
/// the makernote's bytes, and this reads the one tag wanted from them.
public enum AppleMakerNote {
    /// The content identifier (tag 17, ASCII) in `note`, the MakerNote
    /// entry's bytes; nil when it is not Apple's or holds no such tag.
    public static func contentIdentifier(in note: [UInt8]) -> String? {
        guard note.count >= 16, note.starts(with: signature) else { return nil }
        let bigEndian: Bool
        switch (note[12], note[13]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: return nil
        }
        func number(_ at: Int, _ count: Int) -> Int? {
            guard at >= 0, at + count <= note.count else { return nil }
            let bytes = note[at..<(at + count)]
            return (bigEndian ? Array(bytes) : bytes.reversed()).reduce(0) { $0 << 8 | Int($1) }
        }
        guard let entries = number(14, 2) else { return nil }
        for index in 0..<entries {
            let at = 16 + 12 * index
            guard let tag = number(at, 2), let type = number(at + 2, 2), let count = number(at + 4, 4) else { return nil }
            guard tag == contentIdentifierTag else { continue }
            guard type == asciiType, count > 0, count <= 256 else { return nil }
            let start = count <= 4 ? at + 8 : number(at + 8, 4)
            guard let start, start + count <= note.count else { return nil }
            let text = note[start..<(start + count)].prefix { $0 != 0 }
            guard !text.isEmpty, text.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
            return String(decoding: text, as: UTF8.self)
        }
        return nil
    }

    static let signature = Array("Apple iOS".utf8) + [0]
    static let contentIdentifierTag = 0x0011
    static let asciiType = 2
}
