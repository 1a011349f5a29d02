import KioskCore
import LinuxPlatform
import SystemCalls

/// systemd as a source of the show (``ServiceNotifications`` decides what
/// to say): readiness and the status line follow the show's events, and
/// the watchdog is pinged from a deadline of the run loop itself, so a
/// loop that hangs, or a screen whose flip never completes, stops the
/// pings and systemd restarts kioskd (`WatchdogSec=` in the unit).
final class ServiceSource: ShowSource {
    private var notifications: ServiceNotifications
    /// `sd_notify` in the daemon; a test's recorder.
    private let send: (String) -> Void

    init(watchdogInterval: Double?, send: @escaping (String) -> Void) {
        notifications = ServiceNotifications(watchdogInterval: watchdogInterval)
        self.send = send
    }

    func attach(to loop: EventLoop, controller: ShowController) throws(SystemCallError) {
        // `.stopped` is published after the loop has ended: the job holds its sources until then.
        events = controller.subscribe { [unowned self] event in
            if let message = notifications.message(for: event) { send(message) }
        }
        guard notifications.watchdogInterval != nil else { return }
        self.controller = controller
        watchdog = loop.deadline(named: "watchdog") { [unowned self] now in pingIfDue(at: now) }
        pingIfDue(at: controller.clock())
    }

    private weak var controller: ShowController?
    private var events: ShowSubscription?
    private var watchdog: Deadline?

    private func pingIfDue(at now: Double) {
        guard let controller else { return }
        if notifications.ping(at: now, showIsStuck: controller.snapshot.stuck) { send("WATCHDOG=1") }
        watchdog?.arm(at: notifications.nextPing(at: now))
    }
}
