import ArgumentParser
import ControlClient
import Foundation
import KioskCore
import WebServerSupport

#if canImport(Glibc)
import Glibc
#endif

/// The web page's figures, on the release `kioskd` and `kioskd-web` beside
/// this program (`make bench` builds them, as `make install` does), for a
/// headless kioskd on a folder of 10 of the benchmark's photos:
///
/// - `web_page_kb`: the page's HTML, CSS and JavaScript as served,
///   uncompressed (target <= 100 KB).
/// - `web_idle_rss_mb`: kioskd-web's resident memory once it serves,
///   before anyone logs in, and again after a login and an upload, when it
///   has settled (target <= 15 MB: in MiB, as `peak_rss_mb`).
/// - `web_login_peak_rss_mb`: its peak (`VmHWM`) after a login, with the
///   Argon2id limits the password's hash carries (printed).
/// - `web_upload_to_playlist_ms`: from the last byte of a 24 Mpx photo's
///   upload (about 5 MB) leaving this process to kioskd's `playlist` event
///   for it on a `watch` connection: the median of 5 (target <= 1,500).
struct WebFigures: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "web", abstract: "Print the web page's figures.")

    @Argument(help: "A folder of the benchmark's 24 Mpx photos (11 at least); when not given, 12 are made in --folder.")
    var photos: String?
    @Option var folder = ".build/bench-pictures"
    @Option var uploads = 5
    @Option(help: "The page's files (the repository's web/).")
    var page = "web"

    func run() throws {
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let bin = String(exe[..<(exe.lastIndex(of: "/") ?? exe.startIndex)])
        for program in ["kioskd", "kioskd-web"] where access(bin + "/" + program, X_OK) != 0 {
            throw ValidationError("no \(bin)/\(program): build it with `swift build -c release --static-swift-stdlib --product \(program)`")
        }
        // A connection kioskd-web closes early is an error here, not a SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let dir = NSTemporaryDirectory() + "kioskd-bench-web-\(getpid())"
        let pictures = dir + "/pictures"
        try FileManager.default.createDirectory(atPath: pictures, withIntermediateDirectories: true)
        defer { _ = try? FileManager.default.removeItem(atPath: dir) }
        let photos = URL(fileURLWithPath: try photos ?? generatePhotos(count: 12, in: folder)).standardizedFileURL.path
        let names = try FileManager.default.contentsOfDirectory(atPath: photos).filter { $0.hasSuffix(".jpg") }.sorted()
        for name in names.prefix(10) { link(photos + "/" + name, pictures + "/" + name) }
        let photo = Array(try Data(contentsOf: URL(fileURLWithPath: photos + "/" + names[10])))

        // The password's hash, made by kioskd-web as an operator makes it.
        let password = "bench password"
        let hash = try output(of: bin + "/kioskd-web", ["hash-password"], input: password + "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        try hash.write(toFile: dir + "/web-password", atomically: true, encoding: .utf8)
        let socket = dir + "/control.sock"
        try """
            images = "\(pictures)"
            socket = "\(socket)"
            state_dir = "none"
            interval = 600

            [web]
            listen = "127.0.0.1:8080"
            password_file = "\(dir)/web-password"
            upload_max = "50MB"
            """.write(toFile: dir + "/kiosk.toml", atomically: true, encoding: .utf8)

        let kioskd = Process()
        kioskd.executableURL = URL(fileURLWithPath: bin + "/kioskd")
        kioskd.arguments = ["show", "--config", dir + "/kiosk.toml", "--display", "headless"]
        kioskd.standardError = FileHandle.nullDevice
        try kioskd.run()
        defer { kioskd.terminate(); kioskd.waitUntilExit() }
        _ = try waitForSocket(socket)

        let page = URL(fileURLWithPath: page).standardizedFileURL.path
        let web = Process()
        web.executableURL = URL(fileURLWithPath: bin + "/kioskd-web")
        // A free port (the config's must name one).
        web.arguments = ["--config", dir + "/kiosk.toml", "--page", page, "--listen", "127.0.0.1:0"]
        let log = Pipe()
        web.standardError = log
        try web.run()
        defer { web.terminate(); web.waitUntilExit() }
        var said = ""
        while web.isRunning, !said.contains("serving the page on http://127.0.0.1:") || !said.hasSuffix("\n") {
            said += String(decoding: log.fileHandleForReading.availableData, as: UTF8.self)
        }
        guard let range = said.range(of: "http://127.0.0.1:"), let port = Int(said[range.upperBound...].prefix { $0.isNumber }) else {
            throw ValidationError("kioskd-web did not start: \(said)")
        }
        // Its own log is read on, so it never blocks on a full pipe.
        log.fileHandleForReading.readabilityHandler = { _ = $0.availableData }

        let files = try FileManager.default.contentsOfDirectory(atPath: page).filter { [".html", ".css", ".js"].contains(where: $0.hasSuffix) }.sorted()
        let weight = try files.reduce(0) { $0 + (try FileManager.default.attributesOfItem(atPath: page + "/" + $1)[.size] as? Int ?? 0) }
        print("web_page_kb \(format(Double(weight) / 1024)) KB (\(files.joined(separator: ", ")), uncompressed, as served; target <= 100)")

        usleep(3_000_000)
        let idle = procStatus(web.processIdentifier)
        print("web_idle_rss_mb \(format(Double(idle["VmRSS"] ?? 0) / 1024)) MB (kioskd-web serving, nobody logged in; target <= 15)")

        let login = try RawHTTPAnswer.ask(port: port, method: "POST", path: "/login", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                          body: Array("password=\(password.replacingOccurrences(of: " ", with: "+"))".utf8))
        guard login.status == 303, let cookie = login.header("Set-Cookie")?.split(separator: ";").first else {
            throw ValidationError("the login failed: \(login.status)")
        }
        let limits = hash.split(separator: "$").first { $0.hasPrefix("m=") } ?? "?"
        let afterLogin = procStatus(web.processIdentifier)
        print("web_login_peak_rss_mb \(format(Double(afterLogin["VmHWM"] ?? 0) / 1024)) MB (kioskd-web's peak after a login: Argon2id \(limits), "
            + "m in KiB; \(format(Double(afterLogin["VmRSS"] ?? 0) / 1024)) MB resident after it)")
        let session = try RawHTTPAnswer.ask(port: port, method: "GET", path: "/api/session", headers: [("Cookie", String(cookie))])
        guard let csrf = (try JSONSerialization.jsonObject(with: Data(session.body)) as? [String: Any])?["csrf"] as? String else {
            throw ValidationError("no CSRF token: \(session.status)")
        }

        // kioskd's events, each stamped as it arrives, on a thread of its own.
        let watch = try ControlConnection(path: socket, timeout: 30)
        _ = try watch.request("watch")
        watch.timeout = nil
        let events = EventTimes(watch)
        Thread.detachNewThread { events.follow() }
        var times: [Double] = [], answers: [Double] = []
        for n in 0..<uploads {
            let boundary = "----kioskd-bench-\(n)"
            let body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"upload-\(n).jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
                + photo + Array("\r\n--\(boundary)--\r\n".utf8)
            let before = events.count
            let answer = try RawHTTPAnswer.ask(port: port, method: "POST", path: "/api/upload", headers: [
                ("Cookie", String(cookie)), ("X-CSRF-Token", csrf), ("Content-Type", "multipart/form-data; boundary=\(boundary)"),
            ], body: body)
            guard answer.status == 200 else { throw ValidationError("upload \(n): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))") }
            guard let arrived = events.first(after: before, containing: #""event":"playlist""#, within: 30) else {
                throw ValidationError("upload \(n): no playlist event within 30 s")
            }
            times.append((arrived - answer.sentAt) * 1000)
            answers.append((answer.answeredAt - answer.sentAt) * 1000)
            usleep(300_000)
        }
        print("web_upload_to_playlist_ms \(format(median(times))) ms (a \(format(Double(photo.count) / 1_048_576)) MB 24 Mpx photo: its upload's last byte "
            + "to kioskd's playlist event, the median of \(uploads); slowest \(format(times.max()!)); kioskd-web's answer after "
            + "\(format(median(answers))) ms; target <= 1500)")
        usleep(3_000_000)
        let settled = procStatus(web.processIdentifier)
        print("web_idle_rss_after_use_mb \(format(Double(settled["VmRSS"] ?? 0) / 1024)) MB (kioskd-web 3 s after a login and \(uploads) uploads)")
    }

    /// A connection to kioskd's socket once it listens (at most 30 s).
    private func waitForSocket(_ path: String) throws -> ControlConnection {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let connection = try? ControlConnection(path: path, timeout: 30) { return connection }
            usleep(50_000)
        }
        throw ValidationError("kioskd's control socket \(path) did not appear within 30 s")
    }

    private func output(of program: String, _ arguments: [String], input: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: out, as: UTF8.self)
    }
}

/// Lines from kioskd's `watch`, each with when it arrived.
/// (The connection is read by the following thread alone.)
private final class EventTimes: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [(text: String, at: Double)] = []
    private let watch: ControlConnection

    init(_ watch: ControlConnection) { self.watch = watch }

    /// Reads the events until the connection ends.
    func follow() {
        while let line = try? watch.readLine() {
            let at = monotonicSeconds()
            lock.withLock { lines.append((String(decoding: line, as: UTF8.self), at)) }
        }
    }

    var count: Int { lock.withLock { lines.count } }

    /// When the first line after the first `after` holding `text` arrived, waiting at most `seconds`.
    func first(after: Int, containing text: String, within seconds: Double) -> Double? {
        let deadline = monotonicSeconds() + seconds
        while monotonicSeconds() < deadline {
            if let found = lock.withLock({ lines.dropFirst(after).first { $0.text.contains(text) } }) { return found.at }
            usleep(1000)
        }
        return nil
    }
}
