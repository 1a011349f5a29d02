/// A photo (or clip) as an Immich server lists it: what the mirror names it
/// by, what tells that it changed, and its caption's fields.
public struct ImmichAsset: Hashable, Sendable {
    public enum Kind: String, Sendable {
        case image = "IMAGE", video = "VIDEO", audio = "AUDIO", other = "OTHER"
    }

    public var id: String
    public var kind: Kind
    public var originalFileName: String
    /// When it was taken, in the place it was taken (`2024-05-01T12:30:00.000Z`).
    public var localDateTime: String
    /// Its content's hash and its last change: together, its version.
    public var checksum: String
    public var updatedAt: String
    public var isTrashed: Bool
    /// The original's size, when Immich read it.
    public var fileSize: Int64?
    /// EXIF's description.
    public var description: String?
    /// The names of the people in it that have names.
    public var people: [String]
    /// An iPhone Live Photo's movie, another asset.
    public var livePhotoVideoId: String?

    public init(
        id: String, kind: Kind, originalFileName: String, localDateTime: String, checksum: String, updatedAt: String, isTrashed: Bool = false,
        fileSize: Int64? = nil, description: String? = nil, people: [String] = [], livePhotoVideoId: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.originalFileName = originalFileName
        self.localDateTime = localDateTime
        self.checksum = checksum
        self.updatedAt = updatedAt
        self.isTrashed = isTrashed
        self.fileSize = fileSize
        self.description = description
        self.people = people
        self.livePhotoVideoId = livePhotoVideoId
    }

    /// An id is put into a URL's path: Immich's are UUIDs, and anything
    /// but letters, digits and hyphens is refused.
    public static func isID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D }
    }

    /// The file `file` is kept as in the mirror: `2024-05-01 12.30.00 IMG_1234 c0ffee123456.jpg`,
    /// its date first (so name order is the order it was taken in), then
    /// its file's name (for `{file}`), then the end of its id (two photos of
    /// one name and second differ). A preview is written `.jpg` whatever
    /// Immich encoded it as (JPEG or WebP), a clip `.mp4` and a Live
    /// Photo's motion `.mov` beside its still, whatever Immich transcoded
    /// them to: kioskd knows a picture by its content, not its name.
    public func mirrorName(_ file: ImmichFile) -> String {
        var name = Self.dateWritten(localDateTime) ?? "undated"
        var stem = Substring(originalFileName)
        var fileExtension: String
        switch file {
        case .picture: fileExtension = "jpg"
        case .clip: fileExtension = "mp4"
        case .motion: fileExtension = "mov"
        }
        if let dot = originalFileName.lastIndex(of: "."), dot != originalFileName.startIndex {
            stem = originalFileName[..<dot]
            let written = originalFileName[originalFileName.index(after: dot)...].lowercased()
            if file == .picture(.original), (1...5).contains(written.utf8.count), written.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) }) {
                fileExtension = written
            }
        }
        let cleaned = Self.cleaned(stem)
        if !cleaned.isEmpty { name += " " + cleaned }
        return name + " " + id.suffix(12) + "." + fileExtension
    }

    /// What the mirror keeps of this asset: a photo at `size`, with its
    /// motion when it is a Live Photo and clips are shown; a clip when clips
    /// are shown; nothing else (audio, other).
    public func mirrored(size: ImmichPictureSize, clips: Bool) -> [ImmichFile] {
        switch kind {
        case .image: [.picture(size)] + (clips && livePhotoVideoId != nil ? [.motion] : [])
        case .video: clips ? [.clip] : []
        case .audio, .other: []
        }
    }

    /// `2024-05-01T12:30:00.000Z` as `2024-05-01 12.30.00`; nil when it is not such a time.
    static func dateWritten(_ text: String) -> String? {
        let bytes = Array(text.utf8.prefix(19))
        let digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        guard bytes.count == 19, digits.allSatisfy({ bytes[$0] >= 0x30 && bytes[$0] <= 0x39 }),
              bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54 || bytes[10] == 0x20, bytes[13] == 0x3A, bytes[16] == 0x3A else { return nil }
        var written = bytes
        written[10] = 0x20
        written[13] = 0x2E
        written[16] = 0x2E
        return String(decoding: written, as: UTF8.self)
    }

    /// A file name's stem made safe as a name in the mirror: no slash,
    /// backslash or control character (each becomes `_`), no leading dot,
    /// at most 100 bytes (whole characters), so the mirror's name stays far below 255.
    static func cleaned(_ stem: Substring) -> String {
        var kept = ""
        for character in stem {
            let unsafe = character == "/" || character == "\\" || character.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
            let next = unsafe ? "_" : character
            guard kept.utf8.count + next.utf8.count <= 100 else { break }
            kept.append(next)
        }
        return String(kept.drop { $0 == "." || $0 == " " })
    }
}

