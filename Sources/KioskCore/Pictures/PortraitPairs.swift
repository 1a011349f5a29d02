/// `portrait_pairs`: two consecutive portrait photos sharing one slot, side
/// by side with `spacing` between them, where either alone would leave most
/// of a landscape slot empty.
///
/// Which pictures pair is a pure function of the playlist (the files, in
/// order, and their sizes), decided for each two neighbours from those two
/// alone, so adding or removing a file changes at most the two slots beside
/// it and the strip never reshuffles:
///
/// - each file gets a side, left or right, from a fixed hash of its name
///   (FNV-1a, the same on every machine and every run);
/// - items `i` and `i + 1` share a slot when `i` is a left file, `i + 1` a
///   right one, and ``PortraitPairs/fit(_:_:slot:spacing:)`` says the pair
///   fits: both taller than wide, each kept at least 3/4 of its size alone;
/// - no pair spans the loop's seam (the last picture and the first).
///
/// A file cannot be both a pair's left and its right, so pairs never
/// overlap. The price of that locality: in a long run of portraits about
/// half of them pair (each two neighbours are left-then-right one time in
/// four), the others stay single and lean toward the centre (`align`).
public struct PortraitPairs: Equatable, Sendable {
    /// One slot's pictures: one playlist item, or two side by side.
    public enum Unit: Hashable, Sendable {
        case single(Int)
        case pair(Int, Int)

        /// The items, left to right.
        public var items: [Int] {
            switch self {
            case .single(let item): return [item]
            case .pair(let left, let right): return [left, right]
            }
        }
    }

    /// The slots' pictures in playing order; every item appears once.
    public let units: [Unit]

    /// The units of a playlist of `count` items where `pairs(i)` says
    /// whether items `i` and `i + 1` share a slot (never asked for the last item).
    public init(count: Int, pairs: (Int) -> Bool) {
        var units: [Unit] = []
        units.reserveCapacity(count)
        var item = 0
        while item < count {
            if item + 1 < count && pairs(item) {
                units.append(.pair(item, item + 1))
                item += 2
            } else {
                units.append(.single(item))
                item += 1
            }
        }
        self.units = units
    }

    /// The pairing of `paths` (the playlist, in order) in slots of `slot`
    /// with `spacing`; `size(i)` is item `i`'s upright size, nil while it is
    /// not known (a file not yet read pairs with nothing).
    public init(paths: [String], slot: PixelSize, spacing: Int, size: (Int) -> PixelSize?) {
        self.init(count: paths.count) { item in
            guard Self.side(of: paths[item]) == .left, Self.side(of: paths[item + 1]) == .right,
                  let left = size(item), let right = size(item + 1) else { return false }
            return Self.fit(left, right, slot: slot, spacing: spacing) != nil
        }
    }

    /// Which side of a pair a file can take.
    public enum Side: Sendable { case left, right }

    /// A file's side, from the FNV-1a hash of its path's bytes.
    public static func side(of path: String) -> Side {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        // The top bit: FNV's low bits follow the last byte too closely ("01.jpg", "02.jpg").
        return hash >> 63 == 0 ? .left : .right
    }

    /// The sizes two pictures are drawn at when they share a slot: the same
    /// height, side by side with `spacing` between them, as large as the
    /// slot allows. Nil when they should not pair: either is not taller
    /// than wide, the slot is not wider than tall, or either would be drawn
    /// at less than 3/4 of its size alone in the slot.
    public static func fit(_ left: PixelSize, _ right: PixelSize, slot: PixelSize, spacing: Int) -> (PixelSize, PixelSize)? {
        guard left.height > left.width, right.height > right.width, slot.width > slot.height,
              left.width > 0, right.width > 0, slot.width > spacing else { return nil }
        // Heights equal: widths are aspect x height; together they take (slot width - spacing) at most.
        let leftAspect = Double(left.width) / Double(left.height), rightAspect = Double(right.width) / Double(right.height)
        let height = max(1, Int(min(Double(slot.height), Double(slot.width - spacing) / (leftAspect + rightAspect)).rounded(.down)))
        let sizes = [leftAspect, rightAspect].map { aspect in
            PixelSize(width: max(1, Int((aspect * Double(height)).rounded(.down))), height: height)
        }
        for (size, original) in zip(sizes, [left, right]) {
            let alone = aspectFitSize(of: original, in: slot)
            guard 4 * size.height >= 3 * alone.height else { return nil }
        }
        return (sizes[0], sizes[1])
    }
}
