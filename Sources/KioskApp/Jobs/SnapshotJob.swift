import ImageCodecs
import KioskCore
import KioskRendering

/// One frame of the show, rendered offscreen: what `kioskd snapshot` writes
/// and what the display scans out for the same state (including rotation:
/// the PNG is the panel's own pixels).
public struct SnapshotJob: Sendable {
    public var settings: KioskSettings
    /// The panel's size as scanned out (before rotation).
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

    public func run() throws(ShowSetupError) -> Result {
        guard position.isFinite else {
            throw .setting(SettingError(setting: "position", value: "\(position)", reason: "must be a finite number"))
        }
        let layout = try ShowLayout(settings: settings, screen: screen)
        let folder = try ImageFolder(settings: settings)
        var pictures = ShowPictures(playlist: folder.pictures, layout: layout)
        // Only what is on screen: a snapshot has no "next" to prepare.
        let onScreen = PreloadPlan(ahead: 0, behind: 0)
        let decodeLog = pictures.loadNow(
            { onScreen.items(layout.geometry, at: position, travelling: .forward, playlist: $0) },
            with: PictureLoader(settings: settings), slot: layout.geometry.slotSize)
        var log = folder.ignored + decodeLog + layout.notes
        if pictures.playlist.isEmpty { log.append(ShowPictures.emptyNote(settings)) }

        var frame = RasterImage(size: screen, filledWith: settings.layout.background)
        var scratch = RasterImage(size: PixelSize(width: 1, height: 1), filledWith: .black)
        frame.withSurface { surface in
            layout.renderer.draw(into: surface, position: position, playlist: pictures.index, scratch: &scratch) {
                pictures.picture($0)
            }
        }
        return Result(frame: frame, log: log, playlist: pictures.playlist)
    }
}

/// Why the show cannot start: a setting, or the picture folder.
public enum ShowSetupError: Error, CustomStringConvertible {
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

extension ShowLayout {
    init(settings: KioskSettings, screen: PixelSize) throws(ShowSetupError) {
        do { try self.init(settings: settings, panel: screen) } catch { throw .setting(error) }
    }
}

extension ImageFolder {
    init(settings: KioskSettings) throws(ShowSetupError) {
        guard let images = settings.images else { throw .noImageFolder }
        do { try self.init(listing: images) } catch { throw .folder(error) }
    }
}

extension PictureLoader {
    init(settings: KioskSettings) {
        self.init(background: settings.layout.background, exifRotate: settings.exifRotate)
    }
}

extension ShowPictures {
    init(playlist: [String], layout: ShowLayout) {
        self.init(playlist: playlist, slot: layout.geometry.slotSize, budget: layout.cacheBudget)
    }

    static func emptyNote(_ settings: KioskSettings) -> String {
        "no pictures to show in \(settings.images ?? "") (looking for .jpg, .jpeg and .png files): showing the background only"
    }
}
