import ControlClient
import Foundation
@testable import KioskApp
import KioskCore
import TestSupport
import Testing

/// What `set` changes is kept in the state directory's overrides.toml
/// (``SettingOverrides``), over the config file: a restart keeps it,
/// `unset` takes it away, a reload reads an edit of the file, and a broken
/// file is passed over with one line, the show starting from the config.
@Suite struct OverridesDaemonTests {
    /// A config with a state directory, interval 600 and order name.
    func config(_ folder: PictureFolderFixture) throws -> String {
        try folder.write("kiosk.toml", Array("""
            images = "\(demoImages)"
            state_dir = "\(folder.path)/state"
            interval = 600
            order = "name"

            """.utf8))
    }

    func start(_ config: String) throws -> HeadlessDaemonTests.Daemon {
        let daemon = try HeadlessDaemonTests.Daemon(["--config", config])
        daemon.waitFor("control socket: ")
        return daemon
    }

    func status(_ daemon: HeadlessDaemonTests.Daemon) throws -> [String: Any] {
        try LiveFolderDaemonTests().status(try ControlConnection(path: daemon.socket))
    }

    @Test func aSetSettingOutlivesARestartUntilUnset() throws {
        let folder = try PictureFolderFixture()
        let config = try config(folder)
        let overrides = folder.path + "/state/" + SettingOverrides.fileName
        var daemon = try start(config)
        let set = try kioskctl(["--socket", daemon.socket, "--json", "set", "interval", "12"])
        #expect(set.stdout == #"{"ok":true,"changed":["interval"],"kept":true}"# + "\n", "\(set)")
        #expect(try status(daemon)["interval"] as? Double == 12)
        // Stopped at once: the write, off the run loop, is waited for on the way out.
        _ = daemon.stop()
        #expect((try? String(contentsOfFile: overrides, encoding: .utf8))?.contains("interval = \"12\"") == true)

        daemon = try start(config)
        #expect(try status(daemon)["interval"] as? Double == 12, "kept over the config file's 600 across the restart")
        let explained = try kioskd(["check-config", config])
        #expect(explained.stdout.contains("# overrides.toml line 4"), "\(explained.stdout)")

        let unset = try kioskctl(["--socket", daemon.socket, "unset", "interval"])
        #expect(unset.status == 0 && unset.stdout == "unset: interval\n", "\(unset)")
        #expect(try status(daemon)["interval"] as? Double == 600, "the config file's again")
        let again = try kioskctl(["--socket", daemon.socket, "unset", "interval"])
        #expect(again.status == 1 && again.stderr.contains("interval is not set over the config file"), "\(again)")
        #expect(eventually(within: 30) { (try? String(contentsOfFile: overrides, encoding: .utf8))?.contains("interval") == false })
        _ = daemon.stop()
        daemon = try start(config)
        #expect(try status(daemon)["interval"] as? Double == 600, "unset survives the restart too")
        _ = daemon.stop()
    }

    @Test func aReloadReadsAnEditOfTheFileAndABrokenFileIsPassedOver() throws {
        let folder = try PictureFolderFixture()
        let config = try config(folder)
        try FileManager.default.createDirectory(atPath: folder.path + "/state", withIntermediateDirectories: true)
        let overrides = folder.path + "/state/" + SettingOverrides.fileName
        // Broken: the show starts from the config, and says why once.
        try Data("interval = = 5\n".utf8).write(to: URL(fileURLWithPath: overrides))
        var daemon = try start(config)
        #expect(try status(daemon)["interval"] as? Double == 600)
        daemon.waitFor("the settings set before are passed over: \(overrides): ")
        _ = daemon.stop()

        // Valid alone, wrong with the config: a server's address with no API key. Passed over too.
        try Data("interval = 30\nimmich.url = \"http://127.0.0.1:9/\"\n".utf8).write(to: URL(fileURLWithPath: overrides))
        daemon = try start(config)
        #expect(try status(daemon)["interval"] as? Double == 600)
        daemon.waitFor("the settings set before are passed over: \(overrides): invalid immich")
        _ = daemon.stop()

        // Not its own: state_dir is where the file lives.
        try Data("state_dir = \"/elsewhere\"\n".utf8).write(to: URL(fileURLWithPath: overrides))
        daemon = try start(config)
        daemon.waitFor("state_dir is where the overrides are kept")
        // An edit by hand, read at the reload.
        try Data("order = \"shuffle\"\ninterval = 30\n".utf8).write(to: URL(fileURLWithPath: overrides))
        let reload = try kioskctl(["--socket", daemon.socket, "--json", "reload"])
        #expect(reload.stdout.contains(#""changed":["interval","order"]"#), "\(reload)")
        let shown = try status(daemon)
        #expect(shown["order"] as? String == "shuffle" && shown["interval"] as? Double == 30)
        _ = daemon.stop()
    }

    /// Without a state directory a setting lasts until kioskd restarts, and the reply says so.
    @Test func withoutAStateDirectoryASettingIsNotKept() throws {
        let daemon = try HeadlessDaemonTests.Daemon(["--interval", "600"])
        daemon.waitFor("control socket: ")
        defer { _ = daemon.stop() }
        let set = try kioskctl(["--socket", daemon.socket, "set", "interval", "12"])
        #expect(set.status == 0 && set.stdout == "set: interval (until kioskd restarts: it has no state directory)\n", "\(set)")
    }
}
