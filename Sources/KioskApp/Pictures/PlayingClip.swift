import ImageCodecs
import KioskCore
import KioskRendering

/// The clip playing in the centre, on the run loop's side (the
/// ``ClipWorker`` decodes it): its clock (``ClipPlayback``), the frames
/// decoded ahead and not yet shown, and the frame on screen.
///
/// Its clock starts at the refresh its first frame goes on screen, so the
/// frame shown at each refresh is the one nearest it on that clock. A
/// decoder that falls behind never holds the display back: a frame whose
/// moment passed while a newer one was ready is let go unseen, and the
/// worker does not even convert frames already late when it decodes them
/// (``ClipRequest/skipBefore``); both count as dropped. The frames in
/// flight are a fixed few (``framesAhead``): the worker decodes only as far
/// ahead as ``request(options:)`` asks, each frame the size of the slot,
/// so a 4K clip costs its decoder's reference frames and no more than
/// four slot-sized pictures after it: two ahead, the one on screen, and
/// the one before it, which the screen's other buffer still holds.
struct PlayingClip {
    /// The file its slot shows: the clip, or the motion photo's still.
    let path: String
    /// What plays: the clip itself, a motion photo's movie (bytes `range`
    /// of its still), or a Live Photo's MOV beside its still.
    let movie: ClipSource
    /// A motion photo's movie: the still is its poster, and shows again once `once` has played.
    let isMotion: Bool
    /// The strip slot it plays in (the centre when it started; renumbered with the strip).
    private(set) var slot: Int
    /// Its number: a clip started again is a new playback, from its first frame.
    let playback: Int
    let settings: ClipSettings
    /// The slot's size, for the worker.
    let fitted: PixelSize
    /// What the container says, once the worker opened it.
    private(set) var info: ClipInfo?
    /// Its clock; nil until its first frame is on screen, and again once it broke.
    private(set) var clock: ClipPlayback?
    /// Decoded and not yet shown: numbers and times on the clip's clock, oldest first.
    private var ready: [(number: Int, time: Double, picture: RasterImage)] = []
    /// The frame on screen; nil before the first (the slot shows the poster, its first frame).
    private(set) var current: RasterImage?
    /// The next frame number after those taken off ``ready`` (shown, or dropped).
    private var consumedThrough = 0
    private(set) var shown = 0
    /// Frames the worker passed over unconverted, already late.
    private var skippedByDecoder = 0
    /// Where the stream ends on the clip's clock, once the worker read that far.
    private var streamEnd: Double?
    /// The worker has nothing more to give (the end read, or the clip broke).
    private(set) var decodingDone = false
    /// It broke: it stays on its first frame, and nothing of it is in `status`.
    private(set) var failed = false
    /// The show was paused before the first frame went on screen: the clock starts paused.
    private var pausedBeforeStart: Bool
    /// The refresh the last frame was chosen for.
    private var lastRefresh = -Double.infinity

    /// Frames decoded ahead of the one on screen: two, 67 ms of a 30 fps
    /// clip (three cost 6 MB more at 1080p and dropped no fewer frames in
    /// `make bench`'s minute of 1080p30, `video_peak_rss_mb`).
    static let framesAhead = 2
    /// How finely the worker is told where the clip's clock is (seconds): a request every so often, not every refresh.
    static let playheadStep = 0.05

    /// When the strip came to rest on it (the monotonic clock): its start's latency counts from here.
    let restedAt: Double

    init(
        path: String, movie: ClipSource? = nil, slot: Int, playback: Int, settings: ClipSettings, fitted: PixelSize, paused: Bool, at now: Double
    ) {
        self.path = path
        restedAt = now
        self.movie = movie ?? ClipSource(path: path)
        isMotion = movie != nil
        self.slot = slot
        self.playback = playback
        self.settings = settings
        self.fitted = fitted
        pausedBeforeStart = paused
    }

    /// What the worker should decode: up to ``framesAhead`` frames past
    /// those taken, passing over those already late; nil once there is
    /// nothing more to decode.
    func request(options: DecodeOptions) -> ClipRequest? {
        guard !decodingDone, !isOver(at: lastRefresh) else { return nil }
        let late = clock.map { (($0.clipTime(at: lastRefresh) - Self.playheadStep) / Self.playheadStep).rounded(.down) * Self.playheadStep }
        return ClipRequest(
            movie: movie, playback: playback, options: options, slot: fitted, loops: settings.repeats == .loop,
            through: consumedThrough + Self.framesAhead - 1, skipBefore: late ?? -.infinity)
    }

