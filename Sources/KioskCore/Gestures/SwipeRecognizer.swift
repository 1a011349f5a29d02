/// A point on the screen in pixels, after the device's axes, the display's
/// rotation and the calibration are applied: x runs along the strip.
public struct ScreenPoint: Hashable, Sendable {
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
    /// fingers, a vertical swipe): the strip settles on the nearest picture,
    /// and a pinch or pan ends where it is.
    case cancelled
    /// A second finger landed before the first dragged: two fingers
    /// pinch, `distance` pixels apart about `midpoint` (seed 002's zoom).
    case pinchBegan(midpoint: ScreenPoint, distance: Double)
    /// The pinching fingers moved: where they are now.
    case pinchMoved(midpoint: ScreenPoint, distance: Double)
    /// One finger moved a zoomed picture (``SwipeRecognizer/pansPicture``)
    /// by `dx`, `dy` pixels since its last report.
    case panned(dx: Double, dy: Double)
    /// The pinch or the pan ended (a finger lifted, or a third landed).
    case zoomEnded
    /// A second tap landed within ``SwipeRecognizer/doubleTapInterval``
    /// of the first, near it: reported instead of that second tap.
    case doubleTapped(at: ScreenPoint)
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
    /// A second tap this close (pixels) to the first makes a double tap.
    public var doubleTapDistance: Double

    public static let slopMillimetres = 2.7
    public static let flickMillimetresPerSecond = 65.0
    public static let flickDistanceMillimetres = 4.0
    /// Android's double-tap slop, 100 dp.
    public static let doubleTapMillimetres = 16.0

    public init(slop: Double, flickVelocity: Double, flickDistance: Double, doubleTapDistance: Double? = nil) {
        self.slop = slop
        self.flickVelocity = flickVelocity
        self.flickDistance = flickDistance
        self.doubleTapDistance = doubleTapDistance ?? slop * Self.doubleTapMillimetres / Self.slopMillimetres
    }

