import CEvdev

/// A key's kernel code from its name (`KEY_F5` is 63), as libevdev and
/// evtest spell them; nil for a name the kernel does not have.
public func keyCode(named name: String) -> UInt16? {
    let code = libevdev_event_code_from_name(UInt32(EV_KEY), name)
    return code < 0 ? nil : UInt16(code)
}
