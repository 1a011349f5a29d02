import ImageCodecs
import KioskCore
import LinuxPlatform
import MQTTClient
import Synchronization
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A kiosk's connection to its MQTT broker, kept up on the run loop.
///
/// - The connect (DNS, TCP, TLS's handshake) can take seconds, or minutes
///   for a broker behind a cut cable: it is made on a thread of its own,
///   and the connection handed to the loop with its socket.
/// - On the loop, the socket is watched for reading, and for writing only
///   while libmosquitto has packets waiting; a deadline runs its keepalive
///   step (every quarter keepalive, so the ping is never more than that
///   late, well inside the broker's 1.5 keepalives).
/// - A connection that fails, is refused or goes quiet is tried again
///   after ``ReconnectBackoff``'s delay (0.5 s doubling to a minute, with
///   jitter); one that was accepted starts the count again, so a broker
///   restarted is rejoined within a second of it listening again.
/// - The CONNECT carries the last will (`offline`, retained); ``stop()``
///   says `offline` itself and says goodbye, so the broker drops the will.
final class MQTTLink {
    /// Where and as whom to connect: what a reload compares.
    struct Target: Equatable {
        var broker: MQTTBroker
        var clientID: String
        var availabilityTopic: String
        var settings: MQTTSettings
    }

    /// The CONNACK has not come this long after an attempt began (DNS, TCP,
    /// TLS and the CONNECT included): give up and try again after the
    /// backoff. The keepalive or 10 s, whichever is less: a broker that
    /// swallows packets costs at most that, never TCP's two minutes.
    static func connectTimeout(keepalive: Int) -> Double { Double(min(keepalive, 10)) }

    private let loop: EventLoop
    private let clock: () -> Double
    private let log: (LogLine) -> Void
    /// The broker accepted the connection: subscribe and publish what it should have.
    var online: () -> Void = {}
    /// A message arrived: its topic, payload and whether it was retained.
    var message: (String, [UInt8], Bool) -> Void = { _, _, _ in }

    private(set) var target: Target?
    private var connection: MQTTConnection?
    private var registration: Registration?
    /// The keepalive step, the handshake's timeout, and the retry: one deadline, by state.
    private var step: Deadline?
    private var retryAt: Double?
    /// When the attempt under way (its thread, then the CONNACK) is given up.
    private var handshakeUntil: Double?
    private var backoff = ReconnectBackoff()
    private var random = SystemRandomNumberGenerator()
    private var logThrottle = LogThrottle(period: 60)

    /// Connections made on their threads, by attempt, waiting for the loop.
    private let arrived = Arrivals()
    private let arrivals: EventCounter
    private var arrivalsRegistration: Registration?
    /// The attempt under way, if any; older ones are dropped on arrival.
    private var attempt: UInt64 = 0
    private var connecting = false

    private final class Arrivals: Sendable {
        let attempts = Mutex<[UInt64: Attempt]>([:])
    }

    /// A connection made (or not) off the loop. Only one thread holds it at a time.
    private struct Attempt: @unchecked Sendable {
        let result: Result<MQTTConnection, Failure>
    }

    /// Why an attempt failed, as the log says it.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// True from the broker's CONNACK until the connection ends.
    private(set) var isOnline = false

    init(loop: EventLoop, clock: @escaping () -> Double, log: @escaping (LogLine) -> Void) throws(SystemCallError) {
        self.loop = loop
        self.clock = clock
        self.log = log
        arrivals = try EventCounter(nonBlocking: true)
        arrivalsRegistration = try loop.register(arrivals.descriptor.rawValue, name: "mqtt connect") { [unowned self] _ in
            takeArrivals()
        }
        step = loop.deadline(named: "mqtt") { [unowned self] now in stepDue(at: now) }
    }

    // MARK: What the owner asks

