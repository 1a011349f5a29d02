/// A clip playing in the centre: its clock, and which of the frames
/// decoded ahead each refresh of the display shows.
///
/// The clip's clock starts at the refresh its first frame went on screen
/// and runs at real speed; a pause stops it. A frame's time is on that
/// clock: its timestamp, plus the length of the plays before it when the
/// clip loops (the decoder counts them, so times only grow).
///
/// Each frame goes on screen at the refresh nearest its time: at a
/// refresh, the newest ready frame whose time is no later than half a
/// refresh after it. Decoding that falls behind never holds the display
/// back: a frame whose moment passed while a newer one became due is let
/// go unseen, and counted (``dropped``).
///
/// The clip is over once its stream ends (`once`: at the end of its last
/// frame), or once it has been on screen ``maximum`` seconds (`video_max`),
/// whichever comes first; a looping clip only by the second.
public struct ClipPlayback: Equatable, Sendable {
    /// `video_repeat`: the clip plays once, or loops until ``maximum``.
    public enum Repeat: String, Sendable, CaseIterable {
        case once, loop
    }

    public let repeats: Repeat
    /// `video_max`, in seconds of playing (a pause does not count).
    public let maximum: Double
    /// When the first frame went on screen (the monotonic clock).
    public let startedAt: Double
    /// Seconds spent paused so far, not counting a pause under way.
    private var pausedFor = 0.0
    /// When the pause under way began.
    public private(set) var pausedAt: Double?
    /// Where the stream ends on the clip's clock (the end of its last
    /// frame), once the decoder has read that far; a looping clip's is
    /// not an end.
    public private(set) var length: Double?
    /// Frames let go without being shown: decoding fell behind.
    public private(set) var dropped = 0

    /// Times this close (seconds) count as equal.
    static let tolerance = 1e-9

    /// A clip whose first frame (time 0) went on screen at `startedAt`.
    public init(repeats: Repeat, maximum: Double, startedAt: Double) {
        self.repeats = repeats
        self.maximum = maximum
        self.startedAt = startedAt
    }

    /// The clip's clock at `now`.
    public func clipTime(at now: Double) -> Double {
        max(0, (pausedAt ?? now) - startedAt - pausedFor)
    }

    public var isPaused: Bool { pausedAt != nil }

    public mutating func pause(at now: Double) {
        if pausedAt == nil { pausedAt = now }
    }

    public mutating func resume(at now: Double) {
        guard let since = pausedAt else { return }
        pausedFor += max(0, now - since)
        pausedAt = nil
    }

    /// The decoder read the end of the stream: its last frame ends at
    /// `end` on the clip's clock. Only a clip played once ends there.
    public mutating func streamEnded(at end: Double) {
        if repeats == .once { length = end }
    }

    /// How long the clip plays on its clock: to its end, or ``maximum``.
    public var playsFor: Double { min(length ?? .infinity, maximum) }

    /// When the clip is over, while it plays; nil while paused or, for a
    /// clip whose end is not known yet and has no finite maximum, never.
    public var endsAt: Double? {
        guard pausedAt == nil, playsFor.isFinite else { return nil }
        return startedAt + pausedFor + playsFor
    }

    public func isOver(at now: Double) -> Bool { clipTime(at: now) + Self.tolerance >= playsFor }

    /// What a refresh shows: the index in `ready` of the frame to put on
    /// screen (nil: the one there stays), and how many of `ready`'s
    /// oldest frames to let go (the one shown is among them).
    public struct Choice: Equatable, Sendable {
        public let show: Int?
        public let release: Int
    }

    /// The frame for the refresh at `refresh` (the display refreshes every
    /// `period` seconds), from `ready`: the times of the frames decoded and
    /// not yet shown, oldest first. Frames older than the one chosen were
    /// never shown: they count as dropped.
    public mutating func frame(for refresh: Double, period: Double, ready: [Double]) -> Choice {
        let now = clipTime(at: refresh) + period / 2 + Self.tolerance
        guard let index = ready.lastIndex(where: { $0 <= now }) else { return Choice(show: nil, release: 0) }
        dropped += index
        return Choice(show: index, release: index + 1)
    }

    /// When the next of `ready` is due (the monotonic clock; the run loop
    /// wakes for it); nil while paused or with nothing ready.
    public func nextDue(ready: [Double], period: Double) -> Double? {
        guard pausedAt == nil, let next = ready.first else { return nil }
        return startedAt + pausedFor + next - period / 2
    }
}
