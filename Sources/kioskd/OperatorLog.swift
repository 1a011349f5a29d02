import KioskCore
import ServiceManager
#if canImport(Glibc)
import Glibc
#endif

/// Whether standard error is the journal: decided once, at the first line.
private let forJournal = ServiceNotifier.standardErrorIsJournal()

/// One line for the operator on standard error: the journal under systemd
/// (with its priority, so `journalctl -u kioskd -p warning` shows the
/// problems), the terminal otherwise.
func log(_ line: LogLine) {
    let text = line.formatted(forJournal: forJournal)
    _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
}

/// Logs the reason as an error and exits 1.
func fail(_ line: String) -> Never {
    log(.error(line))
    exit(1)
}
