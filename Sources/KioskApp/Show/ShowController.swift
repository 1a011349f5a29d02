import ImageCodecs
import KioskCore
import KioskRendering
import SystemCalls

/// The running show's one door. Sources (signals, the control socket,
/// touch and keys, the folder watch, the display's power) hand it
/// ``ShowCommand``s; every ``ShowEvent`` the show emits goes out to each
/// subscriber (the log, systemd's notifications, the socket's `watch`
/// clients, the resume file), and every ``SensorReading`` a source reports
/// to each listener (the display's power, the MQTT state); and what they
/// may ask of the show they read from a ``ShowSnapshot``. No source touches
/// the ``RunningShow`` itself, so none needs to know about the others.
final class ShowController {
    /// The show itself: for the show's own collaborators (its loop, the
    /// reload) and tests; sources read ``snapshot`` instead.
    let show: RunningShow
    /// The time source: the monotonic clock, or a test's simulated one.
    let clock: () -> Double
    private let subscribers = Subscribers<ShowEvent>()
    private let listeners = Subscribers<SensorReading>()
    /// Set by ``stop(reason:)``: the run loop ends after this wake-up.
    private(set) var stopRequested = false
    /// Why it stopped: a signal's name, or nil when asked by the program.
    private(set) var stopReason: String?

    init(show: RunningShow, clock: @escaping () -> Double = MonotonicClock.now) {
        self.show = show
        self.clock = clock
        show.emit = { [unowned self] event in publish(event) }
    }

    /// Calls `handler` with every event from now on, in the order they
    /// happen, until the subscription returned ends or is released.
    func subscribe(_ handler: @escaping (ShowEvent) -> Void) -> ShowSubscription { subscribers.add(handler) }

    func publish(_ event: ShowEvent) { subscribers.send(event) }

    /// Calls `handler` with every sensor reading from now on, until the subscription returned ends or is released.
    func listen(_ handler: @escaping (SensorReading) -> Void) -> ShowSubscription { listeners.add(handler) }

    /// A source senses something about the room (``SensorReading``).
    func report(_ reading: SensorReading) { listeners.send(reading) }

    /// Commands performed so far: what a reader caching the show's state checks.
    private(set) var commandsPerformed = 0

    /// Obeys `command` now, mid-slide too. `sensedAt`: when the kernel
    /// stamped the input it comes from (a finger's move), if it did.
    /// `startedAt`: when the command took effect, if a moment ago (a group
    /// beat's slide, due before the wake-up that performs it); now if nil.
    func perform(_ command: ShowCommand, startedAt: Double? = nil, sensedAt: Double? = nil) {
        commandsPerformed += 1
        let now = clock()
        show.command(command, at: min(startedAt ?? now, now), sensedAt: sensedAt)
        switch command {
        case .personPresent, .touch(.caught), .zoom: report(.presence)
        default: break
        }
    }

    /// Shows a message over everything, or clears it; returns the message shown now.
    @discardableResult
    func message(_ request: MessageRequest) -> ScreenMessage? {
        commandsPerformed += 1
        show.message(request, at: clock())
        return show.texts.message
    }

    /// Frames from now on dimmed to `percent` in software (no backlight to turn down).
    func dim(to percent: Int) {
        show.softwareBrightness = percent
    }

    /// A motion sensor or proximity switch changed: someone is there while
    /// `held`. Only the display hears it: it does not hold the slides.
    func sensed(presenceHeld held: Bool) {
        report(.presenceSensed(held: held))
    }

    /// A library changed: `news` from the one whose ids begin with `scope`
    /// (nil: the show's only library, a test's folder).
    func folderChanged(_ news: [FolderNews], within scope: String? = nil) {
        commandsPerformed += 1
        show.folderChanged(news, within: scope, at: clock())
    }

    /// Where the pictures come from, and whether each can be read now
    /// (`status`'s `libraries`); the ``LibrarySource`` keeps it.
    var libraries: [LibraryStatus] = [] {
        didSet { commandsPerformed += 1 }
    }

    /// A reload or a hotplug changed the display: the show moves to
    /// `screen`, keeping its place; then ``ShowEvent/screenChanged``.
    func move(to screen: any ShowScreen, assembly: ShowAssembly, announce: Bool = true) {
        commandsPerformed += 1
        show.move(to: screen, assembly: assembly, at: clock(), announce: announce)
        publish(.screenChanged)
    }

    /// The same, laid out by `settings` for `screen`, keeping the playlist
    /// it has: a hotplug's new screen, or the old one back after a reload's
    /// new one failed. Throws when the layout does not fit the screen.
    func move(to screen: any ShowScreen, settings: KioskSettings, announce: Bool = true) throws(ShowSetupError) {
        move(to: screen, assembly: try assembly(for: screen, settings: settings), announce: announce)
    }