/// Where an answer's shape is not what Immich's specification says:
/// the path to the value and what was found there
/// (`assets.items[3].id: expected a string, found a number`).
public struct ImmichAnswerError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var expected: String
    public var found: String

    public var description: String { "\(path): expected \(expected), found \(found)" }
}

/// The answers of Immich's API that kioskd reads, read from JSON already
/// parsed (``JSONValue``). Pure: the shapes are those of Immich's OpenAPI
/// specification (Tests/Fixtures/immich records them, with its version).
///
/// An answer whose frame is wrong (a list where an object should be) is
/// refused whole; one asset whose fields are wrong is passed over, named
/// in the notes, and the others are kept.
public enum ImmichAnswers {
    /// Every field name the readers below read: a parser may skip the rest.
    public static let fieldsRead: Set<String> = [
        "assets", "items", "nextPage", "id", "type", "originalFileName", "localDateTime", "checksum", "updatedAt", "isTrashed", "exifInfo",
        "fileSizeInByte", "description", "people", "name", "livePhotoVideoId", "albumName", "hasNextPage",
    ]

    /// A page of `POST /api/search/metadata`: its assets, and the next page's number.
    public static func searchPage(_ answer: JSONValue) throws(ImmichAnswerError) -> (assets: [ImmichAsset], notes: [String], nextPage: Int?) {
        let root = Field(answer, "")
        let items = try root["assets"]["items"].array()
        let next = root["assets"]["nextPage"]
        var nextPage: Int?
        if let text = try next.optionalString() {
            guard let number = Int(text), number > 0 else { throw ImmichAnswerError(path: next.path, expected: "a page number", found: text.debugDescription) }
            nextPage = number
        }
        let (assets, notes) = readAssets(items)
        return (assets, notes, nextPage)
    }

    /// `POST /api/search/random`: a list of assets.
    public static func assetList(_ answer: JSONValue) throws(ImmichAnswerError) -> (assets: [ImmichAsset], notes: [String]) {
        readAssets(try Field(answer, "").array())
    }

    /// `GET /api/albums`: each album's id and name.
    public static func albums(_ answer: JSONValue) throws(ImmichAnswerError) -> [(id: String, name: String)] {
        try Field(answer, "").array().map { (album) throws(ImmichAnswerError) in
            (try album["id"].string(), try album["albumName"].string())
        }
    }

    /// A page of `GET /api/people`: each person's id and name, and whether another page follows.
    public static func people(_ answer: JSONValue) throws(ImmichAnswerError) -> (people: [(id: String, name: String)], hasNextPage: Bool) {
        let root = Field(answer, "")
        let people = try root["people"].array().map { (person) throws(ImmichAnswerError) in
            (try person["id"].string(), try person["name"].string())
        }
        return (people, try root["hasNextPage"].optionalBool() ?? false)
    }

    /// `GET /api/memories`: the assets of every memory.
    public static func memories(_ answer: JSONValue) throws(ImmichAnswerError) -> (assets: [ImmichAsset], notes: [String]) {
        var assets: [ImmichAsset] = [], notes: [String] = []
        for memory in try Field(answer, "").array() {
            let read = readAssets(try memory["assets"].array())
            assets += read.assets
            notes += read.notes
        }
        return (assets, notes)
    }

    /// The items that read as assets, and a note for each that did not (at most five, then a count).
    static func readAssets(_ items: [Field]) -> (assets: [ImmichAsset], notes: [String]) {
        var assets: [ImmichAsset] = [], notes: [String] = []
        var passedOver = 0
        assets.reserveCapacity(items.count)
        for item in items {
            do { assets.append(try asset(item)) } catch {
                passedOver += 1
                if notes.count < 5 { notes.append("passing over an asset: \(error)") }
            }
        }
        if passedOver > notes.count { notes.append("\(passedOver) assets passed over in all") }
        return (assets, notes)
    }

