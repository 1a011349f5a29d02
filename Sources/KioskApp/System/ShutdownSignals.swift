import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// SIGTERM and SIGINT as a file descriptor the run loop polls (`signalfd`),
/// instead of handlers that interrupt it at arbitrary points. The signals must
/// be blocked in every thread, so ``blockShutdownSignals()`` runs first thing
/// in `main`, before any thread exists to inherit an unblocked mask.
public final class ShutdownSignals {
    public let fd: Int32

    public init() throws(DisplayJobError) {
        var mask = shutdownSignalMask()
        let fd = signalfd(-1, &mask, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
        guard fd >= 0 else { throw DisplayJobError.system(call: "signalfd", errno: errno) }
        self.fd = fd
    }

    deinit { close(fd) }

    /// The signal that arrived, if any (reads it off the descriptor).
    public func take() -> Int32? {
        var info = signalfd_siginfo()
        let n = read(fd, &info, MemoryLayout<signalfd_siginfo>.size)
        return n == MemoryLayout<signalfd_siginfo>.size ? Int32(info.ssi_signo) : nil
    }
}

/// Blocks SIGTERM and SIGINT in the calling thread and every thread it starts.
public func blockShutdownSignals() {
    var mask = shutdownSignalMask()
    pthread_sigmask(SIG_BLOCK, &mask, nil)
}

private func shutdownSignalMask() -> sigset_t {
    var mask = sigset_t()
    sigemptyset(&mask)
    sigaddset(&mask, SIGTERM)
    sigaddset(&mask, SIGINT)
    return mask
}
