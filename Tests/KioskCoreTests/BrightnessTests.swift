import KioskCore
import Testing

/// `brightness`: one level, or levels by the time of day whose `off` hours
/// are off-hours (issue 36). Wall time is Unix seconds; 1970-01-05 was a
/// Monday, and `utc` keeps the wall clock on UTC.
@Suite struct BrightnessTests {
    private let utc: (Int64) -> Int = { _ in 0 }
    private func at(_ hours: Double) -> Int64 { 4 * 86_400 + Int64((hours * 3600).rounded()) }

    @Test func oneLevelHoldsAllDay() throws {
        for written in ["70", "70%", " 70% "] {
            let brightness = try Brightness(parsing: written)
            #expect(brightness.level(at: at(3), utcOffset: utc) == .percent(70) && brightness.nextChange(after: at(3), utcOffset: utc) == nil)
        }
        #expect(Brightness.full.percent(at: at(12), utcOffset: utc) == 100)
    }

    @Test func levelsHoldFromTheirTimeUntilTheNextRoundTheClock() throws {
        let brightness = try Brightness(parsing: "21:00 40%, 07:00 100%, 23:00 off")
        #expect(brightness.level(at: at(6.99), utcOffset: utc) == .off, "before the first time: the last level, from last night")
        #expect(brightness.level(at: at(7), utcOffset: utc) == .percent(100))
        #expect(brightness.level(at: at(20.99), utcOffset: utc) == .percent(100))
        #expect(brightness.level(at: at(21), utcOffset: utc) == .percent(40))
        #expect(brightness.level(at: at(23), utcOffset: utc) == .off)
        #expect(brightness.nextChange(after: at(8), utcOffset: utc) == at(21))
        #expect(brightness.nextChange(after: at(21), utcOffset: utc) == at(23))
        #expect(brightness.nextChange(after: at(23.5), utcOffset: utc) == at(24 + 7), "overnight to the morning")
        #expect(brightness.percent(at: at(2), utcOffset: utc) == 40, "woken in its off hours: its lowest level")
        #expect(brightness.level(at: at(3), utcOffset: utc) == .off && brightness.level(at: at(12), utcOffset: utc) != .off && brightness.turnsOff)
        let neverOff = try Brightness(parsing: "07:00 100%, 21:00 40%"), allDayOff = try Brightness(parsing: "07:00 off")
        #expect(!neverOff.turnsOff && allDayOff.turnsOff)
    }

    /// Its `off` hours are off-hours for the display, beside display_schedule's.
    @Test func itsOffHoursAreOffHoursForTheDisplay() throws {
        var power = DisplayPower(schedule: try DisplaySchedule(parsing: "mon-fri 06:00-22:00"), brightness: try Brightness(parsing: "07:00 100%, 23:00 off"))
        #expect(!power.inHours(at: at(6.5), utcOffset: utc), "the schedule on, the brightness off")
        #expect(power.inHours(at: at(12), utcOffset: utc))
        #expect(!power.inHours(at: at(22.5), utcOffset: utc), "the brightness on, the schedule off")
        #expect(power.nextChange(after: at(6.5), utcOffset: utc) == at(7), "the nearer of the two")
        power.request = .on
        #expect(power.nextChange(after: at(6.5), utcOffset: utc) == at(7), "a level still changes while forced on")
        #expect(DisplayPower(schedule: nil, brightness: try Brightness(parsing: "07:00 100%, 23:00 off")).requested == "schedule")
        var machine = DisplayStateMachine(power: DisplayPower(schedule: nil, brightness: try Brightness(parsing: "07:00 80%, 23:00 off")), now: 0)
        machine.power.request = .auto
        #expect(machine.update(wall: at(23.5), now: 10, utcOffset: utc) == .offBySchedule)
        #expect(machine.update(wall: at(24 + 7), now: 20, utcOffset: utc) == .on)
    }

    @Test func nonsenseIsRefusedWithWhereItIs() {
        for (text, token) in [("101", "101"), ("07:00 140%", "140%"), ("7:00 40%", "7:00 40%"), ("07:00 40%, 07:00 off", "07:00"),
                              ("", ""), ("24:00 off", "24:00 off"), ("07:00 dim", "dim"), ("07:00 40%,", "")] {
            #expect(throws: BrightnessError.self, "\(text)") { try Brightness(parsing: text) }
            do { _ = try Brightness(parsing: text) } catch { #expect(error.token == token, "\(text): \(error)") }
        }
    }
}

/// An ambient light sensor's lux to a brightness (`light_curve`), steadied
/// so light flickering round a point does not make the display pulse.
@Suite struct AmbientLightTests {
    @Test func theCurveIsStraightBetweenItsPointsAndFlatBeyond() throws {
        let curve = try LightCurve(parsing: "400 lux 100%, 0 lux 10%, 50 lux 40%")
        #expect(curve.points.map(\.lux) == [0, 50, 400])
        #expect(curve.percent(atLux: 0) == 10 && curve.percent(atLux: 25) == 25 && curve.percent(atLux: 50) == 40)
        #expect(curve.percent(atLux: 225) == 70 && curve.percent(atLux: 400) == 100 && curve.percent(atLux: 80_000) == 100)
        #expect(curve.percent(atLux: .nan) == 10)
        for (text, token) in [("50 lux", "50 lux"), ("50 lx 40%", "50 lx 40%"), ("-1 lux 40%", "-1 lux 40%"), ("50 lux 140%", "50 lux 140%"),
                              ("50 lux 40%, 50 lux 60%", "50 lux 60%"), ("", "")] {
            do {
                _ = try LightCurve(parsing: text)
                Issue.record("\(text) was taken")
            } catch { #expect(error.token == token, "\(text): \(error)") }
        }
    }

    @Test func smallChangesAreNotFollowedButTheEndsAre() throws {
        var dimming = AmbientDimming(curve: try LightCurve(parsing: "0 lux 10%, 100 lux 100%"))
        #expect(dimming.take(lux: 50) == 55, "the first reading sets the level")
        #expect(dimming.take(lux: 53) == nil && dimming.take(lux: 47) == nil, "a cloud: 3 points either way, not followed")
        #expect(dimming.percent == 55 && dimming.lux == 47)
        #expect(dimming.take(lux: 40) == 46, "9 points: followed")
        #expect(dimming.take(lux: 0) == 10)
        #expect(dimming.take(lux: 2) == nil)
        #expect(dimming.take(lux: 0) == nil, "already at the dark end")
        var bright = AmbientDimming(curve: try LightCurve(parsing: "0 lux 10%, 100 lux 100%"))
        _ = bright.take(lux: 97)
        #expect(bright.take(lux: 500) == 100, "the bright end is reached, however small the step")
        #expect(bright.take(lux: -3) == nil && bright.take(lux: .infinity) == nil, "nonsense from a sensor is ignored")
    }
}
