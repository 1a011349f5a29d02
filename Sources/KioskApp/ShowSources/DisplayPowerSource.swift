import HDMICEC
import KioskCore
import LinuxPlatform
import SystemCalls

/// What the control socket asks of the display's power.
protocol DisplayPowerControl: AnyObject {
    /// What was asked: `on`, `off` or `schedule` (``DisplayPower/requested``).
    var requested: String { get }
    /// Whether the display is on, and if not why (`status`'s `display_state`).
    var state: DisplayState { get }
    /// `kioskctl display on|off|auto`: obeyed at once.
    func request(_ request: PowerRequest)
    /// The brightness set now (0 to 100; `status`'s `brightness`).
    var brightness: Int { get }
    /// How: `software`, or `backlight:<name>` (`status`'s `dimmer`).
    var dimmerName: String { get }
    /// Someone at the kiosk now (`status`'s `presence`).
    var someoneThere: Bool { get }
    /// The light sensor's last reading (`status`'s `lux`); nil without one.
    var lux: Double? { get }
}

/// A TV's side of the display's power: ``CECAdapter``, or a test's.
protocol TVLink: AnyObject {
    var path: String { get }
    func sendStandby() throws(SystemCallError)
    func sendWake() throws(SystemCallError)
}

extension CECAdapter: TVLink {}

/// Switches the display off and on as asked (``DisplayStateMachine``: the
/// request, else the schedule, and `idle_off` with presence), and the TV
/// with it over HDMI-CEC. Works on Unix time from `wallClock` and the
/// controller's clock, so a test runs a schedule and idleness on simulated
/// time; ``DisplayPowerSource`` gives it the real clocks and timers.
///
/// Its two other concerns are parts of their own, made with it:
/// ``PresenceKeeper`` (whether someone is there) and ``BrightnessKeeper``
/// (the level, the room's light, the dimmer).
final class PowerKeeper: DisplayPowerControl {
    private(set) var machine: DisplayStateMachine
    let controller: ShowController
    let tv: (any TVLink)?
    let log: (LogLine) -> Void
    let wallClock: () -> Int64
    let utcOffset: (Int64) -> Int
    /// Told when to call ``check()`` next (Unix time; nil: only when asked).
    var rearm: (Int64?) -> Void = { _ in }
    /// Told when idleness is next due (the controller's clock; nil: none).
    var rearmIdle: (Double?) -> Void = { _ in }
    /// When ``check()`` is due next for the schedule, and for `idle_off`.
    private(set) var nextCheck: Int64?
    private(set) var nextIdleCheck: Double?
    let presence: PresenceKeeper
    let lighting: BrightnessKeeper
    private var readings: ShowSubscription?

    init(
        schedule: DisplaySchedule?, brightness: Brightness = .full, idleOff: Double? = nil, waking: PresenceWaking = .inHours,
        controller: ShowController, tv: (any TVLink)?, dimmer: Dimmer = .software, log: @escaping (LogLine) -> Void,
        wallClock: @escaping () -> Int64, utcOffset: @escaping (Int64) -> Int
    ) {
        machine = DisplayStateMachine(
            power: DisplayPower(schedule: schedule, brightness: brightness), idleOff: idleOff, waking: waking, now: controller.clock())
        presence = PresenceKeeper(clock: controller.clock, report: controller.report)
        lighting = BrightnessKeeper(dimmer: dimmer, dim: controller.dim(to:), report: controller.report, log: log)
        self.controller = controller
        self.tv = tv
        self.log = log
        self.wallClock = wallClock
        self.utcOffset = utcOffset
        readings = controller.listen { [unowned self] reading in
            switch reading {
            case .presence: seen()
            case .presenceSensed(let held): seen(held: held)
            case .someoneThere, .lightMeasured: break  // its own
            }
        }
    }

    var requested: String { machine.power.requested }

