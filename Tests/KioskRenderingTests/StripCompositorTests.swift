import KioskCore
import KioskRendering
import Testing

let red = RGBColor(red: 0xE0, green: 0x28, blue: 0x28)
let green = RGBColor(red: 0x28, green: 0xE0, blue: 0x28)
let blue = RGBColor(red: 0x28, green: 0x28, blue: 0xE0)
let grey = RGBColor(red: 0x20, green: 0x20, blue: 0x20)

/// Draws the strip into a fresh frame.
func compose(
    _ geometry: CarouselGeometry, at position: Double, pictures: [RasterImage], background: RGBColor = grey
) -> RasterImage {
    var frame = RasterImage(size: geometry.screen, filledWith: RGBColor(red: 1, green: 2, blue: 3))
    frame.withSurface { surface in
        StripCompositor(geometry: geometry, background: background)
            .compose(into: surface, position: position, playlist: CircularIndex(count: pictures.count)) { pictures[$0] }
    }
    return frame
}

func colour(_ frame: RasterImage, _ x: Int, _ y: Int) -> RGBColor { RGBColor(xrgb: frame[x, y]) }

@Suite struct StripCompositorTests {
    let screen = PixelSize(width: 1920, height: 1080)

    /// Three slot-filling pictures, default layout: slots at -1094, 288, 1670.
    @Test func centredPictureAndBothNeighboursEndWhereTheGeometrySays() throws {
        let g = try CarouselGeometry(screen: screen, settings: LayoutSettings())
        let slot = g.slotSize
        let frame = compose(g, at: 0, pictures: [RasterImage(size: slot, filledWith: red),
                                                  RasterImage(size: slot, filledWith: green),
                                                  RasterImage(size: slot, filledWith: blue)])
        for y in [0, 540, 1079] {
            // Left neighbour (item 2) ends at x = 250.
            #expect(colour(frame, 0, y) == blue)
            #expect(colour(frame, 249, y) == blue)
            #expect(colour(frame, 250, y) == grey)
            // The centred picture spans 288..<1632.
            #expect(colour(frame, 287, y) == grey)
            #expect(colour(frame, 288, y) == red)
            #expect(colour(frame, 1631, y) == red)
            #expect(colour(frame, 1632, y) == grey)
            // Right neighbour (item 1) starts at x = 1670.
            #expect(colour(frame, 1669, y) == grey)
            #expect(colour(frame, 1670, y) == green)
            #expect(colour(frame, 1919, y) == green)
        }
    }

    /// `align = "inner"` with 600x400 pictures in 800x800 slots 100 px
    /// apart (slot 0 at 560, slot -1 at -340, slot 1 at 1460): the centred
    /// picture stays centred (660..<1260); the left neighbour's picture
    /// hugs its slot's right edge (-140..<460, so 460 px show instead of
    /// the 360 centring gives); the right one's its left edge (1460..<2060).
    @Test func innerAlignmentPullsTheNeighboursTowardTheCentre() throws {
        let g = try CarouselGeometry(screen: screen, slotWidth: 800, slotHeight: 800, spacing: 100)
        let size = PixelSize(width: 600, height: 400)
        let pictures = [RasterImage(size: size, filledWith: red), RasterImage(size: size, filledWith: green),
                        RasterImage(size: size, filledWith: blue)]
        var frame = RasterImage(size: screen, filledWith: .black)
        frame.withSurface { surface in
            StripCompositor(geometry: g, background: grey, alignment: .inner)
                .compose(into: surface, position: 0, playlist: CircularIndex(count: 3)) { pictures[$0] }
        }
        #expect(colour(frame, 459, 540) == blue && colour(frame, 460, 540) == grey)
        #expect(colour(frame, 659, 540) == grey && colour(frame, 660, 540) == red)
        #expect(colour(frame, 1259, 540) == red && colour(frame, 1260, 540) == grey)
        #expect(colour(frame, 1459, 540) == grey && colour(frame, 1460, 540) == green)
        // Centred, the neighbours end 100 px further out.
        let centred = compose(g, at: 0, pictures: pictures)
        #expect(colour(centred, 359, 540) == blue && colour(centred, 360, 540) == grey)
        #expect(colour(centred, 1559, 540) == grey && colour(centred, 1560, 540) == green)
    }

