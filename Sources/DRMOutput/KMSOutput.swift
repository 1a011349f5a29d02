import CDRM
import KioskCore
import KioskRendering
import SystemCalls

#if canImport(Glibc)
import Glibc
#endif

/// A screen driven through KMS: two dumb buffers, drawn into one while the
/// other is scanned out, swapped with page flips.
///
/// Where the driver speaks atomic KMS, each frame is an atomic commit of
/// the primary plane (``PrimaryPlane``): its framebuffer and the window of
/// it to scan out. That lets a buffer longer than the screen be drawn once
/// (``presentLong(size:window:_:)``) and then shown window after window
/// (``pan(to:)``), the display controller doing the moving (``Panning``).
/// Drivers without atomic KMS get legacy page flips, and frames composed.
///
/// Tear-free by construction: ``present(_:)`` only ever draws into the buffer
/// that is not on screen, and refuses while a flip is pending (the buffer it
/// would draw into may still be scanned out until the flip completes).
/// The order of operations follows drm-howto's modeset-vsync.c.
public final class KMSOutput {
    public let card: DRMCard
    public let connectorName: String
    /// The screen's size, if its EDID says.
    public let physicalSize: PhysicalSize?
    public let mode: DisplayMode
    public var size: PixelSize { mode.size }
    /// One display refresh in seconds: no two presents closer than this, even
    /// on drivers (bochs) that complete flips at once with no real vblank.
    public var refreshPeriod: Double { 1 / mode.refreshRate }

    /// The connector's KMS object id (what a CEC adapter names it by).
    public let connectorID: UInt32
    private let crtc: UInt32
    private let rawMode: drmModeModeInfo
    private var buffers: [DumbBuffer]
    /// What each buffer holds from the last frame drawn into it.
    private var contents = [BufferContents(), BufferContents()]
    private var front = 0
    private var saved: UnsafeMutablePointer<drmModeCrtc>?
    private var started = false
    private var lastPresent: Double?
    /// When each completed flip reached the screen (the event's vblank time),
    /// collected by ``handleEvents()``.
    private var flipsShown: [Double] = []
    /// The last vblank a flip completed on: the phase of the refresh grid.
    private var lastVblank: Double?
    private var flipper = PageFlipper()
    private var calls: LibDRMCalls {
        LibDRMCalls(card: card, crtc: crtc, connector: connectorID, mode: rawMode, output: Unmanaged.passUnretained(self))
    }
    /// The primary plane, where frames go by atomic commits; nil: legacy page flips.
    private var plane: PrimaryPlane?
    /// Whether each buffer holds a long buffer drawn whole (``presentLong(size:window:_:)``), not a composed frame.
    private var drawnLong = [false, false]
    /// Buffer sizes the driver was asked about with a test commit, and its answers.
    private var tested: [PixelSize: Bool] = [:]
    /// The buffer not on screen holds a long buffer drawn ahead
    /// (``drawLongAhead(of:_:)``), not shown yet and not drawn over since.
    private var drawnAhead = false

    /// How this output shows part of a buffer longer than the screen.
    public enum Panning: Equatable, Sendable, CustomStringConvertible {
        /// The plane's source rectangle (`SRC_X`, `SRC_Y`) moves over one framebuffer.
        case sourceRectangle
        /// Framebuffers made at offsets into the buffer (`offsets[0]`), one
        /// per window, for drivers that ignore the source rectangle.
        case offsetFramebuffers
        /// It cannot: why, in a few words.
        case unavailable(String)

        public var description: String {
            switch self {
            case .sourceRectangle: "the plane's SRC_X/SRC_Y"
            case .offsetFramebuffers: "framebuffers at offsets"
            case .unavailable(let reason): reason
            }
        }
    }

    /// How this output pans, or why it cannot.
    public private(set) var panMethod: Panning

    /// Drivers known to accept `SRC_X`/`SRC_Y` in a commit, even in a test
    /// commit, and to scan out from the framebuffer's start regardless.
    /// bochs-drm (Linux 6.1 and 6.12, drivers/gpu/drm/tiny/bochs.c): its
    /// plane update hands `bochs_hw_setbase` the plane's `crtc_x`/`crtc_y`
    /// and `fb->offsets[0]`, never its `src`; screendumps in the VM show the
    /// window never moves (docs/display-lifecycle.md). It honours offsets,
    /// so it pans with framebuffers made at offsets.
    public static let ignoresSourceRectangle: Set<String> = ["bochs-drm"]

