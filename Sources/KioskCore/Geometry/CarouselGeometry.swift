/// The strip's layout on one screen, in whole pixels, after validation.
///
/// The strip is a row of equal slots, `slotWidth` wide with `spacing` between
/// them. Slot `k` (any integer) holds playlist item `k mod N`. The strip has a
/// real-valued position `p`, in images: at `p = k` slot `k` is centred and its
/// neighbours peek in at the left and right edges.
///
/// Slot `k`'s left edge is `x = (W - w)/2 + (k - p)(w + s)`, rounded to the
/// nearest pixel with halves going up (see ``Swift/Double/roundedHalfUp()``).
/// Slots are centred vertically: `y = (H - h)/2`, rounded down.
public struct CarouselGeometry: Hashable, Sendable {
    public let screen: PixelSize
    public let slotWidth: Int
    public let slotHeight: Int
    public let spacing: Int

    /// The distance from one slot's left edge to the next one's: `w + s`.
    public var pitch: Int { slotWidth + spacing }
    public var slotSize: PixelSize { PixelSize(width: slotWidth, height: slotHeight) }
    public var slotTop: Int { (screen.height - slotHeight) / 2 }

    /// The most slots that can intersect the screen at any position: the
    /// seed's `ceil(W / (w + s)) + 2`.
    public var maximumVisibleSlots: Int { (screen.width + pitch - 1) / pitch + 2 }

    /// The most slots on either side of the target slot that can be on
    /// screen while the strip rests on it or slides to it: the neighbours
    /// that peek in at rest (slot `k` shows while `k (w + s) < (W + w) / 2`),
    /// and one more that the slide brings or takes away.
    public var slotsEitherSide: Int { (screen.width + slotWidth + 2 * pitch - 1) / (2 * pitch) }

    /// True when no neighbour can be seen at rest (`w + 2s >= W`): allowed,
    /// because a single-picture show is a valid choice, but worth a log line.
    public var neighboursHiddenAtRest: Bool { slotWidth + 2 * spacing >= screen.width }

    /// Validates raw pixel values; see ``init(screen:settings:)`` for lengths.
    public init(screen: PixelSize, slotWidth: Int, slotHeight: Int, spacing: Int) throws(SettingError) {
        guard screen.width > 0, screen.height > 0 else {
            throw SettingError(setting: "size", value: "\(screen)", reason: "the screen must be at least 1x1 pixels")
        }
        guard slotWidth > 0 else {
            throw SettingError(setting: "image_width", value: "\(slotWidth)", reason: "the slot width must be at least 1 pixel")
        }
        guard slotWidth <= screen.width else {
            throw SettingError(
                setting: "image_width", value: "\(slotWidth)",
                reason: "the slot is wider than the \(screen.width) px screen")
        }
        guard slotHeight > 0 else {
            throw SettingError(setting: "slot_height", value: "\(slotHeight)", reason: "the slot height must be at least 1 pixel")
        }
        guard slotHeight <= screen.height else {
            throw SettingError(
                setting: "slot_height", value: "\(slotHeight)",
                reason: "the slot is taller than the \(screen.height) px screen")
        }
        guard spacing >= 0 else {
            throw SettingError(setting: "spacing", value: "\(spacing)", reason: "spacing cannot be negative")
        }
        self.screen = screen
        self.slotWidth = slotWidth
        self.slotHeight = slotHeight
        self.spacing = spacing
    }

