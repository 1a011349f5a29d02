import ArgumentParser
import DRMOutput
import KioskApp
import KioskCore

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the show on a display (the default).",
        discussion: "Runs until SIGTERM or SIGINT, then restores the console and exits 0.")

    @OptionGroup var layout: LayoutOptions

    @Option(help: ArgumentHelp("DRM card, e.g. /dev/dri/card1. Default: the first card with a connected screen.", valueName: "path"))
    var device: String?

    @Option(help: ArgumentHelp("Connector as the kernel names it (HDMI-A-1, DP-1, Virtual-1). Default: the first connected.", valueName: "name"))
    var connector: String?

    @Option(help: ArgumentHelp("auto (the screen's preferred mode), 1920x1080 or 1920x1080@60.", valueName: "m"))
    var mode: String?

    @Option(help: "The picture to start with (0 is the first file).")
    var index: Int = 0

    @Flag(help: "List the cards, connectors and modes, then exit.")
    var listOutputs = false

    func run() throws {
        if listOutputs {
            print(describeOutputs(), terminator: "")
            return
        }
        let settings: KioskSettings
        do {
            settings = try layout.settings(extra: [("device", device), ("connector", connector), ("mode", mode)])
        } catch {
            fail("\(error)")
        }
        do {
            try DisplayJob(settings: settings, position: Double(index), log: log).run()
        } catch {
            fail("\(error)")
        }
    }
}
