import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Why a client could not talk to kioskd: each says what to do about it.
public enum ControlClientError: Error, Equatable, CustomStringConvertible {
    /// No socket file: the daemon is not running (or listens elsewhere).
    case notRunning(path: String)
    /// A socket file nobody listens on: the daemon stopped without removing it.
    case nobodyListening(path: String)
    /// The socket's mode keeps this user out: `group` may use it.
    case permissionDenied(path: String, group: String?)
    case timedOut(path: String, seconds: Double)
    /// The daemon closed the connection before the reply was complete.
    case closed(path: String)
    case system(SystemCallError)

    public var description: String {
        switch self {
        case .notRunning(let path):
            return "kioskd is not running: there is no control socket at \(path) (start it, e.g. systemctl start kioskd, or give its socket with --socket)"
        case .nobodyListening(let path):
            return "kioskd is not running: nothing listens on \(path) (it stopped; start it again)"
        case .permissionDenied(let path, let group):
            let who = group.map { "root and members of the group \"\($0)\"" } ?? "root and the socket's group"
            let join = group.map { " (join it: sudo usermod -aG \($0) $USER, then log in again)" } ?? ""
            return "not allowed to use \(path): only \(who) may drive the kiosk\(join)"
        case .timedOut(let path, let seconds):
            return "kioskd did not answer on \(path) within \(seconds) s"
        case .closed(let path):
            return "kioskd closed the connection on \(path) before replying"
        case .system(let error):
            return error.description
        }
    }
}

/// One connection to kioskd's control socket, as `kioskctl`, the tests and
/// the benchmark use it: send a line, read reply lines (and a
/// screenshot's bytes), each wait bounded by the timeout.
public final class ControlConnection {
    public let path: String
    /// The socket's descriptor, for a caller that polls many connections (the benchmark).
    public var descriptor: Int32 { socket.rawValue }
    /// Seconds any one wait may take; nil waits for ever (`watch`).
    public var timeout: Double?
    private let socket: FileDescriptor
    private var buffer: [UInt8] = []

    public init(path: String, timeout: Double? = 5) throws(ControlClientError) {
        self.path = path
        self.timeout = timeout
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system(.last("socket", path: path)) }
        socket = FileDescriptor(owning: fd)
        guard var address = UnixAddress(path) else { throw .system(SystemCallError("connect", errno: ENAMETOOLONG, path: path)) }
        guard address.withSockaddr({ connect(fd, $0, $1) }) == 0 else {
            switch Errno.current {
            case .noSuchFileOrDirectory: throw .notRunning(path: path)
            case .connectionRefused: throw .nobodyListening(path: path)
            case .permissionDenied, .notPermitted: throw .permissionDenied(path: path, group: Self.group(of: path))
            default: throw .system(.last("connect", path: path))
            }
        }
    }

    /// Sends one command line (the `\n` is added).
    public func send(_ command: String) throws(ControlClientError) {
        try send(bytes: Array((command + "\n").utf8))
    }

    /// Sends raw bytes: the tests send garbage and overlong lines this way.
    public func send(bytes: [UInt8]) throws(ControlClientError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { chunk in
                valueOrErrno { Glibc.send(socket.rawValue, chunk.baseAddress, chunk.count, Int32(MSG_NOSIGNAL)) }
            }
            switch sent {
            case .success(let count): offset += count
            case .failure(.brokenPipe), .failure(.connectionReset): throw .closed(path: path)
            case .failure(let failure): throw .system(SystemCallError("send", errno: failure.rawValue, path: path))
            }
        }
    }

    /// The next line the daemon sent, without its `\n`.
    public func readLine() throws(ControlClientError) -> [UInt8] {
        while true {
            if let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<end])
                buffer.removeFirst(end + 1)
                return line
            }
            try fill()
        }
    }

    /// The whole lines that have arrived, without waiting: for a caller
    /// whose own loop saw the socket readable (kioskd-web's `watch`).
    /// ``ControlClientError/closed(path:)`` once the daemon hung up.
    public func takeLines() throws(ControlClientError) -> [[UInt8]] {
        let wait = timeout
        timeout = 0
        defer { timeout = wait }
        var ended: ControlClientError?
        do { try fill() } catch {
            if case .timedOut = error {} else { ended = error }
        }
        var lines: [[UInt8]] = []
        while let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(Array(buffer[..<end]))
            buffer.removeFirst(end + 1)
        }
        // What came with the end is handed over first; the end, at the next call.
        if let ended, lines.isEmpty { throw ended }
        return lines
    }

    /// Exactly `count` bytes (a screenshot's PNG).
    public func read(count: Int) throws(ControlClientError) -> [UInt8] {
        while buffer.count < count { try fill() }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }

    /// Sends `command` and returns the reply line.
    public func request(_ command: String) throws(ControlClientError) -> [UInt8] {
        try send(command)
        return try readLine()
    }

    /// Reads what has arrived, waiting at most ``timeout``; the daemon
    /// closing the connection is ``ControlClientError/closed(path:)``.
    private func fill() throws(ControlClientError) {
        var pfd = pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)
        let milliseconds = timeout.map { Int32(min($0 * 1000, Double(Int32.max))) } ?? -1
        let ready: Int32
        do { ready = try retryingInterrupts("poll", path: path) { poll(&pfd, 1, milliseconds) } } catch { throw .system(error) }
        guard ready > 0 else { throw .timedOut(path: path, seconds: timeout ?? 0) }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let read = chunk.withUnsafeMutableBytes { bytes in valueOrErrno { Glibc.read(socket.rawValue, bytes.baseAddress, bytes.count) } }
        let count: Int
        switch read {
        case .success(let value): count = value
        case .failure(.wouldBlock): return
        case .failure(.connectionReset): throw .closed(path: path)
        case .failure(let failure): throw .system(SystemCallError("read", errno: failure.rawValue, path: path))
        }
        guard count > 0 else { throw .closed(path: path) }
        buffer += chunk[..<count]
    }

    /// The name of the group that owns the socket file, for the permission message.
    private static func group(of path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0, let entry = getgrgid(status.st_gid) else { return nil }
        return String(cString: entry.pointee.gr_name)
    }
}
