import KioskCore

/// Draws one frame of the strip: the background, and each visible slot's
/// picture centred in its slot (or leaning toward the screen's centre,
/// ``PictureAlignment/inner``), clipped at the screen edges.
///
/// The snapshot PNG and the display path both draw through this type, so the
/// same state gives the same pixels wherever they end up.
public struct StripCompositor: Sendable {
    public let geometry: CarouselGeometry
    public let background: RGBColor
    public let alignment: PictureAlignment

    public init(geometry: CarouselGeometry, background: RGBColor, alignment: PictureAlignment = .centre) {
        self.geometry = geometry
        self.background = background
        self.alignment = alignment
    }

    /// Composes the strip at `position` into `surface` (which must be the
    /// screen's size).
    ///
    /// - Parameter picture: the picture for a playlist item, already fitted to
    ///   the slot (see ``aspectFitSize(of:in:)``), or nil when it is not ready:
    ///   that slot then shows the background, never a stall.
    public func compose(
        into surface: PixelSurface, position: Double, playlist: CircularIndex,
        picture: (Int) -> RasterImage?
    ) {
        var fresh = BufferContents()
        compose(into: surface, position: position, playlist: playlist, contents: &fresh, picture: picture)
    }

    /// Composes into a buffer that already holds an earlier frame (the
    /// display's back buffer), described by `contents`: rows that were
    /// background there and are background now are left alone. With
    /// letterboxed pictures on a wide screen that skips the bands above and
    /// below the strip during a slide. `contents` is updated for next time.
    public func compose(
        into surface: PixelSurface, position: Double, playlist: CircularIndex,
        contents: inout BufferContents, picture: (Int) -> RasterImage?
    ) {
        compose(into: surface, cells: geometry.cells(at: position, playlist: playlist), contents: &contents) {
            if case .item(let item) = $0 { picture(item) } else { nil }
        }
    }

