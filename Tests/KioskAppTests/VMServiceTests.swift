import Foundation
import ImageCodecs
@testable import KioskApp
import KioskCore
import KioskRendering
import Testing

/// kioskd as an operator deploys it, proven under the real systemd of
/// Debian 12 booted in the VM (Tests/vm/guest-service): the Debian package
/// installed, `systemctl enable --now seatd kioskd`, then a crash, a hang,
/// a VT switch there and back, the control socket from two users, and a
/// stop. Every screendump is compared pixel for pixel.
@Suite(.enabled(if: vmResults != nil, "run Tests/vm/run-vm-tests and set KIOSKD_VM_RESULTS"))
struct VMServiceTests {
    private func text(_ file: String) throws -> String {
        try String(contentsOfFile: results("systemd/" + file), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func screen(_ name: String) throws -> RasterImage { try readScreendump(results("systemd/\(name).ppm")) }

    /// What `kioskd snapshot` draws with the installed config (the demo
    /// pictures are what the package puts in the empty pictures folder).
    private func installedSnapshot(size: PixelSize, position: Double = 0) throws -> RasterImage {
        let configFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../config/kioskd.toml").standardized.path
        let settings = try loadSettings(configPath: configFile, flags: [("images", demoImages)])
        return try SnapshotJob(settings: settings, screen: size, position: position).run().frame
    }

    /// The installed config on the demo pictures and the phone's HEIC the
    /// service test copies in: what the service's folder holds by then
    /// (the folder is returned to keep it while its pictures are read).
    private func folderWithThePhonesHEIC() throws -> (PictureFolder, KioskSettings) {
        let heic = try Data(contentsOf: URL(fileURLWithPath: results("systemd/phone.heic")))
        let demo = try FileManager.default.contentsOfDirectory(atPath: demoImages).filter { $0.hasSuffix(".jpg") }
        let folder = try PictureFolder([("00-phone.heic", [UInt8](heic))] + demo.map { ($0, [UInt8](try Data(contentsOf: URL(fileURLWithPath: demoImages + "/" + $0)))) })
        let configFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../config/kioskd.toml").standardized.path
        return (folder, try loadSettings(configPath: configFile, flags: [("images", folder.path)]))
    }

    @Test func thePackageInstallsTheUserAndFolderAndStartsNothing() throws {
        let depends = try text("depends.txt")
        for package in ["seatd", "libseat1", "libdrm2", "libturbojpeg0", "libsystemd0", "libevdev2", "libspng0", "libwebp7", "libheif1", "libavif15", "libyuv0",
                        "libraqm0", "libfontconfig1", "libfreetype6", "libexempi8", "libiptcdata0", "fonts-dejavu-core"] {
            #expect(depends.contains(package), "Depends lacks \(package): \(depends)")
        }
        #expect(try text("after-install.txt") == "disabled inactive")
        let id = try text("id.txt")
        #expect(id.contains("(kioskd)") && id.contains("(video)"), "\(id)")
        #expect(try text("pictures-folder.txt") == "kioskd:kioskd 2775")
        #expect(try text("pictures.txt").split(separator: "\n").count == 8, "the demo pictures, on first install")
    }

    /// `kioskctl set` under the hardened unit: kept in its StateDirectory,
    /// as its own user and only its (UMask=0077); `unset` takes it out.
    @Test func whatIsSetIsKeptInTheStateDirectoryAndUnsetTakesItOut() throws {
        #expect(try text("overrides-set.txt") == "kioskd:kioskd 600\ntransition = \"4\"")
        #expect(try text("overrides-unset.txt") == "unset: transition\n0")
    }

    @Test func theServiceRunsAsKioskdAndShowsExactlyTheSnapshot() throws {
        #expect(try text("user.txt") == "kioskd")
        let shown = try screen("service")
        #expect(shown.size == PixelSize(width: 1280, height: 800))
        expectSamePixels(shown, try installedSnapshot(size: shown.size))
        #expect(try text("status.txt") == "showing 01.jpg (8 pictures)")
    }

    /// SIGKILL (a crash) and SIGSTOP (a hang the watchdog catches) each
    /// bring it back by itself, the screen again exactly the snapshot.
    @Test func aCrashAndAHangAreRestartedBySystemd() throws {
        let expected = try installedSnapshot(size: PixelSize(width: 1280, height: 800))
        expectSamePixels(try screen("after-kill"), expected)
        expectSamePixels(try screen("after-hang"), expected)
        #expect(try text("restarts.txt") == "2")
        let journal = try text("journal.txt")
        #expect(journal.contains("kioskd.service: Watchdog timeout (limit 8s)!"))
        #expect(!journal.contains("Backtracing"), "a hung kioskd must end at once, not run the crash backtracer")
        let hang = try #require(Int(try text("hang-restart-ms.txt")))
        // The watchdog's 8 s, then a start (slow for an emulated guest on a busy
        // host); a hang never caught would leave it inactive (wait_active's 120 s).
        #expect(hang < 90_000, "from SIGSTOP to active again: \(hang) ms")
    }

    /// `chvt 2` hands the screen to the text console (exactly as it was
    /// before kioskd started); `chvt 1` brings the show back; a stop leaves
    /// the first console as it was.
    @Test func aVTSwitchAndAStopGiveTheConsoleBack() throws {
        expectSamePixels(try screen("vt2"), try screen("console-2"))
        expectSamePixels(try screen("vt1"), try installedSnapshot(size: PixelSize(width: 1280, height: 800)))
        expectSamePixels(try screen("stopped"), try screen("console-1"))
        // Away in the middle of a 4 s slide, panned: back, the show went on and rests on the next picture.
        expectSamePixels(try screen("vt-mid-slide"), try installedSnapshot(size: PixelSize(width: 1280, height: 800), position: 1))
        #expect(try text("vt-mid-slide-status.json").contains("\"panning\":true"))
        // The two consoles differ (each names itself), so the comparisons above can fail.
        #expect(try screen("console-1").pixels != (screen("console-2")).pixels)
        // kioskd heard the seat go and come back, and opened its keyboard again through it.
        let log = try text("journal-last.txt")
        #expect(log.contains("kioskd: seat: given to another session; the show goes on unseen"))
        #expect(log.contains("kioskd: seat: back; drawing again"))
        // At the start, after each of the three VT switches, and once more when
        // the screen came back (devices are taken again for a new screen's size).
        #expect(log.components(separatedBy: "(AT Translated Set 2 keyboard): keys").count - 1 == 5, "\(log)")
        #expect(!log.contains("libseat_open_device failed"), "\(log)")
    }

    /// The screen unplugged while another VT has the display: the seat's
    /// return probes the connectors, so kioskd knows it has no screen
    /// (rather than setting a mode on a dead connector); plugged back, the show.
    @Test func aScreenUnpluggedWhileAwayIsNoticedWhenTheSeatComesBack() throws {
        let away = try text("away-unplugged-status.json")
        #expect(away.contains("\"panel\":\"disconnected\""), "\(away)")
        let back = try text("away-back-status.json")
        #expect(back.contains("\"panel\":\"active\""), "\(back)")
        expectSamePixels(try screen("away-back"), try installedSnapshot(size: PixelSize(width: 1280, height: 800)))
        let log = try text("journal-last.txt")
        #expect(log.contains("kioskd: display: Virtual-1 has no screen"), "\(log)")
        #expect(log.contains("kioskd: display on (a screen is back: /dev/dri/card0 (bochs-drm) Virtual-1 1280x800"), "\(log)")
    }

    /// A phone's HEIC copied into the running service's folder: the live
    /// folder takes it, and the real screen shows it exactly as `kioskd
    /// snapshot` draws the same folder (the demo pictures and the HEIC).
    @Test func aHEICCopiedInIsOnTheScreenAsTheSnapshotDrawsIt() throws {
        let status = try text("heic-status.json")
        #expect(status.contains(#""index":0,"file":"00-phone.heic""#) && status.contains(#""count":9"#), "\(status)")
        let (folder, settings) = try folderWithThePhonesHEIC()
        defer { withExtendedLifetime(folder) {} }
        let shown = try screen("heic")
        let snapshot = try SnapshotJob(settings: settings, screen: shown.size, position: 0).run()
        #expect(snapshot.playlist.first.map { ($0 as NSString).lastPathComponent } == "00-phone.heic")
        expectSamePixels(shown, snapshot.frame)
    }

    /// The web page as an operator turns it on (the README's lines) under
    /// the real systemd: its own unit, as the user kioskd-web in group
    /// kioskd; a phone's photo uploaded into the kiosk's folder (kept as
    /// kioskd-web's, group kioskd, for the folder's setgid), shown by the
    /// service, its thumbnail made by kioskd, the live screen, a setting kept
    /// in kioskd's overrides, deleted again; kioskd restarted under it, and
    /// kioskd-web itself crashed and restarted by systemd.
    @Test func theWebPageRunsAsItsOwnServiceAndDrivesTheKiosk() throws {
        #expect(try text("web-after-install.txt") == "disabled inactive", "installed, not started")
        #expect(try text("web-user.txt").split(separator: " ", omittingEmptySubsequences: true) == ["kioskd-web", "kioskd"])
        #expect(try text("web-no-session.txt") == "401")
        #expect(try text("web-login.txt") == "303 http://127.0.0.1:8080/")
        let upload = try text("web-upload.json")
        #expect(upload.contains(#""ok":true"#) && upload.contains(#""added":["IMG_4242.HEIC"]"#), "\(upload)")
        #expect(try text("web-upload-file.txt") == "kioskd-web:kioskd 664")
        #expect(try text("web-upload-status.json").contains(#""count":10"#), "the service's show takes the upload")
        let listed = try JSONSerialization.jsonObject(with: Data(try text("web-pictures.json").utf8)) as? [String: Any]
        let uploaded = (listed?["pictures"] as? [[String: Any]])?.first { $0["name"] as? String == "IMG_4242.HEIC" }
        #expect(uploaded?["kind"] as? String == "folder" && uploaded?["deletable"] as? Bool == true, "\(String(describing: listed))")

        #expect(try text("web-thumbnail.txt") == "200 image/jpeg")
        let loader = PictureLoader(background: .black)
        let heic = results("systemd/phone.heic")
        let expected = try loader.load(heic, fittedTo: PictureListing.thumbnailSize)
        let thumbnail = try loader.load(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: results("systemd/web-thumbnail.jpg")))),
                                        path: "web-thumbnail.jpg", fittedTo: expected.size)
        #expect(thumbnail.size == expected.size)
        var difference = 0
        for (a, b) in zip(thumbnail.pixels, expected.pixels) {
            for shift in [0, 8, 16] as [UInt32] { difference += abs(Int(a >> shift & 0xFF) - Int(b >> shift & 0xFF)) }
        }
        #expect(Double(difference) / Double(3 * expected.pixels.count) < 4, "the service's thumbnail is the phone's photo, small")
        #expect(try text("web-screen.txt") == "200 image/jpeg")
        let screen = try JPEGCodec.header(of: [UInt8](try Data(contentsOf: URL(fileURLWithPath: results("systemd/web-screen.jpg")))),
                                          path: "web-screen.jpg", options: DecodeOptions(background: .black))
        #expect(screen.storedSize == PixelSize(width: 640, height: 400), "the 1280x800 screen, as MQTT's picture")

