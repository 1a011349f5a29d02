import KioskCore
import KioskRendering
import SystemCalls

/// Why no frame can be drawn now. Any of them can hold at once: a panel
/// switched off while the seat was elsewhere is switched off again when
/// the seat comes back, so one enum of panel states would lose what to
/// restore. ``PanelState`` (what `status` says) is read from it.
struct PanelBlocks: OptionSet {
    let rawValue: UInt8
    /// Switched off (`display off`, the schedule).
    static let asleep = PanelBlocks(rawValue: 1)
    /// The connector in use has no screen.
    static let disconnected = PanelBlocks(rawValue: 2)
    /// The seat is another session's (a VT switch).
    static let elsewhere = PanelBlocks(rawValue: 4)

    /// What the panel is doing, for `status`: being off says most, then having no screen.
    var panel: PanelState {
        if contains(.asleep) { return .off }
        if contains(.disconnected) { return .disconnected }
        return contains(.elsewhere) ? .elsewhere : .active
    }
}

/// A frame queued on the screen: whether the strip moved for it.
/// `arrives`: the playlist item it brings to rest in the centre (the last
/// frame of a slide), decided when drawn: a command that arrives before
/// its flip completes must not unsay that it came to rest. `moves`: when
/// the finger moves it is the first to show were sensed. `sharpAfter`:
/// the frame is the first sharp one since the pinch that ended then.
/// `centredPicture`: the centred slot holds its picture (the first such
/// frame is `first_picture_ms`; one without, later, `offline_gap_frames`).
struct FrameInFlight {
    var moving: Bool
    var position: Double
    var arrives: Int?
    var moves: [Double] = []
    /// The first frame of a move a command asked for (`next`, `goto`...).
    var startsCommandedMove = false
    /// The first frame since the display woke.
    var firstAfterWake = false
    var sharpAfter: Double?
    var centredPicture: Bool
}

/// A frame that brought playlist item `item` to rest in the centre reached
/// the screen at `shownAt` (the show's clock).
struct FrameArrival {
    var item: Int
    var shownAt: Double
}

/// The show's frames on its screen: whether one is wanted, when it may be
/// drawn, the one in flight until its flip completes, a retry after a
/// failed present, a flip that never completes, and what was shown
/// (``ShowStatistics``). What a frame shows is the show's: it hands
/// ``present(at:position:lateBy:compose:)`` a function that composes it.
///
/// While the strip slides, a frame is drawn as soon as the last one has
/// reached the screen, at the position the strip will have when the new
/// one does (``ShowScreen/nextRefresh(after:)``), so the speed on screen
/// follows the easing even if a frame is late. While a finger holds the
/// strip its next position is not known ahead: that frame is drawn one
/// ``RepaintWindow`` before its refresh, with the newest position, so a
/// move reaches the screen within a refresh and the window.
final class FramePacer {
    private(set) var screen: any ShowScreen
    /// Why frames cannot be drawn now (none: they can).
    var blocks: PanelBlocks = []
    /// A picture on screen arrived or the playlist changed: draw even at rest.
    var frameNeeded = true
    /// The position of the last frame presented, and the refresh it was drawn for.
    private(set) var drawnPosition: Double?
    private(set) var drawnFor: Double?
    private(set) var inFlight: FrameInFlight?
    /// When the finger moves not yet in a frame were sensed (kernel time).
    private var movesSinceDraw: [Double] = []
    /// At most this many are kept (the oldest): a flood of moves between two frames costs no more.
    static let movesKeptPerFrame = 4096
    /// How long before its refresh a finger's frame is drawn.
    private(set) var repaintWindow = RepaintWindow()
    /// Times a draw (the monotonic clock; a test's simulated one draws in no time).
    var drawClock: () -> Double = MonotonicClock.now
    /// The display thread's CPU time, for the statistics' CPU per frame.
    var cpuClock: () -> Double = MonotonicClock.threadCPUTime
    /// When the next frame that follows the finger is drawn, once planned.
    private var fingerFrameAt: Double?
    /// When the last frame of an ongoing slide reached the screen.
    private var lastMotionFrameShown: Double?
    /// After a failed present: not before this time again (a display that
    /// is gone must not turn the loop into a busy retry).
    private var retryPresentAt: Double?
    /// A present failed for want of DRM master and nothing was said: the
    /// seat is most likely going to another session (a VT switch), whose
    /// event stops the drawing at once. Said if the next try fails too.
    private var lossUnsaid = false
    /// When the last frame was presented: a flip pending much longer than
    /// that means the screen is stuck (``isStuck(at:)``).
    private var presentedAt: Double?
    /// How long a flip may stay pending before the show counts as stuck:
    /// far beyond any refresh, short of any watchdog interval worth setting.
    static let stuckFlipLimit = 5.0
    private(set) var statistics = ShowStatistics()
    /// A clip's frames are on screen: compose times are counted for it too (``ShowStatistics/clipComposeTime``).
    var clipPlaying = false

