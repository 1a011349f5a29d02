/// One place on the screen the strip draws a picture: a slot's box, at full
/// size on a still strip, or scaled while a picture arrives or leaves
/// (``StripChange``).
public struct StripCell: Hashable, Sendable {
    public enum Content: Hashable, Sendable {
        /// A playlist item.
        case item(Int)
        /// A picture that left the playlist and is shrinking away: the
        /// number given to ``StripChange/init(geometry:playlist:position:seamSlot:removed:centredRemoved:added:start:duration:easing:)``'s `removed`.
        case ghost(Int)
    }

    public var content: Content
    /// The box the picture is fitted into and clipped to, on screen: the
    /// slot, or the slot scaled by `scale` about its middle. May hang off
    /// the screen's edges.
    public var x: Int
    public var y: Int
    public var size: PixelSize
    /// The picture's size over its size at rest, in 0...1.
    public var scale: Double

    public init(content: Content, x: Int, y: Int, size: PixelSize, scale: Double = 1) {
        self.content = content
        self.x = x
        self.y = y
        self.size = size
        self.scale = scale
    }
}

extension CarouselGeometry {
    /// The still strip's cells on screen at `position`, left to right.
    public func cells(at position: Double, playlist: CircularIndex) -> [StripCell] {
        visibleSlots(at: position).compactMap { slot in
            playlist.item(forSlot: slot.index).map { StripCell(content: .item($0), x: slot.x, y: slot.y, size: slot.size) }
        }
    }
}

/// Seed 001's animation of a playlist change: pictures that left shrink away
/// while the others close the gap, and pictures that arrived grow into the
/// room the others make for them, all over one `transition` with the
/// show's easing.
///
/// The strip is a row of cells, each a slot and its spacing. A cell has a
/// weight: 1 for a picture that stays, `1 - e(s)` for one that left (a
/// *ghost*), `e(s)` for one that arrived. Cells are laid out outwards from
/// the *seam*, the left edge of the cell that was centred when the change
/// came: so the centred picture stays where it is, and if it is the one
/// that left, the picture after it slides into its place. The seam is
/// where the still strip would put slot `seamSlot`, so the strip may slide
/// (or follow a finger) meanwhile. A cell's box is its slot scaled by its
/// weight, at the cell's left edge; its picture is scaled the same.
///
/// Because every weight is `0 + e` or `1 - e`, every cell's place is a
/// straight line between the strip before and the strip after: at `e = 0`
/// the cells are exactly the old still strip, at `e = 1` the new one. Only
/// the changes near the screen animate: planning walks out from the seam
/// until the frontier is off screen in both layouts, before and after, and
/// a change further out is applied at once, moving nothing on screen.
public struct StripChange: Sendable, Equatable {
    public let geometry: CarouselGeometry
    public let startTime: Double
    public let duration: Double
    public let easing: Easing
    /// The slot the seam is tied to, in the new playlist's numbering; it
    /// moves with the strip when the slots are renumbered.
    public private(set) var seamSlot: Int
    /// The new playlist's length.
    let count: Int
    /// Ghosts that shrink, by the new item they precede, left to right.
    let ghostsBefore: [Int: [Int]]
    /// Of the ghosts before `seamSlot`'s item, how many lie left of the seam.
    let ghostsLeftOfSeam: Int
    /// New items that grow.
    let growing: Set<Int>

    /// A change bigger than this many animated cells is shown at once:
    /// a screenful of pictures growing together is a blur, and would
    /// decode pictures nobody sees.
    public static func mostAnimatedCells(for geometry: CarouselGeometry) -> Int { 2 * geometry.maximumVisibleSlots }

