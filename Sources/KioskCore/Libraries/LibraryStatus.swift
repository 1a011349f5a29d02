/// Where a show's pictures come from: each library lists its pictures
/// under ids that begin with its ``LibraryStatus/scope``, and tells the
/// show what changed. The picture folder is the first kind; the kinds a
/// server holds (`webdav`, `immich`) are named here so that `status` and
/// MQTT's state keep one shape as they arrive.
public enum LibraryKind: String, Sendable, CaseIterable {
    case folder, webdav, immich
}

/// Whether a library can be read now.
/// - `online`: it answers (the folder is there).
/// - `offline`: it does not (the folder is gone: unmounted, moved, deleted;
///   a server that does not answer). Its pictures leave the show, or, for
///   a server, those cached stay.
/// - `refused`: it answers, but says no (wrong credentials, a certificate
///   that is not trusted); it is asked again after a backoff.
public enum LibraryState: String, Sendable, CaseIterable {
    case online, offline, refused
}

/// One library as `status` and MQTT's state report it (the `libraries`
/// array, one object per library, in the order the settings name them).
/// Keys: `kind`, `source` (the folder's path, or the server's address
/// without credentials), `state`, `since` (Unix time of the last change of
/// state, or of the start), `assets` (the pictures it lists in the
/// playlist) and `cached` (how many of them are on this machine's disk:
/// all of a folder's).
public struct LibraryStatus: Equatable, Sendable {
    public var kind: LibraryKind
    public var source: String
    public var state: LibraryState
    /// Unix time, in seconds.
    public var since: Int64
    /// The beginning of every id this library gives its pictures: a folder's
    /// path with a `/` after it. No two libraries' scopes begin one another.
    public var scope: String

    public init(kind: LibraryKind, source: String, state: LibraryState, since: Int64, scope: String) {
        self.kind = kind
        self.source = source
        self.state = state
        self.since = since
        self.scope = scope
    }

    /// The ids a folder at `path` gives its pictures begin with this.
    public static func scope(ofFolder path: String) -> String { path.hasSuffix("/") ? path : path + "/" }

    /// Moves to `state` at `now` (Unix seconds); false when it was in it already (`since` stays).
    public mutating func change(to state: LibraryState, at now: Int64) -> Bool {
        guard state != self.state else { return false }
        self.state = state
        since = now
        return true
    }

    /// Its pictures in `playlist`: every one when it is the only library
    /// (no walk), else those within its scope.
    public func assets(in playlist: Playlist, alone: Bool) -> Int {
        alone ? playlist.count : playlist.files.reduce(0) { $0 + ($1.hasPrefix(scope) ? 1 : 0) }
    }

    /// Its object in `libraries`; `assets` counted in the playlist, `cached` those on disk.
    public func object(assets: Int, cached: Int) -> JSONValue {
        .object([
            "kind": .string(kind.rawValue),
            "source": .string(source),
            "state": .string(state.rawValue),
            "since": .int(Int(since)),
            "assets": .int(assets),
            "cached": .int(cached),
        ])
    }
}