    /// Composes `cells` (left to right, not overlapping): the still strip's
    /// (``CarouselGeometry/cells(at:playlist:)``) or a change's
    /// (``StripChange/cells(at:time:)``). A scaled cell's picture is drawn
    /// scaled by nearest neighbour: it only shows while it grows or shrinks.
    ///
    /// With a `rotation` the surface is the panel, the screen turned
    /// clockwise by it, and each pixel is written straight to its turned
    /// place: one pass over the panel, never a frame composed and then
    /// turned. A half turn writes each row backwards; a quarter turn makes
    /// each screen column a panel row, read from the pictures' columns.
    ///
    /// `brightness` below 100 dims every pixel written to that percent of
    /// itself (software dimming, where the panel has no backlight to turn
    /// down): a buffer dimmed otherwise is drawn whole again.
    ///
    /// `overlays` (text) are blended over the strip, in order, each row of
    /// them into the row being composed before it is written: the panel's
    /// memory is still written once and never read. A picture's `caption`
    /// comes first, placed on it (``captionPlacement(of:onPictureAt:cell:)``)
    /// and clipped to its cell, so it slides with it and shows where it shows.
    public func compose(
        into surface: PixelSurface, cells: [StripCell], turnedBy rotation: Rotation = .none, brightness: Int = 100,
        overlays: [PlacedOverlay] = [], caption: (StripCell.Content) -> OverlayLayer? = { _ in nil },
        contents: inout BufferContents, picture: (StripCell.Content) -> RasterImage?
    ) {
        precondition(surface.size == rotation.logicalSize(of: geometry.screen),
                     "surface \(surface.size) is not the screen \(geometry.screen) turned \(rotation.rawValue) degrees")
        let placed = cells.compactMap { cell -> PlacedPicture? in
            guard let image = picture(cell.content) else { return nil }
            let lean = alignment == .inner ? geometry.lean(ofCellAt: cell.x, width: cell.size.width) : 0
            return PlacedPicture(cell: cell, image: image, lean: lean)
        }
        var pictureRows: Range<Int>?
        for rows in placed.compactMap(\.rows) { pictureRows = pictureRows?.spanning(rows) ?? rows }
        let captions = placed.compactMap { picture -> PlacedOverlay? in
            guard picture.cell.scale == 1, let layer = caption(picture.cell.content) else { return nil }
            return Self.captionPlacement(of: layer, onPictureAt: PixelRect(x: picture.x, y: picture.y, width: picture.drawn.width, height: picture.drawn.height), cell: picture.cell)
        }
        let placedOverlays = captions + overlays
        let layers = placedOverlays.compactMap { PanelOverlay($0, screen: geometry.screen, rotation: rotation) }
        if let changed = contents.changedPictures(placed, overlays: placedOverlays, background: background, rotation: rotation, brightness: brightness) {
            // Only pictures changed, in place (a clip's frame, an animation's):
            // their rectangles alone are written.
            contents.pictures = placed
            for picture in changed { drawWhole(picture, into: surface, backwards: rotation == .half) }
            return
        }
        let rows: Range<Int>
        if contents.isComplete && contents.background == background && contents.rotation == rotation && contents.brightness == brightness {
            // The pictures' rows, then and now, and the rows of an overlay that
            // came, went or moved. One that stayed (the clock on the background
            // below the strip) is still in the buffer: it is blended again only
            // where its rows are drawn again.
            let changed = contents.overlays.filter { !placedOverlays.contains($0) } + placedOverlays.filter { !contents.overlays.contains($0) }
            let changedRows = changed.compactMap { $0.visibleRect(onScreen: geometry.screen).map { $0.y..<($0.y + $0.height) } }
            rows = ([contents.pictureRows, pictureRows].compactMap { $0 } + changedRows)
                .reduce(nil as Range<Int>?) { $0?.spanning($1) ?? $1 } ?? 0..<0
        } else {
            rows = 0..<geometry.screen.height
        }
        contents = BufferContents(pictureRows: pictureRows, overlays: placedOverlays, background: background, rotation: rotation, brightness: brightness)
        contents.pictures = placed
        let dimming = brightness < 100 ? Dimming(percent: brightness) : nil
        switch rotation {
        case .none: composeRows(rows, of: placed, overlays: layers, into: surface, backwards: false, dimming: dimming)
        case .half: composeRows(rows, of: placed, overlays: layers, into: surface, backwards: true, dimming: dimming)
        case .quarter, .threeQuarters:
            guard dimming != nil || !layers.isEmpty, !rows.isEmpty else { return composeColumns(rows, of: placed, into: surface, rotation: rotation) }
            // Composed in ordinary memory, the overlays blended in, then the
            // band of each panel row those screen rows are, written (dimmed).
            let height = geometry.screen.height
            let columns = rotation == .quarter ? (height - rows.upperBound)..<(height - rows.lowerBound) : rows
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: surface.size.pixelCount) { scratch in
                let composed = PixelSurface(base: UnsafeMutableRawPointer(scratch.baseAddress!), size: surface.size, bytesPerRow: surface.size.width * 4)
                composeColumns(rows, of: placed, into: composed, rotation: rotation)
                for y in 0..<surface.size.height {
                    for layer in layers { layer.blend(intoPanelRow: y, composed.row(y), within: columns) }
                    if let dimming {
                        dimming.apply(composed.row(y) + columns.lowerBound, count: columns.count, into: surface.row(y) + columns.lowerBound)
                    } else {
                        (surface.row(y) + columns.lowerBound).update(from: composed.row(y) + columns.lowerBound, count: columns.count)
                    }
                }
            }
        }
    }

    /// Where a caption sits on its picture (`picture`, its rectangle on the
    /// screen): centred across it, its bottom a thirtieth of the picture's
    /// height above the picture's bottom edge, clipped to the picture's cell.
    public static func captionPlacement(of layer: OverlayLayer, onPictureAt picture: PixelRect, cell: StripCell) -> PlacedOverlay {
        let x = picture.x + (picture.width - layer.size.width) / 2
        let y = picture.y + picture.height - picture.height / 30 - layer.size.height
        return PlacedOverlay(layer, x: x, y: max(picture.y, y), clip: PixelRect(x: cell.x, y: cell.y, width: cell.size.width, height: cell.size.height))
    }

    /// Software dimming: each channel scaled to `percent` of itself, rounded.
    struct Dimming {
        private let scale: [UInt32]

        init(percent: Int) { scale = (0..<256).map { UInt32(($0 * max(percent, 0) + 50) / 100) } }

        /// `count` pixels from `source`, dimmed, to `target`.
        func apply(_ source: UnsafePointer<UInt32>, count: Int, into target: UnsafeMutablePointer<UInt32>) {
            scale.withUnsafeBufferPointer { scale in
                for x in 0..<count {
                    let pixel = source[x]
                    target[x] = scale[Int(pixel >> 16 & 0xFF)] << 16 | scale[Int(pixel >> 8 & 0xFF)] << 8 | scale[Int(pixel & 0xFF)]
                }
            }
        }
    }

    /// Row by row: background up to each picture, the picture's row, the
    /// background after it. Each pixel is written once; `backwards` (a half
    /// turn) writes screen row y right to left into panel row `height - 1 - y`.
    ///
    /// Dimmed, each row is composed in ordinary memory first and written
    /// dimmed: a display's buffer may be mapped write-combined, where
    /// reading pixels back is slow.
    private func composeRows(
        _ rows: Range<Int>, of placed: [PlacedPicture], overlays: [PanelOverlay], into surface: PixelSurface, backwards: Bool, dimming: Dimming?
    ) {
        let fill = background.xrgb
        let width = geometry.screen.width, height = geometry.screen.height
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: dimming == nil && overlays.isEmpty ? 0 : width) { scratch in
            for y in rows {
                let panelY = backwards ? height - 1 - y : y
                let panelRow = surface.row(panelY)
                let covered = overlays.contains { $0.inkedColumns(panelRow: panelY) != nil }
                let row = dimming == nil && !covered ? panelRow : scratch.baseAddress!
                // The screen's columns a..<b in the row.
                func fillColumns(_ a: Int, _ b: Int) {
                    guard a < b else { return }
                    (row + (backwards ? width - b : a)).update(repeating: fill, count: b - a)
                }
                var x = 0
                for picture in placed {
                    guard let span = picture.span(onRow: y, screenWidth: width) else { continue }
                    fillColumns(x, span.x)
                    if backwards { picture.drawBackwards(span, into: row, rowWidth: width) } else { picture.draw(span, into: row) }
                    x = span.x + span.count
                }
                fillColumns(x, width)
                guard row != panelRow else { continue }
                for overlay in overlays { overlay.blend(intoPanelRow: panelY, row) }
                if let dimming { dimming.apply(row, count: width, into: panelRow) } else { panelRow.update(from: row, count: width) }
            }
        }
    }

    /// Column by column (a quarter turn): screen column x is panel row x
    /// (clockwise, read bottom to top) or `width - 1 - x` (anticlockwise, top
    /// to bottom). Only the screen rows `rows` are written in each, so the
    /// bands above and below the strip are skipped as in ``composeRows``.
    /// A picture's columns are copied ``columnBlock`` at a time, so each
    /// cache line of the picture is read once for all the panel rows it feeds.
    private func composeColumns(_ rows: Range<Int>, of placed: [PlacedPicture], into surface: PixelSurface, rotation: Rotation) {
        guard !rows.isEmpty else { return }
        let fill = background.xrgb
        let width = geometry.screen.width, height = geometry.screen.height
        let clockwise = rotation == .quarter
        func panelRow(_ x: Int) -> UnsafeMutablePointer<UInt32> { surface.row(clockwise ? x : width - 1 - x) }
        // The screen's rows a..<b in screen column x's panel row.
        func fillRows(_ x: Int, _ a: Int, _ b: Int) {
            guard a < b else { return }
            (panelRow(x) + (clockwise ? height - b : a)).update(repeating: fill, count: b - a)
        }
        withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<UInt32>.self, capacity: Self.columnBlock) { block in
            var x = 0
            for picture in placed {
                guard let columns = picture.columns(screenWidth: width), let pictureRows = picture.rows, columns.lowerBound >= x else { continue }
                for column in x..<columns.lowerBound { fillRows(column, rows.lowerBound, rows.upperBound) }
                for column in columns {
                    fillRows(column, rows.lowerBound, pictureRows.lowerBound)
                    fillRows(column, pictureRows.upperBound, rows.upperBound)
                }
                for start in stride(from: columns.lowerBound, to: columns.upperBound, by: Self.columnBlock) {
                    let blockColumns = start..<min(start + Self.columnBlock, columns.upperBound)
                    for column in blockColumns { block[column - start] = panelRow(column) }
                    picture.drawColumns(blockColumns, rows: pictureRows, into: block.baseAddress!, clockwise: clockwise, screenHeight: height)
                }
                x = columns.upperBound
            }
            for column in x..<width { fillRows(column, rows.lowerBound, rows.upperBound) }
        }
    }

    /// Screen columns copied together in a quarter turn: 64 pixels, four
    /// 64-byte cache lines of a picture's row. On issue 48's machine
    /// `compose_ratio_rotated` was 0.74 to 1.02 with 64, 1.64 to 2.69 with
    /// 16 (one cache line, the value before) and 32, 0.99 to 1.23 with 128.
    static let columnBlock = 64

    /// Writes every row of `picture` into its place (upright, or a half turn).
    private func drawWhole(_ picture: PlacedPicture, into surface: PixelSurface, backwards: Bool) {
        let width = geometry.screen.width, height = geometry.screen.height
        for y in picture.rows ?? 0..<0 {
            guard let span = picture.span(onRow: y, screenWidth: width) else { continue }
            if backwards {
                picture.drawBackwards(span, into: surface.row(height - 1 - y), rowWidth: width)
            } else {
                picture.draw(span, into: surface.row(y))
            }
        }
    }
}

