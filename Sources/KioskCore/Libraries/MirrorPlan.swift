/// What tells whether a file changed: its ETag and its size (a server that
/// keeps an ETag across a rewrite still changes the size). Files are
/// compared, never folders: Apache's mod_dav does not change a folder's
/// ETag when a file in it changes. The cache's index keeps each file's
/// version as it was fetched.
///
/// The ETag is kept as its 64-bit FNV-1a hash: a library of 100,000 files
/// keeps 100,000 versions, and an ETag (`"4d2f1-5f3c2d1e6a8c0"`) is too
/// long to be stored inside a Swift string. Two ETags of one file that hash
/// alike and a size that stays too would hide a change; at 2⁻⁶⁴ a pair, that is never.
public struct FileVersion: Hashable, Sendable {
    /// The ETag's hash; nil when the server gave none (or an empty one).
    public var etagHash: UInt64?
    public var size: Int64

    public init(etag: String?, size: Int64) {
        etagHash = etag.flatMap { $0.isEmpty ? nil : Self.hash($0) }
        self.size = size
    }

    public init(etagHash: UInt64?, size: Int64) {
        self.etagHash = etagHash
        self.size = size
    }

    /// FNV-1a, 64 bits, over the ETag's bytes: the same in every process (Swift's `Hasher` is seeded anew in each).
    static func hash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }
}

/// A file as a server lists it: where it goes in the cache, and its version.
public struct RemoteFile: Hashable, Sendable {
    public var path: RemotePath
    public var version: FileVersion

    public init(path: RemotePath, version: FileVersion) {
        self.path = path
        self.version = version
    }
}

/// What a poll of a server means for the library's cache: which files to
/// fetch (new, or changed since they were fetched), in the order the show
/// plays them (``NaturalOrder``, as a folder's names), and which cached
/// files to delete (gone from the server, or no longer within the cache's
/// bounds). Pure: the listing and the cache's index in, the plan out.
///
/// The cache holds what fits within `maxItems` files and `maxBytes` bytes,
/// taken in the show's order: a library larger than the cache shows its
/// first files. A file larger than ``largestFile`` (or the whole cache) is
/// never fetched: a "photo" of 2 GB is a mistake or an attack, and is
/// named in ``tooLarge`` for the log.
public struct MirrorPlan: Equatable, Sendable {
    /// The largest file fetched: 256 MB, above any photo or phone clip's preview.
    public static let largestFile: Int64 = 256 << 20

    /// Files to fetch, in the show's order.
    public var fetch: [RemoteFile] = []
    /// Cached files to delete (their relative paths), in the show's order.
    public var delete: [String] = []
    /// Files listed and kept within the bounds (fetched or to be).
    public var kept = 0
    /// Files listed that are past the cache's bounds.
    public var beyondBounds = 0
    /// Files too large to fetch.
    public var tooLarge: [RemoteFile] = []

    /// `cached`: the version of each file in the cache, by its relative path.
    public init(listed: [RemoteFile], cached: [String: FileVersion], maxBytes: Int64, maxItems: Int) {
        let largest = min(Self.largestFile, maxBytes)
        var keeping: Set<String> = []
        var bytes: Int64 = 0
        for file in listed.sorted(by: { NaturalOrder.precedes(path: $0.path.relative, $1.path.relative) }) {
            let size = file.version.size
            guard size <= largest, size >= 0 else {
                tooLarge.append(file)
                continue
            }
            guard keeping.count < maxItems, bytes + size <= maxBytes else {
                beyondBounds += 1
                continue
            }
            let relative = file.path.relative
            guard keeping.insert(relative).inserted else { continue }
            bytes += size
            if cached[relative] != file.version { fetch.append(file) }
        }
        kept = keeping.count
        delete = cached.keys.filter { !keeping.contains($0) }.sorted { NaturalOrder.precedes(path: $0, $1) }
    }
}
