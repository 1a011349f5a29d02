/// What a running show has done so far: for the log on exit, the control
/// socket's `status` and the benchmark.
public struct ShowStatistics: Equatable, Sendable {
    public var framesShown = 0
    /// Frames shown after the first picture whose centred slot had no
    /// picture in it (the background, or one still being decoded): a
    /// library's outage shows here (`offline_gap_frames`).
    public var framesWithoutPicture = 0
    /// Refreshes during a slide that showed no new frame: the composition
    /// (or the loop) missed them.
    public var refreshesMissed = 0
    /// Slides begun, by the timer or by a command.
    public var slides = 0
    /// Frames shown by moving the display's window over a buffer drawn
    /// before (panning: nothing drawn), and frames drawn by the CPU (a
    /// composed frame, or a long buffer drawn for panning).
    public var framesPanned = 0
    public var framesComposed = 0
    /// Of the frames composed, those that drew a long buffer for panning.
    public var longBuffersDrawn = 0
    /// Long buffers drawn while the strip rested before a slide, for its
    /// frames to be windows of: not frames, so not in ``framesComposed``.
    public var longBuffersDrawnAhead = 0
    /// The display loop's CPU seconds (its thread's, kernel calls included)
    /// spent making and presenting the frames of each kind: panned,
    /// composed (a screenful), long buffers drawn (for a frame or ahead).
    /// `pan_frame_cpu_ratio` divides the first two averages.
    public var pannedFramesCPU = 0.0
    public var composedFramesCPU = 0.0
    public var longBuffersCPU = 0.0
    /// Playlist changes animated on screen (``StripChange``).
    public var changesAnimated = 0
    /// Frames of clips put on screen, and those let go unseen because
    /// decoding fell behind (``ClipPlayback/dropped``).
    public var clipFramesShown = 0
    public var clipFramesDropped = 0
    /// From the strip coming to rest on a clip (or a motion photo) to its
    /// first frame's refresh, each start (`video_start_ms`).
    public var clipStart = LatencyHistogram()
    /// The composition time of the frames drawn while a clip played, in
    /// 10 µs steps (`frame_time_p99_share_video`).
    public var clipComposeTime = LatencyHistogram(step: 0.000_01, ceiling: 0.1)
    /// True when the strip is still (no slide in progress).
    public var atRest = true
    /// From each finger move's kernel timestamp to the flip of the first
    /// frame that shows it (`input_to_photon_ms`).
    public var inputToPhoton = LatencyHistogram()
    /// From the lift that ended each pinch (its kernel timestamp) to the
    /// flip of the first frame with the zoomed part decoded again sharp (`zoom_sharp_ms`).
    public var zoomToSharp = LatencyHistogram()
    /// How long each frame took to compose into the screen's buffer, in
    /// 10 µs steps (`frame_time_p99_share`).
    public var composeTime = LatencyHistogram(step: 0.000_01, ceiling: 0.1)
    /// When the first frame with the centred picture was shown (the show's
    /// monotonic clock, seconds): `first_picture_ms`.
    public var firstPictureShownAt: Double?
    /// When the first frame of each move a command asked for (`next`,
    /// `prev`, `goto`, from the socket, a signal or MQTT) reached the
    /// screen, on the show's clock: the benchmark pairs them with when it
    /// sent each command (`mqtt_command_to_photon_ms`). The first
    /// ``commandedMovesKept`` are kept.
    public var commandedMovesShown: [Double] = []
    public static let commandedMovesKept = 4096
    /// When the first frame after each wake of the display reached the
    /// screen (`presence_wake_ms`); the first ``commandedMovesKept`` are kept.
    public var wakesShown: [Double] = []

    public init() {}
}

