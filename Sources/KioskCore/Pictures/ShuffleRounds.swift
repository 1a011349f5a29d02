/// `order = "shuffle"`: a new order for every round of the loop, every
/// picture once a round, and never a picture swapped while it is on screen.
///
/// The strip's slots repeat the playlist: round `r` is slots `r N ..< (r +
/// 1) N`. Twice a round, as the strip moves on into the next half of it,
/// the pictures not yet shown this round are shuffled among their places,
/// and so are those already shown (which open the next round), each set
/// apart from the pictures on screen and their preloaded neighbours
/// (`margin` places either side of the centre). A round therefore still
/// holds every picture once, the next round opens in a new order, and two
/// neighbours are always two pictures. Moving back shuffles nothing.
public struct ShuffleRounds: Sendable, Equatable {
    /// The last half round (`2 r + half`) shuffled or started in.
    private var lastHalf: Int?
    /// Places either side of the centre that are never shuffled.
    public let margin: Int

    public init(margin: Int) {
        precondition(margin >= 0)
        self.margin = margin
    }

    /// The playlist places to shuffle, each range among itself, now that the
    /// strip's target is `slot` in a playlist of `count`; empty when no new
    /// half round has begun.
    public mutating func due(at slot: Int, count: Int) -> [Range<Int>] {
        guard count > 0 else { return [] }
        let round = slot >= 0 ? slot / count : -((-slot - 1) / count) - 1
        let place = slot - round * count
        let half = 2 * round + (2 * place >= count ? 1 : 0)
        defer { lastHalf = max(lastHalf ?? half, half) }
        guard let last = lastHalf, half > last else { return [] }
        let low = place - margin, high = place + margin
        let ahead = (high + 1)..<max(high + 1, min(count, low + count))
        let behind = max(0, high + 1 - count)..<max(max(0, high + 1 - count), low)
        return [behind, ahead].filter { $0.count >= 2 }
    }
}
