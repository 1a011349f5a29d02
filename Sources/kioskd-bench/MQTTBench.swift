import ArgumentParser
import ControlClient
import Foundation
import KioskApp
import KioskCore
import LinuxPlatform
import MQTTClient
import Synchronization
import SystemCalls
import BrokerSupport

#if canImport(Glibc)
import Glibc
#endif

/// The MQTT figures, each on a real mosquitto on loopback started for them:
/// - `mqtt_command_to_photon_ms`: a `next` published until the flip of the
///   frame that starts the slide (``MQTTPhoton``, in its own process);
/// - `mqtt_reconnect_ms`: the broker restarted until the kiosk is `online` again;
/// - `group_sync_spread_ms`: 8 kiosks in one group, 20 slides on its beat,
///   the largest spread between the times members' frames with the new
///   picture reached their screens (each `picture` event's `shown_at`);
///   beside it, the spread as the events were heard on `watch`;
/// - `dropped_frames_under_mqtt_load`: 100 slides while 1,000 clients take
///   the state and a command arrives every 10 ms.
///
/// The kiosks of the reconnect and group figures are the release `kioskd`
/// itself (`make bench` builds it beside this program), headless.
struct MQTTFigures: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mqtt", abstract: "Print mqtt_command_to_photon_ms, mqtt_reconnect_ms, group_sync_spread_ms and dropped_frames_under_mqtt_load.")

    @Argument var folder: String
    @Option(help: "Kiosks in the group.") var kiosks = 8
    @Option(help: "Automatic slides the group makes.") var slides = 20
    @Option(help: "Clients taking the state during the load figure.") var subscribers = 1000

    func run() throws {
        // 1,000 clients, the broker's 1,000 and the kiosks': past the usual 1,024 descriptors.
        var limit = rlimit(rlim_cur: 8192, rlim_max: 8192)
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0 { throw SystemCallError.last("setrlimit(RLIMIT_NOFILE)") }
        let broker = try TestBroker { _ in "max_connections -1\nmax_queued_messages 0\n" }
        fflush(nil)
        var status = waitForExit(spawnSelf(["mqtt-photon", folder, "--port", "\(broker.port)"]))
        if status != 0 { throw ExitCode(status) }
        try reconnectFigure(broker)
        try groupFigure(broker)
        fflush(nil)
        status = try loadFigure(broker)
        if status != 0 { throw ExitCode(status) }
    }

    /// The release kioskd beside this program, headless at 640x360 on the folder.
    private func kiosk(_ name: String, on broker: TestBroker, _ more: [String]) throws -> pid_t {
        let kioskd = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("kioskd").path
        guard access(kioskd, X_OK) == 0 else { throw ValidationError("no kioskd at \(kioskd): make bench builds it") }
        let arguments = [
            "kioskd", "--display", "headless", "--size", "640x360", "--images", folder, "--state-dir", "none",
            "--mqtt-broker", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-name", name, "--mqtt-discovery-prefix", "",
        ] + more
        guard let pid = spawnQuietly(kioskd, arguments, silencing: 2) else { throw ValidationError("cannot start \(kioskd)") }
        return pid
    }

    /// Restarts the broker five times; each time, how long from it
    /// listening again until the kiosk has said `online` again.
    private func reconnectFigure(_ broker: TestBroker) throws {
        let pid = try kiosk("reconnect", on: broker, ["--interval", "3600", "--socket", "none"])
        defer {
            kill(pid, SIGTERM)
            _ = waitForExit(pid)
        }
        func online(within seconds: Double) throws -> Bool {
            let watcher = try TestSubscriber("bench-reconnect-\(UUID().uuidString.prefix(8))", to: ["kioskd/reconnect/availability"], on: broker)
            return watcher.wait(seconds: seconds) { _ in watcher.texts(on: "kioskd/reconnect/availability").last == "online" }
        }
        guard try online(within: 20) else { throw ValidationError("the kiosk never came online") }
        var rounds: [Double] = []
        for _ in 0..<5 {
            usleep(1_000_000)
            broker.stop()
            try broker.start()
            let listening = MonotonicClock.now()
            guard try online(within: 30) else { throw ValidationError("the kiosk did not come back online within 30 s") }
            rounds.append((MonotonicClock.now() - listening) * 1000)
        }
        print("mqtt_reconnect_ms \(format(rounds.max() ?? 0)) ms (the slowest of \(rounds.count) broker restarts: "
            + rounds.map(format).joined(separator: ", ") + " ms; the backoff starts again at 0.5 s after an accepted connection)")
    }

    /// `kiosks` kiosks in group `bench`, sliding every 1.5 s on its beat;
    /// each one's `watch` read by poll, every picture event stamped as it arrives.
    private func groupFigure(_ broker: TestBroker) throws {
        let folder = NSTemporaryDirectory() + "kioskd-bench-group-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A beat retained from an earlier run would hold the group: cleared.
        let clearer = try TestSubscriber("bench-group-clear", to: [], on: broker)
        try clearer.publish(MQTTTopics.groupBeat("bench"), "", retained: true)
        var pids: [pid_t] = []
        defer {
            for pid in pids { kill(pid, SIGTERM) }
            for pid in pids { _ = waitForExit(pid) }
        }
        let sockets = (0..<kiosks).map { "\(folder)/k\($0).sock" }
        for (n, socket) in sockets.enumerated() {
            pids.append(try kiosk("g\(n)", on: broker, ["--interval", "1.5", "--transition", "0.3", "--socket", socket, "--mqtt-groups", "bench"]))
        }
        var watchers: [ControlConnection] = []
        for socket in sockets {
            var connection: ControlConnection?
            for _ in 0..<1000 where connection == nil {
                connection = try? ControlConnection(path: socket)
                if connection == nil { usleep(20_000) }
            }
            guard let connection else { throw ValidationError("no kiosk at \(socket)") }
            _ = try connection.request("watch")
            connection.timeout = 0.002
            watchers.append(connection)
        }
        // Joined and on the beat: two beats' wait.
        usleep(3_500_000)
        var arrivals: [(time: Double, shownAt: Double, kiosk: Int, index: Int)] = []
        let until = MonotonicClock.now() + Double(slides) * 1.5 + 1
        while MonotonicClock.now() < until {
            var ready = watchers.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            guard poll(&ready, nfds_t(ready.count), 5) > 0 else { continue }
            let time = MonotonicClock.now()
            for (n, fd) in ready.enumerated() where fd.revents != 0 {
                while let line = try? watchers[n].readLine() {
                    let event = (try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]) ?? [:]
                    if event["event"] as? String == "picture", let index = event["index"] as? Int, let shownAt = event["shown_at"] as? Double {
                        arrivals.append((time, shownAt, n, index))
                    }
                }
            }
        }
        // Each slide: the arrivals within a second of its first, one per kiosk.
        var spreads: [Double] = [], heard: [Double] = []
        var rest = arrivals.sorted { $0.time < $1.time }
        while let first = rest.first {
            let slide = rest.filter { $0.time - first.time < 1.0 }
            rest.removeFirst(slide.count)
            guard Set(slide.map(\.kiosk)).count == kiosks, Set(slide.map(\.index)).count == 1 else { continue }
            let shown = slide.map(\.shownAt)
            spreads.append(((shown.max() ?? 0) - (shown.min() ?? 0)) * 1000)
            heard.append(((slide.map(\.time).max() ?? 0) - first.time) * 1000)
        }
        guard !spreads.isEmpty else { throw ValidationError("no slide reached all \(kiosks) kiosks on one picture: \(arrivals.count) arrivals") }
        print("group_sync_spread_ms \(format(spreads.max() ?? 0)) ms (the largest of \(spreads.count) slides on \(kiosks) kiosks, "
            + "between the frames reaching their screens; median \(format(median(spreads))) ms; as heard on watch, the largest "
            + "\(format(heard.max() ?? 0)) ms, median \(format(median(heard))) ms; one refresh is \(format(1000.0 / 60)) ms, "
            + "and each headless screen refreshes on its own phase; slides every 1.5 s on the group's beat)")
    }

    /// 100 slides in a child (`slides --mqtt-port`), while `subscribers`
    /// clients take the kiosk's state and a `status` command arrives every 10 ms.
    private func loadFigure(_ broker: TestBroker) throws -> Int32 {
        let child = spawnSelf(["slides", folder, "--mqtt-port", "\(broker.port)", "--suffix", "_under_mqtt_load"])
        var clients: [MQTTConnection] = []
        for n in 0..<subscribers {
            let client = try MQTTConnection(clientID: "bench-state-\(n)", will: nil)
            try client.connect(to: "127.0.0.1", port: broker.port, keepalive: 60)
            try client.subscribe("kioskd/load/state")
            clients.append(client)
        }
        let commander = try MQTTConnection(clientID: "bench-commander", will: nil)
        try commander.connect(to: "127.0.0.1", port: broker.port, keepalive: 60)
        let everyone = clients + [commander]
        var received = 0, sent = 0
        var next = MonotonicClock.now()
        while waitpid(child, nil, WNOHANG) == 0 {
            if MonotonicClock.now() >= next {
                _ = try? commander.publish("kioskd/load/command", Array("status".utf8))
                sent += 1
                next += 0.01
            }
            var watched = everyone.compactMap { connection in
                connection.socket.map { pollfd(fd: $0, events: Int16(POLLIN) | (connection.wantsWrite ? Int16(POLLOUT) : 0), revents: 0) }
            }
            _ = poll(&watched, nfds_t(watched.count), Int32(max(0, min(10, (next - MonotonicClock.now()) * 1000))))
            for (connection, fd) in zip(everyone.filter { $0.socket != nil }, watched) where fd.revents != 0 {
                if fd.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                    repeat { try? connection.read() } while connection.bytesWaiting > 0
                    received += connection.takeEvents().count
                }
                if fd.revents & Int16(POLLOUT) != 0 { try? connection.write() }
            }
            for connection in everyone { try? connection.maintain() }
        }
        print("mqtt_load \(sent) commands sent, \(received) messages taken by \(subscribers) state subscribers and the commander")
        var status: Int32 = 0
        waitpid(child, &status, 0)
        return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }
}

