/// What the operator (a signal, the control socket, later a swipe or a key)
/// asks the show to do.
public enum ShowCommand: Sendable, Hashable {
    /// Move `by` pictures: forward when positive (`next n`), back when
    /// negative (`prev n`). Quick repeats join one movement.
    case move(by: Int)
    /// Slide to playlist item `item` the shortest way round the loop
    /// (forward on a tie); an item outside the playlist is ignored (the
    /// control socket checks it first and says so).
    case goto(item: Int)
    case pause
    case resume

    public static let next = ShowCommand.move(by: 1)
    public static let previous = ShowCommand.move(by: -1)
}

/// When the show moves: the rest on each picture, the automatic slide to the
/// next one, and the operator's moves, which restart the rest.
///
/// Rules, as a kiosk operator would expect them:
/// - After each slide ends the strip rests `interval` seconds, then slides to
///   the next picture. The first rest starts when the show starts.
/// - `next`/`prev` move at once, mid-slide too (the motion retargets with no
///   jump, see ``StripMotion``), and the rest restarts from the end of that
///   slide: a viewer who just moved gets a whole `interval` on the picture.
/// - `pause` stops automatic slides (a slide in progress finishes); manual
///   moves still work. `resume` restarts the whole rest from now (or from the
///   end of a slide in progress).
/// - With fewer than two pictures nothing moves: sliding to the same picture
///   again would only be a distraction.
///
/// Positions are strip positions in pictures (slot `k` shows item `k mod N`);
/// targets are always whole. Times are seconds on a monotonic clock.
public struct ShowSchedule: Sendable, Equatable {
    public private(set) var motion: StripMotion
    public private(set) var interval: Double
    public private(set) var isPaused = false
    /// When the next automatic slide starts; nil while paused.
    public private(set) var nextAdvance: Double?
    /// Pictures in the playlist; below two nothing moves.
    public var pictureCount: Int

    public init(at position: Int, pictureCount: Int, settings: MotionSettings, now: Double) {
        motion = StripMotion(at: Double(position), easing: settings.easing, duration: settings.transition)
        interval = settings.interval
        self.pictureCount = pictureCount
        nextAdvance = now + interval
    }

    /// The whole slot the strip rests on, or is sliding to.
    public var target: Int { Int(motion.target) }

    public func position(at time: Double) -> Double { motion.position(at: time) }

    public func isMoving(at time: Double) -> Bool { !motion.isAtRest(at: time) }

    /// Which way the strip is heading: where the next pictures are needed.
    public func direction(at time: Double) -> TravelDirection {
        let heading = motion.target - motion.position(at: time)
        if heading == 0 { return motion.target >= motion.start ? .forward : .backward }
        return heading > 0 ? .forward : .backward
    }

    public mutating func apply(_ command: ShowCommand, at now: Double) {
        switch command {
        case .move(let delta):
            move(by: delta, at: now)
        case .goto(let item):
            let index = CircularIndex(count: pictureCount)
            guard (0..<pictureCount).contains(item) else { return }
            move(by: index.nearestSlot(showing: item, from: target) - target, at: now)
        case .pause:
            isPaused = true
            nextAdvance = nil
        case .resume:
            guard isPaused else { return }
            isPaused = false
            nextAdvance = max(now, motion.restTime) + interval
        }
    }

    /// Takes new motion settings (a config reload) without moving the strip:
    /// a slide in progress ends as it began, the next one uses the new
    /// `transition` and `easing`, and the rest under way is measured with
    /// the new `interval` from when it began.
    public mutating func apply(_ settings: MotionSettings) {
        motion.easing = settings.easing
        motion.duration = settings.transition
        if let due = nextAdvance { nextAdvance = due - interval + settings.interval }
        interval = settings.interval
    }

    /// Starts the automatic slide if its time has come; true if it did.
    public mutating func advanceIfDue(at now: Double) -> Bool {
        guard let due = nextAdvance, now >= due else { return false }
        guard pictureCount >= 2 else {
            // Nothing to slide to: wait another interval (the playlist may grow).
            nextAdvance = now + interval
            return false
        }
        move(by: 1, at: now)
        return true
    }

    /// Renumbers the slots (the playlist changed under the strip) without
    /// moving anything on screen. See ``CircularIndex/slotKeepingItem(atSlot:afterRemoving:)``.
    public mutating func renumber(slot old: Int, as new: Int, pictureCount: Int) {
        motion.shift(by: Double(new - old))
        self.pictureCount = pictureCount
    }

    private mutating func move(by delta: Int, at now: Double) {
        guard pictureCount >= 2, delta != 0 else { return }
        motion.retarget(to: motion.target + Double(delta), at: now)
        if !isPaused { nextAdvance = motion.restTime + interval }
    }
}
