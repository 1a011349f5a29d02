import KioskCore
import LinuxPlatform
import SystemCalls

/// A kiosk sliding on its group's shared beat (``GroupBeat``): while it
/// follows one, the show does not slide by itself; at each beat a timer on
/// the wall clock (`CLOCK_REALTIME`, so every member's NTP-kept clock
/// agrees) sends it to the group's picture. No message per slide: only a
/// new beat, retained, when a group command changes where the group is.
///
/// - Joining: the retained beat arrives with the subscription. If none has
///   come within ``joinWait``, this kiosk starts one from where it is.
/// - A group command (`next`, `prev`, `goto`, `pause`, `resume`, `set`)
///   moves every member at once; each then publishes a new beat from its
///   own clock, and every member adopts the last one the broker passes on
///   (the broker gives every subscriber the same order).
/// - A touch, a key or a pinch takes this kiosk out of the beat until
///   `resume_after` after it, then it goes to the group's picture. So does
///   a pause of its own, until it is resumed.
/// - The wall clock set (NTP's first sync, `date -s`): the timer says so
///   (`TFD_TIMER_CANCEL_ON_SET`), and the beat is worked out again from
///   the new time: one slide to the group's picture at most, no burst.
/// - The broker gone: the beat goes on, from the clock alone.
final class GroupBeatFollower {
    /// How long a kiosk that joined waits for the group's retained beat before starting one.
    static let joinWait = 1.5
    /// A slide this late (the timer's wake-up, a busy loop, a beat's trip
    /// through the broker) starts from the beat's instant, so it lands with
    /// the group's; a later one starts now rather than jump most of the way.
    static let catchUpLimit = 0.1

    let group: String
    let topic: String
    private let name: String
    private let controller: ShowController
    private let publish: (String, [UInt8], Bool) -> Void
    private let resumeAfter: () -> Double
    private let log: (LogLine) -> Void
    private let loop: EventLoop
    private let timer: WallClockTimer
    private var timerRegistration: Registration?
    /// The look at the beat when a touch's hold ends, and the join's wait.
    private var presenceEnds: Deadline?
    private var joinCheck: Deadline?
    private var logThrottle = LogThrottle(period: 60)

    /// The beat followed; nil until one is known.
    private(set) var beat: GroupBeat?

    init(
        group: String, name: String, loop: EventLoop, controller: ShowController, resumeAfter: @escaping () -> Double,
        publish: @escaping (String, [UInt8], Bool) -> Void, log: @escaping (LogLine) -> Void
    ) throws(SystemCallError) {
        self.group = group
        topic = MQTTTopics.groupBeat(group)
        self.name = name
        self.loop = loop
        self.controller = controller
        self.resumeAfter = resumeAfter
        self.publish = publish
        self.log = log
        timer = try WallClockTimer()
        timerRegistration = try loop.register(timer.descriptor.rawValue, name: "group beat", priority: .input) { [unowned self] _ in
            switch timer.take() {
            case .fired: align()
            case .clockSet:
                log("group \(group): the wall clock was set; the beat is worked out again from the new time")
                align()
            case .nothing: break
            }
        }
        presenceEnds = loop.deadline(named: "group beat rejoin") { [unowned self] _ in align() }
        joinCheck = loop.deadline(named: "group beat join") { [unowned self] _ in
            if beat == nil { publishBeat(reason: "no beat yet") }
        }
    }

    /// Leaves the beat: the show times its own slides again.
    func stop() {
        try? timer.arm(atPrecise: nil)
        if let timerRegistration { loop.unregister(timerRegistration) }
        timerRegistration = nil
        presenceEnds.map(loop.remove)
        joinCheck.map(loop.remove)
        if beat != nil { controller.perform(.timedByGroup(false)) }
        beat = nil
    }

    /// Subscribed (again): the retained beat is on its way, or there is none.
    func subscribed() {
        joinCheck?.arm(at: controller.clock() + Self.joinWait)
    }

    /// A beat from the broker.
    func received(_ payload: [UInt8]) {
        if payload.isEmpty { return }  // cleared by hand: the next group command starts another
        let parsed: GroupBeat
        switch GroupBeat.read(payload) {
        case .success(let beat): parsed = beat
        case .failure(let refusal): return refuse(refusal.reason)
        }
        let first = beat == nil
        beat = parsed
        joinCheck?.arm(at: nil)
        if first { controller.perform(.timedByGroup(true)) }
        let show = controller.snapshot
        if parsed.paused != show.paused { controller.perform(parsed.paused ? .pause : .resume) }
        align()
    }

    private func refuse(_ reason: String) {
        if logThrottle.allows(reason, at: controller.clock()) {
            log(.warning("group \(group): ignored a beat on \(topic): \(reason)"))
        }
    }

    /// A group command was obeyed here: the group is somewhere new, from now.
    func groupCommandPerformed() { publishBeat(reason: nil) }

    /// Publishes a beat from where this kiosk is now (retained).
    private func publishBeat(reason: String?) {
        let show = controller.snapshot
        guard let item = show.centredItem else { return }
        let beat = GroupBeat(epoch: WallClockTimer.preciseNow(), interval: show.strip.interval, position: item, paused: show.paused, by: name)
        if let reason { log("group \(group): \(reason); starting the beat at picture \(item), every \(show.strip.interval) s") }
        publish(topic, MQTTSource.payload(beat.payload.line), true)
    }

    /// To the group's picture now (unless someone is at this kiosk), and the timer for the next slide.
    private func align() {
        guard let beat else { return }
        let wall = WallClockTimer.preciseNow(), now = controller.clock()
        let show = controller.snapshot
        let presence = show.strip.lastPresence.map { $0 + resumeAfter() }
        if show.strip.held || (presence.map { $0 > now } ?? false) {
            // Someone is here: out of the beat until resume_after has passed since.
            presenceEnds?.arm(at: max(presence ?? now, now) + (show.strip.held ? 0.5 : 0))
        } else if !show.paused || beat.paused, let item = beat.item(at: wall, count: show.playlist.count), item != show.centredItem {
            // From the beat's instant, not this wake-up's: a kiosk woken a
            // few milliseconds late still lands on the refresh the others do.
            let late = beat.sinceSlide(at: wall)
            controller.perform(.goto(item: item), startedAt: late <= Self.catchUpLimit ? now - late : nil)
        }
        try? timer.arm(atPrecise: beat.nextSlide(after: wall)?.at)
    }
}