/// Something the show did that someone outside it may want to know: the
/// operator's log, systemd (`sd_notify`), the control socket's `watch`
/// clients and the tests all hear the same events, each rendering them its
/// own way. What the kiosk senses about the room is not the show's doing:
/// it is a ``SensorReading``, heard apart.
public enum ShowEvent: Equatable, Sendable {
    /// Every slot on screen has its picture for the first time: the kiosk
    /// is up. `centred` is the playlist item in the centre and `file` its
    /// path, nil when the playlist is empty.
    case ready(pictureCount: Int, centred: Int?, file: String?)
    /// The strip came to rest with `file` (item `item`) in the centre; with
    /// `portrait_pairs`, the left one of a pair whose right one is `pairedWith`.
    /// `shownAt`: when that frame reached the screen, in Unix time (the wall
    /// clock, which NTP keeps alike on every kiosk: `watch` clients compare kiosks by it).
    case pictureCentred(item: Int, file: String, pairedWith: String? = nil, shownAt: Double? = nil)
    /// A file could not be shown and left the playlist.
    case pictureRefused(file: String, reason: String)
    /// An animated picture broke after its first frame: it stays on the frame it shows.
    case animationStopped(file: String, reason: String)
    /// A video clip began to play in the centre: `words` are its codec,
    /// size, rate and length and how it is decoded (``ClipInfo``).
    case clipStarted(file: String, words: String)
    /// A clip could not go on (broken mid-way, or it never opened): its first frame stays.
    case clipStopped(file: String, reason: String)
    /// The zoomed part of a picture could not be decoded again sharp: it stays scaled up.
    case zoomNotSharp(file: String, reason: String)
    /// Something about a file that does not stop it showing (a HEIF burst
    /// shown by its primary image): once per file while the show runs.
    case pictureNote(file: String, note: String)
    /// The playlist changed: `added` files arrived and `removed` left (a
    /// rewritten file that moved counts in both); `count` is its new length.
    case playlistChanged(count: Int, added: Int, removed: Int)
    /// The picture folder is gone (unmounted, deleted): the background shows until it is back.
    case folderGone(folder: String)
    /// The picture folder is back, with `count` pictures.
    case folderBack(folder: String, count: Int)
    /// Something about the folder worth a line (a rescan, the watch limit, files not shown).
    case folderNote(String)
    /// A server library's state changed (or why it is not online did):
    /// `library` as it is now, `reason` why it is offline or refused.
    case libraryChanged(LibraryStatus, reason: String?)
    /// Something about the text on the screen worth one log line: a font
    /// family substituted, no fonts at all, a locale not installed.
    case textNote(String)
    /// The message over the picture changed: shown (`text`), replaced,
    /// cleared or expired (nil). Said when the command is obeyed, before the
    /// text is drawn, so `status` and MQTT's state follow it at once.
    case messageChanged(text: String?)
    /// The settings were applied again (a reload); the centred picture kept its place.
    case settingsApplied
    /// Automatic slides stopped (`pause`); manual moves still work.
    case paused
    /// Automatic slides go on (`resume`).
    case resumed
    /// The display stopped taking frames; the show keeps time and retries.
    case displayLost(reason: String)
    /// The display takes frames again.
    case displayBack
    /// The panel changed state (``PanelState``): switched off or on
    /// (`kioskctl display`, the schedule), its screen unplugged or back;
    /// `why` says what did it, for the log.
    case panelChanged(PanelState, why: String)
    /// Whether frames are panned changed (a new screen, a setting, a test
    /// commit the driver refused): the log's line, `panning: on (how)` or
    /// `panning: off (why)`.
    case panningChanged(String)
    /// The show moved to another screen (a reload or a hotplug): the loop
    /// watches the new screen's flip events, touches map to its size and turn.
    case screenChanged
    /// The seat went to another session (`active` false: a VT switch) or
    /// came back: the input gives its devices back and opens them again,
    /// the display is probed again.
    case seatChanged(active: Bool)
    /// The show stopped: why (a signal's name, or nil when it was asked to)
    /// and what it had done.
    case stopped(reason: String?, statistics: ShowStatistics)
}
