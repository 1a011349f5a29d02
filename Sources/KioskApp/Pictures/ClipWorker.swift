import ImageCodecs
import KioskCore
import KioskRendering
import LinuxPlatform
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The clip the show wants played: a file, its playback (a new number
/// starts it again from its first frame), how it is fitted, whether it
/// loops, and the last frame number to have decoded (frames are numbered
/// from 0 across plays): the show asks for a few ahead of what it has
/// taken, so the frames in flight are a fixed number.
struct ClipRequest: Equatable, Sendable {
    var movie: ClipSource
    var playback: Int
    var options: DecodeOptions
    var slot: PixelSize
    var loops: Bool
    var through: Int
    /// Frames earlier than this on the clip's clock are late already: decoded (the next need them) but not converted, and counted.
    var skipBefore: Double
}

/// What the clip decoder tells the show.
enum ClipOutcome: Sendable {
    /// The clip opened: what it is.
    case opened(playback: Int, info: ClipInfo)
    /// Frame `number`, fitted to the slot, at `time` on the clip's clock;
    /// `skipped` frames before it were passed over, late.
    case frame(playback: Int, number: Int, time: Double, picture: RasterImage, skipped: Int)
    /// The stream ended (a clip played once): its last frame ends at `at` on the clip's clock.
    case ended(playback: Int, at: Double)
    /// It cannot be played (on): the show stops it, and its first frame stays.
    case failed(playback: Int, ImageFileError)
}

extension ClipOutcome {
    /// The playback it belongs to.
    var playback: Int {
        switch self {
        case .opened(let playback, _), .frame(let playback, _, _, _, _), .ended(let playback, _), .failed(let playback, _): playback
        }
    }
}

/// Something that decodes a clip's frames off the run loop: the
/// ``ClipWorker``, or in tests one that decodes as it is asked.
protocol ClipDecoder: AnyObject {
    /// Replaces the clip to play (nil: none; the open one closes).
    func play(_ request: ClipRequest?)
    /// The outcomes since the last call; never waits.
    func takeFinished() -> [ClipOutcome]
}

/// The clip being decoded, for whoever decodes (the worker's thread, or a
/// test's inline decoder): opened for a new playback, a frame at a time
/// while the request wants more.
final class ClipStreams {
    private var open: (playback: Int, player: ClipPlayer)?
    private var done: Int?

    /// Decoder threads: the cores, at most 4 (a clip takes the decoder's
    /// whole budget: stills wait on their own worker meanwhile).
    static let threads = max(1, min(4, sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// The next outcome `request` wants, or nil when it wants none now.
    func next(for request: ClipRequest?) -> ClipOutcome? {
        guard let request else { open = nil; done = nil; return nil }
        if open?.playback != request.playback {
            open = nil
            guard done != request.playback else { return nil }
            do {
                let player = try ClipPlayer(
                    path: request.movie.path, range: request.movie.range, fittedTo: request.slot, options: request.options, loops: request.loops, threads: Self.threads)
                open = (request.playback, player)
                return .opened(playback: request.playback, info: player.info)
            } catch {
                done = request.playback
                return .failed(playback: request.playback, error)
            }
        }
        guard let player = open?.player, player.frames <= request.through else { return nil }
        do {
            switch try player.next(skippingBefore: request.skipBefore) {
            case .frame(let frame):
                return .frame(playback: request.playback, number: frame.number, time: frame.time, picture: frame.picture, skipped: frame.skipped)
            case .end(let at):
                open = nil
                done = request.playback
                return .ended(playback: request.playback, at: at)
            }
        } catch {
            open = nil
            done = request.playback
            return .failed(playback: request.playback, error)
        }
    }
}

/// Decodes the clip playing in the centre on its own thread, apart from
/// the stills' ``DecodeWorker``, so a 50 Mpx photo decoding for a
/// neighbour never holds a clip's frames back, nor a clip a photo. It
/// decodes ahead only as far as the show asks (``ClipRequest/through``),
/// then sleeps: the frames in flight are a fixed few, each the size of
/// the slot. The run loop polls ``readyFD``.
final class ClipWorker: ClipDecoder, @unchecked Sendable {
    private struct State {
        var request: ClipRequest?
        var finished: [ClipOutcome] = []
        var stopping = false
    }

    private let mailbox: WorkerMailbox<State>
    private let priority: WorkerPriority
    /// The thread starts with the first clip: a show without clips has none.
    private var started = false

    var readyFD: Int32 { mailbox.readyFD }

    init(priority: WorkerPriority = .normal) throws(SystemCallError) {
        mailbox = try WorkerMailbox(State())
        self.priority = priority
    }

    /// The thread ends after the frame in progress.
    func stop() { mailbox.tell { $0.stopping = true } }

    /// Called from the run loop alone.
    func play(_ request: ClipRequest?) {
        if request != nil && !started {
            // A thread that cannot start leaves the clip on its first frame (the request is never answered).
            started = (try? mailbox.start(priority: priority) { [self] in work() }) != nil
        }
        mailbox.tell { state in
            if state.request?.playback != request?.playback { state.finished = [] }
            state.request = request
        }
    }

    func takeFinished() -> [ClipOutcome] {
        mailbox.take { state in
            defer { state.finished = [] }
            return state.finished
        }
    }

    private func work() {
        let streams = ClipStreams()
        while true {
            let request: ClipRequest?? = mailbox.withShared { $0.stopping ? .none : .some($0.request) }
            guard case .some(let wanted) = request else { return }
            guard let outcome = streams.next(for: wanted) else {
                let unchanged = mailbox.withShared { $0.request == wanted && !$0.stopping }
                if unchanged { mailbox.sleep() }
                continue
            }
            mailbox.post { state in
                // A request replaced meanwhile: its frames are no one's.
                guard state.request?.playback == wanted?.playback else { return false }
                state.finished.append(outcome)
                return true
            }
        }
    }
}
