import ImageCodecs
import KioskCore
import KioskRendering
import TestSupport
import Testing

/// GIFs through giflib: still ones show as pictures, broken ones are refused with one line.
@Suite struct GIFTests {
    let palette = [RGBColor(xrgb: 0xE02828), RGBColor(xrgb: 0x28E028), RGBColor(xrgb: 0x2828E0)]
    let grey = RGBColor(xrgb: 0x202020)

    /// Four stripes of 2 rows each across an 8x8 screen: red, green, blue, red.
    private func stripes(interlaced: Bool = false, transparent: Int? = nil) -> [UInt8] {
        let indices = (0..<64).map { UInt8(($0 / 16) % 3) }
        return GIFCodec.encode(width: 8, height: 8, palette: palette, frames: [.init(indices: indices, transparentIndex: transparent, interlaced: interlaced)])
    }

    private func decode(_ gif: [UInt8]) throws -> RasterImage {
        try GIFCodec.decodeFirstFrame(gif, path: "t.gif", background: grey, maximumPixels: 1 << 20)
    }

    @Test func aStillGIFDecodesToItsColoursRowByRow() throws {
        let gif = stripes()
        #expect(PictureCodecs.codec(sniffing: gif)?.name == GIFCodec.name)
        #expect(try GIFCodec.size(of: gif, path: "t.gif") == PixelSize(width: 8, height: 8))
        let image = try decode(gif)
        #expect([0, 2, 4, 6].map { image[3, $0] } == [0xE02828, 0x28E028, 0x2828E0, 0xE02828])
        #expect(image.pixels.allSatisfy { [0xE02828, 0x28E028, 0x2828E0].contains($0) })
    }

    /// An interlaced GIF stores its rows in four passes: the picture is the same.
    @Test func interlacedRowsLandWhereTheyBelong() throws {
        // The GIF specification's order for 8 rows (appendix E): passes from 0, 4, 2 and 1.
        #expect(GIFCodec.rowOrder(height: 8, interlaced: true) == [0, 4, 2, 6, 1, 3, 5, 7])
        #expect(GIFCodec.rowOrder(height: 3, interlaced: true) == [0, 2, 1])
        #expect(stripes(interlaced: true) != stripes())
        #expect(try decode(stripes(interlaced: true)).pixels == (decode(stripes())).pixels)
    }

    /// The transparent index shows the kiosk's background, as browsers show the page.
    @Test func transparencyShowsTheBackground() throws {
        let image = try decode(stripes(transparent: 1))
        #expect(image[3, 2] == grey.xrgb && image[3, 0] == 0xE02828)
    }

    /// The first frame of an animated GIF is its still picture (what a snapshot and the cache hold).
    @Test func anAnimatedGIFShowsItsFirstFrame() throws {
        let frames = (0..<3).map { n in GIFCodec.Frame(indices: [UInt8](repeating: UInt8(n), count: 16)) }
        let image = try decode(GIFCodec.encode(width: 4, height: 4, palette: palette, frames: frames))
        #expect(image.pixels.allSatisfy { $0 == 0xE02828 })
    }

    /// Through the picture loader, fitted to a slot like any picture.
    @Test func theLoaderFitsAGIFToTheSlot() throws {
        let loader = PictureLoader(background: grey)
        let fitted = try loader.load(bytes: stripes(), path: "t.gif", fittedTo: PixelSize(width: 32, height: 16))
        #expect(fitted.size == PixelSize(width: 16, height: 16))
    }

    /// Cut short, mangled, or claiming a huge screen: one clear error each, never a crash.
    @Test func brokenGIFsAreRefusedWithAReason() throws {
        let gif = stripes()
        let truncated = expectError(ImageFileError.self) { try decode(Array(gif.prefix(gif.count / 2))) }
        #expect(truncated.map { "\($0)" }?.hasPrefix("t.gif: ") == true, "\(String(describing: truncated))")
        let headerOnly = expectError(ImageFileError.self) { try decode(Array(gif.prefix(13))) }
        #expect(headerOnly != nil)
        // A logical screen of 65535x65535 in a 20-byte file: refused before allocating.
        var huge = gif
        huge[6] = 0xFF; huge[7] = 0xFF; huge[8] = 0xFF; huge[9] = 0xFF
        let tooLarge = expectError(ImageFileError.self) { try decode(huge) }
        #expect(tooLarge?.reason == .tooLarge(PixelSize(width: 65535, height: 65535)))
        // Every prefix and many mangled copies: errors or pictures, nothing else.
        for length in 0..<gif.count { _ = try? decode(Array(gif.prefix(length))) }
        var random: UInt64 = 7
        for _ in 0..<2000 {
            var mangled = gif
            for _ in 0..<3 {
                random = random &* 6364136223846793005 &+ 1442695040888963407
                mangled[Int(random >> 33) % mangled.count] = UInt8(truncatingIfNeeded: random >> 17)
            }
            if let image = try? decode(mangled) { #expect(image.size.pixelCount <= 1 << 20) }
        }
    }
}
