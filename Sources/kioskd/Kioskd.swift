import ArgumentParser
import ImageCodecs
import KioskApp
import KioskCore
import LinuxPlatform

@main
struct Kioskd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kioskd",
        abstract: "A photo kiosk: one picture centred, its neighbours peeking in, straight to the display.",
        discussion: """
            Pictures (\(PictureCodecs.extensionList)) come from one folder and play in natural file-name order, \
            in an endless loop. Without a subcommand kioskd runs the show on a DRM display \
            until SIGTERM or SIGINT; `kioskd snapshot` renders one frame of it to a PNG; \
            `kioskd check-config` checks a config file.
            """,
        version: KioskVersion.current,
        subcommands: [Show.self, Snapshot.self, CheckConfig.self],
        defaultSubcommand: Show.self)

    static func main() {
        // Before anything can start a thread: the run loop reads SIGTERM and
        // SIGINT from a signalfd, which needs them blocked everywhere.
        blockDaemonSignals()
        keepPictureBuffersOutOfTheHeap()
        main(nil)
    }
}