    /// A frame took `seconds` to compose (or a long buffer to draw).
    func recordComposeTime(_ seconds: Double) {
        statistics.composeTime.record(seconds)
        if clipPlaying { statistics.clipComposeTime.record(seconds) }
    }
    /// Where ``ShowEvent/displayLost(reason:)`` and ``ShowEvent/displayBack`` go.
    private let emit: (ShowEvent) -> Void

    init(screen: any ShowScreen, emit: @escaping (ShowEvent) -> Void) {
        self.screen = screen
        self.emit = emit
    }

    /// True when no frame can be drawn now.
    var unseen: Bool { !blocks.isEmpty }

    /// A finger's move the strip follows, sensed at `time`: counted until the frame that shows it is on screen.
    func moveSensed(at time: Double) {
        if movesSinceDraw.count < Self.movesKeptPerFrame { movesSinceDraw.append(time) }
    }

    /// A command (`next`, `goto`...) set the strip moving: the flip of the
    /// next frame is when it started on screen (``ShowStatistics/commandedMovesShown``).
    func commandedMove() { commandedMoveSinceDraw = true }
    private var commandedMoveSinceDraw = false

    /// What the statistics count beside frames: slides, changes animated, a zoom's time to sharp.
    func count(_ change: (inout ShowStatistics) -> Void) { change(&statistics) }

    /// True when a frame's flip has been pending for longer than
    /// ``stuckFlipLimit``: the screen stopped answering, and only a restart
    /// can be expected to help (the watchdog stops pinging).
    func isStuck(at now: Double) -> Bool {
        guard screen.flipPending, let presentedAt else { return false }
        return now - presentedAt > Self.stuckFlipLimit
    }

    /// When a frame wanted now may be drawn: nil while a flip is pending
    /// (its completion wakes the loop through the screen's descriptor).
    func nextFrameTime(at now: Double) -> Double? {
        screen.flipPending ? nil : max(now, screen.nextPresentAllowed ?? now, retryPresentAt ?? now, fingerFrameAt ?? now)
    }

    /// How late a frame wanted now may be drawn, or nil when not yet: the
    /// screen is busy, a retry waits, or (`held`: a finger holds the strip)
    /// the repaint window has not opened. The lateness is how far the
    /// timer overran a planned finger's frame: it eats into the window as drawing does.
    func drawingAllowed(at now: Double, held: Bool) -> Double? {
        guard !screen.flipPending else { return nil }
        if let allowed = screen.nextPresentAllowed, allowed > now { return nil }
        if let retry = retryPresentAt, retry > now { return nil }
        if held {
            let due = fingerFrameAt ?? repaintWindow.drawTime(at: now, nextRefresh: screen.nextRefresh(after: now), refreshPeriod: screen.refreshPeriod)
            fingerFrameAt = due
            if due > now { return nil }
        }
        let lateness = fingerFrameAt.map { now - $0 } ?? 0
        fingerFrameAt = nil
        return lateness
    }

