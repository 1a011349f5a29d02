import Foundation
import ImageCodecs
import InputDevices
@testable import KioskApp
import KioskCore
import KioskRendering
import SystemCalls
import Testing

/// The daemon's show, headless and in real time on its own run loop, with
/// input devices handed to its ``InputSource``: piped ones, since these
/// machines have no `/dev/input` (the VM tests use real evdev nodes).
final class LiveInputShow {
    let folder: PictureFolder
    let settings: KioskSettings
    let screen: HeadlessScreen
    let controller: ShowController
    let loop: ShowLoop
    private let worker: DecodeWorker
    private(set) var events: [ShowEvent] = []
    private(set) var readings: [SensorReading] = []
    private var subscriptions: [ShowSubscription] = []
    private(set) var log: [String] = []
    static let panel = PixelSize(width: 320, height: 180)

    init(_ devices: [any InputDevice], folder given: PictureFolder? = nil, configure: (inout KioskSettings) -> Void = { _ in }) throws {
        folder = try given ?? fourColours()
        var settings = showSettings(folder, interval: 600, transition: 0.2)
        settings.display.target = .headless
        settings.input.devices = []  // nothing found: only the devices handed over
        configure(&settings)
        self.settings = settings
        let assembly = try ShowAssembly(settings: settings, panel: Self.panel)
        screen = try HeadlessScreen(panel: Self.panel, vblankTimer: true, now: MonotonicClock.now())
        worker = try DecodeWorker(recipe: assembly.recipe)
        controller = ShowController(show: assembly.makeShow(on: screen, decoder: worker, startAt: 0, now: MonotonicClock.now()))
        loop = try ShowLoop(controller: controller, decoder: worker)
        subscriptions = [
            controller.subscribe { [unowned self] in events.append($0) }, controller.listen { [unowned self] in readings.append($0) },
        ]
        try loop.add(InputSource(
            settings: settings.input, keyMap: KeyMap(), rotation: settings.display.rotation, devices: devices,
            log: { [unowned self] in log.append($0.text) }))
        try run(until: { $0.events.contains { if case .ready = $0 { true } else { false } } })
    }

    deinit { worker.stop() }

    /// Runs the loop until `done`, waking it every 20 ms to ask; at most
    /// 30 s, a bound for a busy machine (`done` ends the wait at once).
    func run(until done: (LiveInputShow) -> Bool) throws {
        let deadline = MonotonicClock.now() + 30
        let tick = loop.loop.deadline(named: "test tick") { _ in }
        defer { loop.loop.remove(tick) }
        var finished = false
        _ = try loop.run { _ in
            tick.arm(at: MonotonicClock.now() + 0.02)
            finished = done(self)
            return finished || MonotonicClock.now() > deadline
        }
        if !finished { Issue.record("what the test waited for did not happen within 30 s; the log: \(log)") }
    }

    /// Runs until the strip is still and no finger holds it (waiting at
    /// least `seconds`, and one wake-up, which reads what the devices sent:
    /// a busy machine may take longer than `seconds` to get to it).
    func settle(_ seconds: Double = 0.1) throws {
        let start = MonotonicClock.now()
        var asked = 0
        try run { show in
            asked += 1
            return asked > 1 && MonotonicClock.now() - start > seconds && !show.controller.show.schedule.isHeld
                && show.controller.statistics.atRest && !show.screen.flipPending
        }
    }

    var centred: Int? { controller.show.centredItem }

    func snapshot(at position: Double) throws -> RasterImage {
        try SnapshotJob(settings: settings, screen: Self.panel, position: position).run().frame
    }
}

/// `kioskd snapshot --zoom --focus` for what the live show's `status` says.
func zoomSnapshot(_ show: LiveInputShow, _ zoom: ZoomStatus) throws -> RasterImage {
    var job = SnapshotJob(settings: show.settings, screen: LiveInputShow.panel, position: 0)
    job.zoom = zoom.scale
    job.focus = (zoom.focusX, zoom.focusY)
    return try job.run().frame
}