    /// Resolves the operator's lengths against the screen and validates them.
    /// Errors quote the value as the operator wrote it (`"150%"`, not 2880).
    ///
    /// With ``LayoutSettings/visible`` `V` the screen holds `V` pitches:
    /// `w = W / V - s`, rounded to the nearest pixel (halves up). A slot
    /// that then does not fit is an error about `visible`.
    public init(screen: PixelSize, settings: LayoutSettings) throws(SettingError) {
        let written = [
            "image_width": settings.slotWidth.description,
            "spacing": settings.spacing.description,
            "slot_height": settings.slotHeight?.description ?? "",
        ]
        let spacing = settings.spacing.resolved(against: screen.width)
        let slotWidth = settings.visible.map { Int((Double(screen.width) / $0 - Double(spacing)).roundedHalfUp()) }
            ?? settings.slotWidth.resolved(against: screen.width)
        do {
            try self.init(
                screen: screen,
                slotWidth: slotWidth,
                slotHeight: settings.slotHeight?.resolved(against: screen.height) ?? screen.height,
                spacing: spacing)
        } catch {
            if let visible = settings.visible, error.setting == "image_width" {
                throw SettingError(
                    setting: "visible", value: "\(visible)",
                    reason: "\(visible) slots across the \(screen.width) px screen, less \(spacing) px spacing, "
                        + "make a slot \(slotWidth) px wide: \(error.reason)")
            }
            let value = written[error.setting].flatMap { $0.isEmpty ? nil : $0 } ?? error.value
            throw SettingError(setting: error.setting, value: value, reason: error.reason)
        }
    }

    /// How far a cell at `x`, `width` wide, leans toward the screen's
    /// centre for ``PictureAlignment/inner``: the distance from its middle
    /// to the screen's, in pitches, clamped to -1...1; positive when the
    /// cell is left of the centre (its picture moves right). At rest the
    /// centred slot leans 0 and its neighbours ±1; during a slide it changes
    /// smoothly with the position.
    public func lean(ofCellAt x: Int, width: Int) -> Double {
        let offCentre = Double(screen.width) / 2 - (Double(x) + Double(width) / 2)
        return min(1, max(-1, offCentre / Double(pitch)))
    }

    /// The left edge of slot `k` when the strip is at `position`.
    public func slotLeft(_ k: Int, at position: Double) -> Int {
        precondition(position.isFinite, "strip position must be finite")
        // Split the position so that k - p stays exact far from zero (p = 10^6).
        let whole = position.rounded(.down)
        let offset = Double(k - Int(whole)) - (position - whole)
        let centred = Double(screen.width - slotWidth) / 2
        return Int((centred + offset * Double(pitch)).roundedHalfUp())
    }

    /// The slots that intersect the screen at `position`, left to right.
    /// Slots may hang off either edge: the compositor clips them.
    public func visibleSlots(at position: Double) -> [Slot] {
        precondition(position.isFinite, "strip position must be finite")
        let whole = Int(position.rounded(.down))
        let centred = Double(screen.width - slotWidth) / 2
        let p = Double(pitch)
        let fraction = position - position.rounded(.down)
        // Slot k intersects when x_k + w > 0 and x_k < W; solve for k - p, with
        // a slot of margin on each side for rounding, then test each exactly.
        let first = whole + Int(((-Double(slotWidth) - centred) / p + fraction).rounded(.down)) - 1
        let last = whole + Int(((Double(screen.width) - centred) / p + fraction).rounded(.up)) + 1
        var slots: [Slot] = []
        for k in first...last {
            let x = slotLeft(k, at: position)
            if x + slotWidth > 0 && x < screen.width {
                slots.append(Slot(index: k, x: x, y: slotTop, size: slotSize))
            }
        }
        return slots
    }

    /// The slots at least half of whose width is on screen at `position`:
    /// where an animated picture plays (at rest the centred slot, and its
    /// neighbours when `visible` is 2 or more).
    public func slotsHalfVisible(at position: Double) -> [Slot] {
        visibleSlots(at: position).filter { slot in
            2 * (min(screen.width, slot.x + slotWidth) - max(0, slot.x)) >= slotWidth
        }
    }
}

/// One slot of the strip on screen.
public struct Slot: Hashable, Sendable {
    /// The slot's place on the endless strip; the playlist item is `index mod N`.
    public let index: Int
    /// Left edge on screen; may be negative or past the right edge (clipped).
    public let x: Int
    public let y: Int
    public let size: PixelSize
}
