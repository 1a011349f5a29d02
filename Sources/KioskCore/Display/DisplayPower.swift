/// What the operator asked of the display's power: `kioskctl display
/// on|off|auto`. `auto` (the start) follows `display_schedule`, or keeps
/// the display on when there is none.
public enum PowerRequest: String, Sendable, Hashable, CaseIterable {
    case on, off, auto
}

/// What the panel is doing, as `status` reports it (`panel`).
public enum PanelState: String, Sendable, Hashable {
    /// Showing the show.
    case active
    /// Switched off (`display off`, the schedule): the CRTC is off, nothing is drawn or decoded.
    case off
    /// The connector in use has no screen: nothing is drawn, the show keeps its time.
    case disconnected
    /// The seat is another session's (a VT switch): that session owns the display.
    case elsewhere = "other_session"
}

/// Whether the display should be on, from the request and the schedule:
/// pure, so every rule is tested without a clock.
public struct DisplayPower: Sendable, Hashable {
    public var request: PowerRequest = .auto
    public var schedule: DisplaySchedule?
    /// Its levels through the day; its `off` hours are off-hours too.
    public var brightness: Brightness

    public init(schedule: DisplaySchedule?, brightness: Brightness = .full) {
        self.schedule = schedule
        self.brightness = brightness
    }

    /// What `status` says was asked (`display_power`): `on`, `off`, or
    /// `schedule` while a schedule decides.
    public var requested: String {
        switch request {
        case .on: return "on"
        case .off: return "off"
        case .auto: return schedule == nil && !brightness.turnsOff ? "on" : "schedule"
        }
    }

    /// True inside the schedule's hours (always, without one) and outside
    /// the brightness's `off` hours.
    public func inHours(at utc: Int64, utcOffset: (Int64) -> Int) -> Bool {
        (schedule?.isOn(at: utc, utcOffset: utcOffset) ?? true) && brightness.level(at: utc, utcOffset: utcOffset) != .off
    }

    /// True when the display should be on at `utc` (Unix seconds).
    public func wantsOn(at utc: Int64, utcOffset: (Int64) -> Int) -> Bool {
        switch request {
        case .on: return true
        case .off: return false
        case .auto: return inHours(at: utc, utcOffset: utcOffset)
        }
    }

    /// When to look again: the schedule's or the brightness's next change
    /// (a new level is set then too, whatever was asked); nil for none.
    public func nextChange(after utc: Int64, utcOffset: (Int64) -> Int) -> Int64? {
        let levels = brightness.nextChange(after: utc, utcOffset: utcOffset)
        guard request == .auto, let schedule else { return levels }
        return [schedule.nextChange(after: utc, utcOffset: utcOffset)?.at, levels].compactMap { $0 }.min()
    }
}