/// A finger on a piped 10-slot touchscreen (axes 0 to 4095, no resolution:
/// 96 dpi), reporting every 8 ms. Positions are fractions of the screen;
/// timestamps start now and step as a panel's would.
struct PipedFinger {
    let writer: InputEventWriter
    var time = MonotonicClock.now()
    static let maximum: Int32 = 4095
    static let report = 0.008

    static func axis(_ fraction: Double) -> Int32 { Int32((fraction * Double(maximum)).rounded()) }

    func send(_ type: UInt16, _ code: UInt16, _ value: Int32) throws { try writer.send(type, code, value, at: time) }

    mutating func down(_ x: Double, _ y: Double = 0.5, slot: Int32 = 0, id: Int32 = 1) throws {
        try send(InputCode.absolute, InputCode.slot, slot)
        try send(InputCode.absolute, InputCode.trackingID, id)
        try send(InputCode.absolute, InputCode.positionX, Self.axis(x))
        try send(InputCode.absolute, InputCode.positionY, Self.axis(y))
        try send(InputCode.key, InputCode.buttonTouch, 1)
        try writer.report(at: time)
    }

    mutating func move(_ x: Double, _ y: Double = 0.5, slot: Int32 = 0) throws {
        time += Self.report
        try send(InputCode.absolute, InputCode.slot, slot)
        try send(InputCode.absolute, InputCode.positionX, Self.axis(x))
        try send(InputCode.absolute, InputCode.positionY, Self.axis(y))
        try writer.report(at: time)
    }

    mutating func up(slot: Int32 = 0, after seconds: Double = report) throws {
        time += seconds
        try send(InputCode.absolute, InputCode.slot, slot)
        try send(InputCode.absolute, InputCode.trackingID, -1)
        try writer.report(at: time)
    }

    /// Down at (x0, y0), straight to (x1, y1) over `seconds`, then up.
    mutating func swipe(from x0: Double, to x1: Double, y0: Double = 0.5, y1: Double = 0.5, over seconds: Double) throws {
        try down(x0, y0)
        let steps = max(1, Int((seconds / Self.report).rounded()))
        for step in 1...steps {
            let f = Double(step) / Double(steps)
            try move(x0 + (x1 - x0) * f, y0 + (y1 - y0) * f)
        }
        try up()
    }
}

@Suite struct InputSourceTests {
    static func touchscreen() throws -> PipedInputDevice {
        try PipedInputDevice.touchscreen(name: "test touchscreen", axisMaximum: PipedFinger.maximum)
    }

    /// A quick swipe right to left moves on a picture, a slow short drag
    /// snaps back, a swipe left to right goes back: each time the screen
    /// equals the snapshot of the picture the strip rests on.
    @Test func swipesOnATouchscreenMoveTheStrip() throws {
        let panel = try Self.touchscreen()
        let show = try LiveInputShow([panel])
        #expect(show.log.contains("input: pipe:test touchscreen (test touchscreen): touch, 3.8 px/mm (96 dpi: neither it nor the screen says its size)"), "\(show.log)")
        var finger = PipedFinger(writer: panel.writer)
        try finger.swipe(from: 0.8, to: 0.3, over: 0.25)
        try show.settle()
        #expect(show.centred == 1)
        #expect(try show.screen.shown?.pixels == (show.snapshot(at: 1)).pixels)
        finger.time = MonotonicClock.now()
        try finger.swipe(from: 0.5, to: 0.4, over: 1.5)
        try show.settle()
        #expect(show.centred == 1, "a fifth of a page, slowly: back where it was")
        #expect(try show.screen.shown?.pixels == (show.snapshot(at: 1)).pixels)
        finger.time = MonotonicClock.now()
        try finger.swipe(from: 0.2, to: 0.7, over: 0.25)
        try show.settle()
        #expect(show.centred == 0)
        #expect(try show.screen.shown?.pixels == (show.snapshot(at: 0)).pixels)
        #expect(show.controller.statistics.inputToPhoton.count > 10, "the drags' frames were counted")
    }

