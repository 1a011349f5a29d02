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
        for attempt in 0..<2 {
            do throws(ControlClientError) {
                let connection: ControlConnection
                if let kept = self.connection { connection = kept } else { connection = try ControlConnection(path: socket, timeout: Self.timeout) }
                self.connection = connection
                return try connection.request(line)
            } catch {
                connection = nil
                // A kept connection kioskd closed (it restarted): once more on a new one.
                if case .closed = error, attempt == 0 { continue }
                if case .system(let failure) = error, failure.errno == EPIPE || failure.errno == ECONNRESET, attempt == 0 { continue }
                return Self.failure("kioskd does not answer on \(socket): \(error)")
            }
        }
        return Self.failure("kioskd does not answer on \(socket)")
    }

    /// The frame on screen as the small JPEG MQTT publishes (`screenshot
    /// jpeg`), or why there is none.
    func screenPicture() -> Result<[UInt8], KioskLinkError> {
        for attempt in 0..<2 {
            do throws(ControlClientError) {
                let connection: ControlConnection
                if let kept = self.connection { connection = kept } else { connection = try ControlConnection(path: socket, timeout: Self.timeout) }
                self.connection = connection
                let line = try connection.request(ControlRequest.screenshot(.jpeg).line)
                guard let count = Self.integer("jpeg_bytes", in: line) else {
                    return .failure(KioskLinkError(String(decoding: line, as: UTF8.self)))
                }
                guard count <= 16 << 20 else {
                    self.connection = nil
                    return .failure(KioskLinkError("kioskd's picture is \(count) bytes: too large for the page"))
                }
                return .success(try connection.read(count: count))
            } catch {
                connection = nil
                if case .closed = error, attempt == 0 { continue }
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
