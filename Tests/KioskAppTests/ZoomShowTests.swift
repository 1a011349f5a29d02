import Foundation
import ImageCodecs
@testable import KioskApp
import KioskCore
import KioskRendering
import Testing

/// Pinch zoom in the running show (seed 002), on simulated time: what the
/// fingers' commands put on the screen, the sharp region decoded once the
/// zoom is still, the automatic slides waiting and the zoom going back.
///
/// At 480x270 the slot is 336x270 at x = 72, its middle at (240, 135); the
/// 800x600 photo fits it at 336x252 and zooms to 2x (`max_zoom`).
@Suite struct ZoomShowTests {
    static let panel = PixelSize(width: 480, height: 270)
    static let middle = ScreenPoint(x: 240, y: 135)

    private func folder() throws -> PictureFolder {
        try PictureFolder([
            ("a.png", try PNGCodec.encode(detailedPhoto())), ("b.png", try flatPNG(green)),
            ("c.png", try PNGCodec.encode(RasterImage(size: PixelSize(width: 200, height: 150), filledWith: RGBColor(xrgb: blue)))),
        ])
    }

    private func show(_ folder: PictureFolder, configure: (inout KioskSettings) -> Void = { _ in }) throws -> SimulatedShow {
        var settings = showSettings(folder, interval: 2, transition: 0.4)
        settings.motion.resumeAfter = 5
        configure(&settings)
        let run = try SimulatedShow(settings, panel: Self.panel)
        run.run(until: 0.5)
        return run
    }

    /// What `kioskd snapshot --zoom --focus` draws for the zoom `status` reports.
    private func snapshot(_ run: SimulatedShow, _ zoom: ZoomStatus) throws -> RasterImage {
        var job = SnapshotJob(settings: run.settings, screen: Self.panel, position: 0)
        job.zoom = zoom.scale
        job.focus = (zoom.focusX, zoom.focusY)
        return try job.run().frame
    }

    private func doubleTap(_ run: SimulatedShow, at point: ScreenPoint = middle) {
        run.command(.touch(.caught))
        run.command(.touch(.cancelled))
        run.command(.zoom(.doubleTapped(at: point)))
    }

    /// Fingers spread 100 px to 180 px: the picture follows at 1.8x, scaled
    /// up from the slot's picture while they move (nothing decoded). Once
    /// they lift the part on screen is decoded again, sharp, and the screen
    /// is then exactly what `kioskd snapshot --zoom --focus` draws.
    @Test func aPinchZoomsAndTheStillZoomIsSharpAsTheSnapshot() throws {
        let pictures = try folder()
        let run = try show(pictures)
        let unzoomed = try #require(run.frames.last).pixels
        run.command(.touch(.caught))
        run.command(.zoom(.pinchBegan(midpoint: ScreenPoint(x: 260, y: 150), distance: 100)))
        run.run(until: 0.55)
        run.command(.zoom(.pinchMoved(midpoint: ScreenPoint(x: 250, y: 140), distance: 180)))
        run.run(until: 0.6)
        let pinched = try #require(run.show.zoomStatus(at: run.now))
        #expect(abs(pinched.scale - 1.8) < 1e-12 && !pinched.sharp)
        #expect(run.decoder.zoomRequests.compactMap { $0 }.isEmpty, "nothing is decoded while the fingers move")
        let scaledUp = try #require(run.frames.last).pixels
        #expect(scaledUp != unzoomed)
        // The photo's point under the first midpoint is under the second.
        let zoom = PictureZoom.pinched(from: .fit, startMidpoint: (20, 15), startDistance: 100, midpoint: (10, 5), distance: 180,
                                       limits: PictureZoom.Limits(fitted: PixelSize(width: 336, height: 252), original: PixelSize(width: 800, height: 600), maximumZoom: 2))
        #expect(pinched.focusX == zoom.focus(PictureZoom.Limits(fitted: PixelSize(width: 336, height: 252), original: PixelSize(width: 800, height: 600), maximumZoom: 2)).x)

        run.command(.zoom(.ended))
        run.command(.touch(.cancelled))
        run.run(until: 1)
        #expect(run.decoder.zoomRequests.compactMap { $0 }.count == 1)
        let still = try #require(run.show.zoomStatus(at: run.now))
        #expect(still.sharp && still.scale == pinched.scale)
        let sharp = try #require(run.frames.last).pixels
        #expect(try sharp == (snapshot(run, still)))
        #expect(sharp != scaledUp, "the sharp region replaced the scaled-up picture")
        // The neighbour still peeks in on the right.
        #expect(sharp[470, 135] == green)
        // From the lift to the sharp frame's flip: the next refresh, the decoder here being instant.
        let latency = run.show.statistics.zoomToSharp
        #expect(latency.count == 1 && latency.slowest > 0 && latency.slowest <= 1.0 / 60 + 1e-9)
    }

