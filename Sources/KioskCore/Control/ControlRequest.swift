/// A command on the control socket, parsed: one line of text, one request.
///
/// The protocol (docs/control-protocol.md): a command word, case-insensitive,
/// then its arguments, separated by spaces. Every malformed line gets a
/// ``ControlRequestError`` whose message is the one sentence the client
/// reads: what was wrong, and what is accepted.
public enum ControlRequest: Equatable, Sendable {
    /// Move `n` pictures forward (1 to 1000); quick repeats join one movement.
    case next(Int)
    /// Move `n` pictures back.
    case previous(Int)
    case goto(GotoTarget)
    case pause
    case resume
    case status
    /// The frame on screen as a PNG (or the small JPEG MQTT publishes), sent after the reply line.
    case screenshot(ScreenshotFormat = .png)
    /// Events from now on, one JSON line each, until the client hangs up.
    case watch
    /// The playlist, a page at a time: at most `count` items from item
    /// `from`, each with the library it comes from (``PictureListing``).
    case pictures(from: Int, count: Int)
    /// A playlist item's picture, small (``PictureListing/thumbnailSize``),
    /// as a JPEG sent after the reply line: the web page's list.
    case thumbnail(Int)
    /// The settings in force, each with whether `set` set it and whether `set` takes it.
    case settings
    /// Read the config file again and apply it (as SIGHUP does).
    case reload
    /// Switch the display off or on, or back to the schedule (`display
    /// off|on|auto`); `display on 40` also sets `brightness` to 40 (Home
    /// Assistant's light turned on at a level: one line does both).
    case display(PowerRequest, brightness: Int? = nil)
    /// Change one setting the show applies at once (`set interval 12`,
    /// `set order shuffle`): its name as the config file spells it, and
    /// its value as its flag takes it. It is kept in the state directory's
    /// overrides, over the config file, across reloads and restarts.
    case set(setting: String, value: String)
    /// Take `set`'s value for a setting away (`unset interval`): the config
    /// file's, or the flag's, is in force again.
    case unset(setting: String)
    /// Show a banner over everything (`message [--for 10m] Closing in 15
    /// minutes`) until it expires or is cleared (`message --clear`).
    case message(MessageRequest)
    /// Hold the strip still at a position in slots (`hold 2.5`) until
    /// `resume`: a test command, answered only by a daemon started with
    /// `--test-commands` (not in ``commands``).
    case hold(Double)

    /// Answered with a picture's bytes after the reply line, made off the show's loop.
    public var isPicture: Bool {
        switch self {
        case .screenshot, .thumbnail: true
        default: false
        }
    }

    /// The most bytes a message's text may have.
    public static let maximumMessageBytes = 1000

    /// The commands for error messages: `next, prev, ...`.
    static let commandList = commands.joined(separator: ", ")

    /// The most pictures one `next n` or `prev n` moves.
    public static let maximumSteps = 1000
}

/// What `message` asks: a banner's words (`\n` in them is a line break) and
/// how long it stays (nil: until cleared), or that it goes.
public enum MessageRequest: Equatable, Sendable {
    case show(String, seconds: Double?)
    case clear
}

/// Where `goto` goes: a playlist index, or a file's name in the picture folder.
public enum GotoTarget: Equatable, Sendable {
    case index(Int)
    /// A name as listed in the folder (`IMG_0042.jpg`), never a path.
    case file(String)
}

/// Why a line is not a request: the sentence the client gets back.
public struct ControlRequestError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension ControlRequest {
    /// Parses one line (without its `\n`; a trailing `\r` from a telnet-like
    /// client is ignored).
    public init(parsing line: String) throws(ControlRequestError) {
        var text = Substring(line)
        if text.last == "\r" { text = text.dropLast() }
        text = text.drop { $0 == " " || $0 == "\t" }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        let word = text.prefix { $0 != " " && $0 != "\t" }
        let rest = String(text.dropFirst(word.count).drop { $0 == " " || $0 == "\t" })
        let known = Self.commandList
        guard !word.isEmpty else { throw ControlRequestError("empty line: send one command per line, one of \(known)") }
        guard let command = Self.commandsByName[word.lowercased()] else {
            throw ControlRequestError("unknown command \"\(Self.quoted(word))\": the commands are \(known)")
        }
        self = try command.parse(rest)
    }

