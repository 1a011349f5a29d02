/// How a slide speeds up and slows down: progress `e(s)` for time fraction
/// `s` in 0...1, with `e(0) = 0` and `e(1) = 1`.
public enum Easing: String, Sendable, Hashable, CaseIterable {
    /// Constant speed.
    case linear
    /// Starts and ends at rest: the cubic smoothstep `3s^2 - 2s^3`.
    case easeInOut = "ease-in-out"
    /// Starts at full speed and settles: the cubic `1 - (1 - s)^3`.
    case easeOut = "ease-out"

    public func progress(_ s: Double) -> Double {
        let s = min(1, max(0, s))
        switch self {
        case .linear: return s
        case .easeInOut: return s * s * (3 - 2 * s)
        case .easeOut: return 1 - (1 - s) * (1 - s) * (1 - s)
        }
    }

    /// `e'(s)`: progress per unit of time fraction.
    public func slope(_ s: Double) -> Double {
        let s = min(1, max(0, s))
        switch self {
        case .linear: return 1
        case .easeInOut: return 6 * s * (1 - s)
        case .easeOut: return 3 * (1 - s) * (1 - s)
        }
    }

    /// The largest `T v0 / d` (duration times carried speed over distance,
    /// speed towards the target) for which a retargeted slide never passes
    /// its target. From `p1 - p(s) = d (1 - e(s)) - (T v0 - d e'(0)) h(s)`
    /// staying positive: smoothstep 3, linear 5 (where `s (1 - s)` peaks),
    /// the cubic ease-out 3.
    public var overshootFreeCarry: Double {
        switch self {
        case .linear: return 5
        case .easeInOut, .easeOut: return 3
        }
    }
}
