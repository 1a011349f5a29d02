/// What a server says about a picture that its file may not: an Immich
/// preview carries no EXIF, so its description, when it was taken, the
/// people in it and the album it came through are kept beside it, for the
/// caption's `{title}`, `{date}`, `{people}` and `{album}`.
public struct PictureFacts: Hashable, Sendable {
    public var title: String?
    /// When it was taken, as the server wrote it in the place it was taken (`2024-05-01T12:30:00.000Z`).
    public var taken: String?
    public var people: [String]
    public var album: String?
    /// The identifier that pairs a Live Photo's still with its movie in the
    /// mirror (``LivePhotoPairs``), in place of the one an iPhone writes
    /// into both files, which Immich's preview and transcode do not keep.
    public var liveIdentifier: String?

    public init(title: String? = nil, taken: String? = nil, people: [String] = [], album: String? = nil, liveIdentifier: String? = nil) {
        self.title = title
        self.taken = taken
        self.people = people
        self.album = album
        self.liveIdentifier = liveIdentifier
    }

    /// `{people}`: the names, joined as a list is said.
    public var peopleWritten: String? { people.isEmpty ? nil : people.joined(separator: ", ") }
}

/// The facts of a mirror's pictures, kept in the mirror as a hidden file
/// beside its index (``MirrorIndex``), so the captions survive a restart
/// while the server is away. Versioned as the index is:
/// ```
/// kioskd-facts 1
/// 2024-05-01 12.30.00 IMG_0001 000000000001.jpg<TAB>title<TAB>taken<TAB>album<TAB>Anna<US>Grandma<TAB>live identifier
/// ```
/// Tabs, newlines and other control characters in a server's words become
/// spaces; a file of another version, or one that does not read whole, is
/// nil (the facts come back at the next poll).
public enum PictureFactsFile {
    public static let header = "kioskd-facts 1"

    public static func encoded(_ facts: [String: PictureFacts]) -> [UInt8] {
        var bytes = Array((header + "\n").utf8)
        for path in facts.keys.sorted() {
            let fact = facts[path]!
            let fields = [
                path, fact.title ?? "", fact.taken ?? "", fact.album ?? "", fact.people.map(clean).joined(separator: "\u{1F}"), fact.liveIdentifier ?? "",
            ]
            bytes.append(contentsOf: fields.enumerated().map { $0.offset == 4 ? $0.element : clean($0.element) }.joined(separator: "\t").utf8)
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    public static func read(_ bytes: [UInt8]) -> [String: PictureFacts]? {
        guard let text = String(validating: bytes, as: UTF8.self), text.hasSuffix("\n") else { return nil }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().makeIterator()
        guard lines.next() == Substring(header) else { return nil }
        var facts: [String: PictureFacts] = [:]
        while let line = lines.next() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 6, !fields[0].isEmpty else { return nil }
            func given(_ text: String) -> String? { text.isEmpty ? nil : text }
            facts[fields[0]] = PictureFacts(
                title: given(fields[1]), taken: given(fields[2]), people: fields[4].split(separator: "\u{1F}").map(String.init), album: given(fields[3]),
                liveIdentifier: given(fields[5]))
        }
        return facts
    }

    /// A server's words made safe for one field of a line.
    static func clean(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
    }
}