    /// Nothing to draw now: a planned finger's frame is dropped, and a slide that stopped forgets its last frame.
    func nothingToDraw(moving: Bool) {
        if !moving { lastMotionFrameShown = nil }
        fingerFrameAt = nil
    }

    /// Presents a frame composed by `compose` (into the back buffer, for
    /// the refresh it will be shown at). Returns that refresh, or nil when
    /// the screen refused it: a display that fails mid-show (unplugged,
    /// lost master) is not something to crash on, so it is said once per
    /// run of failures and tried again each second, the show's time going on.
    func present(
        at now: Double, lateBy lateness: Double, compose: (PixelSurface, inout BufferContents, _ shownAt: Double) -> Void
    ) -> Double? {
        let shownAt = screen.nextRefresh(after: now)
        let presented = present(at: now, lateBy: lateness, way: .composed) { () throws(ScreenError) -> Bool in
            try screen.present(at: now) { surface, contents in
                let composing = drawClock()
                compose(surface, &contents, shownAt)
                recordComposeTime(drawClock() - composing)
            }
            return true
        }
        if case .shown(let refresh) = presented { return refresh }
        return nil
    }

    /// Draws a long buffer ahead of a slide by `draw` (which returns false
    /// when the screen cannot), counting its CPU with the long buffers'.
    /// A screen that fails here is not said: the next frame will say it.
    func drawAhead(_ draw: () throws(ScreenError) -> Bool) -> Bool {
        let cpuStarted = cpuClock()
        guard (try? draw()) == true else { return false }
        statistics.longBuffersCPU += cpuClock() - cpuStarted
        statistics.longBuffersDrawnAhead += 1
        return true
    }

    /// What became of a frame handed to ``present(at:lateBy:panned:_:)``.
    enum Presented: Equatable {
        /// Queued, for this refresh.
        case shown(Double)
        /// The screen would not show it that way, and queued nothing: compose it instead.
        case declined
        /// The screen failed (said once, retried in a second).
        case failed
    }

    /// How a frame is made, for the statistics.
    enum FrameWay {
        /// Composed: a screenful drawn.
        case composed
        /// A long buffer drawn for panning, and a window of it shown.
        case drawnLong
        /// Nothing drawn: another window of the long buffer on screen.
        case panned
    }

    /// Presents a frame by `put`, which draws it (or, `panned`, draws
    /// nothing and moves the window) and queues it, or returns false
    /// when the screen declines that way of showing it.
    func present(at now: Double, lateBy lateness: Double, way: FrameWay, _ put: () throws(ScreenError) -> Bool) -> Presented {
        let shownAt = screen.nextRefresh(after: now)
        let started = drawClock(), cpuStarted = cpuClock()
        do {
            guard try put() else { return .declined }
            let cpu = cpuClock() - cpuStarted
            switch way {
            case .panned: statistics.pannedFramesCPU += cpu
            case .composed: statistics.composedFramesCPU += cpu
            case .drawnLong:
                statistics.longBuffersCPU += cpu
                statistics.longBuffersDrawn += 1
            }
            repaintWindow.drew(taking: lateness + drawClock() - started, at: now)
        } catch {
            if case .display(let failure) = error, case .busy = failure.kind, retryPresentAt == nil {
                lossUnsaid = true
            } else if retryPresentAt == nil || lossUnsaid {
                lossUnsaid = false
                emit(.displayLost(reason: "\(error)"))
            }
            retryPresentAt = now + 1
            return .failed
        }
        if way == .panned { statistics.framesPanned += 1 } else { statistics.framesComposed += 1 }
        presentedAt = now
        if retryPresentAt != nil {
            retryPresentAt = nil
            if !lossUnsaid { emit(.displayBack) }
            lossUnsaid = false
        }
        return .shown(shownAt)
    }

