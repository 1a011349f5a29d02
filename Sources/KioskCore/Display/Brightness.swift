/// How bright the display is (`brightness`): one level all day (`70`), or
/// levels from times of day, in local time: `"07:00 100%, 21:00 40%,
/// 23:00 off"`. Each level holds from its time until the next one's,
/// round the clock (here 40% from 21:00, off from 23:00 until 07:00).
/// `off` extends `display_schedule`: those hours are off-hours, with the
/// same rules for presence (`wake_on_presence = "always"` may wake it).
///
/// The hours of each level are a ``DisplaySchedule`` of their own, so a
/// level changes exactly as a schedule's edge does, across daylight saving
/// too.
public struct Brightness: Hashable, Sendable, CustomStringConvertible {
    public enum Level: Hashable, Sendable {
        /// 0 (the dimmest) to 100 (full).
        case percent(Int)
        /// The display off (off-hours).
        case off
    }

    /// A level, and the hours it holds (nil: all day).
    public struct Period: Hashable, Sendable {
        public let level: Level
        public let hours: DisplaySchedule?
    }

    public let periods: [Period]
    /// As written.
    public let description: String

    /// Full brightness all day: the default.
    public static let full = Brightness(percent: 100)

    public init(percent: Int) {
        self.init(periods: [Period(level: .percent(min(max(percent, 0), 100)), hours: nil)], description: "\(min(max(percent, 0), 100))")
    }

    private init(periods: [Period], description: String) {
        self.periods = periods
        self.description = description
    }

    /// `70`, `70%`, or times and levels: `"07:00 100%, 21:00 40%, 23:00 off"`.
    public init(parsing text: String) throws(BrightnessError) {
        let trimmed = String(Substring(text).trimmingSpaces)
        if let percent = Self.percent(trimmed) {
            self.init(percent: percent)
            return
        }
        var steps: [(minute: Int, level: Level)] = []
        for entry in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            let words = entry.split(separator: " ")
            guard words.count == 2, let minute = Self.minuteOfDay(words[0]) else {
                throw BrightnessError(token: String(entry.trimmingSpaces), reason: "expected a time and a level, e.g. \"21:00 40%\" or \"23:00 off\"")
            }
            let level: Level
            if words[1] == "off" {
                level = .off
            } else if let percent = Self.percent(String(words[1])) {
                level = .percent(percent)
            } else {
                throw BrightnessError(token: String(words[1]), reason: "a level is 0% to 100%, or off")
            }
            guard !steps.contains(where: { $0.minute == minute }) else {
                throw BrightnessError(token: String(words[0]), reason: "two levels at the same time")
            }
            steps.append((minute, level))
        }
        steps.sort { $0.minute < $1.minute }
        let levels = steps.map(\.level).reduce(into: [Level]()) { if !$0.contains($1) { $0.append($1) } }
        var periods: [Period] = []
        if levels.count == 1 {
            periods = [Period(level: levels[0], hours: nil)]
        } else {
            for level in levels {
                // Each step of this level, until the next step (round the clock).
                let ranges = steps.indices.filter { steps[$0].level == level }.map { index in
                    "\(Self.clock(steps[index].minute))-\(Self.clock(steps[(index + 1) % steps.count].minute))"
                }
                do {
                    periods.append(Period(level: level, hours: try DisplaySchedule(parsing: "daily " + ranges.joined(separator: ", "))))
                } catch {
                    throw BrightnessError(token: text, reason: "\(error)")
                }
            }
        }
        self.init(periods: periods, description: text)
    }

    /// The level at `utc` (Unix seconds), the wall clock `utcOffset(utc)` ahead of UTC.
    public func level(at utc: Int64, utcOffset: (Int64) -> Int) -> Level {
        periods.first { $0.hours?.isOn(at: utc, utcOffset: utcOffset) ?? true }?.level ?? .percent(100)
    }

    /// The percent to show at `utc`. In its `off` hours (the display
    /// turned on all the same: `display on`, presence with
    /// `wake_on_presence = "always"`) its lowest level, so a bedroom
    /// frame woken at night does not glare; 100 if it has no other.
    public func percent(at utc: Int64, utcOffset: (Int64) -> Int) -> Int {
        if case .percent(let percent) = level(at: utc, utcOffset: utcOffset) { return percent }
        return periods.compactMap { if case .percent(let percent) = $0.level { percent } else { nil } }.min() ?? 100
    }

    /// True when it switches the display off at some hours (or all day: `"07:00 off"`).
    public var turnsOff: Bool { periods.contains { $0.level == .off } }

    /// The next moment after `utc` the level changes; nil for one level all day.
    public func nextChange(after utc: Int64, utcOffset: (Int64) -> Int) -> Int64? {
        periods.compactMap { $0.hours?.nextChange(after: utc, utcOffset: utcOffset)?.at }.min()
    }

    private static func percent(_ text: String) -> Int? {
        let digits = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy(\.isASCIIDigit), let value = Int(digits), value <= 100 else { return nil }
        return value
    }

    /// `HH:MM` (00:00 to 23:59) as minutes of the day.
    private static func minuteOfDay(_ text: Substring) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCIIDigit) }),
              let hours = Int(parts[0]), let minutes = Int(parts[1]), hours < 24, minutes < 60 else { return nil }
        return hours * 60 + minutes
    }

    private static func clock(_ minute: Int) -> String {
        let hours = minute / 60, minutes = minute % 60
        return (hours < 10 ? "0" : "") + "\(hours):" + (minutes < 10 ? "0" : "") + "\(minutes)"
    }
}

public struct BrightnessError: Error, Hashable, Sendable, CustomStringConvertible {
    public let token: String
    public let reason: String
    public var description: String { "at \"\(token)\": \(reason)" }
}

extension SettingFormat where Value == Brightness {
    /// `brightness`: a number 0 to 100, or a string: `"70%"`, `"07:00 100%, 21:00 40%, 23:00 off"`.
    static var brightness: Self {
        SettingFormat(read: { value in
            let example = "expected 0 to 100, or levels by the time of day like \"07:00 100%, 21:00 40%, 23:00 off\""
            switch value {
            case .integer(let percent):
                guard (0...100).contains(percent) else { throw SettingProblem(example, value: "\(percent)") }
                return Brightness(percent: percent)
            case .string(let text):
                do { return try Brightness(parsing: text) } catch { throw SettingProblem("\(error)", value: text) }
            default:
                throw SettingProblem(example)
            }
        }, write: { brightness in
            if brightness.periods.count == 1, case .percent(let percent) = brightness.periods[0].level { return .integer(percent) }
            return .string(brightness.description)
        })
    }
}
