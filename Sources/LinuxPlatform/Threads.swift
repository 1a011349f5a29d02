import CLinux
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Starts `body` on a new detached thread (the decoder, the screenshot
/// encoder). The thread keeps what `body` captures alive until it returns.
public func startDetachedThread(_ body: @escaping @Sendable () -> Void) throws(SystemCallError) {
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
public func runCallingThreadAheadOfOrdinaryThreads() -> SystemCallError? {
    var parameters = sched_param()
    parameters.sched_priority = 1
    guard sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &parameters) == 0 else {
        return .last("sched_setscheduler")
    }
    return nil
}

/// How the decode worker's thread yields the core to the display loop
/// (`dropped_frames_one_core` in `make bench`; docs/benchmarks.md says which was
/// chosen and why). Linux schedules threads, so each applies to the
/// calling thread only, and lowering a thread's priority needs no privilege.
public enum WorkerPriority: String, CaseIterable, Sendable {
    /// As any thread: the kernel shares a busy core between the two.
    case normal
    /// nice 19: a share of 15 in 1,039 of a core both want (CFS weights).
    case nice
    /// `SCHED_BATCH` at nice 19: that share, and the kernel also treats
    /// it as CPU-bound, never letting its wake-ups preempt the loop.
    case batch
    /// `SCHED_IDLE`: only what no other thread on the core wants. A kiosk
    /// whose core is kept busy by something else would decode nothing.
    case idle
}

/// Gives the calling thread `priority`; the error if the kernel refused.
public func setCallingThreadPriority(_ priority: WorkerPriority) -> SystemCallError? {
    var parameters = sched_param()
    parameters.sched_priority = 0
    switch priority {
    case .normal:
        return nil
    case .nice:
        break
    case .batch:
        guard sched_setscheduler(0, SCHED_BATCH, &parameters) == 0 else { return .last("sched_setscheduler") }
    case .idle:
        guard sched_setscheduler(0, SCHED_IDLE, &parameters) == 0 else { return .last("sched_setscheduler") }
        return nil
    }
    // Linux keeps the nice value per thread: `who` 0 is this thread.
    guard setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19) == 0 else { return .last("setpriority") }
    return nil
}