    /// A swipe up or down is not a tap: it neither pauses (the middle) nor
    /// moves. (It once was: the recogniser's state was dropped whenever it
    /// said nothing, so "vertical" never stuck and the lift read as a tap.)
    /// A real tap in the middle does pause.
    @Test func aVerticalSwipeIsNeitherATapNorASwipe() throws {
        let panel = try Self.touchscreen()
        let show = try LiveInputShow([panel])
        var finger = PipedFinger(writer: panel.writer)
        try finger.swipe(from: 0.5, to: 0.52, y0: 0.8, y1: 0.2, over: 0.3)
        try show.settle(0.5)   // past a middle tap's wait for a second one
        #expect(!show.controller.show.schedule.isPaused, "\(show.events)")
        #expect(show.centred == 0)
        finger.time = MonotonicClock.now()
        try finger.down(0.5)
        try finger.up(after: 0.08)
        try show.run { $0.controller.show.schedule.isPaused }
        #expect(show.events.contains(.paused))
    }

    /// Two real fingers on the piped touchscreen spread apart: the centred
    /// picture zooms (to `max_zoom`, 2x), the strip stays, and once they
    /// lift the screen is exactly `kioskd snapshot --zoom --focus` of what
    /// `status` reports. One finger then pans it; it is sharp again there.
    @Test func twoFingersZoomTheCentredPictureAndOneFingerPansIt() throws {
        let panel = try Self.touchscreen()
        let pictures = try PictureFolder([("a.png", try PNGCodec.encode(detailedPhoto())), ("b.png", try flatPNG(green))])
        let show = try LiveInputShow([panel], folder: pictures)
        var finger = PipedFinger(writer: panel.writer)
        try finger.down(0.45, 0.5, slot: 0, id: 1)
        try finger.down(0.55, 0.5, slot: 1, id: 2)
        for step in 1...10 {
            try finger.move(0.55 + 0.01 * Double(step), 0.5, slot: 1)
            try finger.move(0.45 - 0.01 * Double(step), 0.5, slot: 0)
        }
        try finger.up(slot: 0)
        try finger.up(slot: 1)
        let status = { show.controller.show.zoomStatus(at: MonotonicClock.now()) }
        try show.run { _ in status()?.sharp == true }
        let zoomed = try #require(status())
        #expect(zoomed.scale == 2 && abs(zoomed.focusX - 0.5) < 0.02 && abs(zoomed.focusY - 0.5) < 0.02, "\(zoomed)")
        #expect(show.centred == 0 && show.controller.statistics.slides == 0)
        try show.settle()
        #expect(try show.screen.shown == (zoomSnapshot(show, zoomed)))

        finger.time = MonotonicClock.now()
        try finger.swipe(from: 0.5, to: 0.3, over: 0.2)
        try show.run { _ in status().map { $0.sharp && $0.focusX != zoomed.focusX } == true }
        let panned = try #require(status())
        #expect(panned.scale == 2 && panned.focusX > zoomed.focusX && abs(panned.focusY - zoomed.focusY) < 1e-9, "\(panned)")
        #expect(show.centred == 0 && show.controller.statistics.slides == 0, "the strip stayed")
        try show.settle()
        #expect(try show.screen.shown == (zoomSnapshot(show, panned)))
    }

    /// With `tap_zones`, a tap in the middle pauses only once no second tap
    /// came within 300 ms; a double tap there zooms and does not pause.
    @Test func aMiddleTapWaitsForASecondAndADoubleTapZooms() throws {
        let panel = try Self.touchscreen()
        let pictures = try PictureFolder([("a.png", try PNGCodec.encode(detailedPhoto())), ("b.png", try flatPNG(green))])
        let show = try LiveInputShow([panel], folder: pictures)
        var finger = PipedFinger(writer: panel.writer)
        try finger.down(0.5, 0.5, slot: 0, id: 1)
        try finger.up(after: 0.08)
        // The loop reads the tap after this moment, so its pause comes a
        // second tap's time after it at the earliest (later on a busy machine).
        let start = MonotonicClock.now()
        try show.run { $0.controller.show.schedule.isPaused }
        let pausedAfter = MonotonicClock.now() - start
        #expect(pausedAfter >= SwipeRecognizer.doubleTapInterval, "not before the time for a second tap: \(pausedAfter) s")

        // Well after the first tap (as stamped), so the next is not its second.
        finger.time = MonotonicClock.now() + SwipeRecognizer.doubleTapInterval
        try finger.down(0.5, 0.5, slot: 0, id: 2)
        try finger.up(after: 0.08)
        finger.time += 0.1
        try finger.down(0.52, 0.5, slot: 0, id: 3)
        try finger.up(after: 0.08)
        try show.run { $0.controller.show.zoomStatus(at: MonotonicClock.now())?.sharp == true }
        let after = MonotonicClock.now()
        try show.run { _ in MonotonicClock.now() - after > 0.4 }
        #expect(show.controller.show.schedule.isPaused && show.controller.show.isZoomed, "\(show.events)")
        #expect(!show.events.contains(.resumed))
    }

