import CLinux
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The signals kioskd answers, as a file descriptor the run loop polls
/// (`signalfd`) instead of handlers that interrupt it at arbitrary points.
/// The signals must be blocked in every thread, so ``blockDaemonSignals()``
/// runs first thing in `main`, before any thread exists to inherit an
/// unblocked mask. ``SignalSource`` turns them into the show's commands.
final class DaemonSignals {
    let descriptor: FileDescriptor

    init() throws(SystemCallError) {
        var mask = daemonSignalMask()
        descriptor = FileDescriptor(owning: try retryingInterrupts("signalfd") {
            signalfd(-1, &mask, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
        })
    }

    /// The next signal that arrived, if any (reads it off the descriptor).
    func take() -> Int32? {
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

/// The daemon's signals as a source of the show: SIGUSR1 is `next`, SIGUSR2
/// `prev` (for a button wired to a script: `pkill -USR1 kioskd`); SIGHUP
/// reads the config file again (`systemctl reload kioskd`); SIGTERM
/// and SIGINT stop the show. Standard signals do not queue: two SIGUSR1s
/// that arrive before the loop reads them count as one.
final class SignalSource: ShowSource {
    private let signals: DaemonSignals
    private let reload: (any SettingsReloading)?
    private var registration: Registration?

    /// `reload`: what SIGHUP does; without it SIGHUP is ignored. A signal
    /// that came before it was made waits for it: the daemon's signals are
    /// blocked from the start (``blockDaemonSignals()``) and stay pending.
    init(reload: (any SettingsReloading)? = nil) throws(SystemCallError) {
        signals = try DaemonSignals()
        self.reload = reload
    }

    func attach(to loop: EventLoop, controller: ShowController) throws(SystemCallError) {
        registration = try loop.register(signals.descriptor.rawValue, name: "signals") { [signals, reload] _ in
            while let received = signals.take() {
                switch received {
                case SIGUSR1: controller.perform(.next)
                case SIGUSR2: controller.perform(.previous)
                case SIGHUP: _ = reload?.reload()
                case SIGTERM: controller.stop(reason: "SIGTERM")
                default: controller.stop(reason: "SIGINT")
                }
            }
        }
    }
}