        #expect(try text("web-set.json").contains(#""ok":true"#))
        #expect(try text("web-overrides.txt") == #"interval = "500""#, "kept in kioskd's overrides, by kioskd")
        #expect(try text("web-unset.json").contains(#""ok":true"#))
        #expect(try text("web-delete.json") == #"{"ok":true,"deleted":["IMG_4242.HEIC"]}"#)
        #expect(!(try text("web-after-delete.txt")).contains("IMG_4242.HEIC"))
        #expect(try text("web-after-kioskd-restart.txt") == "9", "the page reaches the restarted kioskd")
        #expect(try text("web-after-crash.txt") == "401", "restarted by systemd; sessions lived in its memory")
        #expect(try text("web-restarts.txt") == "1")
        let journal = try text("web-journal.txt")
        for line in ["serving the page on http://127.0.0.1:8080", "logged in from 127.0.0.1", "deleted IMG_4242.HEIC from the picture folder"] {
            #expect(journal.contains(line), "\(journal)")
        }
        #expect(!journal.contains("vm web password"))
    }

    /// Home Assistant's broker, a real mosquitto in the guest with a
    /// password: the default unit lets no IP through (a clear line, the
    /// show goes on); the shipped drop-in lets it through, the password a
    /// systemd credential; a command moves the real screen; killed, the
    /// broker says offline and systemd brings it back online.
    @Test func theMQTTDropInLetsTheBrokerThroughAndTheDefaultUnitDoesNot() throws {
        let denied = try text("mqtt-denied.txt")
        #expect(denied.contains("kioskd: mqtt: cannot join mqtt://127.0.0.1:1883"), "\(denied)")
        #expect(!denied.contains("mqtt: online"), "\(denied)")
        #expect(try text("mqtt-denied-status.txt").contains("of 9"), "the show went on")
        let availability = try text("mqtt-availability.txt").split(separator: "\n").map(String.init)
        // Online; the will after kill -9; online again once systemd restarted it; offline, said by kioskd, at the stop.
        #expect(availability == [
            "kioskd/vmkiosk/availability online", "kioskd/vmkiosk/availability offline", "kioskd/vmkiosk/availability online",
            "kioskd/vmkiosk/availability offline",
        ], "\(availability)")
        #expect(denied.contains("Address family not supported by protocol"), "the unit's RestrictAddressFamilies: \(denied)")
        let offline = try #require(Int(try text("mqtt-offline-ms.txt")))
        #expect(offline < 15_000, "offline \(offline) ms after kill -9 (1.5 keepalives of 10 s at most)")
        #expect(try text("mqtt-discovery.txt").split(separator: "\n").count == 9)
        #expect(try text("mqtt-password-in-log.txt") == "0", "the password is in no log line")

        let reply = try #require(try JSONSerialization.jsonObject(with: Data(try text("mqtt-reply.json").utf8)) as? [String: Any])
        let index = try #require(reply["index"] as? Int, "\(reply)")
        let state = try #require(try JSONSerialization.jsonObject(with: Data(try text("mqtt-state.json").utf8)) as? [String: Any])
        #expect(state["index"] as? Int == index && state["count"] as? Int == 9, "\(state)")
        let (folder, settings) = try folderWithThePhonesHEIC()
        defer { withExtendedLifetime(folder) {} }
        let shown = try screen("mqtt-next")
        expectSamePixels(shown, try SnapshotJob(settings: settings, screen: shown.size, position: Double(index)).run().frame)
    }

    /// The wall clock stepped an hour on under the service in a group
    /// (beats every 600 s): noticed, and one slide to the group's picture
    /// six beats on, not six slides.
    @Test func aSteppedWallClockMovesTheGroupOnceNotInABurst() throws {
        let before = try #require(try JSONSerialization.jsonObject(with: Data(try text("step-before.json").utf8)) as? [String: Any])
        let after = try #require(try JSONSerialization.jsonObject(with: Data(try text("step-after.json").utf8)) as? [String: Any])
        let (index, slides) = (try #require(before["index"] as? Int), try #require(before["slides"] as? Int))
        #expect(after["index"] as? Int == (index + 6) % 9, "before \(before), after \(after)")
        #expect(after["slides"] as? Int == slides + 1, "one slide: before \(before), after \(after)")
        #expect(try text("step-log.txt").contains("kioskd: group vm: the wall clock was set; the beat is worked out again from the new time"))
    }

    @Test func theControlSocketIsForGroupKioskdOnly() throws {
        #expect(try text("alice.exit") == "0")
        #expect(try text("alice.txt").hasPrefix("picture   0 of 8: 01.jpg"))
        #expect(try text("bob.exit") != "0")
        #expect(try text("bob.txt").contains("only root and members of the group \"kioskd\""))
    }

    /// kioskd's lines reach the journal with their priorities: at warning
    /// and above only problems (here systemd's own, about the kill and the
    /// hang, and kioskd's about the unplugged screen), its ordinary lines at notice.
    @Test func theJournalSortsKioskdsLinesByPriority() throws {
        let all = try text("journal.txt"), warnings = try text("journal-warning.txt")
        #expect(all.contains("kioskd: showing on /dev/dri/card0 (bochs-drm) Virtual-1 1280x800@75, rotation 0; seat0 through the seat manager"))
        #expect(all.contains("kioskd: control socket: the socket systemd passed"))
        // The MQTT test's broker, denied by the default unit, is the other warning (theMQTTDropIn...).
        let kioskdWarnings = warnings.split(separator: "\n").filter { $0.hasPrefix("kioskd: ") && !$0.hasPrefix("kioskd: mqtt: cannot join mqtt://127.0.0.1:1883") }
        #expect(kioskdWarnings.count == 1 && kioskdWarnings.allSatisfy { $0.hasPrefix("kioskd: display: Virtual-1 has no screen") },
                "ordinary lines at warning: \(warnings)")
        #expect(!all.contains("<5>"), "priority prefixes left in the text")
    }
}