    /// Connects to `target` (nil: none), leaving the connection there is
    /// first if it goes elsewhere or as someone else.
    func use(_ newTarget: Target?) {
        guard newTarget != target else { return }
        close()
        target = newTarget
        backoff = ReconnectBackoff()
        retryAt = nil
        if newTarget != nil { startAttempt() }
        armStep()
    }

    /// Says `offline` and goodbye: the show is stopping.
    func stop() {
        close(blocking: true)
        for gone in leaving { leave(gone.connection) }
        target = nil
        armStep()
    }

    /// Queues a message (QoS 1) if the broker is there; false when not:
    /// the caller publishes what matters again on ``online``.
    @discardableResult
    func publish(_ topic: String, _ payload: [UInt8], retained: Bool = false) -> Bool {
        guard isOnline, let connection else { return false }
        do { try connection.publish(topic, payload, retained: retained) } catch {
            lost("cannot publish: \(error)")
            return false
        }
        watchSocket()
        return true
    }

    func subscribe(_ pattern: String) {
        guard isOnline, let connection else { return }
        do { try connection.subscribe(pattern) } catch { return lost("cannot subscribe: \(error)") }
        watchSocket()
    }

    // MARK: Connecting

    private func startAttempt() {
        guard let target, !connecting else { return }
        attempt += 1
        connecting = true
        let number = attempt
        let arrived = self.arrived, arrivals = self.arrivals
        let timeout = Self.connectTimeout(keepalive: target.settings.keepalive)
        handshakeUntil = clock() + timeout
        armStep()
        do {
            try startDetachedThread {
                let result = Result { () throws(Failure) in try Self.connect(target, within: timeout) }
                arrived.attempts.withLock { $0[number] = Attempt(result: result) }
                arrivals.signal()
            }
        } catch {
            connecting = false
            failed("cannot start the connecting thread: \(error)")
        }
    }

    /// On the connecting thread: the password read, the connection made and its CONNECT written, within `timeout`.
    private static func connect(_ target: Target, within timeout: Double) throws(Failure) -> MQTTConnection {
        let settings = target.settings
        var password: String?
        if let file = settings.passwordFile { password = try readPassword(file) }
        let tls = target.broker.usesTLS
            ? MQTTConnection.TLS(
                caFile: settings.caFile, caPath: settings.caFile == nil ? "/etc/ssl/certs" : nil, certFile: settings.clientCert,
                keyFile: settings.clientKey)
            : nil
        do {
            let connection = try MQTTConnection(
                clientID: target.clientID, will: MQTTConnection.Will(topic: target.availabilityTopic, payload: Array("offline".utf8), retained: true),
                username: settings.username, password: password, tls: tls)
            try connection.open(to: target.broker.host, port: target.broker.port, keepalive: settings.keepalive, within: timeout)
            return connection
        } catch {
            throw Failure(description: error.description)
        }
    }

    /// The password file's first line; a bare name is a systemd credential.
    static func readPassword(_ file: String) throws(Failure) -> String {
        do { return try CredentialFile.firstLine(of: file) } catch { throw Failure(description: error.description) }
    }

    private func takeArrivals() {
        arrivals.take()
        let attempts = arrived.attempts.withLock { attempts in
            defer { attempts = [:] }
            return attempts
        }
        for (number, arrival) in attempts {
            guard number == attempt else { continue }  // For a target left since: dropped (and closed).
            connecting = false
            let until = handshakeUntil
            handshakeUntil = nil
            switch arrival.result {
            case .success(let made): handOver(made, until: until ?? clock())
            case .failure(let failure): failed(failure.description)
            }
        }
    }

    /// A connection made: its socket joins the loop, and the broker's CONNACK is awaited until `until`.
    private func handOver(_ made: MQTTConnection, until: Double) {
        guard let socket = made.socket else { return failed("the connection closed as it was made") }
        do {
            registration = try loop.register(socket, name: "mqtt") { [unowned self] events in socketReady(events) }
        } catch {
            return failed("cannot watch the broker's socket: \(error)")
        }
        connection = made
        handshakeUntil = until
        handleEvents()
        watchSocket()
        armStep()
    }

