import CEvdev
import KioskCore

/// A key's kernel code from its name (`KEY_F5` is 63), as libevdev and
/// evtest spell them; nil for a name the kernel does not have.
public func keyCode(named name: String) -> UInt16? {
    let code = libevdev_event_code_from_name(UInt32(EV_KEY), name)
    return code < 0 ? nil : UInt16(code)
}

/// A key's or a switch's type and code from its name (`KEY_WAKEUP` is
/// `EV_KEY` 143, `SW_FRONT_PROXIMITY` is `EV_SW` 11), as libevdev and evtest
/// spell them; nil for a name the kernel does not have, or another kind.
public func keyOrSwitchCode(named name: String) -> (type: UInt16, code: UInt16)? {
    let type = libevdev_event_type_from_code_name(name)
    guard type == EV_KEY || type == EV_SW else { return nil }
    let code = libevdev_event_code_from_code_name(name)
    return code < 0 ? nil : (UInt16(type), UInt16(code))
}

/// The presence inputs `names` stand for (names the kernel does not have are left out: the settings' check says so).
public func presenceInputs(named names: [String]) -> PresenceInputs {
    var inputs = PresenceInputs()
    for name in names {
        guard let found = keyOrSwitchCode(named: name) else { continue }
        if found.type == UInt16(EV_SW) { inputs.switches.insert(found.code) } else { inputs.keys.insert(found.code) }
    }
    return inputs
}
