import InputDevices
import KioskCore
import LinuxPlatform
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Touchscreens, keyboards and remotes as a source of the show (docs/touch-and-keys.md): evdev devices through libevdev, found in
/// `/dev/input` (or named in the config) and followed as they come and go
/// (``DeviceFolderWatch``), each read on the run loop a bounded batch at a time
/// before the frame is drawn, and made into commands by a ``DeviceInput``.
///
/// A device that vanishes is closed on its hang-up (a finger on it lets go
/// of the strip); its trouble is logged at most once a minute.
final class InputSource: ShowSource {
    private let settings: InputSettings
    private let keyMap: KeyMap
    private let rotation: Rotation
    /// Devices handed over rather than found (the benchmark's piped finger,
    /// the tests'): the show's once it joins, so one unplugged is let go.
    private var given: [any InputDevice]
    /// Opens devices: the seat, or `open` itself.
    private let opener: any DeviceOpener
    private let log: (LogLine) -> Void
    /// The devices in use, once it joins a show.
    private var devices: InputDeviceSet?

    init(settings: InputSettings, keyMap: KeyMap = KeyMap(), rotation: Rotation, devices given: [any InputDevice] = [],
         opener: any DeviceOpener = DirectDeviceOpener(), log: @escaping (LogLine) -> Void) {
        self.opener = opener
        self.settings = settings
        self.keyMap = keyMap
        self.rotation = rotation
        self.given = given
        self.log = log
    }

    func attach(to loop: EventLoop, controller: ShowController) throws(SystemCallError) {
        defer { given = [] }
        devices = InputDeviceSet(
            settings: settings, keyMap: keyMap, rotation: rotation, given: given, opener: opener, log: log, loop: loop, controller: controller)
    }
}

/// The input devices one show reads, on its run loop: found, opened,
/// read, and followed as they and the seat come and go.
final class InputDeviceSet {
    /// Events one device may hand over per wake-up: a flood waits its turn behind the frame.
    static let eventsPerWakeUp = 512
    /// Where `auto` looks for devices.
    static let folder = "/dev/input"

    private let settings: InputSettings
    private let keyMap: KeyMap
    /// The keys and switches that say someone is there, and which of them do now.
    private let presence: PresenceInputs
    private var sensors = PresenceSensors()
    private var rotation: Rotation
    private let log: (LogLine) -> Void
    private let loop: EventLoop
    private let controller: ShowController
    private var devices: [String: DeviceInput] = [:]
    private var watch: DeviceFolderWatch?
    private var watchRegistration: Registration?
    private var events: ShowSubscription?
    private var throttle = LogThrottle()
    /// Opens devices: the seat, or `open` itself.
    private let opener: any DeviceOpener
    /// False while the seat is another session's: no device is opened.
    private var seatActive = true

    init(
        settings: InputSettings, keyMap: KeyMap, rotation: Rotation, given: [any InputDevice], opener: any DeviceOpener,
        log: @escaping (LogLine) -> Void, loop: EventLoop, controller: ShowController
    ) {
        self.opener = opener
        self.settings = settings
        self.keyMap = keyMap
        presence = presenceInputs(named: settings.presenceKeys)
        self.rotation = rotation
        self.log = log
        self.loop = loop
        self.controller = controller
        events = controller.subscribe { [unowned self] event in
            switch event {
            case .screenChanged: screenChanged()
            case .seatChanged(let active): seatChanged(active: active)
            default: break
            }
        }
        for device in given { adopt(device, explicit: true) }
        guard settings.devices != [] else {
            log("input: \(devices.isEmpty ? "off" : "only the devices handed over")")
            return
        }
        startWatching()
        scan()
        let watching = settings.devices == nil ? Self.folder : "for the configured devices"
        log(devices.isEmpty
            ? "input: no touchscreen, keyboard with the show's keys or motion sensor yet; watching \(watching)"
            : "input: \(devices.count) device(s); watching \(watching)")
    }

    // MARK: Devices coming and going

    /// The paths to open: each `eventN` in the folder, or the configured ones.
    private var wanted: [String] {
        if let configured = settings.devices { return configured.map(InputSettings.path(of:)) }
        let names = ((try? directoryEntryNames(Self.folder)) ?? []).map { String(decoding: $0, as: UTF8.self) }
        return names.filter { $0.hasPrefix("event") }.sorted().map { Self.folder + "/" + $0 }
    }

