import ArgumentParser
import KioskApp
import KioskCore

/// The options every command that draws the strip shares: the settings
/// whose ``FlagScope`` is `.drawing` (each overrides the setting of the
/// same name, with `_` for `-`, in the config file) and `--config`.
struct LayoutOptions: ParsableArguments {
    @OptionGroup var settingFlags: SettingFlags<DrawingCommands>

    @Option(help: ArgumentHelp("A TOML config file; flags override its settings.", valueName: "file"))
    var config: String?

    /// The defaults, then the config file, then these flags and `more` (a
    /// command's own setting flags).
    func settings(more: [(name: String, value: String)] = []) throws -> KioskSettings {
        try explainedSettings(more: more).settings
    }

    /// The settings and where each came from (the file's line, a flag, the
    /// state directory's overrides unless `overrides` is false).
    func explainedSettings(more: [(name: String, value: String)] = [], overrides: Bool = true) throws -> ExplainedSettings {
        try loadExplainedSettings(configPath: config, flags: settingFlags.given + more, overrides: overrides)
    }
}
