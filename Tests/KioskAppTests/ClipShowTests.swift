import Foundation
import ImageCodecs
@testable import KioskApp
import KioskCore
import KioskRendering
import Testing

/// A video clip in the show, on simulated time: it plays once the strip
/// rests on it, each frame at the refresh nearest its time; the automatic
/// slide waits for its end, up to `video_max`; `next` leaves it at once,
/// `pause` pauses it; frames that come too late are dropped and counted.
/// The clips are made by ffmpeg from flat frames of eight colours, so the
/// centre's pixel tells which frame is on screen.
@Suite struct ClipShowTests {
    static let palette: [UInt32] = [0xE02828, 0x28E028, 0x2828E0, 0xE0E028, 0x28E0E0, 0xE028E0, 0xE0E0E0, 0x808080]

    /// A clip of `frames` flat frames at 10 a second, frame n in palette[n mod 8].
    /// `liveIdentifier`: a QuickTime movie as an iPhone's Live Photo makes,
    /// carrying that content identifier; otherwise an MP4.
    static func clip(frames: Int, liveIdentifier: String? = nil) throws -> [UInt8] {
        let pictures = (0..<frames).map { RasterImage(size: PixelSize(width: 160, height: 90), filledWith: RGBColor(xrgb: palette[$0 % 8])) }
        let container = liveIdentifier.map {
            ["-metadata", "com.apple.quicktime.content.identifier=\($0)", "-movflags", "use_metadata_tags", "-f", "mov"]
        } ?? ["-f", "mp4"]
        return try madeByTool("ffmpeg", from: pictures) { inputs, output in
            ["-loglevel", "error", "-framerate", "10", "-i", (inputs[0] as NSString).deletingLastPathComponent + "/%d.png",
             "-c:v", "libx264", "-pix_fmt", "yuv444p", "-qp", "0"] + container + [output]
        }
    }

    /// A show of a yellow picture, the clip, and a blue one, started on the clip.
    func show(frames: Int, interval: Double = 60, configure: (inout KioskSettings) -> Void = { _ in }) throws -> (SimulatedShow, PictureFolder) {
        let folder = try PictureFolder([("a.png", flatPNG(yellow)), ("b.mp4", Self.clip(frames: frames)), ("c.png", flatPNG(blue))])
        var settings = showSettings(folder, interval: interval)
        configure(&settings)
        return (try SimulatedShow(settings, startAt: 1), folder)
    }

    /// Which of the clip's frames a pixel shows (nearest of the palette, within 6 levels), or nil.
    static func frameColour(_ pixel: UInt32?) -> Int? {
        guard let pixel else { return nil }
        let p = RGBColor(xrgb: pixel)
        return palette.firstIndex { colour in
            let c = RGBColor(xrgb: colour)
            return abs(Int(p.red) - Int(c.red)) <= 6 && abs(Int(p.green) - Int(c.green)) <= 6 && abs(Int(p.blue) - Int(c.blue)) <= 6
        }
    }

    func centre(_ run: SimulatedShow) -> Int? { Self.frameColour(run.screen.shown?[240, 135]) }

