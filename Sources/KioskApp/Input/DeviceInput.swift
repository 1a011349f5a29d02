import InputDevices
import KioskCore
import LinuxPlatform

/// One input device's events made into the show's commands: touches
/// through its ``TouchEventDecoder`` (its axes, the calibration and the
/// display's rotation) to a ``SwipeRecognizer``, whose gestures the strip
/// and the centred picture's zoom follow; taps to the ``TapAction``s; keys
/// through the ``KeyMap``.
///
/// Taps and double taps: a double tap on the centred picture zooms it in
/// or out. With `tap_zones`, a tap on the middle of the screen (pause or
/// resume) waits ``SwipeRecognizer/doubleTapInterval`` for a second tap
/// first, as a phone's single tap does; taps on the side zones act at once,
/// and a quick second tap there is one more `prev` or `next`.
final class DeviceInput {
    let device: any InputDevice
    let roles: InputRoles
    private var touch: TouchEventDecoder?
    private var recognizer: SwipeRecognizer?
    private let keyMap: KeyMap
    private let tapZones: Bool
    /// Its place in the run loop, once registered.
    var registration: Registration?
    /// When a middle tap's pause or resume is due (set by the source; nil: at once).
    var tapDeadline: Deadline?
    /// A middle tap waiting to see whether a second makes it double.
    private var pendingTap: PendingTap?
    private enum PendingTap {
        case waiting
        /// A finger landed again in time: what it does decides.
        case secondDown
    }

    /// `touch`: how its touches map to the screen and the swipe's thresholds
    /// in its pixels; nil: its touches are not used.
    init(device: any InputDevice, roles: InputRoles, touch: (decoder: TouchEventDecoder, thresholds: SwipeThresholds)?,
         keyMap: KeyMap, tapZones: Bool) {
        self.device = device
        self.roles = roles
        self.touch = touch?.decoder
        recognizer = touch.map { SwipeRecognizer(thresholds: $0.thresholds) }
        self.keyMap = keyMap
        self.tapZones = tapZones
    }

    /// True while a finger on it drives the strip.
    var isTouching: Bool { recognizer?.isTouching == true }

    /// Hands what `batch` brought to the show, in order.
    func take(_ batch: InputBatch, controller: ShowController) {
        for item in batch.items {
            switch item {
            case .event(let event):
                if event.type == InputCode.key, roles.contains(.keys),
                   let command = keyMap.command(code: event.code, value: event.value, paused: controller.snapshot.paused) {
                    controller.perform(command)
                    controller.perform(.personPresent)
                    continue
                }
                guard var decoder = touch else { continue }
                let inputs = decoder.take(event)
                touch = decoder
                inputs.forEach { handle($0, controller: controller) }
            case .resync(let state):
                guard var decoder = touch else { continue }
                let inputs = decoder.resynchronised(state)
                touch = decoder
                inputs.forEach { handle($0, controller: controller) }
            }
        }
    }

    private func handle(_ input: TouchInput, controller: ShowController) {
        guard var recognizer else { return }
        // A finger landing on a zoomed picture pans it.
        if case .down = input { recognizer.pansPicture = controller.snapshot.zoomed }
        // Kept even when it says nothing: it counts fingers and tells a swipe from a scroll meanwhile.
        let gesture = recognizer.feed(input)
        self.recognizer = recognizer
        guard let gesture else { return }
        if pendingTap != nil {
            switch gesture {
            case .caught:
                pendingTap = .secondDown
                tapDeadline?.arm(at: nil)
            case .doubleTapped:
                pendingTap = nil
            default:
                tapDue(controller: controller)
            }
        }
        let geometry = controller.snapshot.screen.geometry
        if let touch = StripTouch(gesture, pagePixels: Double(geometry.pitch)) {
            controller.perform(.touch(touch), sensedAt: input.time)
        }
        switch gesture {
        case .tapped(let point) where tapZones:
            let action = TapAction(tapAt: point.x, screenWidth: Double(geometry.screen.width))
            if action == .pauseOrResume, let tapDeadline {
                pendingTap = .waiting
                tapDeadline.arm(at: controller.clock() + SwipeRecognizer.doubleTapInterval)
            } else {
                perform(action, controller: controller)
            }
        case .doubleTapped(let point) where tapZones && TapAction(tapAt: point.x, screenWidth: Double(geometry.screen.width)) != .pauseOrResume:
            perform(TapAction(tapAt: point.x, screenWidth: Double(geometry.screen.width)), controller: controller)
        case .pinchBegan, .doubleTapped:
            controller.perform(.zoom(ZoomTouch(gesture)!), sensedAt: input.time)
        default:
            // A pan, the pinch's moves and its end go to a zoom under way only.
            if controller.snapshot.zoomed, let zoom = ZoomTouch(gesture) { controller.perform(.zoom(zoom), sensedAt: input.time) }
        }
    }

    /// The middle tap's time for a second one is over (or another gesture
    /// began): it pauses or resumes. Called by the source's deadline too.
    func tapDue(controller: ShowController) {
        guard pendingTap != nil else { return }
        pendingTap = nil
        tapDeadline?.arm(at: nil)
        perform(.pauseOrResume, controller: controller)
    }

    /// The deadline fired: unless a second finger is down, the tap acts.
    func tapDeadlinePassed(controller: ShowController) {
        if pendingTap == .waiting { tapDue(controller: controller) }
    }

    private func perform(_ action: TapAction, controller: ShowController) {
        switch action {
        case .previous: controller.perform(.previous)
        case .next: controller.perform(.next)
        case .pauseOrResume: controller.perform(controller.snapshot.paused ? .resume : .pause)
        }
        controller.perform(.personPresent)
    }
}
