import KioskCore
import SystemCalls

/// An input device as kioskd's input source reads it: what it is, what it
/// can do, its axes, and its events, a bounded batch at a time. An evdev
/// node through libevdev (``EvdevDevice``) on a kiosk; a pipe
/// (``PipedInputDevice``) in the benchmark and the tests of machines that
/// have no input devices.
public protocol InputDevice: AnyObject {
    /// Where it was found: `/dev/input/event3`.
    var path: String { get }
    /// The kernel's name for it ("eGalax Inc. USB TouchController").
    var name: String { get }
    /// Readable when events are waiting; hangs up when the device goes away.
    var fd: Int32 { get }
    /// Where the device's driver library puts its complaints, a line at a time.
    var libraryMessages: ((String) -> Void)? { get set }
    /// What it can do, asking about the keys of `keyMap` and the keys and switches of `presence`.
    func capabilities(keyMap: KeyMap, presence: PresenceInputs) -> InputCapabilities
    /// An absolute axis's range and resolution, if the device has it.
    func axis(_ code: UInt16) -> TouchMapping.Axis?
    /// Takes the device for kioskd alone (`EVIOCGRAB`).
    func grab() throws(SystemCallError)
    /// Reads what is waiting, at most `limit` events: a flood cannot hold the run loop.
    func read(limit: Int) -> InputBatch
}

/// What one read of a device brought.
public struct InputBatch: Equatable {
    /// One thing read: an event, or the device's whole state after the kernel dropped events.
    public enum Item: Equatable {
        case event(InputEvent)
        case resync([InputEvent])
    }

    /// In the order they happened.
    public var items: [Item] = []
    /// The read stopped at its limit: more may be waiting (the loop calls again).
    public var full = false
    /// The device is gone (unplugged): close it.
    public var gone = false

    public init() {}
}
