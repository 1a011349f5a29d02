#if canImport(Glibc)
import Glibc
#endif

/// Ports on this machine's loopback for the tests' own servers (a broker, a
/// web server): one free now, and whether one accepts connections yet.
public enum LoopbackPort {
    public struct NoFreePort: Error, CustomStringConvertible {
        public init() {}
        public var description: String { "no free port on loopback" }
    }

    /// A port nothing listens on now: bound to 0, read back, let go.
    public static func free() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = ipv4(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw NoFreePort() }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts a connection on `port` at `host` (IPv4) now.
    public static func accepts(_ port: Int, at host: String = "127.0.0.1") -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = ipv4(port: port, host: host)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// `host`:`port`, IPv4.
    public static func ipv4(port: Int, host: String = "127.0.0.1") -> sockaddr_in {
        var address = in_addr()
        inet_pton(AF_INET, host, &address)
        return sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: UInt16(port).bigEndian, sin_addr: address, sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
    }
}