    /// The largest framebuffer the card scans out (`max_width`, `max_height`).
    public let largestFramebuffer: PixelSize

    /// True while a flip has been queued and its completion event has not
    /// arrived: no drawing until ``handleEvents()`` sees it.
    public private(set) var flipPending = false

    /// Allocates both buffers and saves the CRTC's state; shows nothing yet.
    public init(card: DRMCard, connector: Connector, mode: DisplayMode) throws(DRMError) {
        guard let crtc = connector.crtc else { throw DRMError(device: card.path, kind: .noCRTC(connector.name)) }
        guard let rawMode = connector.rawMode(for: mode) else {
            throw DRMError(device: card.path, kind: .modeNotFound("\(mode)", available: connector.modeNames))
        }
        self.card = card
        self.connectorName = connector.name
        self.physicalSize = connector.physicalSize
        self.connectorID = connector.id
        self.crtc = crtc
        self.mode = mode
        self.rawMode = rawMode
        self.buffers = [try DumbBuffer(card: card, size: mode.size), try DumbBuffer(card: card, size: mode.size)]
        self.saved = card.savedCRTC(crtc)
        self.largestFramebuffer = card.largestFramebuffer ?? mode.size
        func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
        self.plane = environment("KIOSKD_DRM_LEGACY") == "1" ? nil : PrimaryPlane(card: card, crtc: crtc)
        let driver = card.driverName
        if plane == nil {
            // Legacy drivers (radeon, gma500) predate framebuffer offsets; whether one honours them cannot be told.
            panMethod = .unavailable("the driver has no atomic KMS")
        } else {
            switch environment("KIOSKD_DRM_PAN") {
            // For tests: the VM shows what each way does on a driver.
            case "source-rectangle": panMethod = .sourceRectangle
            case "offset-framebuffers": panMethod = .offsetFramebuffers
            default: panMethod = Self.ignoresSourceRectangle.contains(driver) ? .offsetFramebuffers : .sourceRectangle
            }
        }
    }

    deinit {
        restore()
        if let saved { drmModeFreeCrtc(saved) }
    }

    /// The earliest time the next frame may be presented.
    public var nextPresentAllowed: Double? { lastPresent.map { $0 + refreshPeriod } }

    /// When a frame presented at `now` should reach the screen: the first
    /// refresh after `now` on the grid of the last flip's vblank time.
    public func nextRefresh(after now: Double) -> Double {
        guard let vblank = lastVblank, vblank <= now else { return now }
        var refresh = ((now - vblank) / refreshPeriod).rounded(.down) + 1
        while vblank + refresh * refreshPeriod <= now { refresh += 1 }
        return vblank + refresh * refreshPeriod
    }

    /// Draws a frame into the buffer not on screen and shows it: the first
    /// time by setting the mode (`drmModeSetCrtc`), then by a page flip
    /// (`drmModePageFlip` with an event). Drivers that cannot flip get
    /// `drmModeSetCrtc` plus `drmModeDirtyFB` instead.
    ///
    /// `draw` gets the buffer's memory and what it holds from the frame
    /// drawn into it before (see ``BufferContents``).
    public func present(_ draw: (PixelSurface, inout BufferContents) -> Void) throws(DRMError) {
        precondition(!flipPending, "present while a flip is pending would draw into the scanned-out buffer")
        let back = started ? 1 - front : 0
        // Paced from when presents start, so a frame planned for a moment
        // (one refresh after the last) is not held back by the last one's drawing.
        lastPresent = MonotonicClock.now()
        // A buffer longer than the screen (it was panned) takes the frame in its first screenful.
        draw(buffers[back].surface(size), &contents[back])
        drawnLong[back] = false
        drawnAhead = false
        try show(back, window: PixelRect(x: 0, y: 0, width: size.width, height: size.height))
    }

