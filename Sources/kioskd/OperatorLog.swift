#if canImport(Glibc)
import Glibc
#endif

/// One line for the operator on standard error (the journal, under systemd).
func log(_ line: String) {
    let text = "kioskd: \(line)\n"
    _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
}

/// Logs the reason and exits 1.
func fail(_ line: String) -> Never {
    log(line)
    exit(1)
}
