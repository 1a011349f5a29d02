import ArgumentParser
import ControlClient
import KioskCore
import SystemCalls
// JSONDecoder for kioskd's replies: FoundationEssentials, which
// swift-argument-parser links already; Foundation (and ICU with it) not.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `kioskctl`: drives a running kioskd through its control socket. Each
/// subcommand is one line of the protocol (docs/control-protocol.md).
///
/// Exit status: 0 when kioskd did it; 1 when kioskd refused (its reason
/// is printed); 2 when kioskd could not be reached (not running, not
/// allowed, no answer in time); 64 for a command line kioskctl cannot parse.
@main
struct Kioskctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kioskctl",
        abstract: "Drive a running kioskd: move the show, pause it, ask what it shows, take a screenshot.",
        discussion: """
            Talks to kioskd's control socket (root and the socket's group may use it). \
            Exit status: 0 done, 1 kioskd refused (its reason is printed), 2 kioskd not reachable, 64 bad usage.
            """,
        version: KioskVersion.current,
        subcommands: [
            Next.self, Prev.self, Goto.self, Pause.self, Resume.self, Status.self, Screenshot.self, Pictures.self, Thumbnail.self, Watch.self,
            Reload.self, Set.self, Unset.self, Settings.self, Display.self, Message.self,
        ])

    /// The connection options may come before the subcommand too
    /// (`kioskctl --socket /tmp/k.sock status`): they are moved after it.
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        var leading: [String] = []
        while let first = arguments.first, ["--socket", "--timeout", "--json"].contains(where: { first == $0 || first.hasPrefix($0 + "=") }) {
            leading.append(arguments.removeFirst())
            if !first.contains("="), first != "--json", !arguments.isEmpty { leading.append(arguments.removeFirst()) }
        }
        if let command = arguments.first, !command.hasPrefix("-") {
            arguments.insert(contentsOf: leading, at: 1)
        } else {
            arguments = leading + arguments
        }
        main(arguments)
    }
}

/// The options every subcommand takes.
struct ConnectionOptions: ParsableArguments {
    @Option(help: ArgumentHelp("kioskd's control socket.", valueName: "path"))
    var socket = ControlSettings.defaultSocket

    @Flag(help: "Print kioskd's replies as they are (one JSON object per line), for scripts.")
    var json = false

    @Option(help: ArgumentHelp("Seconds to wait for kioskd's answer.", valueName: "s"))
    var timeout: Double = 5

    func validate() throws {
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a number of seconds above 0") }
    }

    func connect(timeout: Double?? = nil) -> ControlConnection {
        do { return try ControlConnection(path: socket, timeout: timeout ?? self.timeout) } catch { unreachable(error) }
    }

    /// Sends `request`; returns the reply if it is a success, else exits 1 with kioskd's reason.
    @discardableResult
    func request(_ request: ControlRequest, on connection: ControlConnection? = nil) -> JSONObject {
        self.request(line: request.line, on: connection)
    }

    /// Sends the line `command`, as ``request(_:on:)`` does.
    @discardableResult
    func request(line command: String, on connection: ControlConnection? = nil) -> JSONObject {
        let connection = connection ?? connect()
        let line: [UInt8]
        do { line = try connection.request(command) } catch { unreachable(error) }
        if json { print(String(decoding: line, as: UTF8.self)) }
        let reply = parseReply(line)
        guard reply["ok"]?.bool == true else {
            if !json { complain(reply["error"]?.string ?? "kioskd refused") }
            quit(1)
        }
        return reply
    }
}

func parseReply(_ line: [UInt8]) -> JSONObject {
    guard let object = (try? JSONDecoder().decode(JSONValue.self, from: Data(line)))?.object else {
        complain("kioskd sent something that is not a JSON object: \(String(decoding: line.prefix(200), as: UTF8.self))")
        quit(2)
    }
    return object
}

