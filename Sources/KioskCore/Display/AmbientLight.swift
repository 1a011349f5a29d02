/// How bright the display is for the room's light (`light_curve`), for
/// an ambient light sensor: lux to a brightness, `"0 lux 10%, 50 lux 40%,
/// 400 lux 100%"`. Between two points the level goes in a straight line;
/// darker than the first point, the first's level; brighter than the last,
/// the last's.
public struct LightCurve: Hashable, Sendable, CustomStringConvertible {
    public struct Point: Hashable, Sendable {
        public let lux: Double
        public let percent: Int
    }

    /// Ordered by lux, no two at the same lux.
    public let points: [Point]
    public let description: String

    /// Dim in a dark room, full in daylight indoors.
    public static let standard = try! LightCurve(parsing: "0 lux 10%, 50 lux 40%, 400 lux 100%")

    public init(parsing text: String) throws(LightCurveError) {
        var points: [Point] = []
        for entry in text.split(separator: ",", omittingEmptySubsequences: false) {
            let words = entry.split(separator: " ")
            guard words.count == 3, words[1] == "lux", let lux = Double(words[0]), lux.isFinite, lux >= 0, lux <= 1_000_000,
                  words[2].hasSuffix("%"), let percent = Int(words[2].dropLast()), (0...100).contains(percent) else {
                throw LightCurveError(token: String(Substring(entry).trimmingSpaces), reason: "expected lux and a level, e.g. \"50 lux 40%\"")
            }
            guard !points.contains(where: { $0.lux == lux }) else {
                throw LightCurveError(token: String(Substring(entry).trimmingSpaces), reason: "two levels at the same lux")
            }
            points.append(Point(lux: lux, percent: percent))
        }
        self.points = points.sorted { $0.lux < $1.lux }
        description = text
    }

    /// The level for `lux`.
    public func percent(atLux lux: Double) -> Int {
        guard let first = points.first, let last = points.last else { return 100 }
        guard lux.isFinite, lux > first.lux else { return first.percent }
        guard lux < last.lux else { return last.percent }
        let upper = points.firstIndex { $0.lux >= lux }!
        let a = points[upper - 1], b = points[upper]
        return Int((Double(a.percent) + Double(b.percent - a.percent) * (lux - a.lux) / (b.lux - a.lux)).rounded())
    }
}

public struct LightCurveError: Error, Hashable, Sendable, CustomStringConvertible {
    public let token: String
    public let reason: String
    public var description: String { "at \"\(token)\": \(reason)" }
}

/// The level an ambient light sensor gives, steadied: a new reading moves
/// it only when the curve's level for it is ``hysteresis`` points or more
/// from the level in force (or is one of the curve's ends), so light
/// flickering round a point, a cloud, a passing shadow, does not make the
/// display pulse.
public struct AmbientDimming: Sendable, Equatable {
    public let curve: LightCurve
    /// The level in force; nil before the first reading.
    public private(set) var percent: Int?
    /// The last reading, for `status` and Home Assistant's lux sensor.
    public private(set) var lux: Double?

    /// Points of brightness a reading must move the level by.
    public static let hysteresis = 5

    public init(curve: LightCurve) { self.curve = curve }

    /// A reading. Returns the new level when it changes.
    public mutating func take(lux reading: Double) -> Int? {
        guard reading.isFinite, reading >= 0 else { return nil }
        lux = reading
        let target = curve.percent(atLux: reading)
        let ends = [curve.points.first?.percent, curve.points.last?.percent]
        if let percent, abs(target - percent) < Self.hysteresis && !(ends.contains(target) && target != percent) { return nil }
        guard target != percent else { return nil }
        percent = target
        return target
    }
}

extension SettingFormat where Value == LightCurve {
    /// `light_curve`: points of lux and level.
    static var lightCurve: Self {
        SettingFormat(read: { value in
            guard case .string(let text) = value else { throw SettingProblem("expected lux and levels like \"0 lux 10%, 50 lux 40%, 400 lux 100%\"") }
            do { return try LightCurve(parsing: text) } catch { throw SettingProblem("\(error)", value: text) }
        }, write: { .string($0.description) })
    }
}

extension SettingFormat where Value == String? {
    /// `light_sensor`: `none` (nil), `auto`, or an IIO device's name.
    static var lightSensor: Self {
        SettingFormat(read: { value in
            guard case .string(let text) = value, !text.isEmpty, !text.contains("/"), text.count <= 64 else {
                throw SettingProblem("expected none, auto, or an IIO device's name like iio:device0")
            }
            return text == "none" ? nil : text
        }, write: { .string($0 ?? "none") })
    }
}
