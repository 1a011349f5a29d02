import DRMOutput
import KioskCore
import LinuxPlatform
import SystemCalls

/// Screens unplugged and plugged back: the kernel's uevents for the DRM
/// card in use (``UEventSocket``). On every `change` of the card (a real
/// hotplug says `HOTPLUG=1`; a test's synthetic event says nothing more)
/// the connectors are probed again (``DisplayKeeper/probe(_:showing:)``):
///
/// - the connector in use has no screen: the show stops drawing and keeps
///   its time (one line in the log);
/// - a screen is back (or with `connector = "auto"`, one on another
///   connector), or the preferred mode changed: a new output with a full
///   mode set, the strip laid out for its size, the current picture drawn
///   at once.
///
/// While the seat is another session's, nothing is probed (the session
/// has the display); when the seat comes back the connectors are probed
/// once, for the screens that came or went meanwhile.
final class HotplugSource: ShowSource {
    private let socket: UEventSocket
    private let keeper: DisplayKeeper
    private let settings: () -> KioskSettings
    private let log: (LogLine) -> Void
    private var registration: Registration?
    private var seatChanges: ShowSubscription?
    /// Probes that failed in a row (an unreadable card): logged once.
    private var failing = false

    init(keeper: DisplayKeeper, settings: @escaping () -> KioskSettings, log: @escaping (LogLine) -> Void) throws(SystemCallError) {
        socket = try UEventSocket()
        self.keeper = keeper
        self.settings = settings
        self.log = log
    }

    func attach(to loop: EventLoop, controller: ShowController) throws(SystemCallError) {
        registration = try loop.register(socket.descriptor.rawValue, name: "hotplug") { [unowned self, unowned controller] _ in
            let (events, overflowed) = socket.take()
            guard let number = keeper.output?.card.deviceNumber else { return }
            if overflowed || events.contains(where: { $0.isChange(ofDRMDevice: number.major, number.minor) }) {
                cardChanged(controller)
            }
        }
        seatChanges = controller.subscribe { [unowned self, unowned controller] event in
            if case .seatChanged(active: true) = event { cardChanged(controller) }
        }
    }

    /// Probes the connectors and follows what it finds.
    func cardChanged(_ controller: ShowController) {
        let show = controller.snapshot
        guard show.panel != .elsewhere else { return }
        let current = settings()
        do {
            switch try keeper.probe(current.display, showing: show.panel != .disconnected) {
            case .unchanged:
                break
            case .disconnected(let why):
                controller.displayDisconnected(why: why)
            case .screen(let output):
                let wasDisconnected = show.panel == .disconnected
                do {
                    try controller.move(to: output, settings: current, announce: false)
                    // Coming back is logged by the show (``ShowEvent/panelChanged(_:why:)``).
                    if !wasDisconnected { log("showing on \(output.summary), rotation \(current.display.rotation.rawValue) (the screen changed)") }
                } catch {
                    controller.displayDisconnected(why: "the layout does not fit \(output.summary): \(error)")
                }
            }
            failing = false
        } catch {
            if !failing { log(.warning("display: cannot probe the connectors: \(error); trying again at the next hotplug")) }
            failing = true
        }
    }
}
