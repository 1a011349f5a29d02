/// One command of the control protocol, described once, as a setting is by
/// its ``SettingDescriptor``: its word, how it is written, its help, what
/// its reply carries, whether it moves a group of kiosks, and where it is
/// answered. The parser (``ControlRequest/init(parsing:)``), kioskctl's
/// help, MQTT's handling and docs/control-protocol.md's table all come
/// from ``ControlRequest/table``; adding a command is adding its entry
/// there, its case in ``ControlRequest``, and its answer in the daemon.
public struct ControlCommand: Sendable {
    /// Where the command is answered.
    public enum Reach: Sendable {
        /// On the control socket and over MQTT.
        case everywhere
        /// Only on the control socket: its answer is more than one line (a
        /// stream of events, a PNG after the line). Over MQTT the same is
        /// published on a topic, which this says (`the events are published
        /// on kioskd/hall/event`).
        case socketOnly(overMQTT: @Sendable (MQTTTopics) -> String)
        /// A test command, answered only by a daemon started with `--test-commands`.
        case test
    }

    /// One argument, for kioskctl's help and the web page's controls.
    public struct Argument: Sendable {
        public let name: String
        public let help: String
        public init(_ name: String, _ help: String) {
            self.name = name
            self.help = help
        }
    }

    /// The command word, lower case.
    public let name: String
    /// How it is written, each form as a client sends it: `next [n]`.
    public let usage: [String]
    public let arguments: [Argument]
    /// One sentence: kioskctl's help for it.
    public let summary: String
    /// What it does, in full: docs/control-protocol.md's table.
    public let help: String
    /// What a successful reply carries beside `"ok":true`.
    public let reply: String
    /// Whether a group's beat starts again from where the group is after
    /// it (a move, a pause, a setting): see ``GroupBeat``.
    public let movesTheGroup: Bool
    public let reach: Reach
    /// Where MQTT publishes what a socket-only command answers, in words: nil for the others.
    public func overMQTT(_ topics: MQTTTopics) -> String? { if case .socketOnly(let published) = reach { published(topics) } else { nil } }

    /// Parses what follows the word (trimmed; empty when nothing does).
    let parse: @Sendable (_ arguments: String) throws(ControlRequestError) -> ControlRequest

    init(
        _ name: String, usage: [String], arguments: [Argument] = [], summary: String, help: String, reply: String,
        movesTheGroup: Bool = false, reach: Reach = .everywhere,
        parse: @escaping @Sendable (_ arguments: String) throws(ControlRequestError) -> ControlRequest
    ) {
        self.name = name
        self.usage = usage
        self.arguments = arguments
        self.summary = summary
        self.help = help
        self.reply = reply
        self.movesTheGroup = movesTheGroup
        self.reach = reach
        self.parse = parse
    }

    /// A command without arguments: `pause`.
    init(_ name: String, summary: String, help: String, reply: String, movesTheGroup: Bool = false, reach: Reach = .everywhere, request: ControlRequest) {
        self.init(name, usage: [name], summary: summary, help: help, reply: reply, movesTheGroup: movesTheGroup, reach: reach) {
            (arguments) throws(ControlRequestError) in
            guard arguments.isEmpty else { throw ControlRequestError("\(name) takes no arguments (got \"\(ControlRequest.quoted(arguments))\")") }
            return request
        }
    }
}