    public init(pixelsPerMillimetre: Double) {
        self.init(
            slop: Self.slopMillimetres * pixelsPerMillimetre,
            flickVelocity: Self.flickMillimetresPerSecond * pixelsPerMillimetre,
            flickDistance: Self.flickDistanceMillimetres * pixelsPerMillimetre,
            doubleTapDistance: Self.doubleTapMillimetres * pixelsPerMillimetre)
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
///
/// Two-finger gestures and the zoomed picture (seed 002):
/// - A second finger landing before the first dragged starts a pinch
///   (``SwipeGesture/pinchBegan(midpoint:distance:)``): the strip stays
///   caught, the fingers' midpoint and distance are reported as they move,
///   and the pinch ends when either lifts or a third lands.
/// - While ``pansPicture`` is set (the centred picture is zoomed), one
///   finger past the slop in any direction pans it instead of dragging the
///   strip; a second finger turns the pan into a pinch.
/// - A tap whose finger lands within ``doubleTapInterval`` of the last
///   tap's lift, within ``SwipeThresholds/doubleTapDistance`` of it, is a
///   double tap (Android's `GestureDetector` rule).
public struct SwipeRecognizer: Sendable {
    public var thresholds: SwipeThresholds
    /// Touches shorter than this (seconds) are not taps.
    public static let ghostDuration = 0.015
    /// The most time (seconds) from a tap's lift to the next finger's
    /// landing for the two to be a double tap: Android's 300 ms.
    public static let doubleTapInterval = 0.3
    /// Set while the centred picture is zoomed: one finger pans it. Read
    /// when a finger lands, so a gesture keeps the meaning it began with.
    public var pansPicture = false

    private enum State: Equatable {
        case idle
        /// Down, not yet past the slop.
        case pressed(id: Int, at: ScreenPoint, time: Double)
        /// Dragging along x from `origin` (the x where the slop was crossed); it landed at `downX`.
        case dragging(id: Int, origin: Double, downX: Double)
        /// |dy| passed the slop first: not a swipe; cancelled when `id` lifts.
        case vertical(id: Int)
        /// Panning the zoomed picture with `id`, last reported at `last`.
        case panning(id: Int, last: ScreenPoint)
        /// Two fingers pinching.
        case pinching(first: Int, second: Int)
        /// Decided: waiting for every finger to lift.
        case finished
    }

    private var state = State.idle
    private var contacts = Set<Int>()
    private var tracker = VelocityTracker()
    private var lastX = 0.0
    /// Where each finger down is (for the pinch).
    private var points: [Int: ScreenPoint] = [:]
    /// The last tap's place and lift, while a second could make it double.
    private var lastTap: (at: ScreenPoint, liftedAt: Double)?
    /// The landing of the finger that drives: it pans the picture (``pansPicture`` then).
    private var panning = false

    public init(thresholds: SwipeThresholds) { self.thresholds = thresholds }

    /// True while a finger drives the strip (auto-advance waits).
    public var isTouching: Bool {
        switch state {
        case .pressed, .dragging, .vertical, .panning, .pinching: return true
        case .idle, .finished: return false
        }
    }

    /// Takes one input; returns what the strip should do, if anything.
    public mutating func feed(_ input: TouchInput) -> SwipeGesture? {
        switch input {
        case .down(let id, let point, let time):
            contacts.insert(id)
            guard point.x.isFinite, point.y.isFinite else { return nil }
            points[id] = point
            switch state {
            case .idle where contacts.count == 1:
                state = .pressed(id: id, at: point, time: time)
                panning = pansPicture
                tracker.reset()
                tracker.add(point.x, at: time)
                lastX = point.x
                return .caught
            case .pressed(let first, _, _) where contacts.count == 2, .panning(let first, _) where contacts.count == 2:
                guard let pinch = pinch(first, id) else { return nil }
                state = .pinching(first: first, second: id)
                lastTap = nil
                return .pinchBegan(midpoint: pinch.midpoint, distance: pinch.distance)
            case .pinching, .panning:
                state = .finished
                return .zoomEnded
            case .pressed, .dragging, .vertical:
                return contacts.count >= 3 ? cancel() : nil
            default:
                return nil
            }
        case .move(let id, let point, let time):
            guard point.x.isFinite, point.y.isFinite else { return nil }
            if points[id] != nil { points[id] = point }
            switch state {
            case .pressed(id, let start, _) where panning:
                // The pan follows from where the slop was crossed, no jump.
                if abs(point.x - start.x) > thresholds.slop || abs(point.y - start.y) > thresholds.slop {
                    state = .panning(id: id, last: point)
                    lastTap = nil
                }
                return nil
            case .panning(id, let last):
                state = .panning(id: id, last: point)
                return point == last ? nil : .panned(dx: point.x - last.x, dy: point.y - last.y)
            case .pinching(let first, let second) where id == first || id == second:
                return pinch(first, second).map { .pinchMoved(midpoint: $0.midpoint, distance: $0.distance) }
            case .pressed(id, let start, _):
                let dx = point.x - start.x, dy = point.y - start.y
                if abs(dx) > thresholds.slop && abs(dx) > abs(dy) {
                    lastTap = nil
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
                points[id] = nil
                if contacts.isEmpty, state == .finished { state = .idle }
            }
            switch state {
            case .pressed(id, let start, let downTime):
                state = .finished
                if time - downTime < Self.ghostDuration { return .cancelled }
                if let last = lastTap, downTime - last.liftedAt <= Self.doubleTapInterval,
                   (start.x - last.at.x) * (start.x - last.at.x) + (start.y - last.at.y) * (start.y - last.at.y)
                    <= thresholds.doubleTapDistance * thresholds.doubleTapDistance {
                    lastTap = nil
                    return .doubleTapped(at: start)
                }
                lastTap = (start, time)
                return .tapped(at: start)
            case .panning(id, _):
                state = .finished
                return .zoomEnded
            case .pinching(let first, let second) where id == first || id == second:
                state = .finished
                return .zoomEnded
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
            points = [:]
            lastTap = nil
            let wasTouching = isTouching
            state = .idle
            return wasTouching ? .cancelled : nil
        }
    }

    private mutating func cancel() -> SwipeGesture {
        state = .finished
        lastTap = nil
        return .cancelled
    }

    /// The midpoint of fingers `a` and `b` and their distance, when both are known.
    private func pinch(_ a: Int, _ b: Int) -> (midpoint: ScreenPoint, distance: Double)? {
        guard let p = points[a], let q = points[b] else { return nil }
        return (ScreenPoint(x: (p.x + q.x) / 2, y: (p.y + q.y) / 2), ((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)).squareRoot())
    }
}