/// What a frame buffer holds from the last frame composed into it: the
/// compositor's memory of one buffer, kept by whoever owns the buffer.
public struct BufferContents: Sendable, Equatable {
    /// The rows any picture covered; nil when none did.
    public fileprivate(set) var pictureRows: Range<Int>?
    /// The overlays blended in, where: one that is the same next frame
    /// (its pixels the same array) need not be drawn again.
    public fileprivate(set) var overlays: [PlacedOverlay] = []
    /// The colour everything else was filled with; nil until a whole frame
    /// has been composed into the buffer.
    public fileprivate(set) var background: RGBColor?
    /// How that frame was turned onto the panel: rows skipped under one
    /// turn are other pixels under another.
    public fileprivate(set) var rotation = Rotation.none
    /// The percent its pixels were dimmed to (100: not dimmed).
    public fileprivate(set) var brightness = 100
    /// The pictures drawn, where (holding their pixels: a clip's frame in a
    /// buffer stays alive while it is there, so it is never mistaken for a
    /// new frame that reuses its memory).
    fileprivate var pictures: [PlacedPicture] = []

    /// A buffer with unknown contents: the next frame draws every row.
    public init() {}

    fileprivate init(pictureRows: Range<Int>?, overlays: [PlacedOverlay], background: RGBColor, rotation: Rotation, brightness: Int) {
        self.pictureRows = pictureRows
        self.overlays = overlays
        self.background = background
        self.rotation = rotation
        self.brightness = brightness
    }

