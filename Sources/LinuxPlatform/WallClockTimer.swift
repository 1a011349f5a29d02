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
public final class WallClockTimer {
    public let descriptor: FileDescriptor
    public private(set) var armedAt: Int64?

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
    }

    /// Fires once at Unix time `time`; nil disarms.
    public func arm(at time: Int64?) throws(SystemCallError) {
        var spec = itimerspec()
        if let time { spec.it_value = timespec(tv_sec: Int(max(time, 1)), tv_nsec: 0) }
        try retryingInterrupts("timerfd_settime(CLOCK_REALTIME)") {
            timerfd_settime(descriptor.rawValue, Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET), &spec, nil)
        }
        armedAt = time
    }

    /// Takes what made the descriptor readable.
    public func take() -> Expiry {
        var expirations: UInt64 = 0
        switch valueOrErrno({ read(descriptor.rawValue, &expirations, MemoryLayout<UInt64>.size) }) {
        case .failure(.canceled):
            armedAt = nil
            return .clockSet
        case .success(MemoryLayout<UInt64>.size) where expirations > 0: break
        default: return .nothing
        }
        armedAt = nil
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
