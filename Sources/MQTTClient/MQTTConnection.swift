import CMosquitto
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// One connection to an MQTT broker through libmosquitto, driven by its
/// owner's event loop and never by libmosquitto's own thread: the owner
/// watches ``socket`` for reading (and for writing while ``wantsWrite``),
/// calls ``read()`` and ``write()`` when it is ready and ``maintain()``
/// from a deadline (keepalives, within ``keepalive`` seconds). What the
/// broker sends is kept as ``Event``s until ``takeEvents()``.
///
/// libmosquitto rather than paho.mqtt.c: paho's asynchronous client runs
/// threads of its own and keeps its socket to itself, where libmosquitto
/// hands out the socket and each step of its loop, so the connection lives
/// on kioskd's run loop like every other source.
///
/// ``open(to:port:keepalive:within:)`` resolves the host, which can take
/// seconds, then opens the connection without blocking on TCP (a broker
/// that swallows packets would hold a blocking connect for two minutes)
/// and writes the CONNECT, giving up after a deadline: it is made off the
/// run loop, and the connection handed to the loop once the CONNECT is on
/// its way. Every other call returns at once (``connect(to:port:keepalive:)``,
/// which blocks for as long as TCP takes, is the tests'). One thread at a
/// time uses a connection.
public final class MQTTConnection {
    /// What the broker said, in order.
    public enum Event: Equatable, Sendable {
        /// Its CONNACK: 0 is accepted; 4 bad user name or password, 5 not authorised (MQTT 3.1.1, 3.2.2.3).
        case connected(code: Int)
        case message(topic: String, payload: [UInt8], retained: Bool)
        /// The broker has a message this side published (its PUBACK): the id ``publish(_:_:retained:)`` gave.
        case acknowledged(messageID: Int32)
        /// The connection ended: 0 when this side asked (``disconnect()``).
        case disconnected(code: Int)
    }

    /// The message the broker publishes for this client if it goes without
    /// saying goodbye (a crash, a power cut, a cut cable): sent with the
    /// CONNECT, so it is set before ``connect(to:port:keepalive:)``.
    public struct Will: Sendable {
        public let topic: String
        public let payload: [UInt8]
        public let retained: Bool

        public init(topic: String, payload: [UInt8], retained: Bool) {
            self.topic = topic
            self.payload = payload
            self.retained = retained
        }
    }

    /// TLS for an `mqtts://` broker: its certificate must chain to
    /// `caFile`'s certificates (or, without one, to those in `caPath`)
    /// and name the host connected to; OpenSSL refuses the connection
    /// otherwise. `certFile` and `keyFile`: the kiosk's own, if the broker asks.
    public struct TLS: Sendable, Equatable {
        public var caFile: String?
        public var caPath: String?
        public var certFile: String?
        public var keyFile: String?

        public init(caFile: String? = nil, caPath: String? = nil, certFile: String? = nil, keyFile: String? = nil) {
            self.caFile = caFile
            self.caPath = caPath
            self.certFile = certFile
            self.keyFile = keyFile
        }
    }

    /// A libmosquitto call that failed: its name and libmosquitto's words.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let call: String
        public let code: Int32
        /// What libmosquitto logged as an error meanwhile (OpenSSL's reason a certificate was refused).
        public var detail: String? = nil

        /// libmosquitto itself could not be loaded: then no call was made.
        public var missingLibrary: MissingLibrary? = nil

        public init(call: String, code: Int32, detail: String? = nil) {
            self.call = call
            self.code = code
            self.detail = detail
        }

        init(_ missing: MissingLibrary) {
            self.init(call: "dlopen", code: MOSQ_ERR_NOT_SUPPORTED.rawValue)
            missingLibrary = missing
        }