    var isComplete: Bool { background != nil }

    public static func == (a: BufferContents, b: BufferContents) -> Bool {
        a.pictureRows == b.pictureRows && a.overlays == b.overlays && a.background == b.background && a.rotation == b.rotation
            && a.brightness == b.brightness && a.pictures.count == b.pictures.count
            && zip(a.pictures, b.pictures).allSatisfy { $0.sameplace(as: $1) && $0.image.sharesPixels(with: $1.image) }
    }

    /// The pictures of `placed` to draw again when the buffer holds the
    /// same frame but for them: every picture in the same place at the same
    /// size, the same overlays, background, turn (upright or half) and no
    /// dimming, and no overlay over a picture that changed (it would have
    /// to be blended again). Nil when the frame must be composed as usual.
    fileprivate func changedPictures(
        _ placed: [PlacedPicture], overlays: [PlacedOverlay], background: RGBColor, rotation: Rotation, brightness: Int
    ) -> [PlacedPicture]? {
        guard isComplete, self.background == background, self.rotation == rotation, rotation == .none || rotation == .half,
              self.brightness == brightness, brightness >= 100, self.overlays == overlays,
              pictures.count == placed.count, zip(pictures, placed).allSatisfy({ $0.sameplace(as: $1) })
        else { return nil }
        let changed = zip(pictures, placed).filter { !$0.image.sharesPixels(with: $1.image) }.map(\.1)
        guard !changed.isEmpty else { return [] }
        for picture in changed {
            let rect = PixelRect(x: picture.x, y: picture.y, width: picture.drawn.width, height: picture.drawn.height)
            if overlays.contains(where: { overlay in overlay.clipsOver(rect) }) { return nil }
        }
        return changed
    }
}

