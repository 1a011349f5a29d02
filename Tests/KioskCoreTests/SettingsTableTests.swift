import KioskCore
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The settings table is the one place a setting is written: these hold
/// it to what the file, the flags, check-config and the reload rely on.
@Suite struct SettingsTableTests {
    @Test func everySettingHasOneNameOneFlagAndHelp() {
        let table = KioskSettings.table
        #expect(Set(table.keys).count == table.descriptors.count, "two settings share a name")
        #expect(Set(table.descriptors.map(\.flagName)).count == table.descriptors.count, "two settings share a flag")
        for setting in table.descriptors {
            #expect(!setting.help.isEmpty && setting.help.hasSuffix("."), "\(setting.key): help is one or two sentences")
            #expect(!setting.valueName.isEmpty, "\(setting.key)")
            #expect(setting.flagName.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" }, "\(setting.key): --\(setting.flagName)")
            // A default that is written sets back to itself; one that is not says what it means.
            if let value = setting.defaultValue {
                var settings = KioskSettings()
                try? setting.set(&settings, to: value)
                #expect(settings == KioskSettings(), "\(setting.key) = \(value.toml)")
            } else {
                #expect(setting.unwritten != nil, "\(setting.key) has no written default and does not say what that means")
            }
        }
    }

    /// What an operator reads in `--help` and the reference.
    @Test func defaultsAreShownAsAnOperatorWritesThem() throws {
        let table = KioskSettings.table
        #expect(table["interval"]?.shownDefault == "8")
        #expect(table["transition"]?.shownDefault == "0.45")
        #expect(table["image_width"]?.shownDefault == "70%")
        #expect(table["easing"]?.shownDefault == "ease-in-out")
        #expect(table["portrait_pairs"]?.shownDefault == "false")
        #expect(table["slot_height"]?.shownDefault == "the full height of the screen")
        #expect(table["keys"]?.shownDefault == "none")
        #expect(table["rescan_interval"]?.flagName == "rescan-interval")
    }

    /// `start_paused`, added through the table alone: read from the file
    /// and flags, written back by check-config, waiting for a restart on reload.
    @Test func startPausedIsOneDescriptor() throws {
        var settings = KioskSettings()
        #expect(settings.motion.startPaused == false)
        #expect(try settings.set("start_paused", to: .boolean(true)) == ["start_paused"])
        #expect(settings.motion.startPaused)
        try settings.set("start_paused", to: .string("false"))   // as a flag gives it
        #expect(settings.motion.startPaused == false)
        let error = expectError(SettingError.self) { try settings.set("start_paused", to: .string("yes")) }
        #expect(error?.description == "invalid start_paused \"yes\": expected true or false")
        #expect(KioskSettings.table["start_paused"]?.reload == .restart)
        #expect(KioskSettings.table["start_paused"]?.flag == .show)
    }

    /// The clip settings: `video_max` a time as `idle_off`'s is written,
    /// never none; `video_repeat` once or loop; `motion_photos` once, loop
    /// or off; `video_audio` refused when true, since no sound is built in.
    @Test func clipSettingsTakeTheirValuesAndRefuseTheRestPlainly() throws {
        var settings = KioskSettings()
        #expect(settings.clips == ClipSettings() && settings.clips.maximum == 60 && settings.clips.repeats == .once && settings.folder.clips)
        try settings.set("video_max", to: .string("2m"))
        try settings.set("video_repeat", to: .string("loop"))
        try settings.set("video", to: .boolean(false))
        try settings.set("video_audio", to: .boolean(false))
        #expect(settings.clips.maximum == 120 && settings.clips.repeats == .loop && !settings.folder.clips)
        try settings.set("video_max", to: .integer(45))
        #expect(settings.clips.maximum == 45)
        let timeProblem = "expected a time like \"60s\", \"2m\" or \"1h\" (1 second to 24 hours)"
        for written in ["forever", "none", "0s", "2d"] {
            let error = expectError(SettingError.self) { try settings.set("video_max", to: .string(written)) }
            #expect(error?.description == "invalid video_max \"\(written)\": \(timeProblem)")
        }
        let twice = expectError(SettingError.self) { try settings.set("video_repeat", to: .string("twice")) }
        #expect(twice?.description == "invalid video_repeat \"twice\": expected once or loop")
        #expect(settings.clips.motionPhotos == .once)
        try settings.set("motion_photos", to: .string("off"))
        #expect(settings.clips.motionPhotos == .off)
        let always = expectError(SettingError.self) { try settings.set("motion_photos", to: .string("always")) }
        #expect(always?.description == "invalid motion_photos \"always\": expected once, loop or off")
        let sound = expectError(SettingError.self) { try settings.set("video_audio", to: .boolean(true)) }
        #expect(sound?.description == "invalid video_audio \"true\": sound is not built into this kioskd: clips play muted (leave video_audio = false)")
        #expect(settings.clips.maximum == 45, "a refused value changes nothing")
    }

