/// When each frame of an animated picture (a GIF, an APNG) is shown: the
/// file's own delays, looping as the file says. Pure: the show asks which
/// frame is due at a time since the animation started, and when the next
/// one is, so its loop wakes only for frame changes.
///
/// Delays under 20 ms count as 100 ms, as browsers do: many GIFs say 0 or
/// 10 ms and were made to play at 10 frames a second.
public struct FrameSchedule: Equatable, Sendable {
    /// Each frame's time on screen, in seconds.
    public let delays: [Double]
    /// Times the animation plays through; nil for ever (a GIF's loop count
    /// 0). After the last play the last frame stays.
    public let plays: Int?
    /// The sum of the delays: one play.
    public let period: Double
    /// Where each frame ends within a play: the running sums of the delays.
    private let ends: [Double]

    /// The shortest delay kept as written (seconds); shorter ones become ``slowDelay``.
    public static let shortestDelay = 0.02
    public static let slowDelay = 0.1
    /// Times this close (seconds) count as equal: a frame change computed by
    /// ``nextChange(after:)`` shows the next frame at once, whatever the rounding.
    static let tolerance = 1e-9

    /// `delays` in seconds, one per frame (at least one); `plays` nil or at least 1.
    public init(delays: [Double], plays: Int? = nil) {
        precondition(!delays.isEmpty, "an animation has at least one frame")
        self.delays = delays.map { $0.isFinite && $0 >= Self.shortestDelay ? $0 : Self.slowDelay }
        self.plays = plays.map { max(1, $0) }
        var sum = 0.0
        ends = self.delays.map { sum += $0; return sum }
        period = sum
    }

    /// Whether more than one frame ever shows.
    public var isAnimated: Bool { delays.count > 1 }

    /// The frame shown `elapsed` seconds after the animation started
    /// (before the start: the first).
    public func frame(at elapsed: Double) -> Int {
        guard isAnimated, elapsed > 0 else { return 0 }
        if let plays, elapsed + Self.tolerance >= period * Double(plays) { return delays.count - 1 }
        let lap = play(at: elapsed)
        let within = elapsed - lap * period
        return ends.firstIndex { within + Self.tolerance < $0 } ?? 0
    }

    /// When, in seconds since the start, the frame after the one shown at
    /// `elapsed` comes; nil when no other frame will (a still picture, or
    /// the last play over).
    public func nextChange(after elapsed: Double) -> Double? {
        guard isAnimated else { return nil }
        let time = max(0, elapsed)
        if let plays, time + Self.tolerance >= period * Double(plays) { return nil }
        let lap = play(at: time)
        let within = time - lap * period
        let end = ends.first { within + Self.tolerance < $0 } ?? period
        return lap * period + end
    }

    /// The play `time` falls in (a time within the tolerance of a play's end is in the next one).
    private func play(at time: Double) -> Double {
        let lap = (time / period).rounded(.down)
        return time - lap * period + Self.tolerance >= period ? lap + 1 : lap
    }
}
