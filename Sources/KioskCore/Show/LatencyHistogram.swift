/// Latencies counted in steps of ``step`` seconds, for percentiles over a
/// run of any length in a fixed few kilobytes: the time from a finger's
/// move to the screen (`input_to_photon_ms`).
///
/// A percentile is the upper edge of its step, so it never flatters: a
/// latency of 16.71 ms counts as 16.8. Latencies past ``ceiling`` share the
/// last step; ``slowest`` is exact.
public struct LatencyHistogram: Equatable, Sendable {
    public static let step = 0.0001
    public static let ceiling = 0.25

    private var counts = [UInt32](repeating: 0, count: Int((LatencyHistogram.ceiling / LatencyHistogram.step).rounded()) + 1)
    public private(set) var count = 0
    public private(set) var slowest = 0.0

    public init() {}

    /// Counts one latency (seconds). A negative one (two clocks mixed up) counts as 0, one not finite as the ceiling.
    public mutating func record(_ seconds: Double) {
        let latency = seconds.isFinite ? max(0, seconds) : Self.ceiling
        let bucket = min(counts.count - 1, Int((latency / Self.step).rounded(.up)))
        counts[bucket] &+= 1
        count += 1
        slowest = max(slowest, latency)
    }

    /// The latency `fraction` (0.5: the median, 0.99) of the counted ones
    /// are at most (seconds); nil before any.
    public func percentile(_ fraction: Double) -> Double? {
        guard count > 0 else { return nil }
        let rank = max(1, Int((fraction * Double(count)).rounded(.up)))
        var seen = 0
        for (bucket, n) in counts.enumerated() {
            seen += Int(n)
            if seen >= rank { return min(Double(bucket) * Self.step, slowest) }
        }
        return slowest
    }
}