extension PlacedOverlay {
    /// True when the overlay's box (unclipped) meets `rect`.
    fileprivate func clipsOver(_ rect: PixelRect) -> Bool {
        x < rect.x + rect.width && rect.x < x + layer.size.width && y < rect.y + rect.height && rect.y < y + layer.size.height
    }
}

extension Range where Bound == Int {
    fileprivate func spanning(_ other: Range<Int>) -> Range<Int> {
        Swift.min(lowerBound, other.lowerBound)..<Swift.max(upperBound, other.upperBound)
    }
}

/// An overlay where it lands on the panel: the panel rectangle it shows in,
/// and how far its stored (turned) pixels are from the panel's.
private struct PanelOverlay {
    let layer: OverlayLayer
    /// The panel rectangle it shows in.
    let panel: PixelRect
    /// The panel point of the layer's stored pixel (0, 0).
    let offset: (x: Int, y: Int)

    init?(_ placed: PlacedOverlay, screen: PixelSize, rotation: Rotation) {
        precondition(placed.layer.rotation == rotation, "an overlay turned \(placed.layer.rotation.rawValue) degrees on a panel turned \(rotation.rawValue)")
        guard let visible = placed.visibleRect(onScreen: screen) else { return nil }
        layer = placed.layer
        panel = rotation.panelRect(of: visible, screen: screen)
        // Turning is the same for the layer and the screen, so the two differ by a translation.
        let corner = rotation.panelPoint(ofScreenX: placed.x, y: placed.y, screen: screen)
        let inLayer = rotation.panelPoint(ofScreenX: 0, y: 0, screen: placed.layer.size)
        offset = (corner.x - inLayer.x, corner.y - inLayer.y)
    }

    /// The panel columns of row `y` its ink covers, within `band` (nil where it has none there).
    func inkedColumns(panelRow y: Int, within band: Range<Int> = 0..<Int.max) -> Range<Int>? {
        guard y >= panel.y, y < panel.y + panel.height else { return nil }
        let ink = layer.inkColumns[y - offset.y]
        let first = max(panel.x, ink.lowerBound + offset.x, band.lowerBound)
        let end = min(panel.x + panel.width, ink.upperBound + offset.x, band.upperBound)
        return first < end ? first..<end : nil
    }

    /// Blends its part of panel row `y` into `row` (that panel row's
    /// pixels), only within the columns `band` (those composed).
    func blend(intoPanelRow y: Int, _ row: UnsafeMutablePointer<UInt32>, within band: Range<Int> = 0..<Int.max) {
        guard let columns = inkedColumns(panelRow: y, within: band) else { return }
        let stored = layer.storedSize
        layer.pixels.withUnsafeBufferPointer { pixels in
            let source = pixels.baseAddress! + (y - offset.y) * stored.width + (columns.lowerBound - offset.x)
            OverlayLayer.blend(source, count: columns.count, over: row + columns.lowerBound)
        }
    }
}

