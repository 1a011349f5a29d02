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

extension CircularIndex {
    /// When item `removed` leaves the playlist, the slot that shows what slot
    /// `slot` showed, numbered for the shorter playlist: the centred picture
    /// stays centred when a file before it drops out. If the removed item is
    /// the one in `slot`, the picture after it takes its place.
    ///
    /// Slot `k = lap N + c` (with `0 <= c < N`) becomes `lap (N - 1) + c'`,
    /// where `c' = c - 1` if the removed item came before `c`, else `c`.
    public func slotKeepingItem(atSlot slot: Int, afterRemoving removed: Int) -> Int {
        precondition((0..<count).contains(removed))
        guard count > 1, let item = item(forSlot: slot) else { return slot }
        let lap = (slot - item) / count
        return lap * (count - 1) + (removed < item ? item - 1 : item)
    }
}

extension CircularIndex {
    /// The slot nearest `slot` that shows `item`: the shortest way round the
    /// loop, forward on a tie. Where `goto` slides to.
    public func nearestSlot(showing item: Int, from slot: Int) -> Int {
        precondition((0..<count).contains(item))
        let forward = (item - self.item(forSlot: slot)! + count) % count
        return forward <= count - forward ? slot + forward : slot - (count - forward)
    }
}
