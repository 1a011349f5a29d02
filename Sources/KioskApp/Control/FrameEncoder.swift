import ImageCodecs
import KioskCore
import KioskRendering
import LinuxPlatform
import Synchronization
import SystemCalls

/// Composes and encodes frames on its own thread: the control socket's
/// screenshots as PNG, the MQTT picture as a small JPEG; and decodes a
/// playlist item again, small, for `thumbnail` (the web page's list). Composing a 1080p
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
        enum Work: Sendable {
            case frame(FrameRecipe, Format)
            /// A file decoded to fit ``PictureListing/thumbnailSize``, as a JPEG.
            case thumbnail(path: String, loader: PictureLoader)
        }
        let client: UInt64
        let work: Work
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
        submit(Job(client: client, work: .frame(recipe, format)))
    }

    /// `path` decoded by `loader` to fit ``PictureListing/thumbnailSize``, as a JPEG.
    func thumbnail(of path: String, loader: PictureLoader, for client: UInt64) {
        submit(Job(client: client, work: .thumbnail(path: path, loader: loader)))
    }

    private func submit(_ job: Job) {
        let key = serial.withLock { serial in
            serial += 1
            return serial
        }
        thread.submit(job, key: key)
    }

    func takeFinished() -> [Finished] { thread.takeFinished() }

    /// Ends the thread after the screenshot in progress.
    func stop() { thread.stop() }

    private static func encoded(_ job: Job) -> Finished {
        let (recipe, format): (FrameRecipe, Format)
        switch job.work {
        case .frame(let frameRecipe, let frameFormat):
            (recipe, format) = (frameRecipe, frameFormat)
        case .thumbnail(let path, let loader):
            do throws(ImageFileError) {
                let picture = try loader.load(path, fittedTo: PictureListing.thumbnailSize)
                return Finished(client: job.client, size: picture.size, file: .success(try JPEGCodec.encode(picture, quality: PictureListing.thumbnailQuality)))
            } catch {
                return Finished(client: job.client, size: PixelSize(width: 0, height: 0), file: .failure(error))
            }
        }
        let frame = recipe.composed()
        switch format {
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
