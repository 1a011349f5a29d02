/// A point on the screen in pixels, after the device's axes, the display's
/// rotation and the calibration are applied: x runs along the strip.
public struct ScreenPoint: Equatable, Sendable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// What a touch device reported, per contact, in screen pixels, with the
/// kernel's timestamps (seconds, `CLOCK_MONOTONIC`).
public enum TouchInput: Equatable, Sendable {
    /// Contact `id` (a multitouch slot, or 0 on a single-touch device) touched down.
    case down(id: Int, at: ScreenPoint, time: Double)
    case move(id: Int, to: ScreenPoint, time: Double)
    case up(id: Int, time: Double)
    /// Contact `id` is a palm (`MT_TOOL_PALM`).
    case palm(id: Int, time: Double)
    /// Events were lost (`SYN_DROPPED`) and the contacts after the resync
    /// are not the ones before: whatever the finger did meanwhile is unknown.
    case lost(time: Double)
}

extension TouchInput {
    /// When the kernel stamped it.
    public var time: Double {
        switch self {
        case .down(_, _, let time), .move(_, _, let time), .up(_, let time), .palm(_, let time), .lost(let time): return time
        }
    }
}

/// What the strip should do about the touches so far.
public enum SwipeGesture: Equatable, Sendable {
    /// A finger landed: the strip stops where it is (a moving strip is caught).
    case caught
    /// The strip follows the finger: `offset` pixels along x since the
    /// drag began (positive: the finger moved right), no jump at the start.
    case dragged(offset: Double)
    /// The finger lifted after a drag, `offset` pixels from where the drag
    /// began; `flick` when it was quick and had travelled far enough from
    /// where it landed (then `velocity`, pixels a second, says which way);
    /// `velocity` nil when the finger had stopped.
    case released(offset: Double, velocity: Double?, flick: Bool)
    /// A touch that never moved past the slop lifted: a tap where it landed.
    case tapped(at: ScreenPoint)
    /// The gesture ended with no decision (a palm, lost events, three
    /// fingers, a vertical swipe): the strip settles on the nearest picture.
    case cancelled
}

/// The thresholds of a swipe in screen pixels, from the panel's pixels per
/// millimetre. The numbers are Android's (ViewPager, ViewConfiguration):
/// a touch slop of 8 dp (about 2.7 mm: 16 px on a 10-inch 1280x800 panel),
/// a flick from 400 dp/s (about 65 mm/s) that travelled at least 25 dp (4 mm).
public struct SwipeThresholds: Equatable, Sendable {
    /// Movement below this (either axis) is a tap, not a drag.
    public var slop: Double
    /// A release at least this fast (pixels a second) ...
    public var flickVelocity: Double
    /// ... after a drag at least this long (pixels) is a flick.
    public var flickDistance: Double

    public static let slopMillimetres = 2.7
    public static let flickMillimetresPerSecond = 65.0
    public static let flickDistanceMillimetres = 4.0

    public init(slop: Double, flickVelocity: Double, flickDistance: Double) {
        self.slop = slop
        self.flickVelocity = flickVelocity
        self.flickDistance = flickDistance
    }

    public init(pixelsPerMillimetre: Double) {
        self.init(
            slop: Self.slopMillimetres * pixelsPerMillimetre,
            flickVelocity: Self.flickMillimetresPerSecond * pixelsPerMillimetre,
            flickDistance: Self.flickDistanceMillimetres * pixelsPerMillimetre)
    }
}

/// Turns touches into one strip gesture at a time, without the device or
/// the clock: fed ``TouchInput`` in order, it answers what the strip does.
///
/// Rules (the issue's, from seed 000 and Android's pager):
/// - The first finger down drives; a second finger neither jumps nor
///   cancels; a third at once cancels (a hand, not a swipe). When the
///   driving finger lifts, the gesture ends there, whatever the others do.
/// - A drag starts when |dx| passes the slop and |dx| > |dy|; the strip
///   follows from the point where the slop was crossed. If |dy| passes the
///   slop first it is not a swipe: the gesture is cancelled at the lift.
/// - A palm anywhere, or lost events, cancels at once.
/// - A contact that goes down and up within ``ghostDuration`` is a ghost
///   (panel noise, a single report or two), not a tap: a finger's
///   quickest tap lasts several times that.
/// - After a gesture ends nothing starts until every finger has lifted.
public struct SwipeRecognizer: Sendable {
    public var thresholds: SwipeThresholds
    /// Touches shorter than this (seconds) are not taps.
    public static let ghostDuration = 0.015

