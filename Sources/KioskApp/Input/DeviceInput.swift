import InputDevices
import KioskCore

/// One input device's events made into the show's commands: touches
/// through its ``TouchEventDecoder`` (its axes, the calibration and the
/// display's rotation) to a ``SwipeRecognizer``, whose gestures the strip
/// follows; taps to the ``TapAction``s; keys through the ``KeyMap``.
final class DeviceInput {
    let device: any InputDevice
    let roles: InputRoles
    private var touch: TouchEventDecoder?
    private var recognizer: SwipeRecognizer?
    private let keyMap: KeyMap
    private let tapZones: Bool
    /// Its place in the run loop, once registered.
    var registration: Registration?

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
                   let command = keyMap.command(code: event.code, value: event.value, paused: controller.show.schedule.isPaused) {
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
        // Kept even when it says nothing: it counts fingers and tells a swipe from a scroll meanwhile.
        let gesture = recognizer.feed(input)
        self.recognizer = recognizer
        guard let gesture else { return }
        let geometry = controller.show.layout.geometry
        controller.perform(.touch(StripTouch(gesture, pagePixels: Double(geometry.pitch))), sensedAt: input.time)
        if case .tapped(let point) = gesture, tapZones {
            switch TapAction(tapAt: point.x, screenWidth: Double(geometry.screen.width)) {
            case .previous: controller.perform(.previous)
            case .next: controller.perform(.next)
            case .pauseOrResume: controller.perform(controller.show.schedule.isPaused ? .resume : .pause)
            }
            controller.perform(.personPresent)
        }
    }
}
