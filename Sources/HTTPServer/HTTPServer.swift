import CMicroHTTPD
import Glibc
import SystemCalls

/// An HTTP (or HTTPS) server on GNU libmicrohttpd, driven from its owner's
/// event loop on one thread: libmicrohttpd keeps its sockets in one epoll
/// descriptor (``descriptor``); when it is readable, or ``timeout`` has
/// passed, the owner calls ``run()``, and the handler answers each request
/// there. No thread is started.
public final class HTTPServer {
    /// Bytes a form field's value may have (a password, a command line).
    public static let fieldLimit = 16 << 10

    /// The epoll descriptor to wait on for reading.
    public private(set) var descriptor: Int32 = -1
    /// The port it listens on (the one chosen, for port 0).
    public let port: UInt16
    private var daemon: OpaquePointer?
    private let handler: (HTTPRequest) -> HTTPAnswer
    private let defaultHeaders: [(name: String, value: String)]
    private var streams: [ObjectIdentifier: HTTPStream] = [:]
    /// Answers not given yet, their connections asleep.
    private var laters: [ObjectIdentifier: HTTPLater] = [:]

    /// Serves on `address`:`port` (numeric, IPv4 or IPv6; port 0 picks
    /// one), with TLS when `tls` gives the certificate and key as PEM text;
    /// every answer carries `defaultHeaders` before its own.
    public init(
        address: String, port: UInt16, tls: (certificate: String, key: String)? = nil, connectionLimit: Int = 64,
        defaultHeaders: [(name: String, value: String)] = [], handler: @escaping (HTTPRequest) -> HTTPAnswer
    ) throws(HTTPServerError) {
        self.handler = handler
        self.defaultHeaders = defaultHeaders
        let listening = try Self.listen(address: address, port: port)
        self.port = listening.port
        let me = Unmanaged.passUnretained(self).toOpaque()
        let started = (tls?.certificate ?? "").withCString { certificate in
            (tls?.key ?? "").withCString { key in
                kd_mhd_start(
                    listening.fd, tls == nil ? 0 : 1, certificate, key, accessHandler, me, requestCompleted, me,
                    UInt32(connectionLimit), 60, 64 << 10)
            }
        }
        guard let started else {
            Glibc.close(listening.fd)
            throw HTTPServerError("libmicrohttpd cannot serve on \(address):\(port)" + (tls == nil ? "" : " (is the certificate and key PEM, and do they match?)"))
        }
        daemon = started
        let epoll = kd_mhd_epoll_fd(started)
        guard epoll >= 0 else {
            daemon = nil
            MHD_stop_daemon(started)
            throw HTTPServerError("libmicrohttpd was built without epoll")
        }
        descriptor = epoll
    }

    deinit { stop() }

    /// Handles what is ready: new connections, request heads and bodies, answers.
    public func run() {
        guard let daemon else { return }
        _ = MHD_run(daemon)
    }

    /// Seconds until ``run()`` is due even with nothing readable; nil: none.
    public var timeout: Double? {
        guard let daemon else { return nil }
        let milliseconds = kd_mhd_timeout_ms(daemon)
        return milliseconds < 0 ? nil : Double(milliseconds) / 1000
    }

    /// Ends every stream and closes the sockets.
    public func stop() {
        guard let daemon else { return }
        for stream in streams.values { stream.wakeToEnd() }
        for later in laters.values { later.answer(.text(503, "kioskd-web is stopping")) }
        _ = MHD_run(daemon)
        MHD_stop_daemon(daemon)
        self.daemon = nil
    }

    // MARK: The callbacks

    /// One request's state between libmicrohttpd's calls.
    final class Exchange {
        /// A form's receiver; nil for an answer that comes later.
        let receiver: HTTPFormReceiver?
        var later: HTTPLater?
        var postProcessor: OpaquePointer?
        var failed = false
        var finished = false
        // The part being read: a field's bytes, or a file's.
        var partKey: String?
        var partFileName: String?
        var partIsFile = false
        var partBytes = 0
        var fieldValue: [UInt8] = []

        init(receiver: HTTPFormReceiver?) { self.receiver = receiver }

