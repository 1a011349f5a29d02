/// One animated picture playing in its slot: the frame on screen, and when
/// the next one is due. Frames are numbered across plays (frame n is the
/// file's frame n mod count) and are decoded ahead by someone else; the
/// next frame shows when it is due and decoded, whichever comes last.
///
/// A frame that shows a little late (the loop was busy) keeps the file's
/// cadence; one that came much later than due (its decode was slow) gets
/// its whole delay from when it showed, so no frame is skipped or flashed.
public struct FramePlayback: Equatable, Sendable {
    public let schedule: FrameSchedule
    /// The frame on screen.
    public private(set) var shown = 0
    /// When it went on screen.
    public private(set) var shownAt: Double

    /// Lateness (seconds) absorbed without moving the cadence.
    public static let lateTolerance = 0.05

    public init(schedule: FrameSchedule, startedAt now: Double) {
        self.schedule = schedule
        shownAt = now
    }

    /// The last frame ever shown, for an animation with counted plays.
    public var lastFrame: Int? { schedule.plays.map { $0 * schedule.delays.count - 1 } }

    /// When the next frame is due; nil once the last play has ended (its last frame stays).
    public var nextDue: Double? {
        if let lastFrame, shown >= lastFrame { return nil }
        return shownAt + schedule.delays[shown % schedule.delays.count]
    }

    /// The frames to have decoded: up to `ahead` past the one on screen.
    public func wanted(ahead: Int) -> ClosedRange<Int> {
        (shown + 1)...max(shown + 1, min(shown + ahead, lastFrame ?? Int.max))
    }

    /// Shows the next frame if it is due at `now` and `ready`; true if it did.
    public mutating func advance(at now: Double, ready: Bool) -> Bool {
        guard ready, let due = nextDue, now + FrameSchedule.tolerance >= due else { return false }
        shown += 1
        shownAt = now - due <= Self.lateTolerance ? due : now
        return true
    }

    /// Goes on from the frame on screen as if it had just been shown (after a pause).
    public mutating func resume(at now: Double) { shownAt = now }
}
