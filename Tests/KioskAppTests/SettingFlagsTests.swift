import ControlClient
import Foundation
import KioskCore
import TestSupport
import Testing

/// kioskd's command-line flags are the settings table's: each descriptor's
/// flag is taken by the commands its ``FlagScope`` names, with the
/// table's help, value name and default, and no other flag claims a
/// setting's help. Read from the built kioskd's own description of its
/// arguments (`--experimental-dump-help`, what the man page and shell
/// completions are made from).
@Suite struct SettingFlagsTests {
    /// A command's arguments from the dump: long name -> (kind, value name, help).
    private static func arguments(of command: String) throws -> [String: (kind: String, valueName: String?, help: String)] {
        let run = try kioskd(["--experimental-dump-help"])
        #expect(run.status == 0, "\(run.stderr)")
        let tool = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let root = tool?["command"] as? [String: Any]
        let subcommands = root?["subcommands"] as? [[String: Any]] ?? []
        let found = subcommands.first { $0["commandName"] as? String == command }
        var arguments: [String: (kind: String, valueName: String?, help: String)] = [:]
        for argument in found?["arguments"] as? [[String: Any]] ?? [] {
            let names = (argument["names"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "long" }
            guard let long = names.first?["name"] as? String else { continue }
            arguments[long] = (argument["kind"] as? String ?? "", argument["valueName"] as? String, argument["abstract"] as? String ?? "")
        }
        return arguments
    }

    @Test(arguments: ["show", "snapshot"])
    func everySettingFlagComesFromTheTable(command: String) throws {
        let arguments = try Self.arguments(of: command)
        #expect(!arguments.isEmpty, "kioskd \(command) has no arguments in the dump")
        let scopes: Set<FlagScope> = command == "show" ? [.drawing, .show] : [.drawing]
        for setting in KioskSettings.table.descriptors {
            let help = setting.flagHelp
            let declared = arguments[setting.flagName]
            guard scopes.contains(setting.flag) else {
                #expect(declared?.help != help, "kioskd \(command) declares --\(setting.flagName), which the table gives \(setting.flag)")
                continue
            }
            guard let declared else {
                Issue.record("kioskd \(command) lacks --\(setting.flagName)")
                continue
            }
            #expect(declared.help == help, "--\(setting.flagName)")
            if setting.flagIsSwitch {
                #expect(declared.kind == "flag", "--\(setting.flagName) is a switch")
            } else {
                #expect(declared.kind == "option" && declared.valueName == setting.valueName, "--\(setting.flagName) <\(setting.valueName)>")
            }
        }
        // No flag outside the table is spelled as a setting's.
        let helps = Set(KioskSettings.table.descriptors.map(\.flagHelp))
        // A switch's dump names both spellings: `--no-start-paused` is the same flag.
        let claimed = arguments.filter { helps.contains($0.value.help) && !$0.key.hasPrefix("no-") }.keys
        let expected = KioskSettings.table.descriptors.filter { scopes.contains($0.flag) }.map(\.flagName)
        #expect(Set(claimed) == Set(expected))
    }

    /// `--help` shows a setting's flag as the table says it.
    @Test func helpShowsTheTablesWords() throws {
        let help = try kioskd(["show", "--help"]).stdout
        #expect(help.contains("--rescan-interval <s>"))
        #expect(help.contains("--start-paused/--no-start-paused"))
        let words = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("Seconds on each picture before sliding to the next. Default: 8."), "\(help)")
    }
}

/// `start_paused`, the setting added through the table alone, on the real daemon.
@Suite struct StartPausedTests {
    typealias Daemon = HeadlessDaemonTests.Daemon

    @Test func aShowStartedPausedDoesNotMoveAndAReloadOfItWaitsForARestart() throws {
        let folder = try PictureFolderFixture()
        for name in ["a.jpg", "b.jpg", "c.jpg"] { try folder.write(name) }
        let config = folder.path + ".toml"
        defer { unlink(config) }
        try "images = \"\(folder.path)\"\ninterval = 0.2\nstate_dir = \"none\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try Daemon(["--config", config, "--transition", "0.05", "--start-paused"])
        daemon.waitFor("control socket: ")
        defer { _ = daemon.stop() }
        let control = try patientControl(daemon.socket)
        func status() throws -> [String: Any] {
            (try JSONSerialization.jsonObject(with: Data(try control.request("status"))) as? [String: Any]) ?? [:]
        }
        let paused = try eventually { try status()["paused"] as? Bool == true }
        #expect(paused)
        // Ten intervals: a running show would have moved on, even on a busy
        // machine; a paused one never does, however long the wait.
        usleep(2_000_000)
        _ = try control.request("resume")
        daemon.waitFor("picture 1 in the centre")
        // --verbose logs every picture the strip rests on: none before the resume.
        let beforeResume = daemon.log.components(separatedBy: "kioskd: resumed").first ?? ""
        #expect(daemon.log.contains("kioskd: resumed"))
        #expect(!beforeResume.contains(" in the centre: "), "the show moved while paused: \(beforeResume)")

        try "images = \"\(folder.path)\"\ninterval = 0.2\nstate_dir = \"none\"\nstart_paused = false\n".write(toFile: config, atomically: true, encoding: .utf8)
        let reload = try JSONSerialization.jsonObject(with: Data(try control.request("reload"))) as? [String: Any]
        // The flag still wins over the file, so nothing changed.
        #expect(reload?["changed"] as? [String] == [] && reload?["restart_needed"] as? [String] == [], "\(String(describing: reload))")
        let log = daemon.stop().joined(separator: "\n")
        #expect(log.contains("kioskd: paused: no automatic slides until resume"))
    }

    @Test func aReloadThatChangesItSaysItWaitsForARestart() throws {
        let folder = try PictureFolderFixture()
        try folder.write("a.jpg")
        let config = folder.path + ".toml"
        defer { unlink(config) }
        try "images = \"\(folder.path)\"\nstate_dir = \"none\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try Daemon(["--config", config])
        daemon.waitFor("control socket: ")
        defer { _ = daemon.stop() }
        let control = try patientControl(daemon.socket)
        try "images = \"\(folder.path)\"\nstate_dir = \"none\"\nstart_paused = true\n".write(toFile: config, atomically: true, encoding: .utf8)
        let reload = try JSONSerialization.jsonObject(with: Data(try control.request("reload"))) as? [String: Any]
        #expect(reload?["changed"] as? [String] == [] && reload?["restart_needed"] as? [String] == ["start_paused"], "\(String(describing: reload))")
        let status = try JSONSerialization.jsonObject(with: Data(try control.request("status"))) as? [String: Any]
        #expect(status?["paused"] as? Bool == false)
        let log = daemon.stop().joined(separator: "\n")
        #expect(log.contains("kioskd: reload: start_paused takes effect when kioskd restarts"))
    }
}