    private func startWatching() {
        // The folder, or the folder of each configured device (/dev/input/by-id for by-id names).
        let folders = settings.devices.map { Array(Set($0.map { parentFolder(of: InputSettings.path(of: $0)) })).sorted() } ?? [Self.folder]
        do {
            let watch = try DeviceFolderWatch(folders)
            watchRegistration = try loop.register(watch.fd, name: "input folders") { [unowned self] _ in
                do { try watch.take() } catch { note("inotify", "input: \(error)") }
                scan()
            }
            self.watch = watch
        } catch {
            note("inotify", "input: cannot watch \(folders.joined(separator: ", ")) for devices plugged in later: \(error)")
        }
    }

    /// Opens the wanted devices not yet open.
    private func scan() {
        guard seatActive else { return }
        for path in wanted where devices[path] == nil {
            let device: EvdevDevice
            do {
                device = try EvdevDevice(opening: path, opener: opener)
            } catch {
                // A node udev has not yet given its group, or a configured device not plugged in: said once a minute.
                // The seat refusing (EPERM) is the seat being taken away: the devices are revoked first, so
                // their hang-ups can come before the seat's news. It rescans once the seat is back.
                if error.call == "libseat_open_device" && error.code == .notPermitted { continue }
                if settings.devices != nil || error.code != .noSuchFileOrDirectory { note(path, "input: \(error)") }
                continue
            }
            adopt(device, explicit: settings.devices != nil)
        }
    }

    /// Uses `device` for what it can do, if anything: registers it on the loop.
    private func adopt(_ device: any InputDevice, explicit: Bool) {
        let path = device.path
        device.libraryMessages = { [unowned self] line in note(path + " libevdev", "input: \(path): libevdev: \(line) (said at most once a minute)") }
        let capabilities = device.capabilities(keyMap: keyMap, presence: presence)
        let roles = InputRoles(capabilities, keyMap: keyMap)
        guard !roles.isEmpty else {
            if explicit {
                note(path, "input: \(path) (\(device.name)) is neither a touchscreen, nor a keyboard with the show's keys, nor a presence_keys sensor; not used")
            }
            return
        }
        var touch: (decoder: TouchEventDecoder, thresholds: SwipeThresholds)?
        var uses = (roles.contains(.keys) ? ["keys"] : []) + (roles.contains(.presence) ? ["presence"] : [])
        if roles.contains(.touch) {
            if let mapping = touchMapping(for: device, capabilities) {
                let scale = mapping.scale(screenMillimetres: screenMillimetresAlongStrip)
                touch = (TouchEventDecoder(mapping: mapping, multitouch: capabilities.multitouchSlots != nil, slots: capabilities.multitouchSlots ?? 1),
                         SwipeThresholds(pixelsPerMillimetre: scale.pixelsPerMillimetre))
                uses.insert("touch, \(Self.describe(scale))", at: 0)
            } else {
                note(path, "input: \(path) (\(device.name)) reports no usable axis ranges; its touches are ignored")
            }
        }
        guard !uses.isEmpty else { return }
        if settings.grab {
            do { try device.grab() } catch { note(path, "input: \(error); reading it shared") }
        }
        let input = DeviceInput(device: device, roles: roles, touch: touch, keyMap: keyMap, tapZones: settings.tapZones)
        do {
            input.registration = try loop.register(device.fd, name: "input \(path)", priority: .input) { [unowned self] events in
                deviceEvents(path, events)
            }
        } catch {
            return note(path, "input: \(error)")
        }
        if roles.contains(.touch) && settings.tapZones {
            input.tapDeadline = loop.deadline(named: "tap \(path)") { [unowned self, unowned input] _ in
                input.tapDeadlinePassed(controller: controller)
            }
        }
        devices[path] = input
        log("input: \(path) (\(device.name)): \(uses.joined(separator: " and "))")
        if !capabilities.presenceDown.isEmpty { sense(capabilities.presenceDown, from: path) }
    }

