import KioskCore
import KioskRendering
import Testing

/// Text layers over the strip: blended exactly, upright on a turned panel,
/// a caption carried and clipped with its picture, and a reused buffer
/// left with no trace of a layer that has gone.
@Suite struct OverlayCompositingTests {
    let geometry = try! CarouselGeometry(screen: PixelSize(width: 320, height: 180), slotWidth: 200, slotHeight: 180, spacing: 10)

    /// Premultiplied ARGB `colour` at `alpha`, worked out on its own.
    static func argb(_ colour: RGBColor, alpha: UInt32) -> UInt32 {
        let r = UInt32(colour.red) * alpha / 255, g = UInt32(colour.green) * alpha / 255, b = UInt32(colour.blue) * alpha / 255
        return alpha << 24 | r << 16 | g << 8 | b
    }

    /// `source` (premultiplied) over `target`, each channel rounded: the expected blend.
    static func over(_ source: UInt32, _ target: UInt32) -> UInt32 {
        let alpha = Int(source >> 24)
        func channel(_ shift: UInt32) -> UInt32 {
            let under = Int(target >> shift & 0xFF), top = Int(source >> shift & 0xFF)
            return UInt32(top + (under * (255 - alpha) + 127) / 255) << shift
        }
        return channel(16) | channel(8) | channel(0)
    }

    /// A 7x3 layer: opaque white, half-transparent white and clear columns,
    /// and a row of 25% yellow; its pixels are not symmetric, so any turn shows.
    static let layerPixels: [UInt32] = (0..<21).map { i in
        let x = i % 7, y = i / 7
        if y == 2 { return argb(RGBColor(red: 255, green: 255, blue: 0), alpha: 64) }
        return [argb(RGBColor(red: 255, green: 255, blue: 255), alpha: 255), argb(RGBColor(red: 255, green: 255, blue: 255), alpha: 128), 0][x % 3]
    }

    func frame(_ rotation: Rotation, position: Double = 0, overlayAt: (x: Int, y: Int)? = (30, 150), captions: Bool = false) -> RasterImage {
        let renderer = FrameRenderer(compositor: StripCompositor(geometry: geometry, background: grey), rotation: rotation)
        let layer = OverlayLayer(upright: Self.layerPixels, size: PixelSize(width: 7, height: 3), turnedBy: rotation)
        let pictures = [RasterImage(size: PixelSize(width: 200, height: 100), filledWith: red), RasterImage(size: PixelSize(width: 160, height: 180), filledWith: blue)]
        var image = RasterImage(size: renderer.panel, filledWith: .black)
        var contents = BufferContents()
        image.withSurface { surface in
            renderer.draw(
                into: surface, position: position, playlist: CircularIndex(count: 2),
                overlays: overlayAt.map { [PlacedOverlay(layer, x: $0.x, y: $0.y)] } ?? [], caption: { _ in captions ? layer : nil },
                contents: &contents
            ) { pictures[$0] }
        }
        return image
    }

    @Test func anOverlayIsBlendedOverTheFrameExactly() {
        let plain = frame(.none, overlayAt: nil)
        let shown = frame(.none, overlayAt: (30, 150))
        for y in 0..<180 {
            for x in 0..<320 {
                let inLayer = (30..<37).contains(x) && (150..<153).contains(y)
                let expected = inLayer ? Self.over(Self.layerPixels[(y - 150) * 7 + x - 30], plain[x, y]) : plain[x, y]
                #expect(shown[x, y] == expected, "pixel \(x),\(y)")
                if shown[x, y] != expected { return }
            }
        }
        // The opaque white column is white, whatever was under it.
        #expect(shown[30, 150] == 0xFF_FFFF)
    }

    /// The viewer sees the same frame, text upright, whichever way the panel is turned.
    @Test(arguments: Rotation.allCases)
    func textIsUprightOnATurnedPanel(_ rotation: Rotation) {
        for position in [0.0, 0.4] {
            let upright = frame(.none, position: position, captions: true)
            #expect(frame(rotation, position: position, captions: true) == referenceTurn(upright, by: rotation), "position \(position)")
        }
    }

