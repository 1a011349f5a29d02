import KioskCore
import KioskRendering
import Testing

/// A 3x2 image whose pixels are their own positions: 0x00XXYY.
let numbered = RasterImage(size: PixelSize(width: 3, height: 2), pixels: [0x0000, 0x0100, 0x0200, 0x0001, 0x0101, 0x0201])

/// The turn written the obvious way, pixel by pixel: what the renderer's
/// one-pass turned composition must equal. Clockwise by `rotation`; for 90
/// degrees the image's top-left pixel lands at the top-right.
func referenceTurn(_ image: RasterImage, by rotation: Rotation) -> RasterImage {
    let w = image.width, h = image.height
    var out = RasterImage(size: rotation.logicalSize(of: image.size), filledWith: .black)
    for y in 0..<h {
        for x in 0..<w {
            switch rotation {
            case .none: out[x, y] = image[x, y]
            case .half: out[w - 1 - x, h - 1 - y] = image[x, y]
            case .quarter: out[h - 1 - y, x] = image[x, y]
            case .threeQuarters: out[y, w - 1 - x] = image[x, y]
            }
        }
    }
    return out
}

/// `numbered` filling a 3x2 screen, drawn on the panel turned by `rotation`,
/// rows `pitchPixels` apart; the padding is left 0xFFFFFFFF.
func turned(_ rotation: Rotation, pitchPixels: Int? = nil) -> (rows: [[UInt32]], memory: [UInt32]) {
    let geometry = try! CarouselGeometry(screen: numbered.size, slotWidth: 3, slotHeight: 2, spacing: 1)
    let renderer = FrameRenderer(compositor: StripCompositor(geometry: geometry, background: .black), rotation: rotation)
    let size = renderer.panel
    let pitch = pitchPixels ?? size.width
    var memory = [UInt32](repeating: 0xFFFFFFFF, count: pitch * size.height)
    memory.withUnsafeMutableBytes { bytes in
        renderer.draw(into: PixelSurface(base: bytes.baseAddress!, size: size, bytesPerRow: pitch * 4),
                      position: 0, playlist: CircularIndex(count: 1)) { _ in numbered }
    }
    return ((0..<size.height).map { y in Array(memory[(y * pitch)..<(y * pitch + size.width)]) }, memory)
}

@Suite struct TurnTests {
    @Test func noneCopies() {
        #expect(turned(.none).rows == [[0x0000, 0x0100, 0x0200], [0x0001, 0x0101, 0x0201]])
    }

    @Test func quarterTurnsClockwise() {
        // The top-left pixel lands top-right; the bottom-left lands top-left.
        #expect(turned(.quarter).rows == [[0x0001, 0x0000], [0x0101, 0x0100], [0x0201, 0x0200]])
    }

    @Test func halfTurnsUpsideDown() {
        #expect(turned(.half).rows == [[0x0201, 0x0101, 0x0001], [0x0200, 0x0100, 0x0000]])
    }

    @Test func threeQuartersTurnsCounterClockwise() {
        #expect(turned(.threeQuarters).rows == [[0x0200, 0x0201], [0x0100, 0x0101], [0x0000, 0x0001]])
    }

    @Test func rowPaddingIsLeftAlone() {
        for rotation in Rotation.allCases {
            let width = rotation.logicalSize(of: numbered.size).width
            let memory = turned(rotation, pitchPixels: width + 3).memory
            for y in 0..<(memory.count / (width + 3)) {
                let padding = memory[(y * (width + 3) + width)..<((y + 1) * (width + 3))]
                #expect(padding.allSatisfy { $0 == 0xFFFFFFFF }, "rotation \(rotation), row \(y)")
            }
        }
    }

