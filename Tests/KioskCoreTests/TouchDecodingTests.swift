import KioskCore
import Testing

private let ev = (abs: InputCode.absolute, key: InputCode.key, syn: InputCode.synchronisation)

/// A frame of events at `time`, ended by SYN_REPORT.
private func frame(_ time: Double, _ events: [(UInt16, UInt16, Int32)]) -> [InputEvent] {
    events.map { InputEvent(type: $0.0, code: $0.1, value: $0.2, time: time) }
        + [InputEvent(type: ev.syn, code: InputCode.report, value: 0, time: time)]
}

private func decode(_ decoder: inout TouchEventDecoder, _ events: [InputEvent]) -> [TouchInput] {
    events.flatMap { decoder.take($0) }
}

/// A 0..4095 square panel on a 1280x800 screen.
private func mapping(_ rotation: Rotation = .none, screen: PixelSize = PixelSize(width: 1280, height: 800), calibration: [Double] = TouchMapping.identity) -> TouchMapping {
    TouchMapping(x: .init(minimum: 0, maximum: 4095), y: .init(minimum: 0, maximum: 4095), rotation: rotation, screen: screen, calibration: calibration)!
}

@Suite struct TouchMappingTests {
    @Test func axesMapToScreenPixelsAndAbsurdValuesAreClamped() {
        let map = mapping()
        #expect(map.point(rawX: 0, rawY: 0) == ScreenPoint(x: 0, y: 0))
        #expect(map.point(rawX: 4095, rawY: 4095) == ScreenPoint(x: 1280, y: 800))
        #expect(map.point(rawX: 2047.5, rawY: 1023.75) == ScreenPoint(x: 640, y: 200))
        #expect(map.point(rawX: 90000, rawY: -90000) == ScreenPoint(x: 1280, y: 0))
    }

    /// libinput's matrix on normalised device coordinates: "-1 0 1 0 1 0" mirrors x.
    @Test func theCalibrationMatrixMeansWhatLibinputsDoes() {
        let mirrored = mapping(calibration: [-1, 0, 1, 0, 1, 0])
        #expect(mirrored.point(rawX: 0, rawY: 0) == ScreenPoint(x: 1280, y: 0))
        // libinput's documented 90-degree matrix "0 -1 1 1 0 0": device (u, v) to (1 - v, u).
        let turned = mapping(calibration: [0, -1, 1, 1, 0, 0])
        #expect(turned.point(rawX: 0, rawY: 4095) == ScreenPoint(x: 0, y: 0))
        #expect(TouchMapping(x: .init(minimum: 5, maximum: 5), y: .init(minimum: 0, maximum: 9), rotation: .none, screen: PixelSize(width: 1280, height: 800)) == nil, "an axis without a range")
        #expect(TouchMapping(x: .init(minimum: 0, maximum: 9), y: .init(minimum: 0, maximum: 9), rotation: .none, screen: PixelSize(width: 1280, height: 800), calibration: [1, 0, 0]) == nil)
    }

    /// The panel's top-left corner is where the turned frame puts the layout's top-left pixel.
    @Test(arguments: [
        (Rotation.quarter, ScreenPoint(x: 0, y: 1280)),  // the layout's bottom-left: the panel's top-left after turning clockwise
        (Rotation.half, ScreenPoint(x: 1280, y: 800)),
        (Rotation.threeQuarters, ScreenPoint(x: 800, y: 0)),
    ])
    func rotationTurnsThePanelsCornersWithTheFrame(rotation: Rotation, panelTopLeft: ScreenPoint) {
        let map = mapping(rotation, screen: rotation.logicalSize(of: PixelSize(width: 1280, height: 800)))
        #expect(map.point(rawX: 0, rawY: 0) == panelTopLeft)
    }

