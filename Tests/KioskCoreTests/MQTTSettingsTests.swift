import Foundation
import KioskCore
import TestSupport
import Testing

/// The `[mqtt]` table, Home Assistant's discovery configs, and when the
/// state goes out (issue 35).
@Suite struct MQTTSettingsTests {
    @Test func theTableReadsFromTheFileAndTheFlagsAlike() throws {
        var settings = KioskSettings()
        #expect(settings.mqtt.broker == nil, "no broker by default: no MQTT")
        try settings.set("mqtt", to: .table([
            "broker": .string("mqtts://broker.lan"), "name": .string("Lobby-1"), "groups": .list([.string("lobby"), .string("all"), .string("lobby")]),
            "discovery_prefix": .string(""), "username": .string("kiosk"), "password_file": .string("mqtt-password"), "keepalive": .integer(15),
        ]))
        #expect(settings.mqtt.broker == MQTTBroker(host: "broker.lan", port: 8883, usesTLS: true))
        #expect(settings.mqtt.name == "Lobby-1" && settings.mqtt.groups == ["lobby", "all"], "a group said twice is one")
        #expect(settings.mqtt.discoveryPrefix == "" && settings.mqtt.keepalive == 15 && settings.mqtt.passwordFile == "mqtt-password")
        // A flag's text: groups separated by commas.
        try settings.set("mqtt.groups", to: .string("hall, shop,,"))
        #expect(settings.mqtt.groups == ["hall", "shop"])
        try settings.set("mqtt.broker", to: .string("none"))
        #expect(settings.mqtt.broker == nil)
        #expect(KioskSettings.table["mqtt.broker"]?.flagName == "mqtt-broker")
        #expect(KioskSettings.table["mqtt.password_file"]?.flagName == "mqtt-password-file")
        #expect(KioskSettings.table["mqtt.client_cert"]?.flag == FlagScope.none, "certificates are the file's")
        #expect(KioskSettings.table.descriptors.filter { $0.table == "mqtt" }.allSatisfy { $0.reload == .reconnect })
    }

    @Test(arguments: [
        ("mqtt.broker", SettingValue.string("tcp://broker"), "is not a broker"),
        ("mqtt.name", .string("lobby/one"), "e.g. \"lobby_one\""),
        ("mqtt.name", .string("+"), "letters, digits, _ and -"),
        ("mqtt.groups", .string("lobby,#"), "a group is named with letters"),
        ("mqtt.groups", .integer(3), "a list of group names"),
        ("mqtt.discovery_prefix", .string("home/#"), "without wildcards"),
        ("mqtt.keepalive", .integer(2), "from 5 to 3600"),
        ("mqtt.keepalive", .float(7.5), "whole seconds"),
        ("mqtt.password_file", .string(""), "the path of a file"),
    ])
    func aValueThatIsNotOneIsRefusedInWords(key: String, value: SettingValue, words: String) {
        var settings = KioskSettings()
        let error = expectError(SettingError.self) { try settings.set(key, to: value) }
        #expect(error?.description.contains(words) == true, "\(String(describing: error))")
    }

    @Test func settingsThatDoNotGoTogetherAreNamed() throws {
        var mqtt = MQTTSettings()
        mqtt.caFile = "/etc/ca.pem"
        #expect(mqtt.problem == nil, "without a broker nothing is wrong")
        mqtt.broker = MQTTBroker(host: "broker", port: 1883, usesTLS: false)
        #expect(mqtt.problem?.contains("are for mqtts:// brokers") == true)
        mqtt.broker = MQTTBroker(host: "broker", port: 8883, usesTLS: true)
        #expect(mqtt.problem == nil)
        mqtt.clientCert = "/etc/kiosk.pem"
        #expect(mqtt.problem?.contains("go together") == true)
        mqtt.clientKey = "/etc/kiosk.key"
        mqtt.passwordFile = "mqtt-password"
        #expect(mqtt.problem?.contains("without mqtt.username") == true)
        mqtt.username = "kiosk"
        #expect(mqtt.problem == nil)
        #expect(mqtt.effectiveName(hostName: "Kiosk.Lobby.lan") == "kiosk_lobby_lan")
        mqtt.name = "lobby"
        #expect(mqtt.effectiveName(hostName: "Kiosk.Lobby.lan") == "lobby")
    }

