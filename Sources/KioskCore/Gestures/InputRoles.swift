/// What an input device can do, as the kernel describes it (libevdev's
/// `has_property` and `has_event_code`): enough to decide what kioskd uses
/// it for.
public struct InputCapabilities: Equatable, Sendable {
    /// `INPUT_PROP_DIRECT`: the device is on the screen (a touchscreen).
    public var isDirect = false
    /// `ABS_X` and `ABS_Y`.
    public var hasAbsolutePosition = false
    /// `ABS_MT_SLOT` (its maximum + 1) with `ABS_MT_POSITION_X`/`Y`: a protocol B multitouch device.
    public var multitouchSlots: Int?
    public var hasTouchButton = false  // BTN_TOUCH
    public var hasLeftButton = false  // BTN_LEFT
    /// `REL_X`: a mouse (moves relative to where it was; no place on the screen).
    public var hasRelativeMotion = false
    /// Which of the key codes asked about it has.
    public var keys: Set<UInt16> = []
    /// It has one of the presence keys or switches asked about (``PresenceInputs``).
    public var sensesPresence = false
    /// Those of them down or on as it opens (someone is there already), as events.
    public var presenceDown: [InputEvent] = []

    public init() {}
}

/// What kioskd reads a device for: `input = "auto"` takes every device
/// with at least one role.
public struct InputRoles: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Touches that drive the strip: touchscreens and absolute pointers with a button.
    public static let touch = InputRoles(rawValue: 1)
    /// Keys that move or pause the show.
    public static let keys = InputRoles(rawValue: 2)
    /// A motion sensor or proximity switch: someone is there (``PresenceInputs``).
    public static let presence = InputRoles(rawValue: 4)

    /// - Touch: a touchscreen (`INPUT_PROP_DIRECT`, or absolute X/Y with
    ///   `BTN_TOUCH`), or an absolute pointer with `BTN_LEFT` (tablets,
    ///   QEMU's usb-tablet, eGalax-style panels). Not a mouse (relative
    ///   motion) and not a touchpad (absolute, but neither direct nor a button).
    /// - Keys: any key `keyMap` maps (arrows, page keys, media and remote keys, Space).
    /// - Presence: any of `presence_keys` (a PIR's `KEY_WAKEUP`, `SW_FRONT_PROXIMITY`).
    public init(_ device: InputCapabilities, keyMap: KeyMap) {
        var roles: InputRoles = []
        let touchscreen = device.hasAbsolutePosition && (device.isDirect || device.hasTouchButton) || device.isDirect && device.multitouchSlots != nil
        let absolutePointer = device.hasAbsolutePosition && device.hasLeftButton && !device.hasRelativeMotion
        if touchscreen || absolutePointer { roles.insert(.touch) }
        if !device.keys.isDisjoint(with: keyMap.codes) { roles.insert(.keys) }
        if device.sensesPresence { roles.insert(.presence) }
        self = roles
    }
}
