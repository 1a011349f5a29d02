/// What a file looked like when it was last looked at: its size and its
/// last modification and change times (nanoseconds since the epoch). A copy
/// still being written changes all three as it goes.
public struct FileSignature: Hashable, Sendable {
    public var size: Int64
    public var modified: Int64
    public var changed: Int64

    public init(size: Int64, modified: Int64, changed: Int64) {
        self.size = size
        self.modified = modified
        self.changed = changed
    }

    /// True when the file was written less than `settleTime` seconds before
    /// `wallNow` (Unix time), or is dated after it: it may still be being
    /// written. The modification time alone says so: every write sets it,
    /// while a rename (`mv` of an old photo into place) sets only the change time.
    public func isFresh(atWallTime wallNow: Double, settleTime: Double = SettlingFiles.settleTime) -> Bool {
        wallNow - Double(modified) / 1e9 < settleTime
    }
}

/// Files a listing found still being written, held back until they are quiet.
///
/// The folder's events say when a copy is complete (`IN_CLOSE_WRITE`, a
/// rename into place), but a listing (a rescan, a queue overflow, the watch
/// limit, a mount change, the folder coming back, a subfolder that appeared)
/// sees only what is there, and a file whose copy is open looks like any
/// other. So a listing leaves out every picture written within
/// ``settleTime`` of it, and holds it here:
///
/// - its copy's close (or a rename onto it) makes it news at once, as for
///   any file, and it is no longer held;
/// - otherwise it is looked at again once ``settleTime`` has passed: if it
///   did not change since it was last seen, and it was last written at least
///   ``settleTime`` ago, it joins; if it changed, it is held for another
///   ``settleTime``;
/// - deleted, it is forgotten.
///
/// A copy that stalls for longer than ``settleTime`` with its file open
/// joins half written: the decoder refuses it with one line, and its close
/// later brings it back, decoded again, as any file rewritten in place is.
/// Nothing here reads a clock: the folder's thread passes its monotonic time.
public struct SettlingFiles: Sendable {
    /// Seconds a picture must go unchanged before a listing offers it: long
    /// enough to bridge the pauses of a copy over a slow network (scp, SMB
    /// write in bursts), short enough that a rescan's new photo shows soon.
    public static let settleTime = 2.0

    public struct Held: Hashable, Sendable {
        public var entry: PlaylistEntry
        public var signature: FileSignature
        /// When it is to be looked at again (monotonic seconds).
        public var due: Double
    }

    /// Held files by path.
    public private(set) var held: [String: Held] = [:]

    public init() {}

    /// Holds `entry`, seen now (`now`, monotonic) looking like `signature`.
    public mutating func hold(_ entry: PlaylistEntry, signature: FileSignature, at now: Double) {
        held[entry.path] = Held(entry: entry, signature: signature, due: now + Self.settleTime)
    }

    /// The file at `path` is news by other means (its copy closed, a rename,
    /// a deletion), or the folder was listed again: it is held no longer.
    /// True if it was held.
    @discardableResult
    public mutating func forget(_ path: String) -> Bool { held.removeValue(forKey: path) != nil }

    /// True while `path` is held back.
    public func contains(_ path: String) -> Bool { held[path] != nil }

    /// Forgets every file under `prefix` (a folder that left, ending in `/`).
    public mutating func forget(under prefix: String) {
        for path in held.keys where path.hasPrefix(prefix) { held[path] = nil }
    }

    /// Forgets everything (the folder is listed again whole, or is gone).
    public mutating func clear() { held = [:] }

    /// The earliest moment a held file is to be looked at again; nil when none is held.
    public var due: Double? { held.values.map(\.due).min() }

    /// The held files due to be looked at by `now`.
    public func dueFiles(at now: Double) -> [String] { held.filter { $0.value.due <= now }.map(\.key).sorted() }

    /// The file at `path` looked at again: `signature` nil when it is gone.
    /// Returns its entry when it has settled and joins now; otherwise it is
    /// held again (changed) or forgotten (gone).
    public mutating func looked(
        at path: String, signature: FileSignature?, now: Double, wallNow: Double
    ) -> PlaylistEntry? {
        guard let previous = held[path] else { return nil }
        guard let signature else {
            held[path] = nil
            return nil
        }
        if signature == previous.signature && !signature.isFresh(atWallTime: wallNow) {
            held[path] = nil
            return previous.entry
        }
        hold(previous.entry, signature: signature, at: now)
        return nil
    }
}
