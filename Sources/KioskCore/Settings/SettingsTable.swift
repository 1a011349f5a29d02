/// Every setting kioskd has, in the order `kioskd check-config` and the
/// configuration reference list them. Adding a setting is adding its
/// descriptor here (and the typed field the show reads); its name in the
/// file, its flag, its help, the check-config line, the reload and the
/// reference all follow. See ``SettingDescriptor``.
extension KioskSettings {
    public static let table = SettingsTable([
        // The strip.
        SettingDescriptor(
            "images", \.images, .folderPath, flag: .drawing, valueName: "dir", reload: .newFolder,
            unwritten: "none: it must be given (images, or --images)",
            help: "Folder of pictures and clips (JPEG, PNG, GIF, WebP, HEIF, AVIF or video clip), played in file-name order."),
        SettingDescriptor(
            "image_width", \.layout.slotWidth, .length, flag: .drawing, valueName: "x", reload: .live,
            unwritten: "follows from visible: the screen width over visible, less the spacing",
            writtenWhen: { $0.layout.visible == nil },  // one of the two says the width; both would be an error
            help: "Slot width: pixels (1344) or a percentage of the screen width (70%)."),
        SettingDescriptor(
            "visible", \.layout.visible, .slotsAcross, flag: .drawing, valueName: "n", reload: .live,
            unwritten: "not set: image_width gives the slot's width",
            help: "How many slots the screen holds across, instead of image_width: 1.4 is the centred picture with its neighbours peeking in."),
        SettingDescriptor(
            "spacing", \.layout.spacing, .length, flag: .drawing, valueName: "y", reload: .live,
            help: "Gap between slots: pixels (40) or a percentage of the screen width (2%)."),
        SettingDescriptor(
            "slot_height", \.layout.slotHeight, .optionalLength, flag: .drawing, valueName: "h", reload: .live,
            unwritten: "the full height of the screen",
            help: "Slot height: pixels or a percentage of the screen height."),
        SettingDescriptor(
            "background", \.layout.background, .colour, flag: .drawing, valueName: "rrggbb", reload: .live,
            help: "Background colour as RRGGBB."),
        SettingDescriptor(
            "align", \.layout.alignment, .alignment, flag: .drawing, valueName: "centre|inner", reload: .live,
            help: "Where a picture narrower than its slot sits: inner (toward the screen's centre, so every neighbour peeks in) or centre."),
        SettingDescriptor(
            "portrait_pairs", \.layout.portraitPairs, .boolean, flag: .drawing, switch: true, valueName: "bool", reload: .live,
            help: "Two consecutive portrait photos share one slot, side by side."),
        // The display.
        SettingDescriptor(
            "device", \.display.device, .autoOrName(example: "/dev/dri/card0"), flag: .show, valueName: "path", reload: .newDisplay,
            help: "DRM card, e.g. /dev/dri/card1, or auto: the first card with a connected screen."),
        SettingDescriptor(
            "connector", \.display.connector, .autoOrName(example: "HDMI-A-1"), flag: .show, valueName: "name", reload: .newDisplay,
            help: "Connector as the kernel names it (HDMI-A-1, DP-1, Virtual-1), or auto: the first connected."),
        SettingDescriptor(
            "mode", \.display.mode, .mode, flag: .show, valueName: "m", reload: .newDisplay,
            help: "auto (the screen's preferred mode), 1920x1080 or 1920x1080@60."),
        SettingDescriptor(
            "rotation", \.display.rotation, .rotation, flag: .drawing, valueName: "r", reload: .newDisplay,
            help: "Turn the picture clockwise for a screen mounted on its side: 0, 90, 180 or 270."),
        SettingDescriptor(
            "panning", \.display.panning, .word(expected: "auto or off"), flag: .show, valueName: "auto|off", reload: .live,
            help: "auto: where the display can, a slide is drawn once, wider than the screen, and the display moves its window each frame; off: every frame composed."),
        // The pictures.
        SettingDescriptor(
            "exif_rotate", \.exifRotate, .boolean, flag: .none, valueName: "bool", reload: .live,
            help: "Show camera photos upright as their EXIF Orientation tag says."),
        SettingDescriptor(
            "cache_mb", \.cacheMegabytes, .cacheMegabytes, flag: .none, valueName: "mib", reload: .live,
            help: "MiB for decoded pictures; auto is six slots' worth, raised (with a log line) to what the screen needs at least."),
        // Video clips.
        SettingDescriptor(
            "video", \.folder.clips, .boolean, flag: .none, valueName: "bool", reload: .newFolder,
            help: "Show the folder's video clips (.mp4, .mov, .m4v, .mkv, .webm in H.264, HEVC, VP9 or AV1): each shows its first frame in its slot and plays when it comes to rest in the centre; false passes over them."),
        SettingDescriptor(
            "video_max", \.clips.maximum, .requiredDuration, flag: .none, valueName: "time", reload: .live,
            help: "The longest a clip plays before the show moves on (\"60s\", \"5m\"): the automatic slide waits for a clip's end, up to this."),
        SettingDescriptor(
            "video_repeat", \.clips.repeats, .word(expected: "once or loop"), flag: .none, valueName: "once|loop", reload: .live,
            help: "once: a clip plays to its end and the show moves on; loop: it plays again until video_max."),
        SettingDescriptor(
            "video_audio", \.clips.audio, .audioNotBuilt, flag: .none, valueName: "bool", reload: .restart,
            help: "Clips' sound: false (a kiosk is muted). Sound is not built into this kioskd, so true is refused."),
        SettingDescriptor(
            "motion_photos", \.clips.motionPhotos, .word(expected: "once, loop or off"), flag: .none, valueName: "once|loop|off", reload: .live,
            help: "The movie of a motion photo (Google's or Samsung's, in the JPEG) or of an iPhone Live Photo (its MOV beside it): once plays it when the photo comes to rest, then shows the still again; loop plays it while the photo rests; off shows the still alone. The photo rests its interval, or one play of its movie if that is longer."),
        // The motion.
        SettingDescriptor(
            "interval", \.motion.interval, .seconds(0.1...86_400), flag: .show, valueName: "s", reload: .live,
            help: "Seconds on each picture before sliding to the next."),
        SettingDescriptor(
            "transition", \.motion.transition, .seconds(0.01...60), flag: .show, valueName: "s", reload: .live,
            help: "Seconds a slide takes."),
        SettingDescriptor(
            "easing", \.motion.easing, .word(expected: "linear, ease-in-out or ease-out"), flag: .show, valueName: "curve", reload: .live,
            help: "How a slide speeds up and settles: ease-in-out, ease-out or linear."),
        SettingDescriptor(
            "display", \.display.target, .word(expected: "drm or headless"), flag: .show, valueName: "d", reload: .newDisplay,
            help: "drm (a real screen) or headless (in memory at 60 Hz, for trying kioskd without a free display)."),
        SettingDescriptor(
            "size", \.display.headlessSize, .screenSize, flag: .show, valueName: "wxh", reload: .newDisplay,
            help: "The headless screen's size, up to 8192x8192."),
        // The control socket.
        SettingDescriptor(
            "socket", \.control.socket, .socketPath, flag: .show, valueName: "path", reload: .restart,
            help: "The control socket kioskctl talks to, or none."),
        SettingDescriptor(
            "socket_group", \.control.socketGroup, .groupName, flag: .none, valueName: "group", reload: .restart,
            unwritten: "the daemon's own group",
            help: "The group the control socket (mode 0660) belongs to, so its members may use kioskctl."),
        // Touch and keys.
        SettingDescriptor(
            "input", \.input.devices, .inputDevices, flag: .none, valueName: "devices", reload: .restart,
            help: "Devices to read: auto (every touchscreen, keyboard and motion sensor, as they come and go), none, or a list of /dev/input paths or /dev/input/by-id names."),
        SettingDescriptor(
            "grab", \.input.grab, .boolean, flag: .none, valueName: "bool", reload: .restart,
            help: "Take the input devices for kioskd alone (EVIOCGRAB)."),
        SettingDescriptor(
            "tap_zones", \.input.tapZones, .boolean, flag: .none, valueName: "bool", reload: .restart,
            help: "A tap on the left or right fifth is prev or next; in the middle, pause or resume."),
        SettingDescriptor(
            "max_zoom", \.input.maxZoom, .zoom, flag: .drawing, valueName: "z", reload: .live,
            help: "How far a pinch zooms the centred picture, 1 to 8 (never past the photo's own pixels)."),
        SettingDescriptor(
            "resume_after", \.motion.resumeAfter, .seconds(0...86_400), flag: .none, valueName: "s", reload: .live,
            help: "Seconds after the last touch before automatic slides resume."),
        SettingDescriptor(
            "start_paused", \.motion.startPaused, .boolean, flag: .show, switch: true, valueName: "bool", reload: .restart,
            help: "Start with automatic slides paused, for a kiosk browsed by hand: nothing moves on its own until kioskctl resume or a tap in the middle."),
        SettingDescriptor(
            "calibration", \.input.calibration, .calibration, flag: .none, valueName: "matrix", reload: .restart,
            help: "libinput's calibration matrix \"a b c d e f\" (as LIBINPUT_CALIBRATION_MATRIX), for every touch device."),
        SettingDescriptor(
            "keys", \.input.keys, .keyActions, flag: .none, valueName: "table", reload: .restart,
            help: "Keys on top of the defaults, by their kernel names: [keys] KEY_F5 = \"next\" (next, prev or pause)."),
        SettingDescriptor(
            "presence_keys", \.input.presenceKeys, .presenceKeys, flag: .none, valueName: "names", reload: .restart,
            help: "Keys and switches that mean someone is there, by their kernel names: a PIR through gpio-keys (KEY_WAKEUP), a proximity switch (SW_FRONT_PROXIMITY); or none. They wake the display and keep it from idle_off, and do not hold the slides."),
        // The folder.
        SettingDescriptor(
            "recursive", \.folder.recursive, .boolean, flag: .show, valueName: "bool", reload: .newFolder,
            help: "Take pictures from subfolders too."),
        SettingDescriptor(
            "order", \.folder.order, .word(expected: "name, mtime, taken or shuffle"), flag: .show, valueName: "order", reload: .newFolder,
            help: "name (natural file-name order), mtime (oldest first), taken (EXIF date) or shuffle."),
        SettingDescriptor(
            "rescan_interval", \.folder.rescanInterval, .seconds(1...86_400), flag: .show, valueName: "s", reload: .newFolder,
            help: "Seconds between rescans of the folder when the kernel cannot watch it all."),
        // Power and state.
        SettingDescriptor(
            "display_schedule", \.power.schedule, .schedule, flag: .show, valueName: "rules", reload: .live,
            help: "When the display is on, in local time, e.g. \"mon-fri 07:00-19:00; sat,sun 09:00-23:00\", or none: always on."),
        SettingDescriptor(
            "idle_off", \.power.idleOff, .duration, flag: .show, valueName: "time", reload: .live,
            help: "Switch the display off after this long with nobody at the kiosk (no touch, key, remote or motion sensor), inside display_schedule's hours: \"10m\", \"90s\", \"1h\", or none."),
        SettingDescriptor(
            "wake_on_presence", \.power.wakeOnPresence, .presenceWaking, flag: .show, valueName: "when", reload: .live,
            help: "Whether someone there switches the display on again: true (after idle_off, inside the schedule's hours), false (only the schedule and commands do), or \"always\" (at night too, for idle_off after the last presence)."),
        SettingDescriptor(
            "brightness", \.power.brightness, .brightness, flag: .show, valueName: "level", reload: .live,
            help: "How bright: 0 to 100, or levels by the time of day, \"07:00 100%, 21:00 40%, 23:00 off\" (off: off-hours, as display_schedule's). Through the panel's backlight where it has one, else the picture is dimmed (which saves no power)."),
        SettingDescriptor(
            "light_sensor", \.power.lightSensor, .lightSensor, flag: .show, valueName: "sensor", reload: .restart,
            help: "An ambient light sensor to dim by: none, auto (the first IIO device that measures illuminance), or its IIO name like iio:device0. The display is then no brighter than light_curve says for the room, nor than brightness."),
        SettingDescriptor(
            "light_curve", \.power.lightCurve, .lightCurve, flag: .show, valueName: "curve", reload: .live,
            help: "Lux to brightness for light_sensor: \"0 lux 10%, 50 lux 40%, 400 lux 100%\", straight between the points; a change smaller than 5 points is not followed, so the display does not pulse."),
        SettingDescriptor(
            "cec", \.power.cec, .cec, flag: .show, valueName: "cec", reload: .restart,
            help: "HDMI-CEC for TVs: auto (the connector's adapter), off, or a device like /dev/cec0."),
        SettingDescriptor(
            "state_dir", \.stateDirectory, .stateDirectory, flag: .show, valueName: "path", reload: .restart,
            help: "Where the centred picture is kept to resume on, or none."),
        // Words on the screen.
        SettingDescriptor(
            "caption", \.text.caption, .caption, flag: .drawing, valueName: "template", reload: .live,
            help: "What each picture's caption says, e.g. \"{title}\\n{date:%e %B %Y}\": {title} (EXIF ImageDescription, else XMP dc:title, dc:description, else the IPTC caption), {date} or {date:strftime pattern} (when it was taken), {file} (its name without extension), {folder}, and from Immich {people} (the names of the people in it) and {album}; \"\" for none. A line whose fields are all empty is left out."),
        SettingDescriptor(
            "caption_lines", \.text.captionLines, .captionLines, flag: .drawing, valueName: "n", reload: .live,
            help: "Lines a caption may wrap to (1 to 10); the last is cut with an ellipsis."),
        SettingDescriptor(
            "clock", \.text.clock, .clock, flag: .drawing, valueName: "pattern", reload: .live,
            help: "A clock in a corner, as a strftime pattern: \"%H:%M\", \"%a %e %b  %H:%M\"; or none. It changes at each minute's turn, so seconds are refused."),
        SettingDescriptor(
            "clock_corner", \.text.clockCorner, .word(expected: "top-left, top-right, bottom-left or bottom-right"), flag: .drawing, valueName: "corner", reload: .live,
            help: "Where the clock is: top-left, top-right, bottom-left or bottom-right."),
        SettingDescriptor(
            "text_font", \.text.font, .fontFamily, flag: .drawing, valueName: "family", reload: .live,
            help: "The font family, as fontconfig names it (\"DejaVu Sans\", \"Noto Serif\", sans-serif). Characters it lacks (Arabic, CJK, emoji) come from other installed fonts."),
        SettingDescriptor(
            "text_size", \.text.size, .textSize, flag: .drawing, valueName: "pt", reload: .live,
            help: "Text size in points, relative to the screen's height (a point is 1/72 inch on a 1080-line screen at 96 dpi, so 20 is 27 pixels there, 53 at 4K). Messages are a quarter larger."),
        SettingDescriptor(
            "text_colour", \.text.colour, .colour, flag: .drawing, valueName: "rrggbb", reload: .live,
            help: "Text colour as RRGGBB."),
        SettingDescriptor(
            "text_style", \.text.legibility, .word(expected: "outline, shadow, band or none"), flag: .drawing, valueName: "style", reload: .live,
            help: "What keeps text legible on any picture: outline (a dark border round each letter), shadow, band (a translucent band behind it) or none. Messages always have a band."),
        SettingDescriptor(
            "locale", \.text.locale, .locale, flag: .drawing, valueName: "name", reload: .live,
            unwritten: "the environment's (LC_ALL, LC_TIME, LANG)",
            help: "The locale dates are written in, e.g. de_DE.UTF-8 (it must be installed: locale -a)."),
        // Home Assistant and fleets over MQTT.
        SettingDescriptor(
            "broker", in: "mqtt", \.mqtt.broker, .mqttBroker, flag: .show, valueName: "url", reload: .reconnect,
            help: "The MQTT broker to join: mqtt://host:1883, mqtts://host:8883 (TLS), or none: no MQTT."),
        SettingDescriptor(
            "name", in: "mqtt", \.mqtt.name, .mqttName, flag: .show, valueName: "name", reload: .reconnect,
            unwritten: "the host name, made one topic level (lower case, _ for anything but letters, digits and -)",
            help: "The kiosk's name in its topics (kioskd/<name>/...) and in Home Assistant: letters, digits, _ and -."),
        SettingDescriptor(
            "groups", in: "mqtt", \.mqtt.groups, .mqttGroups, flag: .show, valueName: "g1,g2", reload: .reconnect,
            help: "Groups the kiosk belongs to: it obeys kioskd/group/<group>/command and slides on the group's shared beat."),
        SettingDescriptor(
            "discovery_prefix", in: "mqtt", \.mqtt.discoveryPrefix, .discoveryPrefix, flag: .show, valueName: "prefix", reload: .reconnect,
            help: "Home Assistant's discovery prefix, or \"\" for no discovery."),
        SettingDescriptor(
            "username", in: "mqtt", \.mqtt.username, .userName, flag: .show, valueName: "user", reload: .reconnect,
            unwritten: "none: the broker is joined anonymously",
            help: "The user name the broker knows the kiosk by."),
        SettingDescriptor(
            "password_file", in: "mqtt", \.mqtt.passwordFile, .file(example: "mqtt-password"), flag: .show, valueName: "path", reload: .reconnect,
            unwritten: "none",
            help: "A file whose first line is the password (never the config itself); a bare name is looked up in systemd's $CREDENTIALS_DIRECTORY (LoadCredential=)."),
        SettingDescriptor(
            "ca_file", in: "mqtt", \.mqtt.caFile, .file(example: "/etc/kioskd/broker-ca.pem"), flag: .show, valueName: "path", reload: .reconnect,
            unwritten: "the system's certificates (/etc/ssl/certs)",
            help: "PEM certificates an mqtts:// broker's certificate must chain to; it is refused when it does not."),
        SettingDescriptor(
            "client_cert", in: "mqtt", \.mqtt.clientCert, .file(example: "/etc/kioskd/kiosk.pem"), flag: .none, valueName: "path", reload: .reconnect,
            unwritten: "none",
            help: "The kiosk's own certificate (PEM), for a broker that asks for one; with client_key."),
        SettingDescriptor(
            "client_key", in: "mqtt", \.mqtt.clientKey, .file(example: "/etc/kioskd/kiosk.key"), flag: .none, valueName: "path", reload: .reconnect,
            unwritten: "none",
            help: "The key of client_cert (PEM, unencrypted)."),
        SettingDescriptor(
            "keepalive", in: "mqtt", \.mqtt.keepalive, .keepalive, flag: .show, valueName: "s", reload: .reconnect,
            help: "Seconds between keepalives: the broker says the kiosk is offline 1.5 keepalives after it last heard from it."),
        // Photo libraries on servers.
        SettingDescriptor(
            "url", in: "webdav", \.webdav.url, .serverAddress, flag: .show, valueName: "url", reload: .newFolder,
            help: "A WebDAV folder whose pictures join the show (Nextcloud: https://host/remote.php/dav/files/USER/Photos/), mirrored into the cache under state_dir and shown from there, so they go on showing while it is offline; or none."),
        SettingDescriptor(
            "username", in: "webdav", \.webdav.username, .userName, flag: .show, valueName: "user", reload: .newFolder,
            unwritten: "none: the server is read without logging in",
            help: "The user name the server knows the kiosk by (Basic or Digest authentication)."),
        SettingDescriptor(
            "password_file", in: "webdav", \.webdav.passwordFile, .file(example: "webdav-password"), flag: .show, valueName: "path", reload: .newFolder,
            unwritten: "none",
            help: "A file whose first line is the password (Nextcloud: an app password); a bare name is looked up in systemd's $CREDENTIALS_DIRECTORY (LoadCredential=)."),
        SettingDescriptor(
            "poll", in: "webdav", \.webdav.poll, .pollInterval, flag: .show, valueName: "time", reload: .newFolder,
            help: "How often the server is asked what changed: \"5m\", \"30s\", \"1h\" (at least 10 seconds). Files are compared by ETag and size; only changed files are fetched."),
        SettingDescriptor(
            "ca_file", in: "webdav", \.webdav.caFile, .file(example: "/etc/kioskd/home-ca.pem"), flag: .show, valueName: "path", reload: .newFolder,
            unwritten: "the system's certificates (/etc/ssl/certs)",
            help: "PEM certificates an https:// server's certificate must chain to (a home CA); it is refused when it does not."),
        SettingDescriptor(
            "url", in: "immich", \.immich.url, .serverAddress, flag: .show, valueName: "url", reload: .newFolder,
            help: "An Immich server whose chosen photos join the show (its web address, e.g. https://photos.example/), mirrored into the cache under state_dir as a WebDAV folder's are; or none."),
        SettingDescriptor(
            "api_key_file", in: "immich", \.immich.apiKeyFile, .file(example: "immich-api-key"), flag: .show, valueName: "path", reload: .newFolder,
            unwritten: "none",
            help: "A file whose first line is an API key made in Immich (Account Settings, API Keys; asset.read and the search, album, person and memory reads suffice); a bare name is looked up in systemd's $CREDENTIALS_DIRECTORY (LoadCredential=)."),
        SettingDescriptor(
            "albums", in: "immich", \.immich.albums, .immichNames(example: "Holidays 2024"), flag: .show, valueName: "a1,a2", reload: .newFolder,
            help: "Albums whose photos are shown, by their names as Immich shows them or by their ids; names are looked up again at every poll."),
        SettingDescriptor(
            "people", in: "immich", \.immich.people, .immichNames(example: "Grandma"), flag: .show, valueName: "p1,p2", reload: .newFolder,
            help: "People whose photos are shown, by their names as Immich shows them or by their ids."),
        SettingDescriptor(
            "favourites", in: "immich", \.immich.favourites, .boolean, flag: .show, switch: true, valueName: "bool", reload: .newFolder,
            help: "Show the photos marked as favourites."),
        SettingDescriptor(
            "memories", in: "immich", \.immich.memories, .boolean, flag: .show, switch: true, valueName: "bool", reload: .newFolder,
            help: "Show today's memories: the photos Immich shows \"on this day\" in earlier years."),
        SettingDescriptor(
            "random", in: "immich", \.immich.random, .immichRandom, flag: .show, valueName: "n", reload: .newFolder,
            help: "How many random photos of the whole library each poll shows, drawn anew each time; 0: none."),
        SettingDescriptor(
            "poll", in: "immich", \.immich.poll, .pollInterval, flag: .show, valueName: "time", reload: .newFolder,
            help: "How often the server is asked what changed: \"5m\", \"30s\", \"1h\" (at least 10 seconds). Album and people names are looked up again each time."),
        SettingDescriptor(
            "ca_file", in: "immich", \.immich.caFile, .file(example: "/etc/kioskd/home-ca.pem"), flag: .show, valueName: "path", reload: .newFolder,
            unwritten: "the system's certificates (/etc/ssl/certs)",
            help: "PEM certificates an https:// server's certificate must chain to (a home CA); it is refused when it does not."),
        SettingDescriptor(
            "cache_max", \.libraryCache.maxBytes, .byteSize, flag: .show, valueName: "size", reload: .newFolder,
            help: "The most disk the server libraries' cache takes: \"1GB\", \"500MB\", \"8GiB\". A library larger than the cache shows its first pictures."),
        SettingDescriptor(
            "cache_items", \.libraryCache.maxItems, .cacheItems, flag: .show, valueName: "n", reload: .newFolder,
            help: "The most files the server libraries' cache holds."),
        // kioskd-web's page.
        SettingDescriptor(
            "listen", in: "web", \.web.listen, .webListen, flag: .none, valueName: "address:port", reload: .webRestart,
            help: "Where kioskd-web serves the page on the local network (\"0.0.0.0:8080\", \"[::]:8080\", \"127.0.0.1:8080\"), or none: no page. Beyond loopback, give tls_cert and tls_key."),
        SettingDescriptor(
            "password_file", in: "web", \.web.passwordFile, .file(example: "/etc/kioskd/web-password"), flag: .none, valueName: "path", reload: .webRestart,
            unwritten: "none",
            help: "A file whose first line is the page's password as an Argon2id hash, made by `kioskd-web hash-password`; a bare name is looked up in systemd's $CREDENTIALS_DIRECTORY."),
        SettingDescriptor(
            "tls_cert", in: "web", \.web.tlsCert, .file(example: "/etc/kioskd/web.pem"), flag: .none, valueName: "path", reload: .webRestart,
            unwritten: "none: plain http",
            help: "The page's certificate (PEM), with tls_key: the page is then https only and its cookie Secure."),
        SettingDescriptor(
            "tls_key", in: "web", \.web.tlsKey, .file(example: "/etc/kioskd/web.key"), flag: .none, valueName: "path", reload: .webRestart,
            unwritten: "none",
            help: "The key of tls_cert (PEM, unencrypted)."),
        SettingDescriptor(
            "upload_max", in: "web", \.web.uploadMax, .byteSize, flag: .none, valueName: "size", reload: .webRestart,
            help: "The largest file the page takes (a photo or a clip): \"500MB\", \"2GB\"; a larger one is refused before it is sent."),
        SettingDescriptor(
            "upload_count", in: "web", \.web.uploadCount, .uploadCount, flag: .none, valueName: "n", reload: .webRestart,
            help: "The most files one upload takes."),
    ])
}