extension ControlRequest {
    /// Every command, in the order docs/control-protocol.md and `kioskctl --help` list them.
    public static let table: [ControlCommand] = [
        ControlCommand(
            "next", usage: ["next [n]"], arguments: [.init("count", "How many pictures, 1 to \(maximumSteps).")],
            summary: "Slide forward n pictures (default 1); quick repeats join one movement.",
            help: "slide n pictures (1 to 1000, default 1) forward; quick repeats join one movement, as with the signals",
            reply: "`index`, `file`: where the strip is going", movesTheGroup: true
        ) { (arguments) throws(ControlRequestError) in .next(try steps("next", arguments)) },
        ControlCommand(
            "prev", usage: ["prev [n]"], arguments: [.init("count", "How many pictures, 1 to \(maximumSteps).")],
            summary: "Slide back n pictures (default 1).",
            help: "slide n pictures (1 to 1000, default 1) back, as `next` does forward",
            reply: "`index`, `file`", movesTheGroup: true
        ) { (arguments) throws(ControlRequestError) in .previous(try steps("prev", arguments)) },
        ControlCommand(
            "goto", usage: ["goto <index>", "goto <file name>"],
            arguments: [.init("index-or-name", "An index, or a file name in the picture folder.")],
            summary: "Slide to a picture: its index (0 is the first) or its file name, the shortest way round.",
            help: "slide to a playlist item (0 is the first) or the file of that name in the picture folder, the shortest way round the loop; no paths",
            reply: "`index`, `file`", movesTheGroup: true
        ) { (arguments) throws(ControlRequestError) in .goto(try gotoTarget(arguments)) },
        ControlCommand(
            "pause", summary: "Stop the automatic slides (next and prev still work).",
            help: "stop the automatic slides (`next` and `prev` still work while paused)", reply: "`paused`", movesTheGroup: true,
            request: .pause),
        ControlCommand(
            "resume", summary: "Start the automatic slides again.", help: "start the automatic slides again", reply: "`paused`",
            movesTheGroup: true, request: .resume),
        ControlCommand(
            "status", summary: "What the kiosk shows, and how it is doing.", help: "what is on screen and how the show is doing",
            reply: statusReply, request: .status),
        ControlCommand(
            "screenshot", usage: ["screenshot", "screenshot jpeg"],
            arguments: [.init("format", "jpeg: the small JPEG MQTT publishes (at most 640 px across) instead of the PNG.")],
            summary: "Save the frame on the screen as a PNG (kioskd writes no file: kioskctl does, as you).",
            help: "the frame on screen as a PNG: the reply line, then exactly `png_bytes` bytes. kioskd writes no file: the client saves it. The frame is composed again in ordinary memory from what the last frame drew, never read back from the display's buffer, which is often mapped write-combined (reading 8 MB from it can take longer than many frames). `screenshot jpeg`: the same frame as the JPEG MQTT publishes (at most 640 pixels across, quality 80, made by the same encoder), `jpeg_bytes` bytes after the line: the web page's live screen",
            reply: "`png_bytes` (or `jpeg_bytes`), `width`, `height`, `index`, `file`",
            reach: .socketOnly(overMQTT: { "the picture is published on \($0.picture)" })
        ) { (arguments) throws(ControlRequestError) in
            switch arguments.lowercased() {
            case "", "png": return .screenshot(.png)
            case "jpeg", "jpg": return .screenshot(.jpeg)
            default: throw ControlRequestError("screenshot takes png or jpeg (got \"\(ControlRequest.quoted(arguments))\")")
            }
        },
        ControlCommand(
            "pictures", usage: ["pictures", "pictures <from> [count]"],
            arguments: [
                .init("from", "The first playlist item to list (0 is the first, and when not given)."),
                .init("count", "How many items, 1 to \(PictureListing.maximumCount); \(PictureListing.defaultCount) when not given."),
            ],
            summary: "List the pictures in the show, a page at a time, with the library each comes from.",
            help: "the playlist from item `from` (0 when not given): at most `count` items (1 to \(PictureListing.maximumCount), \(PictureListing.defaultCount) when not given), fewer when their names pass \(PictureListing.maximumBytes / 1024) KiB; the next page starts at `from` plus the items given. A `from` past the end lists none",
            reply: "`count` (the playlist's length), `from`, `pictures`: one object per item, in playlist order: `index`, `file` (its name, as `status` and `goto` give it), `name` (its path within its library: `2024/beach.jpg` in the picture folder; a server's picture's file in its cache), `library` (its library's place in `status`'s `libraries`, or null), `kind` (`folder`, `webdav` or `immich`, or null), `movie` (a Live Photo's movie, played with it and never listed itself, named as `name` is; or null)",
            parse: pictures),
        ControlCommand(
            "thumbnail", usage: ["thumbnail <index>"], arguments: [.init("index", "The playlist item (0 is the first).")],
            summary: "A playlist item's picture, small, as a JPEG (the web page's list of pictures).",
            help: "the picture of playlist item `index`, decoded again on the screenshots' thread (never on the show's loop) to fit \(PictureListing.thumbnailSize.width)x\(PictureListing.thumbnailSize.height), upright, as a JPEG of quality \(PictureListing.thumbnailQuality): the reply line, then exactly `jpeg_bytes` bytes. A clip gives its first frame",
            reply: "`jpeg_bytes`, `width`, `height`, `index`, `file`, `name` (as `pictures` names it): the file decoded, even if the playlist changed meanwhile",
            reach: .socketOnly(overMQTT: { _ in "no thumbnail is published: ask the control socket" })
        ) { (arguments) throws(ControlRequestError) in
            guard arguments.count <= 9, !arguments.isEmpty, arguments.allSatisfy({ $0.isASCII && $0.isNumber }), let index = Int(arguments) else {
                throw ControlRequestError("thumbnail takes a playlist item's index (0 is the first), got \"\(quoted(arguments))\"")
            }
            return .thumbnail(index)
        },
        ControlCommand(
            "settings", summary: "Every setting's value in force, and which ones set changed.",
            help: "every setting (those of docs/configuration-reference.md, in its order) with its value in force, written as its flag takes it, and whether `set` changed it over the config file; the web page's settings",
            reply: "`settings`: one object per setting: `name` (as the config file names it: `interval`, `mqtt.broker`), `value` (its value in force as `set` takes it, or null when it has none: `images` not given), `set` (true when `set` changed it: it is in `overrides.toml`), `settable` (whether `set` takes it: those a reload applies at once or with a new look at the folder), `reload` (its reload policy, as docs/configuration-reference.md words it)",
            request: .settings),
        ControlCommand(
            "watch", summary: "Print each picture the show comes to rest on, and pauses, resumes and playlist changes, until interrupted.",
            help: "from now on, also one event line each time the strip comes to rest on a picture, and on pause, resume, playlist, message and display changes, until the client hangs up; commands still work on the same connection",
            reply: watchReply, reach: .socketOnly(overMQTT: { "the events are published on \($0.event)" }), request: .watch),
        ControlCommand(
            "reload",
            summary: "Read the config file again and apply it, as SIGHUP does; a config with a mistake is refused and the show goes on.",
            help: "read the config file again and apply it, as SIGHUP does (see \"The live folder and the live config\")",
            reply: "`changed` (the settings applied), `restart_needed` (those taken at the next start); or `ok` false with the config's error, the show untouched",
            request: .reload),
        ControlCommand(
            "display", usage: ["display on", "display off", "display auto", "display on <brightness>"],
            arguments: [.init("state", "on, off or auto."), .init("brightness", "With on: the brightness, 0 to 100.")],
            summary: "Switch the display off or on (the TV too, over HDMI-CEC), or back to display_schedule with auto.",
            help: "switch the display (and a TV over HDMI-CEC) on or off until told otherwise, or back to `display_schedule` (see \"The display's lifecycle\"); `display on N` also sets `brightness` to N (0 to 100) as `set brightness N` does, kept as `set` keeps it (Home Assistant's light, turned on at a level, sends one line)",
            reply: "`display_power`, `panel`", parse: display),
        ControlCommand(
            "set", usage: ["set <setting> <value>"],
            arguments: [.init("setting", "The setting, as the config file names it: interval, order, transition..."), .init("value", "Its value, as its flag takes it: 12, shuffle...")],
            summary: "Change one setting the show applies at once (interval, order, background...), over the config file, kept across restarts.",
            help: "change one setting the show applies at once or with a new look at the folder (`set interval 12`, `set order shuffle`, `set background 202020`; the policies are in [configuration-reference.md](configuration-reference.md)), written as its flag takes it. It wins over the config file and the flags, and is kept in the state directory's `overrides.toml`, so reloads and restarts keep it (docs/configuration.md); Home Assistant's interval and order use it. Settings of the display, the devices, the socket and MQTT are refused: they belong in the config file",
            reply: "`changed` (the settings applied), `kept` (true when it is kept in the overrides' file; false without a state directory: until kioskd restarts); or `ok` false with why, the show untouched",
            movesTheGroup: true, parse: setting),
        ControlCommand(
            "unset", usage: ["unset <setting>"], arguments: [.init("setting", "A setting set with set, as the config file names it.")],
            summary: "Take a setting's set value away: the config file's is in force again, now and after a restart.",
            help: "take `set`'s value for a setting away, from the show and from `overrides.toml`: the config file's (or the flag's, or the default) is in force again",
            reply: "`changed` (the settings that changed), `kept`; or `ok` false when the setting was not set", movesTheGroup: true
        ) { (arguments) throws(ControlRequestError) in
            guard !arguments.isEmpty, !arguments.contains(where: { $0 == " " || $0 == "\t" }) else {
                throw ControlRequestError("unset takes one setting, as the config file names it (\"unset interval\"), got \"\(quoted(arguments))\"")
            }
            guard KioskSettings.table[arguments] != nil else { throw ControlRequestError("unset: there is no setting \"\(quoted(arguments))\"") }
            return .unset(setting: arguments)
        },
        ControlCommand(
            "message", usage: ["message <text>", "message --for <time> <text>", "message --clear"],
            arguments: [.init("text", "The words to show."), .init("time", "How long: 90s, 10m or 2h (1 second to 24 hours). Default: until cleared.")],
            summary: "Show a message over everything, until it expires (--for) or is cleared (--clear).",
            help: "show a banner over everything (pictures, captions, the clock), across slides, until `--for` has passed (`90s`, `10m`, `2h`, or seconds; 1 second to 24 hours) or `message --clear`; a new message replaces the one shown. `\\n` in the text is a line break; at most 1,000 bytes. Control characters and bidi overrides are dropped, as from captions",
            reply: "`message` (the text, or null once cleared), `expires_in_s` (or null: until cleared)"
        ) { (arguments) throws(ControlRequestError) in .message(try message(arguments)) },
        ControlCommand(
            "hold", usage: ["hold <position>"], arguments: [.init("position", "The strip's position in slots, as status reports it.")],
            summary: "Hold the strip still at a position, until resume (a test command).",
            help: "stops the strip at `<position>` (in slots, as `status` reports `position`, 0 to below the slots in the playlist) as a finger would, until `resume` lets it settle on the nearest picture (the VM tests' screendumps mid-slide; a kiosk never needs it)",
            reply: "`position`", reach: .test
        ) { (arguments) throws(ControlRequestError) in
            guard arguments.count <= 32, arguments.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let position = Double(arguments),
                position.isFinite
            else {
                throw ControlRequestError("hold takes the strip's position in slots, as status reports it (\"hold 2.5\"), got \"\(quoted(arguments))\"")
            }
            return .hold(position)
        },
    ]

