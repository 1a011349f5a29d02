import Foundation
@testable import KioskApp
import KioskCore
import LinuxPlatform
import SystemCalls
import TestSupport
import Testing

/// A seat manager played by the test: each byte written is one message,
/// `d` (disable), `e` (enable) or `x` (the manager gone).
final class FakeSeat: ShowSeat {
    private var fds: [Int32] = [-1, -1]
    var onEnable: () -> Void = {}
    var onDisable: () -> Void = {}
    private(set) var acknowledgements = 0
    var descriptor: Int32 { fds[0] }

    init() { _ = pipe(&fds); closeOnExec(fds) }

    deinit { fds.forEach { _ = close($0) } }

    func send(_ message: Character) {
        var byte = message.asciiValue!
        _ = write(fds[1], &byte, 1)
    }

    func dispatch() throws {
        var byte: UInt8 = 0
        guard read(fds[0], &byte, 1) == 1 else { return }
        switch Character(UnicodeScalar(byte)) {
        case "d": onDisable()
        case "e": onEnable()
        default: throw SystemCallError("libseat_dispatch", errno: EPIPE)
        }
    }

    func acknowledgeDisable() throws { acknowledgements += 1 }
}

@Suite struct SeatTests {
    /// A VT switch away and back: nothing is drawn while the seat is
    /// another session's, the slides go on on time, and the first frame
    /// after it comes back, within one refresh, shows where the show now is.
    @Test func aDisabledSeatStopsTheDrawingButNotTheShowsTime() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder, interval: 1, transition: 0.3))
        run.run(until: 0.5)
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: 0)).pixels)
        run.controller.seatDisabled()
        let framesBefore = run.frames.count
        run.run(until: 3.0)
        #expect(run.frames.count == framesBefore, "frames drawn while the seat was away")
        #expect(run.show.statistics.slides == 2, "slides at 1.0 and 2.3 s, unseen")
        #expect(run.show.centredItem == 2)
        run.controller.seatEnabled()
        run.run(until: 3.0 + 1.0 / 60)
        #expect(run.frames.count == framesBefore + 1, "one frame at the next refresh")
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: 2)).pixels)
        // And the show goes on: the next slide at 3.6 s.
        run.run(until: 4.0)
        #expect(run.show.centredItem == 3)
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: 3)).pixels)
    }

    /// Disabled mid-slide with a flip pending: the flip is abandoned and no
    /// frame is presented until the seat is back.
    @Test func aFlipPendingWhenTheSeatGoesIsAbandonedAndNothingIsPresentedAfter() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder, interval: 1, transition: 0.5))
        run.run(until: 1.2)
        #expect(run.show.schedule.isMoving(at: run.now))
        run.show.update(at: run.now)
        run.controller.seatDisabled()
        #expect(!run.screen.flipPending, "the pending flip was abandoned")
        let shown = run.frames.count
        run.run(until: 2.0)
        #expect(run.frames.count == shown)
        #expect(run.show.nextWakeUp(at: run.now) == run.show.schedule.nextAdvance, "no frame deadlines while away")
    }

    /// Through the run loop: the seat's news disables the show and is
    /// answered at once, enables it again, and a seat manager that went
    /// away ends the show as a failure (so systemd restarts kioskd).
    @Test func theSeatSourceAnswersADisableAndStopsWhenTheManagerIsGone() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder))
        let seat = FakeSeat()
        let loop = try EventLoop()
        var log: [String] = []
        let source = SeatSource(seat: seat, log: { log.append($0.text) })
        defer { withExtendedLifetime(source) {} }
        try source.attach(to: loop, controller: run.controller)
        seat.send("d")
        try loop.runOnce()
        #expect(run.show.displayReleased)
        #expect(seat.acknowledgements == 1)
        seat.send("e")
        try loop.runOnce()
        #expect(!run.show.displayReleased)
        #expect(log == ["seat: given to another session; the show goes on unseen", "seat: back; drawing again"])
        seat.send("x")
        try loop.runOnce()
        #expect(run.controller.stopRequested && run.controller.failed)
        #expect(run.controller.stopReason?.hasPrefix("the seat manager went away") == true)
    }
}
