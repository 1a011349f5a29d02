import ControlClient
import HTTPServer
import KioskCore
import LinuxPlatform
import SystemCalls

/// The page's live updates: kioskd's `watch` events, passed on to every
/// open page as Server-Sent Events (`GET /api/events`). One `watch`
/// connection to kioskd serves them all; it is opened with the first page
/// and closed after the last, and made again every few seconds while kioskd
/// is away (each page hears `kiosk` events saying so). A comment every
/// ``heartbeat`` seconds finds pages that went away; a page that reads too
/// slowly is let go rather than held in memory.
final class EventRelay {
    static let heartbeat = 15.0
    static let retry = 5.0
    /// Bytes queued for one page before it is let go.
    static let slowPageLimit = 1 << 20

    private let socket: String
    private let loop: EventLoop
    private let log: (String) -> Void
    private var streams: [ObjectIdentifier: HTTPStream] = [:]
    private var watch: ControlConnection?
    private var registration: Registration?
    private var beat: Deadline?
    private var reconnect: Deadline?
    private var kioskdAway = false

    init(socket: String, loop: EventLoop, log: @escaping (String) -> Void) {
        self.socket = socket
        self.loop = loop
        self.log = log
        beat = loop.deadline(named: "event heartbeat") { [unowned self] now in
            broadcast(Array(": still here\n\n".utf8))
            beat?.arm(at: now + Self.heartbeat)
        }
        reconnect = loop.deadline(named: "watch again") { [unowned self] _ in connect() }
    }

    var pageCount: Int { streams.count }

    /// A new page's stream: it hears `retry` and then every event.
    func open() -> HTTPStream {
        let stream = HTTPStream()
        let key = ObjectIdentifier(stream)
        stream.onClose = { [unowned self] in
            streams[key] = nil
            if streams.isEmpty { disconnect() }
        }
        streams[key] = stream
        stream.send(Array("retry: 3000\n\n".utf8))
        if watch == nil { connect() } else if kioskdAway { stream.send(Self.event("kiosk", #"{"ok":false,"error":"kioskd is not answering"}"#)) }
        if beat?.time == nil { beat?.arm(at: MonotonicClock.now() + Self.heartbeat) }
        return stream
    }

    /// Ends every stream (kioskd-web stops).
    func closeAll() {
        for stream in Array(streams.values) { stream.close() }
        disconnect()
    }

    private func connect() {
        guard !streams.isEmpty, watch == nil else { return }
        do throws(ControlClientError) {
            let connection = try ControlConnection(path: socket, timeout: KioskLink.timeout)
            let reply = try connection.request(ControlRequest.watch.line)
            guard reply.starts(with: Array(#"{"ok":true"#.utf8)) else { throw .closed(path: socket) }
            watch = connection
            registration = try? loop.register(connection.descriptor, name: "kioskd watch") { [unowned self] _ in receive() }
            if kioskdAway {
                kioskdAway = false
                broadcast(Self.event("kiosk", #"{"ok":true}"#))
            }
            // Lines that came with the reply.
            receive()
        } catch {
            away("kioskd does not answer on \(socket): \(error)")
        }
    }

    private func receive() {
        guard let watch else { return }
        do throws(ControlClientError) {
            for line in try watch.takeLines() { broadcast(Self.event(nil, String(decoding: line, as: UTF8.self))) }
        } catch {
            disconnect()
            away("kioskd stopped answering: \(error)")
        }
    }

    private func away(_ why: String) {
        if !kioskdAway { log("live updates: \(why); trying again every \(Int(Self.retry)) s") }
        kioskdAway = true
        broadcast(Self.event("kiosk", JSONObject([("ok", .bool(false)), ("error", .string(why))]).lineText))
        if !streams.isEmpty { reconnect?.arm(at: MonotonicClock.now() + Self.retry) }
    }

    private func disconnect() {
        if let registration { loop.unregister(registration) }
        registration = nil
        watch = nil
        if streams.isEmpty {
            beat?.arm(at: nil)
            reconnect?.arm(at: nil)
        }
    }

    private func broadcast(_ bytes: [UInt8]) {
        for stream in Array(streams.values) {
            if stream.queuedBytes > Self.slowPageLimit {
                log("a page read its live updates too slowly: it is let go")
                stream.close()
            } else {
                stream.send(bytes)
            }
        }
    }

    /// One Server-Sent Event: its name (none: `message`) and one line of data.
    static func event(_ name: String?, _ data: String) -> [UInt8] {
        Array(((name.map { "event: \($0)\n" } ?? "") + "data: \(data)\n\n").utf8)
    }
}

extension JSONObject {
    /// The object's line without its newline, as text.
    var lineText: String { String(decoding: line.dropLast(), as: UTF8.self) }
}