    @Test func aCaptionSlidesWithItsPictureAndIsClippedToItsCell() {
        let renderer = FrameRenderer(compositor: StripCompositor(geometry: geometry, background: grey), rotation: .none)
        let pictures = [RasterImage(size: PixelSize(width: 200, height: 100), filledWith: red), RasterImage(size: PixelSize(width: 200, height: 100), filledWith: blue)]
        func greenColumns(at position: Double, captionWidth: Int = 40) -> [Int] {
            let layer = OverlayLayer(upright: [UInt32](repeating: 0xFF00_FF00, count: captionWidth * 10), size: PixelSize(width: captionWidth, height: 10))
            var image = RasterImage(size: renderer.panel, filledWith: .black)
            var contents = BufferContents()
            image.withSurface { surface in
                renderer.draw(into: surface, position: position, playlist: CircularIndex(count: 2), caption: { $0 == 0 ? layer : nil }, contents: &contents) {
                    pictures[$0]
                }
            }
            // The caption's row: a thirtieth of the picture's height above its bottom edge, less its own height.
            let row = 40 + 100 - 100 / 30 - 5
            return (0..<320).filter { image[$0, row] == 0x00FF00 }
        }
        // Centred on picture 0, centred on the screen: columns 140..<180.
        #expect(greenColumns(at: 0) == Array(140..<180))
        // A tenth of a slot and spacing (21 pixels) on, the caption has moved with its picture.
        #expect(greenColumns(at: 0.1) == Array(119..<159))
        // Picture 0 as the right-hand neighbour (126 pixels right): its caption
        // shows where the picture does; picture 1's has none.
        #expect(greenColumns(at: -0.6) == Array(266..<306))
        // A caption wider than its picture shows only inside the picture's cell (60..<260).
        #expect(greenColumns(at: 0, captionWidth: 260) == Array(60..<260))
    }

    /// A layer whose ink lies outside where it is clipped draws nothing,
    /// and the rows it spans are the plain frame's.
    @Test func aLayerClippedWhereItHasNoInkDrawsNothing() {
        let renderer = FrameRenderer(compositor: StripCompositor(geometry: geometry, background: grey), rotation: .none)
        let pictures = [RasterImage(size: PixelSize(width: 200, height: 100), filledWith: red)]
        // 300 wide on a 200-wide picture: ink only in its first 20 columns, which the cell (60..<260) cuts off.
        let pixels = (0..<(300 * 10)).map { $0 % 300 < 20 ? UInt32(0xFF00_FF00) : 0 }
        let layer = OverlayLayer(upright: pixels, size: PixelSize(width: 300, height: 10))
        func frame(caption: OverlayLayer?) -> RasterImage {
            var image = RasterImage(size: renderer.panel, filledWith: .black)
            var contents = BufferContents()
            image.withSurface { renderer.draw(into: $0, position: 0, playlist: CircularIndex(count: 1), caption: { _ in caption }, contents: &contents) { pictures[$0] } }
            return image
        }
        #expect(frame(caption: layer) == frame(caption: nil))
    }

    /// A buffer reused frame after frame (the display's) ends each frame as
    /// a fresh one would: an overlay that moved or went leaves nothing behind.
    @Test func aReusedBufferKeepsNoTraceOfAnOverlayThatWent() {
        let renderer = FrameRenderer(compositor: StripCompositor(geometry: geometry, background: grey), rotation: .none)
        let layer = OverlayLayer(upright: Self.layerPixels, size: PixelSize(width: 7, height: 3))
        let pictures = [RasterImage(size: PixelSize(width: 200, height: 100), filledWith: red)]
        var reused = RasterImage(size: renderer.panel, filledWith: .black)
        var contents = BufferContents()
        for overlays in [[PlacedOverlay(layer, x: 5, y: 2)], [PlacedOverlay(layer, x: 300, y: 170)], [], [PlacedOverlay(layer, x: 100, y: 90)]] {
            reused.withSurface { renderer.draw(into: $0, position: 0, playlist: CircularIndex(count: 1), overlays: overlays, contents: &contents) { pictures[$0] } }
            var fresh = RasterImage(size: renderer.panel, filledWith: .black)
            fresh.withSurface { surface in
                var new = BufferContents()
                renderer.draw(into: surface, position: 0, playlist: CircularIndex(count: 1), overlays: overlays, contents: &new) { pictures[$0] }
            }
            #expect(reused == fresh, "overlays \(overlays.map { ($0.x, $0.y) })")
        }
    }
}
