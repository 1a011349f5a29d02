import CLinux
import DRMOutput
#if canImport(Glibc)
import Glibc
#endif

/// A one-shot timer as a file descriptor (`timerfd` on `CLOCK_MONOTONIC`),
/// armed at an absolute ``MonotonicClock`` time, so the run loop waits for
/// it with its other descriptors.
final class WakeTimer {
    let fd: Int32

    init() throws(DisplayJobError) {
        let fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard fd >= 0 else { throw .system(call: "timerfd_create", errno: errno) }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Fires once at `time` (at once if it has passed); nil disarms.
    /// The corresponding C function is `timerfd_settime` with `TFD_TIMER_ABSTIME`.
    func arm(at time: Double?) {
        var spec = itimerspec()
        if let time {
            // A zero it_value would disarm: a time in the past becomes 1 ns.
            let clamped = max(time, 1e-9)
            let seconds = clamped.rounded(.down)
            spec.it_value = timespec(tv_sec: Int(seconds), tv_nsec: max(1, Int((clamped - seconds) * 1e9)))
        }
        timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    /// Reads the expiry count so the descriptor stops being readable.
    @discardableResult
    func take() -> UInt64 {
        var expirations: UInt64 = 0
        return read(fd, &expirations, 8) == 8 ? expirations : 0
    }
}