    /// The screen's physical width along the strip, from the connector, if it says.
    private var screenMillimetresAlongStrip: Double? {
        controller.snapshot.screen.physicalSize.map { $0.millimetresAcross(turnedBy: rotation) }
    }

    private func touchMapping(for device: any InputDevice, _ capabilities: InputCapabilities) -> TouchMapping? {
        let multitouch = capabilities.multitouchSlots != nil
        guard let x = device.axis(multitouch ? InputCode.positionX : InputCode.x),
              let y = device.axis(multitouch ? InputCode.positionY : InputCode.y) else { return nil }
        let screen = controller.snapshot.screen.geometry.screen
        return TouchMapping(x: x, y: y, rotation: rotation, screen: screen, calibration: settings.calibration)
    }

    /// `3.9 px/mm from the screen's width`: where the swipe's millimetres come from, for the operator.
    static func describe(_ scale: (pixelsPerMillimetre: Double, source: TouchMapping.ScaleSource)) -> String {
        let tenths = Int((scale.pixelsPerMillimetre * 10).rounded())
        let amount = "\(tenths / 10).\(tenths % 10) px/mm"
        switch scale.source {
        case .device: return "\(amount) from its resolution"
        case .screen: return "\(amount) from the screen's width"
        case .assumed: return "\(amount) (96 dpi: neither it nor the screen says its size)"
        }
    }

    /// The show moved to another screen (a reload): every device is taken
    /// again, so its touches map to the new screen's size and turn.
    private func screenChanged() {
        rotation = controller.snapshot.screen.rotation
        let open = devices
        devices = [:]
        for (_, input) in open.sorted(by: { $0.key < $1.key }) {
            forget(input)
            if input.isTouching { controller.perform(.touch(.cancelled)) }
            adopt(input.device, explicit: settings.devices != nil)
        }
    }

    /// The seat went to another session (its manager revokes the devices
    /// it lent): every device found is closed, a finger on one letting go.
    /// When the seat is back they are opened again.
    private func seatChanged(active: Bool) {
        seatActive = active
        guard !active else { return scan() }
        for (path, input) in devices.sorted(by: { $0.key < $1.key }) where input.device is EvdevDevice {
            devices[path] = nil
            forget(input)
            if input.isTouching { controller.perform(.touch(.cancelled)) }
            if sensors.forget(device: path) { controller.sensed(presenceHeld: sensors.isHeld) }
        }
    }

    private func close(_ path: String) {
        guard let input = devices.removeValue(forKey: path) else { return }
        forget(input)
        // A finger on a device that went away lets go of the strip.
        if input.isTouching { controller.perform(.touch(.cancelled)) }
        // A sensor that went away holds nobody there.
        if sensors.forget(device: path) { controller.sensed(presenceHeld: sensors.isHeld) }
        log(.info("input: \(path) removed"))
        // Plugged back in already (a by-id link now pointing at a new node)?
        if watch != nil { scan() }
    }

    // MARK: Events

    private func deviceEvents(_ path: String, _ events: EventSet) {
        guard let input = devices[path] else { return }
        let batch = input.device.read(limit: Self.eventsPerWakeUp)
        if input.roles.contains(.presence) {
            let sensed = batch.items.flatMap { item in
                switch item {
                case .event(let event): [event]
                case .resync(let state): state
                }
            }.filter(presence.contains)
            if !sensed.isEmpty { sense(sensed, from: path) }
        }
        input.take(batch, controller: controller)
        if batch.gone || events.contains(.hangUp) || events.contains(.error) { close(path) }
    }

    /// Presence keys and switches changed on `path`: the display hears
    /// whether anyone is there now (once per read: a PIR's burst is one).
    private func sense(_ events: [InputEvent], from path: String) {
        for event in events { sensors.take(event, from: path) }
        controller.sensed(presenceHeld: sensors.isHeld)
    }

    /// Takes `input` off the run loop: its descriptor and its tap's deadline.
    private func forget(_ input: DeviceInput) {
        if let registration = input.registration { loop.unregister(registration) }
        if let deadline = input.tapDeadline { loop.remove(deadline) }
        input.tapDeadline = nil
    }

    private func note(_ key: String, _ line: String) {
        if throttle.allows(key, at: controller.clock()) { log(.warning(line)) }
    }
}
