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
        let assembly = try ShowAssembly(settings: settings, panel: screen)
        let layout = assembly.layout
        var pictures = assembly.makePictures()
        // Only what is on screen: a snapshot has no "next" to prepare.
        let onScreen = PreloadPlan(ahead: 0, behind: 0)
        let refused = pictures.loadNow(
            { onScreen.items(layout.geometry, at: position, travelling: .forward, playlist: $0) }, with: assembly.recipe)
        var log = assembly.notes + refused.map { "skipping \($0)" }
        if pictures.playlist.isEmpty && !assembly.playlist.isEmpty { log.append(ShowAssembly.emptyNote(settings)) }

        var frame = RasterImage(size: screen, filledWith: settings.layout.background)
        var scratch = RasterImage(size: PixelSize(width: 1, height: 1), filledWith: .black)
        frame.withSurface { surface in
            layout.renderer.draw(into: surface, position: position, playlist: pictures.index, scratch: &scratch) {
                pictures.picture($0)
            }
        }
        return Result(frame: frame, log: log, playlist: pictures.playlist.files)
    }
}