    static func asset(_ item: Field) throws(ImmichAnswerError) -> ImmichAsset {
        let id = item["id"]
        let idText = try id.string()
        guard ImmichAsset.isID(idText) else { throw ImmichAnswerError(path: id.path, expected: "an id of letters, digits and hyphens", found: idText.debugDescription) }
        let type = item["type"]
        let typeText = try type.string()
        guard let kind = ImmichAsset.Kind(rawValue: typeText) else {
            throw ImmichAnswerError(path: type.path, expected: "IMAGE, VIDEO, AUDIO or OTHER", found: typeText.debugDescription)
        }
        let exif = item["exifInfo"]
        let hasExif = try exif.optionalObject()
        var people: [String] = []
        for person in try item["people"].optionalArray() ?? [] {
            let name = try person["name"].string()
            if !name.isEmpty { people.append(name) }
        }
        let live = item["livePhotoVideoId"]
        let liveID = try live.optionalString()
        if let liveID, !ImmichAsset.isID(liveID) {
            throw ImmichAnswerError(path: live.path, expected: "an id of letters, digits and hyphens", found: liveID.debugDescription)
        }
        return ImmichAsset(
            id: idText, kind: kind, originalFileName: try item["originalFileName"].string(), localDateTime: try item["localDateTime"].string(),
            checksum: try item["checksum"].string(), updatedAt: try item["updatedAt"].string(), isTrashed: try item["isTrashed"].optionalBool() ?? false,
            fileSize: hasExif ? try exif["fileSizeInByte"].optionalInt().map(Int64.init) : nil,
            description: hasExif ? try exif["description"].optionalString() : nil, people: people, livePhotoVideoId: liveID)
    }

    /// A value in an answer, with its path for the error that names it.
    struct Field {
        let value: JSONValue?
        let path: String

        init(_ value: JSONValue?, _ path: String) {
            self.value = value
            self.path = path
        }

        subscript(key: String) -> Field {
            let inner = path.isEmpty ? key : path + "." + key
            guard case .object(let object)? = value else { return Field(nil, inner) }
            return Field(object[key], inner)
        }

        private func wrong(_ expected: String) -> ImmichAnswerError {
            ImmichAnswerError(path: path.isEmpty ? "the answer" : path, expected: expected, found: Self.kind(of: value))
        }

        func string() throws(ImmichAnswerError) -> String {
            guard case .string(let text)? = value else { throw wrong("a string") }
            return text
        }

        /// A string, or nil when it is missing or null.
        func optionalString() throws(ImmichAnswerError) -> String? {
            switch value {
            case nil, .null?: return nil
            case .string(let text)?: return text
            default: throw wrong("a string or null")
            }
        }

        func optionalBool() throws(ImmichAnswerError) -> Bool? {
            switch value {
            case nil, .null?: return nil
            case .bool(let flag)?: return flag
            default: throw wrong("true or false")
            }
        }

        func optionalInt() throws(ImmichAnswerError) -> Int? {
            switch value {
            case nil, .null?: return nil
            case .int(let number)?: return number
            default: throw wrong("a whole number")
            }
        }

        /// Whether it is an object (false when missing or null).
        func optionalObject() throws(ImmichAnswerError) -> Bool {
            switch value {
            case nil, .null?: return false
            case .object?: return true
            default: throw wrong("an object or null")
            }
        }

        func array() throws(ImmichAnswerError) -> [Field] {
            guard case .array(let elements)? = value else { throw wrong("a list") }
            return elements.enumerated().map { Field($0.element, "\(path)[\($0.offset)]") }
        }

        func optionalArray() throws(ImmichAnswerError) -> [Field]? {
            switch value {
            case nil, .null?: return nil
            case .array?: return try array()
            default: throw wrong("a list or null")
            }
        }

        static func kind(of value: JSONValue?) -> String {
            switch value {
            case nil: "nothing"
            case .null?: "null"
            case .string?: "a string"
            case .int?, .double?: "a number"
            case .bool?: "true or false"
            case .object?: "an object"
            case .array?: "a list"
            }
        }
    }
}

