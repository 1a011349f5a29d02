import DRMOutput
import HDMICEC
import ImageCodecs
import InputDevices
import KioskCore
import KioskRendering
import SeatAccess
import ServiceManager
import SystemCalls

/// Why the show on the display stopped or could not start.
public enum DisplayJobError: Error, CustomStringConvertible {
    case setup(ShowSetupError)
    case display(DRMError)
    case system(SystemCallError)
    case control(ControlSocketError)
    /// The show stopped on a failure it cannot get past alone (the seat manager gone).
    case failed(String)

    public var description: String {
        switch self {
        case .control(let error): return error.description
        case .setup(let error): return error.description
        case .display(let error): return error.description
        case .system(let error): return error.description
        case .failed(let reason): return "stopped: \(reason)"
        }
    }
}

/// The show, until SIGTERM or SIGINT: on a DRM display, or headless.
///
/// The display is taken at once with a background-only frame (so the operator
/// sees kioskd has the screen). Pictures are decoded by the ``DecodeWorker``
/// and drawn as they arrive: a slot whose picture is not ready shows the
/// background, and the loop never waits for a decode. The strip rests
/// `interval` seconds on each picture, then slides to the next. On a signal
/// the pending flip completes, the saved CRTC is restored (the console comes
/// back) and `run` returns.
public struct DisplayJob {
    public var settings: KioskSettings
    /// The picture to start with; nil: the one the show was on when it
    /// last stopped (the state directory's ``ResumeFile``), else the first.
    public var index: Int?
    /// Log every picture the strip comes to rest on.
    public var verbose: Bool
    /// Where operator log lines go (standard error in the daemon).
    public var log: (LogLine) -> Void
    /// Input devices handed over, besides those `input` finds: the
    /// benchmark's finger (a ``PipedInputDevice``).
    public var inputDevices: [any InputDevice] = []
    /// How the decode worker yields the core to the display loop (the
    /// benchmark compares them; the daemon keeps the default).
    public var workerPriority = WorkerPriority.batch
    /// False: the display loop stays at ordinary priority even where
    /// `SCHED_FIFO` is allowed (the benchmark, to measure the worker's
    /// priority alone, as on a kiosk without `LimitRTPRIO`).
    public var realTimeDisplayLoop = true
    /// Reads the settings again (the config file and the flags): set, a
    /// SIGHUP or `kioskctl reload` applies them (``ConfigReload``).
    public var reloadSettings: (() throws -> ExplainedSettings)?

    public init(settings: KioskSettings, index: Int?, verbose: Bool = false, log: @escaping (LogLine) -> Void) {
        self.settings = settings
        self.index = index
        self.verbose = verbose
        self.log = log
    }

    public func run() throws(DisplayJobError) {
        _ = try run(until: { _ in false })
    }

    /// Runs until SIGTERM or SIGINT, or until `stop` (asked after every
    /// wake-up) says so; the benchmark stops after a number of slides.
    public func run(until stop: (ShowStatistics) -> Bool) throws(DisplayJobError) -> ShowStatistics {
        let signals = try system { () throws(SystemCallError) in try SignalSource() }
        let screen: any ShowScreen
        var drm: KMSOutput?
        // The seat lends the DRM card and the input devices; without a seat
        // manager (root from a shell with no libseat backend) they are opened directly.
        var seat: Seat?
        var seatTrouble: SeatError?
        var opener: any DeviceOpener = DirectDeviceOpener()
        switch settings.display.target {
        case .drm:
            do {
                seat = try Seat.open()
                opener = seat!
            } catch {
                seatTrouble = error
            }
            do { drm = try openOutput(settings.display, opener: opener) } catch { throw .display(error) }
            screen = drm!
        case .headless:
            screen = try system { () throws(SystemCallError) in
                try HeadlessScreen(panel: settings.display.headlessSize, vblankTimer: true, now: MonotonicClock.now())
            }
        }
        let keeper = DisplayKeeper(output: drm, opener: opener)
        defer { keeper.restore() }
        guard let images = settings.images else { throw .setup(.noImageFolder) }
        let watcher: FolderWatcher
        do { watcher = try FolderWatcher(root: images, settings: settings.folder) } catch { throw .setup(.folder(error)) }
        // A reload may swap it: the source's watcher is the one stopped.
        var folderSource: FolderSource?
        defer { (folderSource?.watcher ?? watcher).stop() }
        let listing = FolderListing(entries: watcher.firstListing ?? [], notes: watcher.firstNotes)
        let assembly: ShowAssembly
        do { assembly = try ShowAssembly(settings: settings, panel: screen.panelSize, listing: listing) } catch { throw .setup(error) }
        let through = seat.map { "; \($0.name) through the seat manager" }
            ?? (seatTrouble == nil ? "" : "; no seat manager: devices opened directly")
        log("showing on \(screen.summary), rotation \(settings.display.rotation.rawValue)\(through)")
        if let seatTrouble { log(.info("seat: \(seatTrouble)")) }
        if watcher.firstListing == nil {
            log(.warning("the picture folder \(images) does not exist (yet): showing the background until it appears"))
        } else {
            for note in assembly.notes { log(.warning(note)) }
        }
        let control = try openControlSocket()
        let resume = settings.stateDirectory.map { ResumeFile(directory: $0) }
        let start = startingPicture(in: assembly.playlist, resume: resume)

        let priority = workerPriority
        let worker = try system { () throws(SystemCallError) in try DecodeWorker(recipe: assembly.recipe, priority: priority) }
        defer { worker.stop() }
        let controller = ShowController(
            show: assembly.makeShow(on: screen, decoder: worker, startAt: start, now: MonotonicClock.now()))
        let verbose = self.verbose, log = self.log
        let farewell = drm == nil ? "bye" : "restoring the console"
        controller.subscribe { event in
            guard let line = event.logLine(verbose: verbose) else { return }
            if case .stopped = event { log(LogLine(line.text + "; " + farewell, priority: line.priority)) } else { log(line) }
        }
        let reason = try system { () throws(SystemCallError) in
            let loop = try ShowLoop(controller: controller, decoder: worker)
            try loop.add(signals)
            // Readiness, status and the watchdog for systemd: nothing outside it.
            try loop.add(ServiceSource(watchdogInterval: ServiceNotifier.watchdogInterval(), send: ServiceNotifier.send))
            let folder = FolderSource(watcher: watcher)
            folderSource = folder
            try loop.add(folder)
            let cec = cecAdapter(for: keeper.output)
            let power = try DisplayPowerSource(
                keeper: PowerKeeper(
                    schedule: settings.power.schedule, controller: controller, tv: cec, log: log,
                    wallClock: WallClockTimer.now, utcOffset: localUTCOffset),
                cec: cec)
            var reload: ConfigReload?
            if let reloadSettings {
                // A new display: the old one gives the console back first, and its card is used again.
                reload = ConfigReload(
                    settings: settings, controller: controller, folder: folder, log: log, openDisplay: keeper.open,
                    load: reloadSettings)
                reload?.powerKeeper = power.keeper
                controller.reloader = { reload!.reload() }
            }
            try loop.add(power)
            if keeper.output != nil {
                let settings = self.settings
                try loop.add(HotplugSource(keeper: keeper, settings: { reload?.settings ?? settings }, log: log))
            }
            if let resume { try loop.add(ResumeSource(file: resume, log: log)) }
            if let control { try loop.add(control) }
            if let seat { try loop.add(SeatSource(seat: seat, log: log)) }
            try loop.add(InputSource(
                settings: settings.input, keyMap: keyMap(for: settings.input), rotation: settings.display.rotation,
                devices: inputDevices, opener: opener, log: log))
            if !realTimeDisplayLoop {
                log("display loop: ordinary priority (asked); decoding at \(workerPriority.rawValue) priority")
            } else if let refused = runCallingThreadAheadOfOrdinaryThreads() {
                log(.warning("display loop: ordinary priority (real-time priority not permitted: \(refused.reason); run as root or with LimitRTPRIO=1)"))
            } else {
                log("display loop: real-time priority (SCHED_FIFO 1); decoding at \(workerPriority.rawValue) priority, other work at ordinary priority")
            }
            return try loop.run(until: stop)
        }
        let statistics = controller.statistics
        controller.publish(.stopped(reason: reason, statistics: statistics))
        if controller.failed { throw .failed(reason ?? "a failure") }
        return statistics
    }


