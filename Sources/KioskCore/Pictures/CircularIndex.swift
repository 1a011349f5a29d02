/// Maps the endless strip's slots onto a playlist of `count` items:
/// slot `k` shows item `k mod count`, wrapping in both directions, so the
/// show never reaches an "end" (the seeds' bounce at the end cannot happen).
public struct CircularIndex: Hashable, Sendable {
    public let count: Int

    public init(count: Int) {
        precondition(count >= 0)
        self.count = count
    }

    /// The playlist item shown in slot `k`, or nil when the playlist is empty.
    public func item(forSlot k: Int) -> Int? {
        guard count > 0 else { return nil }
        let r = k % count
        return r >= 0 ? r : r + count
    }
}
