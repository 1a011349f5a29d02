import DRMOutput

/// Runs a ``RunningShow`` in real time: one ``EventLoop`` over the screen's
/// flip events, the decoder's hand-off, a wake-up timer and the shutdown
/// signals. Each wake-up handles what is readable, lets the show draw, and
/// re-arms the timer for the show's next deadline (the next frame's
/// moment, or the next slide; nothing at all while a flip is pending).
struct ShowLoop {
    let show: RunningShow
    let worker: DecodeWorker
    let signals: ShutdownSignals

    /// Runs until SIGTERM or SIGINT (returned), or until `stop` says so
    /// (checked after every wake-up; nil returned).
    func run(until stop: (RunningShow) -> Bool = { _ in false }) throws(DisplayJobError) -> Int32? {
        let loop = try EventLoop()
        let timer = try WakeTimer()
        var signal: Int32?
        try loop.watch(show.screen.eventFD) { [show] in show.screenEvents(at: MonotonicClock.now()) }
        try loop.watch(worker.readyFD) { [show] in show.picturesReady(at: MonotonicClock.now()) }
        try loop.watch(timer.fd) { timer.take() }
        try loop.watch(signals.fd) { signal = signals.take() }
        while signal == nil && !stop(show) {
            show.update(at: MonotonicClock.now())
            timer.arm(at: show.nextWakeUp(at: MonotonicClock.now()))
            try loop.waitAndDispatch()
        }
        return signal
    }
}
