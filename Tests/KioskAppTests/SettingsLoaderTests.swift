import InputDevices
import Foundation
import KioskApp
import KioskConfigFile
import KioskCore
import TestSupport
import Testing

func configFile(_ text: String) throws -> String {
    let path = NSTemporaryDirectory() + "kioskd-config-" + UUID().uuidString + ".toml"
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

@Suite struct SettingsLoaderTests {
    @Test func theConfigFileSetsAndFlagsOverride() throws {
        let path = try configFile("""
            # a kiosk in the lobby
            images = "/srv/photos"
            image_width = "60%"
            spacing = 24
            background = "101010"
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let settings = try loadSettings(configPath: path, flags: [(name: "spacing", value: "3%")])
        #expect(settings.images == "/srv/photos")
        #expect(settings.layout.slotWidth == .percent(60))
        #expect(settings.layout.spacing == .percent(3))
        #expect(settings.layout.background == RGBColor(xrgb: 0x101010))
    }

    @Test func aTOMLSyntaxErrorNamesTheFileAndLine() throws {
        let path = try configFile("images = \"/srv\"\nspacing = = 3\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = expectError(ConfigFile.Error.self) { try loadSettings(configPath: path, flags: []) }
        #expect(error?.description.hasPrefix("\(path): line 2") == true)
    }

    @Test func aBadSettingInTheFileNamesIt() throws {
        let path = try configFile("image_width = \"wide\"\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = expectError(ConfigFile.Error.self) { try loadSettings(configPath: path, flags: []) }
        #expect(error?.description.contains("invalid image_width \"wide\"") == true)
    }

    @Test func anUnknownSettingIsRefused() throws {
        let path = try configFile("imagewidth = 3\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = expectError(ConfigFile.Error.self) { try loadSettings(configPath: path, flags: []) }
        #expect(error?.description.contains("imagewidth") == true)
        #expect(error?.description.contains("unknown setting") == true)
    }

    @Test func tablesAndListsOnlyWhereASettingTakesThem() throws {
        let table = try configFile("[images]\npath = \"/a\"\n")
        defer { try? FileManager.default.removeItem(atPath: table) }
        let error = expectError(ConfigFile.Error.self) { try loadSettings(configPath: table, flags: []) }
        #expect(error?.description.contains("invalid images \"{path = /a}\": expected the path of a folder") == true, "\(String(describing: error))")
        let list = try configFile("images = [\"/a\", \"/b\"]\n")
        defer { try? FileManager.default.removeItem(atPath: list) }
        let listError = expectError(ConfigFile.Error.self) { try loadSettings(configPath: list, flags: []) }
        #expect(listError?.description.contains("invalid images \"[/a, /b]\": expected the path of a folder") == true, "\(String(describing: listError))")
    }

    /// `[keys]` adds to the defaults by kernel key name; a name the kernel
    /// does not have, or an action kioskd does not know, is refused.
    @Test func theKeyMapTakesKernelKeyNames() throws {
        let path = try configFile("images = \"/srv/photos\"\n[keys]\nKEY_F5 = \"next\"\nKEY_RIGHT = \"prev\"\nBTN_LEFT = \"pause\"\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let settings = try loadSettings(configPath: path, flags: [])
        #expect(settings.input.keys == ["KEY_F5": .next, "KEY_RIGHT": .previous, "BTN_LEFT": .pauseOrResume])
        let keys = keyMap(for: settings.input)
        #expect(keys.command(code: 63, value: 1, paused: false) == .next)       // KEY_F5
        #expect(keys.command(code: 106, value: 1, paused: false) == .previous)  // KEY_RIGHT, turned round
        #expect(keys.command(code: 0x110, value: 1, paused: true) == .resume)   // BTN_LEFT
        #expect(keys.command(code: 105, value: 1, paused: false) == .previous)  // KEY_LEFT, a default kept

        let unknown = try configFile("[keys]\nKEY_FROBNICATE = \"next\"\n")
        defer { try? FileManager.default.removeItem(atPath: unknown) }
        let error = expectError(ConfigFile.Error.self) { try loadSettings(configPath: unknown, flags: []) }
        #expect(error?.description == "\(unknown): line 1: invalid keys \"KEY_FROBNICATE\": the kernel has no key named KEY_FROBNICATE; use the names evtest shows, e.g. KEY_F5")
        let action = try configFile("[keys]\nKEY_F5 = \"jump\"\n")
        defer { try? FileManager.default.removeItem(atPath: action) }
        let actionError = expectError(ConfigFile.Error.self) { try loadSettings(configPath: action, flags: []) }
        #expect(actionError?.description.contains("invalid keys \"KEY_F5 = jump\": expected a kernel key name") == true, "\(String(describing: actionError))")
    }

    /// `presence_keys`: kernel key and switch names, KEY_WAKEUP (a PIR on
    /// gpio-keys) and SW_FRONT_PROXIMITY by default; a name the kernel does
    /// not have is refused with its line; `none` turns sensors off.
    @Test func presenceKeysTakeKernelKeyAndSwitchNames() throws {
        let defaults = try loadSettings(configPath: nil, flags: [])
        #expect(presenceInputs(named: defaults.input.presenceKeys) == PresenceInputs(keys: [143], switches: [0x0b]))
        let path = try configFile("presence_keys = [\"KEY_F13\", \"SW_FRONT_PROXIMITY\", \"BTN_0\"]\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let settings = try loadSettings(configPath: path, flags: [])
        #expect(presenceInputs(named: settings.input.presenceKeys) == PresenceInputs(keys: [183, 0x100], switches: [0x0b]))
        let none = try configFile("presence_keys = \"none\"\n")
        defer { try? FileManager.default.removeItem(atPath: none) }
        #expect(try loadSettings(configPath: none, flags: []).input.presenceKeys.isEmpty)
        let unknown = try configFile("images = \"/srv\"\npresence_keys = [\"SW_PIR\"]\n")
        defer { try? FileManager.default.removeItem(atPath: unknown) }
        let error = expectError(ConfigFile.Error.self) { try loadSettings(configPath: unknown, flags: []) }
        #expect(error?.description == "\(unknown): line 2: invalid presence_keys \"SW_PIR\": the kernel has no key or switch named SW_PIR; use the names evtest shows, e.g. KEY_WAKEUP or SW_FRONT_PROXIMITY")
        let axis = try configFile("presence_keys = [\"ABS_X\"]\n")
        defer { try? FileManager.default.removeItem(atPath: axis) }
        let axisError = expectError(ConfigFile.Error.self) { try loadSettings(configPath: axis, flags: []) }
        #expect(axisError?.description.contains("a presence input is a key (KEY_... or BTN_...) or a switch (SW_...)") == true, "\(String(describing: axisError))")
    }

    @Test func inputDevicesAndCalibrationTakeTOMLLists() throws {
        let path = try configFile("""
            images = "/srv/photos"
            input = ["/dev/input/event3", "usb-eGalax_Inc._USB_TouchController-event-if00"]
            calibration = [0, -1, 1, 1, 0, 0]
            grab = true
            tap_zones = false
            resume_after = 45
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let settings = try loadSettings(configPath: path, flags: [])
        #expect(settings.input.devices == ["/dev/input/event3", "usb-eGalax_Inc._USB_TouchController-event-if00"])
        #expect(settings.input.devices.map { $0.map(InputSettings.path(of:)) }?.last == "/dev/input/by-id/usb-eGalax_Inc._USB_TouchController-event-if00")
        #expect(settings.input.calibration == [0, -1, 1, 1, 0, 0])
        #expect(settings.input.grab && !settings.input.tapZones && settings.motion.resumeAfter == 45)
    }

    @Test func aMissingConfigFileIsAClearError() {
        let error = expectError(ConfigFile.Error.self) { try loadSettings(configPath: "/nonexistent/kioskd.toml", flags: []) }
        #expect(error?.description == "/nonexistent/kioskd.toml: cannot read the config file: open failed: No such file or directory (errno 2)")
    }

    @Test func aBadFlagNamesTheSetting() {
        let error = expectError(SettingError.self) { try loadSettings(configPath: nil, flags: [(name: "background", value: "pink")]) }
        #expect(error?.setting == "background")
    }
}

/// Files an operator's typo or a broken copy can produce. Each once
/// aborted kioskd or could: TOMLKit's vendored toml++ asserted on an
/// unfinished table header, and under systemd the daemon would have
/// restarted in a loop. Each must be one line naming the file and where.
@Suite struct MalformedConfigTests {
    func failure(_ bytes: [UInt8]) throws -> String? {
        let path = NSTemporaryDirectory() + "kioskd-config-" + UUID().uuidString + ".toml"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = expectError(ConfigFile.Error.self) { try loadSettings(configPath: path, flags: []) }
        return error.map { String($0.description.dropFirst(path.count + 2)) }
    }

    @Test(arguments: [
        ("[\n", "line 1, column 2: Error while parsing key: expected bare key starting character or string delimiter, saw '\\n'"),
        ("[# x\n", "line 1, column 2: Error while parsing key: expected bare key starting character or string delimiter, saw '#'"),
        ("images = \"/a\"\n[[[a]]]\n", "line 2, column 3: Error while parsing key: expected bare key starting character or string delimiter, saw '['"),
        ("[", "line 1, column 2: Error while parsing table header: encountered end-of-file"),
        ("images = \"/a\"\n[keys\n", "line 2, column 6: Error while parsing table header: expected ']', saw '\\n'"),
    ])
    func anUnfinishedTableHeaderIsAnError(text: String, message: String) throws {
        #expect(try failure(Array(text.utf8)) == message)
    }

    @Test func aNulByteIsAnError() throws {
        #expect(try failure(Array("images = \"a".utf8) + [0] + Array("b\"\n".utf8))
                == "line 1, column 12: Error while parsing string: unescaped control characters other than TAB (U+0009) are explicitly prohibited")
        #expect(try failure([0, 0, 0])?.hasPrefix("line 1, column 1: ") == true)
    }

    @Test func invalidUTF8IsAnError() throws {
        #expect(try failure(Array("images = \"".utf8) + [0xFF, 0xFE] + Array("\"\n".utf8)) == "cannot read the config file: it is not UTF-8 text")
    }

    @Test func aValueOfAKindNoSettingTakesNamesItsLine() throws {
        #expect(try failure(Array("spacing = 3\ninterval = 1979-05-27\n".utf8))
                == "line 2: interval: expected a string, number, boolean, or a list or table of them")
        #expect(try failure(Array("input = [[\"a\"], [\"b\"]]\n".utf8))
                == "line 1: input: expected a string, number, boolean, or a list or table of them")
        #expect(try failure(Array("[keys]\nKEY_F5 = { a = 1 }\n".utf8))
                == "line 1: keys: expected a string, number, boolean, or a list or table of them")
    }

    @Test func aBadSettingNamesItsLine() throws {
        #expect(try failure(Array("# kiosk\nimages = \"/a\"\n\ninterval = -3\n".utf8))
                == "line 4: invalid interval \"-3\": expected seconds from 0.1 to 86400, e.g. 8 or 0.45")
    }
}

