import CLinux
import KioskCore
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The kernel's uevents (`NETLINK_KOBJECT_UEVENT`, multicast group 1):
/// devices coming, going and changing, as the kernel announces them.
///
/// Read straight from the kernel rather than through libudev's monitor:
/// the monitor hears udevd's rebroadcasts, so it hears nothing where no
/// udevd runs (an initramfs, a minimal image, the VM's test boot), and
/// kioskd needs nothing udev adds for a `change` of its own card. The
/// message is a few `KEY=VALUE` strings (``UEvent``). Messages whose
/// sender is not the kernel (port id 0) are dropped.
public final class UEventSocket {
    public let descriptor: FileDescriptor

    public init() throws(SystemCallError) {
        descriptor = FileDescriptor(owning: try retryingInterrupts("socket(AF_NETLINK)") {
            socket(AF_NETLINK, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                   NETLINK_KOBJECT_UEVENT)
        })
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_groups = 1
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor.rawValue, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
            }
        }
        guard bound == 0 else { throw SystemCallError.last("bind(NETLINK_KOBJECT_UEVENT)") }
    }

    /// The kernel's messages waiting now (at most `limit`); `overflowed`
    /// when some were lost (the receive buffer filled: ENOBUFS), so the
    /// caller looks at the devices again rather than trusting what it read.
    public func take(limit: Int = 256) -> (events: [UEvent], overflowed: Bool) {
        var events: [UEvent] = []
        var overflowed = false
        var buffer = [UInt8](repeating: 0, count: UEvent.maximumBytes + 1)
        for _ in 0..<limit {
            var sender = sockaddr_nl()
            var length = socklen_t(MemoryLayout<sockaddr_nl>.size)
            let received = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &sender) { address in
                    address.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                        valueOrErrno { recvfrom(descriptor.rawValue, bytes.baseAddress, bytes.count, 0, address, &length) }
                    }
                }
            }
            let count: Int
            switch received {
            case .success(let value): count = value
            case .failure(.noBufferSpace):
                overflowed = true
                continue
            case .failure: return (events, overflowed)   // EAGAIN: all read
            }
            guard sender.nl_pid == 0, let event = UEvent(message: buffer.prefix(count)) else { continue }
            events.append(event)
        }
        return (events, overflowed)
    }
}
