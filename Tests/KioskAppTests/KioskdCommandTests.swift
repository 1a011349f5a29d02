import Foundation
import ImageCodecs
import Synchronization
import KioskCore
import KioskRendering
import Testing

/// Runs the built `kioskd` (it sits beside the test bundle in the build folder).
func kioskd(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
    try runBuilt("kioskd", arguments, environment: environment)
}

/// Runs the built `kioskctl`, as `user` when given (through setpriv; nobody's group is 65534).
func kioskctl(_ arguments: [String], as user: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
    try runBuilt("kioskctl", arguments, as: user)
}

/// The built executable `name` (it sits beside the test bundle in the build folder).
func builtExecutable(_ name: String) throws -> String {
    URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        .deletingLastPathComponent().appendingPathComponent(name).path
}

/// A copy of the file or folder at `path` that every user can read (and
/// run), for the tests that run a program as another user: the clone may
/// live where only its owner can enter (`mktemp -d` makes such a folder),
/// and what such a test checks must not depend on that. One copy per run.
func readableByEveryone(_ path: String) throws -> String {
    try sharedCopies.withLock { copies in
        if let copy = copies[path] { return copy }
        let folder = NSTemporaryDirectory() + "kioskd-shared-" + UUID().uuidString
        let copy = folder + "/" + URL(fileURLWithPath: path).lastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        var isFolder: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: copy, isDirectory: &isFolder)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy)
        if isFolder.boolValue {
            for name in try FileManager.default.contentsOfDirectory(atPath: copy) {
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copy + "/" + name)
            }
        }
        copies[path] = copy
        return copy
    }
}

private let sharedCopies = Mutex<[String: String]>([:])

/// Runs one of the built executables and collects its output and exit status.
func runBuilt(
    _ name: String, _ arguments: [String], as user: String? = nil, environment: [String: String] = [:]
) throws -> (status: Int32, stdout: String, stderr: String) {
    let binary = user == nil ? try builtExecutable(name) : try readableByEveryone(try builtExecutable(name))
    let process = Process()
    if let user {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(user)", "--regid=\(user == "nobody" ? "65534" : user)", "--clear-groups", binary] + arguments
    } else {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
    }
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}

let demoImages = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../demo/images").standardized.path