@Suite struct BundledConfigTests {
    /// The example config in config/ is what operators copy: it must load.
    @Test func theExampleConfigLoads() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../config/kioskd.toml").standardized.path
        let settings = try loadSettings(configPath: path, flags: [])
        #expect(settings.images == "/var/lib/kioskd/pictures")
        #expect(settings.layout == LayoutSettings())   // the example spells out the defaults
        #expect(settings.motion == MotionSettings())
        #expect(settings.display == DisplaySettings())
    }
}

@Suite struct CheckConfigTests {
    /// Every setting on a line, marked with its origin: the file's line, a
    /// flag, or the default; a setting without a writable default explained.
    @Test func theReportMarksWhereEachValueComesFrom() throws {
        let path = try configFile("# lobby\nimages = \"/srv/photos\"\n\ninterval = 12\n[keys]\nKEY_F5 = \"next\"\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let explained = try loadExplainedSettings(configPath: path, flags: [(name: "spacing", value: "3%")])
        let report = describeConfiguration(explained, file: path).split(separator: "\n").map(String.init)
        #expect(report.first == "# kioskd \(KioskVersion.current): the configuration from \(path); it is valid")
        #expect(report.count == KioskSettings.table.keys.count + 1)
        func line(_ setting: String) -> String? { report.first { $0.hasPrefix(setting + " = ") || $0.hasPrefix("# " + setting + ":") } }
        #expect(line("images")?.hasSuffix("# line 2") == true && line("images")?.hasPrefix("images = \"/srv/photos\" ") == true)
        #expect(line("interval")?.hasPrefix("interval = 12.0 ") == true && line("interval")?.hasSuffix("# line 4") == true)
        #expect(line("keys")?.hasPrefix("keys = { KEY_F5 = \"next\" } ") == true && line("keys")?.hasSuffix("# line 5") == true)
        #expect(line("spacing")?.hasPrefix("spacing = \"3%\" ") == true && line("spacing")?.hasSuffix("# flag") == true)
        #expect(line("transition")?.hasSuffix("# default") == true)
        #expect(line("slot_height")?.hasPrefix("# slot_height: the full height of the screen") == true)
    }

    /// The report is a config file: loaded again, it gives the same settings.
    @Test func theReportLoadsBackAsTheSameSettings() throws {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../config/kioskd.toml").standardized.path
        let original = try configFile("""
            images = "/srv/a \\"b\\""
            image_width = 1200
            slot_height = "80%"
            rotation = 90
            input = ["/dev/input/event3", "usb-Panel-event-if00"]
            calibration = "0 1 0 -1 0 1"
            socket_group = "kiosk"
            [keys]
            KEY_F5 = "next"
            """)
        defer { try? FileManager.default.removeItem(atPath: original) }
        let visible = try configFile("images = \"/srv/photos\"\nvisible = 1.4\n")
        defer { try? FileManager.default.removeItem(atPath: visible) }
        for path in [example, original, visible] {
            let settings = try loadSettings(configPath: path, flags: [])
            let report = try configFile(describeConfiguration(try loadExplainedSettings(configPath: path, flags: []), file: path))
            defer { try? FileManager.default.removeItem(atPath: report) }
            #expect(try loadSettings(configPath: report, flags: []) == settings, "\(path)")
        }
    }

    /// `visible` in the file and `--image-width` as a flag: one error naming both and where each was written.
    @Test func visibleAndImageWidthTogetherAreRefusedWithTheirPlaces() throws {
        let path = try configFile("images = \"/srv/photos\"\nvisible = 1.4\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = expectError(SettingError.self) { try loadSettings(configPath: path, flags: [(name: "image_width", value: "60%")]) }
        #expect(error?.description.contains("visible (\(path): line 2) and image_width (the --image-width flag) both set the slot's width") == true,
                "\(String(describing: error))")
        #expect(try loadSettings(configPath: path, flags: [(name: "visible", value: "2")]).layout.visible == 2)
    }

    @Test func theCommandExitsOneWithTheFirstMistake() throws {
        let good = try configFile("images = \"/srv/photos\"\n")
        let typo = try configFile("images = \"/srv/photos\"\n\nbackgrund = \"102030\"\n")
        defer { for path in [good, typo] { try? FileManager.default.removeItem(atPath: path) } }
        let ok = try kioskd(["check-config", good])
        #expect(ok.status == 0 && ok.stdout.contains("images = \"/srv/photos\" ") && ok.stderr.isEmpty, "\(ok)")
        let bad = try kioskd(["check-config", typo])
        #expect(bad.status == 1 && bad.stdout.isEmpty)
        #expect(bad.stderr.hasPrefix("kioskd: \(typo): line 3: invalid backgrund \"102030\": unknown setting; did you mean background? "), "\(bad.stderr)")
        let missing = try kioskd(["check-config", "/nonexistent/kioskd.toml"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "kioskd: /nonexistent/kioskd.toml: cannot read the config file: open failed: No such file or directory (errno 2)\n")
    }
}