    @Test func picturesAreCentredInTheirSlots() throws {
        let g = try CarouselGeometry(screen: screen, slotWidth: 800, slotHeight: 800, spacing: 100)
        // Slot 0 spans 560..<1360, rows 140..<940; a 600x400 picture sits at (660, 340).
        let frame = compose(g, at: 0, pictures: [RasterImage(size: PixelSize(width: 600, height: 400), filledWith: red)])
        #expect(colour(frame, 659, 540) == grey)
        #expect(colour(frame, 660, 540) == red)
        #expect(colour(frame, 1259, 540) == red)
        #expect(colour(frame, 1260, 540) == grey)
        #expect(colour(frame, 960, 339) == grey)
        #expect(colour(frame, 960, 340) == red)
        #expect(colour(frame, 960, 739) == red)
        #expect(colour(frame, 960, 740) == grey)
    }

    @Test func midSlidePicturesAreClippedAtTheScreenEdges() throws {
        let g = try CarouselGeometry(screen: screen, settings: LayoutSettings())
        let slot = g.slotSize
        // At p = 0.5 slot 0 starts at -403 and slot 1 at 979.
        let frame = compose(g, at: 0.5, pictures: [RasterImage(size: slot, filledWith: red),
                                                    RasterImage(size: slot, filledWith: green)])
        #expect(colour(frame, 0, 10) == red)
        #expect(colour(frame, 940, 10) == red)       // -403 + 1344 = 941
        #expect(colour(frame, 941, 10) == grey)
        #expect(colour(frame, 978, 10) == grey)
        #expect(colour(frame, 979, 10) == green)
        #expect(colour(frame, 1919, 10) == green)
    }

    @Test func aPictureNotYetDecodedLeavesItsSlotBackground() throws {
        let g = try CarouselGeometry(screen: screen, settings: LayoutSettings())
        var frame = RasterImage(size: screen, filledWith: red)
        frame.withSurface { surface in
            StripCompositor(geometry: g, background: grey)
                .compose(into: surface, position: 0, playlist: CircularIndex(count: 3)) { item in
                    item == 1 ? RasterImage(size: g.slotSize, filledWith: green) : nil
                }
        }
        #expect(colour(frame, 960, 540) == grey)
        #expect(colour(frame, 100, 540) == grey)
        #expect(colour(frame, 1700, 540) == green)
    }

    @Test func anEmptyPlaylistShowsOnlyTheBackground() throws {
        let g = try CarouselGeometry(screen: screen, settings: LayoutSettings())
        let frame = compose(g, at: 0, pictures: [])
        #expect(Set(frame.pixels) == [grey.xrgb])
    }

    @Test func aPictureLargerThanItsSlotNeverSpillsOntoANeighbour() throws {
        let g = try CarouselGeometry(screen: PixelSize(width: 300, height: 100), slotWidth: 100, slotHeight: 100, spacing: 10)
        // Slots: -1 at -10..<90, 0 at 100..<200, 1 at 210..<310. The 180x140
        // picture overhangs each slot by 40 px a side and is clipped to it.
        let frame = compose(g, at: 0, pictures: [RasterImage(size: PixelSize(width: 180, height: 140), filledWith: red)])
        #expect(colour(frame, 89, 50) == red)
        #expect(colour(frame, 90, 50) == grey)
        #expect(colour(frame, 99, 50) == grey)
        #expect(colour(frame, 100, 50) == red)
        #expect(colour(frame, 199, 50) == red)
        #expect(colour(frame, 200, 50) == grey)
        #expect(colour(frame, 209, 50) == grey)
        #expect(colour(frame, 210, 50) == red)
    }

    /// DRM dumb buffers can have a pitch wider than the picture: the padding
    /// at the end of each row must not be written.
    @Test func rowPaddingBeyondTheScreenIsLeftAlone() throws {
        let g = try CarouselGeometry(screen: PixelSize(width: 64, height: 8), slotWidth: 32, slotHeight: 8, spacing: 4)
        let pitchPixels = 80
        var memory = [UInt32](repeating: 0xDEADBEEF, count: pitchPixels * 8)
        memory.withUnsafeMutableBytes { bytes in
            let surface = PixelSurface(base: bytes.baseAddress!, size: g.screen, bytesPerRow: pitchPixels * 4)
            StripCompositor(geometry: g, background: grey)
                .compose(into: surface, position: 0, playlist: CircularIndex(count: 1)) { _ in
                    RasterImage(size: g.slotSize, filledWith: red)
                }
        }
        for y in 0..<8 {
            #expect(memory[y * pitchPixels + 16] == red.xrgb)
            #expect(memory[y * pitchPixels + 14] == grey.xrgb)
            #expect(memory[y * pitchPixels + 63] == red.xrgb)       // right neighbour starts at 52
            #expect(memory[(y * pitchPixels + 64)..<(y * pitchPixels + 80)].allSatisfy { $0 == 0xDEADBEEF })
        }
    }
}