    /// Only the first finger drives; a third finger cancels the gesture, and
    /// the first finger's moves after that move nothing.
    @Test func threeFingersCancelTheSwipe() throws {
        let panel = try Self.touchscreen()
        let show = try LiveInputShow([panel])
        var finger = PipedFinger(writer: panel.writer)
        try finger.down(0.8)
        for step in 1...10 { try finger.move(0.8 - 0.03 * Double(step)) }  // 0.3 of the width to the left
        try finger.down(0.3, 0.3, slot: 1, id: 2)
        try finger.down(0.6, 0.7, slot: 2, id: 3)
        for step in 1...10 { try finger.move(0.5 - 0.03 * Double(step)) }  // on to 0.6 of the width: past half a page
        try finger.up()
        try finger.up(slot: 1)
        try finger.up(slot: 2)
        try show.settle(0.3)
        #expect(show.centred == 0, "cancelled at 0.3 of the width: back to the first picture")
        #expect(try show.screen.shown?.pixels == (show.snapshot(at: 0)).pixels)
    }

    /// A touchscreen pulled out mid-drag: it is dropped (one log line), its
    /// descriptor closed with it, and the strip settles on the nearest picture.
    @Test func aDeviceUnpluggedMidDragIsDroppedAndTheStripSettles() throws {
        var panel: PipedInputDevice? = try Self.touchscreen()
        let writer = panel!.writer
        weak var device = panel
        let show = try LiveInputShow([panel!])
        panel = nil
        var finger = PipedFinger(writer: writer)
        try finger.down(0.7)
        for step in 1...10 { try finger.move(0.7 - 0.045 * Double(step)) }
        try show.run { $0.controller.show.schedule.isHeld && $0.controller.show.schedule.position(at: MonotonicClock.now()) > 0.5 }
        writer.unplug()
        try show.settle()
        #expect(show.log.contains("input: pipe:test touchscreen removed"), "\(show.log)")
        #expect(device == nil, "the device (and its descriptor) went with it")
        #expect(show.centred == 1, "dragged past half a page when it went: the next picture")
        #expect(try show.screen.shown?.pixels == (show.snapshot(at: 1)).pixels)
    }

