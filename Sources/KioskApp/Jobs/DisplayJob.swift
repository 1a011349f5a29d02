import DRMOutput
import ImageCodecs
import KioskCore
import KioskRendering

#if canImport(Glibc)
import Glibc
#endif

/// Why the show on the display stopped or could not start.
public enum DisplayJobError: Error, CustomStringConvertible {
    case setup(ShowSetupError)
    case display(DRMError)
    case system(call: String, errno: Int32)

    public var description: String {
        switch self {
        case .setup(let error): return error.description
        case .display(let error): return error.description
        case .system(let call, let code): return "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
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
    /// The picture to start with.
    public var index: Int
    /// Log every picture the strip comes to rest on.
    public var verbose: Bool
    /// Where operator log lines go (standard error in the daemon).
    public var log: (String) -> Void

    public init(settings: KioskSettings, index: Int, verbose: Bool = false, log: @escaping (String) -> Void) {
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
        let signals = try DaemonSignals()
        let screen: any ShowScreen
        var drm: KMSOutput?
        switch settings.display.target {
        case .drm:
            do { drm = try openOutput(settings.display) } catch { throw .display(error) }
            screen = drm!
        case .headless:
            screen = try HeadlessScreen(panel: settings.display.headlessSize, vblankTimer: true, now: MonotonicClock.now())
        }
        defer { drm?.restore() }
        let (layout, folder) = try Self.prepare(settings, panel: screen.panelSize)
        log("showing on \(screen.summary), rotation \(settings.display.rotation.rawValue)")
        (layout.notes + folder.ignored).forEach(log)
        if folder.pictures.isEmpty { log(ShowPictures.emptyNote(settings)) }

        let worker = try DecodeWorker(loader: PictureLoader(settings: settings), slot: layout.geometry.slotSize)
        defer { worker.stop() }
        let show = RunningShow(
            screen: screen, layout: layout, playlist: folder.pictures, decoder: worker, motion: settings.motion,
            startAt: index, now: MonotonicClock.now(), logEachPicture: verbose, log: log)
        let signal = try ShowLoop(show: show, worker: worker, signals: signals).run {
            stop($0.progress(at: MonotonicClock.now()))
        }
        let stats = show.statistics
        let reason = signal.map { $0 == SIGTERM ? "SIGTERM" : "SIGINT" }
        log("stopping\(reason.map { " on " + $0 } ?? "") after \(stats.slides) slide(s), "
            + "\(stats.framesShown) frame(s), \(stats.refreshesMissed) refresh(es) missed during slides; "
            + (drm == nil ? "bye" : "restoring the console"))
        return stats
    }

    /// The layout for the panel and the folder's pictures.
    static func prepare(_ settings: KioskSettings, panel: PixelSize) throws(DisplayJobError) -> (ShowLayout, ImageFolder) {
        do {
            return (try ShowLayout(settings: settings, screen: panel), try ImageFolder(settings: settings))
        } catch {
            throw .setup(error)
        }
    }
}