@Suite struct KioskdCommandTests {
    @Test func snapshotOfTheDemoWritesAPNGOfTheScreenSize() throws {
        let out = NSTemporaryDirectory() + "kioskd-cli-" + UUID().uuidString + ".png"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try kioskd(["snapshot", "--images", demoImages, "--size", "1280x800", "--out", out, "--index", "9"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.contains("wrote \(out): 1280x800 at position 9.0, 8 picture(s)"))
        let png = try readWholeFile(out, limit: 1 << 24)
        #expect(try PNGCodec.size(of: png, path: out) == PixelSize(width: 1280, height: 800))
        // --index 9 wraps to the second card (orange, EF6C00) in the centre.
        let frame = try PNGCodec.decode(png, path: out, background: .black, maximumPixels: 1 << 22)
        let centre = RGBColor(xrgb: frame[300, 400])   // inside the card, clear of its numeral
        #expect(abs(Int(centre.red) - 0xEF) <= 6 && abs(Int(centre.green) - 0x6C) <= 6 && centre.blue <= 6)
    }

    /// `--visible 1.4` on 1920x1080 (2% spacing, 38 px) is 1920 / 1.4 - 38 = 1333 px slots: the
    /// same frame as `--image-width 1333`, and not the default 70% (1344 px) one.
    @Test func snapshotWithVisibleIsTheSlotWidthItWorksOut() throws {
        func frame(_ flags: [String]) throws -> RasterImage {
            let out = NSTemporaryDirectory() + "kioskd-cli-" + UUID().uuidString + ".png"
            defer { try? FileManager.default.removeItem(atPath: out) }
            let run = try kioskd(["snapshot", "--images", demoImages, "--size", "1920x1080", "--out", out] + flags)
            #expect(run.status == 0, "stderr: \(run.stderr)")
            return try PNGCodec.decode(try readWholeFile(out, limit: 1 << 24), path: out, background: .black, maximumPixels: 1 << 22)
        }
        let visible = try frame(["--visible", "1.4"])
        #expect(try visible.pixels == (frame(["--image-width", "1333"])).pixels)
        #expect(try visible.pixels != (frame([])).pixels)
        let both = try kioskd(["snapshot", "--images", demoImages, "--size", "1920x1080", "--out", "/tmp/never.png",
                               "--visible", "1.4", "--image-width", "60%"])
        #expect(both.status == 1)
        #expect(both.stderr.contains("visible (the --visible flag) and image_width (the --image-width flag) both set the slot's width"), "\(both.stderr)")
    }

    /// Card 8 (21:9) in the centre at 1280x800: its left neighbour, card 7,
    /// is a portrait. By default (`align = "inner"`) it peeks in at the
    /// left edge; `--align centre` (the seed's rule) leaves that edge to the background.
    @Test func aPortraitNeighbourPeeksInUnlessAlignIsCentre() throws {
        func leftEdge(_ flags: [String]) throws -> RGBColor {
            let out = NSTemporaryDirectory() + "kioskd-cli-" + UUID().uuidString + ".png"
            defer { try? FileManager.default.removeItem(atPath: out) }
            let run = try kioskd(["snapshot", "--images", demoImages, "--size", "1280x800", "--out", out, "--index", "7"] + flags)
            #expect(run.status == 0, "stderr: \(run.stderr)")
            let frame = try PNGCodec.decode(try readWholeFile(out, limit: 1 << 24), path: out, background: .black, maximumPixels: 1 << 22)
            return RGBColor(xrgb: frame[60, 150])
        }
        #expect(try leftEdge([]) != .black)
        #expect(try leftEdge(["--align", "centre"]) == .black)
    }

    /// `--portrait-pairs`: two portraits named to pair share the centre
    /// slot, so the screen's middle column is the gap between them; `--index`
    /// of either file centres that slot. Without the flag a portrait fills it.
    @Test func portraitPairsFlagPutsTwoPortraitsInOneSlot() throws {
        let folder = try PictureFolder([
            (PortraitPairs.fileName("1", ext: "png", side: .left), try PNGCodec.encode(RasterImage(size: PixelSize(width: 300, height: 400), filledWith: RGBColor(xrgb: red)))),
            (PortraitPairs.fileName("2", ext: "png", side: .right), try PNGCodec.encode(RasterImage(size: PixelSize(width: 300, height: 400), filledWith: RGBColor(xrgb: blue)))),
            ("3.png", try flatPNG(green)),
        ])
        func middle(_ flags: [String]) throws -> (pixel: UInt32, stdout: String) {
            let out = NSTemporaryDirectory() + "kioskd-cli-" + UUID().uuidString + ".png"
            defer { try? FileManager.default.removeItem(atPath: out) }
            let run = try kioskd(["snapshot", "--images", folder.path, "--size", "1920x1080", "--out", out, "--background", "202020"] + flags)
            #expect(run.status == 0, "stderr: \(run.stderr)")
            let frame = try PNGCodec.decode(try readWholeFile(out, limit: 1 << 24), path: out, background: .black, maximumPixels: 1 << 22)
            return (frame[960, 540], run.stdout)
        }
        #expect(try middle([]).pixel == red)
        #expect(try middle(["--portrait-pairs"]).pixel == 0x202020)
        let second = try middle(["--portrait-pairs", "--index", "1"])
        #expect(second.pixel == 0x202020 && second.stdout.contains("at position 0.0"), "\(second.stdout)")
        #expect(try middle(["--portrait-pairs", "--index", "2"]).pixel == green)
        #expect(try middle(["--no-portrait-pairs", "--index", "1"]).pixel == blue)
    }

    /// `--zoom` and `--focus` change the picture; bad values exit 1 saying what is expected.
    @Test func snapshotZoomFlags() throws {
        func run(_ flags: [String]) throws -> (status: Int32, stderr: String, frame: RasterImage?) {
            let out = NSTemporaryDirectory() + "kioskd-cli-" + UUID().uuidString + ".png"
            defer { try? FileManager.default.removeItem(atPath: out) }
            let run = try kioskd(["snapshot", "--images", demoImages, "--size", "640x360", "--out", out] + flags)
            let frame = run.status == 0 ? try PNGCodec.decode(try readWholeFile(out, limit: 1 << 24), path: out, background: .black, maximumPixels: 1 << 22) : nil
            return (run.status, run.stderr, frame)
        }
        let plain = try run([]).frame
        let zoomed = try run(["--zoom", "2", "--focus", "0.3,0.6"])
        #expect(zoomed.status == 0 && zoomed.frame != nil && zoomed.frame != plain, "\(zoomed.stderr)")
        #expect(try run(["--zoom", "2", "--max-zoom", "1"]).frame == plain)
        let low = try run(["--zoom", "0.5"])
        #expect(low.status != 0 && low.stderr.contains("--zoom must be 1 or more"), "\(low.stderr)")
        let focus = try run(["--zoom", "2", "--focus", "1.5,0"])
        #expect(focus.status != 0 && focus.stderr.contains("--focus must be two numbers from 0 to 1"), "\(focus.stderr)")
        let maximum = try run(["--max-zoom", "9"])
        #expect(maximum.status == 1 && maximum.stderr.contains("max_zoom"), "\(maximum.stderr)")
    }

    @Test func anInvalidSlotWidthExitsOneNamingTheSetting() throws {
        let run = try kioskd(["snapshot", "--images", demoImages, "--size", "1920x1080", "--out", "/tmp/never.png",
                              "--image-width", "2000"])
        #expect(run.status == 1)
        #expect(run.stderr == "kioskd: invalid image_width \"2000\": the slot is wider than the 1920 px screen\n")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never.png"))
    }

    @Test func aBadSizeIsAUsageError() throws {
        let run = try kioskd(["snapshot", "--images", demoImages, "--size", "big", "--out", "/tmp/never.png"])
        #expect(run.status == 64)   // EX_USAGE, as swift-argument-parser reports validation errors
        #expect(run.stderr.contains("--size must be WIDTHxHEIGHT"))
    }

    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/dev/dri"), "this machine has DRM devices"))
    func withoutADisplayTheShowSaysSo() throws {
        let run = try kioskd(["--images", demoImages, "--socket", "none"])
        #expect(run.status == 1)
        #expect(run.stderr == "kioskd: no DRM display device with a connected screen in /dev/dri (is a screen plugged in and its driver loaded?)\n")
    }

    @Test func anUnwritableOutputIsAClearError() throws {
        let run = try kioskd(["snapshot", "--images", demoImages, "--size", "64x48", "--out", "/nonexistent/dir/x.png"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("cannot write the snapshot"))
        #expect(run.stderr.contains("No such file or directory"))
    }
}

/// The built daemon, headless, in real time: the one place the whole
/// process (flags, epoll loop, timers, worker thread, signals) runs together.
@Suite struct HeadlessDaemonTests {
    /// Starts the built kioskd headless on the demo pictures.
    final class Daemon {
        let process = Process()
        let err: Pipe
        private(set) var log = ""
        private let watchdog: DispatchWorkItem
        /// Its control socket, in a folder of its own (unless `arguments` name one).
        let socket: String

        /// Runs it as `user` when given (through setpriv, as ``runBuilt(_:_:as:)`` does),
        /// with `environment` added to the test's own.
        /// `namespace`: run in that network namespace (`ip netns exec`).
        /// `lifetime`: killed after that many seconds, so a show that never
        /// gets where a test waits for it cannot hold the run up. Generous
        /// (five minutes): under two busy loops a test with hundreds of
        /// clients took over 90 s, and this bound is only for a hang.
        init(_ arguments: [String], as user: String? = nil, namespace: String? = nil, stderr: Pipe = Pipe(), environment: [String: String] = [:],
             lifetime: Double = 300) throws {
            err = stderr
            let folder = NSTemporaryDirectory() + "kioskd-test-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            socket = arguments.firstIndex(of: "--socket").map { arguments[$0 + 1] } ?? folder + "/control.sock"
            // Another user runs copies it can read wherever the clone lives.
            let binary = user == nil ? try builtExecutable("kioskd") : try readableByEveryone(try builtExecutable("kioskd"))
            let images = user == nil ? demoImages : try readableByEveryone(demoImages)
            let kioskdArguments = ["--display", "headless", "--size", "320x180", "--verbose"]
                + (arguments.contains("--images") || arguments.contains("--config") ? [] : ["--images", images])
                + (arguments.contains("--socket") ? [] : ["--socket", socket])
                // The machine's own state directory is never the tests' (a run would resume where another left off).
                + (arguments.contains("--state-dir") || arguments.contains("--config") ? [] : ["--state-dir", "none"]) + arguments
            if let user {
                process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
                process.arguments = ["--reuid=\(user)", "--regid=65534", "--clear-groups", binary] + kioskdArguments
            } else if let namespace {
                process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
                process.arguments = ["netns", "exec", namespace, binary] + kioskdArguments
            } else {
                process.executableURL = URL(fileURLWithPath: binary)
                process.arguments = kioskdArguments
            }
            process.standardError = err
            if !environment.isEmpty {
                process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            }
            try process.run()
            // A show that never got there would leave reads waiting: kill it
            // after its lifetime, and the expectations fail.
            watchdog = DispatchWorkItem { [process] in if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            DispatchQueue.global().asyncAfter(deadline: .now() + lifetime, execute: watchdog)
        }

        /// Reads the log as it comes until it contains `text` (`times` times).
        func waitFor(_ text: String, times: Int = 1) {
            while log.components(separatedBy: text).count <= times, process.isRunning {
                log += String(decoding: err.fileHandleForReading.availableData, as: UTF8.self)
            }
        }

        func signal(_ number: Int32) { kill(process.processIdentifier, number) }

        /// SIGTERM, then the rest of the log and the exit.
        func stop() -> [Substring] {
            process.terminate()
            log += String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            watchdog.cancel()
            #expect(process.terminationReason == .exit && process.terminationStatus == 0, "log: \(log)")
            return log.split(separator: "\n")
        }
    }

    @Test func theHeadlessShowAdvancesByItselfAndStopsCleanlyOnSIGTERM() throws {
        let daemon = try Daemon(["--interval", "0.2", "--transition", "0.15", "--easing", "ease-out"])
        daemon.waitFor("picture 2 in the centre")
        let lines = daemon.stop()
        #expect(lines.first == "kioskd: showing on headless 320x180 at 60 Hz, rotation 0")
        #expect(daemon.log.contains("kioskd: picture 1 in the centre: \(demoImages)/02.jpg\n"))
        #expect(daemon.log.contains("kioskd: picture 2 in the centre: \(demoImages)/03.jpg\n"))
        let stop = try #require(lines.last)
        #expect(stop.hasPrefix("kioskd: stopping on SIGTERM after ") && stop.hasSuffix("; bye"), "\(stop)")
    }

    /// A frame is due every 16.7 ms whatever else the machine does: the
    /// display loop's thread runs ahead of ordinary threads when it may
    /// (root here), and the threads it starts do not: the PNG encoder and
    /// the clip decoder (a clip's frames are due in real time) are
    /// ordinary, the stills' decode worker lower still (`SCHED_BATCH`, nice 19).
    @Test func theDisplayLoopRunsAheadOfDecodingWhenPermitted() throws {
        let daemon = try Daemon(["--interval", "600", "--socket", "none"])
        daemon.waitFor("picture(s), picture 0 in the centre")
        defer { _ = daemon.stop() }
        #expect(daemon.log.contains("kioskd: display loop: real-time priority (SCHED_FIFO 1)"), "\(daemon.log)")
        let pid = daemon.process.processIdentifier
        let resetOnFork: Int32 = 0x4000_0000
        #expect(sched_getscheduler(pid) & ~resetOnFork == SCHED_FIFO)
        let others = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").compactMap(Int32.init).filter { $0 != pid }
        #expect(!others.isEmpty)
        let batch: Int32 = 3   // SCHED_BATCH, a GNU extension Glibc's module leaves out
        let policies = others.map { sched_getscheduler($0) }
        #expect(policies.allSatisfy { $0 == SCHED_OTHER || $0 == batch }, "\(policies)")
        let decoders = others.filter { sched_getscheduler($0) == batch }
        #expect(decoders.count == 1, "\(policies)")
        #expect(decoders.allSatisfy { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t($0)) == 19 })
    }

    /// Without the right to it (an ordinary user, no LimitRTPRIO), the show runs all the same and says why.
    @Test func withoutRealTimeRightsTheShowRunsAtOrdinaryPriority() throws {
        let daemon = try Daemon(["--interval", "600", "--socket", "none"], as: "nobody")
        daemon.waitFor("picture(s), picture 0 in the centre")
        let lines = daemon.stop()
        #expect(lines.contains { $0.hasPrefix("kioskd: display loop: ordinary priority (real-time priority not permitted: sched_setscheduler failed: Operation not permitted") }, "\(daemon.log)")
        #expect(lines.contains("kioskd: showing 8 picture(s), picture 0 in the centre"), "\(daemon.log)")
    }

    /// SIGUSR1 is `next`, SIGUSR2 `prev`. Five quick nexts carry the strip
    /// five pictures in one continuous movement: it comes to rest only on
    /// the fifth. Then next-and-prev turns round and settles back there.
    /// (The signals come 60 ms apart, the slides take 2 s: a busy machine
    /// would have to hold the test up for over a second to split a movement.)
    @Test func quickNextsMoveFivePicturesWithoutStoppingOnTheWay() throws {
        let daemon = try Daemon(["--interval", "600", "--transition", "2"])
        daemon.waitFor("picture(s), picture 0 in the centre")
        for _ in 0..<5 {
            daemon.signal(SIGUSR1)
            usleep(60_000)
        }
        daemon.waitFor("picture 5 in the centre: ")
        daemon.signal(SIGUSR1)
        usleep(60_000)
        daemon.signal(SIGUSR2)
        daemon.waitFor("picture 5 in the centre: ", times: 2)
        let lines = daemon.stop()
        let rests = lines.filter { $0.contains(" in the centre: ") }
        #expect(rests == ["kioskd: picture 5 in the centre: \(demoImages)/06.jpg",
                          "kioskd: picture 5 in the centre: \(demoImages)/06.jpg"], "\(daemon.log)")
        #expect(lines.last?.hasPrefix("kioskd: stopping on SIGTERM after 7 slide(s), ") == true, "\(daemon.log)")
    }

    @Test(arguments: [
        (["--display", "hdmi"], "kioskd: invalid display \"hdmi\": expected drm or headless\n"),
        (["--display", "headless", "--size", "99999x10"], "kioskd: invalid size \"99999x10\": expected WIDTHxHEIGHT up to 8192x8192, e.g. \"1280x720\"\n"),
        (["--display", "headless", "--interval", "0"], "kioskd: invalid interval \"0\": expected seconds from 0.1 to 86400, e.g. 8 or 0.45\n"),
        (["--display", "headless", "--easing", "bounce"], "kioskd: invalid easing \"bounce\": expected linear, ease-in-out or ease-out\n"),
    ])
    func badShowSettingsExitOneNamingTheSetting(arguments: [String], message: String) throws {
        let run = try kioskd(["--images", demoImages, "--socket", "none"] + arguments)
        #expect(run.status == 1)
        #expect(run.stderr == message)
    }
}
