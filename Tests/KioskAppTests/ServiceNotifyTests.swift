import Foundation
import KioskCore
import SystemCalls
import Testing

/// The socket systemd listens on for `sd_notify` (`NOTIFY_SOCKET`): a
/// datagram socket each message arrives on whole.
final class NotifySocket {
    let path = NSTemporaryDirectory() + "kioskd-notify-" + UUID().uuidString
    private let fd: Int32

    init() throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (i, byte) in path.utf8.enumerated() { bytes[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0 else { throw SystemCallError.last("bind", path: path) }
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// The next message, or nil when none comes within `seconds`.
    func receive(within seconds: Double) -> String? {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, Int32(seconds * 1000)) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    }

    /// Messages until one satisfies `wanted` (returned), or nil after `seconds` without it.
    func receive(until wanted: (String) -> Bool, within seconds: Double) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            guard let message = receive(within: deadline.timeIntervalSinceNow) else { return nil }
            if wanted(message) { return message }
        }
        return nil
    }
}

/// The built kioskd under a stand-in for systemd: the real libsystemd
/// calls (`sd_notify`, `sd_watchdog_enabled`) against a socket the test reads.
@Suite(.serialized) struct ServiceNotifyTests {
    @Test func readyComesWithTheFirstPictureAndTheStatusFollowsTheShow() throws {
        let notify = try NotifySocket()
        let daemon = try HeadlessDaemonTests.Daemon(["--interval", "600"], environment: ["NOTIFY_SOCKET": notify.path])
        let ready = notify.receive(until: { $0.contains("READY=1") }, within: 30)
        #expect(ready == "READY=1\nSTATUS=showing 01.jpg (8 pictures)")
        daemon.waitFor("picture(s), picture 0 in the centre")
        daemon.signal(SIGUSR1)
        #expect(notify.receive(until: { $0.hasPrefix("STATUS=") }, within: 30) == "STATUS=showing 02.jpg (8 pictures)")
        _ = daemon.stop()
        #expect(notify.receive(until: { $0.hasPrefix("STOPPING=1") }, within: 30) == "STOPPING=1\nSTATUS=stopping on SIGTERM")
        #expect(!daemon.log.contains("WATCHDOG"), "no watchdog asked for, none pinged")
    }

    /// `WatchdogSec=0.4`: pings every 0.2 s from the run loop; a stopped
    /// process (SIGSTOP, as a hung one) sends none, and they resume with it.
    /// (How often is `ServiceNotifications`' to say, tested on its own: here,
    /// that pings come one after another, on a busy machine however late.)
    @Test func theRunLoopPingsTheWatchdogAndAStoppedLoopDoesNot() throws {
        let notify = try NotifySocket()
        let daemon = try HeadlessDaemonTests.Daemon(
            ["--interval", "600", "--socket", "none"], environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "400000"])
        #expect(notify.receive(until: { $0.contains("READY=1") }, within: 30) != nil)
        var pings = 0
        while pings < 3, notify.receive(until: { $0 == "WATCHDOG=1" }, within: 30) != nil { pings += 1 }
        #expect(pings == 3, "pings one after another")
        daemon.signal(SIGSTOP)
        // What was sent before the stop took effect, then silence (five pings' time: a running loop would ping).
        while notify.receive(within: 0.1) != nil {}
        #expect(notify.receive(within: 1.0) == nil, "a stopped kioskd pinged")
        daemon.signal(SIGCONT)
        #expect(notify.receive(within: 30) == "WATCHDOG=1")
        _ = daemon.stop()
    }

    /// Under systemd standard error is the journal (`JOURNAL_STREAM` names
    /// it): each line carries its priority, so `journalctl -p warning`
    /// shows the refused picture and not the ordinary lines.
    @Test func logLinesCarryPrioritiesWhenStandardErrorIsTheJournal() throws {
        let folder = NSTemporaryDirectory() + "kioskd-journal-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["01.jpg", "02.jpg", "03.jpg"] {
            try FileManager.default.copyItem(atPath: demoImages + "/" + name, toPath: folder + "/" + name)
        }
        try Data("not a JPEG at all".utf8).write(to: URL(fileURLWithPath: folder + "/04.jpg"))
        // The pipe the daemon's standard error will be: its device and inode.
        let probe = Pipe()
        var status = stat()
        fstat(probe.fileHandleForWriting.fileDescriptor, &status)
        let daemon = try HeadlessDaemonTests.Daemon(
            ["--images", folder, "--interval", "600"], stderr: probe,
            environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino)"])
        daemon.waitFor("skipping")
        let lines = daemon.stop()
        #expect(lines.first == "<5>kioskd: showing on headless 320x180 at 60 Hz, rotation 0")
        #expect(lines.contains { $0.hasPrefix("<4>kioskd: skipping \(folder)/04.jpg: ") })
        #expect(lines.contains("<6>kioskd: 3 picture(s) in the playlist (1 removed)"), "--verbose lines are details")
        #expect(lines.allSatisfy { $0.hasPrefix("<") }, "\(lines)")
    }
}
