/// Latencies counted in steps of ``step`` seconds, for percentiles over a
/// run of any length in a fixed few kilobytes: the time from a finger's
/// move to the screen (`input_to_photon_ms`), a frame's composition.
///
/// A percentile is the upper edge of its step, so it never flatters: a
/// latency of 16.71 ms counts as 16.8. Latencies past ``ceiling`` share the
/// last step; ``slowest`` is exact.
public struct LatencyHistogram: Equatable, Sendable {
    /// The defaults: 0.1 ms steps up to 250 ms (10 KB).
    public static let defaultStep = 0.0001
    public static let defaultCeiling = 0.25

    public private(set) var step: Double
    public private(set) var ceiling: Double
    private var counts: [UInt32]
    public private(set) var count: Int
    public private(set) var slowest: Double

    /// Steps of `step` seconds up to `ceiling` (both positive).
    public init(step: Double = LatencyHistogram.defaultStep, ceiling: Double = LatencyHistogram.defaultCeiling) {
        counts = [UInt32](repeating: 0, count: max(1, Int((ceiling / step).rounded())) + 1)
        self.step = step
        self.ceiling = ceiling
        count = 0
        slowest = 0
    }

    /// Counts one latency (seconds). A negative one (two clocks mixed up) counts as 0, one not finite as the ceiling.
    public mutating func record(_ seconds: Double) {
        let latency = seconds.isFinite ? max(0, seconds) : ceiling
        let bucket = min(counts.count - 1, Int((latency / step).rounded(.up)))
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
            if seen >= rank { return min(Double(bucket) * step, slowest) }
        }
        return slowest
    }
}
