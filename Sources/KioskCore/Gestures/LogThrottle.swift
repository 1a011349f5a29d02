/// At most one log line per key (a device) per period: a flaky device or a
/// flood of bad events says so once a minute, not thousands of times.
public struct LogThrottle: Sendable {
    public let period: Double
    private var last: [String: Double] = [:]

    public init(period: Double = 60) { self.period = period }

    /// True when a line about `key` may be logged at `now` (and notes it).
    public mutating func allows(_ key: String, at now: Double) -> Bool {
        if let previous = last[key], now - previous < period { return false }
        last[key] = now
        return true
    }
}
