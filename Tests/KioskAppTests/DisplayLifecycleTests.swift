import Foundation
@testable import KioskApp
import KioskCore
import SystemCalls
import TestSupport
import Testing

/// A TV on the other end of HDMI-CEC: what it was told.
final class FakeTV: TVLink {
    let path = "/dev/cec-test"
    private(set) var heard: [String] = []
    func sendStandby() { heard.append("standby") }
    func sendWake() { heard.append("wake") }
}

/// Unix seconds of a UTC wall-clock time.
private func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int) -> Int64 {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return Int64(calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!.timeIntervalSince1970)
}

@Suite struct DisplayLifecycleTests {
    /// A show on simulated time with the display's power kept by a
    /// schedule; the wall clock starts at `start`.
    func poweredShow(_ schedule: String, start: Int64) throws -> (SimulatedShow, PowerKeeper, FakeTV, PictureFolder) {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder))
        let tv = FakeTV()
        let keeper = PowerKeeper(
            schedule: try DisplaySchedule(parsing: schedule), controller: run.controller, tv: tv, log: { _ in },
            wallClock: { [unowned run] in start + Int64(run.now) }, utcOffset: { _ in 0 })
        return (run, keeper, tv, folder)
    }

    @Test func aScheduledNightHasNoWakeUpsAndTheMorningShowsThePicture() throws {
        let (run, keeper, tv, folder) = try poweredShow("daily 09:00-17:00", start: utc(2026, 11, 23, 16, 59))
        keeper.check()
        #expect(!run.show.asleep && tv.heard.isEmpty)
        #expect(keeper.nextCheck == utc(2026, 11, 23, 17, 0))
        run.run(until: 60)
        keeper.check() // the timer's moment: 17:00
        #expect(run.show.asleep && run.show.panel == .off && tv.heard == ["standby"])
        #expect(run.screen.shown == nil) // the panel shows nothing
        #expect(run.events.contains(.panelChanged(.off, why: "display_schedule \"daily 09:00-17:00\"")))
        let morning = try #require(keeper.nextCheck)
        #expect(morning == utc(2026, 11, 24, 9, 0))
        let (wakeUps, requests, slides) = (run.wakeUps, run.decoder.requests, run.show.statistics.slides)
        run.run(until: Double(morning - utc(2026, 11, 23, 16, 59)))
        #expect(run.wakeUps == wakeUps) // 16 hours: not one wake-up
        #expect(run.decoder.requests == requests && run.show.statistics.slides == slides) // nothing decoded, nothing slid
        keeper.check()
        #expect(!run.show.asleep && run.show.panel == .active && tv.heard == ["standby", "wake"])
        run.run(until: run.now + 0.5)
        // The picture it was on when it went dark, drawn in full.
        let target = Double(run.show.schedule.target)
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: target)).pixels)
        // It rests a whole interval before sliding on.
        run.run(until: run.now + 7)
        #expect(run.show.statistics.slides == slides)
        withExtendedLifetime(folder) {}
    }

    @Test func kioskctlDisplayOverridesTheScheduleUntilAuto() throws {
        let (run, keeper, tv, folder) = try poweredShow("daily 09:00-17:00", start: utc(2026, 11, 23, 12, 0))
        keeper.check()
        run.run(until: 1)
        let commands = ControlCommands(controller: run.controller, started: 0, power: keeper, wakeUp: { 0 })
        let off = commands.reply(to: .display(.off))
        #expect(off["ok"] == .bool(true) && off["display_power"] == "off" && off["panel"] == "off")
        #expect(commands.status.reply["display_power"] == "off" && commands.status.reply["panel"] == "off")
        #expect(keeper.nextCheck == nil) // off until told otherwise: no timer either
        run.run(until: 100)
        #expect(run.screen.shown == nil)
        let auto = commands.reply(to: .display(.auto))
        #expect(auto["display_power"] == "schedule" && auto["panel"] == "active")
        run.run(until: 101)
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: Double(run.show.schedule.target))).pixels)
        let on = commands.reply(to: .display(.on))
        #expect(on["display_power"] == "on" && keeper.nextCheck == nil)
        #expect(tv.heard == ["standby", "wake"])
        // A show with no power control says so.
        let other = try fourColours()
        let plain = try SimulatedShow(showSettings(other))
        let refused = ControlCommands(controller: plain.controller, started: 0, wakeUp: { 0 }).reply(to: .display(.off))
        #expect(refused["ok"] == .bool(false))
        withExtendedLifetime((folder, other)) {}
    }

    /// `idle_off`: nobody there for 10 minutes and the display goes off
    /// (no wake-up while it waits); a key wakes it with the picture it had.
    @Test func idleTurnsTheDisplayOffAndPresenceOnAgain() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder, interval: 3600))
        let tv = FakeTV()
        let keeper = PowerKeeper(
            schedule: nil, idleOff: 600, controller: run.controller, tv: tv, log: { _ in },
            wallClock: { [unowned run] in 1_795_680_000 + Int64(run.now) }, utcOffset: { _ in 0 })
        let commands = ControlCommands(controller: run.controller, started: 0, power: keeper, wakeUp: { 0 })
        keeper.check()
        #expect(keeper.nextIdleCheck == 600 && !run.show.asleep)
        run.run(until: 300)
        run.command(.personPresent)   // a key at 5 minutes
        #expect(keeper.nextIdleCheck == 900, "ten minutes from the last presence")
        run.run(until: 900)
        keeper.check()   // the idle deadline's moment
        #expect(run.show.asleep && tv.heard == ["standby"])
        #expect(run.events.contains(.panelChanged(.off, why: "idle_off: nobody there for 10m")))
        #expect(commands.status.reply["display_state"] == "off_by_idle" && commands.status.reply["panel"] == "off")
        #expect(keeper.nextIdleCheck == nil)
        let wakeUps = run.wakeUps
        run.run(until: 5000)
        #expect(run.wakeUps == wakeUps, "waiting for presence costs no wake-up")
        run.command(.personPresent)
        #expect(!run.show.asleep && tv.heard == ["standby", "wake"])
        #expect(run.events.contains(.panelChanged(.active, why: "someone is there")))
        #expect(commands.status.reply["display_state"] == "on" && keeper.nextIdleCheck == 5600)
        run.run(until: 5000.5)
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: Double(run.show.schedule.target))).pixels)
        // wake_on_presence = false, by a reload: only commands and the schedule turn it on.
        var settings = PowerSettings()
        settings.idleOff = 600
        settings.wakeOnPresence = .never
        keeper.use(settings)
        run.run(until: 5600)
        keeper.check()
        #expect(run.show.asleep)
        run.command(.personPresent)
        #expect(run.show.asleep && commands.status.reply["display_state"] == "off_by_idle")
        _ = commands.reply(to: .display(.auto))
        #expect(!run.show.asleep, "display auto: someone asked")
        withExtendedLifetime(folder) {}
    }

    /// A motion sensor (a PIR's KEY_WAKEUP, a proximity switch): while it
    /// says someone is there the display stays on past idle_off; ten
    /// minutes after it says nobody, it goes off; its next word wakes it.
    /// It never holds the slides, as a touch does.
    @Test func aMotionSensorKeepsTheDisplayOnWhileItSeesSomeoneAndWakesIt() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder, interval: 60))
        let keeper = PowerKeeper(
            schedule: nil, idleOff: 600, controller: run.controller, tv: nil, log: { _ in },
            wallClock: { [unowned run] in 1_795_680_000 + Int64(run.now) }, utcOffset: { _ in 0 })
        keeper.check()
        run.run(until: 100)
        run.controller.sensed(presenceHeld: true)
        #expect(keeper.nextIdleCheck == nil, "someone is there: no idleness runs")
        run.run(until: 2000)
        keeper.check()
        #expect(!run.show.asleep && run.show.schedule.lastPresence == nil, "on all along; the slides went on (no touch)")
        #expect(run.show.schedule.target > 20)
        run.controller.sensed(presenceHeld: false)
        #expect(keeper.nextIdleCheck == 2600, "ten minutes from when it last saw someone")
        run.run(until: 2600)
        keeper.check()
        #expect(run.show.asleep && keeper.state == .offByIdle)
        run.controller.sensed(presenceHeld: true)
        #expect(!run.show.asleep && keeper.state == .on, "motion wakes it")
        withExtendedLifetime(folder) {}
    }

    /// Presence during a slide (a key pressed while the strip moves): the
    /// idle count starts again from it, and the slide under way ends where
    /// it was going, on the snapshot's picture.
    @Test func presenceDuringASlidePutsIdleBackAndTheSlideEnds() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder, interval: 8, transition: 0.45))
        let keeper = PowerKeeper(
            schedule: nil, idleOff: 600, controller: run.controller, tv: nil, log: { _ in },
            wallClock: { [unowned run] in 1_795_680_000 + Int64(run.now) }, utcOffset: { _ in 0 })
        keeper.check()
        run.run(until: 8.2)
        #expect(run.show.schedule.isMoving(at: run.now), "mid-slide")
        run.command(.personPresent)  // a key while the strip moves
        #expect(abs((keeper.nextIdleCheck ?? 0) - (run.now + 600)) < 1e-9, "ten minutes from the presence, not from the start")
        run.run(until: 9)
        #expect(!run.show.schedule.isMoving(at: run.now) && run.show.centredItem == 1 && !run.show.asleep)
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: 1)).pixels)
        withExtendedLifetime(folder) {}
    }

    /// `status`'s `presence`: true while a sensor holds, or for a minute
    /// after a touch, key or remote; each change is an event (the MQTT
    /// state, Home Assistant's presence sensor, follows it).
    @Test func presenceIsSaidWhileASensorHoldsOrForAMinuteAfterATouch() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder, interval: 3600))
        let keeper = PowerKeeper(
            schedule: nil, controller: run.controller, tv: nil, log: { _ in },
            wallClock: { [unowned run] in 1_795_680_000 + Int64(run.now) }, utcOffset: { _ in 0 })
        var presenceEnds: Double?
        keeper.presence.rearmEnd = { presenceEnds = $0 }
        func said() -> [Bool] { run.readings.compactMap { if case .someoneThere(let there) = $0 { there } else { nil } } }
        keeper.check()
        #expect(!keeper.someoneThere && said().isEmpty)
        run.run(until: 10)
        run.command(.personPresent)
        #expect(keeper.someoneThere && said() == [true] && presenceEnds == 70)
        run.run(until: 70)
        keeper.presence.update()  // the deadline's moment
        #expect(!keeper.someoneThere && said() == [true, false] && presenceEnds == nil)
        run.controller.sensed(presenceHeld: true)
        run.run(until: 500)
        keeper.presence.update()
        #expect(keeper.someoneThere && said() == [true, false, true] && presenceEnds == nil, "held: no minute runs out")
        run.controller.sensed(presenceHeld: false)
        #expect(keeper.someoneThere && presenceEnds == 560, "a minute from the sensor's last word")
        withExtendedLifetime(folder) {}
    }

    /// `brightness = "07:00 100%, 21:00 40%, 23:00 off"` with no backlight:
    /// at 21:00 the frame on screen is dimmed to 40% of the snapshot's, as
    /// `status` says; at 23:00 the display goes off by the schedule.
    @Test func brightnessByTheTimeOfDayDimsInSoftwareAndItsOffIsOffHours() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder, interval: 3600))
        let start = utc(2026, 11, 23, 20, 59)
        let keeper = PowerKeeper(
            schedule: nil, brightness: try Brightness(parsing: "07:00 100%, 21:00 40%, 23:00 off"), controller: run.controller, tv: nil,
            log: { _ in }, wallClock: { [unowned run] in start + Int64(run.now) }, utcOffset: { _ in 0 })
        let commands = ControlCommands(controller: run.controller, started: 0, power: keeper, wakeUp: { 0 })
        keeper.check()
        run.run(until: 1)
        let snapshot = try run.snapshot(at: 0)
        #expect(try run.screen.shown?.pixels == snapshot.pixels && keeper.nextCheck == utc(2026, 11, 23, 21, 0))
        run.run(until: 60)
        keeper.check()  // 21:00
        run.run(until: 61)
        let dimmed = snapshot.pixels.map { dimmedPixel($0, toPercent: 40) }
        #expect(run.screen.shown?.pixels.map { $0 & 0xFF_FFFF } == dimmed, "40% of the snapshot, each channel rounded")
        #expect(commands.status.reply["brightness"] == .int(40) && commands.status.reply["dimmer"] == "software")
        #expect(commands.status.reply["display_power"] == "schedule")
        #expect(keeper.nextCheck == utc(2026, 11, 23, 23, 0))
        run.run(until: 2 * 3600 + 60)
        keeper.check()  // 23:00
        #expect(run.show.asleep && keeper.state == .offBySchedule)
        withExtendedLifetime(folder) {}
    }

    @Test func aTouchOnADarkPanelMovesNothing() throws {
        let (run, keeper, _, folder) = try poweredShow("daily 09:00-17:00", start: utc(2026, 11, 23, 20, 0))
        keeper.check()
        #expect(run.show.asleep)
        let target = run.show.schedule.target
        run.command(.touch(.caught))
        run.command(.touch(.dragged(pictures: 0.8)))
        run.command(.touch(.released(pictures: 0.8, velocity: 3, flick: true)))
        run.run(until: 5)
        #expect(run.show.schedule.target == target && run.screen.shown == nil)
        withExtendedLifetime(folder) {}
    }

    @Test func anUnpluggedScreenKeepsTheShowsTimeAndComesBackWhereItIs() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder, interval: 2, transition: 0.5))
        run.run(until: 1)
        let frames = run.frames.count
        run.controller.displayDisconnected(why: "Virtual-1 has no screen")
        #expect(run.show.panel == .disconnected)
        #expect(run.log.last == "display: Virtual-1 has no screen; the show keeps its time and comes back when a screen does")
        let wakeUps = run.wakeUps, slides = run.show.statistics.slides
        run.run(until: 9)
        #expect(run.frames.count == frames) // nothing drawn
        #expect(run.show.statistics.slides - slides >= 3) // time went on
        // Woken only to keep the show's time, once a slide: no frames, no spinning.
        #expect(run.wakeUps - wakeUps <= run.show.statistics.slides - slides + 1)
        // The screen is back: the strip laid out for it and drawn at once, where the time says.
        run.controller.move(to: run.screen, assembly: try ShowAssembly(settings: run.settings, panel: run.screen.panelSize))
        #expect(run.show.panel == .active)
        run.run(until: 9.1)
        #expect(run.frames.count == frames + 1)
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: run.show.schedule.position(at: run.now))).pixels)
    }

    /// The screen comes back with another mode (a hotplug's new preferred
    /// one): the strip is laid out for the new size and drawn at once,
    /// where the show's time says; the frame is the snapshot at that size.
    @Test func aScreenBackWithAnotherModeIsLaidOutForIt() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder, interval: 2, transition: 0.5))
        run.run(until: 1)
        run.controller.displayDisconnected(why: "Virtual-1 has no screen")
        run.run(until: 5)
        let bigger = PixelSize(width: 640, height: 360)
        let screen = try HeadlessScreen(panel: bigger, vblankTimer: false, now: 0)
        let earlier = run.events.count
        run.controller.move(to: screen, assembly: try ShowAssembly(settings: run.settings, panel: bigger), announce: false)
        #expect(!run.events.contains(.settingsApplied)) // a hotplug is not a reload
        #expect(!run.events.dropFirst(earlier).contains { if case .playlistChanged = $0 { true } else { false } }, "nothing came or went")
        run.show.picturesReady(at: 5)
        run.show.update(at: 5)
        let flip = try #require(screen.pendingFlipTime)
        run.show.screenEvents(at: flip)
        #expect(flip - 5 < 0.02) // the next refresh
        // Its pictures all drawn, the show says so again ("showing N picture(s), picture P in the centre").
        #expect(run.events.dropFirst(earlier).contains { if case .ready(_, run.show.centredItem, _) = $0 { true } else { false } })
        let position = run.show.schedule.position(at: flip)
        #expect(try screen.shown?.pixels == (SnapshotJob(settings: run.settings, screen: bigger, position: position).run().frame).pixels)
    }
}
