import HDMICEC
import KioskCore
import LinuxPlatform
import SystemCalls

/// What the control socket asks of the display's power.
protocol DisplayPowerControl: AnyObject {
    /// What was asked: `on`, `off` or `schedule` (``DisplayPower/requested``).
    var requested: String { get }
    /// `kioskctl display on|off|auto`: obeyed at once.
    func request(_ request: PowerRequest)
}

/// A TV's side of the display's power: ``CECAdapter``, or a test's.
protocol TVLink: AnyObject {
    var path: String { get }
    func sendStandby() throws(SystemCallError)
    func sendWake() throws(SystemCallError)
}

extension CECAdapter: TVLink {}

/// Switches the display off and on as asked (``DisplayPower``: the
/// request, else the schedule), and the TV with it over HDMI-CEC. Works
/// on Unix time from `wallClock`, so a test runs a schedule on simulated
/// time; ``DisplayPowerSource`` gives it the real clock and a timer.
final class PowerKeeper: DisplayPowerControl {
    private(set) var power: DisplayPower
    let controller: ShowController
    let tv: (any TVLink)?
    let log: (LogLine) -> Void
    let wallClock: () -> Int64
    let utcOffset: (Int64) -> Int
    /// Told when to call ``check()`` next (Unix time; nil: only when asked).
    var rearm: (Int64?) -> Void = { _ in }
    /// When ``check()`` is due next.
    private(set) var nextCheck: Int64?

    init(
        schedule: DisplaySchedule?, controller: ShowController, tv: (any TVLink)?, log: @escaping (LogLine) -> Void,
        wallClock: @escaping () -> Int64, utcOffset: @escaping (Int64) -> Int
    ) {
        power = DisplayPower(schedule: schedule)
        self.controller = controller
        self.tv = tv
        self.log = log
        self.wallClock = wallClock
        self.utcOffset = utcOffset
    }

    var requested: String { power.requested }

    func request(_ request: PowerRequest) {
        power.request = request
        check(why: "kioskctl display \(request.rawValue)")
    }

    /// A reload brought another `display_schedule`.
    func use(_ schedule: DisplaySchedule?) {
        guard schedule != power.schedule else { return }
        power.schedule = schedule
        check()
    }

    /// Puts the display (and the TV) in the state wanted now, and says when to look again.
    func check(why: String? = nil) {
        let now = wallClock()
        let on = power.wantsOn(at: now, utcOffset: utcOffset)
        let reason = why ?? power.schedule.map { "display_schedule \"\($0)\"" } ?? "start"
        if on && controller.snapshot.asleep {
            controller.wake(why: reason)
            tell("wake") { tv throws(SystemCallError) in try tv.sendWake() }
        } else if !on && !controller.snapshot.asleep {
            controller.sleep(why: reason)
            tell("standby") { tv throws(SystemCallError) in try tv.sendStandby() }
        }
        nextCheck = power.nextChange(after: now, utcOffset: utcOffset)
        rearm(nextCheck)
    }

    /// At the start: the TV is told the state the display starts in.
    func announceToTV() {
        if controller.snapshot.asleep {
            tell("standby") { tv throws(SystemCallError) in try tv.sendStandby() }
        } else {
            tell("wake") { tv throws(SystemCallError) in try tv.sendWake() }
        }
    }

    private func tell(_ what: String, _ send: (any TVLink) throws(SystemCallError) -> Void) {
        guard let tv else { return }
        do {
            try send(tv)
            log(.info("cec: \(what) sent on \(tv.path)"))
        } catch {
            log(.warning("cec: \(what) not sent: \(error)"))
        }
    }
}

/// The display's power as a source of the show: a wall-clock timer for
/// the schedule's next change (re-armed when the clock is set: NTP, an
/// operator), and the CEC adapter's results. While the display is off
/// and no change is due, it asks for no wake-up at all.
final class DisplayPowerSource: ShowSource {
    let keeper: PowerKeeper
    private let timer: WallClockTimer
    private let cec: CECAdapter?
    private var registrations: [Registration] = []

    init(keeper: PowerKeeper, cec: CECAdapter?) throws(SystemCallError) {
        self.keeper = keeper
        self.cec = cec
        timer = try WallClockTimer()
    }

    func attach(to loop: EventLoop, controller: ShowController) throws(SystemCallError) {
        let keeper = keeper, timer = timer
        keeper.rearm = { time in
            do { try timer.arm(at: time) } catch { keeper.log(.warning("display_schedule: cannot arm the timer: \(error)")) }
        }
        registrations.append(try loop.register(timer.descriptor.rawValue, name: "display power") { _ in
            switch timer.take() {
            case .fired: keeper.check()
            case .clockSet:
                keeper.log(.info("the clock was set: the display schedule is worked out again"))
                keeper.check()
            case .nothing: break
            }
        })
        if let cec {
            registrations.append(try loop.register(cec.fd, name: "cec") { _ in
                for failure in cec.takeResults() { keeper.log(.warning("cec: \(failure)")) }
            })
        }
        keeper.check()
        keeper.announceToTV()
    }
}
