import ArgumentParser

@main
struct Kioskd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kioskd",
        abstract: "A photo kiosk: one picture centred, its neighbours peeking in, straight to the display.",
        discussion: """
            Pictures (.jpg, .jpeg, .png) come from one folder and play in file-name order, \
            in an endless loop. Running the show on a DRM display is the next milestone; \
            today `kioskd snapshot` renders one frame of it to a PNG.
            """,
        subcommands: [Snapshot.self])
}