    /// The screen the show is on: what a reload lays the show out for when the display stays.
    var screen: any ShowScreen { show.screen }

    /// The show laid out by `settings` for `screen`'s panel, with `listing`,
    /// or the playlist it has now (a new screen does not list the folder again).
    func assembly(for screen: any ShowScreen, settings: KioskSettings, listing: FolderListing? = nil) throws(ShowSetupError) -> ShowAssembly {
        try ShowAssembly(settings: settings, panel: screen.panelSize, listing: listing ?? FolderListing(entries: snapshot.playlist.entries, notes: []))
    }

    /// New settings or a new folder listing (a reload), the show keeping its place.
    func reassemble(_ assembly: ShowAssembly) {
        commandsPerformed += 1
        show.reassemble(assembly, at: clock())
    }

    /// Ends the show after this wake-up; `failed`: for a reason the
    /// daemon exits 1 for (so systemd's `Restart=on-failure` starts it again).
    func stop(reason: String?, failed: Bool = false) {
        stopRequested = true
        stopReason = reason
        self.failed = failed
    }

    /// True when the show stopped on a failure, not a request.
    private(set) var failed = false

    /// The seat goes to another session (a VT switch): the show stops
    /// drawing at once and keeps its time; then ``ShowEvent/seatChanged(active:)``.
    func seatDisabled() {
        commandsPerformed += 1
        show.releaseDisplay(at: clock())
        publish(.seatChanged(active: false))
    }

    /// The seat is back: the show draws where it now is, with a full mode set.
    func seatEnabled() {
        commandsPerformed += 1
        show.retakeDisplay(at: clock())
        publish(.seatChanged(active: true))
    }

    /// The display is switched off: nothing is drawn, decoded or slid until ``wake(why:)``.
    func sleep(why: String) {
        commandsPerformed += 1
        show.sleep(at: clock(), why: why)
    }

    /// The display is switched on: the centred picture at once, with a full mode set.
    func wake(why: String) {
        commandsPerformed += 1
        show.wake(at: clock(), why: why)
    }

    /// The connector in use lost its screen: the show keeps its time unseen
    /// until a screen is back (``move(to:assembly:)``).
    func displayDisconnected(why: String) {
        commandsPerformed += 1
        show.disconnect(at: clock(), why: why)
    }

    /// What the show has done, and whether it is still.
    var statistics: ShowStatistics { show.progress(at: clock()) }

    /// The show as it is now: what any source may ask of it.
    var snapshot: ShowSnapshot { show.snapshot(at: clock()) }

    /// The makings of the frame on screen, to compose again off the loop
    /// (`screenshot`, the MQTT picture), with the playlist item in the
    /// centre; nil while nothing is shown.
    func frameOnScreen() -> (recipe: FrameRecipe, centredItem: Int?)? {
        show.frameRecipe().map { ($0, show.centredItem) }
    }

    /// The file of playlist item `item` and the loader the show decodes
    /// with, to decode it again off the loop (`thumbnail`); nil past the playlist's end.
    func pictureToDecode(_ item: Int) -> (path: String, loader: PictureLoader)? {
        let playlist = snapshot.playlist
        return item < playlist.count ? (playlist[item], show.recipe.loader) : nil
    }
}

/// One subscription to a ``ShowController``'s events or readings: it ends
/// when ``end()`` is called or when the subscription is released, so a
/// source that keeps its subscription may capture itself `unowned`.
final class ShowSubscription {
    private var ending: (() -> Void)?

    fileprivate init(ending: @escaping () -> Void) { self.ending = ending }

    /// The handler is not called again (not even for the message being sent now, if it has not been reached).
    func end() {
        ending?()
        ending = nil
    }

    deinit { end() }
}

/// Handlers called in the order they subscribed; one that ends while a
/// message is being sent is not called with it.
private final class Subscribers<Message> {
    private final class Entry {
        let handler: (Message) -> Void
        var active = true
        init(_ handler: @escaping (Message) -> Void) { self.handler = handler }
    }

    private var entries: [Entry] = []

    func add(_ handler: @escaping (Message) -> Void) -> ShowSubscription {
        let entry = Entry(handler)
        entries.append(entry)
        return ShowSubscription { [weak self, weak entry] in
            entry?.active = false
            self?.entries.removeAll { $0 === entry }
        }
    }

    func send(_ message: Message) {
        for entry in entries where entry.active { entry.handler(message) }
    }
}
