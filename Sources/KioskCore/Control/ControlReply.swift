/// The lines the daemon writes on the control socket. Every reply starts
/// with `"ok"`; every event line starts with `"event"`, so a client that
/// both watches and sends commands tells them apart by the first key.
public enum ControlReply {
    /// `{"ok":true,...}`.
    public static func success(_ fields: JSONObject = [:]) -> JSONObject {
        JSONObject([(key: "ok", value: .bool(true))] + fields.fields)
    }

    /// `{"ok":false,"error":"..."}`: one sentence, what was wrong and what is accepted.
    public static func failure(_ message: String) -> JSONObject {
        ["ok": false, "error": .string(message)]
    }

    /// The sentence a client gets when all ``ControlSession/maximumClients`` places are taken.
    public static let tooManyClients =
        "too many control clients at once (the most is 256); close an idle connection and try again"
}

/// What `status` reports. The key names are an interface scripts rely on
/// (docs/control-protocol.md lists them): change them only with the protocol's version.
public struct ControlStatus: Equatable, Sendable {
    /// The playlist item in the centre, or the one the strip slides to; nil when the playlist is empty.
    public var index: Int?
    public var file: String?
    /// Every file in the centre: `file`, or with `portrait_pairs` a pair's two, left to right.
    public var files: [String] = []
    public var count: Int
    /// The strip's position in pictures, within the playlist (2.5: halfway from item 2 to 3).
    public var position: Double
    public var paused: Bool
    public var moving: Bool
    public var interval: Double
    public var transition: Double
    /// What shows the frames: `driver`, `connector`, `mode` (or `headless` and its size).
    public var display: JSONObject
    public var uptime: Double
    public var statistics: ShowStatistics
    public var cacheBytes: Int
    public var cacheBudgetBytes: Int
    /// Pictures on screen still being decoded: their slots show the background.
    public var picturesWaiting = 0
    /// What was asked of the display's power: `on`, `off` or `schedule` (``DisplayPower/requested``).
    public var displayPower = "on"
    /// Whether the display is on, and if not why (``DisplayState``).
    public var displayState = DisplayState.on
    /// What the panel is doing: `active`, `off`, `disconnected` or `other_session`.
    public var panel = PanelState.active
    /// Whether the display moves the strip (panning), and if not why (null while it does).
    public var panning = false
    public var panningOffReason: String?
    /// How bright (0 to 100), and how: `software` or `backlight:<name>`.
    public var brightness = 100
    public var dimmer = "software"
    /// Someone at the kiosk: a motion sensor holds, or a touch, key or remote in the last minute.
    public var presence = false
    /// The ambient light sensor's last reading, in lux; nil without one.
    public var lux: Double?
    /// The words on the screen as drawn: the centred picture's caption, the clock, the message (nil: none).
    public var caption: String?
    public var clock: String?
    public var message: String?
    /// When the centred photo was taken, by its own clock (EXIF), if it says.
    public var taken: Int64?
    /// The centred picture's own size, once it has been decoded.
    public var pictureSize: PixelSize?
    /// The playlist's order: `name`, `mtime`, `taken` or `shuffle`.
    public var order = PictureOrder.name
    /// The centred picture's zoom; nil while it is fitted (keys `zoom` 1, `focus` null).
    public var zoom: ZoomStatus?
    /// The clip playing in the centre; nil when none plays (its keys null).
    public var clip: ClipStatus?
    /// Each library the pictures come from (``LibraryStatus/object(assets:cached:)``), in the settings' order.
    public var libraries: [JSONValue] = []

    public init(
        index: Int?, file: String?, count: Int, position: Double, paused: Bool, moving: Bool, interval: Double,
        transition: Double, display: JSONObject, uptime: Double, statistics: ShowStatistics, cacheBytes: Int,
        cacheBudgetBytes: Int
    ) {
        self.index = index
        self.file = file
        self.files = file.map { [$0] } ?? []
        self.count = count
        self.position = position
        self.paused = paused
        self.moving = moving
        self.interval = interval
        self.transition = transition
        self.display = display
        self.uptime = uptime
        self.statistics = statistics
        self.cacheBytes = cacheBytes
        self.cacheBudgetBytes = cacheBudgetBytes
    }