    /// The table's entries by word.
    static let commandsByName = Dictionary(uniqueKeysWithValues: table.map { ($0.name, $0) })

    /// The command words a client may send, as docs/control-protocol.md and `kioskctl` spell them (the test command left out).
    public static let commands = table.filter { if case .test = $0.reach { false } else { true } }.map(\.name)

    /// A command's one-sentence help (kioskctl's).
    public static func summary(of name: String) -> String { commandsByName[name]?.summary ?? "" }

    /// The help of a command's argument (kioskctl's).
    public static func help(of name: String, argument: String) -> String {
        commandsByName[name]?.arguments.first { $0.name == argument }?.help ?? ""
    }

    /// This request's entry in the table.
    public var command: ControlCommand { Self.commandsByName[name]! }

    /// This request's command word.
    public var name: String {
        switch self {
        case .next: "next"
        case .previous: "prev"
        case .goto: "goto"
        case .pause: "pause"
        case .resume: "resume"
        case .status: "status"
        case .screenshot: "screenshot"
        case .watch: "watch"
        case .pictures: "pictures"
        case .thumbnail: "thumbnail"
        case .settings: "settings"
        case .reload: "reload"
        case .display: "display"
        case .set: "set"
        case .unset: "unset"
        case .message: "message"
        case .hold: "hold"
        }
    }

