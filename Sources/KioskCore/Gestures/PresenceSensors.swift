/// The keys and switches that say someone is there (`presence_keys`), by
/// kernel code. A PIR motion sensor on a Raspberry Pi is wired through the
/// `gpio-key` overlay (`dtoverlay=gpio-key,gpio=17,keycode=143`), so it is
/// an evdev device whose key (`KEY_WAKEUP`, 143) is down while it sees
/// motion; a proximity sensor is a switch (`SW_FRONT_PROXIMITY`) that is on
/// while something is near. Either says someone is there only to the
/// display (``ShowEvent/presenceSensed(held:)``): it wakes it and keeps it
/// from idling, but does not hold the show's slides the way a touch does,
/// or a hallway's passers-by would stop the show.
public struct PresenceInputs: Equatable, Sendable {
    /// `EV_KEY` codes.
    public var keys: Set<UInt16>
    /// `EV_SW` codes.
    public var switches: Set<UInt16>

    /// The names the setting has unless the config says otherwise.
    public static let defaultNames = ["KEY_WAKEUP", "SW_FRONT_PROXIMITY"]
    public init(keys: Set<UInt16> = [], switches: Set<UInt16> = []) {
        self.keys = keys
        self.switches = switches
    }

    public var isEmpty: Bool { keys.isEmpty && switches.isEmpty }

    /// True when `event` is one of these keys or switches changing.
    public func contains(_ event: InputEvent) -> Bool {
        switch event.type {
        case InputCode.key: return keys.contains(event.code)
        case InputCode.switchEvent: return switches.contains(event.code)
        default: return false
        }
    }
}

/// Whether any presence sensor, on any device, says someone is there now:
/// a key down (a press or the kernel's autorepeat) or a switch on holds
/// until it is released, switched off, or its device goes away.
public struct PresenceSensors: Sendable {
    private struct Sensor: Hashable {
        var device: String
        var type: UInt16
        var code: UInt16
    }

    private var held: Set<Sensor> = []

    public init() {}

    /// True while any sensor says someone is there.
    public var isHeld: Bool { !held.isEmpty }

    /// A presence key's or switch's event from `device` (``PresenceInputs/contains(_:)``).
    public mutating func take(_ event: InputEvent, from device: String) {
        let sensor = Sensor(device: device, type: event.type, code: event.code)
        if event.value != 0 { held.insert(sensor) } else { held.remove(sensor) }
    }

    /// `device` went away: its sensors hold nothing. Returns true if one did.
    public mutating func forget(device: String) -> Bool {
        let before = held.count
        held = held.filter { $0.device != device }
        return held.count != before
    }
}

extension SettingFormat where Value == [String] {
    /// `presence_keys`: kernel key and switch names (`KEY_...`, `BTN_...`,
    /// `SW_...`), a list or a comma-separated string; `"none"` or `[]` for
    /// none. The daemon checks the names against libevdev's when it loads
    /// the settings.
    static var presenceKeys: Self {
        SettingFormat(read: { value in
            if value == .string("none") { return [] }
            guard let names = value.names else {
                throw SettingProblem("expected a list of kernel key and switch names, e.g. [\"KEY_WAKEUP\", \"SW_FRONT_PROXIMITY\"], or \"none\"")
            }
            for name in names where !["KEY_", "BTN_", "SW_"].contains(where: name.hasPrefix) {
                throw SettingProblem("a presence input is a key (KEY_... or BTN_...) or a switch (SW_...), as evtest shows them", value: name)
            }
            return names
        }, write: { $0.isEmpty ? .string("none") : .list($0.map(SettingValue.string)) })
    }
}
