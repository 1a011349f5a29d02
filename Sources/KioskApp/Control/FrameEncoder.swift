import ImageCodecs
import KioskCore
import KioskRendering
import LinuxPlatform
import Synchronization
import SystemCalls

/// Encodes frames on its own thread: the control socket's screenshots as
/// PNG, the MQTT picture as a small JPEG. A 1080p PNG takes tens of
/// milliseconds, which the run loop must not spend mid-slide. The loop
/// copies the frame on screen (a few milliseconds), hands it over with the
/// client it is for, and collects the file when ``readyFD`` is readable.
final class FrameEncoder: @unchecked Sendable {
    enum Format: Sendable {
        /// Lossless, the frame's own size: `kioskctl screenshot`.
        case png
        /// Downscaled (never up) to at most `maximumWidth` pixels across: Home Assistant's image entity.
        case jpeg(maximumWidth: Int, quality: Int)
    }

    struct Finished: Sendable {
        /// The client that asked.
        let client: UInt64
        /// The size encoded.
        let size: PixelSize
        let file: Result<[UInt8], ImageFileError>
    }

    private struct State {
        var queue: [(client: UInt64, frame: RasterImage, format: Format)] = []
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

    func encode(_ frame: RasterImage, as format: Format = .png, for client: UInt64) {
        state.withLock { $0.queue.append((client, frame, format)) }
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

    private enum Next { case encode(client: UInt64, frame: RasterImage, format: Format), sleep, stop }

    private func work() {
        while true {
            let next: Next = state.withLock { state in
                if state.stopping { return .stop }
                guard !state.queue.isEmpty else { return .sleep }
                let job = state.queue.removeFirst()
                return .encode(client: job.client, frame: job.frame, format: job.format)
            }
            switch next {
            case .stop: return
            case .sleep: wake.take()
            case .encode(let client, let frame, let format):
                let finished: Finished
                switch format {
                case .png:
                    finished = Finished(client: client, size: frame.size, file: Result { () throws(ImageFileError) in try PNGCodec.encode(frame) })
                case .jpeg(let maximumWidth, let quality):
                    let size = Self.size(of: frame.size, atMost: maximumWidth)
                    let small = resample(frame, to: size)
                    finished = Finished(client: client, size: size, file: Result { () throws(ImageFileError) in try JPEGCodec.encode(small, quality: quality) })
                }
                state.withLock { $0.finished.append(finished) }
                ready.signal()
            }
        }
    }
}

extension FrameEncoder {
    /// `size` scaled down (never up) to at most `maximumWidth` across, its shape kept.
    static func size(of size: PixelSize, atMost maximumWidth: Int) -> PixelSize {
        guard size.width > maximumWidth else { return size }
        return aspectFitSize(of: size, in: PixelSize(width: maximumWidth, height: size.height))
    }
}
