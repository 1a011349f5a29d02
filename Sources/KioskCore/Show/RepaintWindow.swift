/// When to draw a frame that follows a finger.
///
/// A frame drawn as soon as the last flip completes shows the finger as it
/// was almost a whole refresh before that frame reaches the screen, and a
/// move sensed just after it waits for the frame after: up to two
/// refreshes from finger to light. A frame drawn just before its refresh,
/// with the newest position, shows every move sensed up to then at that
/// refresh: a move sensed at any moment reaches the screen within one
/// refresh plus the window. Weston draws late in the refresh the same way
/// (its repaint window); here the window fits the drawing instead of being
/// set by hand.
///
/// The window is the slowest recent draw with a margin (for the timer's
/// wake-up and the flip's system call), at least ``minimum``. A screen
/// whose window is over half a refresh draws straight after each flip, as
/// slides do: waiting would gain little freshness and risk every other
/// refresh. A slow draw counts for a while and then fades, so one frame
/// that had more to do (a picture that just arrived) does not keep the
/// window wide: its weight is a half ``fadeTime`` seconds later, a third
/// after twice that, and so on.
///
/// Slides are not drawn this way: their positions are known ahead (see
/// ``StripMotion``), so their frames are drawn early and never miss.
public struct RepaintWindow: Equatable, Sendable {
    /// The slowest recent draw (seconds), fading with time.
    public private(set) var slowestDraw = 0.0
    private var lastDraw: Double?

    /// The narrowest window (seconds).
    public static let minimum = 0.001
    /// What the window adds to the slowest draw: a quarter of it, and this (seconds).
    public static let margin = 0.0003
    public static let fadeTime = 2.0

    public init() {}

    /// Records how long a draw that started at `time` took (`seconds`),
    /// counted from the moment it was planned for: a late wake-up counts.
    public mutating func drew(taking seconds: Double, at time: Double) {
        guard seconds.isFinite, seconds >= 0 else { return }
        if let last = lastDraw, time > last {
            slowestDraw /= 1 + (time - last) / Self.fadeTime
        }
        slowestDraw = max(slowestDraw, seconds)
        lastDraw = time
    }

    /// How long before its refresh a finger's frame is drawn.
    public func window(refreshPeriod: Double) -> Double {
        min(refreshPeriod, max(Self.minimum, slowestDraw * 1.25 + Self.margin))
    }

    /// When to draw the frame that shows the finger's newest position,
    /// deciding at `now`: one window before the first refresh at least a
    /// window away (`nextRefresh` is the first refresh after `now`). Within
    /// a window of a refresh it is too late for that refresh: the frame
    /// would be queued after it and held up a whole refresh more. With a
    /// window over half a refresh: now.
    public func drawTime(at now: Double, nextRefresh: Double, refreshPeriod: Double) -> Double {
        let window = window(refreshPeriod: refreshPeriod)
        guard refreshPeriod > 0, nextRefresh.isFinite, window <= refreshPeriod / 2 else { return now }
        let late = now + window - nextRefresh
        let refreshesLater = late > 0 ? (late / refreshPeriod).rounded(.up) : 0
        return nextRefresh + refreshesLater * refreshPeriod - window
    }
}
