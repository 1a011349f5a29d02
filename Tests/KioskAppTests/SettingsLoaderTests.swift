import Foundation
import KioskApp
import KioskConfigFile
import KioskCore
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
        let error = #expect(throws: ConfigFile.Error.self) { try loadSettings(configPath: path, flags: []) }
        #expect(error?.description.hasPrefix("\(path): line 2") == true)
    }

    @Test func aBadSettingInTheFileNamesIt() throws {
        let path = try configFile("image_width = \"wide\"\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: ConfigFile.Error.self) { try loadSettings(configPath: path, flags: []) }
        #expect(error?.description.contains("invalid image_width \"wide\"") == true)
    }

    @Test func anUnknownSettingIsRefused() throws {
        let path = try configFile("imagewidth = 3\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: ConfigFile.Error.self) { try loadSettings(configPath: path, flags: []) }
        #expect(error?.description.contains("imagewidth") == true)
        #expect(error?.description.contains("unknown setting") == true)
    }

    @Test func tablesAreRefusedAndListsOnlyWhereASettingTakesOne() throws {
        let table = try configFile("[images]\npath = \"/a\"\n")
        defer { try? FileManager.default.removeItem(atPath: table) }
        let error = #expect(throws: ConfigFile.Error.self) { try loadSettings(configPath: table, flags: []) }
        #expect(error?.description.contains("images: expected a string, number, boolean or a list of them") == true)
        let list = try configFile("images = [\"/a\", \"/b\"]\n")
        defer { try? FileManager.default.removeItem(atPath: list) }
        let listError = #expect(throws: ConfigFile.Error.self) { try loadSettings(configPath: list, flags: []) }
        #expect(listError?.description.contains("invalid images \"[/a, /b]\": expected the path of a folder") == true, "\(String(describing: listError))")
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
        let error = #expect(throws: ConfigFile.Error.self) { try loadSettings(configPath: "/nonexistent/kioskd.toml", flags: []) }
        #expect(error?.description == "/nonexistent/kioskd.toml: cannot read the config file: open failed: No such file or directory (errno 2)")
    }

    @Test func aBadFlagNamesTheSetting() {
        let error = #expect(throws: SettingError.self) { try loadSettings(configPath: nil, flags: [(name: "background", value: "pink")]) }
        #expect(error?.setting == "background")
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
