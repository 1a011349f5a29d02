import ArgumentParser
import CLinux
import ControlClient
import Foundation
import KioskCore

#if canImport(Glibc)
import Glibc
#endif

/// The control socket under load: the `slides` scenario (100 back-to-back
/// slides through 24 Mpx photos, headless at 1920x1080 and 60 Hz) in a
/// child process listening on a socket, while this process keeps 200
/// clients connected, each sending `status` every 10 ms (20,000 commands a
/// second, all from one thread waiting on epoll, so the load costs the
/// machine as little as a load can: `poll` on 200 sockets 20,000 times a
/// second took more CPU than the daemon), and one more client times
/// `status` replies.
///
/// Prints `dropped_frames_under_control_load` (the child: refreshes during
/// slides that got no new frame) and `control_status_p99_ms`.
struct ControlLoad: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "control",
        abstract: "Print control_status_p99_ms and dropped_frames_under_control_load: 200 clients sending status every 10 ms during 100 slides.")

    @Argument var folder: String
    @Option var clients = 200

    func run() throws {
        let socket = NSTemporaryDirectory() + "kioskd-bench-\(getpid()).sock"
        let child = spawnSelf(["slides", folder, "--socket", socket, "--suffix", "_under_control_load"])
        var load: [ControlConnection] = []
        for _ in 0..<600 where load.isEmpty {
            if let first = try? ControlConnection(path: socket) { load.append(first) } else { usleep(10_000) }
        }
        guard !load.isEmpty else { throw ValidationError("the show's control socket never appeared at \(socket)") }
        while load.count < clients { load.append(try ControlConnection(path: socket)) }
        let measured = try ControlConnection(path: socket)

        // The load: every 10 ms each client sends `status` and its replies are read as they come.
        let stop = Atomic(false)
        let sent = Atomic(0)
        let fds = load.map(\.descriptor)
        let loader = Thread {
            let epoll = epoll_create1(0)
            defer { close(epoll) }
            for fd in fds {
                var event = epoll_event()
                event.events = EPOLLIN.rawValue
                event.data.fd = fd
                _ = epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event)
            }
            var ready = [epoll_event](repeating: epoll_event(), count: fds.count)
            let command = Array("status\n".utf8)
            var next = ContinuousClock.now
            var scratch = [UInt8](repeating: 0, count: 1 << 16)
            while !stop.load() {
                if ContinuousClock.now >= next {
                    for fd in fds { _ = send(fd, command, command.count, Int32(MSG_NOSIGNAL)) }
                    sent.add(fds.count)
                    next += .milliseconds(10)
                }
                let wait = max(0, Int32((next - ContinuousClock.now) / .milliseconds(1)))
                let count = epoll_wait(epoll, &ready, Int32(ready.count), wait)
                for event in ready.prefix(max(0, Int(count))) {
                    _ = read(event.data.fd, &scratch, scratch.count)
                }
            }
        }
        loader.start()

        var latencies: [Double] = []
        while waitpid(child, nil, WNOHANG) == 0 {
            let start = ContinuousClock.now
            guard (try? measured.request("status")) != nil else { break }
            latencies.append((ContinuousClock.now - start) / .milliseconds(1))
            usleep(5_000)
        }
        stop.store(true)
        withExtendedLifetime(load) {}
        latencies.sort()
        let p99 = latencies.isEmpty ? .nan : latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
        print("control_status_p99_ms \(format(p99)) ms (\(latencies.count) requests; median \(format(latencies.isEmpty ? .nan : latencies[latencies.count / 2])) ms; \(sent.load()) status commands from \(load.count) clients)")
    }
}

/// A flag or counter shared with the load thread.
final class Atomic<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func load() -> Value { lock.withLock { value } }
    func store(_ new: Value) { lock.withLock { value = new } }
}

extension Atomic where Value == Int {
    func add(_ amount: Int) { lock.withLock { value += amount } }
}
