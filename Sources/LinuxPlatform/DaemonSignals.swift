import CLinux
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The signals kioskd answers, as a file descriptor the run loop polls
/// (`signalfd`) instead of handlers that interrupt it at arbitrary points.
/// The signals must be blocked in every thread, so ``blockDaemonSignals()``
/// runs first thing in `main`, before any thread exists to inherit an
/// unblocked mask. The show's signal source turns them into commands.
public final class DaemonSignals {
    public let descriptor: FileDescriptor

    public init() throws(SystemCallError) {
        var mask = daemonSignalMask()
        descriptor = FileDescriptor(owning: try retryingInterrupts("signalfd") {
            signalfd(-1, &mask, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
        })
    }

    /// The next signal that arrived, if any (reads it off the descriptor).
    public func take() -> Int32? {
        var info = signalfd_siginfo()
        return descriptor.readRecord(signalfd_siginfo.self, into: &info) ? Int32(info.ssi_signo) : nil
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
    for signal in [SIGTERM, SIGINT, SIGUSR1, SIGUSR2, SIGHUP] { sigaddset(&mask, signal) }
    return mask
}