    /// The reply, keys in the order docs/control-protocol.md gives.
    public var reply: JSONObject {
        ControlReply.success([
            "index": index.map(JSONValue.int) ?? .null,
            "file": file.map(JSONValue.string) ?? .null,
            "files": .array(files.map(JSONValue.string)),
            "count": .int(count),
            "taken": taken.map { .string(wallClockISO8601($0)) } ?? .null,
            "picture_size": pictureSize.map { .string("\($0.width)x\($0.height)") } ?? .null,
            "clip_position_s": clip.map { .double(($0.position * 100).rounded() / 100) } ?? .null,
            "clip_length_s": clip?.length.map { .double(($0 * 100).rounded() / 100) } ?? .null,
            "clip_decoder": clip.map { .string($0.decoder) } ?? .null,
            "position": .double((position * 1000).rounded() / 1000),
            "paused": .bool(paused),
            "moving": .bool(moving),
            "interval": .double(interval),
            "transition": .double(transition),
            "order": .string(order.rawValue),
            "display": .object(display),
            "display_power": .string(displayPower),
            "display_state": .string(displayState.rawValue),
            "panel": .string(panel.rawValue),
            "panning": .bool(panning),
            "panning_off_reason": panningOffReason.map(JSONValue.string) ?? .null,
            "brightness": .int(brightness),
            "dimmer": .string(dimmer),
            "presence": .bool(presence),
            "lux": lux.map { .double(($0 * 10).rounded() / 10) } ?? .null,
            "zoom": .double(zoom?.scale ?? 1),
            "focus": zoom.map { .array([.double($0.focusX), .double($0.focusY)]) } ?? .null,
            "zoom_sharp": .bool(zoom?.sharp ?? false),
            "caption": caption.map(JSONValue.string) ?? .null,
            "clock": clock.map(JSONValue.string) ?? .null,
            "message": message.map(JSONValue.string) ?? .null,
            "uptime_s": .double((uptime * 10).rounded() / 10),
            "frames_shown": .int(statistics.framesShown),
            "refreshes_missed": .int(statistics.refreshesMissed),
            "frames_panned": .int(statistics.framesPanned),
            "frames_composed": .int(statistics.framesComposed),
            "slides": .int(statistics.slides),
            "cache_bytes": .int(cacheBytes),
            "cache_budget_bytes": .int(cacheBudgetBytes),
            "pictures_waiting": .int(picturesWaiting),
            "libraries": .array(libraries),
            "version": .string(KioskVersion.current),
        ])
    }
}

/// The clip playing in the centre, for `status` (and MQTT's state): where
/// it is on its clock (seconds played, a pause not counted), its length
/// when known (nil for a container that does not say, until its end is
/// read; a looping clip's is one play's), and how it is decoded:
/// `software`, `vaapi` or `v4l2`.
public struct ClipStatus: Equatable, Sendable {
    public var position: Double
    public var length: Double?
    public var decoder: String

    public init(position: Double, length: Double?, decoder: String) {
        self.position = position
        self.length = length
        self.decoder = decoder
    }
}

/// The centred picture zoomed, for `status`: its scale, and the point of
/// the picture (each 0...1 of its width and height) in the middle of its
/// slot, exactly what `kioskd snapshot --zoom Z --focus X,Y` draws the
/// same; `sharp` while the part on screen is the one decoded again sharp.
public struct ZoomStatus: Equatable, Sendable {
    public var scale: Double
    public var focusX: Double
    public var focusY: Double
    public var sharp: Bool

    public init(_ zoom: PictureZoom, limits: PictureZoom.Limits, sharp: Bool) {
        scale = zoom.scale
        let focus = zoom.focus(limits)
        focusX = focus.x
        focusY = focus.y
        self.sharp = sharp
    }
}

/// kioskd's version: `kioskd --version`, `kioskctl --version` and `status`.
public enum KioskVersion {
    public static let current = "0.2.0"
}

extension ShowEvent {
    /// The line a `watch` client gets for this event; nil for events it is
    /// not told about (the log has those).
    public var watchLine: JSONObject? {
        switch self {
        case .pictureCentred(let item, let path, let partner, let shownAt):
            let line: JSONObject = [
                "event": "picture", "index": .int(item), "file": .string(Playlist.fileName(of: path)),
                "files": .array(([path] + (partner.map { [$0] } ?? [])).map { .string(Playlist.fileName(of: $0)) }),
            ]
            return shownAt.map { line + ["shown_at": .double(($0 * 1_000_000).rounded() / 1_000_000)] } ?? line
        case .paused: return ["event": "pause"]
        case .resumed: return ["event": "resume"]
        case .playlistChanged(let count, let added, let removed):
            return ["event": "playlist", "count": .int(count), "added": .int(added), "removed": .int(removed)]
        case .folderGone: return ["event": "folder_gone"]
        case .folderBack(_, let count): return ["event": "folder_back", "count": .int(count)]
        case .libraryChanged(let library, _):
            return ["event": "library", "kind": .string(library.kind.rawValue), "source": .string(library.source), "state": .string(library.state.rawValue)]
        case .displayLost(let reason): return ["event": "display_lost", "reason": .string(reason)]
        case .displayBack: return ["event": "display_back"]
        case .panelChanged(let state, _): return ["event": "panel", "panel": .string(state.rawValue)]
        case .messageChanged(let text): return ["event": "message", "message": text.map(JSONValue.string) ?? .null]
        case .ready, .pictureRefused, .animationStopped, .clipStarted, .clipStopped, .zoomNotSharp, .pictureNote, .settingsApplied, .stopped, .folderNote, .textNote, .panningChanged, .screenChanged, .seatChanged:
            return nil
        }
    }
}