        /// A field whose bytes are all here goes to the receiver.
        func endPart() -> Bool {
            defer { partKey = nil; fieldValue = [] }
            guard let partKey, !partIsFile else { return true }
            return receiver?.field(partKey, fieldValue) ?? false
        }
    }

    fileprivate func begin(_ connection: OpaquePointer, method: String, url: String, exchange: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        let path = String(url.prefix { $0 != "?" })
        switch handler(HTTPRequest(connection: connection, method: method, path: path)) {
        case .respond(let response):
            return queue(response, on: connection)
        case .receiveForm(let receiver):
            let state = Exchange(receiver: receiver)
            let context = Unmanaged.passRetained(state)
            state.postProcessor = MHD_create_post_processor(connection, 64 << 10, formIterator, context.toOpaque())
            guard state.postProcessor != nil else {
                context.release()
                receiver.abandon()
                return queue(.text(415, "expected a form (multipart/form-data or application/x-www-form-urlencoded)"), on: connection)
            }
            exchange.pointee = context.toOpaque()
            return kd_mhd_yes
        case .later(let later):
            let state = Exchange(receiver: nil)
            state.later = later
            later.connection = connection
            later.owner = self
            exchange.pointee = Unmanaged.passRetained(state).toOpaque()
            return awaitAnswer(state, on: connection)
        }
    }

    /// The later answer if it came (then sent), else the connection sleeps
    /// until it comes: libmicrohttpd calls again once it is woken.
    private func awaitAnswer(_ state: Exchange, on connection: OpaquePointer) -> MHD_Result {
        guard let later = state.later else { return kd_mhd_no }
        guard let response = later.response else {
            laters[ObjectIdentifier(later)] = later
            later.suspended = true
            MHD_suspend_connection(connection)
            return kd_mhd_yes
        }
        guard !state.finished else { return kd_mhd_yes }
        state.finished = true
        laters[ObjectIdentifier(later)] = nil
        return queue(response, on: connection)
    }

    fileprivate func body(_ state: Exchange, _ connection: OpaquePointer, data: UnsafePointer<CChar>?, size: UnsafeMutablePointer<Int>) -> MHD_Result {
        if state.later != nil {
            // A body sent with a request answered later is not read.
            size.pointee = 0
            return awaitAnswer(state, on: connection)
        }
        if size.pointee > 0 {
            if !state.failed, MHD_post_process(state.postProcessor, data, size.pointee) != kd_mhd_yes { state.failed = true }
            size.pointee = 0
            return kd_mhd_yes
        }
        guard !state.finished else { return kd_mhd_yes }
        // Destroyed now, not at the request's end: it hands over what it
        // held back, and says whether the body ended where a form ends (a
        // multipart body cut short never reached its closing boundary).
        if let postProcessor = state.postProcessor {
            state.postProcessor = nil
            if MHD_destroy_post_processor(postProcessor) != kd_mhd_yes { state.failed = true }
        }
        if !state.failed, !state.endPart() { state.failed = true }
        state.finished = true
        guard let receiver = state.receiver else { return kd_mhd_no }
        return queue(receiver.finish(complete: !state.failed), on: connection)
    }

