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
    /// A finger on the strip (from ``SwipeRecognizer``, in pictures).
    case touch(StripTouch)
    /// Someone is at the kiosk (a key, a tap): automatic slides wait
    /// ``ShowSchedule/resumeAfter`` seconds from now.
    case personPresent
    /// Fingers zooming the centred picture (the show's ``CentredZoom``);
    /// to the schedule, someone is present.
    case zoom(ZoomTouch)
    /// A group's beat times the automatic slides (true), or the show's own rest does again (false).
    case timedByGroup(Bool)
    /// Hold the strip still at `position` (in slots, within the playlist,
    /// as `status` reports it), as a finger would, until `resume`: the
    /// control socket's test command `hold`, for screendumps mid-slide.
    case hold(position: Double)

    public static let next = ShowCommand.move(by: 1)
    public static let previous = ShowCommand.move(by: -1)
}

/// A finger on the strip, in pictures: what ``SwipeGesture`` says once its
/// pixels are divided by the page (a slot and its spacing). Positive is
/// forward: the strip moving on to the next picture (the finger moving left).
public enum StripTouch: Hashable, Sendable {
    /// A finger landed: the strip stops where it is.
    case caught
    /// The strip follows the finger, `pictures` from where it was caught.
    case dragged(pictures: Double)
    /// The finger lifted `pictures` from where it caught the strip, moving
    /// at `velocity` pictures a second (0: it had stopped); `flick` when quick.
    case released(pictures: Double, velocity: Double, flick: Bool)
    /// No decision (palm, lost events, a vertical swipe, a ghost tap): a
    /// strip that was dragged settles on the nearest picture; one only
    /// caught goes on to where it was going.
    case cancelled
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
/// - A finger catches the strip where it is and it follows the finger;
///   automatic slides wait. On release it settles: a flick goes to the next
///   whole picture in the flick's direction (so a flick back cancels a
///   drag), else to the nearest picture, where exactly half a page stays on
///   the one it was caught at; the settle starts at the finger's speed. The
///   next automatic slide comes `resumeAfter` seconds after the finger
///   lifts (or a whole rest after the settle, if that is later).
///
/// Positions are strip positions in pictures (slot `k` shows item `k mod N`);
/// targets are always whole. Times are seconds on a monotonic clock.
public struct ShowSchedule: Sendable, Equatable {
    public private(set) var motion: StripMotion
    public private(set) var interval: Double
    public private(set) var isPaused = false
    /// True while the display is off (``sleep(at:)``): nothing moves by itself.
    public private(set) var isAsleep = false
    /// When the next automatic slide starts; nil while paused, or while a
    /// group's beat times the slides (``isTimedByGroup``).
    public var nextAdvance: Double? { isTimedByGroup ? nil : restEnds }
    /// When the rest on the centred picture ends, by the show's own timing.
    private var restEnds: Double? {
        didSet { restIsClips = false }
    }
    /// The rest under way is a clip's (``restUntil(_:)``): a new `interval` does not change it.
    private var restIsClips = false
    /// The slides come from a group's shared beat (``GroupBeat``): the
    /// show does not slide by itself; the group sends it where to go.
    public private(set) var isTimedByGroup = false
    /// When someone last touched the kiosk (a finger, a key, a pinch): a
    /// kiosk in a group keeps out of the beat until `resumeAfter` after it.
    public private(set) var lastPresence: Double?
    /// Pictures in the playlist; below two nothing moves.
    public var pictureCount: Int
    /// Seconds after the last touch before automatic slides resume.
    public private(set) var resumeAfter: Double
    /// While a finger holds the strip: where it caught it, where the strip
    /// was going then, and whether it has been dragged since.
    private var held: Hold?
    /// The hold is a `hold` command's, not a finger's: `resume` lets go.
    private var heldByCommand = false

    private struct Hold: Equatable, Sendable {
        var position: Double
        var target: Double
        var dragged: Bool
    }

    public init(at position: Int, pictureCount: Int, settings: MotionSettings, now: Double) {
        motion = StripMotion(at: Double(position), easing: settings.easing, duration: settings.transition)
        interval = settings.interval
        resumeAfter = settings.resumeAfter
        self.pictureCount = pictureCount
        restEnds = now + interval
    }

    /// The whole slot the strip rests on, or is sliding to; while a finger
    /// holds it, the one it would settle on if the finger lifted still.
    public var target: Int {
        guard let held else { return Int(motion.target) }
        return Int(Self.nearest(motion.target, caughtAt: held.position))
    }

