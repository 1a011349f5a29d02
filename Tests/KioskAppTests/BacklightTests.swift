import Foundation
@testable import KioskApp
import KioskCore
import LinuxPlatform
import Testing

/// The backlight path (issue 36) on a sysfs tree the test makes: this
/// machine and the test VM have no backlight device (QEMU's displays have
/// none), so the kernel's own files are not seen here. The files behave as
/// sysfs's do for these reads and writes: one number, written whole.
@Suite struct BacklightTests {
    /// A `/sys/class/backlight` with `backlights` (name, type, max_brightness, brightness).
    private func sysfs(_ backlights: [(String, String, Int, Int)]) throws -> String {
        let folder = NSTemporaryDirectory() + "kioskd-backlight-\(UUID().uuidString)"
        for (name, type, maximum, now) in backlights {
            try FileManager.default.createDirectory(atPath: folder + "/" + name, withIntermediateDirectories: true)
            try "\(type)\n".write(toFile: folder + "/\(name)/type", atomically: false, encoding: .utf8)
            try "\(maximum)\n".write(toFile: folder + "/\(name)/max_brightness", atomically: false, encoding: .utf8)
            try "\(now)\n".write(toFile: folder + "/\(name)/brightness", atomically: false, encoding: .utf8)
        }
        return folder
    }

    private func written(_ folder: String, _ name: String) throws -> String {
        try String(contentsOfFile: folder + "/\(name)/brightness", encoding: .utf8)
    }

    @Test func firmwareBacklightsComeFirstAndLevelsAreScaledToTheirMaximum() throws {
        let folder = try sysfs([("acpi_video0", "firmware", 15, 15), ("10-0045", "raw", 255, 255), ("intel_backlight", "platform", 96000, 500)])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(Backlight.all(in: folder).map(\.name) == ["acpi_video0", "intel_backlight", "10-0045"])
        let raw = try #require(Backlight(named: "10-0045", in: folder))
        #expect(raw.maximum == 255 && raw.current == 255)
        try raw.set(percent: 40)
        #expect(try written(folder, "10-0045") == "102\n")
        #expect(raw.value(forPercent: 1) == 3 && Backlight(named: "acpi_video0", in: folder)?.value(forPercent: 1) == 1, "never dark above 0%")
        #expect(raw.value(forPercent: 0) == 0 && raw.value(forPercent: 100) == 255)
        #expect(Backlight(named: "missing", in: folder) == nil)
    }

    /// A built-in panel (DSI, eDP) uses the backlight, through its thread;
    /// HDMI never does; one not writable by this user dims in software and says why.
    @Test func aBuiltInPanelUsesItsBacklightAndHDMIDimsInSoftware() throws {
        let folder = try sysfs([("rpi_backlight", "raw", 255, 255)])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(Dimmer.choose(connector: "HDMI-A-1", folder: folder).dimmer.name == "software")
        #expect(Dimmer.choose(connector: nil, folder: folder).dimmer.name == "software", "headless")
        let chosen = Dimmer.choose(connector: "DSI-1", folder: folder)
        #expect(chosen.dimmer.name == "backlight:rpi_backlight" && chosen.note == nil)
        guard case .backlight(let writer) = chosen.dimmer else { return }
        defer { writer.stop() }
        writer.set(percent: 40)
        let deadline = Date().addingTimeInterval(5)
        while try written(folder, "rpi_backlight") != "102\n" && Date() < deadline { usleep(5000) }
        #expect(try written(folder, "rpi_backlight") == "102\n")
        let empty = try sysfs([])
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let none = Dimmer.choose(connector: "eDP-1", folder: empty)
        #expect(none.dimmer.name == "software" && none.note?.contains("eDP-1 has no backlight") == true)
    }
}
