import Foundation
import KioskCore
import MQTTClient
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A real broker (Debian's mosquitto) on a free loopback port with the
/// test's own config, stopped when the test ends.
final class TestBroker {
    let port: Int
    private let process = Process()
    private let folder: String

    init() throws {
        port = try Self.freePort()
        folder = NSTemporaryDirectory() + "kioskd-mqtt-\(getpid())-\(port)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let config = folder + "/mosquitto.conf"
        try "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\n".write(toFile: config, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        process.arguments = ["-c", config]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Listening within 5 s, or the test says so.
        let deadline = Date().addingTimeInterval(5)
        while !Self.accepts(port) {
            guard Date() < deadline, process.isRunning else { throw BrokerFailure(description: "mosquitto did not listen on port \(port)") }
            usleep(20_000)
        }
    }

    deinit {
        // SIGKILL: a child of the test process may start with SIGTERM blocked (the mask is inherited), and would never go.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: folder)
    }

    struct BrokerFailure: Error, CustomStringConvertible { let description: String }

    /// A port nothing listens on now: bound to 0, read back, let go.
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw BrokerFailure(description: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// 127.0.0.1:`port`.
    private static func loopback(port: Int) -> sockaddr_in {
        sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: UInt16(port).bigEndian, sin_addr: in_addr(s_addr: UInt32(0x7F00_0001).bigEndian), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
    }

    private static func accepts(_ port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// Drives connections as kioskd's run loop will: poll each socket for
/// reading (and writing while it wants to), read and write when ready,
/// keepalives between. Until `done` says so, or `seconds` pass.
@discardableResult
func pump(_ connections: [MQTTConnection], seconds: Double = 5, until done: () -> Bool) -> Bool {
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

/// kioskd's link to a broker (``MQTTConnection``), against a real mosquitto
/// on loopback, driven by a poll loop as the run loop will drive it.
@Suite(.serialized) struct MQTTConnectionTests {
    /// Connected and acknowledged (CONNACK 0).
    func connected(_ id: String, to broker: TestBroker, will: MQTTConnection.Will? = nil) throws -> MQTTConnection {
        let connection = try MQTTConnection(clientID: id, will: will)
        try connection.connect(to: "127.0.0.1", port: broker.port, keepalive: 5)
        var events: [MQTTConnection.Event] = []
        pump([connection]) {
            events += connection.takeEvents()
            return !events.isEmpty
        }
        #expect(events.first == .connected(code: 0), "\(events)")
        return connection
    }

    /// Connected as `id` and subscribed to `pattern`, the subscription acknowledged.
    func subscribed(_ id: String, to pattern: String, on broker: TestBroker) throws -> MQTTConnection {
        let connection = try connected(id, to: broker)
        try connection.subscribe(pattern)
        pump([connection], seconds: 0.2) { false }
        return connection
    }

    /// A kiosk whose will says `offline` on `topic`, retained.
    func connectedKiosk(willOn topic: String, on broker: TestBroker) throws -> MQTTConnection {
        try connected("kiosk", to: broker, will: MQTTConnection.Will(topic: topic, payload: Array("offline".utf8), retained: true))
    }

    /// What arrives on `connection` while the others are pumped too, until `count` messages have.
    func messages(on connection: MQTTConnection, pumping others: [MQTTConnection] = [], count: Int, seconds: Double = 5) -> [MQTTConnection.Event] {
        var messages: [MQTTConnection.Event] = []
        pump([connection] + others, seconds: seconds) {
            messages += connection.takeEvents().filter { if case .message = $0 { true } else { false } }
            return messages.count >= count
        }
        return messages
    }

    @Test func aMessagePublishedArrivesAtASubscriberAndARetainedOneAtALateSubscriber() throws {
        let broker = try TestBroker()
        let subscriber = try subscribed("sub", to: "kioskd/shop/#", on: broker), publisher = try connected("pub", to: broker)
        try publisher.publish("kioskd/shop/availability", Array("online".utf8), retained: true)
        try publisher.publish("kioskd/shop/command", Array("next".utf8))
        let arrived = messages(on: subscriber, pumping: [publisher], count: 2)
        #expect(arrived == [
            .message(topic: "kioskd/shop/availability", payload: Array("online".utf8), retained: false),
            .message(topic: "kioskd/shop/command", payload: Array("next".utf8), retained: false),
        ])
        // Whoever subscribes later is given the retained message at once, marked retained.
        let late = try connected("late", to: broker)
        try late.subscribe("kioskd/shop/availability")
        #expect(messages(on: late, count: 1) == [.message(topic: "kioskd/shop/availability", payload: Array("online".utf8), retained: true)])
    }

    /// The will goes with the CONNECT (picframe sets it after connecting,
    /// so its frames stay "online" after a crash): a client gone without a
    /// DISCONNECT, as after `kill -9`, leaves its will on the broker.
    @Test func aClientGoneWithoutGoodbyeLeavesItsWill() throws {
        let broker = try TestBroker()
        let watcher = try subscribed("watcher", to: "kioskd/+/availability", on: broker)
        var kiosk: MQTTConnection? = try connectedKiosk(willOn: "kioskd/window/availability", on: broker)
        try kiosk!.publish("kioskd/window/availability", Array("online".utf8), retained: true)
        #expect(messages(on: watcher, pumping: [kiosk!], count: 1).first == .message(topic: "kioskd/window/availability", payload: Array("online".utf8), retained: false))
        kiosk = nil   // the socket closed with no DISCONNECT
        #expect(messages(on: watcher, count: 1) == [.message(topic: "kioskd/window/availability", payload: Array("offline".utf8), retained: false)])
    }

    /// Said goodbye: no will.
    @Test func aClientThatSaysGoodbyeLeavesNoWill() throws {
        let broker = try TestBroker()
        let watcher = try subscribed("watcher", to: "kioskd/+/availability", on: broker)
        let kiosk = try connectedKiosk(willOn: "kioskd/door/availability", on: broker)
        kiosk.disconnect()
        var events: [MQTTConnection.Event] = []
        pump([kiosk], seconds: 2) {
            events += kiosk.takeEvents()
            return events.contains(.disconnected(code: 0))
        }
        #expect(events.contains(.disconnected(code: 0)), "\(events)")
        // A will comes within milliseconds of the socket closing (the test above); none in 1.5 s.
        #expect(messages(on: watcher, count: 1, seconds: 1.5).isEmpty, "no will after a goodbye")
    }

    /// No broker there: the connect fails with libmosquitto's words, naming the call.
    @Test func noBrokerIsAClearFailure() throws {
        let broker = try TestBroker()
        let port = broker.port
        _ = consume broker   // stopped: nothing listens there now
        let connection = try MQTTConnection(clientID: "lonely", will: nil)
        let failure = expectError(MQTTConnection.Failure.self) { try connection.connect(to: "127.0.0.1", port: port, keepalive: 5) }
        #expect(failure?.description.hasPrefix("mosquitto_connect: ") == true, "\(String(describing: failure))")
        #expect(connection.socket == nil)
    }
}
