import KioskCore
import Testing

/// The display's state machine (issue 36): every transition, on simulated
/// time. Wall time is Unix seconds in UTC (offset 0); 1970-01-05 was a
/// Monday, so `monday(h)` is that Monday at hour h. The monotonic clock
/// runs alongside, from 0 at Monday 00:00.
@Suite struct DisplayStateTests {
    private let utc: (Int64) -> Int = { _ in 0 }
    private static let mondayStart: Int64 = 4 * 86_400
    private func wall(_ hours: Double) -> Int64 { Self.mondayStart + Int64(seconds(hours)) }
    /// Whole seconds, so 08:10 is exactly 600 s after 08:00.
    private func seconds(_ hours: Double) -> Double { (hours * 3600).rounded() }

    /// On 07:00 to 19:00 every day; idle after 10 minutes.
    private func machine(idleOff: Double? = 600, waking: PresenceWaking = .inHours, schedule: String? = "mon-sun 07:00-19:00", at hours: Double = 8)
        throws -> DisplayStateMachine {
        var power = DisplayPower(schedule: try schedule.map { try DisplaySchedule(parsing: $0) })
        power.request = .auto
        var machine = DisplayStateMachine(power: power, idleOff: idleOff, waking: waking, now: seconds(hours))
        _ = machine.update(wall: wall(hours), now: seconds(hours), utcOffset: utc)
        return machine
    }

    /// Asks the machine at `hours` (both clocks).
    private func state(_ machine: inout DisplayStateMachine, _ hours: Double) -> DisplayState {
        machine.update(wall: wall(hours), now: seconds(hours), utcOffset: utc)
    }

    private func presence(_ machine: inout DisplayStateMachine, _ hours: Double) -> Bool {
        machine.presence(wall: wall(hours), now: seconds(hours), utcOffset: utc)
    }

    /// A sensor says someone is there (`held`) or, now, nobody, at `hours`.
    private func sensed(_ machine: inout DisplayStateMachine, _ held: Bool, _ hours: Double) -> Bool {
        machine.presence(held: held, wall: wall(hours), now: seconds(hours), utcOffset: utc)
    }

    @Test func idleTurnsItOffAndPresenceOnAgain() throws {
        var m = try machine()
        #expect(state(&m, 8) == .on)
        #expect(m.nextChange(wall: wall(8), now: 8 * 3600, utcOffset: utc).monotonic == Double(8 * 3600 + 600), "idle at 08:10")
        #expect(state(&m, 8 + 9.0 / 60) == .on)
        #expect(state(&m, 8 + 10.0 / 60) == .offByIdle)
        #expect(m.nextChange(wall: wall(8.2), now: 8.2 * 3600, utcOffset: utc).monotonic == nil, "off: waiting costs nothing")
        #expect(presence(&m, 9), "presence wakes an idle display")
        #expect(state(&m, 9) == .on && state(&m, 9 + 9.0 / 60) == .on)
    }

    @Test func presenceWhileOnPutsTheIdleOffBack() throws {
        var m = try machine()
        #expect(!presence(&m, 8 + 8.0 / 60), "already on: nothing turns on")
        #expect(state(&m, 8 + 12.0 / 60) == .on, "10 minutes from the last presence, not from the start")
        #expect(state(&m, 8 + 18.0 / 60) == .offByIdle)
    }

    @Test func theScheduleTurnsItOffAndItsMorningOnWithAFreshIdle() throws {
        var m = try machine(at: 18.9)
        #expect(state(&m, 18.95) == .on)
        #expect(state(&m, 19) == .offBySchedule)
        #expect(!presence(&m, 22), "off-hours: presence does not turn it on (wake_on_presence = true)")
        #expect(state(&m, 22) == .offBySchedule)
        // The next morning: on, the idle count starting at 07:00, not at the last presence.
        #expect(state(&m, 24 + 7) == .on)
        #expect(state(&m, 24 + 7 + 9.0 / 60) == .on)
        #expect(state(&m, 24 + 7 + 10.0 / 60) == .offByIdle)
        #expect(m.nextChange(wall: wall(24 + 8), now: 32 * 3600, utcOffset: utc).wall == wall(24 + 19), "the evening's change still comes")
    }

    @Test func idleOffHoursEndWithTheSchedulesEvening() throws {
        var m = try machine(at: 18.5)
        #expect(state(&m, 18.5 + 10.0 / 60) == .offByIdle)
        #expect(state(&m, 19.5) == .offBySchedule, "after 19:00 the schedule is the reason")
    }

    @Test func alwaysWakesInTheOffHoursForIdleOffAfterTheLastPresence() throws {
        var m = try machine(waking: .always, at: 20)
        #expect(state(&m, 20) == .offBySchedule)
        #expect(presence(&m, 22), "always: presence turns it on at night")
        #expect(state(&m, 22 + 9.0 / 60) == .on)
        #expect(m.nextChange(wall: wall(22), now: 22 * 3600, utcOffset: utc).monotonic == Double(22 * 3600 + 600))
        #expect(state(&m, 22 + 10.0 / 60) == .offBySchedule, "back off, for the schedule")
        // Without idle_off, an out-of-hours wake lasts ten minutes.
        var n = try machine(idleOff: nil, waking: .always, at: 20)
        #expect(presence(&n, 21))
        #expect(state(&n, 21 + 9.0 / 60) == .on && state(&n, 21 + 10.0 / 60) == .offBySchedule)
    }

