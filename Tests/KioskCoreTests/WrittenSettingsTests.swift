import KioskCore
import Testing

@Suite struct WrittenSettingsTests {
    /// Settings unlike the defaults in every way the file can say.
    static func unusual() throws -> KioskSettings {
        var settings = KioskSettings()
        let values: [(String, SettingValue)] = [
            ("images", .string("/srv/photos \"lobby\"")), ("image_width", .integer(1200)), ("spacing", .string("2.5%")),
            ("slot_height", .string("80%")), ("background", .string("0a0B0c")), ("device", .string("/dev/dri/card1")),
            ("connector", .string("HDMI-A-1")), ("mode", .string("1920x1080@60")), ("rotation", .integer(270)),
            ("exif_rotate", .boolean(false)), ("cache_mb", .integer(48)), ("interval", .float(12.5)),
            ("transition", .string("0.6")), ("easing", .string("linear")), ("display", .string("headless")),
            ("size", .string("800x480")), ("socket", .string("none")), ("socket_group", .string("kiosk")),
            ("input", .list([.string("/dev/input/event3"), .string("usb-Panel-event-if00")])), ("grab", .boolean(true)),
            ("tap_zones", .boolean(false)), ("resume_after", .integer(45)), ("calibration", .string("0 1 0 -1 0 1")),
            ("keys", .table(["KEY_F5": .string("next"), "BTN_LEFT": .string("pause")])),
            ("mqtt.broker", .string("mqtts://[fd00::2]:8884")), ("mqtt.name", .string("Lobby_1")), ("mqtt.groups", .string("lobby,hall")),
            ("mqtt.discovery_prefix", .string("")), ("mqtt.username", .string("kiosk \"one\"")), ("mqtt.password_file", .string("mqtt-password")),
            ("mqtt.ca_file", .string("/etc/kioskd/ca.pem")), ("mqtt.client_cert", .string("/etc/kioskd/kiosk.pem")),
            ("mqtt.client_key", .string("/etc/kioskd/kiosk.key")), ("mqtt.keepalive", .integer(90)),
            ("idle_off", .string("90s")), ("wake_on_presence", .string("always")),
            ("immich.url", .string("https://photos.example/kiosk")), ("immich.api_key_file", .string("immich-api-key")),
            ("immich.albums", .list([.string("Holidays, 2024"), .string("1a2b3c4d-0000-4000-8000-00000000a001")])),
            ("immich.people", .string("Anna,Grandma")), ("immich.favourites", .boolean(true)), ("immich.memories", .boolean(true)),
            ("immich.random", .integer(25)), ("immich.poll", .string("90s")), ("immich.ca_file", .string("/etc/kioskd/home-ca.pem")),
        ]
        for (name, value) in values { try settings.set(name, to: value) }
        return settings
    }

    /// What check-config prints, set back, gives the same settings: for the
    /// defaults and for settings unlike them in every way.
    @Test func everyWrittenValueSetsBackTheSameSettings() throws {
        var counted = KioskSettings()
        try counted.set("visible", to: .float(1.4))
        for settings in [KioskSettings(), try Self.unusual(), counted] {
            for name in KioskSettings.table.keys {
                guard let value = settings.writtenValue(of: name) else { continue }
                var copy = settings
                try copy.set(name, to: value)
                #expect(copy == settings, "\(name) = \(value.toml)")
            }
        }
        #expect(KioskSettings.table.keys.filter { KioskSettings().writtenValue(of: $0) == nil } == [
            "images", "visible", "slot_height", "socket_group", "mqtt.name", "mqtt.username", "mqtt.password_file", "mqtt.ca_file",
            "mqtt.client_cert", "mqtt.client_key", "webdav.username", "webdav.password_file", "webdav.ca_file", "immich.api_key_file",
            "immich.ca_file", "web.password_file", "web.tls_cert", "web.tls_key",
        ])
        #expect(try Self.unusual().writtenValue(of: "slot_height") == .string("80%"))
    }

    @Test func valuesAreWrittenAsTOML() throws {
        let settings = try Self.unusual()
        #expect(settings.writtenValue(of: "images")?.toml == #""/srv/photos \"lobby\"""#)
        #expect(settings.writtenValue(of: "image_width")?.toml == "1200")
        #expect(settings.writtenValue(of: "spacing")?.toml == #""2.5%""#)
        #expect(settings.writtenValue(of: "background")?.toml == #""0A0B0C""#)
        #expect(settings.writtenValue(of: "input")?.toml == #"["/dev/input/event3", "usb-Panel-event-if00"]"#)
        #expect(settings.writtenValue(of: "keys")?.toml == #"{ BTN_LEFT = "pause", KEY_F5 = "next" }"#)
        #expect(settings.writtenValue(of: "calibration")?.toml == "[0.0, 1.0, 0.0, -1.0, 0.0, 1.0]")
        #expect(SettingValue.string("a\tb\u{1}").toml == #""a\tb\u0001""#)
        #expect(SettingValue.table(["two words": .integer(1)]).toml == #"{ "two words" = 1 }"#)
    }
}