func complain(_ message: String) {
    let line = Array("kioskctl: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// Ends kioskctl with `status` (what was printed is flushed first).
func quit(_ status: Int32) -> Never { Glibc.exit(status) }

func unreachable(_ error: ControlClientError) -> Never {
    complain(error.description)
    quit(2)
}

/// "picture 3: 04.jpg" for a reply or event with `index` and `file`.
func pictureLine(_ object: JSONObject) -> String {
    guard let index = object["index"]?.int else { return "no picture (the playlist is empty)" }
    return "picture \(index): \(object["file"]?.string ?? "?")"
}

struct Next: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: ControlRequest.summary(of: "next"))
    @Argument(help: ArgumentHelp(ControlRequest.help(of: "next", argument: "count"))) var count: Int = 1
    @OptionGroup var options: ConnectionOptions

    func run() {
        let reply = options.request(.next(count))
        if !options.json { print("moving to \(pictureLine(reply))") }
    }
}

struct Prev: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: ControlRequest.summary(of: "prev"))
    @Argument(help: ArgumentHelp(ControlRequest.help(of: "prev", argument: "count"))) var count: Int = 1
    @OptionGroup var options: ConnectionOptions

    func run() {
        let reply = options.request(.previous(count))
        if !options.json { print("moving to \(pictureLine(reply))") }
    }
}

struct Goto: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: ControlRequest.summary(of: "goto"))
    @Argument(help: ArgumentHelp(ControlRequest.help(of: "goto", argument: "index-or-name"), valueName: "index-or-name"))
    var picture: String
    @OptionGroup var options: ConnectionOptions

    func validate() throws {
        guard !picture.contains("\n") else { throw ValidationError("the picture cannot contain a line break") }
    }

    func run() {
        // kioskd reads whether it is an index or a name, as from any client.
        let reply = options.request(line: "goto \(picture)")
        if !options.json { print("moving to \(pictureLine(reply))") }
    }
}

struct Pause: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: ControlRequest.summary(of: "pause"))
    @OptionGroup var options: ConnectionOptions

    func run() {
        options.request(.pause)
        if !options.json { print("paused") }
    }
}

struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: ControlRequest.summary(of: "resume"))
    @OptionGroup var options: ConnectionOptions

    func run() {
        options.request(.resume)
        if !options.json { print("resumed") }
    }
}

struct Reload: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: ControlRequest.summary(of: "reload"))
    @OptionGroup var options: ConnectionOptions

    func run() {
        let reply = options.request(.reload)
        guard !options.json else { return }
        let changed = reply["changed"]?.strings ?? []
        print(changed.isEmpty ? "reloaded: nothing changed" : "reloaded: " + changed.joined(separator: ", "))
        if let restart = reply["restart_needed"]?.strings, !restart.isEmpty {
            print("takes effect when kioskd restarts: " + restart.joined(separator: ", "))
        }
    }
}

struct Set: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: ControlRequest.summary(of: "set"))
    @OptionGroup var options: ConnectionOptions
    @Argument(help: ArgumentHelp(ControlRequest.help(of: "set", argument: "setting"))) var setting: String
    @Argument(help: ArgumentHelp(ControlRequest.help(of: "set", argument: "value"))) var value: String

    func run() {
        let reply = options.request(.set(setting: setting, value: value))
        guard !options.json else { return }
        let changed = reply["changed"]?.strings ?? []
        print((changed.isEmpty ? "set: nothing changed" : "set: " + changed.joined(separator: ", "))
            + (reply["kept"]?.bool == true ? "" : " (until kioskd restarts: it has no state directory)"))
    }
}

struct Unset: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: ControlRequest.summary(of: "unset"))
    @OptionGroup var options: ConnectionOptions
    @Argument(help: ArgumentHelp(ControlRequest.help(of: "unset", argument: "setting"))) var setting: String

    func run() {
        let reply = options.request(.unset(setting: setting))
        guard !options.json else { return }
        let changed = reply["changed"]?.strings ?? []
        print(changed.isEmpty ? "unset: nothing changed" : "unset: " + changed.joined(separator: ", "))
    }
}

struct Display: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: ControlRequest.summary(of: "display"))
    @Argument(help: ArgumentHelp(ControlRequest.help(of: "display", argument: "state"), valueName: "state")) var state: PowerRequest
    @Argument(help: ArgumentHelp(ControlRequest.help(of: "display", argument: "brightness"), valueName: "brightness")) var brightness: Int?
    @OptionGroup var options: ConnectionOptions

    func validate() throws {
        guard brightness == nil || state == .on else { throw ValidationError("only display on takes a brightness") }
    }

    func run() {
        let reply = options.request(.display(state, brightness: brightness))
        if !options.json {
            print("display \(reply["panel"]?.string ?? "?") (asked: \(reply["display_power"]?.string ?? "?"))")
        }
    }
}

