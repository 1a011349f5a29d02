import KioskCore
import KioskRendering
import Testing

/// A 3x2 image whose pixels are their own positions: 0x00XXYY.
let numbered = RasterImage(size: PixelSize(width: 3, height: 2), pixels: [0x0000, 0x0100, 0x0200, 0x0001, 0x0101, 0x0201])

func turned(_ rotation: Rotation, pitchPixels: Int? = nil) -> [[UInt32]] {
    let size = rotation.logicalSize(of: numbered.size)
    let pitch = pitchPixels ?? size.width
    var memory = [UInt32](repeating: 0xFFFFFFFF, count: pitch * size.height)
    memory.withUnsafeMutableBytes { bytes in
        turn(numbered, onto: PixelSurface(base: bytes.baseAddress!, size: size, bytesPerRow: pitch * 4), by: rotation)
    }
    return (0..<size.height).map { y in Array(memory[(y * pitch)..<(y * pitch + size.width)]) }
}

@Suite struct TurnTests {
    @Test func noneCopies() {
        #expect(turned(.none) == [[0x0000, 0x0100, 0x0200], [0x0001, 0x0101, 0x0201]])
    }

    @Test func quarterTurnsClockwise() {
        // The top-left pixel lands top-right; the bottom-left lands top-left.
        #expect(turned(.quarter) == [[0x0001, 0x0000], [0x0101, 0x0100], [0x0201, 0x0200]])
    }

    @Test func halfTurnsUpsideDown() {
        #expect(turned(.half) == [[0x0201, 0x0101, 0x0001], [0x0200, 0x0100, 0x0000]])
    }

    @Test func threeQuartersTurnsCounterClockwise() {
        #expect(turned(.threeQuarters) == [[0x0200, 0x0201], [0x0100, 0x0101], [0x0000, 0x0001]])
    }

    @Test func rowPaddingIsLeftAlone() {
        let size = Rotation.quarter.logicalSize(of: numbered.size)
        var memory = [UInt32](repeating: 0xFFFFFFFF, count: 5 * size.height)
        memory.withUnsafeMutableBytes { bytes in
            turn(numbered, onto: PixelSurface(base: bytes.baseAddress!, size: size, bytesPerRow: 20), by: .quarter)
        }
        for y in 0..<size.height { #expect(memory[(y * 5 + 2)..<(y * 5 + 5)].allSatisfy { $0 == 0xFFFFFFFF }) }
    }

    @Test func theRendererLaysOutAtTheTurnedSize() throws {
        // A 40x20 panel at 90 degrees is a 20x40 strip: one 10x40 slot in the middle.
        let geometry = try CarouselGeometry(screen: PixelSize(width: 20, height: 40), slotWidth: 10, slotHeight: 40, spacing: 20)
        let renderer = FrameRenderer(compositor: StripCompositor(geometry: geometry, background: .black), rotation: .quarter)
        #expect(renderer.panel == PixelSize(width: 40, height: 20))
        var frame = RasterImage(size: renderer.panel, filledWith: .black)
        var scratch = RasterImage(size: PixelSize(width: 1, height: 1), filledWith: .black)
        frame.withSurface { surface in
            renderer.draw(into: surface, position: 0, playlist: CircularIndex(count: 1), scratch: &scratch) { _ in
                RasterImage(size: PixelSize(width: 10, height: 40), filledWith: RGBColor(xrgb: 0xFF0000))
            }
        }
        // The slot's columns 5..<15 become the panel's rows 5..<15, full width.
        for x in 0..<40 {
            #expect(frame[x, 4] == 0 && frame[x, 5] == 0xFF0000 && frame[x, 14] == 0xFF0000 && frame[x, 15] == 0)
        }
    }
}
