/// When the display is on (`display_schedule`), in local time, for example
/// `"mon-fri 07:00-19:00; sat,sun 09:00-23:00"`.
///
/// - Rules are separated by `;`. A rule is days, then one or more time
///   ranges separated by commas: `mon-fri 07:00-12:00, 13:00-19:00`.
/// - Days are `mon` to `sun` (full names too, any case), lists (`sat,sun`),
///   ranges (`mon-fri`, and `fri-mon` across the week's end), or `daily`.
/// - A range `HH:MM-HH:MM` is on from its start to its end; `24:00` is the
///   end of the day. A range whose end is before its start runs past
///   midnight into the next day (`fri 18:00-02:00` is on until Saturday 02:00).
/// - Outside every range the display is off. Overlapping rules add up.
///
/// The schedule follows the wall clock: a change at a time the clock skips
/// (spring forward) happens when the clock jumps past it, and one in the
/// hour the clock repeats (autumn) happens each time the clock shows it.
/// Minutes are the resolution: the week is 10,080 bits.
public struct DisplaySchedule: Hashable, Sendable, CustomStringConvertible {
    public static let minutesPerDay = 24 * 60
    public static let minutesPerWeek = 7 * minutesPerDay
    public static let dayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let fullDayNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// Bit `m` is minute `m` of the week, Monday 00:00 being 0.
    private var week = [UInt64](repeating: 0, count: (minutesPerWeek + 63) / 64)
    /// The schedule as written.
    public let description: String

    public init(parsing text: String) throws(DisplayScheduleError) {
        description = text
        let rules = text.split(separator: ";", omittingEmptySubsequences: false)
        for rule in rules {
            let trimmed = rule.trimmingSpaces
            guard !trimmed.isEmpty else {
                throw DisplayScheduleError(token: String(rule), reason: rules.count == 1
                    ? "the schedule is empty; write rules like \"mon-fri 07:00-19:00\", or \"none\" for no schedule"
                    : "an empty rule between semicolons")
            }
            try add(rule: trimmed)
        }
    }

    /// True when the schedule has the display on at `minute` of the week (Monday 00:00 = 0).
    public func isOn(minuteOfWeek minute: Int) -> Bool {
        week[minute >> 6] & (1 << UInt64(minute & 63)) != 0
    }

    /// True when the display is on at local time `localSeconds` (seconds
    /// since 1970-01-01 00:00 on the wall clock).
    public func isOn(localSeconds: Int64) -> Bool {
        isOn(minuteOfWeek: Self.minuteOfWeek(localSeconds: localSeconds))
    }

    /// True when the display is on at `utc` (Unix seconds) where the wall
    /// clock is `utcOffset(utc)` seconds ahead of UTC.
    public func isOn(at utc: Int64, utcOffset: (Int64) -> Int) -> Bool {
        isOn(localSeconds: utc + Int64(utcOffset(utc)))
    }

    /// The minute of the week (Monday 00:00 = 0) at a wall-clock time.
    public static func minuteOfWeek(localSeconds: Int64) -> Int {
        let minute = floorDivide(localSeconds, 60)
        let day = floorDivide(minute, Int64(minutesPerDay))
        // 1970-01-01 was a Thursday: day 3 of a week that starts on Monday.
        let weekday = Int(floorModulo(day + 3, 7))
        return weekday * minutesPerDay + Int(floorModulo(minute, Int64(minutesPerDay)))
    }

    /// True when the display is never switched by the schedule (always on, or never).
    public var isConstant: Bool {
        let first = isOn(minuteOfWeek: 0)
        return (0..<Self.minutesPerWeek).allSatisfy { isOn(minuteOfWeek: $0) == first }
    }

    /// The first moment after `utc` (Unix seconds) when the schedule turns
    /// the display on or off, and which; nil for a schedule that never does.
    ///
    /// `utcOffset(t)`: how far the wall clock is ahead of UTC at `t` (the
    /// local time zone, daylight saving included). Between two changes of
    /// the offset the wall clock runs with UTC, so the next edge of the week
    /// is found directly; where the offset changes first, that moment is
    /// found by bisection and the search goes on from there (the jump itself
    /// may cross an edge). Zones change their offset at most twice a year,
    /// so at most one change is assumed between two edges a week apart.
    public func nextChange(after utc: Int64, utcOffset: (Int64) -> Int) -> (at: Int64, on: Bool)? {
        guard !isConstant else { return nil }
        let on = isOn(at: utc, utcOffset: utcOffset)
        var from = utc
        var offset = Int64(utcOffset(utc))
        // Each pass ends at an edge or at an offset change; a zone has few of the latter.
        for _ in 0..<8 {
            let localEdge = nextEdge(afterLocal: from + offset, leaving: on)
            let edge = localEdge - offset
            if Int64(utcOffset(edge)) == offset && Int64(utcOffset(edge - 1)) == offset { return (edge, !on) }
            // The offset changes in (from, edge]: find the first second with the new one.
            var low = from, high = edge
            while high - low > 1 {
                let middle = low + (high - low) / 2
                if Int64(utcOffset(middle)) == offset { low = middle } else { high = middle }
            }
            from = high
            offset = Int64(utcOffset(high))
            if isOn(localSeconds: high + offset) != on { return (high, !on) }
        }
        return nil
    }

