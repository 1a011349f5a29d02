/// iPhone Live Photos: a still (HEIC or JPEG) and a QuickTime movie in the
/// same folder that carry the same content identifier (the still's Apple
/// makernote tag 17, the movie's `com.apple.quicktime.content.identifier`;
/// exiftool calls both `ContentIdentifier`, immich pairs on it). Paired,
/// they make one slot: the still, whose movie plays as its motion; the
/// movie is never shown as a clip of its own. A movie whose still is gone
/// is a clip again.
///
/// Several stills or movies with one identifier (copies, edits) pair by
/// file name: the same base name first (`IMG_0042.HEIC` with
/// `IMG_0042.MOV`), then in name order; the rest stay alone. Identifiers
/// compare without regard to case. Pure: the folder's thread reads the
/// identifiers and tells this what it found.
public struct LivePhotoPairs: Equatable, Sendable {
    private struct Key: Hashable {
        let directory: Substring
        let identifier: String
    }

    private var stills: [Key: Set<String>] = [:]
    private var movies: [Key: Set<String>] = [:]
    private var keyOf: [String: Key] = [:]
    /// Each paired still's movie, and each paired movie's still.
    public private(set) var movieOf: [String: String] = [:]
    public private(set) var stillOf: [String: String] = [:]

    public init() {}

    /// A still at `path` says `identifier`.
    public mutating func add(still path: String, identifier: String) { add(path, identifier, to: \.stills) }

    /// A movie at `path` says `identifier`.
    public mutating func add(movie path: String, identifier: String) { add(path, identifier, to: \.movies) }

    /// True for a movie added (paired or not).
    public func isMovie(_ path: String) -> Bool { keyOf[path].map { movies[$0]?.contains(path) == true } ?? false }

    /// The file at `path` left the folder (or was rewritten: add it again).
    public mutating func remove(_ path: String) {
        guard let key = keyOf.removeValue(forKey: path) else { return }
        if let movie = movieOf.removeValue(forKey: path) { stillOf[movie] = nil }
        if let still = stillOf.removeValue(forKey: path) { movieOf[still] = nil }
        stills[key]?.remove(path)
        movies[key]?.remove(path)
        pair(key)
    }

    private mutating func add(_ path: String, _ identifier: String, to side: WritableKeyPath<LivePhotoPairs, [Key: Set<String>]>) {
        let trimmed = identifier.trimmingWhitespace().uppercased()
        guard !trimmed.isEmpty else { return }
        remove(path)
        let key = Key(directory: Self.directory(of: path), identifier: trimmed)
        keyOf[path] = key
        self[keyPath: side][key, default: []].insert(path)
        pair(key)
    }

    /// Pairs the stills and movies of one identifier in one folder again.
    private mutating func pair(_ key: Key) {
        let stillsHere = (stills[key] ?? []).sorted(by: naturalOrder), moviesHere = (movies[key] ?? []).sorted(by: naturalOrder)
        for still in stills[key] ?? [] { if let movie = movieOf.removeValue(forKey: still) { stillOf[movie] = nil } }
        for movie in movies[key] ?? [] { if let still = stillOf.removeValue(forKey: movie) { movieOf[still] = nil } }
        var free = moviesHere
        func take(_ still: String, _ movie: String) {
            movieOf[still] = movie
            stillOf[movie] = still
            free.removeAll { $0 == movie }
        }
        var unpaired: [String] = []
        for still in stillsHere {
            if let same = free.first(where: { Self.baseName($0) == Self.baseName(still) }) { take(still, same) } else { unpaired.append(still) }
        }
        for still in unpaired {
            guard let movie = free.first else { break }
            take(still, movie)
        }
        if stills[key]?.isEmpty == true { stills[key] = nil }
        if movies[key]?.isEmpty == true { movies[key] = nil }
    }

    /// The folder of `path`, without its trailing slash.
    static func directory(of path: String) -> Substring {
        path.lastIndex(of: "/").map { path[..<$0] } ?? ""
    }

    /// The file's name without its folder and its extension, in capitals.
    private static func baseName(_ path: String) -> String {
        let name = path.lastIndex(of: "/").map { path[path.index(after: $0)...] } ?? Substring(path)
        return String(name.lastIndex(of: ".").map { name[..<$0] } ?? name).uppercased()
    }

    private func naturalOrder(_ a: String, _ b: String) -> Bool { NaturalOrder.precedes(path: a, b) }
}
