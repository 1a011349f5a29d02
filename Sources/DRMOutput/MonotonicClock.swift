#if canImport(Glibc)
import Glibc
#endif

/// Seconds on `CLOCK_MONOTONIC`: the clock the kernel stamps page-flip
/// events with, so the run loop uses it for every time it compares with them
/// (timers, animation, frame pacing).
public enum MonotonicClock {
    /// The corresponding C function is `clock_gettime(CLOCK_MONOTONIC)`.
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
