/// Which way the strip last moved: `forward` is towards higher slots (`next`).
public enum TravelDirection: Sendable, Hashable {
    case forward, backward
}

/// Which pictures the show wants decoded, most urgent first.
///
/// The seeds' memory rule: only the slots on screen plus the next one or two
/// in each direction are decoded. Urgency is: the pictures on screen, nearest
/// the centre first; then `ahead` more in the direction of travel (where the
/// strip goes next); then `behind` more the other way (where a `prev` or a
/// swipe back would go).
///
/// The default is one each way: a slide brings exactly one new picture into
/// view, and it is decoded during the rest before (100 ms for a 24 Mpx photo
/// on a PC, against an 8 s rest). A second one ahead would only help a burst
/// of `next`s and costs a slot of memory.
public struct PreloadPlan: Sendable, Hashable {
    public var ahead: Int
    public var behind: Int

    public init(ahead: Int = 1, behind: Int = 1) {
        precondition(ahead >= 0 && behind >= 0)
        self.ahead = ahead
        self.behind = behind
    }

    /// The playlist items to have decoded at `position`, most urgent first,
    /// each once (a short playlist repeats across the strip).
    ///
    /// `destination` is where the strip is going. When it is more than one
    /// slot away (a quick run of `next`s, a `goto`), the pictures on screen
    /// there come first, before those on screen now: the strip passes
    /// these in a fraction of a second, while the destination's stay; on
    /// a slow board, a decode takes longer than the strip takes to pass.
    /// Then what is on screen now, then the destination's neighbours.
    public func items(
        _ geometry: CarouselGeometry, at position: Double, travelling direction: TravelDirection,
        towards destination: Double? = nil, playlist: CircularIndex
    ) -> [Int] {
        var slots = visibleSlots(geometry, at: position)
        if let destination, abs(destination - position) > 1 {
            let there = visibleSlots(geometry, at: destination)
            slots = there + slots + neighbours(of: there, travelling: direction)
        } else {
            slots += neighbours(of: slots, travelling: direction)
        }
        var seen: Set<Int> = []
        return slots.compactMap(playlist.item(forSlot:)).filter { seen.insert($0).inserted }
    }

    /// The slots on screen at `position`, nearest its centre first.
    private func visibleSlots(_ geometry: CarouselGeometry, at position: Double) -> [Int] {
        geometry.visibleSlots(at: position).map(\.index)
            .sorted { (abs(Double($0) - position), $0) < (abs(Double($1) - position), $1) }
    }

    /// `ahead` slots past `visible` in the direction of travel, then `behind` the other way.
    private func neighbours(of visible: [Int], travelling direction: TravelDirection) -> [Int] {
        guard let low = visible.min(), let high = visible.max() else { return [] }
        let after = (0..<(direction == .forward ? ahead : behind)).map { high + 1 + $0 }
        let before = (0..<(direction == .forward ? behind : ahead)).map { low - 1 - $0 }
        return direction == .forward ? after + before : before + after
    }

    /// The most pictures the plan can want at once.
    public func maximumPictures(_ geometry: CarouselGeometry) -> Int { geometry.maximumVisibleSlots + ahead + behind }

    /// The default cache budget: every picture the plan can want, each as
    /// large as a whole slot in XRGB8888. 1920x1080 at 70% width: 6 slots of
    /// 1344x1080, 33.2 MiB; pictures that do not fill their slot cost less.
    public func defaultBudget(_ geometry: CarouselGeometry) -> Int {
        maximumPictures(geometry) * geometry.slotSize.pixelCount * 4
    }

    /// The smallest budget that still holds every picture on screen.
    public func minimumBudget(_ geometry: CarouselGeometry) -> Int {
        geometry.maximumVisibleSlots * geometry.slotSize.pixelCount * 4
    }
}
