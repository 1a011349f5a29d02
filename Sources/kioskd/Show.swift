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

    /// The settings only the show takes as flags (``FlagScope/show``).
    @OptionGroup var showSettings: SettingFlags<ShowCommandOnly>

    @Option(help: "The picture to start with (0 is the first file). Default: the one the show was on when it last stopped, else 0.")
    var index: Int?

    @Flag(help: "Log every picture the show comes to rest on.")
    var verbose = false

    @Flag(help: "Answer the control socket's test commands (hold POSITION): for the VM tests, never a kiosk's need.")
    var testCommands = false

    @Flag(help: "List the cards, connectors and modes, then exit.")
    var listOutputs = false

    func run() throws {
        if listOutputs {
            print(describeOutputs(), terminator: "")
            return
        }
        logLibraryMessages()
        let explained: ExplainedSettings
        let own = showSettings.given
        do { explained = try layout.explainedSettings(more: own) } catch { fail("\(error)") }
        if let problem = explained.overridesProblem { log(.warning("the settings set before are passed over: \(problem)")) }
        var job = DisplayJob(settings: explained.settings, index: index, verbose: verbose, log: log)
        job.testCommands = testCommands
        job.overrides = explained.overrides
        job.reloadSettings = { [layout] overrides in try layout.explainedSettings(more: own, overrides: overrides) }
        do {
            try job.run()
        } catch {
            fail("\(error)")
        }
    }
}
