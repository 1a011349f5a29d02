import Glibc
import LinuxPlatform
import SystemCalls
import TestSupport
import Testing

@Suite struct EventLoopTests {
    /// A loop whose budget for normal events no test run can use up: tests
    /// run in parallel on few cores, and a thread put aside for a few
    /// milliseconds mid-batch would otherwise leave clients for the next
    /// wake-up. The budget itself is `theCrowdIsHandledWithinABudgetPerWakeUp`'s.
    func unhurriedLoop() throws -> EventLoop { try EventLoop(normalEventBudget: 60) }

    /// A deadline that ends a wake-up that would otherwise wait for ever:
    /// the default for one meant to find nothing, a long one (`after: 30`)
    /// where sources are ready, since a due deadline makes ordinary
    /// sources wait, and a busy machine could let a short one come due first.
    func timeout(_ loop: EventLoop, after seconds: Double = 0.05) -> Deadline {
        let deadline = loop.deadline(named: "test time-out") { _ in }
        deadline.arm(at: MonotonicClock.now() + seconds)
        return deadline
    }

    @Test func everyReadySourceIsHandledEvenMoreThanOneWakeUpHolds() throws {
        let loop = try unhurriedLoop()
        let pipes = (0..<150).map { _ in TestPipe() }
        var handled = Set<Int>()
        for (n, pipe) in pipes.enumerated() {
            _ = try loop.register(pipe.read, name: "pipe \(n)") { events in
                #expect(events == .readable)
                handled.insert(n)
                pipe.drain()
            }
        }
        #expect(loop.registrationCount == 150)
        pipes.forEach { $0.send() }
        for _ in 0..<4 where handled.count < 150 { try loop.runOnce() }
        #expect(handled.count == 150)
    }

    /// The display first: the screen's event and the due deadlines are
    /// handled, then `afterUrgentEvents` (where the show draws), and only
    /// then the crowd, whatever order epoll reported them in.
    @Test func urgentEventsAndTheFrameComeBeforeTheCrowd() throws {
        let loop = try unhurriedLoop()
        let crowd = (0..<20).map { _ in TestPipe() }, screen = TestPipe()
        var order: [String] = []
        for (n, pipe) in crowd.enumerated() {
            _ = try loop.register(pipe.read, name: "client \(n)") { _ in order.append("client"); pipe.drain() }
        }
        _ = try loop.register(screen.read, name: "screen", priority: .urgent) { _ in order.append("screen"); screen.drain() }
        let due = loop.deadline(named: "frame") { _ in order.append("deadline") }
        due.arm(at: MonotonicClock.now() - 1)
        loop.afterUrgentEvents = { order.append("draw") }
        crowd.forEach { $0.send() }
        screen.send()
        try loop.runOnce()
        #expect(Array(order.prefix(3)) == ["screen", "deadline", "draw"])
        #expect(order.dropFirst(3).count == 20 && order.dropFirst(3).allSatisfy { $0 == "client" })
    }

    /// Input devices are read after the screen's events and before the
    /// frame, so the frame shows the newest finger position; whatever order
    /// epoll gave.
    @Test func inputIsReadBeforeTheFrameAndTheCrowdAfterIt() throws {
        let loop = try unhurriedLoop()
        let crowd = (0..<5).map { _ in TestPipe() }, screen = TestPipe(), touchscreen = TestPipe()
        var order: [String] = []
        for (n, pipe) in crowd.enumerated() {
            _ = try loop.register(pipe.read, name: "client \(n)") { _ in order.append("client"); pipe.drain() }
        }
        _ = try loop.register(touchscreen.read, name: "touchscreen", priority: .input) { _ in order.append("input"); touchscreen.drain() }
        _ = try loop.register(screen.read, name: "screen", priority: .urgent) { _ in order.append("screen"); screen.drain() }
        let due = loop.deadline(named: "frame") { _ in order.append("deadline") }
        due.arm(at: MonotonicClock.now() - 1)
        loop.afterUrgentEvents = { order.append("draw") }
        crowd.forEach { $0.send() }
        touchscreen.send()
        screen.send()
        try loop.runOnce()
        #expect(order == ["screen", "input", "deadline", "draw"] + Array(repeating: "client", count: 5))
    }

