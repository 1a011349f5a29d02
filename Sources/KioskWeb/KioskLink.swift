import ControlClient
import Glibc
import KioskCore

/// kioskd, as kioskd-web reaches it: through the control socket only, one
/// request and its reply line at a time, each bounded by ``timeout`` so a
/// stopped kioskd makes the page say so instead of hanging. A connection
/// is kept open between requests and made again when kioskd restarted.
final class KioskLink {
    let socket: String
    /// Seconds a reply may take: kioskd answers from its show loop within a frame or two.
    static let timeout = 3.0
    private var connection: ControlConnection?

    init(socket: String) { self.socket = socket }

    /// kioskd's reply line to `request` (JSON, without its newline), or a
    /// reply saying why there is none, in the protocol's own shape.
    func ask(_ line: String) -> [UInt8] {
        switch exchange({ connection throws(ControlClientError) in try connection.request(line) }) {
        case .success(let reply): return reply
        case .failure(let error): return Self.failure(error.description)
        }
    }

    /// The frame on screen as the small JPEG MQTT publishes (`screenshot
    /// jpeg`), or why there is none.
    func screenPicture() -> Result<[UInt8], KioskLinkError> {
        picture(ControlRequest.screenshot(.jpeg).line).map(\.jpeg)
    }

    /// A playlist item's thumbnail (`thumbnail N`): the reply line and the JPEG.
    func thumbnail(_ item: Int) -> Result<(reply: [UInt8], jpeg: [UInt8]), KioskLinkError> {
        picture(ControlRequest.thumbnail(item).line, timeout: Self.thumbnailTimeout)
    }

    /// Seconds a thumbnail may take: kioskd decodes the photo again (a large HEIC on a small board takes a second or two).
    static let thumbnailTimeout = 10.0

    /// A request answered by a reply line and `jpeg_bytes` bytes after it.
    private func picture(_ line: String, timeout: Double = KioskLink.timeout) -> Result<(reply: [UInt8], jpeg: [UInt8]), KioskLinkError> {
        var refusal: KioskLinkError?
        let picture = exchange { connection throws(ControlClientError) -> (reply: [UInt8], jpeg: [UInt8]) in
            connection.timeout = timeout
            defer { connection.timeout = Self.timeout }
            let reply = try connection.request(line)
            guard let count = Self.integer("jpeg_bytes", in: reply) else {
                refusal = KioskLinkError(String(decoding: reply, as: UTF8.self))
                return (reply, [])
            }
            guard count <= 16 << 20 else {
                self.connection = nil
                refusal = KioskLinkError("kioskd's picture is \(count) bytes: too large for the page")
                return (reply, [])
            }
            return (reply, try connection.read(count: count))
        }
        if let refusal { return .failure(refusal) }
        return picture
    }

    /// `body` on the kept connection, or a new one; once more on a new one
    /// when kioskd closed the kept one (it restarted).
    private func exchange<Answer>(_ body: (ControlConnection) throws(ControlClientError) -> Answer) -> Result<Answer, KioskLinkError> {
        for attempt in 0..<2 {
            do throws(ControlClientError) {
                let connection: ControlConnection
                if let kept = self.connection { connection = kept } else { connection = try ControlConnection(path: socket, timeout: Self.timeout) }
                self.connection = connection
                return .success(try body(connection))
            } catch {
                connection = nil
                let closed: Bool
                switch error {
                case .closed: closed = true
                case .system(let failure): closed = failure.errno == EPIPE || failure.errno == ECONNRESET
                default: closed = false
                }
                if closed, attempt == 0 { continue }
                return .failure(KioskLinkError("kioskd does not answer on \(socket): \(error)"))
            }
        }
        return .failure(KioskLinkError("kioskd does not answer on \(socket)"))
    }

    /// The integer after `"key":` in a reply line (kioskd writes its replies with no spaces).
    static func integer(_ key: String, in line: [UInt8]) -> Int? {
        let text = String(decoding: line, as: UTF8.self)
        let parts = text.split(separator: "\"\(key)\":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        return Int(parts[1].prefix { $0.isNumber })
    }

    static func failure(_ error: String) -> [UInt8] {
        JSONObject([("ok", .bool(false)), ("error", .string(error))]).line.dropLast().map { $0 }
    }
}

struct KioskLinkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
