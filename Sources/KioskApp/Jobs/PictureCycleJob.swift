import ImageCodecs
import KioskCore
import KioskRendering

/// The image pipeline as the running show drives it, without a display: the
/// strip steps forward one picture at a time through `steps` positions; at
/// each step the decode worker prepares the whole neighbourhood (as it does
/// while the show rests on a picture), then a frame is composed. The benchmark runs it
/// over 1,000 big photos to measure the show's peak memory.
public struct PictureCycleJob {
    public var settings: KioskSettings
    public var screen: PixelSize

    public init(settings: KioskSettings, screen: PixelSize) {
        self.settings = settings
        self.screen = screen
    }

    public struct Result: Sendable {
        public var framesComposed = 0
        public var filesSkipped = 0
        /// The most the picture cache held at once.
        public var peakCachedBytes = 0
        /// Frames of the animated picture played at the end.
        public var animationFrames = 0
    }

    /// Steps through the folder; then, if `animated` names a GIF, plays
    /// `frames` of its frames in the centre slot, as the show does (decoded
    /// on the worker, two ahead), with the last neighbourhood still held.
    public func run(steps: Int, animated: String? = nil, frames: Int = 0) throws(DisplayJobError) -> Result {
        let assembly: ShowAssembly
        do { assembly = try ShowAssembly(settings: settings, panel: screen) } catch { throw .setup(error) }
        let worker: DecodeWorker
        do { worker = try DecodeWorker(recipe: assembly.recipe) } catch { throw .system(error) }
        defer { worker.stop() }
        let layout = assembly.layout
        var show = PictureNeighbourhood(pictures: assembly.makePictures(), geometry: layout.geometry, position: 0)
        var frame = RasterImage(size: screen, filledWith: settings.layout.background)
        var result = Result()
        for step in 0..<steps {
            show.position = Double(step)
            while case let missing = show.wanted(), !missing.isEmpty {
                worker.request(missing)
                guard worker.waitForFinished(milliseconds: 60_000) else { break }
                for error in show.take(worker.takeFinished()).refused {
                    result.filesSkipped += 1
                    _ = show.pictures.remove(error.path, keepingSlot: step)
                }
                result.peakCachedBytes = max(result.peakCachedBytes, show.pictures.cachedBytes)
            }
            frame.withSurface { surface in
                layout.renderer.draw(into: surface, position: show.position, playlist: show.pictures.index) {
                    show.pictures.picture($0)
                }
            }
            result.framesComposed += 1
        }
        if let animated {
            var shown = 0
            worker.animate([animated: AnimationRequest(playback: 1, through: AnimatedPictures.framesAhead)])
            while shown < frames, worker.waitForFinished(milliseconds: 60_000) {
                for case .frame(_, _, let number, let picture) in worker.takeFinished() {
                    frame.withSurface { surface in
                        layout.renderer.draw(into: surface, position: show.position, playlist: show.pictures.index) {
                            $0 == show.pictures.index.item(forSlot: Int(show.position)) ? picture : show.pictures.picture($0)
                        }
                    }
                    shown += 1
                    worker.animate([animated: AnimationRequest(playback: 1, through: number + AnimatedPictures.framesAhead)])
                }
            }
            worker.animate([:])
            result.animationFrames = shown
        }
        return result
    }
}
