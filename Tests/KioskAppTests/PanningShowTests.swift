import Foundation
import ImageCodecs
@testable import KioskApp
import KioskCore
import KioskRendering
import Testing

/// Panning on the running show, on simulated time and the headless screen
/// (which pans as a display with a plane does): a slide drawn once, each
/// frame a window of it, every frame the snapshot at its position; what
/// cannot be panned composed, with the same pixels; `status` says which.
@Suite struct PanningShowTests {
    /// Four detailed photos (any wrong window shows), 2 s rests, 0.5 s slides.
    func photos() throws -> PictureFolder {
        let photo = detailedPhoto()
        var pictures: [(String, [UInt8])] = []
        for (index, name) in ["a.png", "b.png", "c.png", "d.png"].enumerated() {
            var turned = photo
            // Each its own: the squares' blue shifted, so a neighbour drawn in the wrong slot shows.
            for i in turned.pixels.indices { turned.pixels[i] ^= UInt32(index * 40) }
            pictures.append((name, try PNGCodec.encode(turned)))
        }
        return try PictureFolder(pictures)
    }

    /// Runs `run` until `end` a refresh at a time, checking each frame
    /// that reaches the screen against the snapshot at its position (the
    /// schedule knows the position of frames of the motion under way).
    /// Returns how many frames were checked.
    @discardableResult
    func runCheckingFrames(_ run: SimulatedShow, until end: Double) throws -> Int {
        var checked = 0
        while run.now < end {
            let before = run.frames.count
            run.run(until: min(end, run.now + 1.0 / 120))
            for frame in run.frames[before...] {
                let position = run.show.schedule.position(at: frame.shownAt)
                let snapshot = try run.snapshot(at: position)
                let differing = zip(frame.pixels.pixels, snapshot.pixels).filter { $0 != $1 }.count
                #expect(frame.pixels.size == snapshot.size && differing == 0, "frame at \(frame.shownAt), position \(position): \(differing) pixels differ")
                if differing != 0 { return checked }
                checked += 1
            }
        }
        return checked
    }

    @Test(arguments: Rotation.allCases)
    func aSlideIsPannedAndEachFrameIsTheSnapshot(rotation: Rotation) throws {
        let folder = try photos()
        var settings = showSettings(folder, interval: 2, transition: 0.5)
        settings.display.rotation = rotation
        let run = try SimulatedShow(settings)
        #expect(try runCheckingFrames(run, until: 5) == run.frames.count)
        // Two slides of 30 frames; the first frame after start is composed, each slide's first draws its buffer.
        let statistics = run.show.statistics
        #expect(statistics.slides == 2)
        #expect(statistics.framesPanned >= 50, "\(statistics.framesPanned) panned, \(statistics.framesComposed) composed")
        #expect(statistics.framesComposed <= 4)
        #expect(run.log.contains("panning: on (a window of a longer buffer in memory)"))
        let status = ControlCommands(controller: run.controller, started: 0, wakeUp: { 0 }).status
        #expect(status.panning && status.panningOffReason == nil)
        #expect(status.reply["frames_panned"] == .int(statistics.framesPanned))
    }

    /// A clock on screen is a fixed overlay no plane carries here: every
    /// frame is composed, and is still the snapshot.
    @Test func aClockOnScreenComposesEveryFrame() throws {
        let folder = try photos()
        var settings = showSettings(folder, interval: 2, transition: 0.5)
        settings.text.font = "DejaVu Sans"
        settings.text.clock = try StrftimePattern("%H:%M")
        let run = try SimulatedShow(settings)
        // The clock's words are drawn after the first frame, which shows without them.
        run.run(until: 1)
        let first = run.frames.count
        #expect(try runCheckingFrames(run, until: 3) == run.frames.count - first)
        #expect(run.frames.count - first >= 25)
        #expect(run.show.statistics.framesPanned == 0)
        #expect(run.show.statistics.framesComposed == run.frames.count)
    }