    @Test func neverLetsOnlyTheScheduleAndCommandsTurnItOn() throws {
        var m = try machine(waking: .never)
        #expect(state(&m, 8 + 10.0 / 60) == .offByIdle)
        #expect(!presence(&m, 9) && state(&m, 9) == .offByIdle)
        m.request(.auto, now: seconds(10))
        #expect(state(&m, 10) == .on, "display auto: someone asked, a fresh idle count")
    }

    @Test func commandsWinOverIdleScheduleAndPresence() throws {
        var m = try machine()
        m.request(.off, now: seconds(8))
        #expect(state(&m, 8) == .offByCommand)
        #expect(!presence(&m, 8.5) && state(&m, 8.5) == .offByCommand, "presence does not undo display off")
        m.request(.on, now: seconds(9))
        #expect(state(&m, 9 + 30.0 / 60) == .on, "display on: no idle")
        #expect(state(&m, 20) == .on, "nor the schedule")
        #expect(m.nextChange(wall: wall(20), now: 20 * 3600, utcOffset: utc) == (nil, nil))
        m.request(.auto, now: seconds(20))
        #expect(state(&m, 20) == .offBySchedule)
        #expect(state(&m, 24 + 7.5) == .on)
    }

    @Test func withoutScheduleOrIdleItIsAlwaysOn() throws {
        var m = try machine(idleOff: nil, schedule: nil)
        #expect(state(&m, 8) == .on && state(&m, 1000) == .on)
        #expect(m.nextChange(wall: wall(8), now: 8 * 3600, utcOffset: utc) == (nil, nil))
        #expect(DisplayState.allCases.map(\.rawValue) == ["on", "off_by_schedule", "off_by_idle", "off_by_command"])
    }

    /// A sensor that keeps saying someone is there (a PIR held high, a
    /// proximity switch on) keeps the display on however long; its release
    /// is the last presence.
    @Test func aHeldSensorHoldsIdlenessOffUntilItLetsGo() throws {
        var m = try machine()
        #expect(!sensed(&m, true, 8.1))
        #expect(m.nextChange(wall: wall(8.1), now: seconds(8.1), utcOffset: utc).monotonic == nil, "nothing to time while held")
        #expect(state(&m, 12) == .on, "held for hours: still on")
        _ = sensed(&m, false, 12)
        #expect(m.nextChange(wall: wall(12), now: seconds(12), utcOffset: utc).monotonic == seconds(12) + 600)
        #expect(state(&m, 12 + 9.0 / 60) == .on && state(&m, 12 + 10.0 / 60) == .offByIdle)
        #expect(sensed(&m, true, 13), "a sensor wakes it")
    }

    /// A sensor held where it may not wake the display holds nothing:
    /// `wake_on_presence = false` after idling off, and the off-hours.
    @Test func aHeldSensorThatMayNotWakeTheDisplayHoldsNothing() throws {
        var m = try machine(waking: .never)
        #expect(state(&m, 8 + 10.0 / 60) == .offByIdle)
        #expect(!sensed(&m, true, 9))
        #expect(state(&m, 9) == .offByIdle && !m.presenceHeld)
        var night = try machine(at: 20)
        #expect(!sensed(&night, true, 20) && state(&night, 20) == .offBySchedule)
        // wake_on_presence = "always": on in the off-hours while held, and for idle_off after.
        var always = try machine(waking: .always, at: 20)
        #expect(sensed(&always, true, 20))
        #expect(state(&always, 22) == .on)
        _ = sensed(&always, false, 22)
        #expect(state(&always, 22 + 9.0 / 60) == .on && state(&always, 22 + 10.0 / 60) == .offBySchedule)
    }
}

/// Presence sensors across devices (``PresenceSensors``), and which events are theirs.
@Suite struct PresenceSensorsTests {
    private func key(_ code: UInt16, _ value: Int32) -> InputEvent { InputEvent(type: InputCode.key, code: code, value: value, time: 0) }

    @Test func anySensorHeldHoldsAndAnUnpluggedOneLetsGo() {
        let inputs = PresenceInputs(keys: [143], switches: [0x0b])
        #expect(inputs.contains(key(143, 1)) && !inputs.contains(key(30, 1)))
        #expect(inputs.contains(InputEvent(type: InputCode.switchEvent, code: 0x0b, value: 1, time: 0)))
        #expect(!inputs.contains(InputEvent(type: 3, code: 0x0b, value: 1, time: 0)), "an axis with the switch's number is no switch")
        var sensors = PresenceSensors()
        sensors.take(key(143, 1), from: "hall")
        sensors.take(key(143, 2), from: "hall")  // autorepeat: still down
        sensors.take(InputEvent(type: InputCode.switchEvent, code: 0x0b, value: 1, time: 0), from: "door")
        sensors.take(key(143, 0), from: "hall")
        #expect(sensors.isHeld, "the door's switch still says someone is near")
        let hallHeld = sensors.forget(device: "hall"), doorHeld = sensors.forget(device: "door")
        #expect(!hallHeld, "the hall's PIR held nothing any more")
        #expect(doorHeld && !sensors.isHeld)
    }
}
