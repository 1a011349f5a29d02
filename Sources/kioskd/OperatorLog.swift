import KioskCore
import ServiceManager
import SystemCalls
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

/// What C libraries print to stdio's stderr (libde265's complaints about a
/// HEIC's bitstream, `SPS error: CB alignment`) comes into this log instead,
/// at debug priority, naming the file being decoded, each line once per
/// file (``LibraryMessages``): not bare lines in the journal with neither
/// kioskd's name nor a priority. `journalctl -u kioskd -p debug` shows them.
func logLibraryMessages() {
    LibraryMessages.capture { line, file in
        log(.debug(file.map { "\($0): the decoder says: \(line)" } ?? "a library says: \(line)"))
    }
}

/// Logs the reason as an error and exits 1.
func fail(_ line: String) -> Never {
    log(.error(line))
    exit(1)
}
