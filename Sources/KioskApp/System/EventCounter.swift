import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// A Linux `eventfd`: a counter one thread bumps and another waits on, or
/// polls along with its other descriptors. The decode worker uses two: one to
/// wake itself for new requests, one to wake the run loop for finished pictures.
final class EventCounter: @unchecked Sendable {
    let fd: Int32

    /// `nonBlocking` for the run loop's side: ``take()`` then never waits.
    init(nonBlocking: Bool) throws(DisplayJobError) {
        let fd = eventfd(0, Int32(EFD_CLOEXEC) | (nonBlocking ? Int32(EFD_NONBLOCK) : 0))
        guard fd >= 0 else { throw .system(call: "eventfd", errno: errno) }
        self.fd = fd
    }

    deinit { close(fd) }

    func signal() {
        var one: UInt64 = 1
        _ = write(fd, &one, 8)
    }

    /// Resets the counter; true if it had been signalled. Blocks on a
    /// blocking counter until it is.
    @discardableResult
    func take() -> Bool {
        var count: UInt64 = 0
        while true {
            if read(fd, &count, 8) == 8 { return count > 0 }
            if errno != EINTR { return false }
        }
    }

    /// Waits up to `milliseconds` (-1: for ever) for a signal, without taking it.
    func wait(milliseconds: Int32) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&pfd, 1, milliseconds)
            if ready >= 0 { return ready > 0 }
            if errno != EINTR { return false }
        }
    }
}
