import Foundation
import KioskCore
#if canImport(PropertyBased)
import PropertyBased
#endif
import Testing
import TestSupport

/// Unix seconds of a wall-clock time in `zone` (Foundation's calendar, independent of the schedule's own arithmetic).
private func unix(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, in zone: TimeZone) -> Int64 {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    let date = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
    return Int64(date.timeIntervalSince1970)
}

private let utc = TimeZone(identifier: "UTC")!
private let berlin = TimeZone(identifier: "Europe/Berlin")!

private func offsets(_ zone: TimeZone) -> (Int64) -> Int {
    { zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval($0))) }
}

/// The next change found minute by minute: the reference the schedule's answer must equal.
private func bruteForceNextChange(_ schedule: DisplaySchedule, after t: Int64, offset: (Int64) -> Int) -> (Int64, Bool)? {
    let on = schedule.isOn(at: t, utcOffset: offset)
    var minute = (t / 60 + 1) * 60
    for _ in 0..<(15 * 24 * 60) {
        if schedule.isOn(at: minute, utcOffset: offset) != on { return (minute, !on) }
        minute += 60
    }
    return nil
}

@Suite struct DisplayScheduleTests {
    let example = try! DisplaySchedule(parsing: "mon-fri 07:00-19:00; sat,sun 09:00-23:00")

    /// 2026-11-23 is a Monday.
    func on(_ day: Int, _ hour: Int, _ minute: Int, _ schedule: DisplaySchedule? = nil) -> Bool {
        (schedule ?? example).isOn(at: unix(2026, 11, 23 + day, hour, minute, in: utc), utcOffset: { _ in 0 })
    }

    @Test func weekdaysAndWeekendFollowTheirRules() {
        for day in 0..<5 {
            #expect(!on(day, 6, 59) && on(day, 7, 0) && on(day, 18, 59) && !on(day, 19, 0), "weekday \(day)")
        }
        for day in 5..<7 {
            #expect(!on(day, 8, 59) && on(day, 9, 0) && on(day, 22, 59) && !on(day, 23, 0), "weekend day \(day)")
        }
    }

    @Test func aRangeEndingBeforeItStartsRunsPastMidnight() throws {
        let late = try DisplaySchedule(parsing: "fri 22:00-02:00")
        #expect(!on(4, 21, 59, late) && on(4, 22, 0, late) && on(5, 1, 59, late) && !on(5, 2, 0, late))
        // Sunday's night runs into Monday, across the week's end.
        let sunday = try DisplaySchedule(parsing: "sun 23:00-01:00")
        #expect(on(6, 23, 30, sunday) && on(7, 0, 59, sunday) && !on(7, 1, 0, sunday) && !on(6, 22, 59, sunday))
    }

    @Test func dayRangesWrapListsAndFullNamesWork() throws {
        let wrap = try DisplaySchedule(parsing: "Fri-Mon 10:00-11:00, 15:00-16:00")
        for day in 0..<7 {
            let expected = [0, 4, 5, 6].contains(day)
            #expect(on(day, 10, 30, wrap) == expected && on(day, 15, 30, wrap) == expected && !on(day, 12, 0, wrap))
        }
        let named = try DisplaySchedule(parsing: "monday, wednesday 00:00-24:00")
        #expect(on(0, 0, 0, named) && on(0, 23, 59, named) && !on(1, 12, 0, named) && on(2, 12, 0, named))
        #expect(try DisplaySchedule(parsing: "daily 00:00-24:00").nextChange(after: 0, utcOffset: { _ in 0 }) == nil)
    }

    @Test func mistakesNameTheBadToken() {
        func error(_ text: String) -> DisplayScheduleError? {
            do { _ = try DisplaySchedule(parsing: text); return nil } catch { return error }
        }
        #expect(error("mnday 07:00-19:00")?.token == "mnday")
        #expect(error("mnday 07:00-19:00")?.reason.hasPrefix("unknown day; did you mean mon?") == true)
        #expect(error("mon-fri 07:00-25:00")?.token == "25:00")
        #expect(error("mon-fri 7:0-19:00")?.token == "7:0")
        #expect(error("mon-fri 07:00-07:00")?.reason.contains("00:00-24:00") == true)
        #expect(error("mon-fri")?.token == "mon-fri")
        #expect(error("07:00-19:00")?.reason.contains("starts with its days") == true)
        #expect(error("mon-fri 07:00-19:00;")?.reason == "an empty rule between semicolons")
        #expect(error("")?.reason.contains("\"none\"") == true)
        #expect(error("mon-fri 07:00")?.token == "07:00")
        #expect(error("mon--fri 07:00-19:00") != nil)
    }

