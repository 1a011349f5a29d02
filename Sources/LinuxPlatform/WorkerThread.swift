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
public final class WorkerThread<Key: Hashable & Sendable, Job: Sendable, Result: Sendable>: Sendable {
    private struct State {
        var queue: [(key: Key, job: Job)] = []
        var finished: [Result] = []
        var stopping = false
    }

    private let mailbox: WorkerMailbox<State>

    /// Readable when results are waiting: call ``takeFinished()``.
    public var readyFD: Int32 { mailbox.readyFD }

    /// Starts the thread; `makeWork` runs on it first, and returns what does each job.
    public init(makeWork: @escaping @Sendable () -> (Job) -> Result) throws(SystemCallError) {
        mailbox = try WorkerMailbox(State())
        try mailbox.start { [self] in run(makeWork()) }
    }

    /// Queues `job`, in place of a waiting job with the same key.
    public func submit(_ job: Job, key: Key) {
        mailbox.tell { state in
            if let waiting = state.queue.firstIndex(where: { $0.key == key }) {
                state.queue[waiting].job = job
            } else {
                state.queue.append((key, job))
            }
        }
    }

    /// Drops waiting jobs `keep` says no to.
    public func cancel(where drop: (Key) -> Bool) {
        mailbox.withShared { state in state.queue.removeAll { drop($0.key) } }
    }

    /// The results finished since the last call; never waits.
    public func takeFinished() -> [Result] {
        mailbox.take { state in
            defer { state.finished = [] }
            return state.finished
        }
    }

    /// Ends the thread after the job in progress.
    public func stop() { mailbox.tell { $0.stopping = true } }

    private func run(_ work: (Job) -> Result) {
        while true {
            let next: Job?? = mailbox.withShared { state in
                if state.stopping { return .some(nil) }
                guard !state.queue.isEmpty else { return nil }
                return .some(state.queue.removeFirst().job)
            }
            switch next {
            case .some(nil): return
            case nil: mailbox.sleep()
            case .some(.some(let job)):
                let result = work(job)
                mailbox.post { state in
                    state.finished.append(result)
                    return true
                }
            }
        }
    }
}
