import Foundation
import MQTTClient
import LoopbackSupport
#if canImport(Glibc)
import Glibc
#endif

/// A real broker (Debian's mosquitto) on a free loopback port with the
/// test's own config, stopped when the test ends. `extra`: more lines of
/// its config (a password file, TLS), given the broker's folder.
public final class TestBroker {
    public let port: Int
    /// The address it listens on: loopback, or a test network's (a veth to a namespace).
    public let address: String
    /// Where its config and anything a test makes for it (certificates, passwords) live.
    public let folder: String
    private var process: Process?
    private let config: String

    /// `port`: a given one (a test that had something else there first); else a free one.
    public init(anonymous: Bool = true, address: String = "127.0.0.1", port: Int? = nil, extra: (String) throws -> String = { _ in "" }) throws {
        self.port = try port ?? LoopbackPort.free()
        self.address = address
        folder = NSTemporaryDirectory() + "kioskd-mqtt-\(getpid())-\(self.port)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        config = folder + "/mosquitto.conf"
        let lines = "listener \(self.port) \(address)\nallow_anonymous \(anonymous)\npersistence false\n" + (try extra(folder))
        try lines.write(toFile: config, atomically: true, encoding: .utf8)
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    public struct BrokerFailure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// Starts it (again, on the same port), listening within 30 s (at
    /// once, unless the machine is busy with other tests).
    public func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        process.arguments = ["-c", config]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(30)
        while !LoopbackPort.accepts(port, at: address) {
            guard Date() < deadline, process.isRunning else { throw BrokerFailure(description: "mosquitto did not listen on port \(port)") }
            usleep(5_000)
        }
    }

    /// Makes `path` (its password file, its key) readable by the broker,
    /// which reads them as the user `mosquitto` once started as root
    /// (mosquitto 2.0.21): given to that user, or readable by all where there is none.
    public static func lend(_ path: String) throws {
        do {
            try FileManager.default.setAttributes([.ownerAccountName: "mosquitto", .posixPermissions: 0o600], ofItemAtPath: path)
        } catch {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        }
    }

    /// Stops it at once, as a crash or a power cut would.
    public func stop() {
        guard let process else { return }
        // SIGKILL: a child of the test process may start with SIGTERM blocked (the mask is inherited), and would never go.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

}

/// Drives connections as kioskd's run loop does: poll each socket for
/// reading (and writing while it wants to), read and write when ready,
/// keepalives between. Until `done` says so, or `seconds` pass (by
/// default a bound a busy machine cannot miss: `done` ends the wait at once).
@discardableResult
public func pump(_ connections: [MQTTConnection], seconds: Double = 30, until done: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !done() {
        guard Date() < deadline else { return false }
        var watched = connections.compactMap { connection in
            connection.socket.map { pollfd(fd: $0, events: Int16(POLLIN) | (connection.wantsWrite ? Int16(POLLOUT) : 0), revents: 0) }
        }
        _ = poll(&watched, nfds_t(watched.count), 20)
        for connection in connections {
            guard let socket = connection.socket, let ready = watched.first(where: { $0.fd == socket })?.revents else { continue }
            if ready & Int16(POLLIN | POLLHUP | POLLERR) != 0 { try? connection.read() }
            if ready & Int16(POLLOUT) != 0 { try? connection.write() }
            try? connection.maintain()
        }
    }
    return true
}

/// Subscribes `connection` to `patterns` and pumps it until the broker has
/// them: a broker handles a client's packets in order, so once it has
/// acknowledged a message published after them (to a topic of its own,
/// which no pattern of the tests matches), the subscriptions are in place.
/// Returns the messages that arrived meanwhile (retained ones), in order;
/// nil if the acknowledgement did not come within `seconds`.
public func subscribeAndAwait(_ connection: MQTTConnection, to patterns: [String], seconds: Double = 30) throws -> [MQTTConnection.Event]? {
    for pattern in patterns { try connection.subscribe(pattern) }
    guard !patterns.isEmpty else { return [] }
    let probe = "kioskd-test/subscribed"
    let id = try connection.publish(probe, [])
    var arrived: [MQTTConnection.Event] = []
    var acknowledged = false
    pump([connection], seconds: seconds) {
        for event in connection.takeEvents() {
            switch event {
            case .acknowledged(id): acknowledged = true
            case .message(probe, _, _), .acknowledged: break
            default: arrived.append(event)
            }
        }
        return acknowledged
    }
    return acknowledged ? arrived : nil
}

/// The other side of a test: a client subscribed to some topics that
/// keeps every message it is sent, and publishes.
public final class TestSubscriber {
    public let connection: MQTTConnection
    public private(set) var messages: [(topic: String, payload: [UInt8], retained: Bool)] = []

    public init(_ id: String, to patterns: [String], on broker: TestBroker, username: String? = nil, password: String? = nil) throws {
        connection = try MQTTConnection(clientID: id, will: nil, username: username, password: password)
        try connection.connect(to: broker.address, port: broker.port, keepalive: 30)
        var connected = false
        pump([connection]) {
            connected = connection.takeEvents().contains(.connected(code: 0)) || connected
            return connected
        }
        guard connected else { throw TestBroker.BrokerFailure(description: "\(id) was not accepted") }
        guard let arrived = try subscribeAndAwait(connection, to: patterns) else {
            throw TestBroker.BrokerFailure(description: "\(id)'s subscriptions were not acknowledged")
        }
        for case .message(let topic, let payload, let retained) in arrived { messages.append((topic, payload, retained)) }
    }

    /// Pumps up to `seconds` until `done` holds of what arrived (by
    /// default 30 s, which a busy machine cannot miss: `done` ends it at once).
    @discardableResult
    public func wait(seconds: Double = 30, until done: ([(topic: String, payload: [UInt8], retained: Bool)]) -> Bool) -> Bool {
        pump([connection], seconds: seconds) {
            for case .message(let topic, let payload, let retained) in connection.takeEvents() { messages.append((topic, payload, retained)) }
            return done(messages)
        }
    }

    /// The payloads that arrived on `topic`, as text.
    public func texts(on topic: String) -> [String] {
        messages.filter { $0.topic == topic }.map { String(decoding: $0.payload, as: UTF8.self) }
    }

    public func publish(_ topic: String, _ text: String, retained: Bool = false) throws {
        try publish(topic, Array(text.utf8), retained: retained)
    }

    public func publish(_ topic: String, _ payload: [UInt8], retained: Bool = false) throws {
        try connection.publish(topic, payload, retained: retained)
        pump([connection]) { !connection.wantsWrite }
    }

    public func forget() { messages = [] }
}