    /// The picture to start on: `index` if given; else the one the show
    /// was on when it last stopped, if it is still in the playlist; else the first.
    private func startingPicture(in playlist: Playlist, resume: ResumeFile?) -> Int {
        if let index { return index }
        guard let resume else { return 0 }
        guard let path = resume.read() else { return 0 }
        guard let item = playlist.item(of: path) else {
            log(.info("resume: \(path) is no longer in the playlist: starting at the first picture"))
            return 0
        }
        log("resuming on picture \(item): \(Playlist.fileName(of: path))")
        return item
    }

    /// The HDMI-CEC adapter for the display: `cec` names one, or (`auto`)
    /// the one the kernel ties to the connector in use. Nil: no CEC
    /// (`off`, none for this connector, or one that cannot be used, logged).
    private func cecAdapter(for output: KMSOutput?) -> CECAdapter? {
        switch settings.power.cec {
        case .off:
            return nil
        case .device(let path):
            return openCEC(path, why: "")
        case .auto:
            guard let output, let card = output.card.number else { return nil }
            let tied = CECAdapter.adapters().first { path in
                CECAdapter.drmConnector(ofAdapterAt: path).map { $0.card == card && $0.connector == output.connectorID } ?? false
            }
            return tied.flatMap { openCEC($0, why: " belongs to \(output.connectorName)") }
        }
    }

    /// The adapter at `path`, said in the log; nil (said too) when it cannot be used.
    private func openCEC(_ path: String, why: String) -> CECAdapter? {
        do {
            let adapter = try CECAdapter(path: path)
            log("cec: \(path)\(why): the TV follows the display's power")
            return adapter
        } catch {
            log(.warning("cec: \(error): the TV is not told when the display sleeps and wakes"))
            return nil
        }
    }

    /// The control socket, or nil when it is off. A path the operator set
    /// must work; at the default path (`/run/kioskd`, which the service's
    /// `RuntimeDirectory` makes) a socket that cannot be made, as when
    /// kioskd is run by hand as a user, only turns the socket off: the show
    /// is what a kiosk is for. Another kioskd listening there, or a file
    /// that is not a socket, stops the start either way.
    private func openControlSocket() throws(DisplayJobError) -> ControlSocket? {
        do {
            let control = try ControlSocket.open(settings.control)
            log(control.map { "control socket: \($0.summary)" } ?? "control socket: off")
            return control
        } catch {
            guard case .system = error, settings.control.socket == ControlSettings.defaultSocket else { throw .control(error) }
            log(.warning("\(error); the show runs without it"))
            return nil
        }
    }

    /// Runs `body`, its system call failure reported as the job's.
    private func system<Result>(_ body: () throws(SystemCallError) -> Result) throws(DisplayJobError) -> Result {
        do { return try body() } catch { throw .system(error) }
    }
}
