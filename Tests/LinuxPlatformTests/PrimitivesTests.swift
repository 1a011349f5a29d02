import CLinux
import Glibc
import LinuxPlatform
import Synchronization
import SystemCalls
import TestSupport
import Testing

/// The descriptors the run loop waits on, each on the real kernel: what
/// makes them readable, and what a take leaves.
@Suite struct PrimitivesTests {
    func isReadable(_ fd: Int32, within milliseconds: Int32 = 0) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, milliseconds) == 1
    }

    /// Signals add up into one wake-up; a take clears them; an empty one never blocks the run loop's side.
    @Test func anEventCounterWakesOnceForManySignals() throws {
        let counter = try EventCounter(nonBlocking: true)
        #expect(!counter.take())
        #expect(!counter.wait(milliseconds: 0))
        counter.signal()
        counter.signal()
        #expect(isReadable(counter.descriptor.rawValue))
        #expect(counter.wait(milliseconds: 0))
        #expect(counter.take())
        #expect(!isReadable(counter.descriptor.rawValue))
        #expect(!counter.take())
    }

    /// A time that has passed fires at once; a future one not before it; disarmed, never.
    /// (The waits for a firing are long: they end when it fires, however busy the machine.)
    @Test func aOneShotTimerFiresAtItsTimeAndOnlyOnce() throws {
        let timer = try OneShotTimer()
        try timer.arm(at: MonotonicClock.now() - 1)
        #expect(isReadable(timer.descriptor.rawValue, within: 30_000))
        #expect(timer.take() && timer.armedAt == nil)
        #expect(!timer.take())
        let due = MonotonicClock.now() + 0.05
        try timer.arm(at: due)
        #expect(isReadable(timer.descriptor.rawValue, within: 30_000))
        // Not before its time: the clock read once it fired (a slow machine only reads it later).
        #expect(MonotonicClock.now() >= due)
        #expect(timer.take())
        try timer.arm(at: MonotonicClock.now() + 0.01)
        try timer.arm(at: nil)
        #expect(!isReadable(timer.descriptor.rawValue, within: 100))
    }

    /// A wall-clock timer that fires on time is fired; one that fires
    /// because the clock was set an hour on is the clock set, though the
    /// kernel may report it as a plain expiry (a group's beat logged the
    /// step only sometimes, in the VM). NTP's slewing over a day is not a step.
    @Test func aWallClockTimerTellsAStepFromItsOwnTime() throws {
        let armed = WallClockTimer.Clocks(wall: 1_700_000_000, monotonic: 5_000)
        func at(wall: Double, monotonic: Double) -> Bool {
            WallClockTimer.wasSet(armed: armed, now: .init(wall: wall, monotonic: monotonic))
        }
        #expect(!at(wall: 1_700_000_600.02, monotonic: 5_600))   // a beat, on time
        #expect(at(wall: 1_700_003_604, monotonic: 5_004))       // date -s an hour on, 4 s later
        #expect(at(wall: 1_699_999_990, monotonic: 5_001))       // set 11 s back
        #expect(!at(wall: 1_700_086_400 + 40, monotonic: 5_000 + 86_400))   // 40 s slewed over a day
        // A real timer, armed in the past: fired at once, and not a step.
        let timer = try WallClockTimer()
        try timer.arm(atPrecise: WallClockTimer.preciseNow() - 1)
        #expect(isReadable(timer.descriptor.rawValue, within: 30_000))
        #expect(timer.take() == .fired && timer.armedAt == nil)
    }

    /// A signal blocked in the thread waits on the descriptor, is read as its number, and is gone once read.
    @Test func daemonSignalsArriveAsNumbersOnTheDescriptor() throws {
        // Only this test's thread blocks and receives SIGHUP: `raise` sends it to the calling thread.
        var mask = sigset_t(), old = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, SIGHUP)
        pthread_sigmask(SIG_BLOCK, &mask, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        let signals = try DaemonSignals()
        #expect(signals.take() == nil)
        raise(SIGHUP)
        #expect(isReadable(signals.descriptor.rawValue, within: 30_000))
        #expect(signals.take() == SIGHUP)
        #expect(signals.take() == nil)
    }

    /// A detached thread runs its work; a worker's priority is its own, not its starter's.
    @Test func aWorkerThreadRunsAtItsOwnPriority() throws {
        let seen = Mutex<(ran: Bool, policy: Int32, failure: SystemCallError?)>((false, -1, nil))
        let done = try EventCounter(nonBlocking: false)
        try startDetachedThread {
            let failure = setCallingThreadPriority(.batch)
            seen.withLock { $0 = (true, sched_getscheduler(0), failure) }
            done.signal()
        }
        #expect(done.wait(milliseconds: 30_000))
        let result = seen.withLock { $0 }
        #expect(result.ran && result.failure == nil)
        #expect(result.policy == SCHED_BATCH)
        #expect(sched_getscheduler(0) != SCHED_BATCH)
    }

    /// A worker's mailbox: the loop's word wakes the sleeping thread; the
    /// loop's descriptor is readable only once the thread posts a result,
    /// not for a post that says nothing waits, and quiet again once taken;
    /// the thread runs at the priority asked.
    @Test func aMailboxWakesTheThreadAndTellsTheLoopOnlyOfResults() throws {
        struct Shared {
            var asked: [Int] = []
            var answers: [Int] = []
            var stopping = false
            var policy: Int32 = -1
        }
        let mailbox = try WorkerMailbox(Shared())
        try mailbox.start(priority: .batch) {
            mailbox.withShared { $0.policy = sched_getscheduler(0) }
            while true {
                let (asked, stopping) = mailbox.withShared { shared in
                    defer { shared.asked = [] }
                    return (shared.asked, shared.stopping)
                }
                if stopping { return }
                if asked.isEmpty {
                    mailbox.sleep()
                    continue
                }
                // An odd number has no answer: the post says so, and the loop is not woken.
                mailbox.post { shared in
                    shared.answers += asked.filter { $0 % 2 == 0 }.map { $0 * 10 }
                    return asked.contains { $0 % 2 == 0 }
                }
            }
        }
        defer { mailbox.tell { $0.stopping = true } }
        mailbox.tell { $0.asked = [3] }
        #expect(!isReadable(mailbox.readyFD, within: 300))
        mailbox.tell { $0.asked = [4] }
        #expect(isReadable(mailbox.readyFD, within: 30_000))
        #expect(mailbox.take { shared in defer { shared.answers = [] }; return shared.answers } == [40])
        #expect(!isReadable(mailbox.readyFD))
        #expect(mailbox.withShared { $0.policy } == SCHED_BATCH)
    }

    /// An interrupted call is run again, unless the caller asked to hear of it;
    /// any other failure comes back as its named errno, or as the call's error.
    @Test func interruptedCallsAreRetriedInOnePlace() throws {
        func failing(_ failures: [Int32]) -> () -> Int {
            var left = failures
            return {
                guard let next = left.first else { return 5 }
                left.removeFirst()
                errno = next
                return -1
            }
        }
        #expect(valueOrErrno(failing([EINTR, EINTR])) == .success(5))
        #expect(valueOrErrno(retryOnInterrupt: false, failing([EINTR])) == .failure(.interrupted))
        #expect(valueOrErrno(failing([EINTR, EAGAIN])) == .failure(.wouldBlock))
        let error = expectError(SystemCallError.self) { try retryingInterrupts("open", path: "/x", failing([EINTR, ENOENT])) }
        #expect(error?.code == .noSuchFileOrDirectory)
        #expect(error?.description == "/x: open failed: No such file or directory (errno 2)")
    }
}
