import CLinux
import InputDevices
import KioskCore
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Touchscreens, keyboards and remotes as a source of the show (README,
/// "Touch and keys"): evdev devices through libevdev, found in
/// `/dev/input` and followed as they come and go (inotify), each read on
/// the run loop a bounded batch at a time.
///
/// Touches go through the device's ``TouchEventDecoder`` (its axes, the
/// calibration and the display's rotation) to a ``SwipeRecognizer``, whose
/// gestures the show's strip follows; taps go to the ``TapAction``s; keys
/// through the ``KeyMap``. A device that vanishes is closed on its hang-up;
/// its trouble is logged at most once a minute.
final class InputSource: ShowSource {
    /// Events one device may hand over per wake-up: a flood waits its turn behind the frame.
    static let eventsPerWakeUp = 512
    static let folder = "/dev/input"

    private let settings: InputSettings
    private let keyMap: KeyMap
    private let rotation: Rotation
    private let log: (String) -> Void
    private var loop: EventLoop!
    private var controller: ShowController!
    private var devices: [String: Device] = [:]
    /// The inotify instance watching the folder (owned), and its number.
    private var watch: FileDescriptor?
    private var watchFD: Int32 = -1
    private var watchRegistration: Registration?
    private var throttle = LogThrottle()

    private final class Device {
        let device: EvdevDevice
        let roles: InputRoles
        var touch: TouchEventDecoder?
        var recognizer: SwipeRecognizer?
        var registration: Registration?

        init(device: EvdevDevice, roles: InputRoles) {
            self.device = device
            self.roles = roles
        }
    }

    init(settings: InputSettings, keyMap: KeyMap = KeyMap(), rotation: Rotation, log: @escaping (String) -> Void) {
        self.settings = settings
        self.keyMap = keyMap
        self.rotation = rotation
        self.log = log
    }

    /// The devices in use, by path, for the log and the tests.
    var deviceSummary: [String] { devices.values.map { "\($0.device.path) (\($0.device.name))" }.sorted() }

    func attach(to loop: EventLoop, controller: ShowController) throws(SystemCallError) {
        self.loop = loop
        self.controller = controller
        guard settings.devices != [] else { return log("input: off") }
        startWatching()
        scan()
        log(devices.isEmpty
            ? "input: no touchscreen or keyboard with the show's keys yet; watching \(Self.folder) for them"
            : "input: \(devices.count) device(s); watching \(Self.folder) for more")
    }

    // MARK: Devices coming and going

    private func startWatching() {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return note("inotify", "input: cannot watch \(Self.folder) for devices plugged in later: \(SystemCallError.last("inotify_init1").reason)") }
        let descriptor = FileDescriptor(owning: fd)
        // IN_ATTRIB: udev makes the node, then gives it its group and mode.
        let mask = UInt32(IN_CREATE | IN_ATTRIB | IN_DELETE | IN_MOVED_TO)
        guard inotify_add_watch(fd, Self.folder, mask) >= 0 else {
            return note("inotify", "input: cannot watch \(Self.folder): \(SystemCallError.last("inotify_add_watch").reason); touch and keys are off until a restart")
        }
        do {
            watchRegistration = try loop.register(fd, name: "input folder") { [unowned self] _ in folderChanged() }
            watchFD = fd
            watch = consume descriptor
        } catch {
            note("inotify", "input: \(error)")
        }
    }

    private func folderChanged() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        // The names do not matter: the folder is scanned again (a handful of nodes).
        while buffer.withUnsafeMutableBytes({ Glibc.read(watchFD, $0.baseAddress, $0.count) }) > 0 {}
        scan()
    }

    /// Opens the wanted devices not yet open.
    private func scan() {
        let wanted: [String]
        if let configured = settings.devices {
            wanted = configured.map(InputSettings.path(of:))
        } else {
            let names = ((try? directoryEntryNames(Self.folder)) ?? []).map { String(decoding: $0, as: UTF8.self) }
            wanted = names.filter { $0.hasPrefix("event") }.sorted().map { Self.folder + "/" + $0 }
        }
        for path in wanted where devices[path] == nil { open(path, explicit: settings.devices != nil) }
    }

    private func open(_ path: String, explicit: Bool) {
        let device: EvdevDevice
        do {
            device = try EvdevDevice(opening: path)
        } catch {
            // A node udev has not yet given its group, or a configured device not plugged in: said once a minute.
            if explicit || error.errno != ENOENT { note(path, "input: \(error)") }
            return
        }
        device.libraryMessages = { [unowned self] line in note(path + " libevdev", "input: \(path): libevdev: \(line) (said at most once a minute)") }
        let roles = InputRoles(device.capabilities(keyMap: keyMap), keyMap: keyMap)
        guard !roles.isEmpty else {
            if explicit { note(path, "input: \(path) (\(device.name)) is neither a touchscreen nor a keyboard with the show's keys; not used") }
            return
        }
        let entry = Device(device: device, roles: roles)
        if roles.contains(.touch), let decoder = touchDecoder(for: device) {
            entry.touch = decoder
            entry.recognizer = SwipeRecognizer(thresholds: SwipeThresholds(pixelsPerMillimetre: decoder.mapping.pixelsPerMillimetre()))
        }
        if settings.grab {
            do { try device.grab() } catch { note(path, "input: \(error); reading it shared") }
        }
        do {
            entry.registration = try loop.register(device.fd, name: "input \(path)") { [unowned self] events in
                deviceEvents(path, events)
            }
        } catch {
            return note(path, "input: \(error)")
        }
        devices[path] = entry
        log("input: \(path) (\(device.name)): \(roles.contains(.touch) ? (entry.touch == nil ? "touch without usable axes, keys" : "touch") : "")\(roles == [.touch, .keys] ? " and keys" : roles == .keys ? "keys" : "")")
    }

    private func touchDecoder(for device: EvdevDevice) -> TouchEventDecoder? {
        let capabilities = device.capabilities(keyMap: keyMap)
        let multitouch = capabilities.multitouchSlots != nil
        let x = device.axis(multitouch ? InputCode.positionX : InputCode.x)
        let y = device.axis(multitouch ? InputCode.positionY : InputCode.y)
        let screen = controller.show.layout.geometry.screen
        guard let x, let y,
              let mapping = TouchMapping(x: x, y: y, rotation: rotation, screen: screen, calibration: settings.calibration) else {
            note(device.path, "input: \(device.path) (\(device.name)) reports no usable axis ranges; its touches are ignored")
            return nil
        }
        return TouchEventDecoder(mapping: mapping, multitouch: multitouch, slots: capabilities.multitouchSlots ?? 1)
    }

    private func close(_ path: String) {
        guard let entry = devices.removeValue(forKey: path) else { return }
        if let registration = entry.registration { loop.unregister(registration) }
        // A finger on a device that went away lets go of the strip.
        if entry.recognizer?.isTouching == true { controller.perform(.touch(.cancelled)) }
        log("input: \(path) removed")
    }

    // MARK: Events

    private func deviceEvents(_ path: String, _ events: EventSet) {
        guard let entry = devices[path] else { return }
        let batch = entry.device.read(limit: Self.eventsPerWakeUp)
        for item in batch.items {
            switch item {
            case .event(let event): handle(event, from: entry)
            case .resync(let state):
                guard var decoder = entry.touch else { continue }
                let inputs = decoder.resynchronised(state)
                entry.touch = decoder
                inputs.forEach { touch($0, from: entry) }
            }
        }
        if batch.gone || events.contains(.hangUp) || events.contains(.error) { close(path) }
    }

    private func handle(_ event: InputEvent, from entry: Device) {
        if event.type == InputCode.key, entry.roles.contains(.keys),
           let command = keyMap.command(code: event.code, value: event.value, paused: controller.show.schedule.isPaused) {
            controller.perform(command)
            controller.perform(.personPresent)
            return
        }
        guard var decoder = entry.touch else { return }
        let inputs = decoder.take(event)
        entry.touch = decoder
        inputs.forEach { touch($0, from: entry) }
    }

    private func touch(_ input: TouchInput, from entry: Device) {
        guard var recognizer = entry.recognizer, let gesture = recognizer.feed(input) else { return }
        entry.recognizer = recognizer
        let geometry = controller.show.layout.geometry
        controller.perform(.touch(StripTouch(gesture, pagePixels: Double(geometry.pitch))))
        if case .tapped(let point) = gesture, settings.tapZones {
            switch TapAction(tapAt: point.x, screenWidth: Double(geometry.screen.width)) {
            case .previous: controller.perform(.previous)
            case .next: controller.perform(.next)
            case .pauseOrResume: controller.perform(controller.show.schedule.isPaused ? .resume : .pause)
            }
            controller.perform(.personPresent)
        }
    }

    private func note(_ key: String, _ line: String) {
        if throttle.allows(key, at: controller?.clock() ?? MonotonicClock.now()) { log(line) }
    }
}