    /// The level in force: `brightness`'s, no brighter than the room's light says.
    var brightness: Int { brightness(at: wallClock()) }

    private func brightness(at wall: Int64) -> Int {
        lighting.level(scheduled: machine.power.brightness.percent(at: wall, utcOffset: utcOffset))
    }

    var lux: Double? { lighting.lux }

    /// A light sensor's reading, in lux: a new level when it moves far enough (``AmbientDimming``).
    func ambientLight(lux: Double, curve: LightCurve) {
        if lighting.measured(lux: lux, curve: curve) { lighting.apply(brightness(at: wallClock())) }
    }

    var dimmerName: String { lighting.dimmer.name }

    var someoneThere: Bool { presence.someoneThere }

    var state: DisplayState { machine.state(wall: wallClock(), now: controller.clock(), utcOffset: utcOffset) }

    func request(_ request: PowerRequest) {
        machine.request(request, now: controller.clock())
        check(why: "kioskctl display \(request.rawValue)")
    }

    /// A reload brought other power settings (the schedule, `idle_off`, `wake_on_presence`).
    func use(_ settings: PowerSettings) {
        guard settings.schedule != machine.power.schedule || settings.idleOff != machine.idleOff || settings.wakeOnPresence != machine.waking
            || settings.brightness != machine.power.brightness else { return }
        machine.power.schedule = settings.schedule
        machine.power.brightness = settings.brightness
        machine.idleOff = settings.idleOff
        machine.waking = settings.wakeOnPresence
        check()
    }

    /// Someone is at the kiosk: it may wake the display, and it puts idleness
    /// back; a sensor's (`held` not nil) holds idleness off while it says so.
    private func seen(held: Bool? = nil) {
        let wall = wallClock(), now = controller.clock()
        presence.seen(held: held)
        let woke = held.map { machine.presence(held: $0, wall: wall, now: now, utcOffset: utcOffset) }
            ?? machine.presence(wall: wall, now: now, utcOffset: utcOffset)
        if woke {
            check(why: "someone is there")
        } else {
            armIdle()
        }
    }

    private func armIdle() {
        rearm(idle: machine.nextChange(wall: wallClock(), now: controller.clock(), utcOffset: utcOffset).monotonic)
    }

    private func rearm(idle: Double?) {
        nextIdleCheck = idle
        rearmIdle(idle)
    }

    /// Puts the display (and the TV) in the state wanted now, and says when to look again.
    func check(why: String? = nil) {
        let now = wallClock()
        let state = machine.update(wall: now, now: controller.clock(), utcOffset: utcOffset)
        let on = state == .on
        let reason = why ?? reason(for: state)
        if on && controller.snapshot.asleep {
            controller.wake(why: reason)
            tell("wake") { tv throws(SystemCallError) in try tv.sendWake() }
        } else if !on && !controller.snapshot.asleep {
            controller.sleep(why: reason)
            tell("standby") { tv throws(SystemCallError) in try tv.sendStandby() }
        }
        lighting.apply(brightness(at: now))
        let next = machine.nextChange(wall: now, now: controller.clock(), utcOffset: utcOffset)
        nextCheck = next.wall
        rearm(nextCheck)
        rearm(idle: next.monotonic)
    }

    /// Why the display is as it is, for the log.
    private func reason(for state: DisplayState) -> String {
        switch state {
        case .offByIdle:
            return "idle_off: nobody there for \(machine.idleOffText)"
        case .offBySchedule, .on:
            return machine.power.schedule.map { "display_schedule \"\($0)\"" } ?? "start"
        case .offByCommand:
            return "kioskctl display off"
        }
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
        let idle = loop.deadline(named: "idle_off") { _ in keeper.check() }
        keeper.rearmIdle = { time in idle.arm(at: time) }
        let presence = keeper.presence
        let presenceEnd = loop.deadline(named: "presence") { _ in presence.update() }
        presence.rearmEnd = { time in presenceEnd.arm(at: time) }
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
