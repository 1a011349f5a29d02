/// How the strip looks, as the operator wrote it (lengths not yet resolved
/// against a screen; ``CarouselGeometry`` does that and validates).
public struct LayoutSettings: Hashable, Sendable {
    /// Slot width `w`. Default 70% of the screen width: 1344 px on a 1920 px
    /// screen, leaving room for both neighbours to peek in.
    public var slotWidth: Length = .percent(70)
    /// How many slot widths (slot plus spacing) the screen holds, instead
    /// of ``slotWidth`` (seed 001's "number of images visible"): 1.4 makes
    /// the slot `W / 1.4 - s` wide, the centred picture with its neighbours
    /// peeking in. nil: ``slotWidth`` says. Setting both is an error
    /// (``KioskSettings/slotWidthConflict(written:)``).
    public var visible: Double? = nil
    /// Gap `s` between slots. Default 2% of the screen width (38 px at 1920).
    public var spacing: Length = .percent(2)
    /// Slot height `h`; nil means the full screen height.
    public var slotHeight: Length? = nil
    /// What shows around and between the pictures.
    public var background: RGBColor = .black
    /// Where a picture narrower than its slot sits: toward the screen's
    /// centre (`align = "inner"`, the default: a portrait neighbour peeks
    /// in, docs/configuration.md "Portrait neighbours" says why) or centred, the seed's rule.
    public var alignment: PictureAlignment = .inner
    /// Two consecutive portrait photos share one slot, side by side with
    /// ``spacing`` between them (`portrait_pairs`, ``PortraitPairs`` says
    /// which). Off by default: a playlist's slots stay one file each.
    public var portraitPairs = false

    public init() {}
}

/// Where the show's frames go.
public enum DisplayTarget: String, Sendable, Hashable {
    /// A real screen through DRM/KMS.
    case drm
    /// An in-memory screen refreshed at 60 Hz: for trying the daemon where no
    /// display is free, and for tests. Everything but the scan-out is the same.
    case headless
}

/// Whether the display hardware may move the strip (`panning`): `auto`
/// pans where the display can (a slide drawn once into a buffer longer than
/// the screen, the plane's window moved each frame); `off` composes every
/// frame, as before panning existed.
public enum PanningSetting: String, Sendable, Hashable {
    case auto
    case off
}

/// Which display the show runs on, as the operator wrote it.
public struct DisplaySettings: Hashable, Sendable {
    public var target: DisplayTarget = .drm
    /// The headless screen's size (`size`); DRM screens use ``mode``.
    public var headlessSize = PixelSize(width: 1920, height: 1080)
    /// A DRM card such as `/dev/dri/card1`; nil (`"auto"`) is the first card
    /// with a connected connector.
    public var device: String? = nil
    /// A connector name as the kernel and xrandr spell it (`HDMI-A-1`,
    /// `Virtual-1`); nil (`"auto"`) is the first connected one.
    public var connector: String? = nil
    public var mode: ModeRequest = .preferred
    public var rotation: Rotation = .none
    public var panning: PanningSetting = .auto

    public init() {}
}

/// How the show moves: rest, then an eased slide to the next picture
/// (see ``ShowSchedule``).
public struct MotionSettings: Hashable, Sendable {
    /// Seconds of rest on each picture before auto-advance.
    public var interval: Double = 8
    /// Seconds a slide from one picture to the next takes.
    public var transition: Double = 0.45
    public var easing: Easing = .easeInOut
    /// Seconds after the last touch before automatic slides resume (`resume_after`).
    public var resumeAfter: Double = 30
    /// The show starts paused (`start_paused`): nothing moves on its own
    /// until `kioskctl resume` or a tap in the middle.
    public var startPaused = false

    public init() {}
}

/// How video clips play in the centre (`video_max`, `video_repeat`,
/// `video_audio`); whether they are shown at all is the folder's
/// (``FolderSettings/clips``, `video`), since it decides which files are listed.
public struct ClipSettings: Hashable, Sendable {
    /// The longest a clip holds the show, in seconds of playing: then the
    /// strip moves on, mid-clip if need be (`video_max`).
    public var maximum: Double = 60
    /// Once to its end, or looped until ``maximum`` (`video_repeat`).
    public var repeats: ClipPlayback.Repeat = .once
    /// Sound: not built; a kiosk is muted (`video_audio`, which refuses true).
    public var audio = false
    /// How a motion photo's movie plays (`motion_photos`).
    public var motionPhotos: MotionPhotoPlay = .once

