import ImageCodecs
import KioskCore
import KioskRendering
import Synchronization
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A picture the worker finished: decoded and fitted to the slot, or refused.
enum DecodeOutcome: Sendable {
    case decoded(path: String, picture: RasterImage)
    case failed(ImageFileError)

    var path: String {
        switch self {
        case .decoded(let path, _): return path
        case .failed(let error): return error.path
        }
    }
}

/// How a file becomes a picture for the show: the loader's settings
/// (background under transparency, EXIF turn) and the slot it is fitted
/// to. A reload that changes it makes every held picture stale.
struct PictureRecipe: Equatable, Sendable {
    var loader: PictureLoader
    var slot: PixelSize

    func outcome(of path: String) -> DecodeOutcome {
        do { return .decoded(path: path, picture: try loader.load(path, fittedTo: slot)) } catch { return .failed(error) }
    }
}

/// Something that decodes pictures off the run loop: the ``DecodeWorker``,
/// or in tests a decoder that finishes at once so time can be simulated.
protocol PictureDecoder: AnyObject {
    /// Replaces the list of files to decode, most urgent first.
    func request(_ paths: [String])
    /// The outcomes finished since the last call; never waits.
    func takeFinished() -> [DecodeOutcome]
    /// Decodes with `recipe` from now on; outcomes of the old one are dropped.
    func use(_ recipe: PictureRecipe)
    /// The files at `paths` were rewritten: a decode of the old contents,
    /// finished or in progress, is dropped (the show asks again).
    func forget(_ paths: Set<String>)
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
    typealias Decode = @Sendable (String) -> DecodeOutcome

    private struct State {
        var decode: Decode
        /// Bumped by each new recipe: a decode that began under an older one is dropped.
        var generation = 0
        var queue: [String] = []
        var inProgress: String?
        /// The file in progress was rewritten meanwhile: its outcome is dropped.
        var inProgressStale = false
        var finished: [DecodeOutcome] = []
        var stopping = false
    }

    private let state: Mutex<State>
    private let wake: EventCounter
    private let ready: EventCounter

    /// Poll this for readability: finished pictures are waiting.
    var readyFD: Int32 { ready.descriptor.rawValue }

    convenience init(recipe: PictureRecipe) throws(SystemCallError) {
        try self.init { recipe.outcome(of: $0) }
    }

    init(decode: @escaping Decode) throws(SystemCallError) {
        state = Mutex(State(decode: decode))
        wake = try EventCounter(nonBlocking: false)
        ready = try EventCounter(nonBlocking: true)
        // The thread holds its own reference until it ends.
        try startDetachedThread { [self] in work() }
    }

    /// Asks the thread to end after the picture in progress, without
    /// waiting for it: a shutdown must not wait for a 50 Mpx decode on a slow
    /// board. The thread holds its own reference, so it ends cleanly, or with
    /// the process if that exits first.
    func stop() {
        state.withLock { $0.stopping = true }
        wake.signal()
    }

    /// Replaces the list of pictures to decode, most urgent first. A path
    /// already being decoded is not decoded twice.
    func request(_ paths: [String]) {
        state.withLock { state in state.queue = paths.filter { $0 != state.inProgress } }
        wake.signal()
    }

    func use(_ recipe: PictureRecipe) {
        state.withLock { state in
            state.decode = { recipe.outcome(of: $0) }
            state.generation += 1
            state.queue = []
            state.finished = []
            state.inProgress = nil
        }
    }

    func forget(_ paths: Set<String>) {
        state.withLock { state in
            state.finished.removeAll { paths.contains($0.path) }
            if let path = state.inProgress, paths.contains(path) { state.inProgressStale = true }
        }
    }

    /// The outcomes finished since the last call. Never waits.
    func takeFinished() -> [DecodeOutcome] {
        ready.take()
        return state.withLock { state in
            defer { state.finished = [] }
            return state.finished
        }
    }

    /// Waits up to `milliseconds` for an outcome (tests, the benchmark; never the run loop).
    func waitForFinished(milliseconds: Int32) -> Bool { ready.wait(milliseconds: milliseconds) }

    private enum Next { case decode(String, Decode, generation: Int), sleep, stop }

    private func work() {
        while true {
            let next: Next = state.withLock { state in
                if state.stopping { return .stop }
                guard !state.queue.isEmpty else { return .sleep }
                let path = state.queue.removeFirst()
                state.inProgress = path
                state.inProgressStale = false
                return .decode(path, state.decode, generation: state.generation)
            }
            switch next {
            case .stop:
                return
            case .sleep:
                wake.take()
            case .decode(let path, let decode, let generation):
                let outcome = decode(path)
                let kept = state.withLock { state in
                    guard state.generation == generation else { return false }
                    defer { state.inProgress = nil }
                    if state.inProgressStale { return false }
                    state.finished.append(outcome)
                    return true
                }
                if kept { ready.signal() }
            }
        }
    }
}
