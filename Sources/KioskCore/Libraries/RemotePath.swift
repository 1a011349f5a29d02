/// Where a server's file is kept in the library's cache: its path under
/// the library's address, made safe to be a path on this machine's disk.
///
/// A server names its files in its answers (a WebDAV `href`, an Immich
/// asset's `originalFileName`), and a hostile or broken one can name
/// anything: `../../etc/passwd`, `%2e%2e%2f`, a slash inside a name, a NUL,
/// a name of 10,000 bytes. Only what is left after these rules is ever
/// joined to the cache's folder, so nothing a server says can write
/// outside it:
/// - the href's percent escapes are decoded once, before (an invalid
///   escape, or bytes that are not UTF-8, refuse the name there); a whole
///   URL counts by its path;
/// - it must lie under the library's own path (its `base`);
/// - what follows is split at `/`: an empty part (`a//b`), `.` and `..` are
///   refused, and so is a part that begins with `.` (hidden: kioskd's
///   own temporaries are hidden files, and the live folder never shows
///   one), that holds a control character (a NUL, a newline), or that is longer than ``longestName`` bytes;
/// - at most ``deepest`` folders deep.
public struct RemotePath: Hashable, Sendable, CustomStringConvertible {
    /// The longest name a part may have, in bytes (ext4's and most file systems' limit).
    public static let longestName = 255
    /// The most parts (folders and the file).
    public static let deepest = 32

    /// The folders and the file's name, in order; never empty.
    public let parts: [String]

    /// The path under the cache's folder: `2024/summer/IMG_0001.jpg`.
    public var relative: String { parts.joined(separator: "/") }
    public var description: String { relative }
    /// The file's own name (its last part).
    public var name: String { parts[parts.count - 1] }

    /// Why a name is refused, for the log.
    public enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        case outsideTheLibrary, unsafePart(String), tooLong, tooDeep, empty

        public var description: String {
            switch self {
            case .outsideTheLibrary: "a path outside the library's own"
            case .unsafePart(let part): "a part that cannot be a file's name here (\(part.debugDescription))"
            case .tooLong: "a name longer than \(RemotePath.longestName) bytes"
            case .tooDeep: "more than \(RemotePath.deepest) folders deep"
            case .empty: "no name"
            }
        }
    }

    /// The path of a file under `base`: both decoded (the `href`'s percent
    /// escapes undone once, by the HTTP library: ``HTTPClient``'s
    /// `decodedPath(of:)`), `base` the library's own path, such as
    /// `/remote.php/dav/files/anna/Photos/`.
    public init(path decoded: String, base decodedBase: String) throws(Refusal) {
        let prefix = decodedBase.hasSuffix("/") ? decodedBase : decodedBase + "/"
        guard decoded.hasPrefix(prefix) else { throw .outsideTheLibrary }
        var rest = Substring(decoded.dropFirst(prefix.count))
        // A folder's href ends in a slash.
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty else { throw .empty }
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= Self.deepest else { throw .tooDeep }
        for part in parts {
            guard !part.isEmpty, !part.hasPrefix("."), !part.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { throw .unsafePart(part) }
            guard part.utf8.count <= Self.longestName else { throw .tooLong }
        }
        self.parts = parts
    }
}
