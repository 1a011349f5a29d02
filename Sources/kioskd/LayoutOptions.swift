import ArgumentParser
import KioskApp
import KioskCore

/// The options every command that draws the strip shares: `--config` and
/// the settings whose ``FlagScope`` is `.drawing`. Each one overrides the
/// setting of the same name (with `_` for `-`) in the config file.
struct LayoutOptions: ParsableArguments {
    @Option(help: .setting("images")) var images: String?
    @Option(help: .setting("image_width")) var imageWidth: String?
    @Option(help: .setting("visible")) var visible: String?
    @Option(help: .setting("spacing")) var spacing: String?
    @Option(help: .setting("slot_height")) var slotHeight: String?
    @Option(help: .setting("background")) var background: String?
    @Option(help: .setting("align")) var align: String?
    @Flag(inversion: .prefixedNo, help: .setting("portrait_pairs")) var portraitPairs: Bool?
    @Option(help: .setting("max_zoom")) var maxZoom: String?
    @Option(help: .setting("rotation")) var rotation: String?

    @Option(help: ArgumentHelp("A TOML config file; flags override its settings.", valueName: "file"))
    var config: String?

    /// The defaults, then the config file, then these flags and `more` (a
    /// command's own setting flags).
    func settings(more: [(name: String, value: String)] = []) throws -> KioskSettings {
        try explainedSettings(more: more).settings
    }

    /// The settings and where each came from (the file's line, a flag).
    func explainedSettings(more: [(name: String, value: String)] = []) throws -> ExplainedSettings {
        try loadExplainedSettings(configPath: config, flags: settingFlags(in: self) + more)
    }
}

/// The settings only the show takes as flags (``FlagScope/show``).
struct ShowSettingOptions: ParsableArguments {
    @Option(help: .setting("device")) var device: String?
    @Option(help: .setting("connector")) var connector: String?
    @Option(help: .setting("mode")) var mode: String?
    @Option(help: .setting("display")) var display: String?
    @Option(help: .setting("size")) var size: String?
    @Option(help: .setting("interval")) var interval: String?
    @Option(help: .setting("transition")) var transition: String?
    @Option(help: .setting("easing")) var easing: String?
    @Option(help: .setting("socket")) var socket: String?
    @Option(help: .setting("recursive")) var recursive: String?
    @Option(help: .setting("order")) var order: String?
    @Option(help: .setting("rescan_interval")) var rescanInterval: String?
    @Option(help: .setting("display_schedule")) var displaySchedule: String?
    @Option(help: .setting("cec")) var cec: String?
    @Option(help: .setting("state_dir")) var stateDir: String?
    @Flag(inversion: .prefixedNo, help: .setting("start_paused")) var startPaused: Bool?
}