/// The settings, each by its ``SettingDescriptor``.
public struct SettingsTable: Sendable {
    public let descriptors: [SettingDescriptor]
    /// The TOML tables settings sit in (`mqtt` for `[mqtt]`).
    public let tables: Set<String>
    private let byKey: [String: Int]

    public init(_ descriptors: [SettingDescriptor]) {
        self.descriptors = descriptors
        tables = Set(descriptors.compactMap(\.table))
        byKey = Dictionary(descriptors.enumerated().map { ($1.key, $0) }) { first, _ in first }
    }

    /// Every setting's name as the file spells it (`interval`, `mqtt.broker`).
    public var keys: [String] { descriptors.map(\.key) }

    public subscript(key: String) -> SettingDescriptor? { byKey[key].map { descriptors[$0] } }

    /// Sets `key` in `settings`; for a table's name, each entry of the
    /// table (`[mqtt]` with `broker = ...` sets `mqtt.broker`). Returns the
    /// keys set. A name kioskd does not know is refused with the one most
    /// likely meant: a typo is never silently ignored.
    @discardableResult
    public func set(_ key: String, to value: SettingValue, in settings: inout KioskSettings) throws(SettingError) -> [String] {
        if let descriptor = self[key] {
            try descriptor.set(&settings, to: value)
            return [key]
        }
        if tables.contains(key), case .table(let entries) = value {
            var set: [String] = []
            for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
                set += try self.set(key + "." + name, to: entry, in: &settings)
            }
            return set
        }
        let guess = closestName(to: key, among: keys).map { "did you mean \($0)? " } ?? ""
        throw SettingError(
            setting: key, value: value.written,
            reason: "unknown setting; \(guess)known settings are \(keys.joined(separator: ", "))")
    }

    /// The keys whose values differ between `old` and `new`, in the table's order.
    public func changed(from old: KioskSettings, to new: KioskSettings) -> [SettingDescriptor] {
        descriptors.filter { $0.write(old) != $0.write(new) }
    }

    /// docs/configuration-reference.md: every setting with its flag, its
    /// default, when a reload applies it, and its help. Written from the
    /// table (`make reference`); a test fails when the page differs.
    public var reference: String {
        var lines = [
            "# Configuration reference",
            "",
            "Every setting kioskd has, generated from its settings table (`KioskSettings.table` in",
            "`Sources/KioskCore/Settings/SettingsTable.swift`) by `make reference`; a test fails when this page",
            "and the table differ. [configuration.md](configuration.md) explains the layout's math and the",
            "decisions behind the defaults.",
            "",
            "- **Setting**: the name in the config file (`/etc/kioskd/kioskd.toml`, TOML). A setting shown",
            "  as `table.name` goes in that table: `[table]` then `name = ...`.",
            "- **Flag**: the command-line flag, which wins over the file. `kioskd` (the show) takes every",
            "  flag; `kioskd snapshot` takes those marked *(snapshot too)*.",
            "- **Reload**: what a changed value needs on `kioskctl reload` or SIGHUP: *live* applies at once,",
            "  *new folder* watches the folder anew, *new display* opens the display again, *restart* waits",
            "  for kioskd to restart (logged).",
            "",
            "| Setting | Flag | Default | Reload | Meaning |",
            "| --- | --- | --- | --- | --- |",
        ]
        for setting in descriptors {
            let flag: String
            switch setting.flag {
            case .none: flag = "file only"
            case .drawing, .show:
                let spelled = setting.flagIsSwitch
                    ? "`--\(setting.flagName)`, `--no-\(setting.flagName)`" : "`--\(setting.flagName) <\(setting.valueName)>`"
                flag = spelled + (setting.flag == .drawing ? " *(snapshot too)*" : "")
            }
            let cells = ["`\(setting.key)`", flag, setting.shownDefault, setting.reload.rawValue, setting.help]
            lines.append("| " + cells.map { $0.replacingPipes }.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension String {
    /// A table cell's text: `|` would end the cell.
    fileprivate var replacingPipes: String { split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|") }
}