        public var description: String {
            if let missingLibrary { return "MQTT needs libmosquitto: \(missingLibrary)" }
            return "\(call): \(String(cString: mosquitto_strerror(code)))" + (detail.map { " (\($0))" } ?? "")
        }
    }

    /// libmosquitto, mapped on first use (``OnDemandLibrary``: with it
    /// OpenSSL, 1.8 MB a kiosk without a broker does without), and its
    /// global state, made once.
    private static let library = Result { () throws(MissingLibrary) in
        try OnDemandLibrary.mosquitto.open()
        _ = mosquitto_lib_init()
    }

    private let handle: OpaquePointer
    private var events: [Event] = []
    /// Seconds between keepalives, as given to the broker at connect.
    public private(set) var keepalive = 60

    /// A client named `clientID` (unique on the broker: a second client
    /// with the same id takes the first one's place), MQTT 3.1.1, a clean
    /// session each time.
    public init(clientID: String, will: Will?, username: String? = nil, password: String? = nil, tls: TLS? = nil) throws(Failure) {
        do throws(MissingLibrary) { try Self.library.get() } catch { throw Failure(error) }
        guard let handle = mosquitto_new(clientID, true, nil) else { throw Failure(call: "mosquitto_new", code: MOSQ_ERR_NOMEM.rawValue) }
        self.handle = handle
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        try check("mosquitto_int_option", mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311))
        if let will {
            try check("mosquitto_will_set", will.payload.withUnsafeBytes { payload in
                mosquitto_will_set(handle, will.topic, Int32(payload.count), payload.baseAddress, 1, will.retained)
            })
        }
        if let username { try check("mosquitto_username_pw_set", mosquitto_username_pw_set(handle, username, password)) }
        if let tls {
            try check("mosquitto_tls_set", mosquitto_tls_set(handle, tls.caFile, tls.caPath, tls.certFile, tls.keyFile, nil))
            // Both are libmosquitto's defaults, said here so that no later change loosens them.
            try check("mosquitto_tls_opts_set", mosquitto_tls_opts_set(handle, 1, nil, nil))
            try check("mosquitto_tls_insecure_set", mosquitto_tls_insecure_set(handle, false))
        }
        mosquitto_log_callback_set(handle) { _, connection, level, text in
            guard level & MOSQ_LOG_ERR != 0, let text else { return }
            let owner = MQTTConnection.owner(connection)
            if owner.loggedErrors.count < 4 { owner.loggedErrors.append(String(cString: text)) }
        }
        mosquitto_connect_callback_set(handle) { _, connection, code in
            MQTTConnection.owner(connection).events.append(.connected(code: Int(code)))
        }
        mosquitto_disconnect_callback_set(handle) { _, connection, code in
            MQTTConnection.owner(connection).events.append(.disconnected(code: Int(code)))
        }
        mosquitto_publish_callback_set(handle) { _, connection, messageID in
            MQTTConnection.owner(connection).events.append(.acknowledged(messageID: messageID))
        }
        mosquitto_message_callback_set(handle) { _, connection, message in
            guard let message = message?.pointee else { return }
            let payload = message.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(message.payloadlen))) } ?? []
            MQTTConnection.owner(connection).events.append(
                .message(topic: message.topic.map { String(cString: $0) } ?? "", payload: payload, retained: message.retain))
        }
    }

    deinit { mosquitto_destroy(handle) }

    private static func owner(_ userData: UnsafeMutableRawPointer?) -> MQTTConnection {
        Unmanaged<MQTTConnection>.fromOpaque(userData!).takeUnretainedValue()
    }

    private func check(_ call: String, _ code: Int32) throws(Failure) {
        guard code == MOSQ_ERR_SUCCESS.rawValue else {
            defer { loggedErrors = [] }
            throw Failure(call: call, code: code, detail: loggedErrors.isEmpty ? nil : loggedErrors.joined(separator: "; "))
        }
        loggedErrors = []
    }

    /// libmosquitto's error log lines since the last call (OpenSSL's among them).
    private var loggedErrors: [String] = []

    /// Resolves `host` and opens the connection, sending CONNECT (with the
    /// will). Blocks for as long as DNS and TCP take: call it off the run loop.
    public func connect(to host: String, port: Int, keepalive: Int) throws(Failure) {
        self.keepalive = keepalive
        try check("mosquitto_connect", mosquitto_connect(handle, host, Int32(port), Int32(keepalive)))
    }

    /// Resolves `host`, starts the TCP connection (`mosquitto_connect_async`:
    /// it does not wait for the broker to answer), and drives it, and TLS's
    /// handshake, until the CONNECT is written: at most `seconds` after the
    /// call began. Blocks for DNS and that: call it off the run loop. A
    /// broker that never answers (a cut cable, packets dropped) fails with
    /// "did not answer within N s", never a two-minute TCP time-out.
    public func open(to host: String, port: Int, keepalive: Int, within seconds: Double) throws(Failure) {
        self.keepalive = keepalive
        let deadline = Self.now() + seconds
        try check("mosquitto_connect_async", mosquitto_connect_async(handle, host, Int32(port), Int32(keepalive)))
        while wantsWrite {
            guard let socket else { throw Failure(call: "mosquitto_connect_async", code: MOSQ_ERR_NO_CONN.rawValue) }
            let left = deadline - Self.now()
            guard left > 0 else {
                throw Failure(call: "connect", code: MOSQ_ERR_NO_CONN.rawValue, detail: "the broker did not answer within \(Int(seconds.rounded())) s")
            }
            var ready = pollfd(fd: socket, events: Int16(POLLIN | POLLOUT), revents: 0)
            guard poll(&ready, 1, Int32(min(1000, (left * 1000).rounded(.up)))) > 0 else { continue }
            // Reading drives TLS's handshake (libmosquitto steps it from its read); writing sends the CONNECT after it.
            try read()
            try write()
            // TLS's handshake waiting for the broker keeps the socket writable with nothing to write: a nap, not a spin.
            if wantsWrite && ready.revents & Int16(POLLIN) == 0 { usleep(2_000) }
        }
    }

    private static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// The connection's socket, for the run loop; nil while there is none.
    public var socket: Int32? {
        let socket = mosquitto_socket(handle)
        return socket >= 0 ? socket : nil
    }

    /// Bytes the kernel holds unread on the socket (`FIONREAD`): more
    /// packets to ``read()`` now.
    public var bytesWaiting: Int {
        guard let socket else { return 0 }
        var count: Int32 = 0
        return ioctl(socket, UInt(FIONREAD), &count) == 0 ? Int(count) : 0
    }

    /// True while packets wait to be written: watch the socket for writing.
    public var wantsWrite: Bool { mosquitto_want_write(handle) }

    /// Reads what the socket has (when it is readable). A failure means the connection is gone.
    public func read() throws(Failure) { try check("mosquitto_loop_read", mosquitto_loop_read(handle, 1)) }

    /// Writes what waits (when the socket is writable).
    public func write() throws(Failure) { try check("mosquitto_loop_write", mosquitto_loop_write(handle, 1)) }

    /// Keepalives and retries of unacknowledged messages: call at least once a second.
    public func maintain() throws(Failure) { try check("mosquitto_loop_misc", mosquitto_loop_misc(handle)) }

    /// Queues a message (quality of service 1: at least once); ``write()``
    /// sends it. Returns its id, which ``Event/acknowledged(messageID:)`` names.
    @discardableResult
    public func publish(_ topic: String, _ payload: [UInt8], retained: Bool = false) throws(Failure) -> Int32 {
        var messageID: Int32 = 0
        try check("mosquitto_publish", payload.withUnsafeBytes { bytes in
            mosquitto_publish(handle, &messageID, topic, Int32(bytes.count), bytes.baseAddress, 1, retained)
        })
        return messageID
    }

    /// Asks for the messages on `pattern` (`+` and `#` wildcards), quality of service 1.
    public func subscribe(_ pattern: String) throws(Failure) {
        try check("mosquitto_subscribe", mosquitto_subscribe(handle, nil, pattern, 1))
    }

    /// Says goodbye: the broker drops the will. libmosquitto closes the
    /// socket as soon as the DISCONNECT is written: anything the broker
    /// sends after that makes the kernel reset the connection, which can
    /// lose the goodbye, so wait first for what was published to be acknowledged.
    public func disconnect() { mosquitto_disconnect(handle) }

    /// What the broker said since the last call, in order.
    public func takeEvents() -> [Event] {
        defer { events = [] }
        return events
    }
}