    // MARK: The connection on the loop

    /// The most packets read in one wake-up: a flood of commands is taken
    /// in batches (libmosquitto reads one packet per call), and the loop
    /// still gets back to its frames within a fraction of one.
    static let packetsPerWakeUp = 64

    private func socketReady(_ events: EventSet) {
        guard let connection else { return }
        do {
            if events.contains(.readable) || events.contains(.hangUp) || events.contains(.error) {
                var packets = 0
                repeat {
                    try connection.read()
                    packets += 1
                } while packets < Self.packetsPerWakeUp && self.connection === connection && connection.bytesWaiting > 0
            }
            if events.contains(.writable), self.connection === connection { try connection.write() }
        } catch {
            handleEvents()
            return lost("\(error)")
        }
        handleEvents()
        watchSocket()
    }

    private func handleEvents() {
        guard let connection else { return }
        for event in connection.takeEvents() {
            guard self.connection === connection else { return }
            switch event {
            case .connected(0):
                isOnline = true
                handshakeUntil = nil
                backoff.connected()
                if let target { log("mqtt: online at \(target.broker) as \(target.clientID)") }
                armStep()
                online()
            case .connected(let code):
                refused(code)
            case .message(let topic, let payload, let retained):
                message(topic, payload, retained)
            case .acknowledged:
                break
            case .disconnected(let code):
                lost(code == 0 ? "the connection closed" : "the connection was lost (libmosquitto \(code))")
            }
        }
    }

    /// Reading when readable, writing only while packets wait.
    private func watchSocket() {
        guard let connection, let registration else { return }
        var interest: EventSet = .readable
        if connection.wantsWrite { interest.insert(.writable) }
        do { try loop.setInterest(interest, for: registration) } catch { lost("cannot watch the broker's socket: \(error)") }
    }

    private func stepDue(at now: Double) {
        for gone in leaving where gone.until <= now { leave(gone.connection) }
        if let retryAt, now >= retryAt {
            self.retryAt = nil
            startAttempt()
        } else if let handshakeUntil, now >= handshakeUntil {
            let timeout = Int(Self.connectTimeout(keepalive: target?.settings.keepalive ?? 10))
            if connecting {
                // The thread is still resolving or connecting: its connection is dropped when it arrives.
                attempt += 1
                connecting = false
                self.handshakeUntil = nil
                failed("the broker did not answer within \(timeout) s")
            } else {
                lost("the broker did not answer the CONNECT within \(timeout) s")
            }
        } else if let connection {
            do { try connection.maintain() } catch {
                handleEvents()
                return lost("\(error)")
            }
            handleEvents()
            watchSocket()
        }
        armStep()
    }

    private func armStep() {
        let now = clock()
        let lingering = leaving.map(\.until).min() ?? .infinity
        if let retryAt {
            step?.arm(at: min(retryAt, lingering))
        } else if let handshakeUntil {
            step?.arm(at: min(handshakeUntil, lingering))
        } else if connection != nil, let keepalive = target?.settings.keepalive {
            step?.arm(at: min(now + Double(keepalive) / 4, lingering))
        } else {
            step?.arm(at: lingering.isFinite ? lingering : nil)
        }
    }

    // MARK: Ending

    /// CONNACK refused the kiosk: say why, and try again later.
    private func refused(_ code: Int) {
        let reason: String
        switch code {
        case 1: reason = "it does not speak MQTT 3.1.1"
        case 2: reason = "it refused the client id"
        case 3: reason = "the broker is unavailable"
        case 4: reason = "bad user name or password"
        case 5: reason = "not authorised"
        default: reason = "code \(code)"
        }
        drop()
        failed("the broker refused the connection: \(reason)")
    }