    /// The thirteen entities, each config valid JSON with one device block and
    /// the availability topic; states read from the `status` object.
    @Test func discoveryConfigsNameEveryEntityWithOneDevice() throws {
        let discovery = HomeAssistantDiscovery(topics: MQTTTopics(name: "lobby"), prefix: "homeassistant", version: "1.2.3")
        let configs = discovery.configs
        #expect(configs.map(\.topic) == [
            "homeassistant/button/lobby/next/config", "homeassistant/button/lobby/previous/config",
            "homeassistant/switch/lobby/pause/config", "homeassistant/light/lobby/display/config",
            "homeassistant/binary_sensor/lobby/presence/config",
            "homeassistant/number/lobby/interval/config", "homeassistant/select/lobby/order/config",
            "homeassistant/sensor/lobby/picture/config", "homeassistant/sensor/lobby/pictures/config",
            "homeassistant/image/lobby/picture/config", "homeassistant/notify/lobby/message/config",
            "homeassistant/button/lobby/clear_message/config", "homeassistant/sensor/lobby/message/config",
        ])
        var ids = Set<String>()
        for config in configs {
            let json = try #require(try JSONSerialization.jsonObject(with: Data(config.payload.line)) as? [String: Any])
            #expect(json["availability_topic"] as? String == "kioskd/lobby/availability")
            let device = try #require(json["device"] as? [String: Any])
            #expect(device["identifiers"] as? [String] == ["kioskd_lobby"] && device["model"] as? String == "kioskd" && device["sw_version"] as? String == "1.2.3")
            ids.insert(try #require(json["unique_id"] as? String))
            if let topic = json["command_topic"] as? String { #expect(topic == "kioskd/lobby/command") }
            if let topic = json["state_topic"] as? String { #expect(topic == "kioskd/lobby/state") }
        }
        #expect(ids.count == 13)
        let byObject = Dictionary(uniqueKeysWithValues: discovery.entities.map { ("\($0.component)/\($0.object)", $0.fields) })
        // Each command an entity sends is one the control protocol takes.
        for (key, field) in [("button/next", "payload_press"), ("button/previous", "payload_press"), ("switch/pause", "payload_on"),
                             ("switch/pause", "payload_off"), ("light/display", "command_off_template"), ("button/clear_message", "payload_press")] {
            guard case .string(let line)? = byObject[key]?[field] else { Issue.record("\(key) has no \(field)"); continue }
            #expect(throws: Never.self) { try ControlRequest(parsing: line) }
        }
        #expect(try ControlRequest(parsing: "set interval 12") == .set(setting: "interval", value: "12"))
        #expect(try ControlRequest(parsing: "display on") == .display(.on))
        #expect(try ControlRequest(parsing: "display on 40") == .display(.on, brightness: 40))
        #expect(discovery.retiredConfigTopics == ["homeassistant/switch/lobby/display/config", "homeassistant/sensor/lobby/lux/config"])
        // With a light sensor, a lux sensor too (and its config is not cleared).
        let lit = HomeAssistantDiscovery(topics: MQTTTopics(name: "lobby"), prefix: "homeassistant", version: "1.2.3", lightSensor: true)
        #expect(lit.configs.last?.topic == "homeassistant/sensor/lobby/lux/config" && lit.retiredConfigTopics.count == 1)
        #expect(byObject["select/order"]?["options"] == .array(["name", "mtime", "taken", "shuffle"]))
        #expect(byObject["image/picture"]?["image_topic"] == .string("kioskd/lobby/picture"))
        #expect(discovery.configPattern == "homeassistant/+/lobby/+/config" && discovery.statusTopic == "homeassistant/status")
    }

    /// The light's templates as Home Assistant renders them (Jinja2, in its
    /// sandbox): its lowest brightness, 1, is kioskd's lowest visible level,
    /// not 0 (a black picture shown as "on"); 255 is 100; and the state read
    /// back gives each level Home Assistant's own number again.
    @Test func theLightsLowestLevelIsVisibleAndLevelsRoundTrip() throws {
        let discovery = HomeAssistantDiscovery(topics: MQTTTopics(name: "lobby"), prefix: "homeassistant", version: "1")
        let light = try #require(discovery.entities.first { $0.object == "display" }?.fields)
        guard case .string(let on)? = light["command_on_template"], case .string(let back)? = light["brightness_template"] else {
            Issue.record("the light has no templates")
            return
        }
        let script = """
            import json, sys
            from jinja2.sandbox import ImmutableSandboxedEnvironment
            env = ImmutableSandboxedEnvironment()
            on, back = env.from_string(sys.argv[1]), env.from_string(sys.argv[2])
            out = {"none": on.render(), "on": {b: on.render(brightness=b) for b in range(1, 256)},
                   "back": {k: back.render(value_json={"brightness": k}) for k in range(0, 101)}}
            print(json.dumps(out))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")   // Debian's, with python3-jinja2 (scripts/install-deps --vm)
        process.arguments = ["-c", script, on, back]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "Jinja2 could not render the templates")
        let rendered = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
        #expect(rendered["none"] as? String == "display on")
        let levels = try #require(rendered["on"] as? [String: String])
        func level(_ brightness: Int) throws -> Int {
            let line = try #require(levels[String(brightness)])
            guard case .display(.on, let level?) = try ControlRequest(parsing: line) else { throw ParseFailure(line: line) }
            return level
        }
        #expect(try level(1) == 1, "Home Assistant's lowest level must be visible")
        #expect(try level(255) == 100)
        #expect(try level(128) == 50)
        let all = try (1...255).map(level)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0 <= $1 } && Set(all) == Set(1...100), "1 to 255 onto every level 1 to 100, in order")
        let readBack = try #require(rendered["back"] as? [String: String])
        #expect(readBack["0"] == "0" && readBack["1"] == "1" && readBack["100"] == "255")
        for brightness in 1...255 {
            // What Home Assistant sets, read back from the state, sets the same level again.
            let shown = try level(brightness)
            let again = try #require(readBack[String(shown)].flatMap { Int($0) })
            #expect(try level(again) == shown, "\(brightness) -> \(shown) -> \(again)")
        }
    }

    struct ParseFailure: Error { let line: String }

    /// A burst of changes is one message at its end; a quiet one goes at once.
    @Test func stateIsPublishedAtMostTenTimesASecond() {
        var pacing = PublishPacing(minimumGap: 0.1)
        #expect(pacing.nextDue == nil)
        pacing.changed()
        #expect(pacing.isDue(at: 5.0), "the first change goes at once")
        pacing.published(at: 5.0)
        var published = 1
        var time = 5.0
        while time < 6.0 {
            time += 0.004  // a change every 4 ms
            pacing.changed()
            if pacing.isDue(at: time) {
                pacing.published(at: time)
                published += 1
            }
        }
        #expect(published <= 11 && published >= 9, "\(published) in a second")
        #expect(pacing.nextDue.map { $0 > time } == true, "the last change still waits its turn")
        pacing.reset()
        #expect(pacing.isDue(at: time), "a new connection publishes at once")
    }

    @Test func takenDatesAreWrittenAsISO8601WallClockTimes() {
        #expect(wallClockISO8601(0) == "1970-01-01T00:00:00")
        #expect(wallClockISO8601(951_782_400 + 86_399) == "2000-02-29T23:59:59")
        #expect(wallClockISO8601(1_714_566_896) == "2024-05-01T12:34:56")
        #expect(wallClockISO8601(-1) == "1969-12-31T23:59:59")
    }

    @Test func setTakesASettingAndItsValue() throws {
        #expect(try ControlRequest(parsing: "set order shuffle") == .set(setting: "order", value: "shuffle"))
        #expect(try ControlRequest(parsing: "SET background  202020 ") == .set(setting: "background", value: "202020"))
        let missing = expectError(ControlRequestError.self) { try ControlRequest(parsing: "set interval") }
        #expect(missing?.message.hasPrefix("set takes a setting and its value") == true)
        let typo = expectError(ControlRequestError.self) { try ControlRequest(parsing: "set intervall 3") }
        #expect(typo?.message.contains("did you mean interval?") == true, "\(String(describing: typo))")
    }
}

/// The group's wall-clock beat: where the group is at any time, and when it slides next.
@Suite struct GroupBeatTests {
    @Test func slideKStartsAtEpochPlusKIntervalsOnPositionPlusK() {
        let beat = GroupBeat(epoch: 1_000_000, interval: 8, position: 5, by: "a")
        #expect(beat.item(at: 1_000_000, count: 8) == 5)
        #expect(beat.item(at: 1_000_007.999, count: 8) == 5)
        #expect(beat.item(at: 1_000_008, count: 8) == 6)
        #expect(beat.item(at: 1_000_000 + 8 * 3 + 1, count: 8) == 0, "round the loop")
        #expect(beat.item(at: 999_990, count: 8) == 5, "before the epoch: its position")
        #expect(beat.item(at: 1_000_000, count: 0) == nil)
        #expect(beat.item(at: 1_000_000, count: 3) == 2, "a shorter playlist: the same slide, its own picture")
        #expect(beat.nextSlide(after: 1_000_000)! == (1, 1_000_008))
        #expect(beat.nextSlide(after: 1_000_008)! == (2, 1_000_016), "at a beat's instant, the next one")
        #expect(beat.nextSlide(after: 999_000)! == (0, 1_000_000))
        var paused = beat
        paused.paused = true
        #expect(paused.nextSlide(after: 1_000_100) == nil && paused.item(at: 1_000_100, count: 8) == 5)
    }

    /// How long the group has had its picture: a member woken late for a slide starts it from then.
    @Test func theTimeSinceTheSlideIsFromItsBeat() {
        let beat = GroupBeat(epoch: 1_000_000, interval: 8, position: 5, by: "a")
        #expect(beat.sinceSlide(at: 1_000_016.004) == 1_000_016.004 - 1_000_016)
        #expect(beat.sinceSlide(at: 1_000_000.5) == 0.5, "slide 0, at the epoch")
        var paused = beat
        paused.paused = true
        #expect(paused.sinceSlide(at: 1_000_100) == 100, "paused: the picture since the epoch")
    }

    /// A clock stepped forward by an hour: one slide to where the group is, not 450.
    @Test func aSteppedClockGivesOnePictureNotABurst() {
        let beat = GroupBeat(epoch: 1_000_000, interval: 8, position: 0, by: "a")
        let before = beat.item(at: 1_000_020, count: 1000)!
        let after = beat.item(at: 1_000_020 + 3600, count: 1000)!
        #expect(after - before == 450, "the group's picture an hour on, reached by one goto")
        #expect(beat.nextSlide(after: 1_000_020 + 3600)!.at == 1_000_000 + 8 * 453)
    }

    @Test func theBeatIsPublishedAsJSONAndReadBack() throws {
        let beat = GroupBeat(epoch: 1_795_680_000.25, interval: 7.5, position: 12, paused: true, by: "lobby-1")
        let text = String(decoding: beat.payload.line, as: UTF8.self)
        #expect(text == #"{"epoch":1795680000.25,"interval":7.5,"position":12,"paused":true,"by":"lobby-1"}"# + "\n")
        #expect(try JSONDecoder().decode(GroupBeat.self, from: Data(text.utf8)) == beat)
        for (broken, problem) in [
            (GroupBeat(epoch: .nan, interval: 8, position: 0, by: "x"), "epoch"),
            (GroupBeat(epoch: 1e12, interval: 8, position: 0, by: "x"), "epoch"),
            (GroupBeat(epoch: 1e9, interval: 0, position: 0, by: "x"), "interval"),
            (GroupBeat(epoch: 1e9, interval: 8, position: -1, by: "x"), "position"),
        ] {
            #expect(broken.problem?.contains(problem) == true)
        }
    }

    /// While a group times the slides, the show does not slide by itself;
    /// it remembers when someone last touched it.
    @Test func aShowTimedByItsGroupDoesNotSlideByItself() {
        var show = ShowSchedule(at: 0, pictureCount: 8, settings: MotionSettings(), now: 100)
        show.apply(.timedByGroup(true), at: 100)
        #expect(show.nextAdvance == nil && !show.advanceIfDue(at: 200))
        show.apply(.goto(item: 3), at: 200)
        #expect(show.target == 3 && show.nextAdvance == nil)
        #expect(show.lastPresence == nil)
        show.apply(.personPresent, at: 210)
        #expect(show.lastPresence == 210)
        show.apply(.timedByGroup(false), at: 220)
        #expect(show.nextAdvance != nil, "its own rest again")
        #expect(show.advanceIfDue(at: 300) && show.target == 4)
    }
}

/// docs/home-assistant.md lists the discovery payloads exactly as a kiosk
/// named `lobby` publishes them (`make reference` writes them).
@Suite struct HomeAssistantReferenceTests {
    static let begin = "<!-- discovery payloads: written by make reference -->\n"
    static let end = "<!-- end of the discovery payloads -->\n"

    @Test func theDocumentedPayloadsAreThePublishedOnes() throws {
        let path = String(#filePath.split(separator: "/Tests/").first ?? "") + "/docs/home-assistant.md"
        let document = try String(contentsOfFile: path, encoding: .utf8)
        let generated = HomeAssistantDiscovery(topics: MQTTTopics(name: "lobby"), prefix: "homeassistant", version: "VERSION", lightSensor: true).payloadReference
        guard let start = document.range(of: Self.begin), let stop = document.range(of: Self.end, range: start.upperBound..<document.endIndex) else {
            Issue.record("docs/home-assistant.md has no payload section between \(Self.begin) and \(Self.end)")
            return
        }
        if getenv("KIOSKD_WRITE_REFERENCE") != nil {
            let written = String(document[..<start.upperBound]) + "\n" + generated + "\n" + String(document[stop.lowerBound...])
            try written.write(toFile: path, atomically: true, encoding: .utf8)
            return
        }
        #expect(String(document[start.upperBound..<stop.lowerBound]) == "\n" + generated + "\n", "run make reference")
    }
}