extension PowerRequest: ExpressibleByArgument {}

struct Message: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: ControlRequest.summary(of: "message"), discussion: "\\n in the text is a line break. A new message replaces the one shown.")
    @Argument(help: ArgumentHelp(ControlRequest.help(of: "message", argument: "text"), valueName: "text")) var text: String?
    @Option(name: .customLong("for"), help: ArgumentHelp(ControlRequest.help(of: "message", argument: "time"), valueName: "time"))
    var duration: String?
    @Flag(help: "Take the message away.") var clear = false
    @OptionGroup var options: ConnectionOptions

    func validate() throws {
        if clear {
            guard text == nil, duration == nil else { throw ValidationError("--clear takes no text and no --for") }
            return
        }
        guard let text, !text.isEmpty else { throw ValidationError("give the words to show, or --clear") }
        guard !text.contains("\n") else { throw ValidationError("the text is one line: write \\n for a line break") }
        if let duration, DurationText.seconds(in: duration) == nil {
            throw ValidationError("--for takes 90s, 10m or 2h, from 1 second to 24 hours (got \"\(duration)\")")
        }
    }

    func run() {
        let request: ControlRequest = clear ? .message(.clear) : .message(.show(text!, seconds: duration.flatMap(DurationText.seconds(in:))))
        let reply = options.request(request)
        guard !options.json else { return }
        switch (reply["message"]?.string, reply["expires_in_s"]?.number) {
        case (let shown?, let seconds?): print("showing \"\(shown)\" for \(Int(seconds)) s")
        case (let shown?, nil): print("showing \"\(shown)\" until cleared")
        default: print("no message")
        }
    }
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: ControlRequest.summary(of: "status"))
    @OptionGroup var options: ConnectionOptions

    func run() {
        let reply = options.request(.status)
        guard !options.json else { return }
        let display = reply["display"]?.object ?? [:]
        let screen = display["driver"]?.string == "headless"
            ? "headless \(display["size"]?.string ?? "")"
            : ["driver", "connector", "mode"].compactMap { display[$0]?.string }.joined(separator: " ")
        let state = (reply["paused"]?.bool == true ? "paused" : "playing")
            + (reply["moving"]?.bool == true ? ", sliding" : ", at rest")
        func number(_ key: String) -> String {
            switch reply[key] {
            case .int(let value)?: "\(value)"
            case .double(let value)?: "\(value)"
            default: "?"
            }
        }
        func mebibytes(_ key: String) -> String {
            let tenths = Int(((reply[key]?.number ?? 0) / 1_048_576 * 10).rounded())
            return "\(tenths / 10).\(tenths % 10) MiB"
        }
        print("""
            picture   \(number("index")) of \(number("count")): \(reply["file"]?.string ?? "none") (strip at \(number("position")))
            state     \(state); a slide every \(number("interval")) s, each \(number("transition")) s
            display   \(screen); \(reply["panel"]?.string ?? "?") (asked: \(reply["display_power"]?.string ?? "?"))
            running   \(number("uptime_s")) s: \(number("frames_shown")) frames shown, \(number("refreshes_missed")) refreshes missed, \(number("slides")) slides
            cache     \(mebibytes("cache_bytes")) of \(mebibytes("cache_budget_bytes"))
            version   \(reply["version"]?.string ?? "?")
            """)
    }
}

struct Screenshot: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: ControlRequest.summary(of: "screenshot"))
    @Argument(help: ArgumentHelp("Where to save it.", valueName: "file.png")) var file: String
    @Flag(help: ArgumentHelp(ControlRequest.help(of: "screenshot", argument: "format"))) var jpeg = false
    @OptionGroup var options: ConnectionOptions

    func run() {
        let connection = options.connect()
        let format: ScreenshotFormat = jpeg ? .jpeg : .png
        let reply = options.request(.screenshot(format), on: connection)
        let picture = readPicture(after: reply, key: "\(format.rawValue)_bytes", on: connection)
        save(picture, to: file)
        if !options.json {
            print("saved \(file): \(reply["width"]?.int ?? 0)x\(reply["height"]?.int ?? 0), \(picture.count) bytes, \(pictureLine(reply))")
        }
    }
}