    /// The first whole minute after wall-clock time `local` whose state is not `on`.
    private func nextEdge(afterLocal local: Int64, leaving on: Bool) -> Int64 {
        var minute = floorDivide(local, 60) + 1
        var ofWeek = Self.minuteOfWeek(localSeconds: minute * 60)
        for _ in 0..<Self.minutesPerWeek {
            if isOn(minuteOfWeek: ofWeek) != on { return minute * 60 }
            minute += 1
            ofWeek = ofWeek + 1 == Self.minutesPerWeek ? 0 : ofWeek + 1
        }
        return minute * 60 // never reached for a schedule that is not constant
    }

    // MARK: Parsing

    private mutating func add(rule: Substring) throws(DisplayScheduleError) {
        // The days run up to the first digit; the times follow.
        guard let timesStart = rule.firstIndex(where: \.isASCIIDigit) else {
            throw DisplayScheduleError(
                token: String(rule), reason: "a rule needs days and times, e.g. \"mon-fri 07:00-19:00\"")
        }
        let daysText = rule[..<timesStart].trimmingSpaces
        guard !daysText.isEmpty else {
            throw DisplayScheduleError(token: String(rule), reason: "a rule starts with its days, e.g. \"mon-fri 07:00-19:00\"")
        }
        let days = try Self.days(daysText)
        for range in rule[timesStart...].split(separator: ",") {
            let (start, end) = try Self.timeRange(range.trimmingSpaces)
            for day in days {
                let first = day * Self.minutesPerDay + start
                let last = day * Self.minutesPerDay + (end > start ? end : end + Self.minutesPerDay)
                for minute in first..<last { setOn(minute % Self.minutesPerWeek) }
            }
        }
    }

    private mutating func setOn(_ minute: Int) { week[minute >> 6] |= 1 << UInt64(minute & 63) }

    /// The weekdays (Monday = 0) that `text` names.
    private static func days(_ text: Substring) throws(DisplayScheduleError) -> [Int] {
        if text.lowercased() == "daily" { return Array(0..<7) }
        var days: [Int] = []
        for item in text.split(separator: ",") {
            let item = item.trimmingSpaces
            let ends = item.split(separator: "-", omittingEmptySubsequences: false)
            guard ends.count <= 2, !item.isEmpty else {
                throw DisplayScheduleError(token: String(item), reason: "expected a day like \"mon\" or a range like \"mon-fri\"")
            }
            let first = try day(ends[0].trimmingSpaces)
            let last = ends.count == 2 ? try day(ends[1].trimmingSpaces) : first
            var day = first
            while true {
                if !days.contains(day) { days.append(day) }
                if day == last { break }
                day = (day + 1) % 7
            }
        }
        return days
    }

    private static func day(_ text: Substring) throws(DisplayScheduleError) -> Int {
        let name = text.lowercased()
        if let day = dayNames.firstIndex(of: name) ?? fullDayNames.firstIndex(of: name) { return day }
        let guess = closestName(to: name, among: dayNames + fullDayNames).map {
            "did you mean \(dayNames[(fullDayNames.firstIndex(of: $0) ?? dayNames.firstIndex(of: $0)!)])? "
        } ?? ""
        throw DisplayScheduleError(token: String(text), reason: "unknown day; \(guess)days are mon, tue, wed, thu, fri, sat, sun, or daily")
    }

    /// A range's start and end in minutes of the day; the end may be 24:00 (1440).
    private static func timeRange(_ text: Substring) throws(DisplayScheduleError) -> (Int, Int) {
        let ends = text.split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2 else {
            throw DisplayScheduleError(token: String(text), reason: "expected a time range like \"07:00-19:00\"")
        }
        let start = try time(ends[0].trimmingSpaces, endOfDayAllowed: false)
        let end = try time(ends[1].trimmingSpaces, endOfDayAllowed: true)
        guard start != end else {
            throw DisplayScheduleError(
                token: String(text), reason: "the range starts where it ends; for the whole day write 00:00-24:00")
        }
        return (start, end)
    }

    private static func time(_ text: Substring, endOfDayAllowed: Bool) throws(DisplayScheduleError) -> Int {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
              let hour = Int(parts[0]), let minute = Int(parts[1]), minute < 60,
              hour < 24 || (endOfDayAllowed && hour == 24 && minute == 0) else {
            throw DisplayScheduleError(
                token: String(text), reason: "expected a time HH:MM from 00:00 to 23:59 (24:00 as an end)")
        }
        return hour * 60 + minute
    }
}

/// A mistake in a `display_schedule`: the token that is wrong, and why.
public struct DisplayScheduleError: Error, Hashable, Sendable, CustomStringConvertible {
    public let token: String
    public let reason: String

    public var description: String { "at \"\(token)\": \(reason)" }
}

private func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
    let quotient = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
}

private func floorModulo(_ a: Int64, _ b: Int64) -> Int64 {
    let remainder = a % b
    return remainder < 0 ? remainder + b : remainder
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
