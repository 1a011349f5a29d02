/// The strip's position over time, in pictures, with targets that can change
/// mid-slide.
///
/// A slide from `p0` to `p1` over `T` seconds follows the easing: `p0 + (p1
/// - p0) e(s)` with `s = t / T`. When a new target arrives mid-slide (a second
/// `next`, a `prev` that reverses), a new slide starts from where the strip
/// is, *at the speed it has*: the Hermite term `T (v0 - (p1 - p0) e'(0) / T)
/// h(s)`, with `h(s) = s^3 - 2s^2 + s` (`h(0) = h(1) = h'(1) = 0`, `h'(0) =
/// 1`), makes the start velocity `v0` and leaves the end exactly as the
/// easing ends. So there is no jump in position or speed, in either
/// direction, for any number of quick moves. If the carried speed would
/// carry the strip past its new target before settling, the slide is
/// shortened until it cannot (no bounce at the end).
///
/// Times are seconds on any monotonic clock; the run loop passes the time a
/// frame will be shown.
public struct StripMotion: Sendable, Equatable {
    /// The curve of the slides to come (`easing`); a slide in progress keeps its own.
    public var easing: Easing
    /// Seconds for one slide (`transition`), from the next slide on.
    public var duration: Double {
        didSet { precondition(duration > 0) }
    }
    /// Where the current slide started, when, at what speed, and where it ends.
    public private(set) var start: Double
    public private(set) var startTime: Double
    public private(set) var startVelocity: Double = 0
    public private(set) var target: Double
    private var slideDuration: Double
    private var slideEasing: Easing

    /// At rest at `position`.
    public init(at position: Double, easing: Easing, duration: Double) {
        precondition(duration > 0 && position.isFinite)
        self.easing = easing
        self.duration = duration
        start = position
        target = position
        startTime = 0
        slideDuration = duration
        slideEasing = easing
    }

    /// Where the strip is at `time`.
    public func position(at time: Double) -> Double {
        if isAtRest(at: time) { return target }
        let s = fraction(at: time)
        let d = target - start
        let carried = slideDuration * startVelocity - d * slideEasing.slope(0)
        return start + d * slideEasing.progress(s) + carried * (s * s * s - 2 * s * s + s)
    }

    /// The strip's speed at `time`, in pictures a second.
    public func velocity(at time: Double) -> Double {
        if isAtRest(at: time) { return 0 }
        let s = fraction(at: time)
        let d = target - start
        let carried = slideDuration * startVelocity - d * slideEasing.slope(0)
        return (d * slideEasing.slope(s) + carried * (3 * s * s - 4 * s + 1)) / slideDuration
    }

    /// When the current slide ends (or ended): the strip rests from then on.
    public var restTime: Double { startTime + slideDuration }

    /// True once the slide has ended and the strip is still.
    public func isAtRest(at time: Double) -> Bool {
        (start == target && startVelocity == 0) || time >= startTime + slideDuration
    }

    /// Stops the strip at `position` at `time`, fractional too: a finger
    /// holds it there (caught mid-slide, or dragged).
    public mutating func hold(at position: Double, time: Double) {
        precondition(position.isFinite)
        start = position
        target = position
        startVelocity = 0
        startTime = time
        slideDuration = duration
        slideEasing = easing
    }

    /// Slides to `newTarget` from wherever the strip is at `time`, keeping
    /// its speed, or starting at `velocity` (pictures a second) when given:
    /// a released finger hands the strip its own speed.
    public mutating func retarget(to newTarget: Double, at time: Double, velocity given: Double? = nil) {
        precondition(newTarget.isFinite)
        let moving = !isAtRest(at: time)
        let p = position(at: time)
        let v = given.flatMap { $0.isFinite ? $0 : nil } ?? (moving ? velocity(at: time) : 0)
        start = p
        startVelocity = v
        startTime = time
        target = newTarget
        slideEasing = easing
        var length = duration
        let d = newTarget - p
        let limit = easing.overshootFreeCarry * abs(d)
        if v * d > 0, length * abs(v) > limit { length = limit / abs(v) }
        slideDuration = max(length, 1e-3)
    }

    /// Renumbers the strip's slots: the same motion, `delta` slots along.
    /// Used when the playlist shrinks and the slot of the centred picture
    /// changes number but not place.
    public mutating func shift(by delta: Double) {
        start += delta
        target += delta
    }

    private func fraction(at time: Double) -> Double { max(0, (time - startTime) / slideDuration) }
}
