import KioskCore

/// A stretch of the strip composed once into a panel buffer longer than the
/// screen (``PannedStrip``), and what it was composed with: the cells, the
/// picture and caption each showed, the brightness. A later frame is shown
/// by scanning out a window of it (``origin(of:brightness:overlays:caption:picture:)``)
/// only when that frame would compose to exactly the window's pixels; any
/// other frame is composed as before.
public struct PannedBuffer: Sendable {
    public let strip: PannedStrip
    /// The renderer of the whole buffer: the screen's, lengthened.
    public let renderer: FrameRenderer
    public let cells: [StripCell]
    public let brightness: Int
    private let pictures: [StripCell.Content: RasterImage]
    private let captions: [StripCell.Content: OverlayLayer]

    /// `strip` for `screen` (the screen's own renderer), with the pictures
    /// and captions each cell shows now; drawn by ``draw(into:)``.
    /// Pictures not ready are left as background, as a composed frame
    /// leaves them: a frame that has them then is composed.
    public init(
        strip: PannedStrip, screen: FrameRenderer, playlist: CircularIndex, brightness: Int,
        caption: (StripCell.Content) -> OverlayLayer?, picture: (StripCell.Content) -> RasterImage?
    ) {
        let compositor = screen.compositor
        renderer = FrameRenderer(
            compositor: StripCompositor(geometry: strip.bufferGeometry, background: compositor.background, alignment: compositor.alignment),
            rotation: screen.rotation)
        self.strip = strip
        var pictures: [StripCell.Content: RasterImage] = [:], captions: [StripCell.Content: OverlayLayer] = [:]
        // Only cells with a picture are drawn: a frame showing one that was missing then is not a window of this.
        cells = strip.cells(playlist: playlist).filter { cell in
            guard let image = picture(cell.content) else { return false }
            pictures[cell.content] = image
            captions[cell.content] = caption(cell.content)
            return true
        }
        self.pictures = pictures
        self.captions = captions
        self.brightness = brightness
    }

    /// The panel's buffer's size: ``PannedStrip/panelSize(turnedBy:)``.
    public var panelSize: PixelSize { strip.panelSize(turnedBy: renderer.rotation) }

    /// Composes the buffer into `surface`, the panel's buffer of ``panelSize``.
    public func draw(into surface: PixelSurface) {
        var fresh = BufferContents()
        renderer.draw(into: surface, cells: cells, brightness: brightness, caption: { captions[$0] }, contents: &fresh) { pictures[$0] }
    }

    /// Where in the panel's buffer the screen-sized window starts that is
    /// exactly the frame of `frame` (its cells) drawn with these pictures,
    /// captions, brightness and overlays; nil when the frame must be
    /// composed: an overlay fixed on the screen (no plane carries it),
    /// another brightness, any cell, picture or caption that is not the one
    /// in the buffer, or (``PictureAlignment/inner``) a picture narrower
    /// than its slot on screen: it leans toward the screen's centre by how
    /// far its slot is from it, so it moves within its slot as the strip
    /// moves. A picture as wide as its slot has no room to lean.
    public func origin(
        of frame: [StripCell], brightness: Int, overlays: [PlacedOverlay], caption: (StripCell.Content) -> OverlayLayer?,
        picture: (StripCell.Content) -> RasterImage?
    ) -> (x: Int, y: Int)? {
        guard overlays.isEmpty, brightness == self.brightness else { return nil }
        let leaning = renderer.compositor.alignment == .inner
        var shown: [StripCell] = []
        for cell in frame {
            // A cell whose picture is not ready shows the background; the buffer left it out too.
            guard let image = picture(cell.content) else { continue }
            if leaning && image.width < cell.size.width { return nil }
            guard let drawn = pictures[cell.content], drawn.sharesPixels(with: image),
                  Self.same(captions[cell.content], caption(cell.content)) else { return nil }
            shown.append(cell)
        }
        guard let left = strip.window(of: shown, in: cells) else { return nil }
        return strip.panelOrigin(ofWindowAt: left, turnedBy: renderer.rotation)
    }

    /// True when `other` would draw exactly what this draws: the same
    /// stretch, cells, brightness, and the very same pictures and captions.
    public func isSameDrawing(as other: PannedBuffer) -> Bool {
        guard strip == other.strip, cells == other.cells, brightness == other.brightness,
              renderer.rotation == other.renderer.rotation, pictures.count == other.pictures.count else { return false }
        return pictures.allSatisfy { content, picture in
            other.pictures[content].map(picture.sharesPixels(with:)) == true && Self.same(captions[content], other.captions[content])
        }
    }

    private static func same(_ a: OverlayLayer?, _ b: OverlayLayer?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): a.sharesPixels(with: b)
        default: false
        }
    }
}

extension RasterImage {
    /// True when both hold the very same pixel storage: the same picture,
    /// known without reading a pixel.
    func sharesPixels(with other: RasterImage) -> Bool {
        size == other.size && pixels.withUnsafeBufferPointer { a in other.pixels.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
    }
}

extension OverlayLayer {
    func sharesPixels(with other: OverlayLayer) -> Bool {
        size == other.size && rotation == other.rotation
            && pixels.withUnsafeBufferPointer { a in other.pixels.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
    }
}
