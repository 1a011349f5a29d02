import DRMOutput
import Foundation
import ImageCodecs
@testable import KioskApp
import KioskCore
import KioskRendering
import Testing

func showSettings(_ folder: PictureFolder, interval: Double = 8, transition: Double = 0.45) -> KioskSettings {
    var s = pictureSettings(folder)
    s.motion.interval = interval
    s.motion.transition = transition
    return s
}

func fourColours() throws -> PictureFolder {
    try PictureFolder([("a.png", flatPNG(red)), ("b.png", flatPNG(green)), ("c.png", flatPNG(blue)),
                       ("d.png", flatPNG(yellow))])
}

@Suite struct RunningShowTests {
    @Test func restsThenSlidesToTheNextPictureByItself() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder))
        run.run(until: 7.9)
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: 0)).pixels)
        // At rest nothing is drawn: the first frame, then only the timer.
        let atRest = run.frames.count
        #expect(atRest <= 2)
        #expect(run.show.nextWakeUp(at: run.now) == 8)
        run.run(until: 8.6)
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: 1)).pixels)
        #expect(run.show.centredItem == 1)
        // One frame per refresh during the 0.45 s slide: 27 refreshes.
        let slide = run.frames.count - atRest
        #expect((26...28).contains(slide), "\(slide) frames")
        #expect(run.show.statistics.refreshesMissed == 0)
        let times = run.frames.suffix(slide).map(\.shownAt)
        for (a, b) in zip(times, times.dropFirst()) { #expect(abs(b - a - 1.0 / 60) < 1e-9) }
        #expect(run.log.contains("picture 1 in the centre: \(folder.path)/b.png"))
    }

    /// `first_picture_ms` ends at the first frame whose centre shows the
    /// centred picture, not at the first frame; every frame's composition is timed.
    /// `status` counts the pictures on screen still decoding (their slots
    /// show the background) until they arrive: a script waits for 0.
    @Test func statusSaysHowManyPicturesOnScreenAreStillDecoding() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder), holding: ["b.png"])
        run.run(until: 1)
        let commands = ControlCommands(controller: run.controller, started: 0, wakeUp: { 0 })
        #expect(commands.status.reply["pictures_waiting"] == .int(1))
        // The right neighbour's slot is the background.
        let right = try #require(run.screen.shown)
        let whole = try run.snapshot(at: 0)
        #expect(right != whole)
        run.decoder.letGo()
        run.run(until: 2)
        #expect(commands.status.reply["pictures_waiting"] == .int(0))
        #expect(run.screen.shown == whole)
    }

    @Test func theFirstFrameWithTheCentredPictureIsTimed() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder))
        run.run(until: 1)
        let shownAt = try #require(run.show.statistics.firstPictureShownAt)
        let first = try #require(run.frames.first { $0.pixels[240, 135] == red })
        #expect(first.shownAt == shownAt)
        #expect(run.frames.filter { $0.shownAt < shownAt }.allSatisfy { $0.pixels[240, 135] != red })
        #expect(run.show.statistics.composeTime.count == run.frames.count)
    }

    /// Mid-slide frames are exactly what the snapshot draws at the position
    /// the strip has when the frame reaches the screen.
    @Test func eachFrameShowsTheStripWhereItIsWhenTheFrameIsShown() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder, interval: 1, transition: 0.5))
        run.run(until: 1.3)
        let (shownAt, pixels) = try #require(run.frames.last)
        let position = run.show.schedule.position(at: shownAt)
        #expect(position > 0.2 && position < 0.9)
        #expect(try pixels.pixels == (run.snapshot(at: position)).pixels)
    }

    /// A loop held up mid-slide shows no new frame for a few refreshes: the
    /// benchmark's dropped_frames counts exactly those.
    @Test func refreshesWithoutANewFrameDuringASlideAreCounted() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder))
        run.run(until: 8.2)
        #expect(run.show.statistics.refreshesMissed == 0)
        // At 8.2 a frame is queued for the refresh at 8.2167. Held up until
        // 8.26, the loop presents the next one for 8.2667: the refreshes at
        // 8.2333 and 8.25 show no new frame.
        run.stall(0.06)
        run.run(until: 9)
        #expect(run.show.statistics.refreshesMissed == 2)
        // And the strip is where the time says: the slide still ends on time.
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: 1)).pixels)
    }

    @Test func nextDuringASlideGoesOnToThePictureAfter() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder))
        run.run(until: 8.2)
        let before = run.show.schedule.position(at: run.now)
        run.command(.next)
        run.run(until: 8.25)
        // No jump back, no restart from rest: the strip kept going forward.
        let frames = run.frames.suffix(4).map { run.show.schedule.position(at: $0.shownAt) }
        #expect(frames == frames.sorted() && frames.first! >= before - 1e-9)
        run.run(until: 9.5)
        #expect(run.show.centredItem == 2)
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: 2)).pixels)
        // The rest restarted from the end of the manual slide.
        #expect(run.show.schedule.nextAdvance! > 8.2 + 8)
        #expect(run.show.statistics.refreshesMissed == 0)
    }

    /// Three quick `next`s: the destination and the pictures beside it are
    /// asked for before the strip comes near them, not as they come into
    /// view (on a slow board a decode takes longer than the strip takes to
    /// pass, so the destination would arrive empty). What the strip passes
    /// still shows when it gets there.
    @Test func aQuickRunOfNextsDecodesTheDestinationFirst() throws {
        let names = (0..<10).map { "photo-\($0).png" }
        let folder = try PictureFolder(try names.enumerated().map { ($1, try flatPNG(0x101010 * UInt32($0 + 1))) })
        let run = try SimulatedShow(showSettings(folder))
        run.run(until: 1)
        let atRest = run.decoder.decodedKeys.count
        for _ in 0..<3 {
            run.command(.next)
            run.run(until: run.now + 0.02)
        }
        #expect(run.show.schedule.target == 3)
        #expect(run.show.schedule.position(at: run.now) < 1)   // picture 3 is not on screen yet, nor near it
        let asked = run.decoder.decodedKeys.dropFirst(atRest).map { String($0.description.split(separator: "/").last!) }
        // (2 was decoded at rest, as the one ahead.)
        #expect(Array(asked.prefix(2)) == ["photo-3.png", "photo-4.png"])
        run.run(until: 3)
        #expect(run.show.centredItem == 3)
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: 3)).pixels)
    }

    @Test func prevFromTheFirstPictureWrapsToTheLast() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder))
        run.run(until: 1)
        run.command(.previous)
        run.run(until: 1.2)
        run.command(.previous)
        run.run(until: 3)
        #expect(run.show.centredItem == 2)
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: -2)).pixels)
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: 2)).pixels)
    }

    @Test func pausedShowsStayPutAndResumeRestartsTheRest() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder, interval: 2))
        run.run(until: 1)
        run.command(.pause)
        run.run(until: 100)
        #expect(run.show.centredItem == 0 && run.show.statistics.slides == 0)
        #expect(run.show.nextWakeUp(at: run.now) == nil)
        run.command(.resume)
        run.run(until: 101.9)
        #expect(run.show.centredItem == 0)
        run.run(until: 103)
        #expect(run.show.centredItem == 1)
    }

    /// A broken file before the centred one is dropped and the centred
    /// picture stays in the centre (the folder's items shift, the screen does not).
    @Test func aBrokenEarlierFileLeavesTheCentredPictureInPlace() throws {
        let broken = Array(try flatPNG(green).prefix(60))
        let folder = try PictureFolder([("a.png", flatPNG(red)), ("b.png", broken), ("c.png", flatPNG(blue)),
                                        ("d.png", flatPNG(yellow))])
        let run = try SimulatedShow(showSettings(folder), startAt: 2)
        run.run(until: 1)
        #expect(run.log.contains { $0.hasPrefix("skipping") && $0.contains("b.png") })
        #expect(run.show.pictures.pictures.playlist.count == 3)
        #expect(run.show.centredItem == 1)   // c.png, now the second file
        let centre = run.screen.shown![240, 135]
        #expect(centre == blue)
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: 1)).pixels)
    }

    @Test func anEmptyFolderShowsTheBackgroundOnce() throws {
        let folder = try PictureFolder([])
        let run = try SimulatedShow(showSettings(folder, interval: 1))
        run.run(until: 60)
        #expect(run.frames.count == 1)
        #expect(run.screen.shown?.pixels.allSatisfy { $0 == background.xrgb } == true)
        #expect(run.show.nextWakeUp(at: run.now)! > 60)  // the timer may tick, but nothing moves
        #expect(run.show.statistics.slides == 0)
    }
}

