import KioskCore
import KioskRendering
import Testing

/// A scan-out buffer may be mapped write-combined, where reads are very
/// slow: the renderer must only ever write to it. Frames are composed into
/// buffers filled beforehand with noise and with zeros, through the
/// display's own path (a reused buffer's `BufferContents`, every rotation,
/// a change's scaled cells): any pixel that depended on what the buffer
/// held, which only a read could cause, would differ between the two.
@Suite struct SurfaceWriteOnlyTests {
    let geometry = try! CarouselGeometry(
        screen: PixelSize(width: 320, height: 180), slotWidth: 200, slotHeight: 180, spacing: 10)

    private func noise(_ size: PixelSize, seed: UInt32) -> RasterImage {
        var state = seed
        return RasterImage(size: size, pixels: (0..<size.pixelCount).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return state
        })
    }

    @Test func noFrameDependsOnWhatTheBufferHeld() {
        let pictures = [
            RasterImage(size: PixelSize(width: 200, height: 100), filledWith: red),
            noise(PixelSize(width: 150, height: 150), seed: 7),
            RasterImage(size: PixelSize(width: 200, height: 40), filledWith: blue),
        ]
        for rotation in Rotation.allCases {
            let renderer = FrameRenderer(compositor: StripCompositor(geometry: geometry, background: grey), rotation: rotation)
            var noisy = noise(renderer.panel, seed: 99), zeroed = RasterImage(size: renderer.panel, filledWith: .black)
            var contents = (BufferContents(), BufferContents())
            // Text over it, half transparent: a caption on each picture, and a clock that comes and goes.
            let text = OverlayLayer(upright: [UInt32](repeating: 0x8040_4040, count: 30 * 8), size: PixelSize(width: 30, height: 8), turnedBy: rotation)
            // Dimmed in software too (brightness below 100).
            for (step, (position, brightness)) in [(0.0, 100), (0.3, 40), (0.3, 40), (1.7, 100), (-0.4, 25), (2, 25)].enumerated() {
                let clock = step % 2 == 0 ? [PlacedOverlay(text, x: 280, y: 165)] : []
                noisy.withSurface { surface in
                    renderer.draw(
                        into: surface, position: position, playlist: CircularIndex(count: 3), brightness: brightness, overlays: clock,
                        caption: { _ in text }, contents: &contents.0
                    ) { pictures[$0] }
                }
                zeroed.withSurface { surface in
                    renderer.draw(
                        into: surface, position: position, playlist: CircularIndex(count: 3), brightness: brightness, overlays: clock,
                        caption: { _ in text }, contents: &contents.1
                    ) { pictures[$0] }
                }
                #expect(noisy.pixels == zeroed.pixels, "rotation \(rotation), position \(position), brightness \(brightness)")
            }
            // A change's cells, one of them scaled (drawn by nearest neighbour).
            let cells = [
                StripCell(content: .item(0), x: 10, y: 20, size: PixelSize(width: 200, height: 100), scale: 0.6),
                StripCell(content: .item(1), x: 150, y: 0, size: PixelSize(width: 150, height: 150)),
            ]
            var fresh = (BufferContents(), BufferContents())
            noisy = noise(renderer.panel, seed: 5)
            zeroed = RasterImage(size: renderer.panel, filledWith: .black)
            noisy.withSurface { renderer.draw(into: $0, cells: cells, contents: &fresh.0) { if case .item(let i) = $0 { pictures[i] } else { nil } } }
            zeroed.withSurface { renderer.draw(into: $0, cells: cells, contents: &fresh.1) { if case .item(let i) = $0 { pictures[i] } else { nil } } }
            #expect(noisy.pixels == zeroed.pixels, "rotation \(rotation), a change's cells")
        }
    }
}