    /// Draws a buffer of `bufferSize` (longer than the screen along the
    /// strip, turned like the panel) into the buffer not on screen, and
    /// shows its `window` (the screen's size). False, with nothing drawn or
    /// shown, when that cannot be: the output cannot pan, the buffer is
    /// larger than the card takes, or the driver refused a test commit of
    /// a buffer that size (asked once per size; it then cannot pan at all).
    public func presentLong(size bufferSize: PixelSize, window: PixelRect, _ draw: (PixelSurface) -> Void) throws(DRMError) -> Bool {
        precondition(!flipPending, "present while a flip is pending would draw into the scanned-out buffer")
        let presenting = MonotonicClock.now()
        guard try drawLong(size: bufferSize, window: window, draw) else { return false }
        lastPresent = presenting
        try show(1 - front, window: window)
        return true
    }

    /// Draws a long buffer as ``presentLong(size:window:_:)`` does, and
    /// shows nothing: it waits in the buffer not on screen, for
    /// ``presentDrawnAhead(window:)``, until a frame is drawn there. The
    /// show draws a slide's buffer while the strip rests before it, so
    /// the slide's first frame, like the rest, only moves the window.
    public func drawLongAhead(of bufferSize: PixelSize, _ draw: (PixelSurface) -> Void) throws(DRMError) -> Bool {
        precondition(!flipPending, "drawing while a flip is pending would draw into the scanned-out buffer")
        drawnAhead = try drawLong(size: bufferSize, window: PixelRect(x: 0, y: 0, width: size.width, height: size.height), draw)
        return drawnAhead
    }

    /// Shows `window` of the long buffer drawn ahead. False when the
    /// buffer not on screen no longer holds it (a frame was drawn there
    /// since, or the mode is to be set again): the frame must be drawn.
    public func presentDrawnAhead(window: PixelRect) throws(DRMError) -> Bool {
        precondition(!flipPending, "present while a flip is pending")
        guard started, drawnAhead else { return false }
        lastPresent = MonotonicClock.now()
        drawnAhead = false
        try show(1 - front, window: window)
        return true
    }

    /// Draws a long buffer into the buffer not on screen (what was drawn
    /// there ahead is gone); `window` is what a first test commit of its
    /// size shows. False when it cannot pan.
    private func drawLong(size bufferSize: PixelSize, window: PixelRect, _ draw: (PixelSurface) -> Void) throws(DRMError) -> Bool {
        guard started, let plane, panMethod == .sourceRectangle || panMethod == .offsetFramebuffers,
              bufferSize.width <= largestFramebuffer.width, bufferSize.height <= largestFramebuffer.height else { return false }
        let back = 1 - front
        drawnAhead = false
        if buffers[back].size != bufferSize {
            buffers[back] = try DumbBuffer(card: card, size: bufferSize)
            contents[back] = BufferContents()
        }
        buffers[back].forgetWindows()
        if tested[bufferSize] == nil {
            let (framebuffer, source) = try scanout(of: back, window: window)
            let answer = plane.commit(framebuffer: framebuffer, source: source, testOnly: true, userData: nil)
            tested[bufferSize] = answer == 0
            if answer != 0 { panMethod = .unavailable("the driver refused a test commit of a \(bufferSize) buffer (\(Errno(-answer)))") }
        }
        guard tested[bufferSize] == true else { return false }
        draw(buffers[back].surface)
        // The compositor's memory of the buffer no longer holds.
        contents[back] = BufferContents()
        drawnLong[back] = true
        return true
    }

    /// Shows another `window` of the buffer on screen, drawing nothing.
    /// False when the buffer on screen is not a long one drawn by
    /// ``presentLong(size:window:_:)`` (or the mode is to be set again).
    public func pan(to window: PixelRect) throws(DRMError) -> Bool {
        precondition(!flipPending, "pan while a flip is pending")
        guard started, plane != nil, drawnLong[front], tested[buffers[front].size] == true else { return false }
        lastPresent = MonotonicClock.now()
        try show(front, window: window)
        return true
    }

    /// The framebuffer and source rectangle that show `window` of buffer `index`.
    private func scanout(of index: Int, window: PixelRect) throws(DRMError) -> (framebuffer: UInt32, source: PixelRect) {
        let whole = PixelRect(x: 0, y: 0, width: window.width, height: window.height)
        if panMethod == .offsetFramebuffers { return (try buffers[index].framebuffer(showing: window), whole) }
        return (buffers[index].framebuffer, window)
    }

