import KioskCore
import KioskRendering
import Testing

/// Panning: a slide drawn once into a long buffer, each frame a window of
/// it. The promise is the user's: a panned frame is exactly the frame the
/// compositor would have drawn, on every panel turn, with captions and
/// dimming; and a frame that cannot be a window (the clock on screen, a
/// zoom, a picture that arrived since) is left to the compositor.
@Suite struct PannedBufferTests {
    /// A picture whose every pixel differs from its neighbours': any shift shows.
    static func noise(_ size: PixelSize, seed: UInt32) -> RasterImage {
        RasterImage(size: size, pixels: (0..<size.pixelCount).map { i in
            var v = UInt32(truncatingIfNeeded: i) &* 2_654_435_761 &+ seed &* 40_503
            v ^= v >> 15
            return v & 0xFFFFFF
        })
    }

    struct Show {
        let renderer: FrameRenderer
        let pictures: [RasterImage]
        let captions: [OverlayLayer?]
        let playlist: CircularIndex

        init(_ geometry: CarouselGeometry, rotation: Rotation, alignment: PictureAlignment = .centre, count: Int = 5, fillingWidth: Bool = false) {
            renderer = FrameRenderer(compositor: StripCompositor(geometry: geometry, background: grey, alignment: alignment), rotation: rotation)
            let slot = geometry.slotSize
            // Letterboxed, pillarboxed and filling pictures.
            pictures = (0..<count).map { item in
                let shapes = [PixelSize(width: slot.width, height: slot.height * 2 / 3), PixelSize(width: slot.width / 2, height: slot.height), slot]
                let size = fillingWidth ? shapes[item % 3 == 1 ? 0 : item % 3] : shapes[item % 3]
                return noise(size, seed: UInt32(item + 1))
            }
            // Captions on every other picture, one wider than its slot (clipped to its cell).
            captions = (0..<count).map { item in
                guard item % 2 == 0 else { return nil }
                let size = PixelSize(width: item == 2 ? slot.width + 40 : 30, height: 9)
                let pixels = noise(size, seed: UInt32(100 + item)).pixels.map { $0 | 0x8000_0000 }
                return OverlayLayer(upright: pixels, size: size, turnedBy: rotation)
            }
            playlist = CircularIndex(count: count)
        }

        func picture(_ content: StripCell.Content) -> RasterImage? { if case .item(let item) = content { pictures[item] } else { nil } }
        func caption(_ content: StripCell.Content) -> OverlayLayer? { if case .item(let item) = content { captions[item] } else { nil } }

        /// The frame at `position` as the compositor draws it.
        func composed(
            at position: Double, brightness: Int = 100, overlays: [PlacedOverlay] = [], picture: ((StripCell.Content) -> RasterImage?)? = nil
        ) -> RasterImage {
            var frame = RasterImage(size: renderer.panel, filledWith: .black)
            var fresh = BufferContents()
            frame.withSurface { surface in
                renderer.draw(
                    into: surface, cells: cells(at: position), brightness: brightness, overlays: overlays, caption: caption, contents: &fresh,
                    picture: picture ?? self.picture)
            }
            return frame
        }

        func cells(at position: Double) -> [StripCell] { renderer.compositor.geometry.cells(at: position, playlist: playlist) }

        /// The buffer for a slide over `positions`, and its pixels.
        func panned(_ positions: ClosedRange<Double>, brightness: Int = 100, picture: ((StripCell.Content) -> RasterImage?)? = nil) throws -> (PannedBuffer, RasterImage) {
            let strip = try #require(PannedStrip(geometry: renderer.compositor.geometry, covering: positions, maximumLength: 8192))
            var image = RasterImage(size: strip.panelSize(turnedBy: renderer.rotation), filledWith: .black)
            let buffer = PannedBuffer(
                strip: strip, screen: renderer, playlist: playlist, brightness: brightness, caption: caption, picture: picture ?? self.picture)
            #expect(buffer.panelSize == image.size)
            image.withSurface(buffer.draw(into:))
            return (buffer, image)
        }

        /// The window of the buffer a panned frame at `position` shows, or nil when that frame is composed.
        func window(of buffer: PannedBuffer, _ image: RasterImage, at position: Double, brightness: Int = 100, overlays: [PlacedOverlay] = []) -> RasterImage? {
            buffer.origin(of: cells(at: position), brightness: brightness, overlays: overlays, caption: caption, picture: picture).map {
                image.cropped(to: PixelRect(x: $0.x, y: $0.y, width: renderer.panel.width, height: renderer.panel.height))
            }
        }
    }

    /// Odd sizes: a centre of x.5 (the slot's edge rounds), a spacing of 13.
    static let geometries = [
        try! CarouselGeometry(screen: PixelSize(width: 320, height: 120), slotWidth: 201, slotHeight: 100, spacing: 13),
        try! CarouselGeometry(screen: PixelSize(width: 333, height: 90), slotWidth: 120, slotHeight: 90, spacing: 7),
    ]

    /// A slide from 2 to 3 at 60 frames a second with the show's easing,
    /// each frame panned where it can be: every panned frame is the composed
    /// one, pixel for pixel, on each turn of the panel, dimmed or not.
    @Test(arguments: Rotation.allCases, [100, 40])
    func aPannedSlideShowsTheComposedFrames(rotation: Rotation, brightness: Int) throws {
        for geometry in Self.geometries {
            let show = Show(geometry, rotation: rotation)
            let (buffer, image) = try show.panned(2...3, brightness: brightness)
            var panned = 0
            let frames = 72
            for frame in 0...frames {
                let position = 2 + Easing.easeInOut.progress(Double(frame) / Double(frames))
                guard let window = show.window(of: buffer, image, at: position, brightness: brightness) else { continue }
                panned += 1
                let composed = show.composed(at: position, brightness: brightness)
                #expect(differingPixels(window, composed) == 0, "\(geometry.screen) turned \(rotation.rawValue) at \(position)")
                if window != composed { return }
            }
            // Slots a whole pitch apart: the still strip's own rounding moves them together.
            #expect(panned == frames + 1, "\(panned) of \(frames + 1) frames panned on \(geometry.screen)")
        }
    }

