import ImageCodecs
import KioskCore
import KioskRendering

/// The clip playing in the centre, on the run loop's side (the
/// ``ClipWorker`` decodes it): its clock (``ClipPlayback``), the frames
/// decoded ahead and not yet shown, and the frame on screen.
///
/// Its clock starts at the refresh its first frame goes on screen, so the
/// frame shown at each refresh is the one nearest it on that clock, and
/// decoding that falls behind drops frames, never the display's pace. The
/// frames in flight are a fixed few (``framesAhead``): the worker decodes
/// only as far ahead as ``request(options:)`` asks, each frame the size of
/// the slot, so a 4K clip costs its decoder's reference frames and no
/// more than four slot-sized pictures after it.
struct PlayingClip {
    let path: String
    /// The strip slot it plays in (the centre when it started).
    let slot: Int
    /// Its number: a clip started again is a new playback, from its first frame.
    let playback: Int
    let settings: ClipSettings
    /// The slot's fitted size, for the worker.
    let fitted: PixelSize
    /// What the container says, once the worker opened it.
    private(set) var info: ClipInfo?
    /// Its clock; nil until its first frame is on screen.
    private(set) var clock: ClipPlayback?
    /// Decoded and not yet shown: times on the clip's clock, oldest first.
    private var ready: [(time: Double, picture: RasterImage)] = []
    /// The frame on screen; nil before the first (the slot shows the poster, its first frame).
    private(set) var current: RasterImage?
    /// Frames taken off ``ready``: shown, or dropped.
    private var consumed = 0
    private(set) var shown = 0
    /// Where the stream ends on the clip's clock, once the worker read that far.
    private var streamEnd: Double?
    /// The worker has nothing more to give (the end read, or the clip broke).
    private(set) var decodingDone = false

    /// Frames decoded ahead of the one on screen.
    static let framesAhead = 3

    init(path: String, slot: Int, playback: Int, settings: ClipSettings, fitted: PixelSize) {
        self.path = path
        self.slot = slot
        self.playback = playback
        self.settings = settings
        self.fitted = fitted
    }

    /// What the worker should decode: up to ``framesAhead`` frames past those taken; nil once there is nothing more to decode.
    func request(options: DecodeOptions) -> ClipRequest? {
        guard !decodingDone, !isOver else { return nil }
        return ClipRequest(
            path: path, playback: playback, options: options, slot: fitted, loops: settings.repeats == .loop,
            through: consumed + Self.framesAhead - 1)
    }

    /// The clip has played its time: to its end (`once`) or `video_max`.
    var isOver: Bool { clock.map { $0.isOver(at: $0.pausedAt ?? lastRefresh) } ?? false }
    /// The refresh the last frame was chosen for.
    private var lastRefresh = -Double.infinity

    /// Takes what the worker sent for this playback; returns the error when the clip broke.
    mutating func take(_ outcome: ClipOutcome) -> ImageFileError? {
        switch outcome {
        case .opened(_, let info):
            self.info = info
        case .frame(_, _, let time, let picture):
            ready.append((time, picture))
        case .ended(_, let at):
            decodingDone = true
            streamEnd = at
            clock?.streamEnded(at: at)
        case .failed(_, let error):
            decodingDone = true
            ready = []
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
            guard !ready.isEmpty else { return step }
            var started = ClipPlayback(repeats: settings.repeats, maximum: settings.maximum, startedAt: refresh)
            // Until the worker reads the stream's end, the container's length stands for it.
            if let end = streamEnd ?? info?.length { started.streamEnded(at: end) }
            clock = started
            step.started = true
        }
        guard var clock, !isOver else { return step }
        let choice = clock.frame(for: refresh, period: period, ready: ready.map(\.time))
        self.clock = clock
        if let show = choice.show {
            current = ready[show].picture
            shown += 1
            step.changed = true
        }
        ready.removeFirst(choice.release)
        consumed += choice.release
        return step
    }

    /// When the next frame is due (the run loop wakes for it): at once when
    /// the first is ready; nil while paused, over, or with nothing ready.
    func nextDue(period: Double) -> Double? {
        guard let clock else { return ready.isEmpty ? nil : -.infinity }
        guard !isOver else { return nil }
        return clock.nextDue(ready: ready.map(\.time), period: period)
    }

    /// When the clip's rest ends (its end, or `video_max`); nil before it started or while paused.
    var endsAt: Double? { clock?.endsAt }

    /// Frames let go unseen.
    var dropped: Int { clock?.dropped ?? 0 }

    mutating func pause(at now: Double) { clock?.pause(at: now) }
    mutating func resume(at now: Double) { clock?.resume(at: now) }

    /// `status`: where it is, how long it is, how it is decoded; nil before its first frame.
    func status(at now: Double) -> ClipStatus? {
        guard let clock, !isOver else { return nil }
        return ClipStatus(position: min(clock.clipTime(at: now), clock.playsFor), length: clock.length ?? info?.length, decoder: "software")
    }
}
