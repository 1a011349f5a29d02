/// The `[webdav]` table: a WebDAV server's folder (Nextcloud, ownCloud, a
/// NAS, Apache's mod_dav) whose pictures join the show, mirrored into the
/// cache (``LibraryCacheSettings``). No `url` (the default) means none.
///
/// One server of each kind for now. Several would be written as TOML arrays
/// of tables (`[[webdav]]`), each with its own mirror folder; the show
/// already takes any number of libraries.
public struct WebDAVSettings: Hashable, Sendable {
    /// The folder on the server; nil: no WebDAV library.
    public var url: ServerAddress? = nil
    public var username: String? = nil
    /// A file whose first line is the password; a bare name is a systemd
    /// credential (`LoadCredential=`), as `mqtt.password_file`'s.
    public var passwordFile: String? = nil
    /// Seconds between polls of the server.
    public var poll: Double = 300
    /// Certificates an https server's must chain to (PEM); nil: the system's.
    public var caFile: String? = nil

    /// The shortest poll: each poll walks the whole folder.
    public static let shortestPoll = 10.0

    public init() {}

    /// What the table's settings together say is wrong, for the log at
    /// start and on reload (each reads fine on its own).
    public var problem: String? {
        guard let url else {
            return username != nil || passwordFile != nil || caFile != nil ? "webdav.username, password_file and ca_file need webdav.url" : nil
        }
        if !url.usesTLS, caFile != nil { return "webdav.ca_file is for https:// servers; \(url) is plain http" }
        if passwordFile != nil, username == nil { return "webdav.password_file is given without webdav.username" }
        return nil
    }
}

/// The disk cache that server libraries are mirrored into (under
/// `state_dir`): bounded by bytes (`cache_max`) and by count
/// (`cache_items`), with defaults for an SD card. A library larger than the
/// cache shows its first pictures, in the show's order.
public struct LibraryCacheSettings: Hashable, Sendable {
    public var maxBytes: Int64 = 1_000_000_000
    public var maxItems = 10_000

    public init() {}
}

/// A server's address as the settings give it: `http://` or `https://`, a
/// host (and port), and a folder's path (ending in `/`, added when it is
/// missing). Credentials are never part of it (they come from files), so it
/// can be logged and shown in `status` as it is.
public struct ServerAddress: Hashable, Sendable, CustomStringConvertible {
    /// `https://host:port`, without the path.
    public let origin: String
    /// The folder's path as written (percent escapes kept), ending in `/`.
    public let path: String

    public var description: String { origin + path }
    public var usesTLS: Bool { origin.hasPrefix("https://") }

    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        case scheme, credentials, noHost, queryOrFragment, controlCharacter
        public var description: String {
            switch self {
            case .scheme: "expected an http:// or https:// address, e.g. \"https://cloud.example/remote.php/dav/files/kiosk/Photos/\""
            case .credentials: "the address must not hold a user name or password: give username and password_file"
            case .noHost: "the address names no host"
            case .queryOrFragment: "the address must name a folder, without ? or #"
            case .controlCharacter: "the address holds a space or a control character (write a space as %20)"
            }
        }
    }

    public init(parsing text: String) throws(Problem) {
        let lower = text.lowercased()
        let schemeLength = lower.hasPrefix("https://") ? 8 : lower.hasPrefix("http://") ? 7 : 0
        guard schemeLength > 0 else { throw .scheme }
        guard !text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { throw .controlCharacter }
        guard !text.contains("?"), !text.contains("#") else { throw .queryOrFragment }
        let rest = text.dropFirst(schemeLength)
        let authority = rest.prefix { $0 != "/" }
        guard !authority.contains("@") else { throw .credentials }
        guard !authority.isEmpty, !authority.hasPrefix(":") else { throw .noHost }
        origin = String(lower.prefix(schemeLength) + authority)
        let path = String(rest.dropFirst(authority.count))
        self.path = path.isEmpty ? "/" : path.hasSuffix("/") ? path : path + "/"
    }
}

