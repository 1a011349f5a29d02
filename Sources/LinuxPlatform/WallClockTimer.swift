import CLinux
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A one-shot timer on the wall clock (`timerfd` on `CLOCK_REALTIME`,
/// `TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET`): fires at a Unix time,
/// and also when the clock is set (NTP's first sync, an operator's
/// `date -s`), so a schedule is worked out again rather than firing at a
/// moment that no longer means what it did.
///
/// A step past the armed time can also come back as a plain expiry: the
/// kernel fires the timer for the new time before it flags the step
/// (`clock_was_set` retriggers the hrtimers, then cancels the timerfds),
/// and a timer read and armed again in between is never cancelled. So an
/// expiry at a wall time the monotonic clock does not account for since
/// arming (``wasSet(armed:now:)``) is reported as ``Expiry/clockSet`` too.
public final class WallClockTimer {
    public let descriptor: FileDescriptor
    public private(set) var armedAt: Int64?
    /// Both clocks when the timer was armed.
    private var armedClocks: Clocks?

    /// The wall clock and the monotonic clock read together, in seconds.
    public struct Clocks: Sendable {
        public var wall: Double
        public var monotonic: Double
        public init(wall: Double, monotonic: Double) { (self.wall, self.monotonic) = (wall, monotonic) }
        static func now() -> Clocks { Clocks(wall: WallClockTimer.preciseNow(), monotonic: MonotonicClock.now()) }
    }

    /// True when the wall clock moved more than the monotonic clock can
    /// account for between `armed` and `now`: by more than a second, plus
    /// what NTP's slewing (at most 500 ppm) could have added.
    public static func wasSet(armed: Clocks, now: Clocks) -> Bool {
        let elapsed = now.monotonic - armed.monotonic
        return abs((now.wall - armed.wall) - elapsed) > 1 + 0.0005 * max(elapsed, 0)
    }

    public enum Expiry { case fired, clockSet, nothing }

    public init() throws(SystemCallError) {
        descriptor = FileDescriptor(owning: try retryingInterrupts("timerfd_create(CLOCK_REALTIME)") {
            timerfd_create(CLOCK_REALTIME, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        })
    }

    /// The wall clock now, in Unix seconds.
    public static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec)
    }

    /// The wall clock now, in Unix seconds to the nanosecond.
    public static func preciseNow() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Fires once at Unix time `time`, to the nanosecond (a group's beat); nil disarms.
    public func arm(atPrecise time: Double?) throws(SystemCallError) {
        var spec = itimerspec()
        if let time {
            let whole = max(time, 1).rounded(.down)
            spec.it_value = timespec(tv_sec: Int(whole), tv_nsec: Int(((max(time, 1) - whole) * 1e9).rounded(.down)))
            if spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0 { spec.it_value.tv_nsec = 1 }
        }
        try retryingInterrupts("timerfd_settime(CLOCK_REALTIME)") {
            timerfd_settime(descriptor.rawValue, Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET), &spec, nil)
        }
        armedAt = time.map { Int64($0.rounded(.down)) }
        armedClocks = time == nil ? nil : .now()
    }

    /// Fires once at Unix time `time`; nil disarms.
    public func arm(at time: Int64?) throws(SystemCallError) {
        var spec = itimerspec()
        if let time { spec.it_value = timespec(tv_sec: Int(max(time, 1)), tv_nsec: 0) }
        try retryingInterrupts("timerfd_settime(CLOCK_REALTIME)") {
            timerfd_settime(descriptor.rawValue, Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET), &spec, nil)
        }
        armedAt = time
        armedClocks = time == nil ? nil : .now()
    }

    /// Takes what made the descriptor readable.
    public func take() -> Expiry {
        var expirations: UInt64 = 0
        switch valueOrErrno({ read(descriptor.rawValue, &expirations, MemoryLayout<UInt64>.size) }) {
        case .failure(.canceled):
            (armedAt, armedClocks) = (nil, nil)
            return .clockSet
        case .success(MemoryLayout<UInt64>.size) where expirations > 0: break
        default: return .nothing
        }
        defer { (armedAt, armedClocks) = (nil, nil) }
        if let armedClocks, Self.wasSet(armed: armedClocks, now: .now()) { return .clockSet }
        return .fired
    }
}

/// How far the wall clock is ahead of UTC at Unix time `utc`, in seconds,
/// by the C library's time zone (`TZ`, else `/etc/localtime`): daylight
/// saving included.
public func localUTCOffset(at utc: Int64) -> Int {
    var time = time_t(utc)
    var parts = tm()
    guard localtime_r(&time, &parts) != nil else { return 0 }
    return parts.tm_gmtoff
}
