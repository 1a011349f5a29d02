/// A stretch of the still strip drawn once into a buffer longer than the
/// screen along the strip, so that the display hardware can show a slide by
/// moving the screen-sized window it scans out (panning) instead of the CPU
/// composing every frame.
///
/// The buffer's slots are laid out a whole pitch apart from the first,
/// which sits where the still strip puts it at the range's first position
/// (plus a pixel of margin). The still strip rounds each slot's edge on its
/// own (``CarouselGeometry/slotLeft(_:at:)``), so a frame is a window of the
/// buffer only when every slot it shows is the same distance from its place
/// in the buffer: ``window(of:in:)`` checks that exactly, cell by cell, and a
/// frame that is not a window is composed. Nothing is assumed, so a panned
/// frame's pixels are the composed frame's.
public struct PannedStrip: Hashable, Sendable {
    /// The screen's layout.
    public let geometry: CarouselGeometry
    /// The buffer's length along the strip, in the layout's pixels: the
    /// screen's width, the distance the strip moves over the range (at
    /// least a pitch and a pixel), two pixels of margin, rounded up to
    /// ``lengthMultiple``.
    public let length: Int
    /// The slots drawn, each whole or cut by the buffer's ends.
    public let slots: ClosedRange<Int>
    /// The strip's positions it was made for.
    public let positions: ClosedRange<Double>
    /// The left edge of `slots.lowerBound` in the buffer.
    let firstSlotLeft: Int

    /// Buffer lengths are a multiple of this: 16 pixels is one 64-byte cache
    /// line, and bochs' virtual width must be a multiple of 8.
    public static let lengthMultiple = 16

    /// The buffer for the strip's positions `positions` (a slide's start and
    /// end, or a drag's reach), or nil when it would be longer than
    /// `maximumLength` (the driver's largest framebuffer along the strip).
    public init?(geometry: CarouselGeometry, covering positions: ClosedRange<Double>, maximumLength: Int) {
        precondition(positions.lowerBound.isFinite && positions.upperBound.isFinite, "strip positions must be finite")
        let anchor = Int(positions.lowerBound.rounded(.down))
        // At the range's first position the strip lies furthest right: the window is at the buffer's start.
        let leftAtStart = geometry.slotLeft(anchor, at: positions.lowerBound)
        let travel = leftAtStart - geometry.slotLeft(anchor, at: positions.upperBound)
        let margin = 1
        // Never shorter than a whole slide's buffer (a pitch, and a pixel
        // for the slots' rounding): a slide that starts part-way (a late
        // tick, a drag let go) then takes a buffer of the same length as any
        // other, and the screen keeps the buffers it has instead of making
        // new ones, and holding three for a moment, at every slide.
        let needed = geometry.screen.width + max(travel, geometry.pitch + 1) + 2 * margin
        let length = (needed + Self.lengthMultiple - 1) / Self.lengthMultiple * Self.lengthMultiple
        guard length <= maximumLength else { return nil }
        let anchorLeft = leftAtStart + margin
        let pitch = geometry.pitch
        // Slot k's left edge is anchorLeft + (k - anchor) * pitch; those with any column in 0..<length.
        func floorDivide(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
        let first = anchor + floorDivide(-geometry.slotWidth - anchorLeft, pitch) + 1
        let last = anchor + floorDivide(length - 1 - anchorLeft, pitch)
        self.geometry = geometry
        self.positions = positions
        self.length = length
        self.slots = first...max(first, last)
        self.firstSlotLeft = anchorLeft + (first - anchor) * pitch
    }

    /// The layout the buffer is composed with: the screen lengthened along the strip.
    public var bufferGeometry: CarouselGeometry {
        // Checked when the screen's own geometry was made: only the width grows.
        try! CarouselGeometry(
            screen: PixelSize(width: length, height: geometry.screen.height), slotWidth: geometry.slotWidth,
            slotHeight: geometry.slotHeight, spacing: geometry.spacing)
    }

    /// The buffer's cells: each slot of ``slots`` that shows a picture, at its place in the buffer.
    public func cells(playlist: CircularIndex) -> [StripCell] {
        slots.compactMap { slot in
            playlist.item(forSlot: slot).map {
                StripCell(content: .item($0), x: firstSlotLeft + (slot - slots.lowerBound) * geometry.pitch, y: geometry.slotTop, size: geometry.slotSize)
            }
        }
    }

    /// Where the screen's window starts in the buffer (along the strip) when
    /// the screen shows `frame`, the cells of one frame: nil unless each of
    /// them is a whole-size cell of `drawn` (the buffer's cells) moved by
    /// one distance, every drawn cell that reaches into that window is among
    /// them, and the window lies inside the buffer.
    public func window(of frame: [StripCell], in drawn: [StripCell]) -> Int? {
        guard let first = frame.first, frame.allSatisfy({ $0.scale == 1 }) else { return nil }
        let width = geometry.screen.width
        // A short playlist shows one picture in several slots: try each place it was drawn.
        for candidate in drawn where candidate.content == first.content && candidate.size == first.size && candidate.y == first.y {
            let left = candidate.x - first.x
            guard left >= 0, left + width <= length else { continue }
            let moved = frame.map { StripCell(content: $0.content, x: $0.x + left, y: $0.y, size: $0.size, scale: $0.scale) }
            let inWindow = drawn.filter { $0.x < left + width && $0.x + $0.size.width > left }
            if moved == inWindow { return left }
        }
        return nil
    }

    /// Where a window starting `left` along the strip begins in the panel's
    /// buffer, which is the buffer turned by `rotation` (see
    /// ``Rotation/logicalSize(of:)``): along x for an upright or upside-down
    /// panel, along y for a turned one; from the far end where the turn
    /// reverses the strip's direction.
    public func panelOrigin(ofWindowAt left: Int, turnedBy rotation: Rotation) -> (x: Int, y: Int) {
        let fromFarEnd = length - geometry.screen.width - left
        switch rotation {
        case .none: return (left, 0)
        case .half: return (fromFarEnd, 0)
        case .quarter: return (0, left)
        case .threeQuarters: return (0, fromFarEnd)
        }
    }

    /// The panel's buffer's size: the buffer turned by `rotation`.
    public func panelSize(turnedBy rotation: Rotation) -> PixelSize {
        rotation.logicalSize(of: PixelSize(width: length, height: geometry.screen.height))
    }
}