    /// True while a finger holds the strip.
    public var isHeld: Bool { held != nil }

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
            restEnds = nil
        case .resume:
            if heldByCommand, let caught = held {
                heldByCommand = false
                settle(to: Self.nearest(motion.target, caughtAt: caught.position), velocity: 0, at: now)
            }
            guard isPaused else { return }
            isPaused = false
            if !isAsleep { restEnds = max(now, motion.restTime) + interval }
        case .touch(let touch):
            apply(touch, at: now)
        case .personPresent, .zoom:
            lastPresence = now
            if let due = restEnds { restEnds = max(due, now + resumeAfter) }
        case .timedByGroup(let timed):
            isTimedByGroup = timed
        case .hold(let within):
            guard pictureCount >= 2, !isAsleep, within.isFinite else { return }
            // The slot position nearest the strip's that is `within` in the playlist.
            let count = Double(pictureCount), now_ = motion.position(at: now)
            let position = within + ((now_ - within) / count).rounded() * count
            held = Hold(position: position, target: held?.target ?? motion.target, dragged: true)
            heldByCommand = true
            motion.hold(at: position, time: now)
            restEnds = nil
        }
    }

    private mutating func apply(_ touch: StripTouch, at now: Double) {
        lastPresence = now
        // A dark panel shows nothing to drag.
        guard pictureCount >= 2, !isAsleep else { return }
        switch touch {
        case .caught:
            let position = motion.position(at: now)
            held = Hold(position: position, target: held?.target ?? motion.target, dragged: false)
            motion.hold(at: position, time: now)
            restEnds = nil
        case .dragged(let pictures):
            guard let caught = held, pictures.isFinite else { return }
            held?.dragged = true
            motion.hold(at: caught.position + pictures, time: now)
        case .released(let pictures, let given, let flick):
            guard let caught = held else { return }
            // A broken panel's jumps make absurd speeds: the settle never starts faster than this.
            let velocity = given.isFinite ? min(max(given, -Self.maximumSettleSpeed), Self.maximumSettleSpeed) : 0
            let position = pictures.isFinite ? caught.position + pictures : motion.target
            let target: Double
            if flick && velocity != 0 {
                target = velocity > 0 ? position.rounded(.down) + 1 : position.rounded(.up) - 1
            } else {
                target = Self.nearest(position, caughtAt: caught.position)
            }
            settle(to: target, velocity: velocity, at: now)
        case .cancelled:
            guard let caught = held else { return }
            settle(to: caught.dragged ? Self.nearest(motion.target, caughtAt: caught.position) : caught.target, velocity: 0, at: now)
        }
    }

    private mutating func settle(to target: Double, velocity: Double, at now: Double) {
        held = nil
        heldByCommand = false
        motion.retarget(to: target, at: now, velocity: velocity)
        if !isPaused { restEnds = max(motion.restTime + interval, now + resumeAfter) }
    }

    /// The fastest a released finger may start the settle, in pictures a
    /// second: a hard flick is 3 or 4; a panel sending jumps of thousands of
    /// pixels between reports must not spin the strip through pictures.
    public static let maximumSettleSpeed = 8.0

    /// The whole picture nearest `position`; exactly half way, the one
    /// nearest where the finger caught the strip.
    static func nearest(_ position: Double, caughtAt caught: Double) -> Double {
        let anchor = caught.rounded()
        let offset = position - anchor
        let fraction = offset - offset.rounded(.towardZero)
        return anchor + (abs(fraction) == 0.5 ? offset.rounded(.towardZero) : offset.rounded())
    }

    /// Takes new motion settings (a config reload) without moving the strip:
    /// a slide in progress ends as it began, the next one uses the new
    /// `transition` and `easing`, and the rest under way is measured with
    /// the new `interval` from when it began.
    public mutating func apply(_ settings: MotionSettings) {
        motion.easing = settings.easing
        motion.duration = settings.transition
        if let due = restEnds, !restIsClips { restEnds = due - interval + settings.interval }
        interval = settings.interval
    }

    /// The display is switched off: a slide under way ends where it was
    /// going, a finger's hold is let go, and no slide starts by itself
    /// until ``wake(at:)``: the show has no reason to wake while off.
    public mutating func sleep(at now: Double) {
        let target = Double(self.target)
        held = nil
        motion = StripMotion(at: target, easing: motion.easing, duration: motion.duration)
        restEnds = nil
        isAsleep = true
    }

    /// The display is back on: the centred picture rests a whole `interval`
    /// (unless paused) before the show slides on.
    public mutating func wake(at now: Double) {
        guard isAsleep else { return }
        isAsleep = false
        if !isPaused { restEnds = now + interval }
    }

    /// A clip playing in the centre holds the rest: the automatic slide
    /// comes at `end` (the clip's end, or `video_max`) instead of an
    /// `interval` after the slide. Only a rest under way by the show's own
    /// timing is changed: not while paused, asleep, held by a finger, or
    /// timed by a group's beat (the beat wins: a group slides together).
    public mutating func restUntil(_ end: Double) {
        guard restEnds != nil, !isPaused, !isAsleep, held == nil, !isTimedByGroup, end.isFinite else { return }
        restEnds = end
        restIsClips = true
    }

    /// A motion photo's movie playing in the centre: the rest lasts at
    /// least until `end` (one play of the movie), and no less than it
    /// would have; the same guards as ``restUntil(_:)``.
    public mutating func restAtLeastUntil(_ end: Double) {
        guard let due = restEnds, end > due else { return }
        restUntil(end)
    }

    /// Starts the automatic slide if its time has come; true if it did.
    public mutating func advanceIfDue(at now: Double) -> Bool {
        guard let due = nextAdvance, now >= due, held == nil else { return false }
        guard pictureCount >= 2 else {
            // Nothing to slide to: wait another interval (the playlist may grow).
            restEnds = now + interval
            return false
        }
        move(by: 1, at: now)
        return true
    }

    /// Renumbers the slots (the playlist changed under the strip) without
    /// moving anything on screen. See ``CircularIndex/slotKeepingItem(atSlot:afterRemoving:)``.
    public mutating func renumber(slot old: Int, as new: Int, pictureCount: Int) {
        motion.shift(by: Double(new - old))
        held?.position += Double(new - old)
        held?.target += Double(new - old)
        self.pictureCount = pictureCount
    }

    private mutating func move(by delta: Int, at now: Double) {
        guard pictureCount >= 2, delta != 0 else { return }
        // A finger holding the strip keeps it: moves from elsewhere meanwhile are ignored.
        guard held == nil else { return }
        if isAsleep {
            // Nothing is seen sliding: the strip is where it was sent.
            motion = StripMotion(at: motion.target + Double(delta), easing: motion.easing, duration: motion.duration)
            return
        }
        motion.retarget(to: motion.target + Double(delta), at: now)
        if !isPaused { restEnds = motion.restTime + interval }
    }
}
