/// The `[immich]` table: an Immich server whose chosen photos join the show,
/// mirrored into the cache (``LibraryCacheSettings``) as a WebDAV folder's
/// are. No `url` (the default) means none.
///
/// What is shown is the union of what is chosen: each album in `albums`,
/// each person in `people`, the favourites, today's memories ("on this
/// day" in earlier years), and `random` photos drawn anew at each poll.
/// Choosing nothing is an error, not "the whole library": a library of
/// 100,000 photos would fill the cache with its oldest.
public struct ImmichSettings: Hashable, Sendable {
    /// The server's address (the web page's, without `/api`); nil: no Immich library.
    public var url: ServerAddress? = nil
    /// A file whose first line is an API key (Immich: Account Settings, API Keys); a bare name is a systemd credential.
    public var apiKeyFile: String? = nil
    /// Albums by their names as Immich shows them, or by their ids.
    public var albums: [String] = []
    /// People by their names as Immich shows them, or by their ids.
    public var people: [String] = []
    public var favourites = false
    public var memories = false
    /// How many random photos each poll draws from the whole library; 0: none.
    public var random = 0
    /// Seconds between polls.
    public var poll: Double = 300
    public var caFile: String? = nil

    /// The most random photos a poll draws: Immich's own limit for one search.
    public static let mostRandom = 1000

    public init() {}

    /// Whether anything is chosen.
    public var choosesAny: Bool { !albums.isEmpty || !people.isEmpty || favourites || memories || random > 0 }

    /// What the table's settings together say is wrong, for the log at start and on reload.
    public var problem: String? {
        guard let url else {
            return apiKeyFile != nil || caFile != nil || choosesAny ? "immich.api_key_file, ca_file and what to show need immich.url" : nil
        }
        if apiKeyFile == nil { return "immich.url needs immich.api_key_file: a file holding an API key made in Immich (Account Settings, API Keys)" }
        if !url.usesTLS, caFile != nil { return "immich.ca_file is for https:// servers; \(url) is plain http" }
        if !choosesAny {
            return "immich chooses no photos: give albums = [\"...\"], people = [\"...\"], favourites = true, memories = true or random = 50"
        }
        return nil
    }
}

/// Which of Immich's sizes of a photo the mirror holds: its `preview`
/// (1440 pixels on the longer side by default, a JPEG or WebP), or the
/// original, for a screen whose slot is larger than the preview. Clips are
/// always fetched through the playback endpoint (Immich's transcode).
public enum ImmichPictureSize: String, Hashable, Sendable {
    case preview, original

    /// Immich's preview's longer side, by default.
    public static let previewSide = 1440

    /// The preview, unless the panel's longer side is more than a third
    /// larger than it (above 1920: a 2560x1440 or 4K screen), where a
    /// preview stretched to the slot would look soft.
    public static func choose(forPanel panel: PixelSize?) -> ImmichPictureSize {
        guard let panel else { return .preview }
        return max(panel.width, panel.height) * 3 > previewSide * 4 ? .original : .preview
    }
}

extension SettingFormat where Value == [String] {
    /// `immich.albums`, `immich.people`: names (or ids), as a list, or separated by commas from a flag.
    static func immichNames(example: String) -> Self {
        SettingFormat(read: { value in
            guard let names = value.names, names.allSatisfy({ !$0.isEmpty && !$0.contains("\0") && $0.utf8.count <= 1024 }) else {
                throw SettingProblem("expected a list of names or ids, e.g. [\"\(example)\"]")
            }
            return names
        }, write: { .list($0.map(SettingValue.string)) })
    }
}

extension SettingFormat where Value == Int {
    /// `immich.random`: 0 to ``ImmichSettings/mostRandom``.
    static var immichRandom: Self {
        SettingFormat(read: { value in
            guard case .integer(let count) = value, (0...ImmichSettings.mostRandom).contains(count) else {
                throw SettingProblem("expected how many random photos each poll shows, from 0 (none) to \(ImmichSettings.mostRandom), e.g. 50")
            }
            return count
        }, write: { .integer($0) })
    }
}
