/// A finger's speed along one axis when it lifts, from the positions it
/// reported on the way: the slope of a least-squares line through the
/// samples of the last 100 ms (at most 20), as Android's VelocityTracker
/// and Flutter's do (they fit a curve; a line is steadier on the few
/// samples a slow panel sends, and a flick is judged on its direction and
/// size, not its curvature).
///
/// No velocity (nil) when the finger paused: a gap of more than 40 ms
/// between samples ends the fit there, and a lift more than 40 ms after the
/// last move means the finger had stopped. Two samples at the same time
/// (panels that stamp a whole report alike) cannot divide by zero: with no
/// spread in time there is no velocity.
public struct VelocityTracker: Sendable, Equatable {
    public static let horizon = 0.1
    public static let maximumSamples = 20
    public static let maximumGap = 0.04

    private var samples: [(time: Double, position: Double)] = []

    public init() {}

    public static func == (a: VelocityTracker, b: VelocityTracker) -> Bool {
        a.samples.count == b.samples.count && zip(a.samples, b.samples).allSatisfy { $0 == $1 }
    }

    /// Forgets every sample (a new finger).
    public mutating func reset() { samples.removeAll(keepingCapacity: true) }

    /// The finger was at `position` at `time`. A time before the last
    /// sample's (events out of order) is taken as the last sample's.
    public mutating func add(_ position: Double, at time: Double) {
        guard position.isFinite, time.isFinite else { return }
        let time = max(time, samples.last?.time ?? time)
        samples.append((time, position))
        if samples.count > Self.maximumSamples { samples.removeFirst(samples.count - Self.maximumSamples) }
    }

    /// The speed (units a second) of a finger lifted at `liftTime`, or nil.
    public func velocity(liftedAt liftTime: Double) -> Double? {
        guard let last = samples.last, liftTime - last.time <= Self.maximumGap else { return nil }
        // The recent samples back to the first gap, within the horizon.
        var used = [last]
        for sample in samples.dropLast().reversed() {
            guard last.time - sample.time <= Self.horizon, used[used.count - 1].time - sample.time <= Self.maximumGap else { break }
            used.append(sample)
        }
        guard used.count >= 2 else { return nil }
        let meanTime = used.reduce(0) { $0 + $1.time } / Double(used.count)
        let meanPosition = used.reduce(0) { $0 + $1.position } / Double(used.count)
        var covariance = 0.0, spread = 0.0
        for sample in used {
            covariance += (sample.time - meanTime) * (sample.position - meanPosition)
            spread += (sample.time - meanTime) * (sample.time - meanTime)
        }
        guard spread > 1e-12 else { return nil }
        return covariance / spread
    }
}
