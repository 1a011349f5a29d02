import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// The signals kioskd answers, as a file descriptor the run loop polls
/// (`signalfd`) instead of handlers that interrupt it at arbitrary points:
/// SIGTERM and SIGINT stop the show; SIGUSR1 and SIGUSR2 are `next` and
/// `prev` (for a button wired to a script: `pkill -USR1 kioskd`). The
/// signals must be blocked in every thread, so ``blockDaemonSignals()`` runs
/// first thing in `main`, before any thread exists to inherit an unblocked mask.
public final class DaemonSignals {
    public let fd: Int32

    public init() throws(DisplayJobError) {
        var mask = daemonSignalMask()
        let fd = signalfd(-1, &mask, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
        guard fd >= 0 else { throw DisplayJobError.system(call: "signalfd", errno: errno) }
        self.fd = fd
    }

    deinit { close(fd) }

    /// The next signal that arrived, if any (reads it off the descriptor).
    public func take() -> Int32? {
        var info = signalfd_siginfo()
        let n = read(fd, &info, MemoryLayout<signalfd_siginfo>.size)
        return n == MemoryLayout<signalfd_siginfo>.size ? Int32(info.ssi_signo) : nil
    }
}

/// Blocks the daemon's signals in the calling thread and every thread it starts.
public func blockDaemonSignals() {
    var mask = daemonSignalMask()
    pthread_sigmask(SIG_BLOCK, &mask, nil)
}

private func daemonSignalMask() -> sigset_t {
    var mask = sigset_t()
    sigemptyset(&mask)
    for signal in [SIGTERM, SIGINT, SIGUSR1, SIGUSR2] { sigaddset(&mask, signal) }
    return mask
}
