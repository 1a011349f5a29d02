import CLinux
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A one-shot timer as a file descriptor (`timerfd` on `CLOCK_MONOTONIC`),
/// armed at an absolute ``MonotonicClock`` time, so a run loop waits for it
/// with its other descriptors. The ``EventLoop``'s deadlines share one; the
/// headless screen's "vblank" is another.
public final class OneShotTimer {
    public let descriptor: FileDescriptor
    /// The time it is armed for; nil once it fired or was disarmed.
    public private(set) var armedAt: Double?

    public init() throws(SystemCallError) {
        descriptor = FileDescriptor(owning: try retryingInterrupts("timerfd_create") {
            timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        })
    }

    /// Fires once at `time` (at once if it has passed); nil disarms.
    /// The corresponding C function is `timerfd_settime` with `TFD_TIMER_ABSTIME`.
    public func arm(at time: Double?) throws(SystemCallError) {
        guard time != armedAt else { return }
        var spec = itimerspec()
        // A zero it_value would disarm: a time at or before the clock's start becomes 1 ns.
        if let time { spec.it_value = MonotonicClock.timespec(max(time, 1e-9)) }
        try retryingInterrupts("timerfd_settime") {
            timerfd_settime(descriptor.rawValue, Int32(TFD_TIMER_ABSTIME), &spec, nil)
        }
        armedAt = time
    }

    /// Takes the expiry (call when the descriptor is readable), so it stops
    /// being readable; true if the timer had fired.
    @discardableResult
    public func take() -> Bool {
        var expirations: UInt64 = 0
        guard descriptor.readRecord(UInt64.self, into: &expirations), expirations > 0 else { return false }
        armedAt = nil
        return true
    }
}
