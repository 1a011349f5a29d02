/// `portrait_pairs`: two consecutive portrait photos sharing one slot, side
/// by side with `spacing` between them, where either alone would leave most
/// of a landscape slot empty.
///
/// Which pictures pair is a pure function of the playlist (the files, in
/// order, and their sizes), decided for each two neighbours from those two
/// alone, so adding or removing a file changes at most the two slots beside
/// it and the strip never reshuffles:
///
/// - each file gets a side, left or right, from a fixed hash of its file
///   name (FNV-1a, the same on every machine and every run);
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
            Self.share(
                (Self.side(of: paths[item]), size(item)), (Self.side(of: paths[item + 1]), size(item + 1)), slot: slot, spacing: spacing)
        }
    }

    /// The rule for two neighbours, each its side and size (nil: not
    /// known): they share a slot when the first is a left file, the second
    /// a right one, and they ``fit(_:_:slot:spacing:)``.
    public static func share(_ first: (Side, PixelSize?), _ second: (Side, PixelSize?), slot: PixelSize, spacing: Int) -> Bool {
        guard first.0 == .left, second.0 == .right, let left = first.1, let right = second.1 else { return false }
        return fit(left, right, slot: slot, spacing: spacing) != nil
    }

    /// Which side of a pair a file can take.
    public enum Side: Sendable { case left, right }

    /// A file's side, from the FNV-1a hash of its file name's bytes (not
    /// its folder's: a picture folder moved or mounted elsewhere pairs the same).
    public static func side(of path: String) -> Side {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let bytes = path.utf8
        let name = bytes.lastIndex(of: UInt8(ascii: "/")).map { bytes.index(after: $0) } ?? bytes.startIndex
        for byte in bytes[name...] {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        // The top bit: FNV's low bits follow the last byte too closely ("01.jpg", "02.jpg").
        return hash >> 63 == 0 ? .left : .right
    }

    /// The first of `stem.ext`, `stem-1.ext`, `stem-2.ext`, ... that takes
    /// `side`: how a demo or a test names two portraits that should pair.
    public static func fileName(_ stem: String, ext: String, side: Side) -> String {
        var attempt = 0
        while true {
            let name = attempt == 0 ? "\(stem).\(ext)" : "\(stem)-\(attempt).\(ext)"
            if Self.side(of: name) == side { return name }
            attempt += 1
        }
    }

    /// The sizes two pictures are drawn at when they share a slot: the same
    /// height, side by side with `spacing` between them, as large as the
    /// slot allows. Nil when they should not pair: either is not taller
    /// than wide, the slot is not wider than tall, or either would be drawn
    /// at less than 3/4 of its size alone in the slot.
    public static func fit(_ left: PixelSize, _ right: PixelSize, slot: PixelSize, spacing: Int) -> (PixelSize, PixelSize)? {
        guard left.height > left.width, right.height > right.width, slot.width > slot.height,
              left.width > 0, right.width > 0, slot.width > spacing else { return nil }
        let sizes = sideBySide(left, right, slot: slot, spacing: spacing)
        for (size, original) in [(sizes.0, left), (sizes.1, right)] {
            let alone = aspectFitSize(of: original, in: slot)
            guard 4 * size.height >= 3 * alone.height else { return nil }
        }
        return sizes
    }

    /// Two pictures at the same height side by side, `spacing` apart, as
    /// large as `slot` allows (the sizes a pair is drawn at).
    public static func sideBySide(_ left: PixelSize, _ right: PixelSize, slot: PixelSize, spacing: Int) -> (PixelSize, PixelSize) {
        // Heights equal: widths are aspect x height; together they take (slot width - spacing) at most.
        let leftAspect = Double(max(1, left.width)) / Double(max(1, left.height))
        let rightAspect = Double(max(1, right.width)) / Double(max(1, right.height))
        let height = max(1, Int(min(Double(slot.height), Double(max(1, slot.width - spacing)) / (leftAspect + rightAspect)).rounded(.down)))
        func sized(_ aspect: Double) -> PixelSize { PixelSize(width: max(1, Int((aspect * Double(height)).rounded(.down))), height: height) }
        return (sized(leftAspect), sized(rightAspect))
    }
}