struct Pictures: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: ControlRequest.summary(of: "pictures"))
    @Argument(help: ArgumentHelp(ControlRequest.help(of: "pictures", argument: "from"))) var from: Int = 0
    @Argument(help: ArgumentHelp(ControlRequest.help(of: "pictures", argument: "count"))) var count: Int = PictureListing.defaultCount
    @OptionGroup var options: ConnectionOptions

    func run() {
        let reply = options.request(line: "pictures \(from) \(count)")
        guard !options.json else { return }
        for case .object(let item) in reply["pictures"]?.array ?? [] {
            let kind = item["kind"]?.string.map { $0 == "folder" ? "" : "  (\($0))" } ?? ""
            print("\(item["index"]?.int ?? 0)\t\(item["name"]?.string ?? "?")\(kind)")
        }
    }
}

struct Thumbnail: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: ControlRequest.summary(of: "thumbnail"))
    @Argument(help: ArgumentHelp(ControlRequest.help(of: "thumbnail", argument: "index"))) var index: Int
    @Argument(help: ArgumentHelp("Where to save it.", valueName: "file.jpg")) var file: String
    @OptionGroup var options: ConnectionOptions

    func run() {
        let connection = options.connect()
        let reply = options.request(line: "thumbnail \(index)", on: connection)
        let jpeg = readPicture(after: reply, key: "jpeg_bytes", on: connection)
        save(jpeg, to: file)
        if !options.json { print("saved \(file): \(reply["width"]?.int ?? 0)x\(reply["height"]?.int ?? 0), \(jpeg.count) bytes, \(pictureLine(reply))") }
    }
}

struct Settings: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: ControlRequest.summary(of: "settings"))
    @OptionGroup var options: ConnectionOptions

    func run() {
        let reply = options.request(.settings)
        guard !options.json else { return }
        for case .object(let setting) in reply["settings"]?.array ?? [] {
            let value = setting["value"]?.string ?? "(none)"
            print("\(setting["name"]?.string ?? "?") = \(value)" + (setting["set"]?.bool == true ? "  (set)" : ""))
        }
    }
}

/// The bytes a picture's reply line announces under `key`, read after it.
func readPicture(after reply: JSONObject, key: String, on connection: ControlConnection) -> [UInt8] {
    guard let count = reply[key]?.int, count >= 0 else {
        complain("kioskd's reply has no \(key)")
        quit(2)
    }
    do { return try connection.read(count: count) } catch { unreachable(error) }
}

/// Writes `bytes` to `path` (made, or emptied first), as the user who runs kioskctl; exits 1 when it cannot.
func save(_ bytes: [UInt8], to path: String) {
    do throws(SystemCallError) {
        let file = try FileDescriptor(opening: path, flags: O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o644)
        try file.write(all: bytes)
        try file.close()
    } catch {
        complain("cannot write \(path): \(error.reason)")
        quit(1)
    }
}

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: ControlRequest.summary(of: "watch"))
    @OptionGroup var options: ConnectionOptions

    func run() {
        let connection = options.connect()
        options.request(.watch, on: connection)
        connection.timeout = nil
        // Each event at once, also into a pipe (where standard output is buffered).
        fflush(nil)
        func show(_ text: String) {
            let line = Array((text + "\n").utf8)
            _ = line.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        }
        while true {
            let line: [UInt8]
            do { line = try connection.readLine() } catch { unreachable(error) }
            if options.json {
                show(String(decoding: line, as: UTF8.self))
                continue
            }
            let event = parseReply(line)
            switch event["event"]?.string {
            case "picture": show(pictureLine(event))
            case "pause": show("paused")
            case "resume": show("resumed")
            case "playlist": show("playlist: \(event["count"]?.int ?? 0) pictures")
            case "folder_gone": show("picture folder gone")
            case "folder_back": show("picture folder back: \(event["count"]?.int ?? 0) pictures")
            case "display_lost": show("display lost: \(event["reason"]?.string ?? "")")
            case "display_back": show("display back")
            case "panel": show("panel \(event["panel"]?.string ?? "?")")
            default: show(String(decoding: line, as: UTF8.self))
            }
        }
    }
}
