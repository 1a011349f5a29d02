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
    /// A server library's own counts (what it lists, what is on disk);
    /// nil for a folder, whose pictures are counted in the playlist.
    public var counts: (listed: Int, cached: Int)?

    public static func == (a: LibraryStatus, b: LibraryStatus) -> Bool {
        a.kind == b.kind && a.source == b.source && a.state == b.state && a.since == b.since && a.scope == b.scope
            && a.counts?.listed == b.counts?.listed && a.counts?.cached == b.counts?.cached
    }

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

    /// Its object in `libraries`: a server's own counts, else (a folder)
    /// its pictures in `playlist` (every one when it is the only library),
    /// all of them on disk.
    public func object(in playlist: Playlist, alone: Bool) -> JSONValue {
        if let counts { return object(assets: counts.listed, cached: counts.cached) }
        let assets = assets(in: playlist, alone: alone)
        return object(assets: assets, cached: assets)
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

/// What a server library tells the show about itself as it changes: its
/// state, why (for the log: `unreachable: Could not connect to server`),
/// how many pictures the server lists, and how many are in the cache.
public struct LibraryReport: Equatable, Sendable {
    public var state: LibraryState
    /// Why it is offline or refused; nil when online.
    public var reason: String?
    /// The pictures the server lists (the last time it answered).
    public var listed: Int
    /// The pictures on this machine's disk, shown offline too.
    public var cached: Int
    /// Lines for the log since the last report (entries passed over, files too large, a full disk).
    public var notes: [String]

    public init(state: LibraryState, reason: String? = nil, listed: Int, cached: Int, notes: [String] = []) {
        self.state = state
        self.reason = reason
        self.listed = listed
        self.cached = cached
        self.notes = notes
    }
}