    /// `--clear`, or `[--for DURATION] TEXT`: DURATION as `90s`, `10m`, `2h` or seconds, 1 second to 24 hours.
    static func message(_ rest: String) throws(ControlRequestError) -> MessageRequest {
        let usage = "message takes the words to show, after --for and how long if it should go by itself (\"message --for 10m Closing soon\"), or --clear"
        if rest == "--clear" { return .clear }
        var text = Substring(rest)
        var seconds: Double?
        if text.hasPrefix("--for") {
            let words = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            guard words.count == 3, words[0] == "--for", let duration = DurationText.seconds(in: words[1]) else {
                throw ControlRequestError("\(usage); --for takes 90s, 10m or 2h (1 second to 24 hours), got \"\(quoted(rest.prefix(80)))\"")
            }
            seconds = duration
            text = words[2]
        }
        guard !text.isEmpty, !text.hasPrefix("--") else { throw ControlRequestError(usage) }
        guard text.utf8.count <= maximumMessageBytes else {
            throw ControlRequestError("message: at most \(maximumMessageBytes) bytes of text (got \(text.utf8.count))")
        }
        return .show(text.replacingEscapedLineBreaks(), seconds: seconds)
    }

    static func steps(_ command: String, _ argument: String) throws(ControlRequestError) -> Int {
        if argument.isEmpty { return 1 }
        guard let n = Int(argument), (1...maximumSteps).contains(n) else {
            throw ControlRequestError(
                "\(command) takes an optional count of pictures from 1 to \(maximumSteps) (got \"\(quoted(argument))\")")
        }
        return n
    }

    static func gotoTarget(_ argument: String) throws(ControlRequestError) -> GotoTarget {
        guard !argument.isEmpty else {
            throw ControlRequestError("goto needs a picture: its index in the playlist (0 is the first) or its file name")
        }
        if argument.allSatisfy(\.isASCII), argument.allSatisfy(\.isNumber) {
            guard let index = Int(argument) else {
                throw ControlRequestError("goto: the index \(argument) is too large")
            }
            return .index(index)
        }
        if argument.hasPrefix("-"), Int(argument) != nil {
            throw ControlRequestError("goto takes an index from 0 (got \(argument))")
        }
        guard !argument.contains("/"), argument != ".", argument != "..", !argument.contains("\0") else {
            throw ControlRequestError(
                "goto takes a file name in the picture folder, not a path (got \"\(quoted(argument))\")")
        }
        return .file(argument)
    }

    /// A client's text for an error message: at most 64 characters, control
    /// characters and quotes shown escaped, so the reply stays one safe line.
    public static func quoted(_ text: some StringProtocol) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(64) {
            switch scalar {
            case "\"": shown += "\\\""
            case "\\": shown += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                shown += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: shown.unicodeScalars.append(scalar)
            }
        }
        return text.unicodeScalars.count > 64 ? shown + "..." : shown
    }
}

extension Substring {
    /// The two characters `\n` as a line break (a line-based protocol has no other way to send one).
    public func replacingEscapedLineBreaks() -> String {
        var result = ""
        var pending = false
        for character in self {
            if pending {
                result += character == "n" ? "\n" : "\\" + String(character)
                pending = false
            } else if character == "\\" {
                pending = true
            } else {
                result.append(character)
            }
        }
        if pending { result += "\\" }
        return result
    }
}

/// How `screenshot` sends the frame: lossless at the screen's size, or as
/// the small JPEG (at most 640 px across) that MQTT publishes and the web
/// page shows.
public enum ScreenshotFormat: String, Equatable, Sendable {
    case png
    case jpeg
}