    /// Fingers that hold the zoom still for 100 ms have its sharp region
    /// decoded before they lift: sharp on screen already, the lift costs nothing.
    @Test func aZoomHeldStillIsSharpBeforeTheLift() throws {
        let pictures = try folder()
        let run = try show(pictures)
        run.command(.touch(.caught))
        run.command(.zoom(.pinchBegan(midpoint: Self.middle, distance: 100)))
        run.command(.zoom(.pinchMoved(midpoint: Self.middle, distance: 170)))
        run.run(until: 0.59)
        #expect(run.decoder.zoomRequests.compactMap { $0 }.isEmpty)
        run.run(until: 0.7)
        let held = try #require(run.show.zoomStatus(at: run.now))
        #expect(held.sharp && run.decoder.zoomRequests.compactMap { $0 }.count == 1, "asked for while the fingers hold it")
        #expect(try #require(run.frames.last).pixels == (snapshot(run, held)))
        run.command(.zoom(.ended))
        run.command(.touch(.cancelled))
        run.run(until: 1)
        #expect(run.decoder.zoomRequests.compactMap { $0 }.count == 1, "not asked again at the lift")
        #expect(run.show.statistics.zoomToSharp.count == 1 && run.show.statistics.zoomToSharp.slowest == 0)
    }

    /// While zoomed the automatic slide waits; `resume_after` (5 s) after the
    /// last touch the picture zooms back over `transition`, then the show
    /// slides on, and the screen is the plain snapshot of the next picture.
    @Test func autoAdvanceWaitsThenTheZoomGoesBackAndTheShowSlides() throws {
        let pictures = try folder()
        let run = try show(pictures)
        doubleTap(run)
        run.run(until: 4.9)
        #expect(run.show.isZoomed && run.show.statistics.slides == 0, "the 2 s interval passed zoomed")
        #expect(run.show.zoomStatus(at: run.now)?.scale == 2)
        run.run(until: 5.6)
        let goingBack = try #require(run.show.zoomStatus(at: run.now))
        #expect(goingBack.scale > 1 && goingBack.scale < 2 && run.show.statistics.slides == 0)
        run.run(until: 7)
        #expect(!run.show.isZoomed && run.show.statistics.slides == 1 && run.show.centredItem == 1)
        #expect(try #require(run.frames.last).pixels == (run.snapshot(at: 1)))
    }

    /// A double tap zooms to 2x about the tap; a second one goes back to the unzoomed picture.
    @Test func aDoubleTapTogglesOnScreen() throws {
        let pictures = try folder()
        let run = try show(pictures)
        let unzoomed = try #require(run.frames.last).pixels
        doubleTap(run, at: ScreenPoint(x: 300, y: 135))
        run.run(until: 1)
        let zoomed = try #require(run.show.zoomStatus(at: run.now))
        #expect(zoomed.scale == 2 && zoomed.sharp, "\(run.decoder.zoomRequests) \(run.log)")
        #expect(try #require(run.frames.last).pixels == (snapshot(run, zoomed)))
        doubleTap(run)
        run.run(until: 1.5)
        #expect(!run.show.isZoomed && run.show.zoomStatus(at: run.now) == nil)
        #expect(try #require(run.frames.last).pixels == unzoomed)
        #expect(run.decoder.zoomRequests.last == .some(nil), "the sharp region is no longer wanted")
    }

    /// `next` while zoomed: the picture is at 1x at once and the strip slides.
    @Test func nextWhileZoomedSlidesAtOnce() throws {
        let pictures = try folder()
        let run = try show(pictures)
        doubleTap(run)
        run.run(until: 1)
        run.command(.next)
        #expect(!run.show.isZoomed)
        run.run(until: 2)
        let next = try run.snapshot(at: 1)
        #expect(run.show.centredItem == 1 && run.frames.last?.pixels == next)
    }

    /// What cannot zoom does not: a picture no larger than its slot, the
    /// strip mid-slide, and `max_zoom = 1`.
    @Test func whatCannotZoomStaysAsItIs() throws {
        let pictures = try folder()
        let run = try show(pictures)
        run.command(.goto(item: 2))
        run.run(until: 1.5)
        doubleTap(run)
        #expect(!run.show.isZoomed, "a 200x150 picture fitted to 224x... is at its own pixels already")
        run.command(.goto(item: 0))
        run.run(until: 1.6)
        doubleTap(run)
        #expect(!run.show.isZoomed, "mid-slide")
        let off = try show(pictures) { $0.input.maxZoom = 1 }
        doubleTap(off)
        #expect(!off.show.isZoomed)
    }

    /// A file that can no longer be read when its sharp region is wanted:
    /// one log line, the scaled-up picture stays, nothing else stops.
    @Test func aRegionThatCannotBeDecodedLeavesTheScaledUpPicture() throws {
        let pictures = try folder()
        let run = try show(pictures)
        run.command(.touch(.caught))
        run.command(.zoom(.pinchBegan(midpoint: Self.middle, distance: 100)))
        run.command(.zoom(.pinchMoved(midpoint: Self.middle, distance: 150)))
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0]).write(to: URL(fileURLWithPath: pictures.path + "/a.png"))
        run.run(until: 0.7)
        let scaledUp = try #require(run.frames.last).pixels
        run.command(.zoom(.ended))
        run.command(.touch(.cancelled))
        run.run(until: 1.5)
        #expect(run.log.filter { $0.contains("a.png: the zoomed part cannot be decoded again sharp") }.count == 1, "\(run.log)")
        #expect(run.show.zoomStatus(at: run.now)?.sharp == false)
        #expect(run.frames.last?.pixels == scaledUp)
        #expect(run.decoder.zoomRequests.compactMap { $0 }.count == 1, "not asked again")
    }
}
