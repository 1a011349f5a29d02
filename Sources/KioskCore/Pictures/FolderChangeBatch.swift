/// Changes to the picture folder gathered into batches, so a thousand
/// files copied in arrive at the show as a handful of playlist changes,
/// each shown with one animation.
///
/// A batch goes out once nothing has happened in the folder for
/// ``quietTime``, or ``longestBatch`` after its first change, however busy
/// the folder is. Within a batch a file counts once: it arrived (the last
/// version of it), or it left; one that arrives and leaves again left.
public struct FolderChangeBatch: Sendable {
    /// A batch goes out once nothing happened for this long...
    public static let quietTime = 0.1
    /// ... or this long after its first change, however busy the folder is.
    public static let longestBatch = 0.5

    /// What the batch holds so far.
    public private(set) var change = PlaylistChange()
    /// When its first change came; nil while it holds none.
    private var since: Double?
    /// When anything last happened in the folder (a change or not).
    public private(set) var lastEvent = 0.0

    public init() {}

    /// Something happened in the folder at `time`: the quiet time starts again.
    public mutating func event(at time: Double) { lastEvent = time }

    /// A picture arrived or was rewritten.
    public mutating func added(_ entry: PlaylistEntry, at time: Double) {
        change.removed.removeAll { $0 == entry.path }
        change.added.removeAll { $0.path == entry.path }
        change.added.append(entry)
        if since == nil { since = time }
    }

    /// A picture left.
    public mutating func removed(_ path: String, at time: Double) {
        change.added.removeAll { $0.path == path }
        change.removed.append(path)
        if since == nil { since = time }
    }

    /// A subfolder left (`prefix` ends in `/`): what the batch holds under it goes with it.
    public mutating func forget(under prefix: String) {
        change.added.removeAll { $0.path.hasPrefix(prefix) }
        change.removed.removeAll { $0.hasPrefix(prefix) }
    }

    /// When the batch is due to go out; nil while it holds nothing.
    public var due: Double? { since.map { min(lastEvent + Self.quietTime, $0 + Self.longestBatch) } }

    /// The batch, when it is due at `now` (and an empty one now starts); else nil.
    public mutating func takeIfDue(at now: Double) -> PlaylistChange? {
        guard let due, now >= due else { return nil }
        return take()
    }

    /// The batch now, due or not (nil when nothing was gathered), and an empty one starts.
    public mutating func take() -> PlaylistChange? {
        defer { clear() }
        return since == nil ? nil : change
    }

    /// Drops what was gathered (the folder is listed again whole, or is gone).
    public mutating func clear() {
        change = PlaylistChange()
        since = nil
    }
}
