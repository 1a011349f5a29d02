import CSystemd
#if canImport(Glibc)
import Glibc
#endif

/// Talks to the service manager through libsystemd: `sd_notify` for
/// readiness, status and the watchdog, `sd_watchdog_enabled` for the
/// watchdog's interval. Outside systemd (`NOTIFY_SOCKET` unset) every
/// call does nothing.
public enum ServiceNotifier {
    /// Sends `message` (`KEY=VALUE` lines, e.g. `READY=1\nSTATUS=...`).
    /// A failure is not the show's problem: systemd is either there and
    /// listening, or not there.
    public static func send(_ message: String) {
        _ = sd_notify(0, message)
    }

    /// `WatchdogSec=` in seconds when systemd expects pings from this
    /// process (`WATCHDOG_USEC`, and `WATCHDOG_PID` naming it); nil when not.
    public static func watchdogInterval() -> Double? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return Double(microseconds) / 1_000_000
    }

    /// True when standard error is the journal's stream (`JOURNAL_STREAM`
    /// names its device and inode, systemd.exec(5)): then log lines carry
    /// sd-daemon(3)'s `<N>` priority prefixes, which the journal strips.
    public static func standardErrorIsJournal() -> Bool {
        guard let value = getenv("JOURNAL_STREAM") else { return false }
        let parts = String(cString: value).split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}
