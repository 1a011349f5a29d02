import Synchronization
import SystemCalls

/// A thread that does jobs off the run loop, one at a time, and hands the
/// results back: the loop polls ``readyFD`` with its other descriptors and
/// collects with ``takeFinished()``, which only swaps a list under a lock.
///
/// Jobs with the same key replace each other while they wait: only the
/// newest of a kind is worth doing (the clock's latest minute, a caption's
/// latest text). The work function runs on the thread alone, so whatever
/// it owns (FreeType faces) never meets another thread.
public final class WorkerThread<Key: Hashable & Sendable, Job: Sendable, Result: Sendable>: @unchecked Sendable {
    private struct State {
        var queue: [(key: Key, job: Job)] = []
        var finished: [Result] = []
        var stopping = false
    }

    private let state = Mutex(State())
    private let wake: EventCounter
    private let ready: EventCounter

    /// Readable when results are waiting: call ``takeFinished()``.
    public var readyFD: Int32 { ready.descriptor.rawValue }

    /// Starts the thread; `makeWork` runs on it first, and returns what does each job.
    public init(makeWork: @escaping @Sendable () -> (Job) -> Result) throws(SystemCallError) {
        wake = try EventCounter(nonBlocking: false)
        ready = try EventCounter(nonBlocking: true)
        try startDetachedThread { [self] in run(makeWork()) }
    }

    /// Queues `job`, in place of a waiting job with the same key.
    public func submit(_ job: Job, key: Key) {
        state.withLock { state in
            if let waiting = state.queue.firstIndex(where: { $0.key == key }) {
                state.queue[waiting].job = job
            } else {
                state.queue.append((key, job))
            }
        }
        wake.signal()
    }

    /// Drops waiting jobs `keep` says no to.
    public func cancel(where drop: (Key) -> Bool) {
        state.withLock { state in state.queue.removeAll { drop($0.key) } }
    }

    /// The results finished since the last call; never waits.
    public func takeFinished() -> [Result] {
        _ = ready.take()
        return state.withLock { state in
            defer { state.finished = [] }
            return state.finished
        }
    }

    /// Ends the thread after the job in progress.
    public func stop() {
        state.withLock { $0.stopping = true }
        wake.signal()
    }

    private func run(_ work: (Job) -> Result) {
        while true {
            let next: Job?? = state.withLock { state in
                if state.stopping { return .some(nil) }
                guard !state.queue.isEmpty else { return nil }
                return .some(state.queue.removeFirst().job)
            }
            switch next {
            case .some(nil): return
            case nil: _ = wake.take()
            case .some(.some(let job)):
                let result = work(job)
                state.withLock { $0.finished.append(result) }
                ready.signal()
            }
        }
    }
}