    @Test func theSettingSaysWhichScheduleAndWhy() {
        var settings = KioskSettings()
        #expect(throws: SettingError(
            setting: "display_schedule", value: "mon-fri 07:00-19:00; sat,sn 09:00-23:00",
            reason: "at \"sn\": unknown day; did you mean sun? days are mon, tue, wed, thu, fri, sat, sun, or daily")) {
            try settings.set("display_schedule", to: .string("mon-fri 07:00-19:00; sat,sn 09:00-23:00"))
        }
        #expect(throws: Never.self) { try settings.set("display_schedule", to: .string("none")) }
        #expect(settings.power.schedule == nil)
        #expect(throws: Never.self) { try settings.set("display_schedule", to: .string("daily 08:00-20:00")) }
        #expect(settings.writtenValue(of: "display_schedule") == .string("daily 08:00-20:00"))
    }

    @Test func theNextChangeOfEveryWeekdayRule() throws {
        let monday = unix(2026, 11, 23, 0, 0, in: utc)
        for (day, name) in DisplaySchedule.dayNames.enumerated() {
            let schedule = try DisplaySchedule(parsing: "\(name) 10:00-11:30")
            let opens = schedule.nextChange(after: monday, utcOffset: { _ in 0 })
            #expect(opens?.at == unix(2026, 11, 23 + day, 10, 0, in: utc) && opens?.on == true, "\(name)")
            let closes = schedule.nextChange(after: opens!.at, utcOffset: { _ in 0 })
            #expect(closes?.at == unix(2026, 11, 23 + day, 11, 30, in: utc) && closes?.on == false, "\(name)")
            // From the close, the same day a week later.
            #expect(schedule.nextChange(after: closes!.at, utcOffset: { _ in 0 })?.at == opens!.at + 7 * 86_400)
        }
        // Midnight: Friday's late range ends on Saturday.
        let late = try DisplaySchedule(parsing: "fri 22:00-02:00")
        #expect(late.nextChange(after: unix(2026, 11, 27, 23, 0, in: utc), utcOffset: { _ in 0 })?.at == unix(2026, 11, 28, 2, 0, in: utc))
    }

    @Test func springForwardInBerlin() throws {
        // 2026-03-29: at 02:00 CET the clock jumps to 03:00 CEST.
        let daily = try DisplaySchedule(parsing: "daily 07:00-19:00")
        let saturdayEvening = unix(2026, 3, 28, 20, 0, in: berlin)
        let change = try #require(daily.nextChange(after: saturdayEvening, utcOffset: offsets(berlin)))
        #expect(change.at == unix(2026, 3, 29, 7, 0, in: berlin) && change.on)
        #expect(change.at - saturdayEvening == 10 * 3600) // 11 wall-clock hours, one of them skipped
        // An edge in the hour that does not exist happens when the clock jumps past it.
        let early = try DisplaySchedule(parsing: "daily 02:30-06:00")
        let jump = try #require(early.nextChange(after: unix(2026, 3, 29, 1, 0, in: berlin), utcOffset: offsets(berlin)))
        #expect(jump.on && jump.at == unix(2026, 3, 29, 1, 0, in: utc))
    }

    @Test func autumnBackInBerlin() throws {
        // 2026-10-25: at 03:00 CEST the clock goes back to 02:00 CET.
        let daily = try DisplaySchedule(parsing: "daily 07:00-19:00")
        let saturdayEvening = unix(2026, 10, 24, 20, 0, in: berlin)
        let change = try #require(daily.nextChange(after: saturdayEvening, utcOffset: offsets(berlin)))
        #expect(change.at == unix(2026, 10, 25, 7, 0, in: berlin) && change.on)
        #expect(change.at - saturdayEvening == 12 * 3600) // 11 wall-clock hours, one of them twice
        // An edge in the repeated hour happens each time the clock shows it.
        let early = try DisplaySchedule(parsing: "daily 02:30-06:00")
        var t = unix(2026, 10, 25, 0, 0, in: utc) // 02:00 CEST
        var edges: [(Int64, Bool)] = []
        while let next = early.nextChange(after: t, utcOffset: offsets(berlin)), next.at < unix(2026, 10, 25, 6, 0, in: utc) {
            edges.append((next.at, next.on))
            t = next.at
        }
        let utcEdges = edges.map { ($0.0 - unix(2026, 10, 25, 0, 0, in: utc), $0.1) }
        let expected: [Int64] = [1800, 3600, 5400, 5 * 3600]
        #expect(utcEdges.map(\.0) == expected && utcEdges.map(\.1) == [true, false, true, false])
    }

    /// Random schedules in zones with daylight saving (a 30-minute one
    /// too), from random moments around their transitions: the next change
    /// is the brute-force, minute-by-minute answer.
    @Test func nextChangeMatchesMinuteByMinute() async throws {
        let zones = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu"].map { TimeZone(identifier: $0)! }
        let around: [Int64] = [
            unix(2026, 3, 27, 0, 0, in: utc), unix(2026, 3, 7, 0, 0, in: utc), unix(2026, 10, 23, 0, 0, in: utc),
            unix(2026, 10, 30, 0, 0, in: utc), unix(2026, 4, 3, 0, 0, in: utc), unix(2026, 10, 2, 0, 0, in: utc), unix(2026, 11, 23, 0, 0, in: utc),
        ]
        var random = SplitMix(seed: 15)
        for round in 0..<160 {
            var rules: [String] = []
            for _ in 0..<(1 + random.below(3)) {
                let first = random.below(7), last = random.below(7)
                let start = random.below(24 * 4) * 15, length = 15 + random.below(24 * 4 - 1) * 15
                let end = (start + length) % 1440
                func time(_ m: Int) -> String { String(format: "%02d:%02d", m / 60, m % 60) }
                rules.append("\(DisplaySchedule.dayNames[first])-\(DisplaySchedule.dayNames[last]) \(time(start))-\(time(end))")
            }
            let schedule = try DisplaySchedule(parsing: rules.joined(separator: "; "))
            let zone = zones[round % zones.count]
            let t = around[random.below(around.count)] + Int64(random.below(4 * 86_400))
            let expected = bruteForceNextChange(schedule, after: t, offset: offsets(zone))
            let found = schedule.nextChange(after: t, utcOffset: offsets(zone))
            #expect(found?.at == expected?.0 && found?.on == expected?.1, "\(schedule) in \(zone.identifier) after \(t)")
        }
    }
}