    /// When the clip's first frame went on screen (its clock's start).
    func started(_ run: SimulatedShow) throws -> Double { try #require(run.show.strip.clip?.clock?.startedAt) }

    @Test func eachFrameGoesOnScreenAtItsTimeAndTheSlideWaitsForTheEnd() throws {
        // The rest (0.5 s) is shorter than the clip (1 s): the slide waits for the clip.
        let (run, folder) = try show(frames: 10, interval: 0.5)
        _ = folder
        run.run(until: 0.2)
        let t0 = try started(run)
        run.run(until: t0 + 0.95)
        // Every frame, in order, each first on screen at the refresh nearest its time.
        var firstSeen: [Int: Double] = [:]
        for frame in run.frames where frame.shownAt >= t0 {
            if let n = Self.frameColour(frame.pixels[240, 135]), firstSeen[n] == nil { firstSeen[n] = frame.shownAt }
        }
        #expect(firstSeen.keys.sorted() == Array(0..<8) + [], "frames seen: \(firstSeen.keys.sorted())")
        for n in 1..<8 {
            let at = try #require(firstSeen[n])
            #expect(abs(at - (t0 + Double(n) * 0.1)) <= 1.0 / 120 + 1e-9, "frame \(n) at \(at - t0) s")
        }
        #expect(run.frames.count < 40, "a frame drawn per change of frame, not per refresh: \(run.frames.count)")
        run.run(until: t0 + 0.99)
        #expect(centre(run) == 9 % 8 && run.show.schedule.target == 1 && !run.show.schedule.isMoving(at: run.now))
        // The slide comes at the clip's end: its last frame's time plus one frame.
        #expect(abs((run.show.schedule.nextAdvance ?? 0) - (t0 + 1.0)) < 1e-6)
        run.run(until: t0 + 1.1)
        #expect(run.show.schedule.target == 2)
        #expect(run.log.contains { $0.hasPrefix("playing \(folder.path)/b.mp4: H.264 160x90, 10 fps, 1 s, software decoding") }, "\(run.log)")
        #expect(run.show.statistics.clipFramesShown == 10 && run.show.statistics.clipFramesDropped == 0)
    }

    @Test func nextLeavesTheClipAtOnceAndItStartsAgainWhenItComesBack() throws {
        let (run, folder) = try show(frames: 30)
        _ = folder
        run.run(until: 0.2)
        let t0 = try started(run)
        run.run(until: t0 + 0.45)
        #expect(centre(run) == 4)
        run.command(.next)
        run.run(until: run.now + 0.15)
        #expect(run.show.strip.clip == nil && run.decoder.inlineClips.request == nil, "the clip stopped")
        // Sliding away, the clip's slot shows its first frame again: exactly what the snapshot draws.
        let last = try #require(run.frames.last)
        let position = run.show.schedule.position(at: last.shownAt)
        #expect(position > 1.05 && position < 1.95, "mid-slide: \(position)")
        let snapshot = try run.snapshot(at: position)
        #expect(last.pixels.pixels == snapshot.pixels)
        run.run(until: run.now + 1)
        let back = run.now
        run.command(.previous)
        run.run(until: run.now + 1)
        let again = try started(run)
        #expect(run.show.strip.clip?.playback == 2 && again > back + 0.4, "started again once the slide back ended")
        // From its first frame again: the frame nearest the time since.
        #expect(centre(run) == Int((run.now - again + 1.0 / 120) * 10) % 8)
    }

    @Test func aClipLongerThanVideoMaxIsLeftAtVideoMax() throws {
        let (run, folder) = try show(frames: 30, interval: 0.5) { $0.clips.maximum = 1 }
        _ = folder
        run.run(until: 0.2)
        let t0 = try started(run)
        run.run(until: t0 + 0.5)
        #expect(abs((run.show.schedule.nextAdvance ?? 0) - (t0 + 1)) < 1e-6)
        run.run(until: t0 + 0.98)
        #expect(run.show.schedule.target == 1 && centre(run) == 9 % 8)
        run.run(until: t0 + 1.05)
        #expect(run.show.schedule.target == 2)
    }

    @Test func pauseHoldsTheFrameAndTheRestAndResumeGoesOn() throws {
        let (run, folder) = try show(frames: 10, interval: 0.5)
        _ = folder
        run.run(until: 0.2)
        let t0 = try started(run)
        run.run(until: t0 + 0.35)
        run.command(.pause)
        run.run(until: t0 + 1.5)
        #expect(centre(run) == 3 && run.show.schedule.target == 1)
        let status = try #require(run.show.snapshot(at: run.now).strip.clip)
        #expect(abs(status.position - 0.35) < 0.02 && status.length == 1 && status.decoder == "software")
        run.command(.resume)
        // What was left to play: 0.65 s from the resume.
        #expect(abs((run.show.schedule.nextAdvance ?? 0) - (t0 + 1.5 + 0.65)) < 1e-6)
        run.run(until: t0 + 1.5 + 0.3)
        #expect(centre(run) == 6)
        run.run(until: t0 + 1.5 + 0.8)
        #expect(run.show.schedule.target == 2)
        #expect(run.show.snapshot(at: run.now).strip.clip == nil, "no clip plays: its keys are null")
    }

    @Test func aLoopingClipPlaysAgainUntilVideoMax() throws {
        let (run, folder) = try show(frames: 10, interval: 0.5) {
            $0.clips.repeats = .loop
            $0.clips.maximum = 2.5
        }
        _ = folder
        run.run(until: 0.2)
        let t0 = try started(run)
        run.run(until: t0 + 1.05)
        #expect(centre(run) == 0, "the first frame again after a play")
        run.run(until: t0 + 1.75)
        #expect(centre(run) == 7)
        #expect(abs((run.show.schedule.nextAdvance ?? 0) - (t0 + 2.5)) < 1e-6)
        run.run(until: t0 + 2.6)
        #expect(run.show.schedule.target == 2)
    }

    @Test func framesThatCameTooLateAreDroppedAndCountedAndThePaceHolds() throws {
        let (run, folder) = try show(frames: 10)
        _ = folder
        run.run(until: 0.2)
        let t0 = try started(run)
        run.run(until: t0 + 0.22)
        // The decoder falls behind: after the frames in flight (3 and 4, two ahead), nothing comes until 0.78 s.
        #expect(PlayingClip.framesAhead == 2)
        run.decoder.inlineClips.holding = true
        run.run(until: t0 + 0.78)
        #expect(centre(run) == 4)
        run.decoder.inlineClips.letGo()
        run.run(until: t0 + 0.79)
        // Frames 5 (due at 0.5 s) and 6 (0.6) came at once: 6 goes up at the next refresh, 5 is let go unseen;
        // the worker, asked for two more, passes over 7 (0.7), already late, and decodes 8 (0.8) for its time.
        #expect(centre(run) == 6)
        run.run(until: t0 + 0.85)
        #expect(centre(run) == 8 % 8)
        #expect(run.show.statistics.clipFramesDropped == 2)
        run.run(until: t0 + 0.95)
        #expect(centre(run) == 9 % 8)
        #expect(run.show.statistics.refreshesMissed == 0, "the display kept its pace")
    }

    /// Paused before the clip's first frame is on screen: the frame goes up
    /// and its clock starts paused; `resume` plays it from there.
    @Test func aClipInAPausedShowWaitsForResume() throws {
        let (run, folder) = try show(frames: 10, interval: 0.5)
        _ = folder
        run.command(.pause)
        run.run(until: 1)
        let clock = try #require(run.show.strip.clip?.clock)
        #expect(clock.isPaused && centre(run) == 0)
        run.command(.resume)
        let resumed = run.now
        run.run(until: resumed + 0.35)
        #expect(centre(run) == 3)
        run.run(until: resumed + 1.1)
        #expect(run.show.schedule.target == 2, "the slide once the clip's second of play was over")
    }

    /// A clip alone in the playlist has nothing to slide to: it plays again.
    @Test func aClipAloneInThePlaylistPlaysAgain() throws {
        let folder = try PictureFolder([("only.mp4", Self.clip(frames: 10))])
        let run = try SimulatedShow(showSettings(folder, interval: 0.5))
        run.run(until: 0.2)
        let t0 = try started(run)
        run.run(until: t0 + 1.3)
        #expect(run.show.strip.clip?.playback == 2)
        #expect(centre(run) == 2 || centre(run) == 3, "playing again: \(String(describing: centre(run)))")
    }

    /// With the display off the clip stops, nothing is decoded and no wake-up is asked for.
    @Test func nothingPlaysWhileTheDisplayIsOff() throws {
        let (run, folder) = try show(frames: 30)
        _ = folder
        run.run(until: 0.5)
        #expect(run.decoder.inlineClips.request != nil)
        run.show.sleep(at: run.now, why: "test")
        run.run(until: 1)
        #expect(run.show.strip.clip == nil && run.decoder.inlineClips.request == nil)
        #expect(run.show.nextWakeUp(at: run.now) == nil)
    }
}

@Suite struct ClipExitLineTests {
    /// With clips played, the exit line says how many frames were shown
    /// and dropped, how soon they started and how long they took to
    /// compose (what `kioskd-bench video` reads).
    @Test func theExitLineSaysWhatTheClipsCost() {
        var stats = ShowStatistics()
        stats.clipFramesShown = 90
        stats.clipFramesDropped = 2
        stats.clipStart.record(0.0331)
        stats.clipComposeTime.record(0.00157)
        let line = ShowEvent.stopped(reason: nil, statistics: stats).logLine(verbose: false)?.text
        #expect(line?.hasSuffix("; clips: 90 frame(s) shown, 2 dropped, first frame 33.1 ms after the rest began (median; slowest 33.1 ms over 1 start(s)), "
            + "composed in 1.570 ms at p99 over 1 frame(s)") == true, "\(line ?? "")")
        #expect(ShowEvent.stopped(reason: nil, statistics: ShowStatistics()).logLine(verbose: false)?.text.contains("clips") == false, "no clip, no clip figures")
    }
}
