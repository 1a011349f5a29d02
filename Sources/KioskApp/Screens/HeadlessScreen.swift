import LinuxPlatform
import SystemCalls
import KioskCore
import KioskRendering

/// A screen in memory, refreshed 60 times a second: `kioskd --display
/// headless`, for trying the daemon where no display is free and for tests.
///
/// It behaves like a page-flipping display: two buffers, a present draws into
/// the one not shown and queues it, and the flip completes at the next
/// refresh (a `timerfd` on the refresh grid stands in for the vblank
/// interrupt). Nothing ticks while no flip is pending, as with DRM.
///
/// Tests make one without a timer (`vblankTimer: false`) and drive time
/// themselves: they call ``handleEvents(at:)`` at ``pendingFlipTime``.
final class HeadlessScreen: ShowScreen {
    let panelSize: PixelSize
    let refreshPeriod: Double
    private var buffers: [RasterImage]
    private var contents = [BufferContents(), BufferContents()]
    private var front: Int?
    private var pending: (buffer: Int, shownAt: Double)?
    private let vblank: OneShotTimer?
    /// A refresh happens at `phase + k * refreshPeriod`.
    private let phase: Double

    init(panel: PixelSize, refreshRate: Double = 60, vblankTimer: Bool, now: Double) throws(SystemCallError) {
        panelSize = panel
        refreshPeriod = 1 / refreshRate
        buffers = [RasterImage](repeating: RasterImage(size: panel, filledWith: .black), count: 2)
        vblank = vblankTimer ? try OneShotTimer() : nil
        phase = now
    }

    var eventDescriptor: Int32? { vblank?.descriptor.rawValue }
    /// A screen in memory has no size: swipes use the device's, or 96 dpi.
    var physicalSize: PhysicalSize? { nil }
    var flipPending: Bool { pending != nil }
    var nextPresentAllowed: Double? { nil }
    /// When the queued frame reaches the screen.
    var pendingFlipTime: Double? { pending?.shownAt }
    /// What the screen shows: the last frame whose flip completed.
    var shown: RasterImage? { front.map { buffers[$0] } }

    /// The first refresh strictly after `now` (rounding cannot return `now` itself).
    func nextRefresh(after now: Double) -> Double {
        var refresh = ((now - phase) / refreshPeriod).rounded(.down) + 1
        while phase + refresh * refreshPeriod <= now { refresh += 1 }
        return phase + refresh * refreshPeriod
    }

    func present(at now: Double, _ draw: (PixelSurface, inout BufferContents) -> Void) {
        precondition(pending == nil, "present while a flip is pending")
        let back = front.map { 1 - $0 } ?? 0
        buffers[back].withSurface { draw($0, &contents[back]) }
        // In real time the frame makes the refresh after drawing *ended*: a
        // slow composition misses its refresh, as it would on a display.
        let queued = vblank == nil ? now : MonotonicClock.now()
        pending = (back, nextRefresh(after: queued))
        // Arming a timerfd with a valid time cannot fail.
        try? vblank?.arm(at: pending!.shownAt)
    }

    func handleEvents(at now: Double) -> [Double] {
        vblank?.take()
        guard let flip = pending, now >= flip.shownAt else { return [] }
        front = flip.buffer
        pending = nil
        return [flip.shownAt]
    }

    /// A queued frame is abandoned, as a display's would be once its seat is gone.
    func release() { pending = nil }

    func retake() {}

    /// Dark: the queued frame is abandoned and nothing is shown.
    func powerOff() {
        pending = nil
        front = nil
    }

    func powerOn() {}

    var displayDescription: DisplayDescription { .headless(size: panelSize, refreshHz: Int((1 / refreshPeriod).rounded())) }

    var summary: String { "headless \(panelSize) at \(Int((1 / refreshPeriod).rounded())) Hz" }
}
