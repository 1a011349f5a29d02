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
    ///
    /// Unrotated frames are composed straight into the surface. Rotated ones
    /// are composed into `scratch` (kept by the caller, so no frame allocates)
    /// and turned while copying.
    public func draw(
        into surface: PixelSurface, position: Double, playlist: CircularIndex, scratch: inout RasterImage,
        picture: (Int) -> RasterImage?
    ) {
        var fresh = BufferContents()
        draw(into: surface, position: position, playlist: playlist, contents: &fresh, scratch: &scratch, picture: picture)
    }

    /// Draws into a buffer that holds an earlier frame, described by
    /// `contents` (see ``StripCompositor/compose(into:position:playlist:contents:picture:)``).
    /// Rotated frames are turned whole, so they redraw every pixel.
    public func draw(
        into surface: PixelSurface, position: Double, playlist: CircularIndex, contents: inout BufferContents,
        scratch: inout RasterImage, picture: (Int) -> RasterImage?
    ) {
        draw(into: surface, cells: compositor.geometry.cells(at: position, playlist: playlist), contents: &contents, scratch: &scratch) {
            if case .item(let item) = $0 { picture(item) } else { nil }
        }
    }

    /// Draws `cells` (see ``StripCompositor/compose(into:cells:contents:picture:)``).
    public func draw(
        into surface: PixelSurface, cells: [StripCell], contents: inout BufferContents,
        scratch: inout RasterImage, picture: (StripCell.Content) -> RasterImage?
    ) {
        precondition(surface.size == panel, "surface \(surface.size) is not the panel \(panel)")
        if rotation == .none {
            compositor.compose(into: surface, cells: cells, contents: &contents, picture: picture)
            return
        }
        contents = BufferContents()
        if scratch.size != compositor.geometry.screen {
            scratch = RasterImage(size: compositor.geometry.screen, filledWith: compositor.background)
        }
        scratch.withSurface { logical in
            var fresh = BufferContents()
            compositor.compose(into: logical, cells: cells, contents: &fresh, picture: picture)
        }
        turn(scratch, onto: surface, by: rotation)
    }
}

/// Copies `image` onto `surface` turned clockwise by `rotation`.
/// For 90 degrees the image's top-left pixel lands at the surface's top-right.
public func turn(_ image: RasterImage, onto surface: PixelSurface, by rotation: Rotation) {
    precondition(rotation.logicalSize(of: image.size) == surface.size)
    let w = image.width, h = image.height
    image.pixels.withUnsafeBufferPointer { source in
        switch rotation {
        case .none:
            for y in 0..<h { surface.row(y).update(from: source.baseAddress! + y * w, count: w) }
        case .half:
            for y in 0..<h {
                let out = surface.row(h - 1 - y)
                let row = source.baseAddress! + y * w
                for x in 0..<w { out[w - 1 - x] = row[x] }
            }
        case .quarter:
            // Source column x becomes panel row x, read bottom to top.
            for x in 0..<w {
                let out = surface.row(x)
                for y in 0..<h { out[h - 1 - y] = source[y * w + x] }
            }
        case .threeQuarters:
            for x in 0..<w {
                let out = surface.row(w - 1 - x)
                for y in 0..<h { out[y] = source[y * w + x] }
            }
        }
    }
}