    /// 12. A 90-degree panel (mounted on its side, frames turned clockwise):
    /// a finger moving down the panel's own y axis moves right across the
    /// layout, so the strip goes back a picture.
    @Test func aQuarterTurnedPanelSwipesTheRightWay() {
        let map = mapping(.quarter, screen: PixelSize(width: 800, height: 1280))
        var recognizer = SwipeRecognizer(thresholds: SwipeThresholds(slop: 16, flickVelocity: 380, flickDistance: 25))
        var gestures: [SwipeGesture] = []
        var time = 0.0
        for rawY in stride(from: 500.0, through: 3500, by: 100) {
            let point = map.point(rawX: 2000, rawY: rawY)
            let input: TouchInput = rawY == 500 ? .down(id: 0, at: point, time: time) : .move(id: 0, to: point, time: time)
            if let gesture = recognizer.feed(input) { gestures.append(gesture) }
            time += 0.008
        }
        if let gesture = recognizer.feed(.up(id: 0, time: time)) { gestures.append(gesture) }
        guard case .released(let offset, _, true)? = gestures.last else {
            Issue.record("\(gestures)")
            return
        }
        #expect(offset > 0, "the finger moved right across the layout")
        guard case .released(let pictures, let velocity, true) = StripTouch(gestures.last!, pagePixels: 600) else {
            Issue.record("not a flick for the strip")
            return
        }
        #expect(pictures < 0 && velocity < 0, "the strip goes back")
    }

    @Test func thresholdsUseTheAxisResolutionElseTheScreenWidth() {
        let withResolution = TouchMapping(x: .init(minimum: 0, maximum: 2160, resolution: 10), y: .init(minimum: 0, maximum: 1350, resolution: 10), rotation: .none, screen: PixelSize(width: 1280, height: 800))!
        #expect(abs(withResolution.pixelsPerMillimetre() - 1280 / 216.0) < 1e-9)
        #expect(mapping().pixelsPerMillimetre(screenMillimetres: 215.4) == 1280 / 215.4)
        #expect(abs(mapping().pixelsPerMillimetre() - 96 / 25.4) < 1e-9)
    }
}