    /// Ordinary sources stop when a deadline comes due (the frame planned
    /// for just before a refresh): the rest wait for the next wake-up,
    /// which fires the deadline first.
    @Test func theCrowdGivesWayToADueDeadline() throws {
        let loop = try unhurriedLoop()
        let crowd = (0..<5).map { _ in TestPipe() }
        var order: [String] = []
        for (n, pipe) in crowd.enumerated() {
            _ = try loop.register(pipe.read, name: "client \(n)") { _ in order.append("client"); pipe.drain() }
        }
        let frame = loop.deadline(named: "frame") { _ in order.append("frame") }
        var armed = false
        loop.afterUrgentEvents = {
            // The show plans its next frame for now: due before any client is handled.
            if !armed { frame.arm(at: MonotonicClock.now()) }
            armed = true
        }
        crowd.forEach { $0.send() }
        try loop.runOnce()
        #expect(order.isEmpty)
        try loop.runOnce()
        #expect(order == ["frame"] + Array(repeating: "client", count: 5))
    }

    /// A wake-up spends at most its budget on ordinary sources: the ones
    /// left over are still ready, and the next wake-ups handle them.
    @Test func theCrowdIsHandledWithinABudgetPerWakeUp() throws {
        let loop = try EventLoop()
        let crowd = (0..<10).map { _ in TestPipe() }
        var handled: [Int] = []
        for (n, pipe) in crowd.enumerated() {
            _ = try loop.register(pipe.read, name: "client \(n)") { _ in
                handled.append(n)
                pipe.drain()
                usleep(useconds_t(loop.normalEventBudget * 1_000_000 / 2))  // each takes half the budget
            }
        }
        crowd.forEach { $0.send() }
        try loop.runOnce()
        // Half a budget each: the third starts past the budget, so it and the rest wait.
        #expect(handled.count >= 1 && handled.count <= 3, "\(handled)")
        for _ in 0..<10 where handled.count < 10 { try loop.runOnce() }
        #expect(Set(handled) == Set(0..<10) && handled.count == 10)
    }

    /// A handler that removes another source: the other's events already
    /// collected in this wake-up are dropped, and it is never called again.
    @Test func aSourceUnregisteredInsideAHandlerIsNotCalled() throws {
        let loop = try unhurriedLoop()
        let a = TestPipe(), b = TestPipe()
        var registrations: [String: Registration] = [:]
        var calls: [String] = []
        for (name, pipe, other) in [("a", a, "b"), ("b", b, "a")] {
            registrations[name] = try loop.register(pipe.read, name: name) { _ in
                calls.append(name)
                pipe.drain()
                loop.unregister(registrations[other]!)
            }
        }
        a.send()
        b.send()
        try loop.runOnce()
        #expect(calls.count == 1)
        let survivor = calls[0]
        (survivor == "a" ? b : a).send()
        (survivor == "a" ? a : b).send()
        try loop.runOnce()
        #expect(calls == [survivor, survivor])
        #expect(loop.registrationCount == 1)
    }