    private enum State: Equatable {
        case idle
        /// Down, not yet past the slop.
        case pressed(id: Int, at: ScreenPoint, time: Double)
        /// Dragging along x from `origin` (the x where the slop was crossed); it landed at `downX`.
        case dragging(id: Int, origin: Double, downX: Double)
        /// |dy| passed the slop first: not a swipe; cancelled when `id` lifts.
        case vertical(id: Int)
        /// Decided: waiting for every finger to lift.
        case finished
    }

    private var state = State.idle
    private var contacts = Set<Int>()
    private var tracker = VelocityTracker()
    private var lastX = 0.0

    public init(thresholds: SwipeThresholds) { self.thresholds = thresholds }

    /// True while a finger drives the strip (auto-advance waits).
    public var isTouching: Bool {
        switch state {
        case .pressed, .dragging, .vertical: return true
        case .idle, .finished: return false
        }
    }

    /// Takes one input; returns what the strip should do, if anything.
    public mutating func feed(_ input: TouchInput) -> SwipeGesture? {
        switch input {
        case .down(let id, let point, let time):
            contacts.insert(id)
            guard point.x.isFinite, point.y.isFinite else { return nil }
            switch state {
            case .idle where contacts.count == 1:
                state = .pressed(id: id, at: point, time: time)
                tracker.reset()
                tracker.add(point.x, at: time)
                lastX = point.x
                return .caught
            case .pressed, .dragging, .vertical:
                return contacts.count >= 3 ? cancel() : nil
            default:
                return nil
            }
        case .move(let id, let point, let time):
            guard point.x.isFinite, point.y.isFinite else { return nil }
            switch state {
            case .pressed(id, let start, _):
                let dx = point.x - start.x, dy = point.y - start.y
                if abs(dx) > thresholds.slop && abs(dx) > abs(dy) {
                    state = .dragging(id: id, origin: point.x, downX: start.x)
                    tracker.add(point.x, at: time)
                    lastX = point.x
                    return .dragged(offset: 0)
                }
                if abs(dy) > thresholds.slop { state = .vertical(id: id) }
                return nil
            case .dragging(id, let origin, _):
                tracker.add(point.x, at: time)
                guard point.x != lastX else { return nil }
                lastX = point.x
                return .dragged(offset: point.x - origin)
            default:
                return nil
            }
        case .up(let id, let time):
            defer {
                contacts.remove(id)
                if contacts.isEmpty, state == .finished { state = .idle }
            }
            switch state {
            case .pressed(id, let start, let downTime):
                state = .finished
                return time - downTime < Self.ghostDuration ? .cancelled : .tapped(at: start)
            case .dragging(id, let origin, let downX):
                state = .finished
                let velocity = tracker.velocity(liftedAt: time)
                // The flick's distance counts from where the finger landed, as Android's pager does.
                let flick = velocity.map { abs($0) >= thresholds.flickVelocity } == true
                    && abs(lastX - downX) >= thresholds.flickDistance
                let offset = lastX - origin
                return .released(offset: offset, velocity: velocity, flick: flick)
            case .vertical(id):
                state = .finished
                return .cancelled
            default:
                return nil
            }
        case .palm:
            return isTouching ? cancel() : nil
        case .lost:
            contacts.removeAll()
            let wasTouching = isTouching
            state = .idle
            return wasTouching ? .cancelled : nil
        }
    }

    private mutating func cancel() -> SwipeGesture {
        state = .finished
        return .cancelled
    }
}