    /// A touch device that gives no axis ranges cannot be mapped to the
    /// screen: one line says so, and its keys still work.
    @Test func aDeviceWithoutAxisRangesIsSaidOnceAndItsKeysWork() throws {
        var capabilities = InputCapabilities()
        capabilities.isDirect = true
        capabilities.hasAbsolutePosition = true
        capabilities.hasTouchButton = true
        capabilities.keys = [106]  // KEY_RIGHT
        let panel = try PipedInputDevice(name: "rangeless", capabilities: capabilities)
        let show = try LiveInputShow([panel])
        #expect(show.log.filter { $0.contains("rangeless") } == [
            "input: pipe:rangeless (rangeless) reports no usable axis ranges; its touches are ignored",
            "input: pipe:rangeless (rangeless): keys",
        ])
        var finger = PipedFinger(writer: panel.writer)
        try finger.swipe(from: 0.8, to: 0.2, over: 0.2)
        try finger.send(InputCode.key, 106, 1)
        try panel.writer.report(at: finger.time)
        try show.settle(0.3)
        #expect(show.centred == 1, "the key moved on; the touches moved nothing")
    }

    /// A PIR on gpio-keys (KEY_WAKEUP down while it sees motion): the display
    /// hears someone is there while it is down, and nobody once it is up or
    /// unplugged; the show's slides are not held, as a touch would.
    @Test func aMotionSensorsKeySaysSomeoneIsThereUntilItIsReleasedOrUnplugged() throws {
        var capabilities = InputCapabilities()
        capabilities.sensesPresence = true
        let pir = try PipedInputDevice(name: "pir", capabilities: capabilities)
        let show = try LiveInputShow([pir])
        #expect(show.log.contains("input: pipe:pir (pir): presence"), "\(show.log)")
        func sensed() -> [Bool] { show.readings.compactMap { if case .presenceSensed(let held) = $0 { held } else { nil } } }
        try pir.writer.send(InputCode.key, 143, 1)
        try pir.writer.report()
        try show.run { _ in sensed() == [true] }
        try pir.writer.send(InputCode.key, 143, 0)
        try pir.writer.send(InputCode.key, 30, 1)  // KEY_A: not a presence key
        try pir.writer.report()
        try show.run { _ in sensed() == [true, false] }
        try pir.writer.send(InputCode.switchEvent, 0x0b, 1)  // SW_FRONT_PROXIMITY: near
        try pir.writer.report()
        try show.run { _ in sensed() == [true, false, true] }
        pir.writer.unplug()
        try show.run { _ in sensed() == [true, false, true, false] }
        #expect(show.controller.show.schedule.lastPresence == nil, "a sensor is no touch: the slides are not held")
        #expect(!show.readings.contains(.presence))
    }

    /// Nonsense as fast as the pipe takes it, from another thread (up to 13
    /// fingers in 10 slots, positions a million times off the axes,
    /// timestamps out of order and repeated, random keys): the show keeps
    /// drawing frames while it pours in (the flood goes on until 100,000
    /// events are in and ten frames have been shown since it began: a
    /// starved loop never gets there), and once the device is gone the strip
    /// rests on a whole picture, equal to its snapshot.
    @Test func aFloodOfNonsenseNeitherStopsTheFramesNorDerailsTheStrip() throws {
        let panel = try Self.touchscreen()
        let writer = panel.writer
        let show = try LiveInputShow([panel])
        let framesBefore = show.controller.statistics.framesShown
        let enough = Flag(), stop = Flag(), done = Flag()
        Thread.detachNewThread {
            var random: UInt64 = 7
            func next(_ bound: Int) -> Int {
                random = random &* 6364136223846793005 &+ 1442695040888963407
                return Int((random >> 33) % UInt64(bound))
            }
            let base = MonotonicClock.now()
            let codes = [InputCode.slot, InputCode.trackingID, InputCode.positionX, InputCode.positionY, InputCode.toolType]
            var sent = 0
            while !stop.isSet {
                // Times wander a second either way, and repeat.
                let time = base + Double(next(2000) - 1000) / 1000
                switch next(10) {
                case 0: try? writer.report(at: time)
                case 1: try? writer.send(InputCode.key, UInt16([105, 106, 57, 164, 330][next(5)]), Int32(next(3)), at: time)
                default:
                    let code = codes[next(codes.count)]
                    let value: Int32 = switch code {
                    case InputCode.slot: Int32(next(13))
                    case InputCode.trackingID: Int32(next(6)) - 1
                    case InputCode.toolType: Int32(next(3))
                    default: Int32(next(2_000_000_000)) - 1_000_000_000
                    }
                    try? writer.send(InputCode.absolute, code, value, at: time)
                }
                sent += 1
                if sent == 100_000 { enough.set() }
            }
            done.set()
        }
        try show.run { $0.controller.statistics.framesShown - framesBefore >= 10 && enough.isSet }
        stop.set()
        try show.run { _ in done.isSet }
        writer.unplug()
        try show.settle(0.5)
        let position = show.controller.show.schedule.position(at: MonotonicClock.now())
        #expect(position.isFinite && position == position.rounded(), "\(position)")
        let item = try #require(show.centred)
        #expect(try show.screen.shown?.pixels == (show.snapshot(at: Double(item))).pixels)
        #expect(show.log.contains("input: pipe:test touchscreen removed"))
    }
}

/// A flag one thread sets and another reads.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