    /// The line that asks for this request, as kioskctl, Home Assistant and
    /// the web page send it: parsed, it gives this request back. (A
    /// message's text with a backslash before an `n` or a line break cannot
    /// be sent as it is: the protocol reads `\n` as a line break.)
    public var line: String {
        switch self {
        case .next(let steps): steps == 1 ? "next" : "next \(steps)"
        case .previous(let steps): steps == 1 ? "prev" : "prev \(steps)"
        case .goto(.index(let index)): "goto \(index)"
        case .goto(.file(let name)): "goto \(name)"
        case .screenshot(let format): format == .png ? name : "\(name) \(format.rawValue)"
        case .pause, .resume, .status, .watch, .reload, .settings: name
        case .pictures(let from, let count): "pictures \(from) \(count)"
        case .thumbnail(let index): "thumbnail \(index)"
        case .display(let power, let brightness): "display \(power.rawValue)" + (brightness.map { " \($0)" } ?? "")
        case .set(let setting, let value): "set \(setting) \(value)"
        case .unset(let setting): "unset \(setting)"
        case .message(.clear): "message --clear"
        case .message(.show(let text, let seconds)):
            "message " + (seconds.map { "--for \(Self.secondsText($0)) " } ?? "") + text.replacing("\n", with: "\\n")
        case .hold(let position): "hold \(position)"
        }
    }