    public init() {}
}

/// `motion_photos`: how the movie of a motion photo (Google's and
/// Samsung's, inside the still) or of an iPhone Live Photo (the MOV beside
/// it) plays once the strip rests on the still.
///
/// The photo rests its `interval`, or as long as one play of its movie
/// when that is longer (up to `video_max`); its neighbours and the slide
/// show the still, never a movie frame.
public enum MotionPhotoPlay: String, Hashable, Sendable, CaseIterable {
    /// The movie plays once, then the still shows again for the rest of the photo's time.
    case once
    /// The movie plays again and again while the photo rests.
    case loop
    /// Only the still shows (a Live Photo's MOV is still not shown as a clip of its own).
    case off

    /// How the movie plays when it does: once, or looped while the photo rests.
    public var repeats: ClipPlayback.Repeat { self == .loop ? .loop : .once }
}

/// The order pictures play in (`order`).
public enum PictureOrder: String, Hashable, Sendable, CaseIterable {
    /// File names in ``NaturalOrder`` (`IMG_2` before `IMG_10`), subfolders in the same order.
    case name
    /// Oldest modification time first.
    case mtime
    /// When the photo was taken (EXIF `DateTimeOriginal`), else its modification time.
    case taken
    /// A new random order for every round of the loop.
    case shuffle
}

/// The picture folder, as the show watches it (`recursive`, `order`, `rescan_interval`).
public struct FolderSettings: Hashable, Sendable {
    /// Pictures in subfolders too, watched as they appear.
    public var recursive = true
    public var order: PictureOrder = .name
    /// Seconds between rescans when the kernel cannot watch every folder
    /// (the inotify watch limit): changes then show within this time.
    public var rescanInterval: Double = 60
    /// `video`: the folder's video clips are shown (and clips are decoded
    /// at all). Here, beside what decides which files are listed, since
    /// that is what it changes: a reload lists the folder again.
    public var clips = true

    public init() {}
}

/// A value from the config file or the command line, before it is checked.
public enum SettingValue: Hashable, Sendable {
    case string(String)
    case integer(Int)
    case float(Double)
    case boolean(Bool)
    /// A TOML array of such values.
    indirect case list([SettingValue])
    /// A TOML table of such values (`[keys]`).
    indirect case table([String: SettingValue])

    var written: String {
        switch self {
        case .string(let s): return s
        case .integer(let i): return "\(i)"
        case .float(let f): return "\(f)"
        case .boolean(let b): return "\(b)"
        case .list(let values): return "[" + values.map(\.written).joined(separator: ", ") + "]"
        case .table(let entries): return "{" + entries.keys.sorted().map { "\($0) = \(entries[$0]!.written)" }.joined(separator: ", ") + "}"
        }
    }

    /// A number, written as one or as text.
    var number: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .float(let f): return f
        case .string(let text): return Double(text)
        case .boolean, .list, .table: return nil
        }
    }
}

/// Touchscreens, keyboards and remotes (`input`, `grab`, `tap_zones`, `calibration`).
public struct InputSettings: Hashable, Sendable {
    /// Devices to read: nil (`"auto"`) is every touchscreen, absolute
    /// pointer and keyboard with the show's keys, as they come and go;
    /// `[]` (`"none"`) is none; else `/dev/input/eventN` paths or
    /// `/dev/input/by-id` names.
    public var devices: [String]? = nil
    /// Take the devices for kioskd alone (`EVIOCGRAB`).
    public var grab = false
    /// A tap on the left or right fifth is `prev` or `next`; in the middle, pause or resume.
    public var tapZones = true
    /// libinput's calibration matrix (`LIBINPUT_CALIBRATION_MATRIX`), for every touch device.
    public var calibration = TouchMapping.identity
    /// Keys on top of the defaults, by their kernel names (`KEY_F5 = "next"`);
    /// the daemon checks the names against libevdev's when it starts.
    public var keys: [String: KeyAction] = [:]
    /// Keys and switches that say someone is there (``PresenceInputs``), by
    /// their kernel names; the daemon checks them against libevdev's.
    public var presenceKeys = PresenceInputs.defaultNames
    /// How far a pinch zooms the centred picture (`max_zoom`): 2 is twice
    /// its fitted size; never past the photo's own pixels one to one.
    public var maxZoom = 2.0

