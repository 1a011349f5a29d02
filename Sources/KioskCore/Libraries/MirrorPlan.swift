/// What tells whether a file changed: its ETag and its size (a server that
/// keeps an ETag across a rewrite still changes the size). Files are
/// compared, never folders: Apache's mod_dav does not change a folder's
/// ETag when a file in it changes. The cache's index keeps each file's
/// version as it was fetched.
public struct FileVersion: Hashable, Sendable {
    public var etag: String?
    public var size: Int64

    public init(etag: String?, size: Int64) {
        self.etag = etag
        self.size = size
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
