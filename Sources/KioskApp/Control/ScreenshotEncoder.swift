import ImageCodecs
import KioskCore
import KioskRendering
import LinuxPlatform
import Synchronization
import SystemCalls

/// Encodes screenshots to PNG on its own thread: a 1080p frame takes tens
/// of milliseconds, which the run loop must not spend mid-slide. The loop
/// copies the frame on screen (a few milliseconds), hands it over with the
/// client it is for, and collects the PNG when ``readyFD`` is readable.
final class ScreenshotEncoder: @unchecked Sendable {
    struct Finished: Sendable {
        /// The client that asked.
        let client: UInt64
        let size: PixelSize
        let png: Result<[UInt8], ImageFileError>
    }

    private struct State {
        var queue: [(client: UInt64, frame: RasterImage)] = []
        var finished: [Finished] = []
        var stopping = false
    }

    private let state = Mutex(State())
    private let wake: EventCounter
    private let ready: EventCounter

    /// Readable when screenshots are finished: call ``takeFinished()``.
    var readyFD: Int32 { ready.descriptor.rawValue }

    init() throws(SystemCallError) {
        wake = try EventCounter(nonBlocking: false)
        ready = try EventCounter(nonBlocking: true)
        try startDetachedThread { [self] in work() }
    }

    func encode(_ frame: RasterImage, for client: UInt64) {
        state.withLock { $0.queue.append((client, frame)) }
        wake.signal()
    }

    func takeFinished() -> [Finished] {
        ready.take()
        return state.withLock { state in
            defer { state.finished = [] }
            return state.finished
        }
    }

    /// Ends the thread after the screenshot in progress.
    func stop() {
        state.withLock { $0.stopping = true }
        wake.signal()
    }

    private enum Next { case encode(client: UInt64, frame: RasterImage), sleep, stop }

    private func work() {
        while true {
            let next: Next = state.withLock { state in
                if state.stopping { return .stop }
                guard !state.queue.isEmpty else { return .sleep }
                let job = state.queue.removeFirst()
                return .encode(client: job.client, frame: job.frame)
            }
            switch next {
            case .stop: return
            case .sleep: wake.take()
            case .encode(let client, let frame):
                let png = Result { () throws(ImageFileError) in try PNGCodec.encode(frame) }
                state.withLock { $0.finished.append(Finished(client: client, size: frame.size, png: png)) }
                ready.signal()
            }
        }
    }
}