    /// The connection ended without being asked to.
    private func lost(_ reason: String) {
        let wasOnline = isOnline
        drop()
        if wasOnline {
            log(.warning("mqtt: \(reason); connecting again"))
            scheduleRetry()
        } else {
            failed(reason)
        }
    }

    /// An attempt failed: one line per reason a minute, and a retry later.
    private func failed(_ reason: String) {
        let delay = scheduleRetry()
        guard let target else { return }
        if logThrottle.allows(reason, at: clock()) {
            log(.warning("mqtt: cannot join \(target.broker): \(reason); trying again in \(Self.seconds(delay)) (backing off to at most a minute)"))
        }
    }

    @discardableResult
    private func scheduleRetry() -> Double {
        let delay = backoff.nextDelay(using: &random)
        retryAt = clock() + delay
        armStep()
        return delay
    }

    private static func seconds(_ delay: Double) -> String {
        delay < 10 ? "\((delay * 10).rounded() / 10) s" : "\(Int(delay.rounded())) s"
    }

    /// Leaves the connection, saying `offline` first if online, and
    /// goodbye once the broker has acknowledged it: libmosquitto closes
    /// the socket with the DISCONNECT, and an acknowledgement arriving
    /// after that would make the kernel reset the connection, which can
    /// lose the goodbye and publish the will too. On the way out
    /// (`blocking`) that wait is the only one (at most ``lingering``);
    /// otherwise the loop watches the connection leave.
    private func close(blocking: Bool = false) {
        if isOnline, let connection, let target {
            log("mqtt: leaving \(target.broker)")
            if let said = try? connection.publish(target.availabilityTopic, Array("offline".utf8), retained: true) {
                _ = try? connection.write()
                if blocking {
                    Self.awaitAcknowledgement(of: said, on: connection, within: Self.lingering)
                    connection.disconnect()
                } else {
                    if let registration { loop.unregister(registration) }
                    registration = nil
                    linger(connection, until: said)
                }
            } else {
                connection.disconnect()
            }
        }
        drop()
        attempt += 1  // A connection still being made is dropped when it arrives.
        connecting = false
    }

    /// How long a connection left waits for its `offline` to be acknowledged.
    static let lingering = 0.5

    /// Connections left, until the broker acknowledges their `offline`.
    private var leaving: [(connection: MQTTConnection, registration: Registration, until: Double)] = []

    private func linger(_ connection: MQTTConnection, until said: Int32) {
        guard let socket = connection.socket,
              let watch = try? loop.register(socket, name: "mqtt leaving", handler: { [unowned self, unowned connection] _ in
                  let read = (try? connection.read()) != nil
                  if !read || connection.takeEvents().contains(.acknowledged(messageID: said)) { leave(connection) }
              })
        else { return connection.disconnect() }
        leaving.append((connection, watch, clock() + Self.lingering))
        armStep()
    }

    /// Says goodbye on a connection left, and forgets it.
    private func leave(_ connection: MQTTConnection) {
        for gone in leaving where gone.connection === connection { loop.unregister(gone.registration) }
        leaving.removeAll { $0.connection === connection }
        connection.disconnect()
    }

    /// Reads `connection` (poll, at most `seconds`) until message `said` is acknowledged.
    private static func awaitAcknowledgement(of said: Int32, on connection: MQTTConnection, within seconds: Double) {
        let until = MonotonicClock.now() + seconds
        while let socket = connection.socket, MonotonicClock.now() < until {
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, Int32(max(1, (until - MonotonicClock.now()) * 1000))) > 0 else { return }
            guard (try? connection.read()) != nil else { return }
            if connection.takeEvents().contains(.acknowledged(messageID: said)) { return }
        }
    }

    private func drop() {
        if let registration { loop.unregister(registration) }
        registration = nil
        connection = nil  // mosquitto_destroy closes the socket.
        isOnline = false
        handshakeUntil = nil
        armStep()
    }
}
