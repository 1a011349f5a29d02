import ImageCodecs
import KioskCore
import KioskRendering
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A picture the worker finished: decoded and fitted to the slot, or refused.
enum DecodeOutcome: Sendable {
    case decoded(path: String, picture: RasterImage)
    case failed(ImageFileError)
}

extension PictureLoader {
    func outcome(of path: String, fittedTo slot: PixelSize) -> DecodeOutcome {
        do { return .decoded(path: path, picture: try load(path, fittedTo: slot)) } catch { return .failed(error) }
    }
}

/// Decodes pictures on its own thread so the run loop never waits for a disk
/// or a decoder.
///
/// The run loop says what it wants, most urgent first (``request(_:)``, which
/// replaces the previous list: the show has moved on). The worker takes the
/// most urgent path, decodes it with no lock held, stores the outcome and
/// signals ``readyFD``; the run loop polls that descriptor with its others and
/// collects with ``takeFinished()``, which only swaps a list under the lock.
final class DecodeWorker: @unchecked Sendable {
    private struct State {
        var queue: [String] = []
        var inProgress: String?
        var finished: [DecodeOutcome] = []
        var stopping = false
    }

    /// Decodes one file. The daemon's is ``PictureLoader/load(_:fittedTo:)``;
    /// tests pass one they can hold up, to see the hand-off step by step.
    typealias Decode = @Sendable (String) -> DecodeOutcome

    private let decode: Decode
    private let state = Mutex(State())
    private let wake: EventCounter
    private let ready: EventCounter

    /// Poll this for POLLIN: finished pictures are waiting.
    var readyFD: Int32 { ready.fd }

    convenience init(loader: PictureLoader, slot: PixelSize) throws(DisplayJobError) {
        try self.init { loader.outcome(of: $0, fittedTo: slot) }
    }

    init(decode: @escaping Decode) throws(DisplayJobError) {
        self.decode = decode
        wake = try EventCounter(nonBlocking: false)
        ready = try EventCounter(nonBlocking: true)
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            let worker = Unmanaged<DecodeWorker>.fromOpaque(context!).takeRetainedValue()
            worker.work()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<DecodeWorker>.fromOpaque(context).release()
            throw .system(call: "pthread_create", errno: status)
        }
        pthread_detach(thread)
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

    /// The outcomes finished since the last call. Never waits.
    func takeFinished() -> [DecodeOutcome] {
        ready.take()
        return state.withLock { state in
            defer { state.finished = [] }
            return state.finished
        }
    }

    /// Waits up to `milliseconds` for an outcome (tests, the snapshot, the benchmark; never the run loop).
    func waitForFinished(milliseconds: Int32) -> Bool { ready.wait(milliseconds: milliseconds) }

    private enum Next { case decode(String), sleep, stop }

    private func work() {
        while true {
            let next: Next = state.withLock { state in
                if state.stopping { return .stop }
                guard !state.queue.isEmpty else { return .sleep }
                let path = state.queue.removeFirst()
                state.inProgress = path
                return .decode(path)
            }
            switch next {
            case .stop:
                return
            case .sleep:
                wake.take()
            case .decode(let path):
                let outcome = decode(path)
                state.withLock { state in
                    state.inProgress = nil
                    state.finished.append(outcome)
                }
                ready.signal()
            }
        }
    }
}
