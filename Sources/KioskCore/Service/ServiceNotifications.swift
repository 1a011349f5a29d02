/// What kioskd tells its service manager (systemd's `sd_notify`), worked
/// out from the show's events and the clock. The daemon sends what this
/// returns; nothing here does I/O.
///
/// - `READY=1` once the first frame with every visible picture is on
///   screen (``ShowEvent/ready(pictureCount:centred:file:)``): an empty
///   folder is ready with the background, so a kiosk waiting for its
///   photos is not restarted for a start that never ends.
/// - `STATUS=` names the picture in the centre, or the problem the show
///   is waiting out (folder gone, display lost): `systemctl status kioskd`
///   shows it.
/// - `WATCHDOG=1` every half `WatchdogSec` (sd_watchdog_enabled(3)),
///   from the run loop's own deadline, and only while the show is not
///   stuck (a flip that never completes): a wedged loop or screen stops
///   the pings and systemd restarts kioskd.
/// - `STOPPING=1` when the show ends.
public struct ServiceNotifications: Sendable {
    /// `WatchdogSec` in seconds; nil when the watchdog is off.
    public let watchdogInterval: Double?
    /// True once `READY=1` was sent.
    public private(set) var isReady = false
    /// When the last ping was sent.
    public private(set) var lastPing: Double?
    /// The last check that found the show stuck: checked again an eighth of an interval later.
    private var stuckAt: Double?
    private var pictureCount = 0
    /// The status waiting to be given back when its problem ends.
    private var lastPictureStatus: String?

    public init(watchdogInterval: Double?) {
        self.watchdogInterval = watchdogInterval.flatMap { $0 > 0 ? $0 : nil }
    }

    /// The notification an event gives (`KEY=VALUE` lines, sent as one
    /// message), or nil for an event systemd does not hear about.
    public mutating func message(for event: ShowEvent) -> String? {
        switch event {
        case .ready(let count, _, let file):
            pictureCount = count
            let status = Self.showing(file, count: count)
            lastPictureStatus = status
            guard !isReady else { return "STATUS=\(status)" }
            isReady = true
            return "READY=1\nSTATUS=\(status)"
        case .pictureCentred(_, let file, let pairedWith, _):
            let status = Self.showing(file, pairedWith: pairedWith, count: pictureCount)
            lastPictureStatus = status
            return isReady ? "STATUS=\(status)" : nil
        case .playlistChanged(let count, _, _):
            pictureCount = count
            guard count == 0 else { return nil }
            lastPictureStatus = Self.showing(nil, count: 0)
            return isReady ? "STATUS=\(lastPictureStatus!)" : nil
        case .folderGone(let folder):
            return "STATUS=waiting for the picture folder \(folder) to come back"
        case .displayLost(let reason):
            return "STATUS=waiting for the display: \(reason)"
        case .folderBack, .displayBack, .panelChanged(.active, _):
            return lastPictureStatus.map { "STATUS=\($0)" }
        case .panelChanged(let state, _):
            return "STATUS=" + (state == .off ? "display off" : state == .disconnected ? "waiting for a screen on the connector" : "the seat is another session's")
        case .stopped(let reason, _):
            return "STOPPING=1\nSTATUS=stopping" + (reason.map { " on \($0)" } ?? "")
        case .pictureRefused, .animationStopped, .clipStarted, .clipStopped, .zoomNotSharp, .pictureNote, .folderNote, .libraryChanged, .textNote, .panningChanged, .messageChanged, .settingsApplied, .paused, .resumed, .screenChanged, .seatChanged:
            return nil
        }
    }

    /// When the next `WATCHDOG=1` is due: half an interval after the last
    /// ping (at once before the first), so one late wake-up never lets it
    /// lapse; while the show is stuck, every eighth of an interval. Nil
    /// without a watchdog.
    public func nextPing(at now: Double) -> Double? {
        guard let interval = watchdogInterval else { return nil }
        let due = lastPing.map { $0 + interval / 2 } ?? now
        return stuckAt.map { max(due, $0 + interval / 8) } ?? due
    }

    /// Whether to send `WATCHDOG=1` now: it is due and the show is not
    /// stuck. A stuck show is not pinged for, so systemd restarts kioskd.
    public mutating func ping(at now: Double, showIsStuck: Bool) -> Bool {
        guard let due = nextPing(at: now), due <= now else { return false }
        guard !showIsStuck else {
            stuckAt = now
            return false
        }
        stuckAt = nil
        lastPing = now
        return true
    }

    /// A pair of portraits (`portrait_pairs`) is named whole, left file first.
    private static func showing(_ file: String?, pairedWith partner: String? = nil, count: Int) -> String {
        guard let file, count > 0 else { return "showing the background: no pictures" }
        let names = Playlist.fileName(of: file) + (partner.map { " and " + Playlist.fileName(of: $0) } ?? "")
        return "showing \(names) (\(count) picture\(count == 1 ? "" : "s"))"
    }
}
