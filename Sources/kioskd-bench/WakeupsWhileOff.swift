import ArgumentParser
import ControlClient
import Foundation
import KioskApp
import KioskCore
import LinuxPlatform

#if canImport(Glibc)
import Glibc
#endif

/// `wakeups_while_off_per_min`: a headless show at 1920x1080 that slides
/// every 2 s through the 24 Mpx photos, in a child process listening on a
/// control socket, switched off with `display off` (what a scheduled night
/// does). Its wake-ups are the context switches of all its threads
/// (`voluntary_ctxt_switches` plus `nonvoluntary_ctxt_switches` in
/// `/proc/PID/task/TID/status`: a thread blocked in `epoll_wait` or on a
/// condition has none), counted over 30 s while off, per minute. The same
/// count over 10 s while on is printed beside it, to show the measure sees
/// a working show.
///
/// The show has captions and a clock (issue 37): a clock turns every
/// minute while on, and must not wake the show while off.
///
/// With `--idle`, `wakeups_while_idle_off_per_min`: the same show with
/// `idle_off` of 15 s and nobody there, counted once it has gone off by
/// itself (`display_state` `off_by_idle`): waiting for presence must cost
/// nothing either.
struct WakeupsWhileOff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "display-off",
        abstract: "Switch a headless show off over its control socket and print wakeups_while_off_per_min.")

    @Argument var folder: String
    @Option(help: "Seconds counted while off.") var seconds = 30
    @Option(help: "Be the show (the child the measurement watches), listening on this socket.") var child: String?
    @Flag(help: "Let the show go off by itself (idle_off) instead of display off.") var idle = false

    /// `idle_off` of the show under `--idle`.
    static let idleOff = 15.0

    func run() throws {
        if let socket = child {
            blockDaemonSignals()
            keepPictureBuffersOutOfTheHeap()
            var settings = headlessShow(folder, interval: 2, socket: socket)
            if idle { settings.power.idleOff = Self.idleOff }
            settings.text.caption = try CaptionTemplate(parsing: "{file}")
            settings.text.clock = try StrftimePattern("%H:%M")
            try DisplayJob(settings: settings, index: 0, log: { _ in }).run()
            return
        }
        let socket = NSTemporaryDirectory() + "kioskd-bench-off-\(getpid()).sock"
        let pid = spawnSelf(["display-off", folder, "--child", socket] + (idle ? ["--idle"] : []))
        defer {
            kill(pid, SIGTERM)
            _ = waitForExit(pid)
        }
        // A connection per command: an idle client is dropped after 10 s, and its timer is a wake-up.
        func ask(_ command: String) throws -> String {
            String(decoding: try ControlConnection(path: socket).request(command), as: UTF8.self)
        }
        for _ in 0..<600 where (try? ask("status")) == nil { usleep(10_000) }
        guard access(socket, F_OK) == 0 else { throw ValidationError("the show's control socket never appeared at \(socket)") }
        // The neighbourhood decoded and the first slides begun.
        sleep(3)
        let on = try wakeUps(of: pid, over: 10)
        if idle {
            // Nobody there: off by itself once idle_off has passed since the start.
            var state = ""
            for _ in 0..<60 where !state.contains("\"display_state\":\"off_by_idle\"") {
                sleep(1)
                state = try ask("status")
            }
            guard state.contains("\"display_state\":\"off_by_idle\"") else { throw ValidationError("the show did not go off by idle: \(state)") }
            sleep(1)
            let off = try wakeUps(of: pid, over: seconds)
            print("wakeups_while_idle_off_per_min \(format(off.perMinute)) wake-ups (\(off.count) context switches of \(off.threads) threads in "
                + "\(format(off.seconds)) s, off by idle_off \(Int(Self.idleOff)) s; while on, sliding every 2 s: \(format(on.perMinute)) per minute)")
            return
        }
        let reply = try ask("display off")
        guard reply.contains("\"panel\":\"off\"") else { throw ValidationError("display off was not taken: \(reply)") }
        // A slide under way ends where it was going; then nothing moves.
        sleep(1)
        let off = try wakeUps(of: pid, over: seconds)
        let back = try ask("display on")
        guard back.contains("\"panel\":\"active\"") else { throw ValidationError("display on was not taken: \(back)") }
        print("wakeups_while_off_per_min \(format(off.perMinute)) wake-ups (\(off.count) context switches of \(off.threads) threads in \(format(off.seconds)) s; "
            + "while on, sliding every 2 s: \(format(on.perMinute)) per minute)")
    }

    /// Context switches of every thread of `pid` over `seconds`.
    private func wakeUps(of pid: pid_t, over seconds: Int) throws -> (count: Int, threads: Int, seconds: Double, perMinute: Double) {
        let before = contextSwitches(of: pid)
        let start = ContinuousClock.now
        sleep(UInt32(seconds))
        let after = contextSwitches(of: pid)
        let elapsed = (ContinuousClock.now - start) / .seconds(1)
        guard !after.isEmpty else { throw ValidationError("the show (pid \(pid)) ended while it was measured") }
        // A thread that started meanwhile counts from zero.
        let count = after.reduce(0) { $0 + $1.value - (before[$1.key] ?? 0) }
        return (count, after.count, elapsed, Double(count) / elapsed * 60)
    }
}

/// Voluntary plus involuntary context switches of each thread of `pid`, by thread id.
func contextSwitches(of pid: pid_t) -> [Int: Int] {
    guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return [:] }
    var switches: [Int: Int] = [:]
    for thread in threads {
        guard let tid = Int(thread), let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/status", encoding: .utf8) else { continue }
        switches[tid] = status.split(separator: "\n").reduce(0) { total, line in
            guard line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:") else { return total }
            return total + (line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0)
        }
    }
    return switches
}
