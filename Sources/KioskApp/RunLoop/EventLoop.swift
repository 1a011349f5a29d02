import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Waits on many file descriptors at once (`epoll`) and runs the handler of
/// each one that becomes readable. The show's descriptors today: the screen's
/// flip events, the decoder's hand-off, a wake-up timer, shutdown signals.
/// The control socket, its clients and input devices join later, which is
/// why handlers are registered rather than a fixed list polled.
final class EventLoop {
    private let epoll: Int32
    private var handlers: [Int32: () -> Void] = [:]

    init() throws(DisplayJobError) {
        let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw .system(call: "epoll_create1", errno: errno) }
        epoll = fd
    }

    deinit { close(epoll) }

    /// Calls `handler` whenever `fd` is readable (level-triggered: a handler
    /// that leaves data unread is called again).
    func watch(_ fd: Int32, _ handler: @escaping () -> Void) throws(DisplayJobError) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = fd
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) == 0 else { throw .system(call: "epoll_ctl", errno: errno) }
        handlers[fd] = handler
    }

    func unwatch(_ fd: Int32) {
        epoll_ctl(epoll, EPOLL_CTL_DEL, fd, nil)
        handlers[fd] = nil
    }

    /// Sleeps until at least one descriptor is readable, then runs their
    /// handlers. A signal interrupting the wait just returns.
    func waitAndDispatch() throws(DisplayJobError) {
        var events = [epoll_event](repeating: epoll_event(), count: 16)
        let count = epoll_wait(epoll, &events, Int32(events.count), -1)
        if count < 0 {
            if errno == EINTR { return }
            throw .system(call: "epoll_wait", errno: errno)
        }
        for event in events.prefix(Int(count)) {
            handlers[event.data.fd]?()
        }
    }
}