/// A picture placed in its cell (centred, or leaning toward the screen's
/// centre), in screen coordinates, at its cell's scale.
fileprivate struct PlacedPicture: Sendable {
    let image: RasterImage
    /// The picture's top-left corner and its size on screen.
    let x: Int
    let y: Int
    let drawn: PixelSize
    /// What it is clipped to: its cell's box.
    let cell: StripCell

    init(cell: StripCell, image: RasterImage, lean: Double) {
        let drawn = cell.scale == 1 ? image.size : PixelSize(
            width: max(1, Int((cell.scale * Double(image.width)).rounded())),
            height: max(1, Int((cell.scale * Double(image.height)).rounded())))
        let offset = centredOffset(of: drawn, in: cell.size)
        self.image = image
        self.drawn = drawn
        self.x = cell.x + alignedOffsetX(of: drawn.width, in: cell.size.width, lean: lean)
        self.y = cell.y + offset.y
        self.cell = cell
    }

    /// True when `other` is drawn at the same place and size, in the same cell.
    func sameplace(as other: PlacedPicture) -> Bool {
        x == other.x && y == other.y && drawn == other.drawn && cell.x == other.cell.x && cell.y == other.cell.y
            && cell.size == other.cell.size && cell.scale == other.cell.scale
    }

    /// The screen rows this picture covers, clipped to its cell.
    var rows: Range<Int>? {
        let top = max(0, y, cell.y)
        let bottom = min(cell.y + cell.size.height, y + drawn.height)
        return top < bottom ? top..<bottom : nil
    }

    /// The part of row `screenY` this picture covers, clipped to the screen
    /// and to its cell: a picture larger than its slot (which fitting should
    /// prevent) can never spill over a neighbour. `sourceY`: the picture's row.
    func span(onRow screenY: Int, screenWidth: Int) -> (x: Int, count: Int, sourceY: Int)? {
        let drawnY = screenY - y
        guard drawnY >= 0, drawnY < drawn.height,
              screenY >= cell.y, screenY < cell.y + cell.size.height,
              let columns = columns(screenWidth: screenWidth) else { return nil }
        let sourceY = drawn.height == image.height ? drawnY : drawnY * image.height / drawn.height
        return (columns.lowerBound, columns.count, sourceY)
    }

    /// The screen columns this picture covers, clipped to the screen and its cell.
    func columns(screenWidth: Int) -> Range<Int>? {
        let x0 = max(0, x, cell.x)
        let x1 = min(screenWidth, x + drawn.width, cell.x + cell.size.width)
        return x0 < x1 ? x0..<x1 : nil
    }

    /// Writes screen columns `columns` of the picture, screen rows `rows`
    /// (``rows``), into the panel rows `panelRows` (one per column) of a
    /// quarter turn: clockwise, screen row y lands at `screenHeight - 1 - y`;
    /// anticlockwise at y.
    func drawColumns(
        _ columns: Range<Int>, rows: Range<Int>, into panelRows: UnsafeMutablePointer<UnsafeMutablePointer<UInt32>>,
        clockwise: Bool, screenHeight: Int
    ) {
        let count = columns.count
        let scaled = drawn.height != image.height
        image.pixels.withUnsafeBufferPointer { pixels in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { sourceX in
                for k in 0..<count {
                    let drawnX = columns.lowerBound + k - x
                    sourceX[k] = drawn.width == image.width ? drawnX : drawnX * image.width / drawn.width
                }
                for screenY in rows {
                    let sourceY = scaled ? (screenY - y) * image.height / drawn.height : screenY - y
                    let line = pixels.baseAddress! + sourceY * image.width
                    let at = clockwise ? screenHeight - 1 - screenY : screenY
                    for k in 0..<count { panelRows[k][at] = line[sourceX[k]] }
                }
            }
        }
    }

    /// ``draw(_:into:)`` for a half turn: screen column c lands at `rowWidth - 1 - c`.
    func drawBackwards(_ span: (x: Int, count: Int, sourceY: Int), into row: UnsafeMutablePointer<UInt32>, rowWidth: Int) {
        image.pixels.withUnsafeBufferPointer { pixels in
            let source = pixels.baseAddress! + span.sourceY * image.width
            let out = row + (rowWidth - 1 - span.x)
            if drawn.width == image.width {
                let first = source + (span.x - x)
                for column in 0..<span.count { (out - column).pointee = first[column] }
                return
            }
            for column in 0..<span.count {
                (out - column).pointee = source[(span.x + column - x) * image.width / drawn.width]
            }
        }
    }

    /// Writes `span` of the picture into the screen row `row`: a copy at
    /// full size, every n-th pixel scaled.
    func draw(_ span: (x: Int, count: Int, sourceY: Int), into row: UnsafeMutablePointer<UInt32>) {
        image.pixels.withUnsafeBufferPointer { pixels in
            let source = pixels.baseAddress! + span.sourceY * image.width
            if drawn.width == image.width {
                (row + span.x).update(from: source + (span.x - x), count: span.count)
                return
            }
            for column in 0..<span.count {
                row[span.x + column] = source[(span.x + column - x) * image.width / drawn.width]
            }
        }
    }
}