@Suite struct VanishingDisplayTests {
    /// What a show driven by hand emitted.
    final class EventLog { var events: [ShowEvent] = [] }

    /// A show of `folder` (1 s rests, 0.2 s slides) on a 320x180 screen that fails on cue, driven by hand.
    func failingShow(_ folder: PictureFolder) throws -> (screen: FailingScreen, show: RunningShow, log: EventLog) {
        let panel = PixelSize(width: 320, height: 180)
        let screen = FailingScreen(try HeadlessScreen(panel: panel, vblankTimer: false, now: 0))
        let assembly = try ShowAssembly(settings: showSettings(folder, interval: 1, transition: 0.2), panel: panel)
        let show = assembly.makeShow(on: screen, decoder: InlineDecoder(assembly.recipe), startAt: 0, now: 0)
        let log = EventLog()
        show.emit = { log.events.append($0) }
        return (screen, show, log)
    }

    @Test func aDisplayThatStopsTakingFramesIsLoggedOnceAndTheShowGoesOn() throws {
        let folder = try fourColours()
        let settings = showSettings(folder, interval: 1, transition: 0.2)
        let panel = PixelSize(width: 320, height: 180)
        let (screen, show, log) = try failingShow(folder)
        // Drive it by hand through a slide while every present fails.
        screen.failing = true
        var now = 0.0
        show.picturesReady(at: now)
        while now < 1.5 {
            show.update(at: now)
            now += 1.0 / 60
        }
        #expect(show.statistics.slides == 1)
        let lost = log.events.filter { if case .displayLost = $0 { true } else { false } }
        #expect(lost == [.displayLost(reason: "failing: drmModePageFlip failed: No such device (errno 19)")])
        #expect(lost.first?.logLine(verbose: false)?.text
            == "cannot present a frame: failing: drmModePageFlip failed: No such device (errno 19); retrying every second")
        // No busy retrying: the next attempt is a second after the last.
        let retry = try #require(show.nextWakeUp(at: now))
        #expect(retry > now + 0.1)
        // The display comes back: frames flow again and the show is where the time says.
        screen.failing = false
        now = retry
        show.update(at: now)
        if let flip = screen.inner.pendingFlipTime { show.screenEvents(at: flip) }
        let back = try #require(log.events.firstIndex(of: .displayBack))
        #expect(back > log.events.firstIndex(of: lost[0])!)
        #expect(try screen.inner.shown?.pixels == (SnapshotJob(settings: settings, screen: panel, position: 1).run().frame).pixels)
    }

    /// A present refused for want of DRM master (a VT switch mid-slide:
    /// the seat's event comes a moment after the kernel stops taking
    /// commits) is not a lost display: nothing is said if the next try
    /// works; said once if it fails again a second later.
    @Test func aPresentRefusedForWantOfMasterIsSaidOnlyWhenItLasts() throws {
        let folder = try fourColours()
        for lasting in [false, true] {
            let (screen, show, log) = try failingShow(folder)
            screen.failure = DRMError(device: "failing", kind: .busy)
            screen.failing = true
            var now = 0.0
            show.picturesReady(at: now)
            show.update(at: now)
            // The next try, a second later: refused again, or taken.
            screen.failing = lasting
            now = try #require(show.nextWakeUp(at: now))
            show.update(at: now)
            let said = log.events.filter { if case .displayLost = $0 { true } else { false } }.count
            #expect(said == (lasting ? 1 : 0), "lasting \(lasting): \(log.events)")
            #expect(log.events.contains(.displayBack) == false)
        }
    }
}