@Suite struct TouchEventDecoderTests {
    @Test func multitouchSlotsBecomeContactsByTrackingID() {
        var decoder = TouchEventDecoder(mapping: mapping(), multitouch: true, slots: 10)
        #expect(decode(&decoder, frame(1.0, [(ev.abs, InputCode.slot, 0), (ev.abs, InputCode.trackingID, 40), (ev.abs, InputCode.positionX, 2047), (ev.abs, InputCode.positionY, 0), (ev.key, InputCode.buttonTouch, 1)]))
            == [.down(id: 40, at: mapping().point(rawX: 2047, rawY: 0), time: 1.0)])
        // Slot 0 moves; slot 1 lands (its own tracking id); the slot stays selected across frames.
        let moved = decode(&decoder, frame(1.01, [(ev.abs, InputCode.positionX, 1000), (ev.abs, InputCode.slot, 1), (ev.abs, InputCode.trackingID, 41), (ev.abs, InputCode.positionX, 3000), (ev.abs, InputCode.positionY, 3000)]))
        #expect(moved == [.move(id: 40, to: mapping().point(rawX: 1000, rawY: 0), time: 1.01), .down(id: 41, at: mapping().point(rawX: 3000, rawY: 3000), time: 1.01)])
        #expect(decode(&decoder, frame(1.02, [(ev.abs, InputCode.positionY, 3100)])) == [.move(id: 41, to: mapping().point(rawX: 3000, rawY: 3100), time: 1.02)])
        // Slot 0 reused within one frame by a new finger: a lift and a new touch.
        #expect(decode(&decoder, frame(1.03, [(ev.abs, InputCode.slot, 0), (ev.abs, InputCode.trackingID, 42)]))
            == [.up(id: 40, time: 1.03), .down(id: 42, at: mapping().point(rawX: 1000, rawY: 0), time: 1.03)])
        #expect(decode(&decoder, frame(1.04, [(ev.abs, InputCode.trackingID, -1), (ev.abs, InputCode.slot, 1), (ev.abs, InputCode.trackingID, -1)]))
            == [.up(id: 42, time: 1.04), .up(id: 41, time: 1.04)])
        // A slot past the device's count is ignored, not a crash.
        #expect(decode(&decoder, frame(1.05, [(ev.abs, InputCode.slot, 500), (ev.abs, InputCode.trackingID, 7)])) == [])
    }

    /// 10. A palm (`MT_TOOL_PALM`) is reported once, and the recogniser cancels.
    @Test func aPalmIsReportedOnce() {
        var decoder = TouchEventDecoder(mapping: mapping(), multitouch: true, slots: 2)
        _ = decode(&decoder, frame(1.0, [(ev.abs, InputCode.trackingID, 1), (ev.abs, InputCode.positionX, 100)]))
        #expect(decode(&decoder, frame(1.01, [(ev.abs, InputCode.toolType, InputCode.palm)])) == [.palm(id: 1, time: 1.01)])
        #expect(decode(&decoder, frame(1.02, [(ev.abs, InputCode.positionX, 200)])) == [.move(id: 1, to: mapping().point(rawX: 200, rawY: 0), time: 1.02)])
    }

    /// 13. Single-touch panels (`BTN_TOUCH`) and absolute pointers (`BTN_LEFT`: QEMU's usb-tablet, eGalax).
    @Test(arguments: [InputCode.buttonTouch, InputCode.buttonLeft])
    func singleTouchAndAbsolutePointersAreOneContact(button: UInt16) {
        var decoder = TouchEventDecoder(mapping: mapping(), multitouch: false)
        // Moving without the button is hovering: nothing.
        #expect(decode(&decoder, frame(1.0, [(ev.abs, InputCode.x, 2047), (ev.abs, InputCode.y, 2047)])) == [])
        #expect(decode(&decoder, frame(1.01, [(ev.key, button, 1)])) == [.down(id: 0, at: mapping().point(rawX: 2047, rawY: 2047), time: 1.01)])
        #expect(decode(&decoder, frame(1.02, [(ev.abs, InputCode.x, 0)])) == [.move(id: 0, to: mapping().point(rawX: 0, rawY: 2047), time: 1.02)])
        #expect(decode(&decoder, frame(1.03, [(ev.key, button, 0)])) == [.up(id: 0, time: 1.03)])
    }

    /// 9. `SYN_DROPPED` mid-drag: when the resynchronised state has another
    /// tracking id, the gesture is lost (the recogniser cancels and the strip
    /// settles on the nearest picture); with the same contact it goes on.
    @Test func aResyncWithOtherContactsLosesTheGestureAndTheSameOneGoesOn() {
        var decoder = TouchEventDecoder(mapping: mapping(), multitouch: true, slots: 2)
        _ = decode(&decoder, frame(1.0, [(ev.abs, InputCode.trackingID, 9), (ev.abs, InputCode.positionX, 100)]))
        let same = decoder.resynchronised(frame(1.1, [(ev.abs, InputCode.slot, 0), (ev.abs, InputCode.trackingID, 9), (ev.abs, InputCode.positionX, 300)]))
        #expect(same == [.move(id: 9, to: mapping().point(rawX: 300, rawY: 0), time: 1.1)])
        let other = decoder.resynchronised(frame(1.2, [(ev.abs, InputCode.slot, 0), (ev.abs, InputCode.trackingID, 12), (ev.abs, InputCode.positionX, 900)]))
        #expect(other == [.lost(time: 1.2)])
        var recognizer = SwipeRecognizer(thresholds: SwipeThresholds(slop: 16, flickVelocity: 380, flickDistance: 25))
        _ = recognizer.feed(.down(id: 9, at: ScreenPoint(x: 600, y: 0), time: 1))
        _ = recognizer.feed(.move(id: 9, to: ScreenPoint(x: 400, y: 0), time: 1.05))
        #expect(recognizer.feed(other[0]) == .cancelled)
        // The new contact continues as a new gesture.
        #expect(decode(&decoder, frame(1.3, [(ev.abs, InputCode.trackingID, -1)])) == [.up(id: 12, time: 1.3)])
    }
}

