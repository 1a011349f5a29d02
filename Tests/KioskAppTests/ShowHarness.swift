import DRMOutput
import Glibc
import ImageCodecs
@testable import KioskApp
import KioskCore
import KioskRendering
import Testing

/// A single file's key written as its path, in tests.
extension PictureKey: ExpressibleByStringLiteral {
    public init(stringLiteral path: String) { self.init(file: path) }
}

/// Decodes each requested file at once, so a test can run the show on
/// simulated time: no thread, no sleeping.
final class InlineDecoder: PictureDecoder {
    private(set) var recipe: PictureRecipe
    private(set) var finished: [DecodeOutcome] = []
    private var done: Set<PictureKey> = []
    /// Requests made (each a list of the pictures wanted), for "nothing decoded while off".
    private(set) var requests = 0

    init(_ recipe: PictureRecipe) { self.recipe = recipe }

    /// Every key decoded, in order (a file, or a pair's ``PictureKey``).
    private(set) var decodedKeys: [PictureKey] = []

    func request(_ keys: [PictureKey]) {
        requests += 1
        for key in keys where done.insert(key).inserted {
            decodedKeys.append(key)
            if key.files.contains(where: { holding.contains(Playlist.fileName(of: $0)) }) {
                held.append(recipe.outcome(of: key))
            } else {
                finished.append(recipe.outcome(of: key))
            }
        }
    }

    /// File names whose pictures are held back, as a slow decode would be, until ``letGo()``.
    var holding: Set<String> = []
    private var held: [DecodeOutcome] = []

    /// The pictures held back are finished now.
    func letGo() {
        finished += held
        held = []
        holding = []
    }

    func takeFinished() -> [DecodeOutcome] {
        defer { finished = [] }
        return finished
    }

    func use(_ recipe: PictureRecipe) {
        self.recipe = recipe
        streams.close()
        finished = []
        done = []
    }

    func forget(_ paths: Set<String>) {
        finished.removeAll { $0.files.contains(where: paths.contains) }
        done = done.filter { !$0.files.contains(where: paths.contains) }
        streams.close(paths)
    }

    /// Sizes asked for (`portrait_pairs`), each list read at once.
    private(set) var measureRequests: [[String]] = []

    func measure(_ paths: [String]) {
        guard !paths.isEmpty else { return }
        measureRequests.append(paths)
        finished.append(recipe.measure(paths))
    }

    /// Zoomed regions asked for, each decoded at once.
    private(set) var zoomRequests: [ZoomRegion?] = []

    func zoom(_ region: ZoomRegion?) {
        zoomRequests.append(region)
        if let region { finished.append(recipe.outcome(of: region)) }
    }

    /// The clip in the centre, decoded as it is asked for.
    let inlineClips = InlineClipDecoder()
    var clips: any ClipDecoder { inlineClips }

    /// Animations decode every frame wanted at once, like pictures.
    private let streams = AnimationStreams()
    private(set) var animationRequests: [String: AnimationRequest] = [:]

    func animate(_ requests: [String: AnimationRequest]) {
        animationRequests = requests
        while let frame = streams.decodeNext(for: requests, with: recipe) { finished.append(frame) }
    }
}

/// A clip decoder for simulated time: every frame the show asks for is
/// decoded at once, as it asks (``ClipStreams``, as the worker's thread
/// uses them), unless ``holding``: then nothing more is decoded until
/// ``letGo()``, as a decoder fallen behind would.
final class InlineClipDecoder: ClipDecoder {
    private let streams = ClipStreams()
    private(set) var request: ClipRequest?
    private var finished: [ClipOutcome] = []
    /// Every request made, nil for a stop.
    private(set) var requests: [ClipRequest?] = []
    var holding = false

    var hasFinished: Bool { !finished.isEmpty }

    func play(_ request: ClipRequest?) {
        self.request = request
        requests.append(request)
        if request == nil { _ = streams.next(for: nil) }
        finished.removeAll { $0.playback != request?.playback }
        decode()
    }

