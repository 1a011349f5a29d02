import CEvdev
import KioskCore
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A device made through `/dev/uinput` with libevdev's uinput helper: the
/// VM tests' touchscreen and keyboard (`uinput-play`). It exists until this
/// value goes away.
public final class VirtualInputDevice {
    public enum Kind {
        /// A multitouch touchscreen (protocol B, 10 slots, `INPUT_PROP_DIRECT`), axes 0 to `axisMaximum`.
        case touchscreen(axisMaximum: Int32)
        /// A keyboard with the show's keys.
        case keyboard(keys: [UInt16])
    }

    private let device: OpaquePointer
    private let uinput: OpaquePointer
    /// Its node, `/dev/input/eventN`.
    public let path: String

    public init(_ kind: Kind, name: String) throws(SystemCallError) {
        guard let device = libevdev_new() else { throw SystemCallError("libevdev_new", errno: ENOMEM) }
        libevdev_set_name(device, name)
        libevdev_set_id_bustype(device, Int32(BUS_VIRTUAL))
        switch kind {
        case .touchscreen(let maximum):
            libevdev_enable_property(device, UInt32(INPUT_PROP_DIRECT))
            libevdev_enable_event_code(device, UInt32(EV_KEY), UInt32(BTN_TOUCH), nil)
            var axis = input_absinfo(value: 0, minimum: 0, maximum: maximum, fuzz: 0, flat: 0, resolution: 0)
            for code in [ABS_X, ABS_Y, ABS_MT_POSITION_X, ABS_MT_POSITION_Y] {
                libevdev_enable_event_code(device, UInt32(EV_ABS), UInt32(code), &axis)
            }
            var slots = input_absinfo(value: 0, minimum: 0, maximum: 9, fuzz: 0, flat: 0, resolution: 0)
            libevdev_enable_event_code(device, UInt32(EV_ABS), UInt32(ABS_MT_SLOT), &slots)
            var ids = input_absinfo(value: 0, minimum: 0, maximum: 65535, fuzz: 0, flat: 0, resolution: 0)
            libevdev_enable_event_code(device, UInt32(EV_ABS), UInt32(ABS_MT_TRACKING_ID), &ids)
        case .keyboard(let keys):
            for key in keys { libevdev_enable_event_code(device, UInt32(EV_KEY), UInt32(key), nil) }
        }
        var uinput: OpaquePointer?
        let status = libevdev_uinput_create_from_device(device, LIBEVDEV_UINPUT_OPEN_MANAGED.rawValue, &uinput)
        guard status == 0, let uinput else {
            libevdev_free(device)
            throw SystemCallError("libevdev_uinput_create_from_device", errno: -status, path: "/dev/uinput")
        }
        self.device = device
        self.uinput = uinput
        path = libevdev_uinput_get_devnode(uinput).map { String(cString: $0) } ?? "?"
    }

    deinit {
        libevdev_uinput_destroy(uinput)
        libevdev_free(device)
    }

    /// Sends one event (the kernel stamps it with the time it arrives).
    public func send(_ type: UInt16, _ code: UInt16, _ value: Int32) throws(SystemCallError) {
        let status = libevdev_uinput_write_event(uinput, UInt32(type), UInt32(code), value)
        guard status == 0 else { throw SystemCallError("libevdev_uinput_write_event", errno: -status, path: path) }
    }

    /// Ends a frame (`SYN_REPORT`).
    public func report() throws(SystemCallError) { try send(InputCode.synchronisation, InputCode.report, 0) }
}
