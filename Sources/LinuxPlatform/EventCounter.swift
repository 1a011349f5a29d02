import CLinux
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A Linux `eventfd`: a counter one thread bumps and another waits on, or
/// polls along with its other descriptors. The decode worker uses two: one to
/// wake itself for new requests, one to wake the run loop for finished pictures.
public final class EventCounter: @unchecked Sendable {
    public let descriptor: FileDescriptor

    /// `nonBlocking` for the run loop's side: ``take()`` then never waits.
    public init(nonBlocking: Bool) throws(SystemCallError) {
        let flags = Int32(EFD_CLOEXEC) | (nonBlocking ? Int32(EFD_NONBLOCK) : 0)
        descriptor = FileDescriptor(owning: try retryingInterrupts("eventfd") { eventfd(0, flags) })
    }

    public func signal() {
        var one: UInt64 = 1
        _ = try? descriptor.write(from: &one, count: 8)
    }

    /// Resets the counter; true if it had been signalled. Blocks on a
    /// blocking counter until it is.
    @discardableResult
    public func take() -> Bool {
        var count: UInt64 = 0
        return descriptor.readRecord(UInt64.self, into: &count) && count > 0
    }

    /// Waits up to `milliseconds` (-1: for ever) for a signal, without taking it.
    public func wait(milliseconds: Int32) -> Bool {
        var pfd = pollfd(fd: descriptor.rawValue, events: Int16(POLLIN), revents: 0)
        return ((try? retryingInterrupts("poll") { poll(&pfd, 1, milliseconds) }) ?? 0) > 0
    }
}
