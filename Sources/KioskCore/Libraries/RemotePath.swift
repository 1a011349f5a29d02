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

    /// The path under the cache's folder: `2024/summer/IMG_0001.jpg`.
    /// Kept as one string (a library of 100,000 files keeps 100,000 of them).
    public let relative: String
    public var description: String { relative }
    /// The folders and the file's name, in order; never empty.
    public var parts: [String] { relative.split(separator: "/").map(String.init) }
    /// The file's own name (its last part).
    public var name: Substring {
        guard let slash = relative.utf8.lastIndex(of: UInt8(ascii: "/")) else { return relative[...] }
        return relative[relative.utf8.index(after: slash)...]
    }
    /// Whether it lies in a folder (rather than at the top of the library).
    public var isInFolder: Bool { relative.utf8.contains(UInt8(ascii: "/")) }

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
        // Compared as bytes: a path is the bytes the server named, not text to be normalised.
        let slash = UInt8(ascii: "/")
        let baseBytes = decodedBase.utf8
        let prefixLength = baseBytes.count + (baseBytes.last == slash ? 0 : 1)
        let bytes = decoded.utf8
        guard bytes.count >= prefixLength, bytes.starts(with: baseBytes),
              baseBytes.last == slash || bytes[bytes.index(bytes.startIndex, offsetBy: baseBytes.count)] == slash else {
            throw .outsideTheLibrary
        }
        var rest = bytes.dropFirst(prefixLength)
        // A folder's href ends in a slash.
        if rest.last == slash { rest = rest.dropLast() }
        guard !rest.isEmpty else { throw .empty }
        var count = 0
        for part in rest.split(separator: slash, omittingEmptySubsequences: false) {
            count += 1
            guard count <= Self.deepest else { throw .tooDeep }
            guard let first = part.first, first != UInt8(ascii: "."), !part.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
                throw .unsafePart(String(decoding: part, as: UTF8.self))
            }
            guard part.count <= Self.longestName else { throw .tooLong }
        }
        relative = String(Substring(rest))
    }
}
