import KioskCore
import KioskRendering
import Testing

/// A frame's makings taken on one thread and composed on another (a
/// screenshot, the MQTT picture) give the frame the screen got.
@Suite struct FrameRecipeTests {
    let geometry = try! CarouselGeometry(screen: PixelSize(width: 320, height: 180), slotWidth: 200, slotHeight: 180, spacing: 10)

    func pictures() -> [RasterImage] {
        [RasterImage(size: PixelSize(width: 200, height: 100), filledWith: RGBColor(red: 200, green: 30, blue: 30)),
         RasterImage(size: PixelSize(width: 160, height: 180), filledWith: RGBColor(red: 30, green: 30, blue: 200)),
         RasterImage(size: PixelSize(width: 180, height: 180), filledWith: RGBColor(red: 30, green: 200, blue: 30))]
    }

    @Test(arguments: [Rotation.none, .quarter])
    func aRecipeComposedOnAnotherThreadIsTheFrameDrawnAtOnce(_ rotation: Rotation) async {
        let renderer = FrameRenderer(compositor: StripCompositor(geometry: geometry, background: RGBColor(red: 40, green: 40, blue: 40)), rotation: rotation)
        let layer = OverlayLayer(
            upright: (0..<21).map { $0 % 2 == 0 ? 0xFF_FF_FF_FF : 0x80_00_00_80 }, size: PixelSize(width: 7, height: 3), turnedBy: rotation)
        var pictures = pictures()
        let cells = geometry.cells(at: 0.4, playlist: CircularIndex(count: 3))
        let overlays = [PlacedOverlay(layer, x: 20, y: 10)]
        func item(_ content: StripCell.Content) -> Int? { if case .item(let item) = content { item } else { nil } }
        var drawn = RasterImage(size: renderer.panel, filledWith: .black)
        var contents = BufferContents()
        drawn.withSurface { surface in
            renderer.draw(
                into: surface, cells: cells, brightness: 70, overlays: overlays, caption: { item($0) == 1 ? layer : nil }, contents: &contents
            ) { item($0).map { pictures[$0] } }
        }
        let recipe = FrameRecipe(
            renderer: renderer, cells: cells, brightness: 70, overlays: overlays, caption: { item($0) == 1 ? layer : nil }
        ) { item($0).map { pictures[$0] } }
        // The show goes on meanwhile: what it holds now is not what was on screen.
        pictures[1] = RasterImage(size: PixelSize(width: 160, height: 180), filledWith: .black)
        let composed = await Task.detached { recipe.composed() }.value
        #expect(composed.size == renderer.panel)
        #expect(composed == drawn)
        // Two pictures and the caption's white are all in it: the comparison compares something.
        #expect(Set(composed.pixels).count >= 4)
    }
}
