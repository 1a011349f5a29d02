import ImageCodecs
import KioskCore
import KioskRendering
import LinuxPlatform
import Synchronization
import SystemCalls

/// Composes and encodes frames on its own thread: the control socket's
/// screenshots as PNG, the MQTT picture as a small JPEG. Composing a 1080p
/// frame into fresh memory takes about 8 ms and a PNG tens of milliseconds,
/// which the run loop must not spend mid-slide (the MQTT picture composed on
/// the loop cost `dropped_frames_under_mqtt_load` its zero). The loop hands
/// over the frame's makings (``FrameRecipe``: shared references, no
/// pixels copied) with the client it is for, and collects the file when
/// ``readyFD`` is readable.
final class FrameEncoder: Sendable {
    enum Format: Sendable {
        /// Lossless, the frame's own size: `kioskctl screenshot`.
        case png
        /// Downscaled (never up) to at most `maximumWidth` pixels across: Home Assistant's image entity.
        case jpeg(maximumWidth: Int, quality: Int)

        /// The picture MQTT publishes and the web page shows (`screenshot jpeg`): small, quick to send.
        static let picture = Format.jpeg(maximumWidth: 640, quality: 80)
    }

    struct Finished: Sendable {
        /// The client that asked.
        let client: UInt64
        /// The size encoded.
        let size: PixelSize
        let file: Result<[UInt8], ImageFileError>
    }

    private struct Job: Sendable {
        let client: UInt64
        let recipe: FrameRecipe
        let format: Format
    }

    /// Jobs are keyed by a serial: every screenshot asked for is encoded, in order.
    private let thread: WorkerThread<UInt64, Job, Finished>
    private let serial = Mutex<UInt64>(0)

    /// Readable when screenshots are finished: call ``takeFinished()``.
    var readyFD: Int32 { thread.readyFD }

    init() throws(SystemCallError) {
        thread = try WorkerThread { { job in Self.encoded(job) } }
    }

    func encode(_ recipe: FrameRecipe, as format: Format = .png, for client: UInt64) {
        let key = serial.withLock { serial in
            serial += 1
            return serial
        }
        thread.submit(Job(client: client, recipe: recipe, format: format), key: key)
    }

    func takeFinished() -> [Finished] { thread.takeFinished() }

    /// Ends the thread after the screenshot in progress.
    func stop() { thread.stop() }

    private static func encoded(_ job: Job) -> Finished {
        let frame = job.recipe.composed()
        switch job.format {
        case .png:
            return Finished(client: job.client, size: frame.size, file: Result { () throws(ImageFileError) in try PNGCodec.encode(frame) })
        case .jpeg(let maximumWidth, let quality):
            let size = size(of: frame.size, atMost: maximumWidth)
            let small = resample(frame, to: size)
            return Finished(client: job.client, size: size, file: Result { () throws(ImageFileError) in try JPEGCodec.encode(small, quality: quality) })
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
