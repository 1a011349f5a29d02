/// The folder's pictures as the playlist shows them, iPhone Live Photos
/// paired (``LivePhotoPairs``): a paired movie is left out, and its still's
/// entry carries it (``PlaylistEntry/companion``). The folder's thread
/// passes every listing and every batch of changes through here, with the
/// side and identifier of each file it read (``Side``); files it gives no
/// side pass through as they are.
///
/// A change can alter files it does not name: a movie that arrives hides
/// itself and gives its still a companion; a still that leaves makes its
/// movie a clip again. Those files are in the change given back (the still
/// added again, the movie removed or added). Pure: the reading is the caller's.
public struct LivePhotoFolder: Sendable {
    /// A file's part in a Live Photo, with its content identifier.
    public enum Side: Equatable, Sendable {
        case still(String)
        case movie(String)
    }

    private var pairs = LivePhotoPairs()
    /// The files with a side, as listed (without a companion): what is sent again when a pairing changes.
    private var known: [String: PlaylistEntry] = [:]
    /// Folders holding a movie with an identifier: only their stills are worth reading.
    private var movieFolders: [Substring: Int] = [:]

    public init() {}

    /// True when the folder `directory` (a path without its trailing
    /// slash) holds a movie with an identifier: its stills may pair.
    public func hasMovies(in directory: String) -> Bool { movieFolders[Substring(directory), default: 0] > 0 }

    /// A whole listing (sorted): the playlist's entries, in the same order.
    public mutating func listing(_ entries: [PlaylistEntry], sides: [String: Side]) -> [PlaylistEntry] {
        self = LivePhotoFolder()
        for entry in entries { if let side = sides[entry.path] { add(entry, side) } }
        return entries.compactMap(shown)
    }

    /// A batch of changes, as the playlist is to take it.
    public mutating func change(_ change: PlaylistChange, sides: [String: Side]) -> PlaylistChange {
        let (movieBefore, stillBefore) = (pairs.movieOf, pairs.stillOf)
        let named = Set(change.removed).union(change.added.map(\.path))
        for path in named { forget(path) }
        for entry in change.added { if let side = sides[entry.path] { add(entry, side) } }

        let arriving = Set(change.added.map(\.path))
        var result = PlaylistChange(removed: change.removed.filter { !arriving.contains($0) })
        for entry in change.added {
            if let shown = shown(entry) { result.added.append(shown) } else { result.removed.append(entry.path) }
        }
        // Stills whose movie changed are sent again with the new one.
        for still in Set(movieBefore.keys).union(pairs.movieOf.keys) where !named.contains(still) && movieBefore[still] != pairs.movieOf[still] {
            if let entry = known[still], let shown = shown(entry) { result.added.append(shown) }
        }
        // Movies paired now leave the playlist; those alone again join it as clips.
        for movie in Set(stillBefore.keys).union(pairs.stillOf.keys) where !named.contains(movie) && (stillBefore[movie] == nil) != (pairs.stillOf[movie] == nil) {
            if pairs.stillOf[movie] != nil { result.removed.append(movie) } else if let entry = known[movie] { result.added.append(entry) }
        }
        return result
    }

    /// Everything under `prefix` (a folder that left, ending in `/`) is forgotten, without news.
    public mutating func forget(under prefix: String) {
        for path in known.keys where path.hasPrefix(prefix) { forget(path) }
    }

    /// The entry the playlist shows for `entry`: nil for a paired movie, a still with its movie.
    private func shown(_ entry: PlaylistEntry) -> PlaylistEntry? {
        if pairs.stillOf[entry.path] != nil { return nil }
        var shown = entry
        shown.companion = pairs.movieOf[entry.path]
        return shown
    }

    private mutating func add(_ entry: PlaylistEntry, _ side: Side) {
        var plain = entry
        plain.companion = nil
        known[entry.path] = plain
        switch side {
        case .still(let identifier): pairs.add(still: entry.path, identifier: identifier)
        case .movie(let identifier):
            pairs.add(movie: entry.path, identifier: identifier)
            if pairs.isMovie(entry.path) { movieFolders[LivePhotoPairs.directory(of: entry.path), default: 0] += 1 }
        }
    }

    private mutating func forget(_ path: String) {
        guard known.removeValue(forKey: path) != nil else { return }
        if pairs.isMovie(path) {
            let folder = LivePhotoPairs.directory(of: path)
            movieFolders[folder, default: 1] -= 1
            if movieFolders[folder] == 0 { movieFolders[folder] = nil }
        }
        pairs.remove(path)
    }
}
