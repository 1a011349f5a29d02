import CCurl
import Synchronization
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// HTTP and HTTPS through libcurl's multi interface, for a photo library on
/// a server: one transfer at a time, on the thread of the library that owns
/// the client (never the render loop), which another thread can wake and
/// stop at once (``cancel()``, the one call another thread may make).
/// libcurl is loaded on first use.
///
/// Every transfer is bounded, so a hostile or broken server costs a kiosk
/// nothing but a line in its log:
/// - only `http` and `https`, and a redirect only to the request's own
///   scheme (an `https` library is never sent to `http`, nor to `file:`);
///   at most 5 redirects;
/// - at most ``HTTPRequest/maximumBytes`` of body (what the server
///   announces is checked first, what it sends is counted as it comes);
/// - a server slower than ``HTTPRequest/slowestBytesPerSecond`` over
///   ``HTTPRequest/slowFor`` seconds, or one that answers nothing in
///   ``HTTPRequest/connectTimeout``, is given up;
/// - TLS is verified (the system's certificate authorities, or the
///   request's `caFile` for a home CA); a certificate that is expired or not
///   trusted fails with curl's words.
public final class HTTPClient: @unchecked Sendable {
    private let multi: UnsafeMutableRawPointer
    private let stopping = Atomic<Bool>(false)

    /// Loads libcurl (once per process) and makes a client.
    public init() throws(HTTPError) {
        do { try OnDemandLibrary.curl.open() } catch { throw .missingLibrary(error.description) }
        _ = Self.globalInit
        guard let multi = curl_multi_init() else { throw .failed("curl_multi_init failed") }
        self.multi = multi
    }

    deinit { curl_multi_cleanup(multi) }

    /// libcurl's global state, made once, before any thread uses it.
    private static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Whether libcurl resolves names on a thread of its own (its threaded
    /// resolver), so a transfer can be stopped while a name is looked up.
    public static var resolvesAsynchronously: Bool {
        guard (try? OnDemandLibrary.curl.open()) != nil, let info = kioskd_curl_version() else { return false }
        return info.pointee.features & CURL_VERSION_ASYNCHDNS != 0
    }

    /// The path of `href` (a path, or a whole URL: only its path counts),
    /// its percent escapes undone once by libcurl (its URL parser, told to
    /// keep `.` and `..` as they are, for ``KioskCore/RemotePath`` to judge);
    /// nil when it is not a URL, or what it decodes to is not UTF-8.
    public static func decodedPath(of href: String) -> String? {
        guard (try? OnDemandLibrary.curl.open()) != nil else { return nil }
        var encoded = String(href.prefix { $0 != "?" && $0 != "#" })
        if href.contains("://") {
            guard let url = curl_url() else { return nil }
            defer { curl_url_cleanup(url) }
            guard curl_url_set(url, CURLUPART_URL, href, UInt32(CURLU_PATH_AS_IS)) == CURLUE_OK else { return nil }
            var part: UnsafeMutablePointer<CChar>?
            guard curl_url_get(url, CURLUPART_PATH, &part, 0) == CURLUE_OK, let part else { return nil }
            encoded = String(cString: part)
            curl_free(part)
        }
        var length: Int32 = 0
        guard let decoded = curl_easy_unescape(nil, encoded, Int32(clamping: encoded.utf8.count), &length) else { return nil }
        defer { curl_free(decoded) }
        let bytes = UnsafeRawBufferPointer(start: decoded, count: Int(length))
        return String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self)
    }

    /// `decoded` (a path, its escapes undone) escaped again for a URL, one
    /// part at a time by libcurl (everything but letters, digits and
    /// `-._~`), its slashes kept: the one form kioskd asks a server for a
    /// file or folder it listed, whatever form the server wrote it in.
    public static func escapedPath(_ decoded: String) -> String? {
        guard (try? OnDemandLibrary.curl.open()) != nil else { return nil }
        var parts: [String] = []
        for part in decoded.split(separator: "/", omittingEmptySubsequences: false) {
            guard let escaped = curl_easy_escape(nil, String(part), Int32(clamping: part.utf8.count)) else { return nil }
            parts.append(String(cString: escaped))
            curl_free(escaped)
        }
        return parts.joined(separator: "/")
    }

    /// Stops the transfer under way (from any thread), and every one after:
    /// each ends with ``HTTPError/cancelled``.
    public func cancel() {
        stopping.store(true, ordering: .releasing)
        curl_multi_wakeup(multi)
    }

