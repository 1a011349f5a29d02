import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 request over a new loopback connection, written and read
/// raw off the socket, as a browser's bytes: nothing interpreted on the
/// way, so the tests see kioskd-web's answer as it is, and the benchmark
/// times when the request's last byte left and when the answer came.
public struct RawHTTPAnswer: CustomStringConvertible, Sendable {
    public let status: Int
    public let headers: [(name: String, value: String)]
    public let body: [UInt8]
    /// Monotonic seconds: when the request's last byte was sent, and when the answer's first byte came.
    public let sentAt: Double
    public let answeredAt: Double

    public func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
    public var text: String { String(decoding: body, as: UTF8.self) }
    public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
    public var description: String { "\(status) \(headers.map { "\($0.name): \($0.value)" }.joined(separator: "; ")) \(text.prefix(300))" }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    /// `from`: the loopback address asked from (kioskd-web's throttle counts per address).
    public static func ask(
        port: Int, method: String, path: String, headers: [(String, String)] = [], body: [UInt8] = [], from: String? = nil
    ) throws -> RawHTTPAnswer {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        if let from {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(from)
            _ = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { throw Failure("cannot connect to 127.0.0.1:\(port)") }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        let request = Array((head + "\r\n").utf8) + body
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // The server may answer (413) and close before the body is all sent.
            guard count > 0 else { break }
            sent += count
        }
        let sentAt = monotonicSeconds()
        var answeredAt: Double?
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 60_000) > 0 else { throw Failure("no answer within a minute") }
            let count = recv(socket, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            if answeredAt == nil { answeredAt = monotonicSeconds() }
            answer += chunk[..<count]
        }
        guard let end = answer.indices.first(where: { answer[$0...].starts(with: [13, 10, 13, 10]) }) else {
            throw Failure("no HTTP answer: \(String(decoding: answer, as: UTF8.self))")
        }
        let lines = String(decoding: answer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
        let parsed = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return RawHTTPAnswer(status: status, headers: parsed, body: Array(answer[(end + 4)...]), sentAt: sentAt, answeredAt: answeredAt ?? sentAt)
    }
}

/// Monotonic seconds.
public func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
