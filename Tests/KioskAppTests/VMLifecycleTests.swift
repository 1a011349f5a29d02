import Foundation
import KioskCore
import KioskRendering
import Testing

/// The display's lifecycle on bochs in the VM (Tests/vm/guest-scenarios,
/// "lifecycle"): the connector forced off and back through sysfs with a
/// synthetic change uevent, `kioskctl display off` and `on`, and a TV on
/// vivid's emulated HDMI-CEC bus hearing about it.
@Suite(.enabled(if: vmResults != nil, "run Tests/vm/run-vm-tests and set KIOSKD_VM_RESULTS"))
struct VMLifecycleTests {
    var log: String { (try? String(contentsOfFile: results("bochs/lifecycle.log"), encoding: .utf8)) ?? "" }

    @Test func anUnpluggedScreenStopsTheDrawingAndDetectBringsTheShowBack() throws {
        #expect(log.contains("kioskd: display: Virtual-1 has no screen"), "\(log)")
        let off = try String(contentsOfFile: results("bochs/hotplug-off-status.json"), encoding: .utf8)
        #expect(off.contains("\"panel\":\"disconnected\""), "\(off)")
        #expect(log.contains("kioskd: display on (a screen is back: /dev/dri/card0 (bochs-drm) Virtual-1 1280x800"), "\(log)")
        // The picture it was on (1), drawn in full on the screen that came back.
        let screen = try readScreendump(results("bochs/hotplug-back.ppm"))
        expectSamePixels(screen, try snapshot(size: PixelSize(width: 1280, height: 800), position: 1))
        // How long from `detect` to status saying the panel is active, polled with a socat per poll: a rough figure (make bench times it properly).
        let milliseconds = try String(contentsOfFile: results("bochs/hotplug-recovery-ms"), encoding: .utf8)
        #expect(Int(milliseconds.trimmingCharacters(in: .whitespacesAndNewlines)).map { $0 > 0 } == true)
        #expect(try exitOf("bochs/lifecycle.exit").status == 0)
    }

    @Test func displayOffLeavesNoPictureAndOnGivesTheSnapshotBack() throws {
        let dark = try readScreendump(results("bochs/display-off.ppm"))
        #expect(dark.pixels.allSatisfy { $0 & 0xFF_FFFF == 0 }, "the CRTC is off: nothing is scanned out")
        let status = try String(contentsOfFile: results("bochs/display-off-status.json"), encoding: .utf8)
        #expect(status.contains("\"display_power\":\"off\",\"display_state\":\"off_by_command\",\"panel\":\"off\""), "\(status)")
        let on = try readScreendump(results("bochs/display-on.ppm"))
        expectSamePixels(on, try snapshot(size: PixelSize(width: 1280, height: 800), position: 1))
        #expect(log.contains("kioskd: display off (kioskctl display off)") && log.contains("kioskd: display on (kioskctl display on)"))
    }

    /// virtio-gpu with two outputs: Virtual-1 (the show's, 1280x800) goes
    /// and a screen comes on Virtual-2 in one change uevent; with
    /// `connector = "auto"` kioskd takes it, at its own mode, and the strip
    /// is laid out for that size on the picture it was showing.
    @Test func aScreenOnAnotherConnectorIsTakenAndTheStripLaidOutForIt() throws {
        let log = try String(contentsOfFile: results("virtio-gpu/other.log"), encoding: .utf8)
        let moved = try #require(log.split(separator: "\n").first { $0.contains("(the screen changed)") }, "\(log)")
        #expect(moved.contains("Virtual-2"), "\(moved)")
        let screen = try readScreendump(results("virtio-gpu/other-connector.ppm"))
        #expect(screen.size != PixelSize(width: 1280, height: 800), "another connector, another mode")
        #expect(moved.contains(" \(screen.size)@"), "the mode kioskd set is the head QEMU shows: \(moved)")
        expectSamePixels(screen, try snapshot(size: screen.size, position: 1))
        let status = try String(contentsOfFile: results("virtio-gpu/other-status.json"), encoding: .utf8)
        #expect(status.contains("\"connector\":\"Virtual-2\"") && status.contains("\"panel\":\"active\""), "\(status)")
        // Its pictures decoded again for the bigger slot and all drawn: the log says so a second time.
        #expect(log.components(separatedBy: "showing 8 picture(s), picture 1 in the centre").count - 1 == 1, "\(log)")
        #expect(try exitOf("virtio-gpu/other.exit").status == 0)
    }

    /// What vivid's TV side (`cec-ctl --monitor` on /dev/cec0) received from kioskd on /dev/cec1.
    @Test func theTVHearsStandbyAndImageViewOnOverCEC() throws {
        let bus = try String(contentsOfFile: results("bochs/cec-monitor.txt"), encoding: .utf8)
        let received = bus.split(separator: "\n").filter { $0.hasPrefix("Received from Playback Device 1") }
        // cec-ctl's own announcements (DEVICE_VENDOR_ID when it configured the player) are not kioskd's.
        let messages = received.map { line in line.split(separator: ":").dropFirst().first.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
            .filter { ["IMAGE_VIEW_ON", "ACTIVE_SOURCE", "STANDBY"].contains($0.split(separator: " ").first.map(String.init) ?? "") }
        // At the start (on), at display off, at display on.
        #expect(messages == [
            "IMAGE_VIEW_ON (0x04)", "ACTIVE_SOURCE (0x82)", "STANDBY (0x36)", "IMAGE_VIEW_ON (0x04)", "ACTIVE_SOURCE (0x82)",
        ], "\(bus)")
        #expect(received.filter { $0.contains("STANDBY") }.allSatisfy { $0.contains("(4 to 15)") }) // a broadcast
        #expect(bus.contains("phys-addr: 1.0.0.0"))
    }
}
