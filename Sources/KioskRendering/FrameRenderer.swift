import KioskCore

/// Draws whole frames for a panel: the strip laid out at the panel's logical
/// (rotated) size, then turned onto the panel. The snapshot and the display
/// both draw through this, so the same state gives the same scanned-out pixels.
public struct FrameRenderer: Sendable {
    public let compositor: StripCompositor
    public let rotation: Rotation
    /// The panel's own size, as scanned out.
    public let panel: PixelSize

    public init(compositor: StripCompositor, rotation: Rotation) {
        self.compositor = compositor
        self.rotation = rotation
        // The geometry is laid out at the logical size; turning it back gives the panel.
        self.panel = rotation.logicalSize(of: compositor.geometry.screen)
    }

    /// Draws the strip at `position` into `surface`, the panel's memory.
    public func draw(into surface: PixelSurface, position: Double, playlist: CircularIndex, picture: (Int) -> RasterImage?) {
        var fresh = BufferContents()
        draw(into: surface, position: position, playlist: playlist, contents: &fresh, picture: picture)
    }

    /// Draws into a buffer that holds an earlier frame, described by
    /// `contents` (see ``StripCompositor/compose(into:position:playlist:contents:picture:)``).
    public func draw(
        into surface: PixelSurface, position: Double, playlist: CircularIndex, brightness: Int = 100, overlays: [PlacedOverlay] = [],
        caption: (Int) -> OverlayLayer? = { _ in nil }, contents: inout BufferContents, picture: (Int) -> RasterImage?
    ) {
        draw(
            into: surface, cells: compositor.geometry.cells(at: position, playlist: playlist), brightness: brightness, overlays: overlays,
            caption: { if case .item(let item) = $0 { caption(item) } else { nil } }, contents: &contents
        ) {
            if case .item(let item) = $0 { picture(item) } else { nil }
        }
    }

    /// Draws `cells` (see ``StripCompositor/compose(into:cells:turnedBy:contents:picture:)``),
    /// each pixel written once, straight to its turned place on the panel.
    /// `brightness` below 100 dims the frame (software dimming).
    public func draw(
        into surface: PixelSurface, cells: [StripCell], brightness: Int = 100, overlays: [PlacedOverlay] = [],
        caption: (StripCell.Content) -> OverlayLayer? = { _ in nil }, contents: inout BufferContents, picture: (StripCell.Content) -> RasterImage?
    ) {
        precondition(surface.size == panel, "surface \(surface.size) is not the panel \(panel)")
        compositor.compose(
            into: surface, cells: cells, turnedBy: rotation, brightness: brightness, overlays: overlays, caption: caption, contents: &contents,
            picture: picture)
    }
}

/// One frame's makings: the cells on screen with the picture and caption
/// each shows, the overlays and the brightness. Gathering them costs a few
/// shared references (pictures are copy-on-write, never copied here);
/// composing a whole frame into fresh memory costs milliseconds (8 ms and
/// 8 MB of page faults at 1080p). So a screenshot or the MQTT picture is
/// gathered on the display loop and composed on the encoder's thread: the
/// loop never composes a frame that is not for the screen.
public struct FrameRecipe: Sendable {
    public let renderer: FrameRenderer
    public let cells: [StripCell]
    public let brightness: Int
    public let overlays: [PlacedOverlay]
    private let pictures: [StripCell.Content: RasterImage]
    private let captions: [StripCell.Content: OverlayLayer]

    /// Asks `picture` and `caption` for each of `cells` now: the closures may read state that is only the caller's.
    public init(
        renderer: FrameRenderer, cells: [StripCell], brightness: Int = 100, overlays: [PlacedOverlay] = [],
        caption: (StripCell.Content) -> OverlayLayer?, picture: (StripCell.Content) -> RasterImage?
    ) {
        self.renderer = renderer
        self.cells = cells
        self.brightness = brightness
        self.overlays = overlays
        var pictures: [StripCell.Content: RasterImage] = [:], captions: [StripCell.Content: OverlayLayer] = [:]
        for content in Set(cells.map(\.content)) {
            pictures[content] = picture(content)
            captions[content] = caption(content)
        }
        self.pictures = pictures
        self.captions = captions
    }

    /// The frame, composed into ordinary memory of the panel's size.
    public func composed() -> RasterImage {
        var frame = RasterImage(size: renderer.panel, filledWith: renderer.compositor.background)
        frame.withSurface { surface in
            var fresh = BufferContents()
            renderer.draw(
                into: surface, cells: cells, brightness: brightness, overlays: overlays, caption: { captions[$0] }, contents: &fresh
            ) { pictures[$0] }
        }
        return frame
    }
}