    /// Shows `window` of buffer `index`: the first time by setting the mode,
    /// then by an atomic commit of the plane, or a legacy page flip.
    private func show(_ index: Int, window: PixelRect) throws(DRMError) {
        let (framebuffer, source) = try scanout(of: index, window: window)
        if !started {
            try calls.setCRTC(to: framebuffer, x: source.x, y: source.y)
            started = true
            front = index
            return
        }
        if let plane {
            // The first commit of the screen's own size is tested first: a driver that refuses it gets page flips.
            if tested[size] == nil {
                let answer = plane.commit(framebuffer: framebuffer, source: source, testOnly: true, userData: nil)
                tested[size] = answer == 0
                if answer != 0 {
                    self.plane = nil
                    panMethod = .unavailable("the driver refused an atomic test commit (\(Errno(-answer)))")
                }
            }
        }
        if let plane {
            let result = plane.commit(framebuffer: framebuffer, source: source, testOnly: false, userData: Unmanaged.passUnretained(self).toOpaque())
            guard result == 0 else {
                // Without master (the seat is going to another session) the kernel refuses commits with EACCES.
                if Errno(-result) == .permissionDenied && drmIsMaster(card.fd) == 0 { throw DRMError(device: card.path, kind: .busy) }
                throw DRMError(device: card.path, kind: .call("drmModeAtomicCommit", errno: Errno(-result)))
            }
            flipPending = true
        } else {
            switch try flipper.present(framebuffer, through: calls, device: card.path) {
            case .flipQueued: flipPending = true
            case .shownAtOnce: break
            }
        }
        front = index
    }

    /// Reads pending DRM events (call when the card's fd is readable) and
    /// returns when each completed flip reached the screen, in
    /// ``MonotonicClock`` seconds.
    @discardableResult
    public func handleEvents() -> [Double] {
        var context = drmEventContext()
        context.version = 2
        context.page_flip_handler = { _, _, seconds, microseconds, userData in
            guard let userData else { return }
            let output = Unmanaged<KMSOutput>.fromOpaque(userData).takeUnretainedValue()
            output.flipPending = false
            // DRM stamps events with CLOCK_MONOTONIC (DRM_CAP_TIMESTAMP_MONOTONIC, on since Linux 3.x).
            let shown = Double(seconds) + Double(microseconds) / 1e6
            output.flipsShown.append(shown)
            output.lastVblank = shown
        }
        drmHandleEvent(card.fd, &context)
        defer { flipsShown = [] }
        return flipsShown
    }

    /// Waits (at most `timeout`) for a pending flip to complete.
    public func waitForPendingFlip(timeout: Duration = .seconds(1)) {
        let deadline = ContinuousClock.now + timeout
        while flipPending && ContinuousClock.now < deadline {
            var pfd = pollfd(fd: card.fd, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, 50) > 0 { handleEvents() }
        }
    }

    /// The seat goes to another session, which will set its own mode: the
    /// pending flip is waited for briefly, then abandoned, and the next
    /// present after ``retakeAfterAnotherSession()`` is a full mode set.
    /// The console is not restored here: DRM master is about to go.
    public func releaseForAnotherSession() {
        waitForPendingFlip(timeout: .milliseconds(100))
        flipPending = false
        started = false
        lastPresent = nil
    }

    /// The seat is back (DRM master again): nothing to do until the next
    /// present, which sets the mode (``present(_:)`` when not started).
    public func retakeAfterAnotherSession() {
        flipPending = false
        started = false
    }

    /// How the panel was switched off (``switchOff()``), until it is on again.
    public private(set) var switchedOff: PowerSwitch?

    /// The two ways KMS switches a panel off.
    public enum PowerSwitch: String, Sendable {
        /// The CRTC's `ACTIVE` property set to 0 in an atomic commit.
        case atomicActive = "atomic ACTIVE=0"
        /// The connector's legacy `DPMS` property set to off.
        case legacyDPMS = "legacy DPMS off"
    }

