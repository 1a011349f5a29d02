import Foundation
import KioskCore
import MQTTClient
import BrokerSupport
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

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

    /// Connected as `id` and subscribed to `pattern`, the subscription in place
    /// (nothing is retained there yet, so nothing arrives meanwhile).
    func subscribed(_ id: String, to pattern: String, on broker: TestBroker) throws -> MQTTConnection {
        let connection = try connected(id, to: broker)
        let arrived = try subscribeAndAwait(connection, to: [pattern])
        #expect(arrived?.isEmpty == true, "\(String(describing: arrived))")
        return connection
    }

    /// A kiosk whose will says `offline` on `topic`, retained.
    func connectedKiosk(willOn topic: String, on broker: TestBroker) throws -> MQTTConnection {
        try connected("kiosk", to: broker, will: MQTTConnection.Will(topic: topic, payload: Array("offline".utf8), retained: true))
    }

    /// What arrives on `connection` while the others are pumped too, until
    /// `count` messages have (or `seconds` pass: long, as a busy machine may be slow).
    func messages(on connection: MQTTConnection, pumping others: [MQTTConnection] = [], count: Int, seconds: Double = 30) -> [MQTTConnection.Event] {
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
        pump([kiosk]) {
            events += kiosk.takeEvents()
            return events.contains(.disconnected(code: 0))
        }
        #expect(events.contains(.disconnected(code: 0)), "\(events)")
        // A will comes within milliseconds of the socket closing (the test above); none in 1.5 s.
        // (Only a will could arrive, however slow the machine: the wait cannot fail for being short.)
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
