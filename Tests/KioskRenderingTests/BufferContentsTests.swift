import KioskCore
import KioskRendering
import TestSupport
import Testing

/// Frames composed into the display's two alternating buffers, which still
/// hold the frame before last, must equal frames composed from scratch.
@Suite struct BufferContentsTests {
    let geometry = try! CarouselGeometry(
        screen: PixelSize(width: 320, height: 180), slotWidth: 200, slotHeight: 180, spacing: 10)

    /// Letterboxed pictures of different heights, one of them not decoded
    /// yet in some frames, during a slide with a wrap and a reversal.
    @Test func reusedBuffersMatchFreshFrames() {
        let wide = RasterImage(size: PixelSize(width: 200, height: 100), filledWith: red)
        let square = RasterImage(size: PixelSize(width: 150, height: 150), filledWith: green)
        let low = RasterImage(size: PixelSize(width: 200, height: 40), filledWith: blue)
        let compositor = StripCompositor(geometry: geometry, background: grey)
        var buffers = [RasterImage](repeating: RasterImage(size: geometry.screen, filledWith: .black), count: 2)
        var contents = [BufferContents(), BufferContents()]
        let positions = [0, 0.1, 0.35, 0.6, 0.9, 1, 1.2, 1.7, 2.4, 2.9, 3, 2.5, 1.5, 0.2, -0.4, -1, -1]
        for (frame, position) in positions.enumerated() {
            // The square picture is "still decoding" for the first frames.
            let pictures: [RasterImage?] = [wide, frame < 6 ? nil : square, low]
            let back = frame % 2
            buffers[back].withSurface { surface in
                compositor.compose(
                    into: surface, position: position, playlist: CircularIndex(count: 3), contents: &contents[back]
                ) { pictures[$0] }
            }
            var fresh = RasterImage(size: geometry.screen, filledWith: RGBColor(red: 9, green: 9, blue: 9))
            fresh.withSurface { surface in
                compositor.compose(into: surface, position: position, playlist: CircularIndex(count: 3)) { pictures[$0] }
            }
            #expect(buffers[back].pixels == fresh.pixels, "frame \(frame) at \(position)")
        }
    }

    /// The bands above and below letterboxed pictures are not rewritten
    /// while the strip slides: the saving the display path relies on.
    @Test func backgroundBandsAreLeftAloneInAReusedBuffer() {
        let wide = RasterImage(size: PixelSize(width: 200, height: 100), filledWith: red)
        let compositor = StripCompositor(geometry: geometry, background: grey)
        var buffer = RasterImage(size: geometry.screen, filledWith: .black)
        var contents = BufferContents()
        buffer.withSurface {
            compositor.compose(into: $0, position: 0, playlist: CircularIndex(count: 1), contents: &contents) { _ in wide }
        }
        #expect(contents.pictureRows == 40..<140)
        #expect(colour(buffer, 5, 10) == grey)
        // Something scribbles on a band row; the next frame does not draw it.
        buffer[5, 10] = 0x00FF_00FF
        buffer.withSurface {
            compositor.compose(into: $0, position: 0.5, playlist: CircularIndex(count: 1), contents: &contents) { _ in wide }
        }
        #expect(buffer[5, 10] == 0x00FF_00FF)
        // A fresh BufferContents (unknown buffer) redraws everything.
        var unknown = BufferContents()
        buffer.withSurface {
            compositor.compose(into: $0, position: 0.5, playlist: CircularIndex(count: 1), contents: &unknown) { _ in wide }
        }
        #expect(colour(buffer, 5, 10) == grey)
    }

    /// A clip's next frame in the centre, the strip at rest: only its
    /// rectangle is written (a scribble on the band and on a neighbour
    /// stays), and the frame equals one composed from scratch there.
    @Test func aPictureChangedInPlaceIsTheOnlyThingDrawn() {
        let frames = [red, green, blue].map { RasterImage(size: PixelSize(width: 200, height: 100), filledWith: $0) }
        let neighbour = RasterImage(size: PixelSize(width: 150, height: 150), filledWith: RGBColor(red: 0xE0, green: 0xE0, blue: 0x28))
        let compositor = StripCompositor(geometry: geometry, background: grey)
        var buffer = RasterImage(size: geometry.screen, filledWith: .black)
        var contents = BufferContents()
        func compose(_ frame: RasterImage, at position: Double = 1) {
            buffer.withSurface {
                compositor.compose(into: $0, position: position, playlist: CircularIndex(count: 3), contents: &contents) { $0 == 1 ? frame : neighbour }
            }
        }
        compose(frames[0])
        buffer[5, 10] = 0x00FF_00FF   // the band above the strip
        buffer[2, 90] = 0x00FF_00FF   // the left neighbour, which peeks in at the edge
        for frame in frames.dropFirst() {
            compose(frame)
            var fresh = RasterImage(size: geometry.screen, filledWith: .black)
            fresh.withSurface { compositor.compose(into: $0, position: 1, playlist: CircularIndex(count: 3)) { $0 == 1 ? frame : neighbour } }
            #expect(buffer[160, 90] == fresh[160, 90] && colour(buffer, 160, 90) == colour(frame, 0, 0))
            #expect(buffer[5, 10] == 0x00FF_00FF && buffer[2, 90] == 0x00FF_00FF, "only the centre's rectangle was written")
            buffer[5, 10] = fresh[5, 10]
            buffer[2, 90] = fresh[2, 90]
            #expect(buffer.pixels == fresh.pixels)
            buffer[5, 10] = 0x00FF_00FF
            buffer[2, 90] = 0x00FF_00FF
        }
        // The strip moved: the frame is composed as usual, the scribbles drawn over.
        compose(frames[0], at: 1.2)
        #expect(buffer[2, 90] != 0x00FF_00FF)
    }

    /// Software dimming (`brightness` 40, no backlight): every pixel is 40%
    /// of the undimmed frame's, each channel rounded; in every rotation, and
    /// in a reused buffer that held an undimmed frame (drawn whole again).
    @Test func aDimmedFrameIsEachChannelScaledAndRedrawnWhole() {
        let pictures = [RasterImage(size: PixelSize(width: 200, height: 100), filledWith: RGBColor(red: 255, green: 128, blue: 3)),
                        RasterImage(size: PixelSize(width: 150, height: 150), filledWith: green)]
        for rotation in Rotation.allCases {
            let renderer = FrameRenderer(compositor: StripCompositor(geometry: geometry, background: grey), rotation: rotation)
            var full = RasterImage(size: renderer.panel, filledWith: .black), reused = full
            var contents = BufferContents()
            full.withSurface { renderer.draw(into: $0, position: 0.4, playlist: CircularIndex(count: 2)) { pictures[$0] } }
            reused.withSurface { surface in
                renderer.draw(into: surface, position: 0.4, playlist: CircularIndex(count: 2), contents: &contents) { pictures[$0] }
                renderer.draw(into: surface, position: 0.4, playlist: CircularIndex(count: 2), brightness: 40, contents: &contents) { pictures[$0] }
            }
            let expected = full.pixels.map { dimmedPixel($0, toPercent: 40) }
            #expect(reused.pixels.map { $0 & 0xFF_FFFF } == expected, "rotation \(rotation)")
            #expect(RGBColor(xrgb: reused.pixels[0]) != RGBColor(xrgb: full.pixels[0]), "dimmed where it was the background too")
        }
    }
}
