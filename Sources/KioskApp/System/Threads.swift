import CLinux
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Starts `body` on a new detached thread (the decoder, the screenshot
/// encoder). The thread keeps what `body` captures alive until it returns.
func startDetachedThread(_ body: @escaping @Sendable () -> Void) throws(SystemCallError) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(&thread, nil, { context in
        Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
        return nil
    }, context)
    guard status == 0 else {
        Unmanaged<Box>.fromOpaque(context).release()
        throw SystemCallError("pthread_create", errno: status)
    }
    pthread_detach(thread)
}

/// Lets the calling thread (the display loop) run ahead of every ordinary
/// thread: `SCHED_FIFO` at the lowest real-time priority, 1, as KWin and
/// mutter run their display threads. A frame is due every 16.7 ms; on two
/// cores busy with decoding and 200 control clients, an ordinary thread
/// sometimes waited longer than that to run, and the frame missed its
/// refresh (`make bench`, control). With `SCHED_RESET_ON_FORK` the threads
/// and processes it starts are ordinary again, so decoding never competes
/// with it. The loop sleeps between frames, and the kernel keeps 5% of
/// each second for ordinary threads (`sched_rt_runtime_us`) whatever it does.
///
/// Allowed for root, or with `RLIMIT_RTPRIO` of at least 1 (systemd's
/// `LimitRTPRIO=1`); otherwise nothing changes and the error says why.
func runCallingThreadAheadOfOrdinaryThreads() -> SystemCallError? {
    var parameters = sched_param()
    parameters.sched_priority = 1
    guard sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &parameters) == 0 else {
        return .last("sched_setscheduler")
    }
    return nil
}