extension SettingFormat where Value == ServerAddress? {
    /// `webdav.url`: an http(s) folder's address, or `"none"` (nil).
    static var serverAddress: Self {
        SettingFormat(read: { value in
            guard case .string(let text) = value else {
                throw SettingProblem("expected \"none\" or an address like \"https://cloud.example/remote.php/dav/files/kiosk/Photos/\"")
            }
            if text == "none" { return nil }
            do throws(ServerAddress.Problem) { return try ServerAddress(parsing: text) } catch { throw SettingProblem(error.description) }
        }, write: { .string($0?.description ?? "none") })
    }
}

extension SettingFormat where Value == Double {
    /// `webdav.poll`: a time written as `idle_off`'s is, from 10 s to a day.
    static var pollInterval: Self {
        let problem = "expected a time like \"5m\", \"30s\" or \"1h\" (10 seconds to 24 hours)"
        return SettingFormat(read: { value in
            guard let seconds = try? SettingFormat<Double?>.duration.read(value), seconds >= WebDAVSettings.shortestPoll else {
                throw SettingProblem(problem)
            }
            return seconds
        }, write: { SettingFormat<Double?>.duration.write($0) })
    }
}

extension SettingFormat where Value == Int64 {
    /// `cache_max`: bytes, as a number or with a unit, `"500MB"`, `"2GB"`
    /// (KB, MB, GB, TB are powers of 1000, as a card's size is printed;
    /// KiB, MiB, GiB, TiB powers of 1024), from 1 MB to 64 TB.
    static var byteSize: Self {
        SettingFormat(read: { value in
            let size: Int64?
            switch value {
            case .integer(let bytes): size = Int64(bytes)
            case .string(let text): size = ByteSizeText.bytes(in: text)
            default: size = nil
            }
            guard let size, ByteSizeText.range.contains(size) else {
                throw SettingProblem("expected a size like \"1GB\", \"500MB\" or \"2GiB\" (1 MB to 64 TB)")
            }
            return size
        }, write: { .string(ByteSizeText.written($0)) })
    }
}

extension SettingFormat where Value == Int {
    /// `cache_items`: how many files the cache holds, 1 to 1,000,000.
    static var cacheItems: Self { .count(1...1_000_000, "expected how many files the cache holds, from 1 to 1000000, e.g. 10000") }

    /// A whole number within `range`; `problem` says what is expected otherwise.
    static func count(_ range: ClosedRange<Int>, _ problem: String) -> Self {
        SettingFormat(read: { value in
            guard case .integer(let count) = value, range.contains(count) else { throw SettingProblem(problem) }
            return count
        }, write: { .integer($0) })
    }
}

/// A size as an operator writes it: `"1GB"`, `"500MB"`, `"2GiB"`, or bare bytes.
public enum ByteSizeText {
    public static let range: ClosedRange<Int64> = 1_000_000...64_000_000_000_000

    private static let units: [(suffix: String, scale: Double)] = [
        ("KiB", 1024), ("MiB", 1_048_576), ("GiB", 1_073_741_824), ("TiB", 1_099_511_627_776),
        ("KB", 1e3), ("MB", 1e6), ("GB", 1e9), ("TB", 1e12), ("B", 1),
    ]

    /// The bytes `text` says, or nil when it is not a size.
    public static func bytes(in text: String) -> Int64? {
        let trimmed = text.trimmingSpaces
        let unit = units.first { trimmed.uppercased().hasSuffix($0.suffix.uppercased()) }
        let number = unit.map { String(trimmed.dropLast($0.suffix.count)).trimmingSpaces } ?? trimmed
        guard let value = Double(number), value.isFinite, value >= 0 else { return nil }
        let bytes = value * (unit?.scale ?? 1)
        guard bytes < 9e18 else { return nil }
        return Int64(bytes.rounded())
    }

    /// `size` in the largest unit of 1000 that writes it whole (`"1GB"`), else in bytes.
    public static func written(_ size: Int64) -> String {
        for (suffix, scale) in [("TB", Int64(1_000_000_000_000)), ("GB", 1_000_000_000), ("MB", 1_000_000), ("KB", 1000)]
        where size % scale == 0 {
            return "\(size / scale)\(suffix)"
        }
        return "\(size)"
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
