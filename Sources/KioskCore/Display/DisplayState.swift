/// Whether the display is on, and if not why: what `status` will name
/// (issue 36). One state, worked out from three things: the operator's
/// request (`kioskctl display`), `display_schedule`, and whether anyone
/// has been at the kiosk lately (`idle_off`).
public enum DisplayState: String, Sendable, Hashable, CaseIterable {
    case on
    /// Outside the schedule's hours.
    case offBySchedule = "off_by_schedule"
    /// Nobody at the kiosk for `idle_off`.
    case offByIdle = "off_by_idle"
    /// `display off` (a command, Home Assistant's switch).
    case offByCommand = "off_by_command"
}

/// Who may turn the display on by being there (`wake_on_presence`).
public enum PresenceWaking: String, Sendable, Hashable, CaseIterable {
    /// Presence turns nothing on: only the schedule and commands do.
    case never = "false"
    /// Presence turns a display that idled off on again, inside the schedule's hours.
    case inHours = "true"
    /// Also in the schedule's off-hours: on for `idle_off` after the last presence.
    case always
}

/// The display's state machine: the request, the schedule and presence,
/// on two clocks. The schedule is on the wall clock (Unix seconds, so
/// "19:00" means the local evening); being idle is on the monotonic clock
/// (seconds), which no clock step can shorten or stretch. Pure: every
/// transition is tested on simulated time, and the show asks it
/// ``update(wall:now:utcOffset:)`` and ``nextChange(wall:now:utcOffset:)``
/// (the app's `PowerKeeper`).
///
/// Rules, as an operator would expect them:
/// - `display off` is off and `display on` is on, whatever else says:
///   presence and idleness change nothing until `display auto`.
/// - Under `auto`, outside the schedule's hours the display is off by the
///   schedule. Presence turns it on only with `wake_on_presence = "always"`,
///   and then for `idle_off` after the last presence (10 minutes without one).
/// - Inside the hours, with `idle_off` set, it goes off after that long
///   with nobody there, and the next presence turns it on again (unless
///   `wake_on_presence = false`).
/// - The schedule turning the display on counts as presence (a new day
///   starts awake), and so does `display auto` (someone just asked).
public struct DisplayStateMachine: Sendable, Hashable {
    public var power: DisplayPower
    /// Seconds without presence after which the display goes off; nil: never.
    public var idleOff: Double?
    public var waking: PresenceWaking
    /// When someone was last there (monotonic seconds): a touch, a key, a
    /// remote, a motion sensor; or the start, the schedule's morning, `display auto`.
    public private(set) var lastPresence: Double
    /// Presence turned the display on in the off-hours (`always`).
    public private(set) var awakeOutOfHours = false
    /// A motion sensor or proximity switch says someone is there now: no
    /// idleness runs until it says nobody (its last word counts as presence).
    public private(set) var presenceHeld = false
    /// Whether the schedule said on when last asked, to see its edges.
    private var scheduleWasOn: Bool?

    /// How long the display stays on after presence in the off-hours when `idle_off` is not set.
    public static let outOfHoursStay = 600.0

    public init(power: DisplayPower, idleOff: Double? = nil, waking: PresenceWaking = .inHours, now: Double) {
        self.power = power
        self.idleOff = idleOff
        self.waking = waking
        lastPresence = now
    }

    /// Someone is there. Returns true when that turns the display on.
    @discardableResult
    public mutating func presence(wall: Int64, now: Double, utcOffset: (Int64) -> Int) -> Bool {
        let before = update(wall: wall, now: now, utcOffset: utcOffset)
        switch (before, waking) {
        case (.offByCommand, _), (.offByIdle, .never), (.offBySchedule, .never), (.offBySchedule, .inHours):
            // Seen, but not allowed to turn it on: nothing changes.
            return false
        case (.offBySchedule, .always):
            awakeOutOfHours = true
        case (.on, _), (.offByIdle, _):
            break
        }
        lastPresence = now
        return before != .on && state(wall: wall, now: now, utcOffset: utcOffset) == .on
    }

    /// The state now, the schedule's edges noticed first: what the show
    /// calls at every check (its timers, a command, a reload).
    public mutating func update(wall: Int64, now: Double, utcOffset: (Int64) -> Int) -> DisplayState {
        noticeScheduleEdge(wall: wall, now: now, utcOffset: utcOffset)
        return state(wall: wall, now: now, utcOffset: utcOffset)
    }

    /// The sensors say someone is there (`held`) or, now, nobody. Both
    /// count as presence, a moment's; while held, idleness waits. Returns
    /// true when that turns the display on.
    @discardableResult
    public mutating func presence(held: Bool, wall: Int64, now: Double, utcOffset: (Int64) -> Int) -> Bool {
        let woke = presence(wall: wall, now: now, utcOffset: utcOffset)
        // Held only where that presence counted: not behind `display off` or a schedule it may not wake.
        presenceHeld = held && lastPresence == now
        return woke
    }

    /// The operator's `display on|off|auto`; `auto` counts as presence.
    public mutating func request(_ request: PowerRequest, now: Double) {
        power.request = request
        awakeOutOfHours = false
        if request == .auto { lastPresence = now }
    }

    /// Notes the schedule's edges: its morning counts as presence and ends
    /// an out-of-hours wake (the hours themselves keep it on now).
    private mutating func noticeScheduleEdge(wall: Int64, now: Double, utcOffset: (Int64) -> Int) {
        let on = power.inHours(at: wall, utcOffset: utcOffset)
        defer { scheduleWasOn = on }
        guard let was = scheduleWasOn, was != on else { return }
        if on {
            lastPresence = now
            awakeOutOfHours = false
        }
    }

    /// The state now.
    public func state(wall: Int64, now: Double, utcOffset: (Int64) -> Int) -> DisplayState {
        switch power.request {
        case .off: return .offByCommand
        case .on: return .on
        case .auto: break
        }
        let inHours = power.inHours(at: wall, utcOffset: utcOffset)
        if !inHours {
            guard awakeOutOfHours, presenceHeld || now - lastPresence < idleOff ?? Self.outOfHoursStay else { return .offBySchedule }
            return .on
        }
        if let idleOff, !presenceHeld, now - lastPresence >= idleOff { return .offByIdle }
        return .on
    }

    /// When to ask again: the schedule's next change (wall clock), and
    /// when idleness would turn the display off (monotonic). Nil for either
    /// that cannot come; nothing is due while off with presence waiting.
    public func nextChange(wall: Int64, now: Double, utcOffset: (Int64) -> Int) -> (wall: Int64?, monotonic: Double?) {
        let schedule = power.nextChange(after: wall, utcOffset: utcOffset)
        guard power.request == .auto, state(wall: wall, now: now, utcOffset: utcOffset) == .on else { return (schedule, nil) }
        let inHours = power.inHours(at: wall, utcOffset: utcOffset)
        let stay = inHours ? idleOff : (idleOff ?? Self.outOfHoursStay)
        return (schedule, presenceHeld ? nil : stay.map { lastPresence + $0 })
    }
}

extension DisplayStateMachine {
    /// `idle_off` as the config file writes it: `10m`, `90s`, `none`.
    public var idleOffText: String { SettingFormat<Double?>.duration.write(idleOff).map(\.written) ?? "none" }
}
