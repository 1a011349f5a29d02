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
        precondition(surface.size == geometry.screen, "surface \(surface.size) is not the screen \(geometry.screen)")
        let placed = geometry.visibleSlots(at: position).compactMap { slot -> PlacedPicture? in
            guard let item = playlist.item(forSlot: slot.index), let image = picture(item) else { return nil }
            return PlacedPicture(slot: slot, image: image)
        }
        // Row by row: background up to each picture, the picture's row, the
        // background after it. Each pixel is written once.
        let fill = background.xrgb
        let width = geometry.screen.width
        for y in 0..<geometry.screen.height {
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