    /// `panning = off` composes every frame, and says why.
    @Test func panningOffComposesAndSaysWhy() throws {
        let folder = try photos()
        let reason = "panning = off"
        do {
            var settings = showSettings(folder, interval: 2, transition: 0.5)
            settings.display.panning = .off
            let run = try SimulatedShow(settings)
            #expect(try runCheckingFrames(run, until: 3) == run.frames.count)
            #expect(run.show.statistics.framesPanned == 0)
            #expect(run.log.contains("panning: off (\(reason))"))
            let status = ControlCommands(controller: run.controller, started: 0, wakeUp: { 0 }).status
            #expect(!status.panning && status.panningOffReason == reason)
            #expect(status.reply["panning_off_reason"] == .string(reason))
        }
    }

    /// `hold 2.5` (a test command) holds the strip halfway, panned; `resume`
    /// lets it go to the nearest picture. Without `--test-commands` it is refused.
    @Test func holdStopsTheStripMidSlideUntilResume() throws {
        let folder = try photos()
        let run = try SimulatedShow(showSettings(folder, interval: 1000, transition: 0.5))
        run.run(until: 1)
        let refused = ControlCommands(controller: run.controller, started: 0, wakeUp: { 0 }).reply(to: .hold(2.5))
        #expect(refused["error"] == .string("hold is a test command: kioskd answers it only when started with --test-commands"))
        let commands = ControlCommands(controller: run.controller, started: 0, testCommands: true, wakeUp: { 0 })
        #expect(commands.reply(to: .hold(4))["ok"] == .bool(false), "4 slots: 0 to below 4")
        let panned = run.show.statistics.framesPanned
        #expect(commands.reply(to: .hold(2.5))["ok"] == .bool(true))
        run.run(until: 3)
        #expect(commands.status.position == 2.5)
        #expect(try run.screen.shown?.pixels == run.snapshot(at: 2.5).pixels)
        // The held frame was drawn into a long buffer and shown as a window of it.
        #expect(run.show.statistics.framesComposed >= 1 && run.show.statistics.framesPanned == panned)
        #expect(run.show.schedule.isHeld)
        _ = commands.reply(to: .resume)
        run.run(until: 5)
        #expect(!run.show.schedule.isHeld && commands.status.position == 2)
        #expect(try run.screen.shown?.pixels == run.snapshot(at: 2).pixels)
        #expect(run.show.statistics.framesPanned > panned, "the settle from 2.5 to 2 is panned")
    }

    /// While the strip rests, the next slide's long buffer is drawn ahead
    /// into the buffer not on screen: every frame of each slide, its first
    /// too, is then a window of it, and each is the snapshot.
    @Test func theNextSlideIsDrawnAtRestAndEveryFrameOfItIsAWindow() throws {
        let folder = try photos()
        let run = try SimulatedShow(showSettings(folder, interval: 2, transition: 0.5))
        #expect(try runCheckingFrames(run, until: 5) == run.frames.count)
        let statistics = run.show.statistics
        #expect(statistics.slides == 2)
        // Only the first frame (the mode set) is drawn; no frame draws a long buffer.
        #expect(statistics.framesComposed == 1 && statistics.longBuffersDrawn == 0, "\(statistics)")
        #expect(statistics.framesPanned == statistics.framesShown - 1)
        // Before each slide, and before the third, at rest after the second.
        #expect(statistics.longBuffersDrawnAhead == 3, "\(statistics.longBuffersDrawnAhead) drawn ahead")
    }

