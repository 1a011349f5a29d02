import ImageCodecs
import KioskCore

/// Answers the control socket's requests from the show: moves go to the
/// ``ShowController`` like any source's commands, `status` reads the show.
/// (`watch` and `screenshot` are the session's and the socket's.)
///
/// `status` is written once per wake-up of the run loop: every client
/// answered in that wake-up gets the same line, a snapshot taken after
/// their requests arrived. Any command performed meanwhile (a `next` just
/// before, on the same connection or another) makes it write a new one.
/// With 200 clients asking 100 times a second, that is most of the cost
/// of answering them (`make bench`, control).
final class ControlCommands {
    let controller: ShowController
    /// When the show started (``MonotonicClock`` seconds), for `uptime_s`.
    let started: Double
    /// What `reload` does; nil: it is refused (a show with no config to read again).
    private let reloading: (any SettingsReloading)?
    /// The display's power (`display`); nil: a show without power control.
    private let power: (any DisplayPowerControl)?
    /// Which wake-up of the run loop it is.
    private let wakeUp: () -> UInt64
    private var statusLine: (wakeUp: UInt64, commands: Int, line: [UInt8])?
    /// Whether test commands (`hold`) are answered: `kioskd --test-commands`.
    private let testCommands: Bool

    init(
        controller: ShowController, started: Double, reload: (any SettingsReloading)? = nil, power: (any DisplayPowerControl)? = nil,
        testCommands: Bool = false, wakeUp: @escaping () -> UInt64
    ) {
        self.testCommands = testCommands
        self.controller = controller
        self.started = started
        reloading = reload
        self.power = power
        self.wakeUp = wakeUp
    }

    /// The reply line to `request`.
    func answer(_ request: ControlRequest) -> [UInt8] {
        guard request == .status else { return reply(to: request).line }
        let now = (wakeUp: wakeUp(), commands: controller.commandsPerformed)
        if let cached = statusLine, cached.wakeUp == now.wakeUp, cached.commands == now.commands { return cached.line }
        let line = status.reply.line
        statusLine = (now.wakeUp, now.commands, line)
        return line
    }

    func reply(to request: ControlRequest) -> JSONObject {
        let playlist = controller.snapshot.playlist
        switch request {
        case .hold(let position):
            guard testCommands else { return ControlReply.failure("hold is a test command: kioskd answers it only when started with --test-commands") }
            let slots = controller.snapshot.strip.slotCount
            guard position < Double(slots), slots >= 2 else {
                return ControlReply.failure("hold takes a position from 0 to below \(slots), the slots in the playlist, got \(position)")
            }
            controller.perform(.hold(position: position))
            return ControlReply.success(["position": .double(position)])
        case .next(let steps):
            return move(.move(by: steps))
        case .previous(let steps):
            return move(.move(by: -steps))
        case .goto(let target):
            guard !playlist.isEmpty else {
                return ControlReply.failure("goto: the playlist is empty, so there is no picture to go to")
            }
            switch target {
            case .index(let item):
                guard item < playlist.count else {
                    return ControlReply.failure(
                        "goto: there is no picture \(item): the playlist has \(playlist.count), numbered 0 to \(playlist.count - 1)")
                }
                return move(.goto(item: item))
            case .file(let name):
                guard let item = playlist.item(named: name) else {
                    return ControlReply.failure(
                        "goto: no picture named \"\(ControlRequest.quoted(name))\" in the playlist; give a file name from the picture folder as status shows it, or an index")
                }
                return move(.goto(item: item))
            }
        case .pause:
            controller.perform(.pause)
            return ControlReply.success(["paused": true])
        case .resume:
            controller.perform(.resume)
            return ControlReply.success(["paused": false])
        case .status:
            return status.reply
        case .reload:
            switch reloading?.reload() ?? .refused("this show has no config to read again") {
            case .applied(let changed, let restartNeeded):
                return ControlReply.success([
                    "changed": .array(changed.map(JSONValue.string)), "restart_needed": .array(restartNeeded.map(JSONValue.string)),
                ])
            case .refused(let reason):
                return ControlReply.failure("reload refused, the show goes on with the settings it has: \(reason)")
            }
        case .set(let key, let value):
            return overridden("set", reloading?.set(key, to: value))
        case .unset(let key):
            return overridden("unset", reloading?.unset(key))
        case .display(let request, let brightness):
            guard let power else {
                return ControlReply.failure("display: this show has no control of the display's power")
            }
            if let brightness {
                if case .refused(let reason) = reloading?.set("brightness", to: "\(brightness)") ?? .refused("this show has no settings to change") {
                    return ControlReply.failure("display on \(brightness) refused: \(reason)")
                }
            }
            power.request(request)
            return ControlReply.success([
                "display_power": .string(power.requested), "panel": .string(controller.snapshot.panel.rawValue),
            ])
        case .message(let request):
            let shown = controller.message(request)
            let remaining: JSONValue = shown?.expires.map { .double(($0 - controller.clock()).rounded()) } ?? .null
            return ControlReply.success(["message": shown.map { .string($0.text) } ?? .null, "expires_in_s": remaining])
        case .pictures(let from, let count):
            return ControlReply.success(PictureListing.page(of: playlist, libraries: controller.libraries, from: from, count: count))
        case .settings:
            guard let reloading else { return ControlReply.failure("settings: this show has no settings to list") }
            return ControlReply.success(SettingsListing.reply(reloading.settings, setKeys: reloading.overriddenKeys))
        case .watch, .screenshot, .thumbnail:
            // The session answers these itself; never asked.
            return ControlReply.failure("\(request) is not answered here")
        }
    }

