import Foundation
import ImageCodecs
@testable import KioskApp
import KioskCore
import KioskRendering
import Testing

/// Words on the running show, on simulated time: captions that slide with
/// their pictures, a clock that turns at the minute and sleeps with the
/// display, a message that expires. Every frame is checked against what
/// `kioskd snapshot` draws for the same position, settings and time.
@Suite struct ScreenTextShowTests {
    func textSettings(_ folder: PictureFolder, interval: Double = 1000) throws -> KioskSettings {
        var settings = showSettings(folder, interval: interval, transition: 0.5)
        settings.text.font = "DejaVu Sans"
        return settings
    }

    @Test func aCaptionSlidesWithItsPictureFrameByFrameAsTheSnapshotDrawsIt() throws {
        let folder = try fourColours()
        var settings = try textSettings(folder, interval: 2)
        settings.text.caption = try CaptionTemplate(parsing: "{file}\nfrom {folder}")
        let run = try SimulatedShow(settings)
        run.run(until: 2.6)
        let sliding = run.frames.filter { frame in
            let position = run.show.schedule.position(at: frame.shownAt)
            return position > 0.05 && position < 0.95
        }
        #expect(sliding.count >= 10)
        var plain = settings
        plain.text.caption = nil
        for frame in sliding {
            let position = run.show.schedule.position(at: frame.shownAt)
            #expect(try frame.pixels == run.snapshot(at: position), "position \(position)")
            // The caption is there: the frame is not the one without it.
            #expect(try frame.pixels != SnapshotJob(settings: plain, screen: run.screen.panelSize, position: position).run().frame)
        }
        #expect(run.show.texts.shownWords[.caption(PictureKey(file: folder.path + "/a.png"))] == "a\nfrom \(folder.path.split(separator: "/").last!)")
    }

    /// A show of `folder`'s pictures at rest with a `%H:%M` clock (the folder lives as long as the caller keeps it).
    func clockShow(_ folder: PictureFolder) throws -> SimulatedShow {
        var settings = try textSettings(folder)
        settings.text.clock = try StrftimePattern("%H:%M")
        return try SimulatedShow(settings)
    }

    @Test func theClockTurnsAtTheMinuteAndDrawsNothingBetween() throws {
        let folder = try fourColours()
        let run = try clockShow(folder)
        run.run(until: 30)
        #expect(run.show.texts.clockWords == "14:00")
        #expect(try run.screen.shown == run.snapshot(at: 0))
        // At rest, the next wake-up is the minute's turn (the next slide is 1000 s away).
        #expect(run.show.nextWakeUp(at: run.now) == 60)
        let before = run.frames.count
        run.run(until: 59.9)
        #expect(run.frames.count == before, "no frame between the minute's turns")
        run.run(until: 60.1)
        #expect(run.frames.count == before + 1)
        #expect(try #require(run.frames.last).shownAt < 60.02, "drawn at the turn")
        #expect(run.show.texts.clockWords == "14:01")
        #expect(try run.screen.shown == run.snapshot(at: 0))
    }

    @Test func theClockNeitherWakesNorDrawsWhileTheDisplayIsOff() throws {
        let folder = try fourColours()
        let run = try clockShow(folder)
        run.run(until: 5)
        run.show.sleep(at: run.now, why: "test")
        let wakeUps = run.wakeUps, drawn = run.texts.drawn
        run.run(until: 600)
        #expect(run.wakeUps == wakeUps)
        #expect(run.texts.drawn == drawn)
        #expect(run.show.nextWakeUp(at: run.now) == nil)
        // Woken at 10:00 past, it shows 14:10 at once.
        run.show.wake(at: run.now, why: "test")
        run.run(until: 600.2)
        #expect(run.show.texts.clockWords == "14:10")
        #expect(try run.screen.shown == run.snapshot(at: 0))
    }

