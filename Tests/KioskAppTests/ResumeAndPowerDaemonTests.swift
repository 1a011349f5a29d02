import Foundation
import KioskCore
import Testing

/// The real daemon (headless): it resumes where it stopped, and
/// `kioskctl display` switches its panel, through the real socket.
@Suite struct ResumeAndPowerDaemonTests {
    typealias Daemon = HeadlessDaemonTests.Daemon

    func stateFolder() throws -> String {
        let folder = NSTemporaryDirectory() + "kioskd-state-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func aRestartResumesOnTheCentredPicture() throws {
        let state = try stateFolder()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let first = try Daemon(["--interval", "600", "--transition", "0.2", "--state-dir", state])
        first.waitFor("picture(s), picture 0 in the centre")
        #expect(try kioskctl(["--socket", first.socket, "goto", "5"]).status == 0)
        first.waitFor("picture 5 in the centre")
        _ = first.stop()
        // Written by the rename, whole: the picture's path and a line end.
        #expect(try String(contentsOfFile: state + "/centred-picture", encoding: .utf8) == demoImages + "/06.jpg\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: state) == ["centred-picture"], "nothing half written beside it")

        let second = try Daemon(["--interval", "600", "--state-dir", state])
        second.waitFor("picture(s), picture 5 in the centre")
        let lines = second.stop()
        #expect(lines.contains("kioskd: resuming on picture 5: 06.jpg"), "\(second.log)")
        // --index still wins.
        let third = try Daemon(["--interval", "600", "--state-dir", state, "--index", "2"])
        third.waitFor("picture(s), picture 2 in the centre")
        _ = third.stop()
    }

    @Test func aPictureThatIsGoneStartsTheShowAtTheFirst() throws {
        let state = try stateFolder()
        defer { try? FileManager.default.removeItem(atPath: state) }
        try (demoImages + "/gone.jpg\n").write(toFile: state + "/centred-picture", atomically: true, encoding: .utf8)
        let daemon = try Daemon(["--interval", "600", "--state-dir", state])
        daemon.waitFor("picture(s), picture 0 in the centre")
        let lines = daemon.stop()
        #expect(lines.contains("kioskd: resume: \(demoImages)/gone.jpg is no longer in the playlist: starting at the first picture"), "\(daemon.log)")
    }

    @Test func aStateFolderThatCannotBeWrittenIsSaidOnceAndTheShowGoesOn() throws {
        let daemon = try Daemon(["--interval", "0.3", "--transition", "0.1", "--state-dir", "/proc/kioskd-no-such-folder"])
        daemon.waitFor("picture 3 in the centre")
        let lines = daemon.stop()
        #expect(lines.filter { $0.contains("cannot keep the centred picture in /proc/kioskd-no-such-folder") }.count == 1, "\(daemon.log)")
    }

    @Test func kioskctlDisplayOffAndOn() throws {
        let daemon = try Daemon(["--interval", "600"])
        daemon.waitFor("picture(s), picture 0 in the centre")
        let off = try kioskctl(["--socket", daemon.socket, "display", "off"])
        #expect(off.status == 0 && off.stdout == "display off (asked: off)\n", "\(off)")
        let status = try kioskctl(["--socket", daemon.socket, "--json", "status"])
        #expect(status.stdout.contains("\"display_power\":\"off\",\"display_state\":\"off_by_command\",\"panel\":\"off\""), "\(status.stdout)")
        // Dark: no frame to take.
        #expect(try kioskctl(["--socket", daemon.socket, "screenshot", NSTemporaryDirectory() + "off.png"]).status == 1)
        let on = try kioskctl(["--socket", daemon.socket, "display", "on"])
        #expect(on.status == 0 && on.stdout == "display active (asked: on)\n", "\(on)")
        let bad = try kioskctl(["--socket", daemon.socket, "display", "dim"])
        #expect(bad.status == 64, "\(bad)")
        let level = try kioskctl(["--socket", daemon.socket, "display", "on", "40"])
        #expect(level.status == 0, "\(level)")
        let dimmed = try kioskctl(["--socket", daemon.socket, "--json", "status"])
        #expect(dimmed.stdout.contains("\"brightness\":40"), "\(dimmed.stdout)")
        #expect(try kioskctl(["--socket", daemon.socket, "display", "off", "40"]).status == 64, "only on takes a level")
        let lines = daemon.stop()
        #expect(lines.contains("kioskd: display off (kioskctl display off): no drawing, decoding or slides until it is on"), "\(daemon.log)")
        #expect(lines.contains("kioskd: display on (kioskctl display on)"), "\(daemon.log)")
    }

    @Test func aBadScheduleIsRefusedWithTheToken() throws {
        let result = try kioskd(["--display", "headless", "--images", demoImages, "--display-schedule", "mon-fri 07:00-19:00; sat,sn 09:00-23:00"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("invalid display_schedule \"mon-fri 07:00-19:00; sat,sn 09:00-23:00\": at \"sn\": unknown day; did you mean sun?"), "\(result.stderr)")
    }
}
