import DRMOutput
import HDMICEC
import ImageCodecs
import InputDevices
import KioskCore
import KioskRendering
import LinuxPlatform
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
    /// Answer the control socket's test commands (`hold`): the VM tests' screendumps mid-slide.
    public var testCommands = false
    /// Where operator log lines go (standard error in the daemon).
    public var log: (LogLine) -> Void
    /// Reads the settings again (the config file and the flags): set, a
    /// SIGHUP or `kioskctl reload` applies them (``ConfigReload``).
    public var reloadSettings: ((_ overrides: Bool) throws -> ExplainedSettings)?
    /// What `set` kept in the state directory, read with the settings (``SettingOverrides``).
    public var overrides = SettingOverrides()
    /// What the benchmark changes; the daemon keeps the defaults.
    public var tuning = Tuning()

    /// The benchmark's knobs, in one place.
    public struct Tuning {
        /// Input devices handed over, besides those `input` finds: the
        /// benchmark's finger (a ``PipedInputDevice``).
        public var inputDevices: [any InputDevice] = []
        /// How the decode worker yields the core to the display loop.
        public var workerPriority = WorkerPriority.batch
        /// False: the display loop stays at ordinary priority even where
        /// `SCHED_FIFO` is allowed (to measure the worker's priority alone,
        /// as on a kiosk without `LimitRTPRIO`).
        public var realTimeDisplayLoop = true
        /// Where backlights and light sensors are looked for: the kernel's
        /// sysfs, or a tree a test makes (this machine has neither).
        public var backlightFolder = Backlight.folder
        public var lightSensorFolder = LightSensor.folder

        public init() {}
    }

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
        let display = try openDisplay()
        defer { display.keeper.restore() }
        let show = try makeShow(on: display)
        // A reload may swap the libraries: those in use at the end are stopped.
        var sources: Sources?
        defer {
            show.worker.stop()
            show.texts.stop()
            if let sources { sources.libraries.stop() } else { show.libraries.forEach { $0.stop() } }
        }
        let reason = try system { () throws(SystemCallError) in
            let loop = try ShowLoop(controller: show.controller, decoder: show.worker, texts: show.texts)
            let built = try makeSources(for: show, on: display)
            sources = built
            for source in built.all { try loop.add(source) }
            // `start_paused`: a kiosk browsed by hand; every subscriber hears it.
            if settings.motion.startPaused { show.controller.perform(.pause) }
            raiseDisplayLoopPriority()
            return try loop.run(until: stop)
        }
        let statistics = show.controller.statistics
        // The sources are still held (`sources`): their subscriptions hear the last event.
        withExtendedLifetime(sources) { show.controller.publish(.stopped(reason: reason, statistics: statistics)) }
        if show.controller.failed { throw .failed(reason ?? "a failure") }
        return statistics
    }

    // MARK: The display

    /// The screen the show is drawn on, what keeps it (and gives the
    /// console back at the end), and how devices are opened.
    private struct OpenedDisplay {
        let screen: any ShowScreen
        let keeper: DisplayKeeper
        /// The seat that lends the DRM card and the input devices; nil: they are opened directly.
        let seat: Seat?
        let opener: any DeviceOpener
    }

    /// Takes the display through DRM/KMS (through the seat when there is a
    /// seat manager; without one, root from a shell with no libseat
    /// backend, the devices are opened directly), or makes the headless screen.
    private func openDisplay() throws(DisplayJobError) -> OpenedDisplay {
        switch settings.display.target {
        case .drm:
            var seatTrouble: SeatError?
            let seat: Seat?
            do { seat = try Seat.open() } catch {
                seat = nil
                seatTrouble = error
            }
            let opener: any DeviceOpener = seat ?? DirectDeviceOpener()
            let output: KMSOutput
            do { output = try openOutput(settings.display, opener: opener) } catch { throw .display(error) }
            let through = seat.map { "; \($0.name) through the seat manager" } ?? (seatTrouble == nil ? "" : "; no seat manager: devices opened directly")
            log("showing on \(output.summary), rotation \(settings.display.rotation.rawValue)\(through)")
            if let seatTrouble { log(.info("seat: \(seatTrouble)")) }
            return OpenedDisplay(screen: output, keeper: DisplayKeeper(output: output, opener: opener), seat: seat, opener: opener)
        case .headless:
            let screen = try system { () throws(SystemCallError) in
                try HeadlessScreen(panel: settings.display.headlessSize, vblankTimer: true, now: MonotonicClock.now())
            }
            log("showing on \(screen.summary), rotation \(settings.display.rotation.rawValue)")
            let opener = DirectDeviceOpener()
            return OpenedDisplay(screen: screen, keeper: DisplayKeeper(output: nil, opener: opener), seat: nil, opener: opener)
        }
    }

    // MARK: The show

    /// The show and what feeds it: its libraries (the folder's watcher), the decoder, the
    /// control socket (made early, so a socket that cannot be made stops
    /// the start before anything is shown), and the controller, the
    /// show's one door, with the operator's log subscribed.
    private struct MadeShow {
        let libraries: [any PictureLibrary]
        let worker: DecodeWorker
        /// Captions, the clock and messages, drawn off the run loop.
        let texts: TextWorker
        let controller: ShowController
        let control: ControlListener?
        /// The log's: for the show's whole life.
        let logging: ShowSubscription
    }

    private func makeShow(on display: OpenedDisplay) throws(DisplayJobError) -> MadeShow {
        guard settings.namesAnyLibrary else { throw .setup(.noImageFolder) }
        let libraries: [any PictureLibrary]
        do { libraries = try PictureLibraries.make(for: settings, panel: display.screen.panelSize) } catch { throw .setup(.folder(error)) }
        let stopLibraries = { libraries.forEach { $0.stop() } }
        let assembly: ShowAssembly
        do {
            assembly = try ShowAssembly(settings: settings, panel: display.screen.panelSize, listing: PictureLibraries.firstListing(of: libraries))
        } catch {
            stopLibraries()
            throw .setup(error)
        }
        if let images = settings.images, libraries.first?.kind == .folder, libraries.first?.firstListing == nil {
            log(.warning("the picture folder \(images) does not exist (yet): showing the background until it appears"))
        } else {
            for note in assembly.notes { log(.warning(note)) }
        }
        let control: ControlListener?
        do { control = try openControlListener() } catch {
            stopLibraries()
            throw error
        }
        let start = startingPicture(in: assembly.playlist, resume: settings.stateDirectory.map { ResumeFile(directory: $0) })
        let priority = tuning.workerPriority
        let worker: DecodeWorker
        let texts: TextWorker
        do { worker = try DecodeWorker(recipe: assembly.recipe, priority: priority) } catch {
            stopLibraries()
            throw .system(error)
        }
        do { texts = try TextWorker() } catch {
            worker.stop()
            stopLibraries()
            throw .system(error)
        }
        let controller = ShowController(
            show: assembly.makeShow(on: display.screen, decoder: worker, texts: texts, startAt: start, now: MonotonicClock.now()))
        let verbose = self.verbose, log = self.log
        let farewell = display.keeper.output == nil ? "bye" : "restoring the console"
        let logging = controller.subscribe { event in
            guard let line = event.logLine(verbose: verbose) else { return }
            if case .stopped = event { log(LogLine(line.text + "; " + farewell, priority: line.priority)) } else { log(line) }
        }
        return MadeShow(libraries: libraries, worker: worker, texts: texts, controller: controller, control: control, logging: logging)
    }

    // MARK: The sources

    /// Every way the show is driven, each given the collaborators it
    /// needs when it is made: the reload goes to the signals and the
    /// control socket, the display's power to the control socket and the reload.
    private struct Sources {
        let libraries: LibrarySource
        let all: [any ShowSource]
    }

    private func makeSources(for show: MadeShow, on display: OpenedDisplay) throws(SystemCallError) -> Sources {
        let controller = show.controller
        let libraries = LibrarySource(libraries: show.libraries)
        let cec = cecAdapter(for: display.keeper.output)
        let power = try DisplayPowerSource(
            keeper: PowerKeeper(
                schedule: settings.power.schedule, brightness: settings.power.brightness, idleOff: settings.power.idleOff,
                waking: settings.power.wakeOnPresence, controller: controller, tv: cec, dimmer: dimmer(for: display), log: log,
                wallClock: WallClockTimer.now, utcOffset: localUTCOffset),
            cec: cec)
        // A new display: the old one gives the console back first, and its card is used again.
        let reload = reloadSettings.map { load in
            ConfigReload(
                settings: settings, controller: controller, libraries: libraries, log: log, openDisplay: display.keeper.open,
                powerKeeper: power.keeper, overrides: overrides, load: load)
        }
        var all: [any ShowSource] = [
            try SignalSource(reload: reload),
            // Readiness, status and the watchdog for systemd: nothing outside it.
            ServiceSource(watchdogInterval: ServiceNotifier.watchdogInterval(), send: ServiceNotifier.send),
            libraries, power,
        ]
        if display.keeper.output != nil {
            let settings = self.settings
            all.append(try HotplugSource(keeper: display.keeper, settings: { reload?.settings ?? settings }, log: log))
        }
        if let directory = settings.stateDirectory { all.append(ResumeSource(file: ResumeFile(directory: directory), log: log)) }
        if let listener = show.control { all.append(try ControlSocket(listener: listener, reload: reload, power: power.keeper, testCommands: testCommands)) }
        if let seat = display.seat { all.append(SeatSource(seat: seat, log: log)) }
        // Always there, idle without a broker: a reload may name one.
        let started = self.settings
        all.append(MQTTSource(settings: { reload?.settings ?? started }, reload: reload, power: power.keeper, log: log))
        all.append(InputSource(
            settings: settings.input, keyMap: keyMap(for: settings.input), rotation: settings.display.rotation,
            devices: tuning.inputDevices, opener: display.opener, log: log))
        if let light = ambientLight(power.keeper, curve: { reload?.settings.power.lightCurve ?? started.power.lightCurve }) { all.append(light) }
        return Sources(libraries: libraries, all: all)
    }

    /// The ambient light sensor `light_sensor` names, if any. One that
    /// cannot be found or read is said once, and the show goes on without
    /// it (at `brightness`).
    private func ambientLight(_ keeper: PowerKeeper, curve: @escaping () -> LightCurve) -> AmbientLightSource? {
        guard let setting = settings.power.lightSensor else { return nil }
        switch AmbientLightSource.sensor(for: setting, folder: tuning.lightSensorFolder) {
        case .failure(let error):
            log(.warning("\(error); the show goes on without it"))
            return nil
        case .success(let sensor):
            do {
                let source = try AmbientLightSource(sensor: sensor, keeper: keeper, curve: curve)
                log("light sensor: \(sensor.path) (\(sensor.model)), every \(Int(AmbientLightSource.period)) s while the display is on")
                return source
            } catch {
                log(.warning("light sensor: cannot start its thread: \(error); the show goes on without it"))
                return nil
            }
        }
    }

    /// The display loop runs ahead of ordinary threads where it may (`SCHED_FIFO` 1).
    private func raiseDisplayLoopPriority() {
        let decoding = tuning.workerPriority.rawValue
        if !tuning.realTimeDisplayLoop {
            log("display loop: ordinary priority (asked); decoding at \(decoding) priority")
        } else if let refused = runCallingThreadAheadOfOrdinaryThreads() {
            log(.warning("display loop: ordinary priority (real-time priority not permitted: \(refused.reason); run as root or with LimitRTPRIO=1)"))
        } else {
            log("display loop: real-time priority (SCHED_FIFO 1); decoding at \(decoding) priority, other work at ordinary priority")
        }
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

    /// Where brightness goes: the backlight of a built-in panel, if this
    /// process may set it; else the picture, dimmed in software (said once
    /// when a built-in panel's backlight cannot be used). Chosen for the
    /// connector the show starts on.
    private func dimmer(for display: OpenedDisplay) -> Dimmer {
        let choice = Dimmer.choose(connector: display.keeper.output?.connectorName, folder: tuning.backlightFolder)
        if let note = choice.note { log(.info("brightness: \(note)")) }
        return choice.dimmer
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

    /// The control socket's listener, or nil when it is off. A path the
    /// operator set must work; at the default path (`/run/kioskd`, which the
    /// service's `RuntimeDirectory` makes) a socket that cannot be made, as
    /// when kioskd is run by hand as a user, only turns the socket off: the
    /// show is what a kiosk is for. Another kioskd listening there, or a
    /// file that is not a socket, stops the start either way.
    private func openControlListener() throws(DisplayJobError) -> ControlListener? {
        do {
            let control = try ControlListener.open(settings.control)
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
