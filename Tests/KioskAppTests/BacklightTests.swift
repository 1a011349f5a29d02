import Foundation
@testable import KioskApp
import KioskCore
import LinuxPlatform
import TestSupport
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
        _ = try eventually(every: 0.005) { try written(folder, "rpi_backlight") == "102\n" }
        #expect(try written(folder, "rpi_backlight") == "102\n")
        #expect(writer.takeFailure() == nil)
        // A backlight gone (its driver unbound): the write's failure is kept for the loop's log, once.
        try FileManager.default.removeItem(atPath: folder)
        writer.set(percent: 50)
        var failure: String?
        _ = eventually(every: 0.005) {
            failure = writer.takeFailure()
            return failure != nil
        }
        #expect(failure?.contains("rpi_backlight") == true, "\(String(describing: failure))")
        #expect(writer.takeFailure() == nil)
        let empty = try sysfs([])
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let none = Dimmer.choose(connector: "eDP-1", folder: empty)
        #expect(none.dimmer.name == "software" && none.note?.contains("eDP-1 has no backlight") == true)
    }
}

/// The ambient light sensor (issue 36) on an IIO sysfs tree the test makes
/// (no IIO light sensor here or in the VM): lux read as the kernel gives
/// it, read only while the display is on, and dimming the display no
/// brighter than `brightness`.
@Suite struct LightSensorTests {
    private func iio(_ files: [String: String]) throws -> String {
        let folder = NSTemporaryDirectory() + "kioskd-iio-\(UUID().uuidString)"
        for (file, text) in files {
            let path = folder + "/" + file
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try (text + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        }
        return folder
    }

    @Test func luxIsReadAsInputOrAsRawTimesScale() throws {
        let folder = try iio([
            "iio:device0/name": "bmp280", "iio:device0/in_temp_input": "21000",
            "iio:device1/name": "tsl2591", "iio:device1/in_illuminance_input": "123.5",
            "iio:device2/name": "bh1750", "iio:device2/in_illuminance_raw": "200", "iio:device2/in_illuminance_scale": "0.833333",
        ])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(LightSensor.all(in: folder).map(\.name) == ["iio:device1", "iio:device2"], "a thermometer is no light sensor")
        #expect(LightSensor(named: "iio:device1", in: folder)?.lux() == 123.5)
        let raw = try #require(LightSensor(named: "iio:device2", in: folder))
        #expect(raw.model == "bh1750" && abs((raw.lux() ?? 0) - 166.6666) < 0.001)
        guard case .success(let auto) = AmbientLightSource.sensor(for: "auto", folder: folder) else { Issue.record("auto found none"); return }
        #expect(auto.name == "iio:device1")
        guard case .failure(let error) = AmbientLightSource.sensor(for: "iio:device0", folder: folder) else { Issue.record("a thermometer was taken"); return }
        #expect(error.description.contains("is no IIO device that measures illuminance"))
    }

    @Test func theSensorIsReadOnlyWhileSamplingAndDimsNoBrighterThanBrightness() throws {
        let folder = try iio(["iio:device0/in_illuminance_input": "20"])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let reader = try LightReader(try #require(LightSensor(named: "iio:device0", in: folder)), period: 0.05)
        defer { reader.stop() }
        usleep(200_000)   // four periods: a reader that sampled anyway would have read
        #expect(reader.takeReadings().isEmpty, "not sampling (the display off): no reading")
        reader.sampling = true
        var readings: [Double] = []
        _ = eventually {
            readings += reader.takeReadings()
            return readings.count >= 2
        }
        #expect(readings.count >= 2 && readings.allSatisfy { $0 == 20 }, "\(readings)")
        reader.sampling = false
        _ = reader.takeReadings()
        usleep(300_000)   // six periods
        // A reading already under way when sampling stopped may still come (a
        // busy machine can hold it up); no more than that one.
        let after = reader.takeReadings()
        #expect(after.count <= 1, "stopped with the display: \(after)")

        // 20 lux on the standard curve is 22%; brightness 15 is dimmer and wins; 60 is brighter and does not.
        let pictures = try fourColours()
        let run = try SimulatedShow(showSettings(pictures, interval: 3600))
        let keeper = PowerKeeper(
            schedule: nil, brightness: Brightness(percent: 60), controller: run.controller, tv: nil, log: { _ in },
            wallClock: { 1_795_680_000 }, utcOffset: { _ in 0 })
        keeper.check()
        #expect(keeper.brightness == 60 && keeper.lux == nil)
        keeper.ambientLight(lux: 20, curve: .standard)
        #expect(keeper.brightness == 22 && keeper.lux == 20 && run.show.softwareBrightness == 22)
        #expect(run.readings.contains(.lightMeasured(lux: 20)))
        keeper.use({ var power = PowerSettings(); power.brightness = Brightness(percent: 15); return power }())
        #expect(keeper.brightness == 15 && run.show.softwareBrightness == 15)
        withExtendedLifetime(pictures) {}
    }
}
