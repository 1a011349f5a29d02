/// How long a kiosk waits before it tries its broker again: doubling from
/// ``first`` after each failed try, never more than ``cap`` (a minute), each
/// wait drawn between half and all of that, so kiosks that lost the same
/// broker at the same moment do not all knock at once ("equal jitter").
/// A connection the broker accepts starts the count again, so a broker
/// restarted is tried within a second of losing it.
public struct ReconnectBackoff: Sendable {
    public let first: Double
    public let cap: Double
    /// Failed tries since the last accepted connection.
    public private(set) var failures = 0

    public init(first: Double = 0.5, cap: Double = 60) {
        self.first = first
        self.cap = cap
    }

    /// The wait before the next try, in seconds; counts this try as failed
    /// until ``connected()`` says otherwise.
    public mutating func nextDelay(using random: inout some RandomNumberGenerator) -> Double {
        let ceiling = min(cap, first * Double(1 << min(failures, 30)))
        failures += 1
        return ceiling / 2 + Double.random(in: 0...(ceiling / 2), using: &random)
    }

    /// The broker accepted the connection: the next loss is retried at once, as at the start.
    public mutating func connected() { failures = 0 }
}