    /// Performs `request`, waiting for it on this thread; its body goes to
    /// `sink` (kept in the response when nil).
    public func perform(_ request: HTTPRequest, into sink: HTTPBodySink? = nil) throws(HTTPError) -> HTTPResponse {
        guard !stopping.load(ordering: .acquiring) else { throw .cancelled }
        guard let easy = curl_easy_init() else { throw .failed("curl_easy_init failed") }
        defer { curl_easy_cleanup(easy) }
        let transfer = Transfer(maximumBytes: request.maximumBytes, sink: sink)
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        for header in request.headers { headers = curl_slist_append(headers, header) }

        try check(kioskd_curl_set_string(easy, CURLOPT_URL, request.url))
        guard let scheme = request.scheme else { throw .refused("\(request.url): only http:// and https:// addresses are read") }
        try check(kioskd_curl_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        try check(kioskd_curl_set_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, scheme))
        try check(kioskd_curl_set_long(easy, CURLOPT_FOLLOWLOCATION, 1))
        try check(kioskd_curl_set_long(easy, CURLOPT_MAXREDIRS, 5))
        try check(kioskd_curl_set_long(easy, CURLOPT_NOSIGNAL, 1))
        try check(kioskd_curl_set_long(easy, CURLOPT_CONNECTTIMEOUT, Int(request.connectTimeout)))
        try check(kioskd_curl_set_long(easy, CURLOPT_LOW_SPEED_LIMIT, request.slowestBytesPerSecond))
        try check(kioskd_curl_set_long(easy, CURLOPT_LOW_SPEED_TIME, Int(request.slowFor)))
        try check(kioskd_curl_set_size(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maximumBytes)))
        try check(kioskd_curl_set_string(easy, CURLOPT_CUSTOMREQUEST, request.method))
        if request.method == "HEAD" { try check(kioskd_curl_set_long(easy, CURLOPT_NOBODY, 1)) }
        if let headers { try check(kioskd_curl_set_list(easy, CURLOPT_HTTPHEADER, headers)) }
        if let body = request.body {
            try check(kioskd_curl_set_size(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
            // Copied by curl now, as bytes (whatever they are), so the array need not outlive the call.
            try check(body.withUnsafeBytes { bytes in
                bytes.baseAddress.map { kioskd_curl_set_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0)) }
                    ?? kioskd_curl_set_string(easy, CURLOPT_COPYPOSTFIELDS, "")
            })
        }
        if let credentials = request.credentials {
            try check(kioskd_curl_set_string(easy, CURLOPT_USERNAME, credentials.username))
            try check(kioskd_curl_set_string(easy, CURLOPT_PASSWORD, credentials.password))
            try check(kioskd_curl_set_long(easy, CURLOPT_HTTPAUTH, kioskd_curl_auth_basic_or_digest))
        }
        if let caFile = request.caFile { try check(kioskd_curl_set_string(easy, CURLOPT_CAINFO, caFile)) }
        try check(kioskd_curl_set_write(easy) { data, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.take(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
        })
        try check(kioskd_curl_set_pointer(easy, CURLOPT_WRITEDATA, context))
        // curl's own words for a failure ("SSL certificate problem: certificate has expired"), clearer than its code's.
        let detail = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        defer { detail.deallocate() }
        detail[0] = 0
        try check(kioskd_curl_set_pointer(easy, CURLOPT_ERRORBUFFER, detail))

        let code = run(easy, transfer: transfer)
        if transfer.cancelled || stopping.load(ordering: .acquiring) { throw .cancelled }
        if transfer.overflowed || code == CURLE_FILESIZE_EXCEEDED { throw .tooLarge(request.maximumBytes) }
        if let failure = transfer.sinkFailure { throw .sink(failure) }
        guard code == CURLE_OK else { throw Self.error(for: code, detail: String(cString: detail)) }
        var status = 0
        _ = kioskd_curl_get_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var type: UnsafeMutablePointer<CChar>?
        _ = kioskd_curl_get_string(easy, CURLINFO_CONTENT_TYPE, &type)
        return HTTPResponse(status: status, body: transfer.body, contentType: type.map { String(cString: $0) })
    }

    /// Drives one transfer on the multi handle until it ends (or is stopped); its result.
    private func run(_ easy: UnsafeMutableRawPointer, transfer: Transfer) -> CURLcode {
        guard curl_multi_add_handle(multi, easy) == CURLM_OK else { return CURLE_FAILED_INIT }
        defer { curl_multi_remove_handle(multi, easy) }
        var running: Int32 = 1
        while running > 0 {
            guard curl_multi_perform(multi, &running) == CURLM_OK else { return CURLE_FAILED_INIT }
            if running == 0 { break }
            if stopping.load(ordering: .acquiring) {
                transfer.cancelled = true
                return CURLE_ABORTED_BY_CALLBACK
            }
            _ = curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            if message.pointee.msg == CURLMSG_DONE, message.pointee.easy_handle == easy { return message.pointee.data.result }
        }
        return CURLE_FAILED_INIT
    }

