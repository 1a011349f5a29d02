import CLinux
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// One descriptor's place in the ``EventLoop``: which fd, what the source
/// wants to hear about, and who to tell. It has its own identity: the loop
/// dispatches by registration, not by fd number, so after a source closes
/// its fd and another source is handed the same number (within one batch
/// of events, even), the old source's events never reach the new handler.
/// (swift-nio's selector checks a registration id the same way.)
public final class Registration {
    /// What the source is, for the log: `screen`, `decoder`, `client 3`.
    public let name: String
    public let fd: Int32
    public let priority: EventLoop.Priority
    fileprivate let id: UInt64
    public fileprivate(set) var interest: EventSet
    fileprivate let handler: (EventSet) -> Void
    /// False once unregistered: its handler is never called again.
    public fileprivate(set) var isActive = true

    fileprivate init(
        name: String, fd: Int32, priority: EventLoop.Priority, id: UInt64, interest: EventSet,
        handler: @escaping (EventSet) -> Void
    ) {
        self.name = name
        self.fd = fd
        self.priority = priority
        self.id = id
        self.interest = interest
        self.handler = handler
    }
}

/// A time at which the loop calls a handler: the next frame or slide, a
/// display retry, the watchdog ping, a client's time-out. All of them share
/// one `timerfd`, armed for the earliest.
public final class Deadline {
    public let name: String
    /// When it fires next (``MonotonicClock`` seconds); nil when not armed.
    public fileprivate(set) var time: Double?
    fileprivate let handler: (Double) -> Void

    fileprivate init(name: String, handler: @escaping (Double) -> Void) {
        self.name = name
        self.handler = handler
    }

    /// Fires once at `time` (at the next wake-up if it has passed); nil disarms.
    public func arm(at time: Double?) { self.time = time }
}

/// The daemon's one run loop: waits on every source's descriptor at once
/// (`epoll`) and on the earliest of its deadlines (one `timerfd`), then runs
/// the handlers of what happened. Level-triggered: a handler that leaves
/// data unread is called again on the next wake-up.
///
/// Sources join by ``register(_:name:interest:priority:handler:)`` and leave
/// by ``unregister(_:)``, from inside a handler too: events already collected
/// for a registration that has left are dropped.
///
/// The display comes first. Each wake-up handles the ``Priority/urgent``
/// events (the screen's flips, the deadlines' timer), then the
/// ``Priority/input`` events (so a frame shows the newest finger position),
/// then the due deadlines, then calls ``afterUrgentEvents`` (where the show
/// draws), and only then the rest, for at most ``normalEventBudget``
/// seconds and never past a due deadline: what is left is reported again by
/// the next wait. So 200 busy control clients delay the next frame by one
/// budget at most, never by their whole batch, and a frame planned for a
/// moment (a finger's, just before its refresh) is drawn at that moment.
public final class EventLoop {
    /// Whose events a wake-up handles first.
    public enum Priority {
        /// The display's: handled before anything else, then ``EventLoop/afterUrgentEvents``.
        case urgent
        /// Input devices': after the urgent ones, before the deadlines and
        /// the frame. Each source bounds its own work per wake-up.
        case input
        /// Everyone else's, within ``EventLoop/normalEventBudget`` per wake-up.
        case normal
    }

    /// How long one wake-up may spend on normal events (seconds): by
    /// default a quarter of a 60 Hz frame, so a frame due meanwhile still
    /// makes its refresh.
    public let normalEventBudget: Double
    public static let defaultNormalEventBudget = 0.004

    /// Runs in every wake-up after the urgent events and due deadlines, before the normal events.
    public var afterUrgentEvents: () -> Void = {}

    /// Wake-ups so far: the handlers of one wake-up see the same number.
    public private(set) var wakeUps: UInt64 = 0

    private let epoll: FileDescriptor
    private let timer: OneShotTimer
    private var registrations: [UInt64: Registration] = [:]
    private var lastID: UInt64 = 0
    private var deadlines: [Deadline] = []
    /// epoll's output, allocated once and grown when a wake-up fills it.
    private var events: UnsafeMutableBufferPointer<epoll_event>
    private var timerRegistration: Registration?

