import ArgumentParser
import KioskApp
import KioskCore

/// The options every command that draws the strip shares. Each one overrides
/// the setting of the same name (with `_` for `-`) in the config file.
struct LayoutOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Folder of pictures (.jpg, .jpeg, .png, .gif), played in file-name order.", valueName: "dir"))
    var images: String?

    @Option(help: ArgumentHelp("Slot width: pixels (1344) or a percentage of the screen width (70%). Default 70%.", valueName: "x"))
    var imageWidth: String?

    @Option(help: ArgumentHelp("How many slots the screen holds across, instead of --image-width: 1.4 is the centred picture with its neighbours peeking in.", valueName: "n"))
    var visible: String?

    @Option(help: ArgumentHelp("Gap between slots: pixels (40) or a percentage of the screen width (2%). Default 2%.", valueName: "y"))
    var spacing: String?

    @Option(help: ArgumentHelp("Slot height: pixels or a percentage of the screen height. Default: the full height.", valueName: "h"))
    var slotHeight: String?

    @Option(help: ArgumentHelp("Background colour as RRGGBB. Default 000000.", valueName: "rrggbb"))
    var background: String?

    @Option(help: ArgumentHelp("Where a picture narrower than its slot sits: inner (the default: toward the screen's centre, so every neighbour peeks in) or centre.", valueName: "centre|inner"))
    var align: String?

    @Flag(inversion: .prefixedNo, help: "Two consecutive portrait photos share one slot, side by side (portrait_pairs). Default off.")
    var portraitPairs: Bool?

    @Option(help: ArgumentHelp("How far a pinch zooms the centred picture, 1 to 8 (never past the photo's own pixels). Default 2.", valueName: "z"))
    var maxZoom: String?

    @Option(help: ArgumentHelp("Turn the picture clockwise for a screen mounted on its side: 0, 90, 180 or 270.", valueName: "r"))
    var rotation: String?

    @Option(help: ArgumentHelp("A TOML config file; flags override its settings.", valueName: "file"))
    var config: String?

    /// The defaults, then the config file, then these flags and `extra`
    /// (a command's own flags, by setting name).
    func settings(extra: [(String, String?)] = []) throws -> KioskSettings {
        try explainedSettings(extra: extra).settings
    }

    /// The settings and where each came from (the file's line, a flag).
    func explainedSettings(extra: [(String, String?)] = []) throws -> ExplainedSettings {
        let flags: [(String, String?)] = [
            ("images", images), ("image_width", imageWidth), ("visible", visible), ("spacing", spacing),
            ("slot_height", slotHeight), ("background", background), ("align", align), ("rotation", rotation),
            ("portrait_pairs", portraitPairs.map { String($0) }), ("max_zoom", maxZoom),
        ] + extra
        return try loadExplainedSettings(configPath: config, flags: flags.compactMap { name, value in value.map { (name, $0) } })
    }
}
