import Foundation
import KioskCore
import MQTTClient
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

private typealias Daemon = HeadlessDaemonTests.Daemon

/// A payload as a JSON object (nil when it is not one).
private func object(_ text: String) -> [String: Any]? {
    try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
}

/// The built daemon on a real mosquitto (on loopback, the test's own),
/// watched and driven by a second client as Home Assistant or a script would.
@Suite(.serialized) struct MQTTDaemonTests {
    /// A daemon named `name` on `broker`, at rest on picture 0.
    private func daemon(_ name: String, on broker: TestBroker, _ more: [String] = [], environment: [String: String] = [:]) throws -> Daemon {
        let daemon = try Daemon(
            ["--interval", "600", "--transition", "0.2", "--mqtt-broker", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-name", name] + more,
            environment: environment)
        daemon.waitFor("picture(s), picture 0 in the centre")
        return daemon
    }

    /// The reply to `command`, published on the kiosk's command topic.
    private func ask(_ command: String, of name: String, through watcher: TestSubscriber, on topic: String? = nil) throws -> [String: Any] {
        let replies = watcher.texts(on: "kioskd/\(name)/reply").count
        try watcher.publish(topic ?? "kioskd/\(name)/command", command)
        watcher.wait { _ in watcher.texts(on: "kioskd/\(name)/reply").count > replies }
        let reply = watcher.texts(on: "kioskd/\(name)/reply").dropFirst(replies).first ?? "(no reply)"
        return object(reply) ?? ["unparsed": reply]
    }

    /// The last retained state once `holds` is true of it (or the last one within 10 s).
    private func state(of name: String, on watcher: TestSubscriber, where holds: ([String: Any]) -> Bool) -> [String: Any] {
        var last: [String: Any] = [:]
        watcher.wait { _ in
            last = watcher.texts(on: "kioskd/\(name)/state").last.flatMap(object) ?? [:]
            return holds(last)
        }
        return last
    }

    @Test func homeAssistantFindsTheKioskAndDrivesItThroughItsEntities() throws {
        let broker = try TestBroker()
        let watcher = try TestSubscriber("home-assistant", to: ["kioskd/shop/#", "homeassistant/+/shop/+/config"], on: broker)
        let daemon = try daemon("shop", on: broker)
        defer { _ = daemon.stop() }

        // Online, and nine discovery configs: valid JSON, one device, the availability topic.
        watcher.wait { messages in messages.filter { $0.topic.hasSuffix("/config") }.count >= 9 && messages.contains { $0.topic == "kioskd/shop/state" } }
        #expect(watcher.texts(on: "kioskd/shop/availability") == ["online"])
        let configs = watcher.messages.filter { $0.topic.hasSuffix("/config") }
        let topics = Set(configs.map(\.topic))
        #expect(topics == [
            "homeassistant/button/shop/next/config", "homeassistant/button/shop/previous/config", "homeassistant/switch/shop/pause/config",
            "homeassistant/switch/shop/display/config", "homeassistant/number/shop/interval/config", "homeassistant/select/shop/order/config",
            "homeassistant/sensor/shop/picture/config", "homeassistant/sensor/shop/pictures/config", "homeassistant/image/shop/picture/config",
        ])
        var uniqueIDs = Set<String>()
        for config in configs {
            let fields = try #require(object(String(decoding: config.payload, as: UTF8.self)), "\(config.topic) is not JSON")
            let device = try #require(fields["device"] as? [String: Any])
            #expect(device["model"] as? String == "kioskd" && device["sw_version"] as? String == KioskVersion.current)
            #expect(device["identifiers"] as? [String] == ["kioskd_shop"])
            #expect(fields["availability_topic"] as? String == "kioskd/shop/availability")
            uniqueIDs.insert(fields["unique_id"] as? String ?? "")
        }
        #expect(uniqueIDs.count == 9)

        // The retained state is `status --json`; a newcomer is given it at once.
        let late = try TestSubscriber("late", to: ["kioskd/shop/state", "kioskd/shop/availability"], on: broker)
        late.wait { $0.count >= 2 }
        #expect(late.messages.prefix(2).allSatisfy { $0.retained })
        let first = try #require(late.texts(on: "kioskd/shop/state").first.flatMap(object))
        #expect(first["ok"] as? Bool == true && first["index"] as? Int == 0 && first["count"] as? Int == 8 && first["order"] as? String == "name")

        // A command on the node topic: the socket's reply, the new state, the watch event.
        #expect(try ask("next", of: "shop", through: watcher)["index"] as? Int == 1)
        #expect(state(of: "shop", on: watcher) { $0["index"] as? Int == 1 && $0["moving"] as? Bool == false }["file"] as? String == "02.jpg")
        watcher.wait { _ in watcher.texts(on: "kioskd/shop/event").contains { $0.contains("\"event\":\"picture\"") } }
        #expect(watcher.texts(on: "kioskd/shop/event").contains("{\"event\":\"picture\",\"index\":1,\"file\":\"02.jpg\",\"files\":[\"02.jpg\"]}"))