    /// The clip has played its time at `now`: to its end (`once`) or `video_max`.
    func isOver(at now: Double) -> Bool { clock?.isOver(at: now) ?? false }

    /// The strip's slots were renumbered by `delta` (a file came or went): the clip plays on.
    mutating func renumber(by delta: Int) { slot += delta }

    /// Takes what the worker sent for this playback; returns the error when the clip broke.
    mutating func take(_ outcome: ClipOutcome) -> ImageFileError? {
        switch outcome {
        case .opened(_, let info):
            self.info = info
        case .frame(_, let number, let time, let picture, let skipped):
            ready.append((number, time, picture))
            skippedByDecoder += skipped
        case .ended(_, let at):
            decodingDone = true
            streamEnd = at
            clock?.streamEnded(at: at)
        case .failed(_, let error):
            decodingDone = true
            failed = true
            ready = []
            current = nil
            clock = nil
            return error
        }
        return nil
    }

    /// What a refresh changed.
    struct Step {
        /// The first frame went on screen: the clip's clock started.
        var started = false
        /// A new frame is on screen.
        var changed = false
    }

    /// Chooses the frame for the refresh at `refresh` (`period` apart): the
    /// first starts the clock; then the frame nearest the refresh on it.
    mutating func advance(refresh: Double, period: Double) -> Step {
        var step = Step()
        lastRefresh = refresh
        if clock == nil {
            guard !ready.isEmpty, !failed else { return step }
            var started = ClipPlayback(repeats: settings.repeats, maximum: settings.maximum, startedAt: refresh)
            // Until the worker reads the stream's end, the container's length stands for it.
            if let end = streamEnd ?? info?.length { started.streamEnded(at: end) }
            if pausedBeforeStart { started.pause(at: refresh) }
            clock = started
            step.started = true
        }
        guard var clock, !isOver(at: refresh) else {
            // A motion photo played `once` shows its still again.
            if isMotion && current != nil && isOver(at: refresh) {
                current = nil
                step.changed = true
            }
            return step
        }
        let choice = clock.frame(for: refresh, period: period, ready: ready.map(\.time))
        self.clock = clock
        if let show = choice.show {
            current = ready[show].picture
            shown += 1
            step.changed = true
        }
        if choice.release > 0 {
            consumedThrough = ready[choice.release - 1].number + 1
            ready.removeFirst(choice.release)
        }
        return step
    }

    /// When the next frame is due (the run loop wakes for it): at once when
    /// the first is ready; nil while paused, over, or with nothing ready.
    func nextDue(period: Double) -> Double? {
        guard let clock else { return ready.isEmpty || failed ? nil : -.infinity }
        guard !isOver(at: lastRefresh) else { return isMotion && current != nil ? -.infinity : nil }
        let due = clock.nextDue(ready: ready.map(\.time), period: period)
        // A motion photo's still comes back at the movie's end.
        guard isMotion, let end = clock.endsAt else { return due }
        return min(due ?? end, end)
    }

    /// One play of a motion photo's movie ends here (the photo rests at
    /// least so long); nil before it started, or when its length is not known.
    var onePlayEndsAt: Double? {
        guard let clock, let ends = clock.endsAt, let length = streamEnd ?? info?.length, length > 0 else { return nil }
        return ends - clock.playsFor + min(length, clock.maximum)
    }

    /// When the clip's rest ends (its end, or `video_max`); nil before it started, while paused, or once it broke.
    var endsAt: Double? { clock?.endsAt }

    /// Frames let go unseen: dropped at a refresh, or passed over by the worker.
    var dropped: Int { (clock?.dropped ?? 0) + skippedByDecoder }

    mutating func pause(at now: Double) {
        if clock == nil { pausedBeforeStart = true } else { clock?.pause(at: now) }
    }

    mutating func resume(at now: Double) {
        if clock == nil { pausedBeforeStart = false } else { clock?.resume(at: now) }
    }

    /// `status`: where it is, how long it is, how it is decoded; nil before its first frame, once over, or broken.
    func status(at now: Double) -> ClipStatus? {
        guard let clock, !isOver(at: now) else { return nil }
        return ClipStatus(position: min(clock.clipTime(at: now), clock.playsFor), length: clock.length ?? info?.length, decoder: "software")
    }
}
