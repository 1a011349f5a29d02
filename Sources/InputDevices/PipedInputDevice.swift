import CEvdev
import KioskCore
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A touchscreen or keyboard whose events come through a pipe, as the
/// kernel's `struct input_event` records, instead of from `/dev/input`: the
/// benchmark's finger, and the tests' on machines with no input devices and
/// no uinput (the build machines). It describes itself as it is told; its
/// events read like an evdev node's (records in order, a bounded batch at a
/// time, each with the timestamp its writer gave it), and closing the
/// writing end (``InputEventWriter/unplug()``) is the device pulled out: a
/// hang-up, then nothing more to read.
///
/// What it cannot stand in for, the VM tests cover on real evdev nodes:
/// libevdev's multitouch state, `SYN_DROPPED` resyncs, `EVIOCGRAB`.
public final class PipedInputDevice: InputDevice {
    public let path: String
    public let name: String
    public var libraryMessages: ((String) -> Void)?
    /// Where its events are written from.
    public let writer: InputEventWriter
    private let reading: FileDescriptor
    private let described: InputCapabilities
    private let axes: [UInt16: TouchMapping.Axis]

    /// A device with `capabilities` (every key it has in `keys`) and `axes` by code.
    public init(name: String, capabilities: InputCapabilities, axes: [UInt16: TouchMapping.Axis] = [:]) throws(SystemCallError) {
        var ends: [Int32] = [-1, -1]
        try retryingInterrupts("pipe", path: name) { pipe(&ends) }
        reading = FileDescriptor(owning: ends[0])
        let writing = FileDescriptor(owning: ends[1])
        // Read like the run loop reads a device; the writer blocks while the
        // pipe is full, as a device's events wait in the kernel.
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        writer = InputEventWriter(writing)
        path = "pipe:\(name)"
        self.name = name
        described = capabilities
        self.axes = axes
    }

    /// A protocol B multitouch touchscreen (`INPUT_PROP_DIRECT`, `BTN_TOUCH`)
    /// with `slots` slots, its axes 0 to `axisMaximum` at `resolution` units a
    /// millimetre (nil: it does not say), as the VM tests' uinput panel.
    public static func touchscreen(
        name: String, axisMaximum: Int32, slots: Int = 10, resolution: Double? = nil
    ) throws(SystemCallError) -> PipedInputDevice {
        var capabilities = InputCapabilities()
        capabilities.isDirect = true
        capabilities.hasAbsolutePosition = true
        capabilities.hasTouchButton = true
        capabilities.multitouchSlots = slots
        let axis = TouchMapping.Axis(minimum: 0, maximum: Double(axisMaximum), resolution: resolution)
        return try PipedInputDevice(name: name, capabilities: capabilities, axes: [
            InputCode.x: axis, InputCode.y: axis, InputCode.positionX: axis, InputCode.positionY: axis,
        ])
    }

    public var fd: Int32 { reading.rawValue }

    public func capabilities(keyMap: KeyMap, presence: PresenceInputs) -> InputCapabilities {
        var capabilities = described
        capabilities.keys = described.keys.intersection(keyMap.codes)
        capabilities.sensesPresence = described.sensesPresence && !presence.isEmpty
        return capabilities
    }

    public func axis(_ code: UInt16) -> TouchMapping.Axis? { axes[code] }

    /// Nothing to take: nobody else reads the pipe.
    public func grab() throws(SystemCallError) {}

    public func read(limit: Int) -> InputBatch {
        var batch = InputBatch()
        var records = [input_event](repeating: input_event(), count: min(max(limit, 1), 256))
        let recordSize = MemoryLayout<input_event>.stride
        while batch.items.count < limit {
            let wanted = min(records.count, limit - batch.items.count)
            let count = records.withUnsafeMutableBytes { bytes in
                Glibc.read(reading.rawValue, bytes.baseAddress, wanted * recordSize)
            }
            if count == 0 { batch.gone = true }  // the writing end closed: unplugged
            guard count > 0 else { return batch }
            // Records are written whole (far below PIPE_BUF), so reads are whole too.
            for record in records.prefix(count / recordSize) {
                batch.items.append(.event(InputEvent(
                    type: record.type, code: record.code, value: record.value,
                    time: Double(record.time.tv_sec) + Double(record.time.tv_usec) / 1_000_000)))
            }
        }
        batch.full = true
        return batch
    }
}

/// The writing end of a ``PipedInputDevice``: events in, stamped as the
/// kernel stamps them (`CLOCK_MONOTONIC`, microseconds). Used from one
/// thread at a time (the benchmark's finger runs on a thread of its own).
public final class InputEventWriter: @unchecked Sendable {
    private var descriptor: FileDescriptor?

    init(_ descriptor: consuming FileDescriptor) { self.descriptor = consume descriptor }

    /// Sends one event, stamped `time` (default: now). Blocks while the pipe is full.
    public func send(_ type: UInt16, _ code: UInt16, _ value: Int32, at time: Double = MonotonicClock.now()) throws(SystemCallError) {
        guard let fd = descriptor?.rawValue else { throw SystemCallError("write", errno: ENODEV, path: "an unplugged piped device") }
        let microseconds = Int((time * 1_000_000).rounded(.down))
        var record = input_event()
        record.time.tv_sec = microseconds / 1_000_000
        record.time.tv_usec = microseconds % 1_000_000
        record.type = type
        record.code = code
        record.value = value
        let written = try retryingInterrupts("write") { withUnsafeBytes(of: &record) { Glibc.write(fd, $0.baseAddress, $0.count) } }
        guard written == MemoryLayout<input_event>.stride else { throw SystemCallError("write", errno: EIO) }
    }

    /// Ends a frame (`SYN_REPORT`).
    public func report(at time: Double = MonotonicClock.now()) throws(SystemCallError) {
        try send(InputCode.synchronisation, InputCode.report, 0, at: time)
    }

    /// Closes the writing end: the device is unplugged.
    public func unplug() { descriptor = nil }
}