    /// Seconds as `--for` takes them: `600s`, `1.5s`.
    private static func secondsText(_ seconds: Double) -> String {
        seconds == seconds.rounded() && seconds < 1e9 ? "\(Int(seconds))s" : "\(seconds)s"
    }

    private static func display(_ arguments: String) throws(ControlRequestError) -> ControlRequest {
        let words = arguments.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard (1...2).contains(words.count), let request = PowerRequest(rawValue: words[0].lowercased()) else {
            throw ControlRequestError(
                "display takes on, off or auto (auto follows display_schedule), and on a brightness 0 to 100, got \"\(quoted(arguments))\"")
        }
        guard words.count == 2 else { return .display(request) }
        guard request == .on, words[1].count <= 3, words[1].allSatisfy(\.isASCII), let level = Int(words[1]), (0...100).contains(level) else {
            throw ControlRequestError("display on takes a brightness 0 to 100 after it, got \"\(quoted(arguments))\"")
        }
        return .display(.on, brightness: level)
    }

    private static func pictures(_ arguments: String) throws(ControlRequestError) -> ControlRequest {
        let words = arguments.split(whereSeparator: { $0 == " " || $0 == "\t" })
        func number(_ word: Substring) -> Int? { word.count <= 9 && word.allSatisfy { $0.isASCII && $0.isNumber } ? Int(word) : nil }
        guard words.count <= 2, let from = words.first.map(number) ?? 0,
              let count = words.count == 2 ? number(words[1]) : PictureListing.defaultCount, (1...PictureListing.maximumCount).contains(count)
        else {
            throw ControlRequestError(
                "pictures takes the first item to list (0 is the first) and how many, 1 to \(PictureListing.maximumCount) (\"pictures 100 50\"), got \"\(quoted(arguments))\"")
        }
        return .pictures(from: from, count: count)
    }

    private static func setting(_ arguments: String) throws(ControlRequestError) -> ControlRequest {
        let setting = arguments.prefix { $0 != " " && $0 != "\t" }
        let value = arguments.dropFirst(setting.count).drop { $0 == " " || $0 == "\t" }
        guard !setting.isEmpty, !value.isEmpty else {
            throw ControlRequestError("set takes a setting and its value, e.g. \"set interval 12\" or \"set order shuffle\"")
        }
        guard KioskSettings.table[String(setting)] != nil else {
            let guess = closestName(to: String(setting), among: KioskSettings.table.keys).map { "did you mean \($0)? " } ?? ""
            throw ControlRequestError("set: there is no setting \"\(quoted(setting))\"; \(guess)the settings are those of docs/configuration-reference.md")
        }
        return .set(setting: String(setting), value: String(value))
    }

    /// docs/control-protocol.md's table of commands, and its test command, written from ``table``.
    public static var reference: String {
        var text = "| command | what it does | reply |\n| --- | --- | --- |\n"
        func cell(_ text: String) -> String { text.replacing("|", with: "\\|") }
        for command in table {
            guard case .test = command.reach else {
                let usage = command.usage.map { "`\($0)`" }.joined(separator: ", ")
                var help = command.help
                if case .socketOnly = command.reach { help += " (the control socket's only: over MQTT it is published instead)" }
                text += "| \(cell(usage)) | \(cell(help)) | \(cell(command.reply)) |\n"
                continue
            }
        }
        for command in table {
            guard case .test = command.reach else { continue }
            text += "\nA test command, answered only by a daemon started with `--test-commands`: `\(command.usage.joined(separator: "`, `"))` \(command.help); the reply is \(command.reply). Without the flag it gets an error saying so.\n"
        }
        return text
    }
}

