import CEvdev
import KioskCore
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// One input device (`/dev/input/eventN`) through libevdev, which keeps the
/// device's state, decodes multitouch slots and, after the kernel dropped
/// events (`SYN_DROPPED`), hands over the state again as events.
///
/// Opened non-blocking: the run loop reads it when epoll says it is
/// readable, a bounded batch at a time. Timestamps are `CLOCK_MONOTONIC`,
/// the clock the show runs on.
public final class EvdevDevice: InputDevice {
    public let path: String
    /// The kernel's name for it ("eGalax Inc. USB TouchController").
    public private(set) var name: String
    private let descriptor: FileDescriptor
    private let device: OpaquePointer

    public var fd: Int32 { descriptor.rawValue }

    /// What libevdev says about the device (a panel sending a tracking id
    /// twice, say) goes here, a line at a time, instead of to stderr: the
    /// source decides how often to log it. Silent until set.
    public var libraryMessages: ((String) -> Void)?

    /// Opens `path` (with `open`, or through the seat, ``DeviceOpener``) and reads what the device is.
    public init(opening path: String, opener: any DeviceOpener = DirectDeviceOpener()) throws(SystemCallError) {
        let descriptor = try opener.openDevice(path, flags: O_RDONLY | O_NONBLOCK)
        let fd = descriptor.rawValue
        guard let device = libevdev_new() else { throw SystemCallError("libevdev_new", errno: ENOMEM, path: path) }
        self.path = path
        self.descriptor = descriptor
        self.device = device
        name = "input device"
        // Before the fd is set, so even the first reads' complaints come here.
        kioskd_evdev_log_to_swift(device, Unmanaged.passUnretained(self).toOpaque())
        let status = libevdev_set_fd(device, fd)
        guard status == 0 else { throw SystemCallError("libevdev_set_fd", errno: -status, path: path) }
        libevdev_set_clock_id(device, CLOCK_MONOTONIC)
        name = libevdev_get_name(device).map { String(cString: $0) } ?? "input device"
    }

    deinit { libevdev_free(device) }

    /// What it can do, asking about the keys of `keyMap` and the presence
    /// keys and switches of `presence` (and whether one is down now).
    public func capabilities(keyMap: KeyMap, presence: PresenceInputs) -> InputCapabilities {
        var capabilities = InputCapabilities()
        capabilities.isDirect = libevdev_has_property(device, UInt32(INPUT_PROP_DIRECT)) == 1
        capabilities.hasAbsolutePosition = has(EV_ABS, ABS_X) && has(EV_ABS, ABS_Y)
        if has(EV_ABS, ABS_MT_SLOT), has(EV_ABS, ABS_MT_POSITION_X), has(EV_ABS, ABS_MT_POSITION_Y) {
            capabilities.multitouchSlots = Int(libevdev_get_num_slots(device))
        }
        capabilities.hasTouchButton = has(EV_KEY, BTN_TOUCH)
        capabilities.hasLeftButton = has(EV_KEY, BTN_LEFT)
        capabilities.hasRelativeMotion = has(EV_REL, REL_X)
        capabilities.keys = Set(keyMap.codes.filter { has(EV_KEY, Int32($0)) })
        let sensors = presence.keys.map { (EV_KEY, Int32($0)) } + presence.switches.map { (EV_SW, Int32($0)) }
        let present = sensors.filter { has($0.0, $0.1) }
        capabilities.sensesPresence = !present.isEmpty
        capabilities.presenceDown = present.compactMap { type, code in
            let value = libevdev_get_event_value(device, UInt32(type), UInt32(code))
            return value == 0 ? nil : InputEvent(type: UInt16(type), code: UInt16(code), value: value, time: 0)
        }
        return capabilities
    }

    /// An absolute axis's range and resolution, if the device has it.
    public func axis(_ code: UInt16) -> TouchMapping.Axis? {
        guard let info = libevdev_get_abs_info(device, UInt32(code)) else { return nil }
        return TouchMapping.Axis(
            minimum: Double(info.pointee.minimum), maximum: Double(info.pointee.maximum),
            resolution: info.pointee.resolution > 0 ? Double(info.pointee.resolution) : nil)
    }

    /// Takes the device for kioskd alone (`EVIOCGRAB`): the console no longer sees its keys.
    public func grab() throws(SystemCallError) {
        let status = libevdev_grab(device, LIBEVDEV_GRAB)
        guard status == 0 else { throw SystemCallError("EVIOCGRAB", errno: -status, path: path) }
    }

    /// Reads what is waiting, at most `limit` events: a flood cannot hold the run loop.
    public func read(limit: Int) -> InputBatch {
        var batch = InputBatch()
        var event = input_event()
        var count = 0
        while count < limit {
            let status = libevdev_next_event(device, LIBEVDEV_READ_FLAG_NORMAL.rawValue, &event)
            if status == LIBEVDEV_READ_STATUS_SUCCESS.rawValue {
                batch.items.append(.event(Self.converted(event)))
                count += 1
            } else if status == LIBEVDEV_READ_STATUS_SYNC.rawValue {
                // SYN_DROPPED: libevdev replays the device's state until -EAGAIN.
                var state: [InputEvent] = []
                while libevdev_next_event(device, LIBEVDEV_READ_FLAG_SYNC.rawValue, &event) == LIBEVDEV_READ_STATUS_SYNC.rawValue {
                    state.append(Self.converted(event))
                }
                batch.items.append(.resync(state))
                count += state.count + 1
            } else {
                if Errno(-status) == .noDevice { batch.gone = true }
                return batch
            }
        }
        batch.full = true
        return batch
    }

    private static func converted(_ event: input_event) -> InputEvent {
        InputEvent(
            type: event.type, code: event.code, value: event.value,
            time: Double(event.time.tv_sec) + Double(event.time.tv_usec) / 1_000_000)
    }

    private func has(_ type: Int32, _ code: Int32) -> Bool {
        libevdev_has_event_code(device, UInt32(type), UInt32(code)) == 1
    }
}

/// Each line libevdev logs about a device, formatted by CEvdev's handler
/// (`kioskd_evdev_log`), `data` being the ``EvdevDevice``.
@_cdecl("kioskd_evdev_log_line")
func evdevLogLine(_ data: UnsafeMutableRawPointer?, _ line: UnsafePointer<CChar>) {
    guard let data else { return }
    let owner = Unmanaged<EvdevDevice>.fromOpaque(data).takeUnretainedValue()
    let text = String(cString: line)
    owner.libraryMessages?(text.hasSuffix("\n") ? String(text.dropLast()) : text)
}
