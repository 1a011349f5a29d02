import ImageCodecs
@testable import KioskApp
import KioskCore
import KioskRendering
import Testing

/// An animated GIF in the show, on simulated time: its frames at the file's
/// delays while its slot is at least half on screen, and nothing (no
/// decoding, no wake-up) once it is not, or the display is off.
@Suite struct AnimatedGIFShowTests {
    /// Three flat frames, red, green and blue, half a second each, for ever.
    private func traffic(delay: Int = 50, loops: Int? = 0) -> [UInt8] {
        let palette = [RGBColor(xrgb: red), RGBColor(xrgb: green), RGBColor(xrgb: blue)]
        let frames = (0..<3).map { GIFCodec.Frame(indices: [UInt8](repeating: UInt8($0), count: 64 * 48), delay: delay) }
        return GIFCodec.encode(width: 64, height: 48, palette: palette, frames: frames, loops: loops)
    }

    private func folder(_ gif: [UInt8]) throws -> PictureFolder {
        try PictureFolder([("a.png", flatPNG(yellow)), ("b.gif", gif), ("c.png", flatPNG(yellow))])
    }

    private func centre(_ run: SimulatedShow) -> UInt32? { run.screen.shown?[240, 135] }

    @Test func theCentredGIFPlaysAtItsOwnDelays() throws {
        let folder = try folder(traffic())
        let run = try SimulatedShow(showSettings(folder, interval: 60), startAt: 1)
        var seen: [UInt32?] = []
        for (frame, time) in [0.25, 0.75, 1.25, 1.75, 2.25].enumerated() {
            run.run(until: time)
            seen.append(centre(run))
            // Each frame on screen is exactly `kioskd snapshot --frame N`.
            let snapshot = try SnapshotJob(settings: run.settings, screen: run.screen.panelSize, position: 1, frame: frame).run().frame
            #expect(run.screen.shown?.pixels == snapshot.pixels, "frame \(frame)")
        }
        #expect(seen == [red, green, blue, red, green])
        // At rest a frame is drawn for each frame change and for nothing else.
        #expect(run.frames.count <= 6, "\(run.frames.count) frames")
        // The frame on screen is the snapshot's picture with the GIF's frame in its place: the yellow neighbours peek in.
        #expect(run.screen.shown?[10, 135] == yellow)
    }

    /// An animated WebP plays the same way, through the same seam: its
    /// frames at its own durations, each exactly `kioskd snapshot --frame N`.
    @Test func theCentredAnimatedWebPPlaysAtItsOwnDurations() throws {
        let frames = [red, green, blue].map { RasterImage(size: PixelSize(width: 64, height: 48), filledWith: RGBColor(xrgb: $0)) }
        let webp = try madeByTool("img2webp", from: frames) { inputs, output in
            ["-loop", "0"] + inputs.flatMap { ["-lossless", "-d", "500", $0] } + ["-o", output]
        }
        let folder = try PictureFolder([("a.png", flatPNG(yellow)), ("b.webp", webp), ("c.png", flatPNG(yellow))])
        let run = try SimulatedShow(showSettings(folder, interval: 60), startAt: 1)
        var seen: [UInt32?] = []
        for (frame, time) in [0.25, 0.75, 1.25, 1.75].enumerated() {
            run.run(until: time)
            seen.append(centre(run))
            let snapshot = try SnapshotJob(settings: run.settings, screen: run.screen.panelSize, position: 1, frame: frame).run().frame
            #expect(run.screen.shown?.pixels == snapshot.pixels, "frame \(frame)")
        }
        #expect(seen == [red, green, blue, red])
    }

    /// A HEIC burst in the show: its primary image, and one log line saying so, however often it comes round.
    @Test func aBurstIsNotedOnceInTheLog() throws {
        let shots = [red, blue].map { RasterImage(size: PixelSize(width: 64, height: 48), filledWith: RGBColor(xrgb: $0)) }
        let heic = try madeByTool("heif-enc", from: shots) { inputs, output in inputs + ["-o", output] }
        let folder = try PictureFolder([("a.png", flatPNG(yellow)), ("b.heic", heic), ("c.png", flatPNG(yellow))])
        let run = try SimulatedShow(showSettings(folder, interval: 1), startAt: 1)
        run.run(until: 12)   // round the loop several times
        let notes = run.log.filter { $0.hasSuffix("b.heic: holds 2 images (a burst, a collection or a stereo pair): showing its primary image") }
        #expect(notes.count == 1, "\(run.log)")
    }

    /// A GIF that plays twice stops on its last frame, and asks for no more wake-ups.
    @Test func countedLoopsEndOnTheLastFrame() throws {
        let folder = try folder(traffic(delay: 10, loops: 1))
        let run = try SimulatedShow(showSettings(folder, interval: 60), startAt: 1)
        run.run(until: 2)
        #expect(centre(run) == blue)
        #expect(run.show.nextWakeUp(at: run.now) == 60)
        #expect(run.decoder.animationRequests.isEmpty)
    }

    /// Slid out of the centre, the GIF holds its frame (its neighbours peek
    /// in: under half on screen) and nothing more is decoded or drawn; back
    /// in the centre, it goes on from that frame.
    @Test func aGIFPlaysOnlyWhileHalfOnScreen() throws {
        let folder = try folder(traffic())
        let run = try SimulatedShow(showSettings(folder, interval: 60), startAt: 1)
        run.run(until: 0.75)
        #expect(centre(run) == green)
        run.command(.move(by: 1))
        run.run(until: 2)
        #expect(run.show.centredItem == 2)
        #expect(run.decoder.animationRequests.isEmpty)
        // The GIF peeks in at the left edge, on the frame it held.
        let held = try #require(run.screen.shown?[10, 135])
        let colours = [red, green, blue]
        let heldFrame = try #require(colours.firstIndex(of: held))
        let framesAtRest = run.frames.count
        run.run(until: 5)
        #expect(run.frames.count == framesAtRest)
        run.command(.move(by: -1))
        run.run(until: 5.5)
        #expect(centre(run) == held)
        run.run(until: 6)
        #expect(centre(run) == colours[(heldFrame + 1) % 3])
    }

    /// With the display off, nothing is decoded and the show asks for no wake-up.
    @Test func nothingPlaysWhileTheDisplayIsOff() throws {
        let folder = try folder(traffic())
        let run = try SimulatedShow(showSettings(folder, interval: 60), startAt: 1)
        run.run(until: 0.3)
        #expect(!run.decoder.animationRequests.isEmpty)
        run.show.sleep(at: run.now, why: "test")
        run.run(until: 1)
        #expect(run.decoder.animationRequests.isEmpty)
        #expect(run.show.nextWakeUp(at: run.now) == nil)
    }

    /// A GIF cut short after its first frames plays them, then stays, with one log line.
    @Test func aGIFBrokenMidwayStopsWhereItIs() throws {
        let gif = traffic()
        let folder = try folder(Array(gif.prefix(gif.count - 30)))
        let run = try SimulatedShow(showSettings(folder, interval: 60), startAt: 1)
        run.run(until: 3)
        #expect(centre(run) == green)
        #expect(run.log.filter { $0.contains("b.gif stops animating: cannot decode: GIF") }.count == 1, "\(run.log)")
        #expect(run.show.centredItem == 1)
        #expect(run.show.nextWakeUp(at: run.now) == 60)
    }
}
