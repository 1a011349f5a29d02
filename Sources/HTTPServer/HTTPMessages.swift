import CMicroHTTPD

/// One request, as libmicrohttpd read its head: valid while the handler
/// that got it runs (its header lookups read the connection).
public struct HTTPRequest {
    public let method: String
    /// The path, without the query (`/api/status`).
    public let path: String
    /// The client's address as text (`192.0.2.7`, or eight groups of hex for IPv6).
    public let clientAddress: String
    fileprivate let connection: OpaquePointer

    init(connection: OpaquePointer, method: String, path: String) {
        self.connection = connection
        self.method = method
        self.path = path
        var address = [CChar](repeating: 0, count: 64)
        kd_mhd_client_address(connection, &address, address.count)
        clientAddress = String(decoding: address.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public func header(_ name: String) -> String? { value(kd_mhd_header_kind, name) }
    public func cookie(_ name: String) -> String? { value(kd_mhd_cookie_kind, name) }
    /// An argument of the query (`?name=value`), decoded.
    public func query(_ name: String) -> String? { value(kd_mhd_get_argument_kind, name) }

    /// The body's length as the client announced it; nil when it did not (or sent none).
    public var contentLength: UInt64? { header("Content-Length").flatMap { UInt64($0) } }

    private func value(_ kind: MHD_ValueKind, _ name: String) -> String? {
        MHD_lookup_connection_value(connection, kind, name).map { String(cString: $0) }
    }
}

/// What a handler answers: a status, headers and a body, or a stream that
/// stays open (Server-Sent Events).
public struct HTTPResponse {
    public enum Body {
        case bytes([UInt8])
        case stream(HTTPStream)
    }

    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Body

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Plain text with a final newline, for an error a person reads.
    public static func text(_ status: Int, _ text: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + headers, body: .bytes(Array((text + "\n").utf8)))
    }

    /// A redirection to `location` after a form (303 See Other: the browser GETs it).
    public static func seeOther(_ location: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: 303, headers: [("Location", location)] + headers)
    }

    public func adding(_ name: String, _ value: String) -> HTTPResponse {
        var response = self
        response.headers.append((name, value))
        return response
    }
}

/// A request's body read as a form (`multipart/form-data` or
/// `application/x-www-form-urlencoded`), part by part, as it arrives: a
/// file is never held whole in memory. Each call returns false to stop
/// reading (too large, refused, a disk that is full); ``finish(complete:)``
/// then says why.
public protocol HTTPFormReceiver: AnyObject {
    /// A field (its value at most ``HTTPServer/fieldLimit`` bytes).
    func field(_ name: String, _ value: [UInt8]) -> Bool
    /// A file part starts: `field` is its form field, `fileName` what the browser sent.
    func fileBegins(field: String, fileName: String) -> Bool
    /// The next bytes of the file that began last.
    func fileData(_ bytes: UnsafeRawBufferPointer) -> Bool
    /// The body has been read: `complete` is false when it could not be
    /// parsed, or a call above stopped it. The answer is sent.
    func finish(complete: Bool) -> HTTPResponse
    /// The connection ended before the body did (the client went away):
    /// undo what was begun. Not called after ``finish(complete:)``.
    func abandon()
}

/// How a handler takes a request: answered at once from its head, its
/// body read as a form first, or answered later (``HTTPLater``) while the
/// loop serves the other requests.
public enum HTTPAnswer {
    case respond(HTTPResponse)
    case receiveForm(HTTPFormReceiver)
    case later(HTTPLater)
}

/// An answer that comes later: the connection sleeps (libmicrohttpd's
/// suspend) until ``answer(_:)``, so a slow answer (a thumbnail kioskd
/// decodes on a thread) holds up no other request. Every `later` must be
/// answered; the server answers those left when it stops.
public final class HTTPLater {
    var connection: OpaquePointer?
    var suspended = false
    private(set) var response: HTTPResponse?
    weak var owner: HTTPServer?

    public init() {}

    /// Sends `response`, waking the connection (the first answer only).
    public func answer(_ response: HTTPResponse) {
        guard self.response == nil else { return }
        self.response = response
        wake()
    }

    func wake() {
        guard suspended, let connection else { return }
        suspended = false
        MHD_resume_connection(connection)
    }
}