    /// Which settings a reload applies at once and which wait: the policy
    /// each descriptor states, as the reload log and `restart_needed` report it.
    @Test func reloadPoliciesAreTheOnesOperatorsAreToldAbout() {
        let table = KioskSettings.table
        func named(_ policy: ReloadPolicy) -> Set<String> { Set(table.descriptors.filter { $0.reload == policy }.map(\.key)) }
        #expect(named(.newDisplay) == ["device", "connector", "mode", "rotation", "display", "size"])
        #expect(named(.newFolder) == [
            "images", "recursive", "order", "video", "rescan_interval", "webdav.url", "webdav.username", "webdav.password_file", "webdav.poll",
            "webdav.ca_file", "immich.url", "immich.api_key_file", "immich.albums", "immich.people", "immich.favourites", "immich.memories",
            "immich.random", "immich.poll", "immich.ca_file", "cache_max", "cache_items",
        ])
        #expect(named(.restart) == ["socket", "socket_group", "input", "grab", "tap_zones", "calibration", "keys", "presence_keys", "light_sensor", "cec", "state_dir", "start_paused", "video_audio"])
        #expect(named(.live).contains("interval") && named(.live).contains("max_zoom"))
    }

    /// Settings in a TOML table (`[mqtt]` next) are ordinary descriptors:
    /// `[demo] interval = 3` sets `demo.interval`, its flag is `--demo-interval`,
    /// and a typo inside the table is refused with the name meant.
    @Test func aSettingInATableIsAnOrdinaryDescriptor() throws {
        let table = SettingsTable([
            SettingDescriptor(
                "interval", in: "demo", \.motion.interval, .seconds(1...60), flag: .show, valueName: "s", reload: .live,
                help: "A setting in a table."),
        ])
        #expect(table.keys == ["demo.interval"])
        #expect(table["demo.interval"]?.flagName == "demo-interval")
        var settings = KioskSettings()
        #expect(try table.set("demo", to: .table(["interval": .integer(3)]), in: &settings) == ["demo.interval"])
        #expect(settings.motion.interval == 3)
        try table.set("demo.interval", to: .string("4"), in: &settings)   // as the flag gives it
        #expect(settings.motion.interval == 4)
        let typo = expectError(SettingError.self) { try table.set("demo", to: .table(["intervall": .integer(3)]), in: &settings) }
        #expect(typo?.description.contains("invalid demo.intervall \"3\": unknown setting; did you mean demo.interval?") == true, "\(String(describing: typo))")
        let range = expectError(SettingError.self) { try table.set("demo", to: .table(["interval": .integer(90)]), in: &settings) }
        #expect(range?.description == "invalid demo.interval \"90\": expected seconds from 1.0 to 60, e.g. 8 or 0.45")
    }

    /// docs/configuration-reference.md is the table, written out: a new or
    /// changed setting without `make reference` fails here.
    @Test func theConfigurationReferenceIsTheTable() throws {
        let path = String(#filePath.split(separator: "/Tests/").first ?? "") + "/docs/configuration-reference.md"
        let generated = KioskSettings.table.reference
        if getenv("KIOSKD_WRITE_REFERENCE") != nil {
            let file = fopen(path, "w")
            #expect(file != nil, "cannot write \(path)")
            if let file { fputs(generated, file); fclose(file) }
        }
        guard let file = fopen(path, "r") else {
            Issue.record("\(path) is missing: run make reference")
            return
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        let written = String(decoding: bytes, as: UTF8.self)
        #expect(written == generated, "docs/configuration-reference.md differs from KioskSettings.table: run make reference")
        for key in KioskSettings.table.keys { #expect(written.contains("| `\(key)` |"), "\(key) is missing from the reference") }
    }
}
