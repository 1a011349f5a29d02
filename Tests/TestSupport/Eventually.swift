import Glibc

/// Asks `condition` every `interval` seconds until it holds (true), or
/// until `seconds` have passed (false, once asked a last time). The bound
/// is generous on purpose: tests share a few cores with other tests and
/// builds, and a condition that holds ends the wait at once. How soon
/// something happens is `make bench`'s to measure, not the tests'.
@discardableResult
public func eventually(within seconds: Double = 30, every interval: Double = 0.01, _ condition: () throws -> Bool) rethrows -> Bool {
    func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
    let deadline = now() + seconds
    while true {
        if try condition() { return true }
        if now() > deadline { return try condition() }
        usleep(useconds_t(interval * 1_000_000))
    }
}
