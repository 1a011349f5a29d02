import Foundation
import Synchronization
import LoopbackSupport
#if canImport(Glibc)
import Glibc
#endif

/// A server that misbehaves on purpose, on a free loopback port: it takes
/// each connection, reads the request's head, then does what the test
/// says with the socket (answers one byte a second, never stops, never
/// answers), on a thread of its own, until it is stopped.
public final class HostileHTTPServer: @unchecked Sendable {
    public let port: Int
    public var url: String { "http://127.0.0.1:\(port)/photos/" }
    private let listener: Int32
    private let stopping = StopFlag()
    private let thread: Thread

    private final class StopFlag: Sendable {
        let raised = Atomic<Bool>(false)
        var isRaised: Bool { raised.load(ordering: .acquiring) }
    }

    /// `behave` is given each connection's socket, and whether to stop.
    public convenience init(_ behave: @escaping @Sendable (_ socket: Int32, _ stopping: () -> Bool) -> Void) throws {
        try self.init(reading: { socket, _, stopping in behave(socket, stopping) })
    }

    /// A server that answers each request (one per connection) with the
    /// bytes `answer` makes of its head (`PROPFIND /photos/ HTTP/1.1...`),
    /// then closes: a hostile WebDAV server's listing, and its files.
    public convenience init(answering answer: @escaping @Sendable (_ head: String) -> [UInt8]) throws {
        try self.init(reading: { socket, head, _ in
            let bytes = answer(head)
            _ = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            shutdown(socket, Int32(SHUT_WR))
            // Drains what the client still sends (a PROPFIND's body), so the close is not a reset.
            var byte = [UInt8](repeating: 0, count: 4096)
            var idle = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            while poll(&idle, 1, 1000) == 1, read(socket, &byte, byte.count) > 0 {}
        })
    }

    private init(reading behave: @escaping @Sendable (_ socket: Int32, _ head: String, _ stopping: () -> Bool) -> Void) throws {
        port = try LoopbackPort.free()
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = LoopbackPort.ipv4(port: port)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard bound, listen(listener, 8) == 0 else { throw LoopbackPort.NoFreePort() }
        let stopping = self.stopping
        thread = Thread {
            while !stopping.isRaised {
                var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 50) == 1 else { continue }
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { continue }
                Thread {
                    let head = Self.readHead(connection)
                    behave(connection, head) { stopping.isRaised }
                    close(connection)
                }.start()
            }
        }
        thread.start()
    }

    deinit {
        stopping.raised.store(true, ordering: .releasing)
        close(listener)
    }

    /// Reads until the blank line that ends a request's head (or 64 KB); the head.
    private static func readHead(_ socket: Int32) -> String {
        var seen: [UInt8] = []
        var byte: UInt8 = 0
        while seen.count < 65_536, read(socket, &byte, 1) == 1 {
            seen.append(byte)
            if seen.count >= 4, seen.suffix(4).elementsEqual([13, 10, 13, 10]) { break }
        }
        return String(decoding: seen, as: UTF8.self)
    }

    /// Sends `text` whole; false once the other side has gone.
    @discardableResult
    public static func send(_ socket: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// A chunked answer's head: no length, so only the bytes that come can be counted.
    public static let chunkedHead = "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nTransfer-Encoding: chunked\r\n\r\n"
}
