import LinuxPlatform
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

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