    private func decode() {
        guard !holding else { return }
        while let outcome = streams.next(for: request) { finished.append(outcome) }
    }

    func takeFinished() -> [ClipOutcome] {
        defer { finished = [] }
        return finished
    }

    /// Decodes what was asked for while holding, at once.
    func letGo() {
        holding = false
        decode()
    }
}

/// The daemon's show on a headless screen, with time simulated: the run
/// loop's job (deliver flips at their refresh, wake the show at its
/// deadlines, hand over decoded pictures) done by stepping a clock. The
/// show is assembled and driven through its controller, as the daemon's is.
final class SimulatedShow {
    private(set) var settings: KioskSettings
    let screen: HeadlessScreen
    let decoder: InlineDecoder
    private(set) var controller: ShowController!
    var show: RunningShow { controller.show }
    private(set) var now = 0.0
    /// Every frame that reached the screen: when, and its pixels.
    private(set) var frames: [(shownAt: Double, pixels: RasterImage)] = []
    /// Every event the show emitted, in order.
    private(set) var events: [ShowEvent] = []
    /// Every sensor reading reported, in order.
    private(set) var readings: [SensorReading] = []
    private var subscriptions: [ShowSubscription] = []
    /// The operator's log for those events, `--verbose`.
    var log: [String] { events.compactMap { $0.logLine(verbose: true)?.text } }

    /// `holding`: file names whose pictures the decoder holds back from the start (``InlineDecoder/holding``).
    init(_ settings: KioskSettings, panel: PixelSize = PixelSize(width: 480, height: 270), startAt index: Int = 0, holding: Set<String> = []) throws {
        self.settings = settings
        screen = try HeadlessScreen(panel: panel, vblankTimer: false, now: 0)
        let assembly = try ShowAssembly(settings: settings, panel: panel)
        decoder = InlineDecoder(assembly.recipe)
        decoder.holding = holding
        controller = ShowController(
            show: assembly.makeShow(on: screen, decoder: decoder, startAt: index, now: 0), clock: { [unowned self] in now })
        subscriptions = [
            controller.subscribe { [unowned self] in events.append($0) }, controller.listen { [unowned self] in readings.append($0) },
        ]
        controller.show.drawClock = { [unowned self] in now }
        controller.show.texts.wallClock = { [unowned self] in wallStart + now }
    }

    /// The wall clock when the simulated show starts: Wednesday 26 November 2025, 14:00:00 UTC.
    static let wallStart = 1_764_165_600.0
    var wallStart: Double { Self.wallStart }

    /// The show's text drawer (in line: layers are drawn at once).
    var texts: InlineTextDrawer { show.texts.drawer as! InlineTextDrawer }

    /// Times the simulated loop woke (an event or a deadline), for "no wake-ups while off".
    private(set) var wakeUps = 0

    /// Runs the show until `end`, handling each event at its time.
    func run(until end: Double) {
        for _ in 0..<1_000_000 {
            if !decoder.finished.isEmpty { show.picturesReady(at: now) }
            if decoder.inlineClips.hasFinished { show.clipFramesReady(at: now) }
            if texts.hasFinished { show.textsReady(at: now) }
            show.update(at: now)
            // Decoded at once during the update (a zoom's sharp region): handed over at once, as the worker's descriptor wakes the loop.
            if !decoder.finished.isEmpty || texts.hasFinished || decoder.inlineClips.hasFinished { continue }
            let next = [screen.pendingFlipTime, show.nextWakeUp(at: now)].compactMap { $0 }.min()
            guard let next, next <= end else {
                now = end
                return
            }
            now = max(now, next)
            wakeUps += 1
            if let flip = screen.pendingFlipTime, flip <= now {
                show.screenEvents(at: now)
                frames.append((now, screen.shown!))
            }
        }
        Issue.record("the show never settled: a busy loop")
    }

    func command(_ command: ShowCommand, sensedAt: Double? = nil) { controller.perform(command, sensedAt: sensedAt) }