    /// The case swift-nio guards against: in one batch of events, a handler
    /// closes another source's fd and a new source is given the same
    /// number. The old source's event must not reach the new handler.
    ///
    /// The number is handed over with dup2, which closes the old file and
    /// opens the new one under it in one step: tests run in parallel, and a
    /// number left free for a moment (close, then pipe) may be taken by
    /// another test's descriptor instead.
    @Test func aReusedDescriptorNumberNeverReachesTheNewSource() throws {
        let loop = try unhurriedLoop()
        let a = TestPipe(), b = TestPipe(), fresh = TestPipe()
        var registrations: [String: Registration] = [:]
        var calls: [String] = []
        var replaced = false
        for (name, pipe, victim) in [("a", a, b), ("b", b, a)] {
            let victimName = name == "a" ? "b" : "a"
            registrations[name] = try loop.register(pipe.read, name: name) { _ in
                calls.append(name)
                pipe.drain()
                guard !replaced else { return }
                replaced = true
                loop.unregister(registrations[victimName]!)
                // The victim's number now names the fresh pipe's read end, which has data waiting.
                fresh.send()
                #expect(dup2(fresh.read, victim.read) == victim.read)
                victim.closeWriteEnd()
                registrations["new"] = try! loop.register(victim.read, name: "new") { _ in calls.append("new") }
            }
        }
        a.send()
        b.send()
        let limit = timeout(loop, after: 30)
        try loop.runOnce()
        #expect(replaced)
        #expect(calls.count == 1 && !calls.contains("new"), "\(calls)")
        loop.remove(limit)
        // The new source is called for its own events, in a later wake-up.
        let secondLimit = timeout(loop, after: 30)
        try loop.runOnce()
        #expect(calls.count == 2 && calls.last == "new", "\(calls)")
        loop.remove(secondLimit)
    }

    @Test func aClosedPeerIsAHangUp() throws {
        let loop = try EventLoop()
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        defer { close(pair[0]) }
        var seen: [EventSet] = []
        let registration = try loop.register(pair[0], name: "client") { seen.append($0) }
        close(pair[1])
        try loop.runOnce()
        #expect(seen.count == 1 && seen[0].contains(.hangUp), "\(seen)")
        loop.unregister(registration)

        let pipe = TestPipe()
        var pipeEvents: [EventSet] = []
        _ = try loop.register(pipe.read, name: "device") { pipeEvents.append($0) }
        pipe.closeWriteEnd()   // the writer is gone, as an unplugged device's node
        try loop.runOnce()
        #expect(pipeEvents == [.hangUp])
    }

    /// A client whose replies did not fit asks for `writable`, and stops
    /// asking once they are sent: no busy wake-ups on an idle socket.
    @Test func writableInterestComesAndGoes() throws {
        let loop = try EventLoop()
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        defer { close(pair[0]); close(pair[1]) }
        var seen: [EventSet] = []
        let registration = try loop.register(pair[0], name: "client") { seen.append($0) }
        _ = timeout(loop)
        try loop.runOnce()
        #expect(seen.isEmpty)
        try loop.setInterest([.readable, .writable], for: registration)
        try loop.runOnce()
        #expect(seen == [.writable])
        try loop.setInterest(.readable, for: registration)
        seen = []
        _ = timeout(loop)
        try loop.runOnce()
        #expect(seen.isEmpty)
    }

    @Test func deadlinesFireInTimeOrderFromOneTimer() throws {
        let loop = try EventLoop()
        let start = MonotonicClock.now()
        var fired: [(String, Double)] = []
        var deadlines: [Deadline] = []
        for (name, delay) in [("slide", 0.03), ("frame", 0.01), ("watchdog", 0.02), ("never", 0.015)] {
            let deadline = loop.deadline(named: name) { now in fired.append((name, now)) }
            deadline.arm(at: start + delay)
            deadlines.append(deadline)
        }
        deadlines[3].arm(at: nil)
        #expect(loop.nextDeadline == start + 0.01)
        for _ in 0..<10 where fired.count < 3 { try loop.runOnce() }
        #expect(fired.map(\.0) == ["frame", "watchdog", "slide"])
        for ((_, at), delay) in zip(fired, [0.01, 0.02, 0.03]) { #expect(at >= start + delay) }
        #expect(loop.nextDeadline == nil)
        // A handler may arm its own deadline again.
        var ticks = 0
        let tick = loop.deadline(named: "tick") { _ in ticks += 1 }
        tick.arm(at: MonotonicClock.now())
        try loop.runOnce()
        #expect(ticks == 1)
    }
}