    @Test func theRendererLaysOutAtTheTurnedSize() throws {
        // A 40x20 panel at 90 degrees is a 20x40 strip: one 10x40 slot in the middle.
        let geometry = try CarouselGeometry(screen: PixelSize(width: 20, height: 40), slotWidth: 10, slotHeight: 40, spacing: 20)
        let renderer = FrameRenderer(compositor: StripCompositor(geometry: geometry, background: .black), rotation: .quarter)
        #expect(renderer.panel == PixelSize(width: 40, height: 20))
        var frame = RasterImage(size: renderer.panel, filledWith: .black)
        frame.withSurface { surface in
            renderer.draw(into: surface, position: 0, playlist: CircularIndex(count: 1)) { _ in
                RasterImage(size: PixelSize(width: 10, height: 40), filledWith: RGBColor(xrgb: 0xFF0000))
            }
        }
        // The slot's columns 5..<15 become the panel's rows 5..<15, full width.
        for x in 0..<40 {
            #expect(frame[x, 4] == 0 && frame[x, 5] == 0xFF0000 && frame[x, 14] == 0xFF0000 && frame[x, 15] == 0)
        }
    }

    /// Every rotation, through a slide into reused buffers (whose skipped
    /// rows must still hold the right pixels), and a change's scaled cells:
    /// the panel is the unturned frame turned, pixel for pixel.
    @Test func aTurnedFrameIsTheFrameTurned() throws {
        // Pictures wider and narrower than their slots' share, letterboxed,
        // each pixel different, so a pixel from the wrong row or column shows.
        let geometry = try CarouselGeometry(screen: PixelSize(width: 97, height: 61), slotWidth: 60, slotHeight: 61, spacing: 7)
        let pictures = [PixelSize(width: 60, height: 31), PixelSize(width: 41, height: 61), PixelSize(width: 60, height: 45)].enumerated().map { n, size in
            RasterImage(size: size, pixels: (0..<size.pixelCount).map { UInt32($0) &* 2_654_435_761 &+ UInt32(n) & 0x00FF_FFFF })
        }
        let compositor = StripCompositor(geometry: geometry, background: RGBColor(xrgb: 0x203040), alignment: .inner)
        let flat = FrameRenderer(compositor: compositor, rotation: .none)
        func unturned(_ cells: [StripCell]) -> RasterImage {
            var frame = RasterImage(size: geometry.screen, filledWith: .black)
            var fresh = BufferContents()
            frame.withSurface { flat.draw(into: $0, cells: cells, contents: &fresh) { if case .item(let i) = $0 { pictures[i] } else { nil } } }
            return frame
        }
        for rotation in Rotation.allCases {
            let renderer = FrameRenderer(compositor: compositor, rotation: rotation)
            var buffers = [RasterImage](repeating: RasterImage(size: renderer.panel, filledWith: RGBColor(xrgb: 0xFFFFFF)), count: 2)
            var contents = [BufferContents(), BufferContents()]
            for (frame, position) in [0, 0.1, 0.35, 0.6, 0.6, 1.2, -0.7, -0.2].enumerated() {
                let cells = geometry.cells(at: position, playlist: CircularIndex(count: 3))
                buffers[frame % 2].withSurface { surface in
                    renderer.draw(into: surface, cells: cells, contents: &contents[frame % 2]) {
                        if case .item(let i) = $0 { pictures[i] } else { nil }
                    }
                }
                let expected = referenceTurn(unturned(cells), by: rotation)
                #expect(buffers[frame % 2] == expected, "rotation \(rotation), position \(position)")
            }
            let scaled = [
                StripCell(content: .item(0), x: -5, y: 3, size: PixelSize(width: 60, height: 31), scale: 0.7),
                StripCell(content: .item(1), x: 56, y: 0, size: PixelSize(width: 41, height: 61), scale: 1.3),
            ]
            var panel = RasterImage(size: renderer.panel, filledWith: RGBColor(xrgb: 0xFFFFFF))
            var fresh = BufferContents()
            panel.withSurface { renderer.draw(into: $0, cells: scaled, contents: &fresh) { if case .item(let i) = $0 { pictures[i] } else { nil } } }
            #expect(panel == referenceTurn(unturned(scaled), by: rotation), "rotation \(rotation), scaled cells")
        }
    }
}
