/// One kernel input event (`struct input_event`), as libevdev hands it
/// over: type, code, value, and its timestamp in seconds on
/// `CLOCK_MONOTONIC`.
public struct InputEvent: Equatable, Sendable {
    public var type: UInt16
    public var code: UInt16
    public var value: Int32
    public var time: Double

    public init(type: UInt16, code: UInt16, value: Int32, time: Double) {
        self.type = type
        self.code = code
        self.value = value
        self.time = time
    }
}

/// The event types and codes used here, from `linux/input-event-codes.h`
/// (the kernel's ABI: these numbers never change).
public enum InputCode {
    public static let synchronisation: UInt16 = 0  // EV_SYN
    public static let key: UInt16 = 1  // EV_KEY
    public static let absolute: UInt16 = 3  // EV_ABS
    public static let switchEvent: UInt16 = 5  // EV_SW
    public static let report: UInt16 = 0  // SYN_REPORT
    public static let dropped: UInt16 = 3  // SYN_DROPPED
    public static let x: UInt16 = 0x00  // ABS_X
    public static let y: UInt16 = 0x01  // ABS_Y
    public static let slot: UInt16 = 0x2f  // ABS_MT_SLOT
    public static let positionX: UInt16 = 0x35  // ABS_MT_POSITION_X
    public static let positionY: UInt16 = 0x36  // ABS_MT_POSITION_Y
    public static let toolType: UInt16 = 0x37  // ABS_MT_TOOL_TYPE
    public static let trackingID: UInt16 = 0x39  // ABS_MT_TRACKING_ID
    public static let palm: Int32 = 2  // MT_TOOL_PALM
    public static let buttonLeft: UInt16 = 0x110  // BTN_LEFT
    public static let buttonTouch: UInt16 = 0x14a  // BTN_TOUCH
}

/// Turns one touch device's events into ``TouchInput``, a frame (up to
/// `SYN_REPORT`) at a time.
///
/// - Multitouch devices (protocol B, `ABS_MT_SLOT`): each contact is known
///   by its tracking id, so a slot reused by a new finger is a new contact;
///   a tracking id replaced within one frame is a lift and a new touch;
///   `MT_TOOL_PALM` is a palm. `BTN_TOUCH` is ignored (the slots say it all).
/// - Single-touch panels and absolute pointers (QEMU's usb-tablet, eGalax
///   panels): one contact, id 0, down and up with `BTN_TOUCH` or `BTN_LEFT`,
///   moving with `ABS_X`/`ABS_Y`.
/// - After `SYN_DROPPED`, libevdev hands over the device's state again
///   (``resynchronised(_:)``): if the contacts are not the ones before, the
///   gesture is ``TouchInput/lost(time:)``; if they are, it goes on.
public struct TouchEventDecoder: Sendable {
    public let mapping: TouchMapping
    public let multitouch: Bool

    private struct Contact: Equatable {
        var trackingID: Int32 = -1
        var x = 0.0, y = 0.0
        var isPalm = false
    }

    private var slots: [Contact]
    /// The state at the last report, to compare with.
    private var reported: [Contact]
    private var slot = 0
    /// Single touch: the button's state and the one at the last report.
    private var pressed = false
    private var pressedReported = false

    /// `slots`: the device's `ABS_MT_SLOT` maximum + 1 (ignored without multitouch).
    public init(mapping: TouchMapping, multitouch: Bool, slots: Int = 1) {
        self.mapping = mapping
        self.multitouch = multitouch
        let count = multitouch ? min(max(slots, 1), 64) : 1
        self.slots = Array(repeating: Contact(), count: count)
        reported = self.slots
    }

    /// Takes one event; at the end of a frame returns what it said.
    public mutating func take(_ event: InputEvent) -> [TouchInput] {
        switch event.type {
        case InputCode.absolute:
            absolute(event)
            return []
        case InputCode.key where !multitouch && (event.code == InputCode.buttonTouch || event.code == InputCode.buttonLeft):
            pressed = event.value != 0
            return []
        case InputCode.synchronisation where event.code == InputCode.report:
            return report(at: event.time)
        default:
            return []
        }
    }

    /// libevdev's state events after `SYN_DROPPED` (ending in its own
    /// `SYN_REPORT`): a lost gesture if the contacts changed, else the frame.
    public mutating func resynchronised(_ events: [InputEvent]) -> [TouchInput] {
        let before = reported.map(\.trackingID)
        let wasPressed = pressedReported
        for event in events where event.type != InputCode.synchronisation { _ = take(event) }
        let time = events.last?.time ?? 0
        let changed = multitouch ? slots.map(\.trackingID) != before : pressed != wasPressed
        let touching = multitouch ? before.contains { $0 >= 0 } || slots.contains { $0.trackingID >= 0 } : wasPressed || pressed
        if changed && touching {
            reported = slots
            pressedReported = pressed
            return [.lost(time: time)]
        }
        return report(at: time)
    }

    private mutating func absolute(_ event: InputEvent) {
        let value = Double(event.value)
        if multitouch {
            switch event.code {
            case InputCode.slot: slot = Int(event.value)
            case _ where !slots.indices.contains(slot): return  // a slot past the device's own count
            case InputCode.trackingID:
                slots[slot].trackingID = event.value < 0 ? -1 : event.value
                if event.value >= 0 { slots[slot].isPalm = false }
            case InputCode.positionX: slots[slot].x = value
            case InputCode.positionY: slots[slot].y = value
            case InputCode.toolType: slots[slot].isPalm = event.value == InputCode.palm
            default: break
            }
        } else {
            switch event.code {
            case InputCode.x: slots[0].x = value
            case InputCode.y: slots[0].y = value
            default: break
            }
        }
    }

    private mutating func report(at time: Double) -> [TouchInput] {
        var inputs: [TouchInput] = []
        if !multitouch {
            let contact = slots[0], before = reported[0]
            let point = mapping.point(rawX: contact.x, rawY: contact.y)
            if pressed && !pressedReported {
                inputs.append(.down(id: 0, at: point, time: time))
            } else if pressed && (contact.x != before.x || contact.y != before.y) {
                inputs.append(.move(id: 0, to: point, time: time))
            } else if !pressed && pressedReported {
                inputs.append(.up(id: 0, time: time))
            }
            pressedReported = pressed
        } else {
            for index in slots.indices {
                let contact = slots[index], before = reported[index]
                let point = mapping.point(rawX: contact.x, rawY: contact.y)
                if before.trackingID >= 0 && before.trackingID != contact.trackingID {
                    inputs.append(.up(id: Int(before.trackingID), time: time))
                }
                guard contact.trackingID >= 0 else { continue }
                let id = Int(contact.trackingID)
                if contact.trackingID != before.trackingID {
                    inputs.append(.down(id: id, at: point, time: time))
                } else if contact.x != before.x || contact.y != before.y {
                    inputs.append(.move(id: id, to: point, time: time))
                }
                if contact.isPalm && !(before.isPalm && before.trackingID == contact.trackingID) {
                    inputs.append(.palm(id: id, time: time))
                }
            }
        }
        reported = slots
        return inputs
    }
}