    /// A reload: the show reassembled from new settings at the current time.
    func reload(_ newSettings: KioskSettings) throws {
        settings = newSettings
        controller.reassemble(try ShowAssembly(settings: newSettings, panel: screen.panelSize))
    }

    /// The loop is held up for `seconds` (as if something had blocked it).
    func stall(_ seconds: Double) { now += seconds }

    /// What `kioskd snapshot` draws for the same settings at `position`.
    func snapshot(at position: Double, message: String? = nil) throws -> RasterImage {
        var job = SnapshotJob(settings: settings, screen: screen.panelSize, position: position)
        job.time = wallStart + now
        job.message = message
        return try job.run().frame
    }
}

/// A headless screen that can be made to refuse frames, as a display that
/// was unplugged or lost DRM master would.
final class FailingScreen: ShowScreen {
    let inner: HeadlessScreen
    var failing = false
    /// What a failing present throws: by default a vanished device.
    var failure = DRMError(device: "failing", kind: .call("drmModePageFlip", errno: .noDevice))
    init(_ inner: HeadlessScreen) { self.inner = inner }
    var panelSize: PixelSize { inner.panelSize }
    var physicalSize: PhysicalSize? { nil }
    var refreshPeriod: Double { inner.refreshPeriod }
    var eventDescriptor: Int32? { inner.eventDescriptor }
    var flipPending: Bool { inner.flipPending }
    var nextPresentAllowed: Double? { failing ? nil : inner.nextPresentAllowed }
    func nextRefresh(after now: Double) -> Double { inner.nextRefresh(after: now) }
    /// Frames presented (not refused).
    private(set) var presents = 0
    /// Frames presented while released: a show must never.
    private(set) var presentsWhileReleased = 0
    /// What ``release()`` and ``retake()`` were called, in order.
    private(set) var seatCalls: [String] = []
    private var released = false
    func present(at now: Double, _ draw: (PixelSurface, inout BufferContents) -> Void) throws(ScreenError) {
        try counted()
        inner.present(at: now, draw)
    }
    var panning: ScreenPanning { inner.panning }
    func presentLong(at now: Double, size: PixelSize, window: PixelRect, _ draw: (PixelSurface) -> Void) throws(ScreenError) -> Bool {
        try counted()
        return inner.presentLong(at: now, size: size, window: window, draw)
    }
    func drawLongAhead(size: PixelSize, _ draw: (PixelSurface) -> Void) throws(ScreenError) -> Bool {
        if failing { throw .display(failure) }
        return inner.drawLongAhead(size: size, draw)
    }
    func presentDrawnAhead(at now: Double, window: PixelRect) throws(ScreenError) -> Bool {
        try counted()
        return inner.presentDrawnAhead(at: now, window: window)
    }
    func pan(at now: Double, to window: PixelRect) throws(ScreenError) -> Bool {
        try counted()
        return inner.pan(at: now, to: window)
    }
    private func counted() throws(ScreenError) {
        if failing { throw .display(failure) }
        if released { presentsWhileReleased += 1 }
        if off { presentsWhileOff += 1 }
        presents += 1
    }
    func release() {
        released = true
        seatCalls.append("release")
        inner.release()
    }
    func retake() {
        released = false
        seatCalls.append("retake")
        inner.retake()
    }
    /// Frames presented while switched off: a show must never.
    private(set) var presentsWhileOff = 0
    private var off = false
    func powerOff() {
        off = true
        seatCalls.append("powerOff")
        inner.powerOff()
    }
    func powerOn() {
        off = false
        seatCalls.append("powerOn")
    }
    func handleEvents(at now: Double) -> [Double] { inner.handleEvents(at: now) }
    var summary: String { "failing" }
    var displayDescription: DisplayDescription { inner.displayDescription }
}

extension ShowEvent {
    /// The event without when its frame reached the screen (the wall
    /// clock's, which a simulated show does not keep): for comparing.
    var untimed: ShowEvent {
        guard case .pictureCentred(let item, let file, let partner, _) = self else { return self }
        return .pictureCentred(item: item, file: file, pairedWith: partner)
    }
}
