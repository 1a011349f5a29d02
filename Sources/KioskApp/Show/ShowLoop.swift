import KioskCore
import LinuxPlatform
import SystemCalls

/// Runs a show in real time on one ``EventLoop``: the screen's flip events,
/// the decoder's hand-off and the show's own deadline (the next frame, a
/// display retry, or the next slide), plus every ``ShowSource`` added. In
/// each wake-up, once the screen's and the input devices' events are
/// handled and before any other source's (``EventLoop/afterUrgentEvents``),
/// and again after them, the show starts what is due and draws if it
/// should; then its deadline is set again. While a flip is pending nothing
/// is armed.
final class ShowLoop {
    let controller: ShowController
    let loop: EventLoop
    private let showDeadline: Deadline
    private var registrations: [Registration] = []
    private var screenRegistration: Registration?
    private var sources: [ShowSource] = []
    private var screenChanges: ShowSubscription?

    /// `texts`: the worker the show's text is drawn on, if not in line.
    init(controller: ShowController, decoder: DecodeWorker, texts: TextWorker? = nil) throws(SystemCallError) {
        self.controller = controller
        loop = try EventLoop()
        let show = controller.show, clock = controller.clock
        registrations.append(try loop.register(decoder.readyFD, name: "decoder") { _ in show.picturesReady(at: clock()) })
        registrations.append(try loop.register(decoder.clipWorker.readyFD, name: "clip") { _ in show.clipFramesReady(at: clock()) })
        if let texts { registrations.append(try loop.register(texts.readyFD, name: "text") { _ in show.textsReady(at: clock()) }) }
        // Its work is done by update(at:), which runs in every wake-up
        // before the other sources' events: a frame is never late for them.
        // Armed again at once, so they also stop for the next frame's moment.
        let showDeadline = loop.deadline(named: "show") { _ in }
        self.showDeadline = showDeadline
        loop.afterUrgentEvents = {
            show.update(at: clock())
            showDeadline.arm(at: show.nextWakeUp(at: clock()))
        }
        try watchScreen()
        screenChanges = controller.subscribe { [weak self, unowned controller] event in
            guard case .screenChanged = event, let self else { return }
            // Without its flip events the show would wait for a flip forever: a failure here ends the loop.
            do { try watchScreen() } catch { controller.stop(reason: "the new display cannot be watched: \(error)") }
        }
    }

    /// Watches the show's screen's descriptor for flip events (the old one's no more).
    private func watchScreen() throws(SystemCallError) {
        if let old = screenRegistration { loop.unregister(old) }
        screenRegistration = nil
        let show = controller.show, clock = controller.clock
        if let fd = show.screen.eventDescriptor {
            screenRegistration = try loop.register(fd, name: "screen", priority: .urgent) { _ in show.screenEvents(at: clock()) }
        }
    }

    /// Joins `source` to the loop.
    func add(_ source: ShowSource) throws(SystemCallError) {
        try source.attach(to: loop, controller: controller)
        sources.append(source)
    }

    /// Runs until a source stops the show (its reason returned), or until
    /// `stop` says so (asked after every wake-up; nil returned).
    func run(until stop: (ShowStatistics) -> Bool = { _ in false }) throws(SystemCallError) -> String? {
        let show = controller.show
        while !controller.stopRequested && !stop(controller.statistics) {
            let now = controller.clock()
            show.update(at: now)
            showDeadline.arm(at: show.nextWakeUp(at: controller.clock()))
            try loop.runOnce()
        }
        return controller.stopReason
    }
}
