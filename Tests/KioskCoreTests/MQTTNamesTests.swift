import KioskCore
import Testing

/// The `broker` setting and the topic names a kiosk uses (issue 35's interface).
@Suite struct MQTTNamesTests {
    @Test func aBrokerIsASchemeAHostAndMaybeAPort() throws {
        #expect(try MQTTBroker.parse("mqtt://broker.lan") == MQTTBroker(host: "broker.lan", port: 1883, usesTLS: false))
        #expect(try MQTTBroker.parse("mqtts://broker.lan") == MQTTBroker(host: "broker.lan", port: 8883, usesTLS: true))
        #expect(try MQTTBroker.parse(" mqtt://10.0.0.2:1884/ ") == MQTTBroker(host: "10.0.0.2", port: 1884, usesTLS: false))
        #expect(try MQTTBroker.parse("mqtts://[fd00::2]:8884") == MQTTBroker(host: "fd00::2", port: 8884, usesTLS: true))
        #expect(try MQTTBroker.parse("mqtts://[fd00::2]:8884")?.description == "mqtts://[fd00::2]:8884")
    }

    @Test func noneOrNothingIsNoBroker() throws {
        #expect(try MQTTBroker.parse("none") == nil)
        #expect(try MQTTBroker.parse("") == nil)
    }

    @Test(arguments: [
        ("broker.lan:1883", "is not a broker"),
        ("http://broker.lan", "is not a broker"),
        ("mqtt://", "names no host"),
        ("mqtt://:1883", "names no host"),
        ("mqtt://broker.lan:0", "the port must be a number from 1 to 65535"),
        ("mqtt://broker.lan:70000", "the port must be a number from 1 to 65535"),
        ("mqtt://broker.lan:port", "the port must be a number from 1 to 65535"),
        ("mqtt://kiosk:secret@broker.lan", "a broker is a host and a port only"),
        ("mqtt://broker.lan/kiosks", "a broker is a host and a port only"),
        ("mqtt://[fd00::2", "needs its closing ]"),
    ])
    func aBrokerThatIsNotOneIsRefusedInWords(text: String, words: String) {
        #expect(throws: MQTTBroker.ParseError.self) { try MQTTBroker.parse(text) }
        do {
            _ = try MQTTBroker.parse(text)
        } catch {
            #expect(error.description.contains(words), "\(error)")
        }
    }

    @Test func topicsAreTheIssuesNames() {
        let topics = MQTTTopics(name: "shop-window")
        #expect([topics.availability, topics.state, topics.command, topics.reply, topics.event, topics.picture] == [
            "kioskd/shop-window/availability", "kioskd/shop-window/state", "kioskd/shop-window/command",
            "kioskd/shop-window/reply", "kioskd/shop-window/event", "kioskd/shop-window/picture",
        ])
        #expect(MQTTTopics.groupCommand("lobby") == "kioskd/group/lobby/command")
        #expect(MQTTTopics.groupBeat("lobby") == "kioskd/group/lobby/beat")
    }

    /// A host name becomes one topic level: no wildcard, no level separator, nothing Home Assistant's ids refuse.
    @Test func aNameIsMadeTopicSafe() {
        #expect(MQTTTopics.topicSafe("kiosk-3") == "kiosk-3")
        #expect(MQTTTopics.topicSafe("Shop Window #1") == "shop_window_1")
        #expect(MQTTTopics.topicSafe("frame.lan/+") == "frame_lan")
        #expect(MQTTTopics.topicSafe("Vitrine É") == "vitrine")
        #expect(MQTTTopics.topicSafe("+/#") == "kiosk")
        for name in ["a b", "x/y", "#", "+", "é", "\u{0}"] {
            let safe = MQTTTopics.topicSafe(name)
            #expect(!safe.isEmpty && safe.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" })
        }
    }
}
