import DRMOutput
#if canImport(Glibc)
import Glibc
#endif

/// Runs a ``RunningShow`` in real time: one ``EventLoop`` over the screen's
/// flip events, the decoder's hand-off, a wake-up timer and the daemon's
/// signals (stop, next, prev). Each wake-up handles what is readable, lets the show draw, and
/// re-arms the timer for the show's next deadline (the next frame's
/// moment, or the next slide; nothing at all while a flip is pending).
struct ShowLoop {
    let show: RunningShow
    let worker: DecodeWorker
    let signals: DaemonSignals

    /// Runs until SIGTERM or SIGINT (returned), or until `stop` says so
    /// (checked after every wake-up; nil returned).
    func run(until stop: (RunningShow) -> Bool = { _ in false }) throws(DisplayJobError) -> Int32? {
        let loop = try EventLoop()
        let timer = try WakeTimer()
        var signal: Int32?
        try loop.watch(show.screen.eventFD) { [show] in show.screenEvents(at: MonotonicClock.now()) }
        try loop.watch(worker.readyFD) { [show] in show.picturesReady(at: MonotonicClock.now()) }
        try loop.watch(timer.fd) { timer.take() }
        try loop.watch(signals.fd) { [show] in
            // Drain every pending signal: SIGUSR1/2 move the strip, SIGTERM/SIGINT stop.
            while let received = signals.take() {
                switch received {
                case SIGUSR1: show.command(.next, at: MonotonicClock.now())
                case SIGUSR2: show.command(.previous, at: MonotonicClock.now())
                default: signal = received
                }
            }
        }
        while signal == nil && !stop(show) {
            show.update(at: MonotonicClock.now())
            timer.arm(at: show.nextWakeUp(at: MonotonicClock.now()))
            try loop.waitAndDispatch()
        }
        return signal
    }
}
