import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The one shape of kioskd's worker threads (``WorkerThread``, the picture
/// decoder, the light sensor's reader, the folder's watch): what a thread
/// and the run loop share, under one lock; an eventfd that wakes the thread
/// when the loop asks for something; and one the loop polls with its other
/// descriptors, readable when the thread has results. Each worker writes
/// only what is its own: its shared state and its thread's loop.
///
/// HEIF's tiles are not decoded through one: that is a fork and join inside
/// one decode, on Dispatch's pool (`HEIFCodec` says why), where these are
/// long-lived threads taking work from the run loop.
///
/// The lock is a pthread mutex with priority inheritance, as the
/// standard library's `Mutex` is on Linux (a PI futex): a display loop at
/// SCHED_FIFO waiting on it lends its priority to the decoder at `idle`
/// holding it. `Mutex` itself is not used because Swift 6.0's checker
/// refuses to forward a caller's closure into its `sending` signature.
public final class WorkerMailbox<Shared>: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    private var shared: Shared
    private let wake: EventCounter
    private let ready: EventCounter

    /// The run loop polls this: readable when the thread has posted results (``take(_:)``).
    public var readyFD: Int32 { ready.descriptor.rawValue }

    /// `threadPolls`: the thread waits on ``wakeFD`` with descriptors of its
    /// own (`poll`) rather than in ``sleep()``.
    public init(_ shared: Shared, threadPolls: Bool = false) throws(SystemCallError) {
        self.shared = shared
        wake = try EventCounter(nonBlocking: threadPolls)
        ready = try EventCounter(nonBlocking: true)
        lock = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_setprotocol(&attributes, Int32(PTHREAD_PRIO_INHERIT))
        pthread_mutex_init(lock, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Starts the thread, which holds its own reference to what it captures
    /// until it ends; at `priority` if given (a refusal is not fatal: it runs
    /// at ordinary priority).
    public func start(priority: WorkerPriority? = nil, _ body: @escaping @Sendable () -> Void) throws(SystemCallError) {
        try startDetachedThread {
            if let priority { _ = setCallingThreadPriority(priority) }
            body()
        }
    }

    // MARK: Either side

    /// Reads or changes what is shared, telling no one.
    public func withShared<Result>(_ body: (inout Shared) -> Result) -> Result {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body(&shared)
    }

    // MARK: The run loop's side

    /// Changes what is shared, then wakes the thread.
    public func tell(_ change: (inout Shared) -> Void) {
        withShared(change)
        wake.signal()
    }

    /// Wakes the thread to look at what is shared.
    public func wakeThread() { wake.signal() }

    /// The results, taken by `take` under the lock; never waits.
    public func take<Result>(_ take: (inout Shared) -> Result) -> Result {
        ready.take()
        return withShared(take)
    }

    /// Waits up to `milliseconds` for results (tests, the benchmark; never the run loop).
    public func waitForResults(milliseconds: Int32) -> Bool { ready.wait(milliseconds: milliseconds) }

    // MARK: The thread's side

    /// Changes what is shared; when `change` says results are waiting, the run loop is told.
    public func post(_ change: (inout Shared) -> Bool) {
        if withShared(change) { ready.signal() }
    }

    /// Sleeps until the loop wakes the thread.
    public func sleep() { wake.take() }

    /// Sleeps until the loop wakes the thread or `milliseconds` pass; true when woken.
    public func sleep(milliseconds: Int32) -> Bool {
        guard wake.wait(milliseconds: milliseconds) else { return false }
        wake.take()
        return true
    }

    /// For a thread that polls (`threadPolls`): readable when the loop woke it.
    public var wakeFD: Int32 { wake.descriptor.rawValue }

    /// For a thread that polls: the wake-up seen, the descriptor quiet again.
    public func acknowledgeWake() { wake.take() }
}
