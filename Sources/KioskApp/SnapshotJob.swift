import ImageCodecs
import KioskCore
import KioskRendering

/// One frame of the show, rendered offscreen: what `kioskd snapshot` writes
/// and what the display will scan out for the same state.
public struct SnapshotJob: Sendable {
    public var settings: KioskSettings
    public var screen: PixelSize
    /// The strip position `p`, in images (slot `p` is centred when whole).
    public var position: Double

    public init(settings: KioskSettings, screen: PixelSize, position: Double) {
        self.settings = settings
        self.screen = screen
        self.position = position
    }

    /// The frame and the log lines an operator should see (skipped files,
    /// an empty folder, a layout with no room for neighbours).
    public struct Result: Sendable {
        public let frame: RasterImage
        public let log: [String]
        /// The pictures that ended up in the playlist, in playing order.
        public let playlist: [String]
    }

    public enum Failure: Error, CustomStringConvertible {
        case noImageFolder
        case setting(SettingError)
        case folder(ImageFileError)

        public var description: String {
            switch self {
            case .noImageFolder: return "no picture folder: pass --images DIR or set images in the config file"
            case .setting(let error): return error.description
            case .folder(let error): return "cannot read the picture folder \(error)"
            }
        }
    }

    public func run() throws(Failure) -> Result {
        guard position.isFinite else {
            throw .setting(SettingError(setting: "position", value: "\(position)", reason: "must be a finite number"))
        }
        let geometry: CarouselGeometry
        do { geometry = try CarouselGeometry(screen: screen, settings: settings.layout) } catch { throw .setting(error) }
        guard let images = settings.images else { throw .noImageFolder }
        let folder: ImageFolder
        do { folder = try ImageFolder(listing: images) } catch { throw .folder(error) }

        var log = folder.ignored
        if geometry.neighboursHiddenAtRest {
            log.append(
                "image_width \(geometry.slotWidth) px and spacing \(geometry.spacing) px leave no room for the "
                    + "neighbours on a \(screen.width) px screen: only the centred picture shows at rest")
        }
        let loader = PictureLoader(background: settings.layout.background)
        var playlist = folder.pictures
        var pictures: [String: RasterImage] = [:]
        // Decode what is visible. A file that fails is dropped from the
        // playlist (as if it were not there), which can bring another file
        // into view, so repeat; each round drops at least one file.
        while true {
            let index = CircularIndex(count: playlist.count)
            let visible = Set(geometry.visibleSlots(at: position).compactMap { index.item(forSlot: $0.index) })
            var failed: Set<Int> = []
            for item in visible.sorted() where pictures[playlist[item]] == nil {
                do {
                    pictures[playlist[item]] = try loader.load(playlist[item], fittedTo: geometry.slotSize)
                } catch {
                    log.append("skipping \(error)")
                    failed.insert(item)
                }
            }
            if failed.isEmpty { break }
            playlist = playlist.enumerated().filter { !failed.contains($0.offset) }.map(\.element)
        }
        if playlist.isEmpty {
            log.append("no pictures to show in \(images) (looking for .jpg, .jpeg and .png files): showing the background only")
        }

        var frame = RasterImage(size: screen, filledWith: settings.layout.background)
        let compositor = StripCompositor(geometry: geometry, background: settings.layout.background)
        let index = CircularIndex(count: playlist.count)
        frame.withSurface { surface in
            compositor.compose(into: surface, position: position, playlist: index) { pictures[playlist[$0]] }
        }
        return Result(frame: frame, log: log, playlist: playlist)
    }
}