@Suite struct KeyMapTests {
    /// 14. Each autorepeat of an arrow moves one more picture; a held pause key does not flicker.
    @Test func keysAndRepeats() {
        let keys = KeyMap()
        #expect(keys.command(code: 106, value: 1, paused: false) == .next)     // KEY_RIGHT
        #expect(keys.command(code: 106, value: 2, paused: false) == .next)     // its repeat
        #expect(keys.command(code: 106, value: 0, paused: false) == nil)       // release
        #expect(keys.command(code: 105, value: 1, paused: false) == .previous) // KEY_LEFT
        #expect(keys.command(code: 109, value: 1, paused: false) == .next)     // KEY_PAGEDOWN
        #expect(keys.command(code: 412, value: 1, paused: false) == .previous) // KEY_PREVIOUS
        #expect(keys.command(code: 164, value: 1, paused: false) == .pause)    // KEY_PLAYPAUSE
        #expect(keys.command(code: 57, value: 1, paused: true) == .resume)     // KEY_SPACE
        #expect(keys.command(code: 57, value: 2, paused: true) == nil)
        #expect(keys.command(code: 30, value: 1, paused: false) == nil)        // KEY_A
        var schedule = ShowSchedule(at: 0, pictureCount: 10, settings: MotionSettings(), now: 0)
        for (value, time) in [(Int32(1), 1.0), (2, 1.25), (2, 1.28), (2, 1.31)] {
            if let command = keys.command(code: 106, value: value, paused: false) { schedule.apply(command, at: time) }
        }
        #expect(schedule.motion.target == 4, "a press and three repeats: four pictures")
    }

    /// Someone browsing with the arrows is not interrupted by the show:
    /// after a key, automatic slides wait `resume_after` (30 s), not the interval (8 s).
    @Test func afterAKeyTheShowWaitsResumeAfter() {
        var schedule = ShowSchedule(at: 0, pictureCount: 10, settings: MotionSettings(), now: 0)
        schedule.apply(.next, at: 100)
        schedule.apply(.personPresent, at: 100)
        let early = schedule.advanceIfDue(at: 100 + 9)
        let due = schedule.advanceIfDue(at: 100 + 30)
        #expect(!early && due)
        // Paused, it stays paused.
        schedule.apply(.pause, at: 200)
        schedule.apply(.personPresent, at: 200)
        #expect(schedule.nextAdvance == nil)
    }

    @Test func theConfigsMapOverridesTheDefaults() {
        let keys = KeyMap(overrides: [106: .previous, 30: .next])
        #expect(keys.command(code: 106, value: 1, paused: false) == .previous)
        #expect(keys.command(code: 30, value: 1, paused: false) == .next)
        #expect(keys.command(code: 105, value: 1, paused: false) == .previous)
    }
}

@Suite struct InputRoleTests {
    private func device(_ configure: (inout InputCapabilities) -> Void) -> InputRoles {
        var capabilities = InputCapabilities()
        configure(&capabilities)
        return InputRoles(capabilities, keyMap: KeyMap())
    }

    /// What `input = "auto"` takes, and what it leaves alone.
    @Test func autoTakesTouchscreensAbsolutePointersAndKeyboardsWithTheShowsKeys() {
        #expect(device { $0.isDirect = true; $0.hasAbsolutePosition = true; $0.multitouchSlots = 10; $0.hasTouchButton = true } == .touch)
        #expect(device { $0.hasAbsolutePosition = true; $0.hasTouchButton = true } == .touch, "single-touch panel without INPUT_PROP_DIRECT")
        #expect(device { $0.hasAbsolutePosition = true; $0.hasLeftButton = true } == .touch, "QEMU's usb-tablet, eGalax-style panels")
        #expect(device { $0.hasRelativeMotion = true; $0.hasLeftButton = true } == [], "a mouse")
        #expect(device { $0.hasAbsolutePosition = true; $0.multitouchSlots = 5 } == [], "a touchpad: absolute, but not direct and no touch button")
        #expect(device { $0.keys = [106, 105] } == .keys, "a keyboard with arrows")
        #expect(device { $0.keys = [164] } == .keys, "a remote with play/pause")
        #expect(device { $0.keys = [] } == [], "a power button")
        #expect(device { $0.isDirect = true; $0.hasAbsolutePosition = true; $0.hasTouchButton = true; $0.keys = [57] } == [.touch, .keys])
    }

    @Test func aDevicesTroubleIsLoggedOnceAMinute() {
        var throttle = LogThrottle()
        let answers = [
            throttle.allows("/dev/input/event3", at: 100), throttle.allows("/dev/input/event3", at: 130),
            throttle.allows("/dev/input/event4", at: 130), throttle.allows("/dev/input/event3", at: 160),
        ]
        // Another device has its own minute.
        #expect(answers == [true, false, true, true])
    }
}