/// `mqtt_command_to_photon_ms`: the show headless at 1920x1080 in this
/// process, on the broker at `port`; another thread, as Home Assistant
/// would, publishes `next` every 0.5 s, stamping each on `CLOCK_MONOTONIC`
/// just before it goes. The show keeps when the first frame of each
/// commanded move reached the screen (``ShowStatistics/commandedMovesShown``);
/// each `next` is paired with the first such flip after it.
struct MQTTPhoton: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mqtt-photon", abstract: "Publish next to the headless show over MQTT and print mqtt_command_to_photon_ms.")

    @Argument var folder: String
    @Option var port: Int
    @Option var commands = 60

    func run() throws {
        blockDaemonSignals()
        keepPictureBuffersOutOfTheHeap()
        var settings = headlessShow(folder, interval: 3600)
        settings.motion.transition = 0.3
        settings.mqtt.broker = MQTTBroker(host: "127.0.0.1", port: port, usesTLS: false)
        settings.mqtt.name = "photon"
        settings.mqtt.discoveryPrefix = ""
        let sent = Mutex<[Double]>([])
        let (port, commands) = (port, commands)
        Thread.detachNewThread {
            defer { kill(getpid(), SIGTERM) }
            guard let client = try? MQTTConnection(clientID: "bench-photon", will: nil),
                  (try? client.connect(to: "127.0.0.1", port: port, keepalive: 60)) != nil,
                  (try? client.subscribe("kioskd/photon/availability")) != nil else { return }
            var online = false
            pump([client], seconds: 20) {
                for case .message(_, let payload, _) in client.takeEvents() where payload == Array("online".utf8) { online = true }
                return online
            }
            // The pictures around the first decoded meanwhile.
            pump([client], seconds: 2) { false }
            for _ in 0..<commands {
                let now = MonotonicClock.now()
                guard (try? client.publish("kioskd/photon/command", Array("next".utf8))) != nil else { return }
                sent.withLock { $0.append(now) }
                pump([client], seconds: 0.5) { false }
            }
        }
        let statistics = try DisplayJob(settings: settings, index: 0, log: { _ in }).run { _ in false }
        let flips = statistics.commandedMovesShown
        let latencies = sent.withLock { $0 }.compactMap { t in flips.first { $0 >= t }.map { ($0 - t) * 1000 } }.sorted()
        guard !latencies.isEmpty else { throw ValidationError("no published next reached the screen") }
        let p99 = latencies[min(latencies.count - 1, Int((Double(latencies.count) * 0.99).rounded(.up)) - 1)]
        let refresh = 1000.0 / 60
        print("mqtt_command_to_photon_ms \(format(p99)) ms (99% of \(latencies.count) nexts published; median \(format(median(latencies))), "
            + "slowest \(format(latencies.last ?? 0)); one refresh is \(format(refresh)) ms, the target one refresh + 5 ms)")
    }
}