    fileprivate func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let made: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            made = bytes.withUnsafeBytes { MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), kd_mhd_must_copy) }
        case .stream(let stream):
            stream.connection = connection
            stream.owner = self
            streams[ObjectIdentifier(stream)] = stream
            kd_mhd_never_time_out(connection)
            made = MHD_create_response_from_callback(kd_mhd_size_unknown, 4096, streamReader, Unmanaged.passRetained(stream).toOpaque(), streamFreed)
            // The connection ends with the stream: its slot is not kept alive untimed.
            if let made { _ = MHD_add_response_header(made, "Connection", "close") }
        }
        guard let made else { return kd_mhd_no }
        defer { MHD_destroy_response(made) }
        // A default the response sets itself (a thumbnail's Cache-Control) is left to it.
        let own = Set(response.headers.map { $0.name.lowercased() })
        for header in defaultHeaders where !own.contains(header.name.lowercased()) { _ = MHD_add_response_header(made, header.name, header.value) }
        for header in response.headers { _ = MHD_add_response_header(made, header.name, header.value) }
        return MHD_queue_response(connection, UInt32(response.status), made)
    }

    fileprivate func forget(_ stream: HTTPStream) {
        streams[ObjectIdentifier(stream)] = nil
    }

    // MARK: The listening socket

    private static func listen(address: String, port: UInt16) throws(HTTPServerError) -> (fd: Int32, port: UInt16) {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(address, String(port), &hints, &found) == 0, let first = found else {
            throw HTTPServerError("\(address) is not a numeric IPv4 or IPv6 address")
        }
        defer { freeaddrinfo(found) }
        let fd = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw HTTPServerError("cannot make a socket: \(SystemCallError.last("socket"))") }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if first.pointee.ai_family == AF_INET6 {
            // [::] takes IPv4 clients too, as mapped addresses.
            var off: Int32 = 0
            _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size))
        }
        guard bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0, Glibc.listen(fd, 64) == 0 else {
            let error = SystemCallError.last("bind")
            Glibc.close(fd)
            throw HTTPServerError("cannot listen on \(address):\(port): \(error.reason)")
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let chosen: UInt16 = withUnsafeMutablePointer(to: &bound) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        return (fd, chosen)
    }
}

public struct HTTPServerError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

private func server(_ context: UnsafeMutableRawPointer?) -> HTTPServer {
    Unmanaged<HTTPServer>.fromOpaque(context!).takeUnretainedValue()
}

private let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, data, size, exchange in
    guard let connection, let exchange, let size else { return kd_mhd_no }
    if let state = exchange.pointee {
        return server(context).body(Unmanaged<HTTPServer.Exchange>.fromOpaque(state).takeUnretainedValue(), connection, data: data, size: size)
    }
    return server(context).begin(connection, method: method.map { String(cString: $0) } ?? "", url: url.map { String(cString: $0) } ?? "/", exchange: exchange)
}

private let requestCompleted: MHD_RequestCompletedCallback = { _, _, exchange, _ in
    guard let exchange, let state = exchange.pointee else { return }
    exchange.pointee = nil
    let taken = Unmanaged<HTTPServer.Exchange>.fromOpaque(state).takeRetainedValue()
    if let postProcessor = taken.postProcessor { _ = MHD_destroy_post_processor(postProcessor) }
    if !taken.finished { taken.receiver?.abandon() }
}

private let formIterator: MHD_PostDataIterator = { context, _, key, fileName, _, _, data, offset, size in
    let state = Unmanaged<HTTPServer.Exchange>.fromOpaque(context!).takeUnretainedValue()
    let name = key.map { String(cString: $0) } ?? ""
    let isFile = fileName != nil
    let sentName = fileName.map { String(cString: $0) }
    // A new part: its first bytes (offset 0), or another field's or file's.
    if offset == 0,
       state.partKey == nil || state.partKey != name || state.partIsFile != isFile || state.partFileName != sentName || state.partBytes > 0 {
        guard state.endPart() else { return kd_mhd_no }
        state.partKey = name
        state.partFileName = sentName
        state.partIsFile = isFile
        state.partBytes = 0
        if let sentName, state.receiver?.fileBegins(field: name, fileName: sentName) != true { return kd_mhd_no }
    }
    guard size > 0, let data else { return kd_mhd_yes }
    state.partBytes += size
    if isFile {
        return state.receiver?.fileData(UnsafeRawBufferPointer(start: data, count: size)) == true ? kd_mhd_yes : kd_mhd_no
    }
    guard state.fieldValue.count + size <= HTTPServer.fieldLimit else { return kd_mhd_no }
    state.fieldValue += UnsafeRawBufferPointer(start: data, count: size)
    return kd_mhd_yes
}

private let streamReader: MHD_ContentReaderCallback = { context, _, buffer, max in
    guard let buffer else { return Int(kd_mhd_end_with_error) }
    return Unmanaged<HTTPStream>.fromOpaque(context!).takeUnretainedValue().read(into: buffer, max: max)
}

private let streamFreed: MHD_ContentReaderFreeCallback = { context in
    let stream = Unmanaged<HTTPStream>.fromOpaque(context!).takeRetainedValue()
    stream.owner?.forget(stream)
    stream.ended()
}