extension ControlRequest {
    /// What `status`'s reply carries (docs/control-protocol.md).
    static let statusReply = "`index`, `file`, `files` (every file in the centre: `file`, or with `portrait_pairs` the pair's two, left to right), `count`, `taken` (when the centred photo was taken by its own clock, `2024-05-01T12:34:56`, or null), `picture_size` (its own size, `4032x3024`, or null before it is decoded), `clip_position_s` (while a video clip, or a motion photo's movie, plays in the centre, the seconds it has played, a pause not counted; a looping clip's count on across its plays; null when no clip plays, before its first frame is on screen, once it has played its time, or when it broke), `clip_length_s` (that clip's length in seconds, one play's: its container's, then, for `video_repeat = \"once\"`, its stream's once read to the end; null when the container does not say, or when no clip plays), `clip_decoder` (how it is decoded: `software`, `vaapi` or `v4l2`; this kioskd decodes in software; null when no clip plays), `position` (the strip, in slots, within the playlist; a pair is one slot), `paused`, `moving`, `interval`, `transition`, `order` (`name`, `mtime`, `taken` or `shuffle`), `display` (`driver`, `device`, `connector`, `mode`; or `driver` `headless`, `size`, `refresh_hz`), `display_power` (`on`, `off`, `schedule`), `display_state` (`on`, `off_by_schedule`, `off_by_idle` after `idle_off` with nobody there, `off_by_command`), `panel` (`active`, `off`, `disconnected`, `other_session`), `panning` (true while the display moves the strip: docs/display-lifecycle.md), `panning_off_reason` (null while panning; else why not, one of the phrases docs/display-lifecycle.md lists), `brightness` (0 to 100, the level in force), `dimmer` (`software`, or `backlight:<name>`), `presence` (true while a motion sensor says someone is there, or for a minute after a touch, key or remote), `zoom` (the centred picture's zoom, 1 when fitted), `focus` (while zoomed, `[x, y]`: the picture's point, each 0 to 1, in the middle of its slot; else null), `zoom_sharp` (true once the zoomed part on screen is the one decoded again sharp), `caption` (the centred picture's caption as drawn, lines joined by `\\n`, or null), `clock` (the clock as drawn, or null), `message` (the message shown, as it is drawn, from the moment the command is answered; null once cleared or expired), `uptime_s`, `frames_shown`, `refreshes_missed`, `frames_panned` (frames shown by moving the display's window, nothing drawn), `frames_composed` (frames the CPU drew: composed, or a long buffer drawn for panning), `slides`, `cache_bytes`, `cache_budget_bytes`, `pictures_waiting` (how many pictures on screen are still being decoded, their slots showing the background: 0 once every picture on screen is there), `libraries` (one object per library the pictures come from, in the order the settings name them, the folder first: `kind` `folder`, `webdav` or `immich`, `source` (the folder's path, or the server's address, never with credentials), `state` (`online`; `offline` while the folder is gone, or while the server does not answer, its cached pictures still shown; `refused` while the server says no: wrong credentials, a certificate not trusted), `since` (Unix time of the last change of `state`, or of the start; a server's library is `offline` from the start until it first answers), `assets` (a folder's pictures in the playlist; the pictures a server lists), `cached` (how many are on this machine's disk: all of a folder's; those of a server in its cache, which the show plays)), `version`"

    /// What `watch`'s reply and events are (docs/control-protocol.md).
    static let watchReply = "`watching`; then events: `{\"event\":\"picture\",\"index\":3,\"file\":\"04.jpg\",\"files\":[\"04.jpg\"],\"shown_at\":1795680000.016667}` (a pair: `\"files\":[\"04.jpg\",\"05.jpg\"]`; `shown_at`: when the frame with it at rest reached the screen, Unix time to the microsecond, for comparing kiosks), `{\"event\":\"pause\"}`, `{\"event\":\"resume\"}`, `{\"event\":\"playlist\",\"count\":7,\"added\":1,\"removed\":0}`, `{\"event\":\"folder_gone\"}`, `{\"event\":\"folder_back\",\"count\":7}`, `{\"event\":\"library\",\"kind\":\"webdav\",\"source\":\"https://cloud.example/remote.php/dav/files/kiosk/Photos/\",\"state\":\"offline\"}` (a server's library changed state), `{\"event\":\"display_lost\",\"reason\":\"...\"}`, `{\"event\":\"display_back\"}`, `{\"event\":\"panel\",\"panel\":\"off\"}`, `{\"event\":\"message\",\"message\":\"Closing soon\"}` (shown, replaced; `null` when cleared or expired)"
}
