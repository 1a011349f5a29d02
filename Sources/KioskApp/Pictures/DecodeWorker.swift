import ImageCodecs
import KioskCore
import KioskRendering
import LinuxPlatform
import Synchronization
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A picture the worker finished: decoded and fitted to the slot (with
/// its frames' schedule if it is animated), or refused; or a frame of an
/// animation being played, or why that animation cannot go on.
enum DecodeOutcome: Sendable {
    /// `info`: what the decoder learnt of the file (its upright size bounds its zoom); nil for a pair.
    case decoded(PictureKey, picture: RasterImage, animation: FrameSchedule? = nil, info: PictureInfo? = nil)
    case failed(ImageFileError)
    /// Frame `number` (counted across plays) of ``AnimationRequest/playback``.
    case frame(path: String, playback: Int, number: Int, picture: RasterImage)
    /// The animation broke after its first frame: it stops where it is; the picture stays.
    case animationStopped(ImageFileError, playback: Int)
    /// Files' upright sizes read from their headers (`portrait_pairs`); nil where a header could not be read.
    case measured([MeasuredSize])
    /// The part of a zoomed picture on screen, decoded again sharp (``ZoomRegion``).
    case region(ZoomRegion, RasterImage)
    /// It could not be: the picture stays as it is, scaled up.
    case regionFailed(ZoomRegion, ImageFileError)

    /// The files it comes from: a rewritten one makes it stale.
    var files: [String] {
        switch self {
        case .decoded(let key, _, _, _): return key.files
        case .frame(let path, _, _, _): return [path]
        case .region(let region, _), .regionFailed(let region, _): return [region.path]
        case .failed(let error), .animationStopped(let error, _): return [error.path]
        case .measured(let sizes): return sizes.map(\.path)
        }
    }
}

/// What a zoomed picture shows (``PictureZoom/view(in:limits:)``): the
/// part `region` of the file at `path`, at `size` pixels.
struct ZoomRegion: Hashable, Sendable {
    var path: String
    var region: PictureRegion
    var size: PixelSize
}

/// A file's upright size from its header, or nil when it could not be read.
struct MeasuredSize: Equatable, Sendable {
    var path: String
    var size: PixelSize?
}

/// What the decoder is asked for and the cache holds: one file, or two
/// portraits sharing a slot (`portrait_pairs`).
struct PictureKey: Hashable, Sendable, CustomStringConvertible {
    /// The files it shows, left to right: one, or a pair's two.
    let files: [String]

    init(file: String) { files = [file] }
    init(pair left: String, _ right: String) { files = [left, right] }

    /// The file it shows, when it is not a pair: what plays as an animation and zooms.
    var file: String? { files.count == 1 ? files[0] : nil }
    var description: String { files.joined(separator: " and ") }
}

/// The frames an animated picture on screen wants decoded: its
/// ``playback`` (a new number starts the file again) and the last frame
/// number to have ready.
struct AnimationRequest: Equatable, Sendable {
    var playback: Int
    var through: Int
}

/// How a file becomes a picture for the show: the loader's settings
/// (background under transparency, EXIF turn) and the slot it is fitted
/// to. A reload that changes it makes every held picture stale.
struct PictureRecipe: Equatable, Sendable {
    var loader: PictureLoader
    var slot: PixelSize
    /// `portrait_pairs`: the gap between a pair's two pictures; nil without pairs.
    var pairSpacing: Int? = nil

    /// The picture for `key`: a file, or a pair of portraits side by side
    /// (a pair is still: an animated portrait in a pair shows its first frame).
    func outcome(of key: PictureKey) -> DecodeOutcome {
        do {
            guard let file = key.file else {
                return .decoded(key, picture: try loader.loadPair(key.files[0], key.files[1], fittedTo: slot, spacing: pairSpacing ?? 0))
            }
            let loaded = try loader.loadPicture(file, fittedTo: slot)
            return .decoded(key, picture: loaded.picture, animation: loaded.animation, info: loaded.info)
        } catch {
            return .failed(error)
        }
    }

    /// The part of a zoomed picture on screen, sharp.
    func outcome(of zoomed: ZoomRegion) -> DecodeOutcome {
        do {
            return .region(zoomed, try loader.loadRegion(zoomed.path, region: zoomed.region, at: zoomed.size))
        } catch {
            return .regionFailed(zoomed, error)
        }
    }

    /// The sizes of `paths` from their headers.
    func measure(_ paths: [String]) -> DecodeOutcome {
        .measured(paths.map { MeasuredSize(path: $0, size: try? loader.pairingSize(of: $0)) })
    }
}

/// The animations being decoded, each an open file read as it plays
/// (``PictureAnimation``): one frame at a time, for whoever decodes (the
/// worker's thread, or a test's inline decoder).
final class AnimationStreams {
    private var streams: [String: (playback: Int, animation: any PictureAnimation)] = [:]
    /// Playbacks that failed: not tried again.
    private var failed: [String: Int] = [:]

    /// Closes every stream (a new recipe, a rewritten file).
    func close(_ paths: Set<String>? = nil) {
        guard let paths else { streams = [:]; failed = [:]; return }
        for path in paths { streams[path] = nil; failed[path] = nil }
    }

    /// Decodes one frame that `requests` still want, or returns nil when
    /// none does. A new playback opens its file again and passes over frame
    /// 0 (the show has it: the still picture); streams no longer requested close.
    func decodeNext(for requests: [String: AnimationRequest], with recipe: PictureRecipe) -> DecodeOutcome? {
        for path in streams.keys where requests[path] == nil { streams[path] = nil }
        for (path, request) in requests.sorted(by: { $0.key < $1.key }) where failed[path] != request.playback {
            do {
                if streams[path]?.playback != request.playback {
                    streams[path] = nil
                    let animation = try recipe.loader.openAnimation(path, fittedTo: recipe.slot)
                    try animation.advance()
                    streams[path] = (request.playback, animation)
                }
                guard let animation = streams[path]?.animation, animation.nextFrame <= request.through else { continue }
                let picture = try animation.decodeNext()
                return .frame(path: path, playback: request.playback, number: animation.nextFrame - 1, picture: picture)
            } catch {
                streams[path] = nil
                failed[path] = request.playback
                return .animationStopped(error, playback: request.playback)
            }
        }
        return nil
    }
}

/// Something that decodes pictures off the run loop: the ``DecodeWorker``,
/// or in tests a decoder that finishes at once so time can be simulated.
protocol PictureDecoder: AnyObject {
    /// Replaces the list of pictures to decode, most urgent first.
    func request(_ keys: [PictureKey])
    /// The outcomes finished since the last call; never waits.
    func takeFinished() -> [DecodeOutcome]
    /// Decodes with `recipe` from now on; outcomes of the old one are dropped.
    func use(_ recipe: PictureRecipe)
    /// The files at `paths` were rewritten: a decode of the old contents,
    /// finished or in progress, is dropped (the show asks again).
    func forget(_ paths: Set<String>)
    /// Replaces the animations to play: their frames are decoded after
    /// every picture requested, one at a time.
    func animate(_ requests: [String: AnimationRequest])
    /// Replaces the files whose sizes to read from their headers, most
    /// urgent first (`portrait_pairs`): read after every picture requested,
    /// before any animation's frames, and told in one
    /// ``DecodeOutcome/measured(_:)``, or sooner when a picture is asked
    /// for meanwhile (it waits for one header read at most).
    func measure(_ paths: [String])
    /// Replaces the zoomed region to decode sharp (nil: none): before
    /// anything else, since it is what the viewer is looking at.
    func zoom(_ region: ZoomRegion?)
    /// Plays the clip in the centre, apart from the pictures (``ClipWorker``).
    var clips: any ClipDecoder { get }
}

/// Decodes pictures on its own thread so the run loop never waits for a disk
/// or a decoder.
///
/// The run loop says what it wants, most urgent first (``request(_:)``, which
/// replaces the previous list: the show has moved on). The worker takes the
/// most urgent path, decodes it with no lock held, stores the outcome and
/// signals ``readyFD``; the run loop polls that descriptor with its others and
/// collects with ``takeFinished()``, which only swaps a list under the lock.
final class DecodeWorker: PictureDecoder, @unchecked Sendable {
    /// Decodes one file. The daemon's is ``PictureRecipe/outcome(of:)``;
    /// tests pass one they can hold up, to see the hand-off step by step.
    typealias Decode = @Sendable (PictureKey) -> DecodeOutcome

    private struct State {
        var decode: Decode
        /// For animations; nil for a worker given only a decode function (tests).
        var recipe: PictureRecipe?
        var animations: [String: AnimationRequest] = [:]
        /// Rewritten files whose animation must start again from the new contents.
        var closeStreams: Set<String> = []
        /// Bumped by each new recipe: a decode that began under an older one is dropped.
        var generation = 0
        var queue: [PictureKey] = []
        /// Files whose sizes to read (``measure(_:)``).
        var measureQueue: [String] = []
        /// The zoomed region to decode (``zoom(_:)``), until it is taken.
        var zoomed: ZoomRegion?
        /// A file of the batch being measured was rewritten meanwhile: the batch is dropped.
        var measuringStale = false
        var measuring: [String] = []
        var inProgress: PictureKey?
        /// The file in progress was rewritten meanwhile: its outcome is dropped.
        var inProgressStale = false
        var finished: [DecodeOutcome] = []
        /// The pictures decoded (or refused) in ``finished``: the show still
        /// wants them until it has taken them, and they are not decoded twice.
        var finishedKeys: Set<PictureKey> = []
        var stopping = false
    }

    private let mailbox: WorkerMailbox<State>
    /// The clip playing, on a thread of its own.
    let clipWorker: ClipWorker
    var clips: any ClipDecoder { clipWorker }

    /// Poll this for readability: finished pictures are waiting (and ``clipWorker``'s, for frames of a clip).
    var readyFD: Int32 { mailbox.readyFD }

    convenience init(recipe: PictureRecipe, priority: WorkerPriority = .normal) throws(SystemCallError) {
        try self.init(recipe: recipe, priority: priority) { recipe.outcome(of: $0) }
    }

    /// `priority`: how its thread yields the core to the display loop
    /// (a refusal is not fatal: it decodes at ordinary priority).
    init(recipe: PictureRecipe? = nil, priority: WorkerPriority = .normal, decode: @escaping Decode) throws(SystemCallError) {
        mailbox = try WorkerMailbox(State(decode: decode, recipe: recipe))
        // A clip's frames are due in real time: its thread (started with the
        // first clip) is an ordinary one, ahead of the stills' (which may yield
        // to everything), behind the display loop.
        clipWorker = try ClipWorker(priority: .normal)
        // The thread holds its own reference until it ends.
        try mailbox.start(priority: priority) { [self] in work() }
    }

    /// Asks the thread to end after the picture in progress, without
    /// waiting for it: a shutdown must not wait for a 50 Mpx decode on a slow
    /// board. The thread holds its own reference, so it ends cleanly, or with
    /// the process if that exits first.
    func stop() {
        mailbox.tell { $0.stopping = true }
        clipWorker.stop()
    }

    /// Replaces the list of pictures to decode, most urgent first. A picture
    /// being decoded, or decoded and not yet taken, is not decoded twice
    /// (nor a broken file refused twice).
    func request(_ keys: [PictureKey]) {
        mailbox.tell { state in state.queue = keys.filter { $0 != state.inProgress && !state.finishedKeys.contains($0) } }
    }

    func use(_ recipe: PictureRecipe) {
        mailbox.withShared { state in
            state.decode = { recipe.outcome(of: $0) }
            state.recipe = recipe
            state.animations = [:]
            state.generation += 1
            state.queue = []
            state.measureQueue = []
            state.zoomed = nil
            state.finished = []
            state.finishedKeys = []
            state.inProgress = nil
        }
    }

    func forget(_ paths: Set<String>) {
        mailbox.withShared { state in
            state.finished.removeAll { $0.files.contains(where: paths.contains) }
            state.finishedKeys = state.finishedKeys.filter { !$0.files.contains(where: paths.contains) }
            if let key = state.inProgress, key.files.contains(where: paths.contains) { state.inProgressStale = true }
            if state.measuring.contains(where: paths.contains) { state.measuringStale = true }
            state.closeStreams.formUnion(paths)
        }
    }

    func measure(_ paths: [String]) {
        mailbox.tell { $0.measureQueue = paths }
    }

    func animate(_ requests: [String: AnimationRequest]) {
        mailbox.tell { $0.animations = requests }
    }

    func zoom(_ region: ZoomRegion?) {
        mailbox.withShared { $0.zoomed = region }
        if region != nil { mailbox.wakeThread() }
    }

    /// The outcomes finished since the last call. Never waits.
    func takeFinished() -> [DecodeOutcome] {
        mailbox.take { state in
            defer {
                state.finished = []
                state.finishedKeys = []
            }
            return state.finished
        }
    }

    /// Waits up to `milliseconds` for an outcome (tests, the benchmark; never the run loop).
    func waitForFinished(milliseconds: Int32) -> Bool { mailbox.waitForResults(milliseconds: milliseconds) }

    private enum Next {
        case decode(PictureKey, Decode, generation: Int)
        case animate([String: AnimationRequest], PictureRecipe, generation: Int)
        case measure([String], PictureRecipe, generation: Int)
        case region(ZoomRegion, PictureRecipe, generation: Int)
        case sleep, stop
    }

    private func work() {
        // Only this thread touches the open animations.
        let streams = AnimationStreams()
        var streamsGeneration = 0
        while true {
            let next: Next = mailbox.withShared { state in
                if state.stopping { return .stop }
                if state.generation != streamsGeneration {
                    streams.close()
                    streamsGeneration = state.generation
                }
                if !state.closeStreams.isEmpty {
                    streams.close(state.closeStreams)
                    state.closeStreams = []
                }
                if let zoomed = state.zoomed, let recipe = state.recipe {
                    state.zoomed = nil
                    return .region(zoomed, recipe, generation: state.generation)
                }
                guard !state.queue.isEmpty else {
                    // Sizes come after every picture asked for, frames after both.
                    if let recipe = state.recipe, !state.measureQueue.isEmpty {
                        let batch = state.measureQueue
                        state.measureQueue = []
                        state.measuring = batch
                        state.measuringStale = false
                        return .measure(batch, recipe, generation: state.generation)
                    }
                    if let recipe = state.recipe, !state.animations.isEmpty {
                        return .animate(state.animations, recipe, generation: state.generation)
                    }
                    streams.close()
                    return .sleep
                }
                let key = state.queue.removeFirst()
                state.inProgress = key
                state.inProgressStale = false
                return .decode(key, state.decode, generation: state.generation)
            }
            switch next {
            case .stop:
                return
            case .sleep:
                mailbox.sleep()
            case .decode(let key, let decode, let generation):
                let outcome = decode(key)
                mailbox.post { state in
                    guard state.generation == generation else { return false }
                    defer { state.inProgress = nil }
                    if state.inProgressStale { return false }
                    state.finished.append(outcome)
                    state.finishedKeys.insert(key)
                    return true
                }
            case .region(let zoomed, let recipe, let generation):
                let outcome = recipe.outcome(of: zoomed)
                mailbox.post { state in
                    guard state.generation == generation, !state.closeStreams.contains(zoomed.path) else { return false }
                    state.finished.append(outcome)
                    return true
                }
            case .measure(let paths, let recipe, let generation):
                // One header at a time: a picture asked for meanwhile ends the batch early.
                var sizes: [MeasuredSize] = []
                for path in paths {
                    if !sizes.isEmpty, mailbox.withShared({ !$0.queue.isEmpty || $0.stopping || $0.generation != generation }) { break }
                    sizes.append(MeasuredSize(path: path, size: try? recipe.loader.pairingSize(of: path)))
                }
                mailbox.post { state in
                    defer { state.measuring = [] }
                    guard state.generation == generation, !state.measuringStale else { return false }
                    // The rest comes after that picture, unless the show has asked for other files since.
                    if state.measureQueue.isEmpty { state.measureQueue = Array(paths.dropFirst(sizes.count)) }
                    state.finished.append(.measured(sizes))
                    return true
                }
            case .animate(let requests, let recipe, let generation):
                guard let outcome = streams.decodeNext(for: requests, with: recipe) else {
                    // Every frame wanted is decoded: sleep until asked again.
                    let unchanged = mailbox.withShared { $0.animations == requests && $0.queue.isEmpty && $0.measureQueue.isEmpty && !$0.stopping }
                    if unchanged { mailbox.sleep() }
                    continue
                }
                mailbox.post { state in
                    guard state.generation == generation, !outcome.files.contains(where: state.closeStreams.contains) else { return false }
                    state.finished.append(outcome)
                    return true
                }
            }
        }
    }
}