    /// Switches the panel off: where the driver speaks atomic KMS, the
    /// CRTC's `ACTIVE` property goes to 0 (an atomic commit allowed to
    /// change the mode); elsewhere the connector's `DPMS` property goes to
    /// off. A pending flip completes first. The next present after
    /// ``switchOn()`` sets the mode in full, which switches it on.
    public func switchOff() throws(DRMError) {
        waitForPendingFlip(timeout: .milliseconds(100))
        flipPending = false
        started = false
        lastPresent = nil
        if card.enableAtomic(), let active = card.propertyID(named: "ACTIVE", of: crtc, type: UInt32(DRM_MODE_OBJECT_CRTC)) {
            guard let request = drmModeAtomicAlloc() else {
                throw DRMError(device: card.path, kind: .call("drmModeAtomicAlloc", errno: .noMemory))
            }
            defer { drmModeAtomicFree(request) }
            drmModeAtomicAddProperty(request, crtc, active, 0)
            let result = drmModeAtomicCommit(card.fd, request, UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET), nil)
            guard result == 0 else {
                throw DRMError(device: card.path, kind: .call("drmModeAtomicCommit (ACTIVE=0)", errno: errnoOf(result)))
            }
            switchedOff = .atomicActive
            return
        }
        guard let dpms = card.propertyID(named: "DPMS", of: connectorID, type: UInt32(DRM_MODE_OBJECT_CONNECTOR)) else {
            throw DRMError(device: card.path, kind: .call("switching \(connectorName) off (no ACTIVE or DPMS property)", errno: .notSupported))
        }
        let result = drmModeConnectorSetProperty(card.fd, connectorID, dpms, UInt64(DRM_MODE_DPMS_OFF))
        guard result == 0 else {
            throw DRMError(device: card.path, kind: .call("drmModeConnectorSetProperty (DPMS off)", errno: errnoOf(result)))
        }
        switchedOff = .legacyDPMS
    }

    /// The panel is wanted again: the next present sets the mode in full
    /// (after DPMS on, where DPMS switched it off).
    public func switchOn() {
        if switchedOff == .legacyDPMS,
           let dpms = card.propertyID(named: "DPMS", of: connectorID, type: UInt32(DRM_MODE_OBJECT_CONNECTOR)) {
            _ = drmModeConnectorSetProperty(card.fd, connectorID, dpms, UInt64(DRM_MODE_DPMS_ON))
        }
        switchedOff = nil
        flipPending = false
        started = false
    }

    /// Puts the CRTC back as it was (the text console, usually), once any
    /// pending flip has completed. Safe to call more than once. A panel
    /// switched off is switched on for the console.
    public func restore() {
        if switchedOff != nil {
            switchOn()
            started = true
        }
        guard started else { return }
        waitForPendingFlip()
        if var saved = saved?.pointee {
            var connector = connectorID
            drmModeSetCrtc(card.fd, saved.crtc_id, saved.buffer_id, saved.x, saved.y, &connector, 1, &saved.mode)
        }
        started = false
    }

}

/// The libdrm calls behind ``PageFlipper`` for one output.
private struct LibDRMCalls: KMSCalls {
    let card: DRMCard
    let crtc: UInt32
    let connector: UInt32
    let mode: drmModeModeInfo
    /// Handed back by the flip event, to find the output it belongs to.
    let output: Unmanaged<KMSOutput>

    func pageFlip(to framebuffer: UInt32) -> Int32 {
        let result = drmModePageFlip(card.fd, crtc, framebuffer, UInt32(DRM_MODE_PAGE_FLIP_EVENT), output.toOpaque())
        return result == 0 ? 0 : -errnoOf(result).rawValue
    }

    func setCRTC(to framebuffer: UInt32) throws(DRMError) { try setCRTC(to: framebuffer, x: 0, y: 0) }

    /// A mode set showing `framebuffer` from (`x`, `y`): the window of a longer buffer.
    func setCRTC(to framebuffer: UInt32, x: Int, y: Int) throws(DRMError) {
        var connector = connector
        var mode = mode
        let result = drmModeSetCrtc(card.fd, crtc, framebuffer, UInt32(x), UInt32(y), &connector, 1, &mode)
        guard result == 0 else {
            let code = errnoOf(result)
            // Without master the kernel refuses mode setting with EACCES.
            if code == .permissionDenied && drmIsMaster(card.fd) == 0 { throw DRMError(device: card.path, kind: .busy) }
            throw DRMError(device: card.path, kind: .call("drmModeSetCrtc", errno: code))
        }
    }

    func markDirty(_ framebuffer: UInt32) -> Int32 {
        let result = drmModeDirtyFB(card.fd, framebuffer, nil, 0)
        return result == 0 ? 0 : -errnoOf(result).rawValue
    }
}