    /// A paused show draws nothing ahead: a `next` then draws its buffer
    /// as the slide starts. A frame composed over the buffer drawn ahead
    /// (a message at rest) uses it up: the slide after draws its own,
    /// and every frame is still the snapshot.
    @Test func nothingIsDrawnAheadWhilePausedAndAComposedFrameUsesItUp() throws {
        let folder = try photos()
        var settings = showSettings(folder, interval: 1000, transition: 0.5)
        settings.text.font = "DejaVu Sans"
        let run = try SimulatedShow(settings)
        run.command(.pause)
        run.run(until: 1)
        #expect(run.show.statistics.longBuffersDrawnAhead == 0)
        run.command(.move(by: 1))
        #expect(try runCheckingFrames(run, until: 2) == run.frames.count - 1)
        #expect(run.show.statistics.longBuffersDrawn == 1)
        run.command(.resume)
        run.run(until: 3)
        #expect(run.show.statistics.longBuffersDrawnAhead == 1)
        // A fixed overlay at rest: that frame is composed, into the buffer that held the drawing ahead.
        run.controller.message(.show("Back at two", seconds: 1))
        let frames = run.frames.count
        run.run(until: 5)
        #expect(run.frames.count > frames)
        let drawnBefore = run.show.statistics.longBuffersDrawn + run.show.statistics.longBuffersDrawnAhead
        run.command(.move(by: 1))
        let checkedFrom = run.frames.count
        run.run(until: 6)
        for frame in run.frames[checkedFrom...] {
            let snapshot = try run.snapshot(at: run.show.schedule.position(at: frame.shownAt))
            #expect(zip(frame.pixels.pixels, snapshot.pixels).filter { $0 != $1 }.isEmpty, "frame at \(frame.shownAt)")
        }
        #expect(run.show.statistics.longBuffersDrawn + run.show.statistics.longBuffersDrawnAhead > drawnBefore)
    }

    @Test func holdIsParsedAndBadPositionsAreRefused() throws {
        #expect(try ControlRequest(parsing: "hold 2.5") == .hold(2.5))
        for bad in ["hold", "hold -1", "hold nan", "hold 1e400", "hold 2.5 3"] {
            #expect(throws: ControlRequestError.self, "\(bad)") { try ControlRequest(parsing: bad) }
        }
    }

    /// The exit line gives the display loop's CPU per frame of each kind, to the microsecond.
    @Test func theExitLineSaysTheCPUPerFrame() {
        var stats = ShowStatistics()
        stats.slides = 1
        (stats.framesShown, stats.framesPanned, stats.framesComposed, stats.longBuffersDrawn) = (32, 29, 3, 1)
        (stats.pannedFramesCPU, stats.composedFramesCPU, stats.longBuffersCPU) = (29 * 0.000_052, 2 * 0.004_1, 0.009)
        #expect(ShowEvent.stopped(reason: nil, statistics: stats).logLine(verbose: false)?.text
                == "stopping after 1 slide(s), 32 frame(s) (29 panned), 0 refresh(es) missed during slides; "
                + "CPU per frame: panned 0.052 ms, composed 4.100 ms, 1 long buffer(s) drawn 9.000 ms each")
        stats.longBuffersDrawnAhead = 2
        stats.longBuffersCPU = 0.027
        #expect(ShowEvent.stopped(reason: nil, statistics: stats).logLine(verbose: false)?.text.hasSuffix(
            "composed 4.100 ms, 3 long buffer(s) drawn (2 ahead of their slide) 9.000 ms each") == true)
    }

    /// An animated picture playing on screen during a slide: its new frames
    /// are not in the long buffer, so those frames are composed; a long
    /// buffer is drawn once for the slide, not again for each frame.
    @Test func anAnimationPlayingDuringASlideIsComposedWithoutRedrawingLongBuffers() throws {
        let palette = [RGBColor(xrgb: 0xE02828), RGBColor(xrgb: 0x28E028), RGBColor(xrgb: 0x2828E0)]
        // Three flat frames, 20 ms each: a new frame nearly every refresh.
        let frames = (0..<3).map { GIFCodec.Frame(indices: [UInt8](repeating: UInt8($0), count: 64 * 48), delay: 2) }
        let gif = GIFCodec.encode(width: 64, height: 48, palette: palette, frames: frames, loops: 0)
        let photo = try PNGCodec.encode(detailedPhoto())
        let folder = try PictureFolder([("a.png", photo), ("b.gif", gif), ("c.png", photo), ("d.png", photo)])
        let run = try SimulatedShow(showSettings(folder, interval: 2, transition: 0.5))
        run.run(until: 3)
        let statistics = run.show.statistics
        #expect(statistics.slides == 1)
        #expect(statistics.longBuffersDrawn <= 1, "\(statistics.longBuffersDrawn) long buffers for one slide")
        #expect(statistics.framesComposed >= 20, "the GIF's frames are composed: \(statistics.framesComposed)")
    }
}
