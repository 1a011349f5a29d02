import ArgumentParser
import KioskApp

/// `kioskd check-config [FILE]`: before restarting a kiosk on an edited
/// config, see that it loads and what it gives.
struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Check a config file and print the configuration it gives.",
        discussion: """
            Prints every setting as a config file line, marked with where its value comes from: \
            the file's line, a value kioskctl set kept in the state directory (overrides.toml), or the default. Exits 0 when the file is valid; otherwise prints \
            the first mistake (the file, the line, the setting, what was expected) and exits 1.
            """)

    @Argument(help: ArgumentHelp("The config file.", valueName: "file"))
    var file = "/etc/kioskd/kioskd.toml"

    func run() throws {
        do {
            print(describeConfiguration(try loadExplainedSettings(configPath: file, flags: []), file: file), terminator: "")
        } catch {
            fail("\(error)")
        }
    }
}