    private func check(_ code: CURLcode) throws(HTTPError) {
        guard code == CURLE_OK else { throw .failed("setting up the transfer: " + String(cString: curl_easy_strerror(code))) }
    }

    /// curl's words for a failure, sorted by what an operator does about it.
    /// A certificate's is the transfer's own `detail` ("SSL certificate
    /// problem: certificate has expired"); the others are the code's, the
    /// same each time (the detail of a refused connection counts the
    /// milliseconds, and a library logs a new reason).
    static func error(for code: CURLcode, detail: String = "") -> HTTPError {
        let words = String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CONNECT_ERROR:
            return .certificate(detail.isEmpty ? words : detail)
        case CURLE_OPERATION_TIMEDOUT: return .tooSlow(words)
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_TOO_MANY_REDIRECTS: return .refused(words)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING,
             CURLE_PARTIAL_FILE:
            return .unreachable(words)
        default: return .failed(words)
        }
    }
}

/// One transfer's body as it arrives: counted against its bound, kept or handed to a sink.
private final class Transfer {
    let maximumBytes: Int
    let sink: HTTPBodySink?
    var body: [UInt8] = []
    var received = 0
    var overflowed = false
    var cancelled = false
    var sinkFailure: String?

    init(maximumBytes: Int, sink: HTTPBodySink?) {
        self.maximumBytes = maximumBytes
        self.sink = sink
    }

    /// False stops the transfer: past the bound, or the sink failed.
    func take(_ bytes: UnsafeRawBufferPointer) -> Bool {
        received += bytes.count
        guard received <= maximumBytes else {
            overflowed = true
            return false
        }
        if let sink {
            if let failure = sink.write(bytes) {
                sinkFailure = failure
                return false
            }
        } else {
            body.append(contentsOf: bytes)
        }
        return true
    }
}

/// Where a body goes as it arrives, when it is not kept (a photo written to the cache's temporary file).
public protocol HTTPBodySink: AnyObject {
    /// Writes `bytes`; nil when written, else why not (a full disk).
    func write(_ bytes: UnsafeRawBufferPointer) -> String?
}

/// One HTTP request and its bounds.
public struct HTTPRequest: Sendable {
    public var url: String
    public var method = "GET"
    public var headers: [String] = []
    public var body: [UInt8]?
    public var credentials: (username: String, password: String)?
    /// Certificate authorities to trust instead of the system's (a home CA).
    public var caFile: String?
    public var maximumBytes = 64 << 20
    /// Given up after `slowFor` seconds below this rate.
    public var slowestBytesPerSecond = 1024
    public var slowFor = 30.0
    public var connectTimeout = 10.0

    public init(url: String, method: String = "GET") {
        self.url = url
        self.method = method
    }

    /// `http` or `https`; nil for any other scheme.
    var scheme: String? {
        let lower = url.lowercased()
        return lower.hasPrefix("https://") ? "https" : lower.hasPrefix("http://") ? "http" : nil
    }
}

public struct HTTPResponse: Sendable {
    public var status: Int
    public var body: [UInt8]
    public var contentType: String?
}

/// Why a request failed, sorted by what the operator does about it.
public enum HTTPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// libcurl is not installed (its package named).
    case missingLibrary(String)
    /// The server could not be reached, or the connection broke: it is offline.
    case unreachable(String)
    /// Its certificate is not trusted (expired, another name, an unknown CA).
    case certificate(String)
    /// Slower than the slowest rate allowed, for too long.
    case tooSlow(String)
    /// More than the bound; the bound.
    case tooLarge(Int)
    /// A scheme other than http or https, a redirect elsewhere, too many redirects.
    case refused(String)
    /// The body could not be written where it was going.
    case sink(String)
    /// ``HTTPClient/cancel()``.
    case cancelled
    case failed(String)

    public var description: String {
        switch self {
        case .missingLibrary(let words): words
        case .unreachable(let words): "unreachable: \(words)"
        case .certificate(let words): "its certificate is refused: \(words)"
        case .tooSlow(let words): "too slow: \(words)"
        case .tooLarge(let bound): "the answer is larger than \(bound) bytes: refused"
        case .refused(let words): "refused: \(words)"
        case .sink(let words): words
        case .cancelled: "stopped"
        case .failed(let words): words
        }
    }
}
