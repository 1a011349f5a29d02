/// When kioskd writes down the centred picture (to resume on after a
/// restart): only when it changed, at most once per ``minimumGap``, and
/// once more when the show stops, so an SD card sees at most one small
/// write a minute however fast the show runs, and none while it rests.
public struct SavePacing: Sendable, Equatable {
    /// The least time between two writes.
    public static let minimumGap = 60.0

    /// What is on disk (or nil before the first write).
    public private(set) var written: String?
    /// What the show is on, when it differs from ``written``.
    public private(set) var pending: String?
    private var lastWrite: Double?

    public init(written: String? = nil) { self.written = written }

    /// The show came to rest on `file`.
    public mutating func centred(_ file: String) {
        pending = file == written ? nil : file
    }

    /// When the next write is due; nil while there is nothing new.
    public var nextWrite: Double? {
        guard pending != nil else { return nil }
        return lastWrite.map { $0 + Self.minimumGap } ?? -Double.infinity
    }

    /// What to write now, if a write is due (``wrote(_:at:)`` once done).
    public func due(at now: Double) -> String? {
        guard let pending, let due = nextWrite, due <= now else { return nil }
        return pending
    }

    /// `file` is on disk now (a write due, or the last one on the way out).
    public mutating func wrote(_ file: String, at now: Double) {
        written = file
        lastWrite = now
        if pending == file { pending = nil }
    }
}