    public init() {}

    /// Where a configured device is: a by-id name is looked up in `/dev/input/by-id`.
    public static func path(of device: String) -> String {
        device.hasPrefix("/") ? device : "/dev/input/by-id/" + device
    }
}

/// The control socket (`kioskctl`, `socat`): where it is, and who may use it.
public struct ControlSettings: Hashable, Sendable {
    /// The socket's path; nil (`"none"`) turns the socket off. A socket
    /// passed by systemd (`LISTEN_FDS`) is used instead of this.
    public var socket: String? = ControlSettings.defaultSocket
    /// The group the socket file (mode 0660) belongs to; nil keeps the daemon's own.
    public var socketGroup: String? = nil

    public static let defaultSocket = "/run/kioskd/control.sock"
    /// A Unix socket's path must fit `sockaddr_un.sun_path` with its terminating zero.
    public static let maximumPathBytes = 107

    public init() {}
}

/// Where HDMI-CEC messages go (`cec`): TVs follow the display's power through them.
public enum CECChoice: Hashable, Sendable {
    /// The CEC adapter the kernel ties to the connector in use, if there is one.
    case auto
    /// No CEC messages.
    case off
    /// This adapter (`/dev/cecN`), whatever connector it belongs to.
    case device(String)
}

/// When the display is on (`display_schedule`, `cec`); `kioskctl display`
/// overrides the schedule until `display auto`.
public struct PowerSettings: Hashable, Sendable {
    /// Nil (`"none"`): always on unless told otherwise.
    public var schedule: DisplaySchedule? = nil
    public var cec: CECChoice = .auto
    /// Seconds without presence before the display goes off; nil: never.
    public var idleOff: Double? = nil
    /// Whether presence turns the display on (``PresenceWaking``).
    public var wakeOnPresence: PresenceWaking = .inHours
    /// How bright, all day or by the time of day (``Brightness``).
    public var brightness = Brightness.full
    /// An ambient light sensor to dim by: nil (`"none"`), `"auto"` (the
    /// first IIO device that measures illuminance), or its IIO name (`iio:device0`).
    public var lightSensor: String? = nil
    /// Lux to brightness, for the light sensor (``LightCurve``).
    public var lightCurve = LightCurve.standard

    public init() {}
}

/// Words on the screen: captions from the pictures, a clock, messages.
public struct TextSettings: Hashable, Sendable {
    /// What each picture's caption says; nil (`""`): no captions.
    public var caption: CaptionTemplate? = nil
    /// Lines a caption may take; more are cut with an ellipsis.
    public var captionLines = 2
    /// The clock's strftime pattern; nil (`"none"`): no clock.
    public var clock: StrftimePattern? = nil
    public var clockCorner = ScreenCorner.bottomRight
    /// A fontconfig family; characters it lacks come from other installed fonts.
    public var font = "sans-serif"
    public var size = TextSize(points: 20)
    public var colour = RGBColor(red: 255, green: 255, blue: 255)
    public var legibility = TextLegibility.outline
    /// The locale dates are written in (`de_DE.UTF-8`); nil: the environment's (LC_ALL, LC_TIME, LANG).
    public var locale: String? = nil

    public init() {}

    /// How captions look on a screen `screen` pixels tall, on a picture `width` pixels wide.
    public func captionAppearance(screenHeight: Int, pictureWidth: Int) -> TextAppearance {
        TextAppearance(
            family: font, pixelSize: size.pixels(onScreenHeight: screenHeight), colour: colour, legibility: legibility,
            maxWidth: pictureWidth * 9 / 10, maxLines: captionLines)
    }

    /// How the clock looks: the text's size, one line.
    public func clockAppearance(screen: PixelSize) -> TextAppearance {
        TextAppearance(
            family: font, pixelSize: size.pixels(onScreenHeight: screen.height), colour: colour, legibility: legibility,
            maxWidth: screen.width / 2, maxLines: 1)
    }

