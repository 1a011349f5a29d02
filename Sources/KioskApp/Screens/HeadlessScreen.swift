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
/// It pans as a display with a plane does (``presentLong(at:size:window:_:)``,
/// ``pan(at:to:)``): a buffer may be longer than the panel, and what is
/// shown is the window of it last queued.
///
/// Tests make one without a timer (`vblankTimer: false`) and drive time
/// themselves: they call ``handleEvents(at:)`` at ``pendingFlipTime``.
final class HeadlessScreen: ShowScreen {
    let panelSize: PixelSize
    let refreshPeriod: Double
    private var buffers: [RasterImage]
    private var contents = [BufferContents(), BufferContents()]
    private var front: Int?
    /// The window of each buffer shown with it.
    private var windows: [PixelRect]
    private var pending: (buffer: Int, window: PixelRect, shownAt: Double)?
    /// Whether each buffer holds a long buffer drawn whole, not a composed frame.
    private var drawnLong = [false, false]
    /// The buffer not on screen holds a long buffer drawn ahead, not shown yet.
    private var drawnAhead = false
    private let vblank: OneShotTimer?
    /// A refresh happens at `phase + k * refreshPeriod`.
    private let phase: Double

    init(panel: PixelSize, refreshRate: Double = 60, vblankTimer: Bool, now: Double) throws(SystemCallError) {
        panelSize = panel
        refreshPeriod = 1 / refreshRate
        buffers = [RasterImage](repeating: RasterImage(size: panel, filledWith: .black), count: 2)
        windows = [PixelRect](repeating: PixelRect(x: 0, y: 0, width: panel.width, height: panel.height), count: 2)
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
    /// What the screen shows: the window of the last frame whose flip completed.
    var shown: RasterImage? { front.map { buffers[$0].cropped(to: windows[$0]) } }

    /// The largest buffer it pans over: as large as virtio-gpu and bochs take.
    static let largestBuffer = PixelSize(width: 8192, height: 8192)
    var panning: ScreenPanning { .available(largest: Self.largestBuffer, how: "a window of a longer buffer in memory") }

    /// The first refresh strictly after `now` (rounding cannot return `now` itself).
    func nextRefresh(after now: Double) -> Double {
        var refresh = ((now - phase) / refreshPeriod).rounded(.down) + 1
        while phase + refresh * refreshPeriod <= now { refresh += 1 }
        return phase + refresh * refreshPeriod
    }

    func present(at now: Double, _ draw: (PixelSurface, inout BufferContents) -> Void) {
        precondition(pending == nil, "present while a flip is pending")
        let back = front.map { 1 - $0 } ?? 0
        let panel = panelSize, rowBytes = buffers[back].width * 4
        // A longer buffer (it was panned) takes the frame in its first panelful, as a display's does.
        buffers[back].pixels.withUnsafeMutableBytes { bytes in
            draw(PixelSurface(base: bytes.baseAddress!, size: panel, bytesPerRow: rowBytes), &contents[back])
        }
        drawnLong[back] = false
        drawnAhead = false
        queue(back, window: PixelRect(x: 0, y: 0, width: panel.width, height: panel.height), at: now)
    }

    func presentLong(at now: Double, size: PixelSize, window: PixelRect, _ draw: (PixelSurface) -> Void) -> Bool {
        precondition(pending == nil, "present while a flip is pending")
        guard drawLong(size: size, draw), let front else { return false }
        queue(1 - front, window: window, at: now)
        return true
    }

    func drawLongAhead(size: PixelSize, _ draw: (PixelSurface) -> Void) -> Bool {
        precondition(pending == nil, "drawing while a flip is pending")
        drawnAhead = drawLong(size: size, draw)
        return drawnAhead
    }

    func presentDrawnAhead(at now: Double, window: PixelRect) -> Bool {
        precondition(pending == nil, "present while a flip is pending")
        guard let front, drawnAhead else { return false }
        drawnAhead = false
        queue(1 - front, window: window, at: now)
        return true
    }

    /// Draws a long buffer into the buffer not on screen (what was drawn there ahead is gone).
    private func drawLong(size: PixelSize, _ draw: (PixelSurface) -> Void) -> Bool {
        guard let front, size.width <= Self.largestBuffer.width, size.height <= Self.largestBuffer.height else { return false }
        let back = 1 - front
        drawnAhead = false
        if buffers[back].size != size {
            // The old buffer goes before the new one is made, never both at once.
            buffers[back] = RasterImage(size: PixelSize(width: 0, height: 0), filledWith: .black)
            buffers[back] = RasterImage(size: size, filledWith: .black)
        }
        buffers[back].withSurface(draw)
        contents[back] = BufferContents()
        drawnLong[back] = true
        return true
    }

    func pan(at now: Double, to window: PixelRect) -> Bool {
        precondition(pending == nil, "pan while a flip is pending")
        guard let front, drawnLong[front] else { return false }
        queue(front, window: window, at: now)
        return true
    }

    private func queue(_ buffer: Int, window: PixelRect, at now: Double) {
        // In real time the frame makes the refresh after drawing *ended*: a
        // slow composition misses its refresh, as it would on a display.
        let queued = vblank == nil ? now : MonotonicClock.now()
        pending = (buffer, window, nextRefresh(after: queued))
        // Arming a timerfd with a valid time cannot fail.
        try? vblank?.arm(at: pending!.shownAt)
    }

    func handleEvents(at now: Double) -> [Double] {
        vblank?.take()
        guard let flip = pending, now >= flip.shownAt else { return [] }
        front = flip.buffer
        windows[flip.buffer] = flip.window
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
        drawnAhead = false
    }

    func powerOn() {}

    var displayDescription: DisplayDescription { .headless(size: panelSize, refreshHz: Int((1 / refreshPeriod).rounded())) }

    var summary: String { "headless \(panelSize) at \(Int((1 / refreshPeriod).rounded())) Hz" }
}