/// The requests kioskd makes of Immich's API, as pure values: each one's
/// method, path under the server's address, and JSON body.
public enum ImmichRequests {
    /// Assets per page of a search: Immich's largest.
    public static let pageSize = 1000
    /// The most pages read of one search (a server whose `nextPage` never ends).
    public static let mostPages = 200

    /// `POST api/search/metadata`: one page of an album's, a person's, or the favourites' photos.
    /// `clips`: clips too; else photos only.
    public static func search(albumID: String? = nil, personID: String? = nil, favourites: Bool = false, clips: Bool = false, page: Int) -> [UInt8] {
        var body: JSONObject = [:]
        if let albumID { body.append("albumIds", .array([.string(albumID)])) }
        if let personID { body.append("personIds", .array([.string(personID)])) }
        if favourites { body.append("isFavorite", .bool(true)) }
        if !clips { body.append("type", .string(ImmichAsset.Kind.image.rawValue)) }
        body.append("withExif", .bool(true))
        body.append("withPeople", .bool(true))
        body.append("page", .int(page))
        body.append("size", .int(pageSize))
        return Array(body.line.dropLast())
    }

    /// `POST api/search/random`: `count` photos of the whole library.
    public static func random(count: Int, clips: Bool = false) -> [UInt8] {
        var body: JSONObject = ["size": .int(count)]
        if !clips { body.append("type", .string(ImmichAsset.Kind.image.rawValue)) }
        body.append("withExif", .bool(true))
        body.append("withPeople", .bool(true))
        return Array(body.line.dropLast())
    }

    /// Settings' names (or ids) matched to the server's: an id as it is, a
    /// name exactly, else without regard to case. Names that match nothing
    /// are returned apart, for the log.
    public static func resolve(_ wanted: [String], among known: [(id: String, name: String)]) -> (ids: [String], unknown: [String]) {
        var ids: [String] = [], unknown: [String] = []
        for name in wanted {
            if let match = known.first(where: { $0.id == name || $0.name == name }) ?? known.first(where: { $0.name.lowercased() == name.lowercased() }) {
                if !ids.contains(match.id) { ids.append(match.id) }
            } else {
                unknown.append(name)
            }
        }
        return (ids, unknown)
    }
}

/// A file the mirror keeps of an Immich asset.
public enum ImmichFile: Hashable, Sendable {
    /// The photo, at a size.
    case picture(ImmichPictureSize)
    /// A clip, as Immich plays it back (its transcode, or the original where none was needed).
    case clip
    /// A Live Photo's movie (its `livePhotoVideoId`'s asset), as Immich plays it back.
    case motion
}

extension ImmichAsset {
    /// A preview's size, for the cache's bounds before it is fetched: about
    /// what a 1440-pixel JPEG of a photo takes.
    public static let previewEstimate: Int64 = 400_000
    /// A Live Photo's movie: some three seconds of video.
    public static let motionEstimate: Int64 = 3_000_000

    /// The asset's `file` as the mirror keeps it: its name there, and its
    /// version (its checksum, its last change and what was fetched, so a
    /// change of size fetches again). Nil for a name the mirror cannot hold.
    public func remoteFile(_ file: ImmichFile) -> RemoteFile? {
        guard let path = try? RemotePath(path: "/" + mirrorName(file), base: "/") else { return nil }
        let bytes: Int64
        let what: String
        switch file {
        case .picture(.preview): (bytes, what) = (Self.previewEstimate, "preview")
        case .picture(.original): (bytes, what) = (fileSize ?? 0, "original")
        case .clip: (bytes, what) = (0, "clip")
        case .motion: (bytes, what) = (Self.motionEstimate, "motion")
        }
        return RemoteFile(path: path, version: FileVersion(etag: "\(checksum) \(updatedAt) \(what)", size: bytes))
    }

    /// The API's path that fetches `file` (under the server's address); nil for a motion without a movie.
    public func fetchPath(_ file: ImmichFile) -> String? {
        switch file {
        case .picture(.preview): "api/assets/\(id)/thumbnail?size=preview"
        case .picture(.original): "api/assets/\(id)/original"
        case .clip: "api/assets/\(id)/video/playback"
        case .motion: livePhotoVideoId.map { "api/assets/\($0)/video/playback" }
        }
    }
}