    /// How a message looks: a banner, a quarter larger than the text, on a band whatever the style.
    public func messageAppearance(screen: PixelSize) -> TextAppearance {
        TextAppearance(
            family: font, pixelSize: size.pixels(onScreenHeight: screen.height) * 5 / 4, colour: colour, legibility: .band,
            maxWidth: screen.width * 9 / 10, maxLines: 3)
    }

    /// The gap between the clock and the screen's edges, and above a message: half the text's size.
    public func margin(screenHeight: Int) -> Int { max(2, size.pixels(onScreenHeight: screenHeight) / 2) }
}

/// Everything the operator can set, with the defaults a kiosk starts from.
///
/// Settings are layered: defaults, then the config file, then command-line
/// flags, each through ``set(_:to:)`` so both are checked the same way and
/// errors name the setting as the config file spells it. Each setting is
/// one ``SettingDescriptor`` in ``table``; the initial values here are the defaults.
public struct KioskSettings: Hashable, Sendable {
    /// The folder of pictures. No default: the operator must say where.
    public var images: String? = nil
    public var layout = LayoutSettings()
    public var display = DisplaySettings()
    /// Show camera JPEGs upright as their EXIF Orientation tag says.
    public var exifRotate = true
    /// The decoded-picture cache's budget in MiB; nil (`"auto"`) derives it
    /// from the slot size (see ``PreloadPlan/defaultBudget(_:)``).
    public var cacheMegabytes: Int? = nil
    public var motion = MotionSettings()
    /// How clips and motion photos play (`video_max`, `video_repeat`, `video_audio`, `motion_photos`).
    public var clips = ClipSettings()
    public var control = ControlSettings()
    public var input = InputSettings()
    public var folder = FolderSettings()
    public var power = PowerSettings()
    /// Captions, the clock and messages.
    public var text = TextSettings()
    /// The `[mqtt]` table: Home Assistant and fleets.
    public var mqtt = MQTTSettings()
    /// The `[webdav]` table: a server's folder whose pictures join the show.
    public var webdav = WebDAVSettings()
    /// The `[web]` table: kioskd-web's page on the local network.
    public var web = WebSettings()
    /// The `[immich]` table: an Immich server whose chosen photos join the show.
    public var immich = ImmichSettings()

    /// Whether any library is named: the picture folder, or a server.
    public var namesAnyLibrary: Bool { images != nil || webdav.url != nil || immich.url != nil }
    /// The disk cache server libraries are mirrored into (`cache_max`, `cache_items`).
    public var libraryCache = LibraryCacheSettings()
    /// Where kioskd keeps what outlives it (the centred picture, to resume
    /// on); nil (`"none"`) keeps nothing.
    public var stateDirectory: String? = KioskSettings.defaultStateDirectory

    public static let defaultStateDirectory = "/var/lib/kioskd"

    public init() {}

    /// Sets setting `key` (as the file spells it) from `value`, through
    /// its descriptor in ``table``; returns the keys set (a table's name sets each of its entries).
    @discardableResult
    public mutating func set(_ key: String, to value: SettingValue) throws(SettingError) -> [String] {
        try Self.table.set(key, to: value, in: &self)
    }

    /// Setting `key`'s value as the config file would spell it (see ``SettingDescriptor/write(_:)``).
    public func writtenValue(of key: String) -> SettingValue? { Self.table[key]?.write(self) }

    /// `visible` and `image_width` both say how wide the slot is: written
    /// together (in the file, as flags, or one in each) they are an error
    /// naming both. `written`: the names the file and the flags set;
    /// `place`: where a name was written (`kiosk.toml: line 3`, `the --visible flag`).
    public func slotWidthConflict(written: Set<String>, place: (String) -> String?) -> SettingError? {
        guard written.contains("visible"), written.contains("image_width"), let visible = layout.visible else { return nil }
        func at(_ name: String) -> String { place(name).map { " (\($0))" } ?? "" }
        return SettingError(
            setting: "visible", value: "\(visible)",
            reason: "visible\(at("visible")) and image_width\(at("image_width")) both set the slot's width: keep one "
                + "(visible counts slots across the screen, image_width gives the width)")
    }
}