    public init(normalEventBudget: Double = defaultNormalEventBudget) throws(SystemCallError) {
        self.normalEventBudget = normalEventBudget
        epoll = FileDescriptor(owning: try retryingInterrupts("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) })
        timer = try OneShotTimer()
        events = .allocate(capacity: 64)
        timerRegistration = try register(timer.descriptor.rawValue, name: "deadlines", priority: .urgent) { [timer] _ in
            timer.take()
        }
    }

    deinit { events.deallocate() }

    /// The number of sources registered (the deadlines' timer not counted).
    public var registrationCount: Int { registrations.count - 1 }

    /// Calls `handler` with what happened whenever `fd` is ready for
    /// `interest` or hangs up or fails. The fd stays the caller's: it must
    /// call ``unregister(_:)`` before closing it.
    public func register(
        _ fd: Int32, name: String, interest: EventSet = .readable, priority: Priority = .normal,
        handler: @escaping (EventSet) -> Void
    ) throws(SystemCallError) -> Registration {
        lastID += 1
        let registration = Registration(
            name: name, fd: fd, priority: priority, id: lastID, interest: interest, handler: handler)
        var event = epoll_event()
        event.events = interest.epollInterest
        event.data.u64 = registration.id
        try retryingInterrupts("epoll_ctl", path: name) { epoll_ctl(epoll.rawValue, EPOLL_CTL_ADD, fd, &event) }
        registrations[registration.id] = registration
        return registration
    }

    /// Changes what `registration` waits for: a client with replies queued
    /// adds `.writable`, and drops it once they are sent.
    public func setInterest(_ interest: EventSet, for registration: Registration) throws(SystemCallError) {
        guard registration.isActive, registration.interest != interest else { return }
        var event = epoll_event()
        event.events = interest.epollInterest
        event.data.u64 = registration.id
        try retryingInterrupts("epoll_ctl", path: registration.name) {
            epoll_ctl(epoll.rawValue, EPOLL_CTL_MOD, registration.fd, &event)
        }
        registration.interest = interest
    }

    /// Stops watching: the handler is not called again, even for events
    /// already collected in this wake-up. Call it before closing the fd.
    public func unregister(_ registration: Registration) {
        guard registration.isActive else { return }
        registration.isActive = false
        registrations[registration.id] = nil
        // ENOENT/EBADF here mean the fd was already closed, and with it gone from the epoll set.
        _ = epoll_ctl(epoll.rawValue, EPOLL_CTL_DEL, registration.fd, nil)
    }

    /// A deadline named `name`, unarmed; `handler` gets the time it ran at.
    public func deadline(named name: String, _ handler: @escaping (Double) -> Void) -> Deadline {
        let deadline = Deadline(name: name, handler: handler)
        deadlines.append(deadline)
        return deadline
    }

    /// Forgets a deadline for good.
    public func remove(_ deadline: Deadline) {
        deadline.time = nil
        deadlines.removeAll { $0 === deadline }
    }

    /// The earliest armed deadline.
    public var nextDeadline: Double? {
        var earliest: Double?
        for deadline in deadlines {
            if let time = deadline.time, time < earliest ?? .infinity { earliest = time }
        }
        return earliest
    }

    /// Sleeps until a descriptor is ready or the earliest deadline comes,
    /// then runs the handlers: urgent descriptors first, then input ones,
    /// then the deadlines that are due, earliest first (each one disarmed
    /// before its handler runs, so the handler may arm it again), then
    /// ``afterUrgentEvents``, then the normal descriptors within
    /// ``normalEventBudget``, stopping when the earliest deadline armed by
    /// then comes. A signal interrupting the wait just returns.
    public func runOnce() throws(SystemCallError) {
        try timer.arm(at: nextDeadline)
        let count: Int32
        let buffer = events
        switch valueOrErrno(retryOnInterrupt: false, { epoll_wait(epoll.rawValue, buffer.baseAddress!, Int32(buffer.count), -1) }) {
        case .success(let ready): count = ready
        case .failure(.interrupted): return   // a signal: back to the caller's loop, which checks whether to stop
        case .failure(let failure): throw SystemCallError("epoll_wait", errno: failure.rawValue)
        }
        wakeUps += 1
        let ready = events.prefix(Int(count))
        for priority in [Priority.urgent, .input] {
            // A registration that left during this batch is no longer in the table.
            for event in ready where registrations[event.data.u64]?.priority == priority {
                registrations[event.data.u64]?.handler(EventSet(epoll: event.events))
            }
        }
        runDueDeadlines(at: MonotonicClock.now())
        afterUrgentEvents()
        let started = MonotonicClock.now()
        let due = nextDeadline ?? .infinity
        var handled = 0
        for event in ready {
            guard let registration = registrations[event.data.u64], registration.priority == .normal else { continue }
            // Out of time, or a deadline is due: the rest are still ready, and the next wait reports them again.
            // The first always runs when no deadline is due, so a slow clock (a traced process) cannot starve them.
            let now = MonotonicClock.now()
            if (handled > 0 && now - started > normalEventBudget) || now >= due { break }
            registration.handler(EventSet(epoll: event.events))
            handled += 1
        }
        if Int(count) == events.count {
            // Full: there may be more ready than fit; make room for next time.
            let bigger = UnsafeMutableBufferPointer<epoll_event>.allocate(capacity: events.count * 2)
            events.deallocate()
            events = bigger
        }
    }

    private func runDueDeadlines(at now: Double) {
        guard let earliest = nextDeadline, earliest <= now else { return }
        let due = deadlines.filter { ($0.time ?? .infinity) <= now }.sorted { $0.time! < $1.time! }
        for deadline in due where deadline.time.map({ $0 <= now }) == true {
            deadline.time = nil
            deadline.handler(now)
        }
    }
}
