import DRMOutput
import KioskCore
import KioskRendering

/// Where the show's frames go: a DRM output (``KMSOutput``) or the headless
/// framebuffer (``HeadlessScreen``). The show treats both alike: present a
/// frame, wait for its flip, present the next; so headless runs exercise the
/// same pacing and drawing as the display.
///
/// Times are ``MonotonicClock`` seconds.
protocol ShowScreen: AnyObject {
    /// The panel's size as scanned out (before rotation).
    var panelSize: PixelSize { get }
    /// Its size in millimetres, if known (a touchscreen's swipe thresholds are in millimetres).
    var physicalSize: PhysicalSize? { get }
    /// Seconds between refreshes.
    var refreshPeriod: Double { get }
    /// Readable when a flip has completed: the run loop then calls
    /// ``handleEvents(at:)``. Nil for a screen whose flips the caller
    /// completes itself (a test's headless screen on simulated time).
    var eventDescriptor: Int32? { get }
    /// True from a present until its flip completes: no drawing meanwhile.
    var flipPending: Bool { get }
    /// The earliest time the next present may happen, for screens that
    /// complete flips at once (bochs); nil when flips pace themselves.
    var nextPresentAllowed: Double? { get }
    /// When a frame presented at `now` will reach the screen.
    func nextRefresh(after now: Double) -> Double
    /// Draws a frame into the buffer not on screen and queues it.
    func present(at now: Double, _ draw: (PixelSurface, inout BufferContents) -> Void) throws(ScreenError)
    /// Whether frames can be shown as windows of a longer buffer (panning),
    /// and the largest such buffer; or why not, in a few words.
    var panning: ScreenPanning { get }
    /// Draws a buffer of `size` (longer than the panel along the strip)
    /// into the buffer not on screen and queues its `window`. False, with
    /// nothing drawn, when the screen cannot show it (``panning`` then says why).
    func presentLong(at now: Double, size: PixelSize, window: PixelRect, _ draw: (PixelSurface) -> Void) throws(ScreenError) -> Bool
    /// Draws a long buffer as ``presentLong(at:size:window:_:)`` does into
    /// the buffer not on screen, and queues nothing: it waits there for
    /// ``presentDrawnAhead(at:window:)`` until a frame is drawn over it.
    /// False, with nothing drawn, when the screen cannot show it.
    func drawLongAhead(size: PixelSize, _ draw: (PixelSurface) -> Void) throws(ScreenError) -> Bool
    /// Queues `window` of the long buffer drawn ahead. False when the
    /// buffer not on screen no longer holds it: the frame must be drawn.
    func presentDrawnAhead(at now: Double, window: PixelRect) throws(ScreenError) -> Bool
    /// Queues another `window` of the long buffer on screen, drawing
    /// nothing. False when the buffer on screen is not a long one (after a
    /// mode set, a composed frame): the frame must be drawn.
    func pan(at now: Double, to window: PixelRect) throws(ScreenError) -> Bool
    /// Takes completed flips; returns when each one reached the screen.
    func handleEvents(at now: Double) -> [Double]
    /// A line for the log: which screen this is.
    var summary: String { get }
    /// What shows the frames, for `status`.
    var displayDescription: DisplayDescription { get }
    /// The seat is going to another session: a pending flip is finished
    /// (or, after a moment, abandoned) and nothing is presented until
    /// ``retake()``; the console is not restored (the seat manager and
    /// the next session own the display now).
    func release()
    /// The seat is back: the next present sets the mode in full.
    func retake()
    /// Switches the panel off (the CRTC off); a pending flip is finished
    /// first, and nothing is presented until ``powerOn()``.
    func powerOff() throws(ScreenError)
    /// The next present sets the mode in full, which switches the panel on.
    func powerOn()
}

/// What a screen can do toward panning (``ShowScreen/panning``).
enum ScreenPanning: Equatable {
    /// It pans (`how`, for the log) over buffers up to `largest`.
    case available(largest: PixelSize, how: String)
    case unavailable(String)
}

/// Why a screen refused a frame or could not be switched off: the show says
/// it once (the display lost), retries each second, and keeps its time.
enum ScreenError: Error, CustomStringConvertible {
    /// The DRM display's own failure: the call, its errno, the card.
    case display(DRMError)

    var description: String {
        switch self {
        case .display(let error): return error.description
        }
    }
}

/// What shows the frames, as `status` tells it (its `display` object).
enum DisplayDescription: Equatable {
    case drm(driver: String, device: String, connector: String, mode: String)
    case headless(size: PixelSize, refreshHz: Int)

    /// The keys `status` gives it: `driver`, `device`, `connector`, `mode`;
    /// or `driver` `headless`, `size`, `refresh_hz`.
    var statusFields: JSONObject {
        switch self {
        case .drm(let driver, let device, let connector, let mode):
            return ["driver": .string(driver), "device": .string(device), "connector": .string(connector), "mode": .string(mode)]
        case .headless(let size, let refreshHz):
            return ["driver": "headless", "size": .string("\(size)"), "refresh_hz": .int(refreshHz)]
        }
    }
}