    /// Plans the animation, or nil when nothing on screen changes (or too
    /// much: see ``mostAnimatedCells(for:)``).
    ///
    /// - Parameters:
    ///   - playlist: the new playlist.
    ///   - position: the strip's position now, in the new numbering.
    ///   - seamSlot: the slot (new numbering) of the picture that was
    ///     centred, or of the one that took its place if it left.
    ///   - removed: the entries that left, in the playlist's order.
    ///   - centredRemoved: which of `removed` was the centred picture.
    ///   - added: the new items that arrived.
    public init?(
        geometry: CarouselGeometry, playlist: Playlist, position: Double, seamSlot: Int,
        removed: [PlaylistEntry], centredRemoved: Int?, added: Set<Int>,
        start: Double, duration: Double, easing: Easing
    ) {
        guard !playlist.isEmpty, !(removed.isEmpty && added.isEmpty), duration > 0 else { return nil }
        let count = playlist.count
        // Everything arrived: the strip was empty, there is nothing to keep in place.
        if removed.isEmpty && added.count >= count { return nil }
        // Each ghost goes before the first item that sorts after it; one
        // past the last item is between the last and the first.
        var allBefore: [Int: [Int]] = [:]
        var wrapping: [Int] = []
        for (ghost, entry) in removed.enumerated() {
            let item = playlist.insertionPoint(of: entry)
            if item == count { wrapping.append(ghost) } else { allBefore[item, default: []].append(ghost) }
        }
        if !wrapping.isEmpty { allBefore[0] = wrapping + (allBefore[0] ?? []) }
        let seamItem = ((seamSlot % count) + count) % count
        let seamGhosts = allBefore[seamItem] ?? []
        let leftOfSeam = centredRemoved.flatMap { seamGhosts.firstIndex(of: $0) } ?? seamGhosts.count

        // Walk out from the seam over both layouts (u0 before, u1 after, in
        // cells from the seam) while the frontier is on screen in either.
        let seam = geometry.seamLeft(slot: seamSlot, at: position)
        let pitch = Double(geometry.pitch)
        let seamX = seam.base + (Double(seam.whole) - seam.fraction) * pitch
        let width = Double(geometry.screen.width)
        let limit = Self.mostAnimatedCells(for: geometry)
        var shrinking = Set<Int>(), growing = Set<Int>()
        var steps = 0
        // Each lap moves both frontiers on by a cell at least (something
        // stayed, or left, and something is in the playlist): the screen is
        // crossed within this many.
        let maximumSteps = (geometry.maximumVisibleSlots + 2) * (count + removed.count)

        func visit(_ cell: StripCell.Content, u0: inout Double, u1: inout Double, step: Double) -> Bool {
            steps += 1
            switch cell {
            case .ghost(let ghost):
                shrinking.insert(ghost)
                u0 += step
            case .item(let item) where added.contains(item):
                growing.insert(item)
                u1 += step
            case .item:
                u0 += step
                u1 += step
            }
            return shrinking.count + growing.count <= limit && steps <= maximumSteps
        }
        // Rightwards: ghosts right of the seam, the seam slot, then on.
        var u0 = 0.0, u1 = 0.0
        var slot = seamSlot
        var ghosts = Array(seamGhosts[leftOfSeam...])
        rightwards: while seamX + min(u0, u1) * pitch < width {
            for ghost in ghosts {
                guard visit(.ghost(ghost), u0: &u0, u1: &u1, step: 1) else { return nil }
            }
            guard visit(.item(Self.item(slot, count)), u0: &u0, u1: &u1, step: 1) else { return nil }
            slot += 1
            ghosts = allBefore[Self.item(slot, count)] ?? []
            if steps > maximumSteps { break rightwards }
        }
        // Leftwards: ghosts left of the seam, then the slot before, its ghosts, and on.
        u0 = 0; u1 = 0
        steps = 0
        slot = seamSlot
        ghosts = Array(seamGhosts[..<leftOfSeam])
        let spacing = Double(geometry.spacing)
        while seamX + max(u0, u1) * pitch - spacing > 0 {
            for ghost in ghosts.reversed() {
                guard visit(.ghost(ghost), u0: &u0, u1: &u1, step: -1) else { return nil }
            }
            slot -= 1
            guard visit(.item(Self.item(slot, count)), u0: &u0, u1: &u1, step: -1) else { return nil }
            ghosts = allBefore[Self.item(slot, count)] ?? []
            if steps > maximumSteps { break }
        }
        guard !shrinking.isEmpty || !growing.isEmpty else { return nil }

        self.geometry = geometry
        self.startTime = start
        self.duration = duration
        self.easing = easing
        self.seamSlot = seamSlot
        self.count = count
        self.growing = growing
        ghostsBefore = allBefore.compactMapValues { ghosts in
            let kept = ghosts.filter(shrinking.contains)
            return kept.isEmpty ? nil : kept
        }
        ghostsLeftOfSeam = seamGhosts[..<leftOfSeam].filter(shrinking.contains).count
    }

    /// How far the change has come at `time`: `e(s)`, 0 at the start, 1 from the end on.
    public func progress(at time: Double) -> Double { easing.progress((time - startTime) / duration) }