    /// A drag reaches either way from the rest position: the buffer covers 1.5 to 2.5.
    @Test func aDragPansBothWaysInsideTheDrawnRange() throws {
        let show = Show(Self.geometries[0], rotation: .none)
        let (buffer, image) = try show.panned(1.5...2.5)
        for position in stride(from: 1.5, through: 2.5, by: 0.0625) {
            let window = try #require(show.window(of: buffer, image, at: position), "at \(position)")
            #expect(differingPixels(window, show.composed(at: position)) == 0, "at \(position)")
        }
        // Past the drawn range: composed.
        #expect(show.window(of: buffer, image, at: 1.2) == nil)
        #expect(show.window(of: buffer, image, at: 2.8) == nil)
    }

    /// Frames that are not a window of the buffer are composed: a fixed
    /// overlay (the clock), another brightness, a zoomed centre, a picture
    /// that was not ready when the buffer was drawn, a picture growing in,
    /// and pictures that lean toward the centre.
    @Test func framesThatAreNotAWindowAreComposed() throws {
        let geometry = Self.geometries[0]
        let show = Show(geometry, rotation: .none)
        let (buffer, image) = try show.panned(2...3)
        #expect(show.window(of: buffer, image, at: 2.5) != nil)
        let clock = OverlayLayer(upright: [UInt32](repeating: 0xFF00_0000, count: 40), size: PixelSize(width: 10, height: 4))
        #expect(show.window(of: buffer, image, at: 2.5, overlays: [PlacedOverlay(clock, x: 5, y: 5)]) == nil)
        #expect(show.window(of: buffer, image, at: 2.5, brightness: 60) == nil)
        // The centred picture zoomed: another picture of the same item.
        let zoomed = Self.noise(show.pictures[2].size, seed: 999)
        #expect(buffer.origin(of: show.cells(at: 2.5), brightness: 100, overlays: [], caption: show.caption) {
            $0 == .item(2) ? zoomed : show.picture($0)
        } == nil)
        // Item 3 was still decoding when the buffer was drawn: its slot was left background, as a composed frame would.
        let decoding: (StripCell.Content) -> RasterImage? = { $0 == .item(3) ? nil : show.picture($0) }
        let (early, earlyImage) = try show.panned(2...3, picture: decoding)
        let origin = try #require(early.origin(of: show.cells(at: 2.5), brightness: 100, overlays: [], caption: show.caption, picture: decoding))
        #expect(differingPixels(earlyImage.cropped(to: PixelRect(x: origin.x, y: origin.y, width: 320, height: 120)), show.composed(at: 2.5, picture: decoding)) == 0)
        #expect(show.window(of: early, earlyImage, at: 2.5) == nil, "item 3 has arrived since")
        // A picture growing in (a playlist change): its cell is not whole.
        var growing = show.cells(at: 2.5)
        growing[0].scale = 0.5
        #expect(buffer.origin(of: growing, brightness: 100, overlays: [], caption: show.caption, picture: show.picture) == nil)
        // Leaning pictures (align = inner) narrower than their slots move within them as the strip moves: composed.
        let leaning = Show(geometry, rotation: .none, alignment: .inner)
        let (leaningBuffer, leaningImage) = try leaning.panned(1...2)
        #expect(leaning.cells(at: 1.5).contains { leaning.picture($0.content)!.width < $0.size.width })
        #expect(leaning.window(of: leaningBuffer, leaningImage, at: 1.5) == nil)
    }

    /// Pictures as wide as their slots have no room to lean: with align =
    /// inner a strip of them is panned, and each frame is the composed one.
    @Test func picturesAsWideAsTheirSlotsArePannedWhenTheyLean() throws {
        let geometry = Self.geometries[0]
        let leaning = Show(geometry, rotation: .none, alignment: .inner, count: 6, fillingWidth: true)
        let (buffer, image) = try leaning.panned(2...3)
        for position in stride(from: 2.0, through: 3.0, by: 0.125) {
            let window = try #require(leaning.window(of: buffer, image, at: position), "at \(position)")
            #expect(differingPixels(window, leaning.composed(at: position)) == 0, "at \(position)")
        }
    }

    /// A short playlist repeats its pictures along the strip: the window is
    /// still found where every cell matches, not at the first copy.
    @Test func aShortPlaylistIsPannedAtTheRightCopy() throws {
        let geometry = try CarouselGeometry(screen: PixelSize(width: 400, height: 60), slotWidth: 90, slotHeight: 60, spacing: 10)
        let show = Show(geometry, rotation: .none, count: 2)
        let (buffer, image) = try show.panned(0...3)
        for position in stride(from: 0.0, through: 3.0, by: 0.125) {
            let window = try #require(show.window(of: buffer, image, at: position), "at \(position)")
            #expect(differingPixels(window, show.composed(at: position)) == 0, "at \(position)")
        }
    }
}

/// How many pixels differ between two frames of one size (all of them when the sizes differ).
func differingPixels(_ a: RasterImage, _ b: RasterImage) -> Int {
    guard a.size == b.size else { return max(a.pixels.count, b.pixels.count) }
    return zip(a.pixels, b.pixels).filter { $0 != $1 }.count
}