    /// The text settings apply on a reload, as their reference says (live):
    /// captions and a clock appear, change and go without a restart.
    @Test func aReloadAddsChangesAndRemovesTheText() throws {
        let folder = try fourColours()
        var settings = try textSettings(folder)
        let run = try SimulatedShow(settings)
        run.run(until: 1)
        settings.text.caption = try CaptionTemplate(parsing: "{file}")
        settings.text.clock = try StrftimePattern("%H:%M")
        try run.reload(settings)
        run.run(until: 2)
        #expect(try run.screen.shown == run.snapshot(at: 0))
        #expect(run.show.texts.clockWords == "14:00")
        settings.text.legibility = .band
        settings.text.clockCorner = .topLeft
        try run.reload(settings)
        run.run(until: 3)
        #expect(try run.screen.shown == run.snapshot(at: 0))
        settings.text = TextSettings()
        try run.reload(settings)
        run.run(until: 4)
        #expect(try run.screen.shown == run.snapshot(at: 0))
        #expect(run.show.texts.clockWords == nil)
    }

    /// A portrait panel (a screen turned 90 or 270 degrees, or upside down):
    /// the text is upright for the viewer, the panel's frame being exactly
    /// the upright screen's frame turned.
    @Test(arguments: [Rotation.quarter, .half, .threeQuarters])
    func textIsUprightOnATurnedPanel(_ rotation: Rotation) throws {
        let folder = try fourColours()
        var settings = try textSettings(folder)
        settings.text.caption = try CaptionTemplate(parsing: "{file}\nمرحبا 你好")
        settings.text.clock = try StrftimePattern("%H:%M")
        let upright = PixelSize(width: 320, height: 240)
        var job = SnapshotJob(settings: settings, screen: upright, position: 0.3)
        job.message = "Closing soon"
        job.time = SimulatedShow.wallStart
        let expected = try job.run().frame
        settings.display.rotation = rotation
        job = SnapshotJob(settings: settings, screen: rotation.logicalSize(of: upright), position: 0.3)
        job.message = "Closing soon"
        job.time = SimulatedShow.wallStart
        let turned = try job.run().frame
        #expect(turned == uprightTurned(expected, by: rotation))
    }

    /// `image` turned clockwise by `rotation`, pixel by pixel.
    func uprightTurned(_ image: RasterImage, by rotation: Rotation) -> RasterImage {
        var out = RasterImage(size: rotation.logicalSize(of: image.size), filledWith: .black)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let at = rotation.panelPoint(ofScreenX: x, y: y, screen: image.size)
                out[at.x, at.y] = image[x, y]
            }
        }
        return out
    }

    @Test func aMessageShowsOverEverythingUntilItExpires() throws {
        let folder = try fourColours()
        var settings = try textSettings(folder)
        settings.text.caption = try CaptionTemplate(parsing: "{file}")
        let run = try SimulatedShow(settings)
        run.run(until: 1)
        let before = try #require(run.screen.shown)
        run.controller.message(.show("Closing in 15 minutes", seconds: 10))
        run.run(until: 5)
        #expect(run.screen.shown != before)
        #expect(try run.screen.shown == run.snapshot(at: 0, message: "Closing in 15 minutes"))
        // It survives a slide.
        run.command(.next)
        run.run(until: 8)
        #expect(try run.screen.shown == run.snapshot(at: 1, message: "Closing in 15 minutes"))
        #expect(run.show.nextWakeUp(at: run.now) == 11)
        run.run(until: 11.1)
        #expect(run.show.texts.message == nil)
        #expect(try run.screen.shown == run.snapshot(at: 1))
        // Until cleared.
        run.controller.message(.show("Until cleared", seconds: nil))
        run.run(until: 100)
        #expect(try run.screen.shown == run.snapshot(at: 1, message: "Until cleared"))
        run.controller.message(.clear)
        run.run(until: 100.2)
        #expect(try run.screen.shown == run.snapshot(at: 1))
    }
}