    public func isOver(at time: Double) -> Bool { time >= startTime + duration }

    /// The ghosts still drawn at some time: the pictures to keep until the end.
    public var shrinkingGhosts: Set<Int> { Set(ghostsBefore.values.joined()) }

    /// The slots were renumbered under the strip (see ``ShowSchedule/renumber(slot:as:pictureCount:)``).
    public mutating func renumber(by delta: Int) { seamSlot += delta }

    /// The cells on screen when the strip is at `position` at `time`, left to right.
    public func cells(at position: Double, time: Double) -> [StripCell] {
        let e = progress(at: time)
        let seamX = geometry.seamLeft(slot: seamSlot, at: position)
        let pitch = Double(geometry.pitch)
        let width = geometry.screen.width
        var right: [StripCell] = [], left: [StripCell] = []
        // The cells' offsets from the seam, in cells: a whole part and what
        // the growing and shrinking add, so that a still strip's offsets are
        // exact and its pixels are the still strip's.
        var whole = 0, part = 0.0
        func place(_ content: StripCell.Content, weight: Double, leftEdge: Double) -> StripCell? {
            let x = Int(leftEdge.roundedHalfUp())
            guard weight > 0 else { return nil }
            // The right edge is rounded as the next cell's left is: they never overlap.
            let box = weight == 1 ? geometry.slotSize : PixelSize(
                width: Int((leftEdge + weight * Double(geometry.slotWidth)).roundedHalfUp()) - x,
                height: Int((weight * Double(geometry.slotHeight)).roundedHalfUp()))
            guard box.width > 0, box.height > 0, x < width, x + box.width > 0 else { return nil }
            let y = geometry.slotTop + (geometry.slotHeight - box.height) / 2
            return StripCell(content: content, x: x, y: y, size: box, scale: weight)
        }
        func weight(of content: StripCell.Content) -> Double {
            switch content {
            case .ghost: return 1 - e
            case .item(let item): return growing.contains(item) ? e : 1
            }
        }
        func edge() -> Double { seamX.base + (Double(seamX.whole + whole) - seamX.fraction + part) * pitch }
        func advance(by w: Double, sign: Int) {
            if w == 1 { whole += sign } else { part += Double(sign) * w }
        }

        var slot = seamSlot
        var ghosts = Array((ghostsBefore[Self.item(slot, count)] ?? [])[ghostsLeftOfSeam...])
        var steps = 0
        let maximumSteps = (geometry.maximumVisibleSlots + 2) * (count + shrinkingGhosts.count)
        while edge() < Double(width), steps <= maximumSteps {
            for content in ghosts.map(StripCell.Content.ghost) + [.item(Self.item(slot, count))] {
                let w = weight(of: content)
                if let cell = place(content, weight: w, leftEdge: edge()) { right.append(cell) }
                advance(by: w, sign: 1)
                steps += 1
            }
            slot += 1
            ghosts = ghostsBefore[Self.item(slot, count)] ?? []
        }
        whole = 0; part = 0; steps = 0
        slot = seamSlot
        ghosts = Array((ghostsBefore[Self.item(slot, count)] ?? [])[..<ghostsLeftOfSeam])
        while edge() - Double(geometry.spacing) > 0, steps <= maximumSteps {
            slot -= 1
            for content in ([.item(Self.item(slot, count))] + ghosts.map(StripCell.Content.ghost)).reversed() {
                let w = weight(of: content)
                advance(by: w, sign: -1)
                if let cell = place(content, weight: w, leftEdge: edge()) { left.append(cell) }
                steps += 1
            }
            ghosts = ghostsBefore[Self.item(slot, count)] ?? []
        }
        return left.reversed() + right
    }

    private static func item(_ slot: Int, _ count: Int) -> Int { ((slot % count) + count) % count }
}

extension CarouselGeometry {
    /// Where the still strip at `position` puts slot `slot`'s left edge, kept
    /// as `base + (whole - fraction) * pitch` so that adding whole slots to
    /// `whole` gives exactly ``slotLeft(_:at:)``.
    func seamLeft(slot: Int, at position: Double) -> (base: Double, whole: Int, fraction: Double) {
        precondition(position.isFinite, "strip position must be finite")
        let down = position.rounded(.down)
        return (Double(screen.width - slotWidth) / 2, slot - Int(down), position - down)
    }
}