        // The discovered button: its own command topic and payload.
        let button = try #require(configs.first { $0.topic == "homeassistant/button/shop/next/config" }.flatMap { object(String(decoding: $0.payload, as: UTF8.self)) })
        try watcher.publish(try #require(button["command_topic"] as? String), try #require(button["payload_press"] as? String))
        #expect(state(of: "shop", on: watcher) { $0["index"] as? Int == 2 }["index"] as? Int == 2)

        // The number and the select, through their command templates' lines.
        #expect(try ask("set interval 12", of: "shop", through: watcher)["changed"] as? [String] == ["interval"])
        #expect(state(of: "shop", on: watcher) { $0["interval"] as? Double == 12 }["interval"] as? Double == 12)
        #expect(try ask("set order shuffle", of: "shop", through: watcher)["changed"] as? [String] == ["order"])
        #expect(state(of: "shop", on: watcher) { $0["order"] as? String == "shuffle" }["order"] as? String == "shuffle")
        let refused = try ask("set display headless", of: "shop", through: watcher)
        #expect(refused["ok"] as? Bool == false && (refused["error"] as? String)?.contains("cannot be set while the show runs") == true, "\(refused)")

        // The pause switch: its payloads are the commands, its state the status.
        #expect(try ask("pause", of: "shop", through: watcher)["paused"] as? Bool == true)
        #expect(state(of: "shop", on: watcher) { $0["paused"] as? Bool == true }["paused"] as? Bool == true)

        let lines = daemon.stop()
        // Said goodbye: `offline`, by the kiosk itself (retained).
        watcher.wait { _ in watcher.texts(on: "kioskd/shop/availability").last == "offline" }
        #expect(watcher.texts(on: "kioskd/shop/availability").last == "offline", "\(lines)")
        let after = try TestSubscriber("after", to: ["kioskd/shop/availability"], on: broker)
        after.wait { !$0.isEmpty }
        #expect(after.texts(on: "kioskd/shop/availability") == ["offline"])
    }

    /// Garbage gets one reply each and never stops the show.
    @Test func badCommandsAreRefusedWithAReplyAndTheShowGoesOn() throws {
        let broker = try TestBroker()
        let watcher = try TestSubscriber("script", to: ["kioskd/door/reply", "kioskd/door/state"], on: broker)
        // A retained command is never obeyed: it would run again at every connect.
        try watcher.publish("kioskd/door/command", "next", retained: true)
        let daemon = try daemon("door", on: broker)
        defer { _ = daemon.stop() }
        watcher.wait { !$0.isEmpty }

        func error(_ payload: [UInt8]) throws -> String {
            let replies = watcher.texts(on: "kioskd/door/reply").count
            try watcher.publish("kioskd/door/command", payload)
            watcher.wait { _ in watcher.texts(on: "kioskd/door/reply").count > replies }
            let reply = watcher.texts(on: "kioskd/door/reply").dropFirst(replies).first.flatMap(object) ?? [:]
            #expect(reply["ok"] as? Bool == false, "\(reply)")
            return reply["error"] as? String ?? ""
        }
        #expect(try error(Array(repeating: UInt8(ascii: "n"), count: 5000)) == "a command is at most 4096 bytes; this one has 5000")
        #expect(try error([0x6E, 0x65, 0xFF, 0x74]) == "a command is UTF-8 text; this one is not")
        #expect(try error(Array("next\nnext".utf8)) == "one command per message; this one has several lines")
        #expect(try error(Array("jump".utf8)).hasPrefix("unknown command \"jump\""))
        #expect(try error(Array("goto 99".utf8)).hasPrefix("goto: there is no picture 99"))
        #expect(try error(Array("watch".utf8)) == "watch is the control socket's: over MQTT the events are published on kioskd/door/event")
        #expect(try error(Array("screenshot".utf8)).contains("kioskd/door/picture"))
        #expect(try error(Array("set mqtt.broker none".utf8)).contains("cannot be set while the show runs"))
        #expect(try error(Array("set interval forever".utf8)).contains("expected seconds"))

        #expect(try ask("status", of: "door", through: watcher)["index"] as? Int == 0, "the retained next was not obeyed")

        let lines = daemon.stop()
        #expect(lines.filter { $0.contains("mqtt: refused a command") }.count == 4, "one line per kind: \(lines)")
        #expect(lines.contains { $0.contains("mqtt: ignored a retained command on kioskd/door/command") })
    }

    /// A group command reaches every member; each replies on its own topic.
    @Test func aGroupCommandMovesEveryMember() throws {
        let broker = try TestBroker()
        let watcher = try TestSubscriber("fleet", to: ["kioskd/+/reply", "kioskd/+/state"], on: broker)
        let first = try daemon("left", on: broker, ["--mqtt-groups", "lobby,hall"])
        defer { _ = first.stop() }
        let second = try daemon("right", on: broker, ["--mqtt-groups", "lobby"])
        defer { _ = second.stop() }
        watcher.wait { messages in Set(messages.map(\.topic)).isSuperset(of: ["kioskd/left/state", "kioskd/right/state"]) }
        try watcher.publish("kioskd/group/lobby/command", "goto 05.jpg")
        watcher.wait { _ in !watcher.texts(on: "kioskd/left/reply").isEmpty && !watcher.texts(on: "kioskd/right/reply").isEmpty }
        for name in ["left", "right"] {
            #expect(watcher.texts(on: "kioskd/\(name)/reply").first.flatMap(object)?["index"] as? Int == 4)
            #expect(state(of: name, on: watcher) { $0["index"] as? Int == 4 }["file"] as? String == "05.jpg")
        }
        // A group only one is in.
        try watcher.publish("kioskd/group/hall/command", "next")
        #expect(state(of: "left", on: watcher) { $0["index"] as? Int == 5 }["index"] as? Int == 5)
        #expect(watcher.texts(on: "kioskd/right/reply").count == 1)
    }
}