    /// The frame just presented for `shownAt` is in flight. Returns the
    /// item it brings to rest if the screen showed it at once (a first
    /// mode set has no flip event), and when.
    func queued(_ frame: FrameInFlight, for shownAt: Double, at now: Double) -> FrameArrival? {
        drawnPosition = frame.position
        drawnFor = shownAt
        frameNeeded = false
        var frame = frame
        frame.moves = movesSinceDraw
        movesSinceDraw = []
        frame.startsCommandedMove = commandedMoveSinceDraw
        commandedMoveSinceDraw = false
        frame.firstAfterWake = wokeSinceDraw
        wokeSinceDraw = false
        inFlight = frame
        return screen.flipPending ? nil : frameShown(at: screen.nextRefresh(after: now))
    }

    /// The screen's descriptor is readable: flips completed. Returns the
    /// items the frames shown brought to rest in the centre, and when.
    func screenEvents(at now: Double) -> [FrameArrival] {
        screen.handleEvents(at: now).compactMap(frameShown(at:))
    }

    private func frameShown(at shownAt: Double) -> FrameArrival? {
        guard let frame = inFlight else { return nil }
        inFlight = nil
        statistics.framesShown += 1
        if frame.centredPicture && statistics.firstPictureShownAt == nil { statistics.firstPictureShownAt = shownAt }
        if !frame.centredPicture && statistics.firstPictureShownAt != nil { statistics.framesWithoutPicture += 1 }
        for sensed in frame.moves { statistics.inputToPhoton.record(shownAt - sensed) }
        if frame.startsCommandedMove, statistics.commandedMovesShown.count < ShowStatistics.commandedMovesKept {
            statistics.commandedMovesShown.append(shownAt)
        }
        if let ended = frame.sharpAfter { statistics.zoomToSharp.record(shownAt - ended) }
        if frame.firstAfterWake, statistics.wakesShown.count < ShowStatistics.commandedMovesKept { statistics.wakesShown.append(shownAt) }
        guard frame.moving else { return nil }
        if let last = lastMotionFrameShown {
            statistics.refreshesMissed += max(0, Int(((shownAt - last) / screen.refreshPeriod).rounded()) - 1)
        }
        lastMotionFrameShown = shownAt
        return frame.arrives.map { FrameArrival(item: $0, shownAt: shownAt) }
    }

    /// A pinch ended with the sharp picture already on screen, or in the frame in flight.
    func sharpBeforeTheLift(at ended: Double) {
        if inFlight != nil { inFlight?.sharpAfter = ended } else { statistics.zoomToSharp.record(0) }
    }

    /// The slots were renumbered by `delta` under the strip: the frames keep their place.
    func renumber(by delta: Double, arrives: Int?) {
        drawnPosition = drawnPosition.map { $0 + delta }
        inFlight = inFlight.map { frame in
            var frame = frame
            frame.position += delta
            frame.arrives = frame.arrives.flatMap { _ in arrives }
            return frame
        }
    }

    /// A frame queued on a screen that will not show it is forgotten.
    func forgetFrames() {
        inFlight = nil
        fingerFrameAt = nil
        lastMotionFrameShown = nil
        movesSinceDraw = []
        commandedMoveSinceDraw = false
    }

    /// The display woke: the next frame is the first it shows (``ShowStatistics/wakesShown``).
    func woke() {
        wokeSinceDraw = true
        drawAgain()
    }
    private var wokeSinceDraw = false

    /// The next frame is drawn in full, wherever the strip is.
    func drawAgain() {
        drawnPosition = nil
        frameNeeded = true
        retryPresentAt = nil
        lossUnsaid = false
        repaintWindow = RepaintWindow()
    }

    /// The show goes on on `newScreen`.
    func move(to newScreen: any ShowScreen) {
        screen = newScreen
    }
}
