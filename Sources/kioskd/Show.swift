import ArgumentParser
import DRMOutput
import KioskApp
import KioskCore

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the show on a display (the default).",
        discussion: """
            Rests on each picture for --interval seconds, then slides to the next, in an endless loop. \
            SIGUSR1 moves to the next picture, SIGUSR2 to the previous one; kioskctl (or any program, \
            through the control socket) does that and more. \
            Runs until SIGTERM or SIGINT, then restores the console and exits 0.
            """)

    @OptionGroup var layout: LayoutOptions

    @Option(help: ArgumentHelp("DRM card, e.g. /dev/dri/card1. Default: the first card with a connected screen.", valueName: "path"))
    var device: String?

    @Option(help: ArgumentHelp("Connector as the kernel names it (HDMI-A-1, DP-1, Virtual-1). Default: the first connected.", valueName: "name"))
    var connector: String?

    @Option(help: ArgumentHelp("auto (the screen's preferred mode), 1920x1080 or 1920x1080@60.", valueName: "m"))
    var mode: String?

    @Option(help: ArgumentHelp("drm (a real screen) or headless (in memory at 60 Hz, for trying kioskd without a free display).", valueName: "d"))
    var display: String?

    @Option(help: ArgumentHelp("The headless screen's size. Default 1920x1080.", valueName: "wxh"))
    var size: String?

    @Option(help: ArgumentHelp("Seconds on each picture before sliding to the next. Default 8.", valueName: "s"))
    var interval: String?

    @Option(help: ArgumentHelp("Seconds a slide takes. Default 0.45.", valueName: "s"))
    var transition: String?

    @Option(help: ArgumentHelp("How a slide speeds up and settles: ease-in-out (default), ease-out or linear.", valueName: "curve"))
    var easing: String?

    @Option(help: ArgumentHelp("The control socket kioskctl talks to, or none. Default /run/kioskd/control.sock.", valueName: "path"))
    var socket: String?

    @Option(help: ArgumentHelp("Take pictures from subfolders too: true (default) or false.", valueName: "bool"))
    var recursive: String?

    @Option(help: ArgumentHelp("name (natural file-name order, the default), mtime (oldest first), taken (EXIF date) or shuffle.", valueName: "order"))
    var order: String?

    @Option(help: ArgumentHelp("Seconds between rescans of the folder when the kernel cannot watch it all. Default 60.", valueName: "s"))
    var rescanInterval: String?

    @Option(help: ArgumentHelp("When the display is on, in local time, e.g. \"mon-fri 07:00-19:00; sat,sun 09:00-23:00\", or none (the default: always on).", valueName: "rules"))
    var displaySchedule: String?

    @Option(help: ArgumentHelp("HDMI-CEC for TVs: auto (the connector's adapter, the default), off, or a device like /dev/cec0.", valueName: "cec"))
    var cec: String?

    @Option(help: ArgumentHelp("Where the centred picture is kept to resume on, or none. Default /var/lib/kioskd.", valueName: "path"))
    var stateDir: String?

    @Option(help: "The picture to start with (0 is the first file). Default: the one the show was on when it last stopped, else 0.")
    var index: Int?

    @Flag(help: "Log every picture the show comes to rest on.")
    var verbose = false

    @Flag(help: "List the cards, connectors and modes, then exit.")
    var listOutputs = false

    func run() throws {
        if listOutputs {
            print(describeOutputs(), terminator: "")
            return
        }
        let settings: KioskSettings
        let extra = [
            ("device", device), ("connector", connector), ("mode", mode), ("display", display), ("size", size),
            ("interval", interval), ("transition", transition), ("easing", easing),
            ("socket", socket), ("recursive", recursive), ("order", order), ("rescan_interval", rescanInterval),
            ("display_schedule", displaySchedule), ("cec", cec), ("state_dir", stateDir),
        ]
        do { settings = try layout.settings(extra: extra) } catch { fail("\(error)") }
        var job = DisplayJob(settings: settings, index: index, verbose: verbose, log: log)
        job.reloadSettings = { [layout] in try layout.explainedSettings(extra: extra) }
        do {
            try job.run()
        } catch {
            fail("\(error)")
        }
    }
}
