/// What a key does to the show.
public enum KeyAction: String, Equatable, Sendable, CaseIterable {
    case next
    case previous = "prev"
    case pauseOrResume = "pause"
}

/// Keys, presenter clickers and IR remotes (evdev keyboards all) to show
/// commands, by kernel key code.
///
/// A press moves; each autorepeat (value 2) of `next` or `prev` moves one
/// picture further, joining the movement under way (the motion retargets
/// smoothly); a held pause key does not flicker between pause and resume.
/// Releases do nothing.
public struct KeyMap: Equatable, Sendable {
    public private(set) var actions: [UInt16: KeyAction]

    /// The codes, from `linux/input-event-codes.h`.
    public static let defaults: [UInt16: KeyAction] = [
        105: .previous,  // KEY_LEFT
        106: .next,  // KEY_RIGHT
        104: .previous,  // KEY_PAGEUP (presenter clickers send these)
        109: .next,  // KEY_PAGEDOWN
        412: .previous,  // KEY_PREVIOUS (remotes)
        407: .next,  // KEY_NEXT
        165: .previous,  // KEY_PREVIOUSSONG (media keys)
        163: .next,  // KEY_NEXTSONG
        164: .pauseOrResume,  // KEY_PLAYPAUSE
        57: .pauseOrResume,  // KEY_SPACE
    ]

    /// The defaults with `overrides` on top (from the config's key map).
    public init(overrides: [UInt16: KeyAction] = [:]) {
        actions = Self.defaults.merging(overrides) { _, new in new }
    }

    public var codes: Set<UInt16> { Set(actions.keys) }

    /// The command for a key event (`value` 1 press, 2 repeat, 0 release),
    /// if any; a pause key resumes a show that is `paused`.
    public func command(code: UInt16, value: Int32, paused: Bool) -> ShowCommand? {
        guard let action = actions[code] else { return nil }
        switch (action, value) {
        case (.next, 1), (.next, 2): return .next
        case (.previous, 1), (.previous, 2): return .previous
        case (.pauseOrResume, 1): return paused ? .resume : .pause
        default: return nil
        }
    }
}
