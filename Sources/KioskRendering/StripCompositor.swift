import KioskCore

/// Draws one frame of the strip: the background, and each visible slot's
/// picture centred in its slot, clipped at the screen edges.
///
/// The snapshot PNG and the display path both draw through this type, so the
/// same state gives the same pixels wherever they end up.
public struct StripCompositor: Sendable {
    public let geometry: CarouselGeometry
    public let background: RGBColor

    public init(geometry: CarouselGeometry, background: RGBColor) {
        self.geometry = geometry
        self.background = background
    }

    /// Composes the strip at `position` into `surface` (which must be the
    /// screen's size).
    ///
    /// - Parameter picture: the picture for a playlist item, already fitted to
    ///   the slot (see ``aspectFitSize(of:in:)``), or nil when it is not ready:
    ///   that slot then shows the background, never a stall.
    public func compose(
        into surface: PixelSurface, position: Double, playlist: CircularIndex,
        picture: (Int) -> RasterImage?
    ) {
        var fresh = BufferContents()
        compose(into: surface, position: position, playlist: playlist, contents: &fresh, picture: picture)
    }

    /// Composes into a buffer that already holds an earlier frame (the
    /// display's back buffer), described by `contents`: rows that were
    /// background there and are background now are left alone. With
    /// letterboxed pictures on a wide screen that skips the bands above and
    /// below the strip during a slide. `contents` is updated for next time.
    public func compose(
        into surface: PixelSurface, position: Double, playlist: CircularIndex,
        contents: inout BufferContents, picture: (Int) -> RasterImage?
    ) {
        precondition(surface.size == geometry.screen, "surface \(surface.size) is not the screen \(geometry.screen)")
        let placed = geometry.visibleSlots(at: position).compactMap { slot -> PlacedPicture? in
            guard let item = playlist.item(forSlot: slot.index), let image = picture(item) else { return nil }
            return PlacedPicture(slot: slot, image: image)
        }
        var pictureRows: Range<Int>?
        for rows in placed.compactMap(\.rows) { pictureRows = pictureRows?.spanning(rows) ?? rows }
        let rows: Range<Int>
        if contents.isComplete && contents.background == background {
            switch (contents.pictureRows, pictureRows) {
            case (nil, nil): rows = 0..<0
            case (let old?, nil): rows = old
            case (nil, let new?): rows = new
            case (let old?, let new?): rows = old.spanning(new)
            }
        } else {
            rows = 0..<geometry.screen.height
        }
        contents = BufferContents(pictureRows: pictureRows, background: background)

        // Row by row: background up to each picture, the picture's row, the
        // background after it. Each pixel is written once.
        let fill = background.xrgb
        let width = geometry.screen.width
        for y in rows {
            let row = surface.row(y)
            var x = 0
            for picture in placed {
                guard let span = picture.span(onRow: y, screenWidth: width) else { continue }
                if span.x > x { (row + x).update(repeating: fill, count: span.x - x) }
                picture.image.pixels.withUnsafeBufferPointer { pixels in
                    (row + span.x).update(from: pixels.baseAddress! + span.sourceOffset, count: span.count)
                }
                x = span.x + span.count
            }
            if x < width { (row + x).update(repeating: fill, count: width - x) }
        }
    }
}

/// What a frame buffer holds from the last frame composed into it: the
/// compositor's memory of one buffer, kept by whoever owns the buffer.
public struct BufferContents: Sendable, Equatable {
    /// The rows any picture covered; nil when none did.
    public fileprivate(set) var pictureRows: Range<Int>?
    /// The colour everything else was filled with; nil until a whole frame
    /// has been composed into the buffer.
    public fileprivate(set) var background: RGBColor?

    /// A buffer with unknown contents: the next frame draws every row.
    public init() {}

    fileprivate init(pictureRows: Range<Int>?, background: RGBColor) {
        self.pictureRows = pictureRows
        self.background = background
    }

    var isComplete: Bool { background != nil }
}

extension Range where Bound == Int {
    fileprivate func spanning(_ other: Range<Int>) -> Range<Int> {
        Swift.min(lowerBound, other.lowerBound)..<Swift.max(upperBound, other.upperBound)
    }
}

/// A picture placed in its slot, centred, in screen coordinates.
private struct PlacedPicture {
    let image: RasterImage
    let x: Int
    let y: Int
    let slot: Slot

    init(slot: Slot, image: RasterImage) {
        let offset = centredOffset(of: image.size, in: slot.size)
        self.image = image
        self.x = slot.x + offset.x
        self.y = slot.y + offset.y
        self.slot = slot
    }

    /// The screen rows this picture covers, clipped to the screen and its slot.
    var rows: Range<Int>? {
        let top = max(0, y, slot.y)
        let bottom = min(slot.y + slot.size.height, y + image.height)
        return top < bottom ? top..<bottom : nil
    }

    /// The part of row `screenY` this picture covers, clipped to the screen
    /// and to its slot: a picture larger than its slot (which fitting should
    /// prevent) can never spill over a neighbour.
    func span(onRow screenY: Int, screenWidth: Int) -> (x: Int, count: Int, sourceOffset: Int)? {
        let sourceY = screenY - y
        guard sourceY >= 0, sourceY < image.height,
              screenY >= slot.y, screenY < slot.y + slot.size.height else { return nil }
        let x0 = max(0, x, slot.x)
        let x1 = min(screenWidth, x + image.width, slot.x + slot.size.width)
        guard x0 < x1 else { return nil }
        return (x0, x1 - x0, sourceY * image.width + (x0 - x))
    }
}
