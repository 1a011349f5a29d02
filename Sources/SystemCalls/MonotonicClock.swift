#if canImport(Glibc)
import Glibc
#endif

/// Seconds on `CLOCK_MONOTONIC`: the clock the kernel stamps page-flip and
/// input events with, so the run loop uses it for every time it compares
/// with them (deadlines, animation, frame pacing).
public enum MonotonicClock {
    /// The corresponding C function is `clock_gettime(CLOCK_MONOTONIC)`.
    public static func now() -> Double {
        var ts = Glibc.timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// CPU seconds the calling thread has used, in user and kernel mode
    /// (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`).
    public static func threadCPUTime() -> Double {
        var ts = Glibc.timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// `time` as the kernel's `timespec`, for `timerfd_settime`: rounded up
    /// to the nanosecond, so a timer never fires before the time it was set for.
    public static func timespec(_ time: Double) -> Glibc.timespec {
        let seconds = time.rounded(.down)
        return Glibc.timespec(tv_sec: Int(seconds), tv_nsec: min(999_999_999, Int(((time - seconds) * 1e9).rounded(.up))))
    }
}