    /// The reply to `set` or `unset`: what changed, and whether it is kept over a restart.
    private func overridden(_ verb: String, _ outcome: ReloadOutcome?) -> JSONObject {
        switch outcome ?? .refused("this show has no settings to change") {
        case .applied(let changed, _):
            return ControlReply.success(["changed": .array(changed.map(JSONValue.string)), "kept": .bool(reloading?.keepsOverrides ?? false)])
        case .refused(let reason):
            return ControlReply.failure("\(verb) refused, the show goes on with the settings it has: \(reason)")
        }
    }

    /// A move, and where it goes: the picture the strip now slides to.
    private func move(_ command: ShowCommand) -> JSONObject {
        controller.perform(command)
        return ControlReply.success(centred)
    }

    private var centred: JSONObject { picture(controller.snapshot.centredItem) }

    /// `index` and `file` of a playlist item (both null for none).
    func picture(_ item: Int?) -> JSONObject {
        let show = controller.snapshot
        guard let item, item < show.playlist.count else { return ["index": .null, "file": .null] }
        return ["index": .int(item), "file": .string(show.fileName(of: item))]
    }

    /// `status`: the snapshot as the control protocol says it.
    var status: ControlStatus {
        let show = controller.snapshot
        var status = ControlStatus(
            index: show.centredItem, file: show.centredItem.map(show.fileName(of:)),
            count: show.playlist.count, position: show.strip.position, paused: show.paused, moving: show.strip.moving,
            interval: show.strip.interval, transition: show.strip.motion.duration,
            display: show.screen.display.statusFields, uptime: show.time - started, statistics: show.statistics,
            cacheBytes: show.cache.bytes, cacheBudgetBytes: show.cache.budget)
        status.files = show.centred.files.map(Playlist.fileName(of:))
        status.displayPower = power?.requested ?? "on"
        status.displayState = power?.state ?? .on
        status.brightness = power?.brightness ?? 100
        status.dimmer = power?.dimmerName ?? "software"
        status.presence = power?.someoneThere ?? false
        status.lux = power?.lux
        status.caption = show.words.caption
        status.clock = show.words.clock
        status.message = show.words.message
        status.panel = show.panel
        status.panning = show.screen.panningOffReason == nil
        status.panningOffReason = show.screen.panningOffReason
        status.zoom = show.zoom
        status.order = show.strip.order
        status.taken = show.centred.info?.dateTaken
        status.pictureSize = show.centred.info?.originalSize
        status.picturesWaiting = show.strip.waitingOnScreen
        status.clip = show.strip.clip
        let libraries = controller.libraries
        status.libraries = libraries.map { $0.object(in: show.playlist, alone: libraries.count == 1) }
        return status
    }
}
