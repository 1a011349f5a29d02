import ImageCodecs
import KioskCore
import KioskRendering
import TestSupport
import Testing

/// Every kind of PNG a kiosk folder sees, each made here with libspng's
/// encoder in its own colour type, and the decode compared pixel by pixel.
@Suite struct PNGVariantTests {
    let grey = RGBColor(xrgb: 0x406080)   // the kiosk background the alpha composites onto

    func decode(_ png: [UInt8]) throws -> RasterImage {
        try PNGCodec.decode(png, path: "v.png", background: grey, maximumPixels: 1 << 24)
    }

    @Test func grayscale8And16Bit() throws {
        let eight = try PNGCodec.encode(samples: [0, 100, 255, 17], size: PixelSize(width: 2, height: 2), colourType: .grayscale)
        #expect(try decode(eight).pixels == [0x000000, 0x646464, 0xFFFFFF, 0x111111])
        // 16-bit samples (host byte order for libspng's encoder): 0x8080 is 0x80 on an 8-bit screen.
        let samples: [UInt8] = [UInt16(0x8080), 0xFFFF, 0x0101].flatMap { value in withUnsafeBytes(of: value) { Array($0) } }
        let sixteen = try PNGCodec.encode(samples: samples, size: PixelSize(width: 3, height: 1), colourType: .grayscale, bitDepth: 16)
        #expect(try decode(sixteen).pixels == [0x808080, 0xFFFFFF, 0x010101])
    }

    @Test func oneBitGrayscaleUnpacks() throws {
        // 0b1010_0000: white, black, white, black.
        let png = try PNGCodec.encode(samples: [0xA0], size: PixelSize(width: 4, height: 1), colourType: .grayscale, bitDepth: 1)
        #expect(try decode(png).pixels == [0xFFFFFF, 0x000000, 0xFFFFFF, 0x000000])
    }

    @Test func grayscaleWithAlphaCompositesOntoTheBackground() throws {
        let png = try PNGCodec.encode(
            samples: [255, 255, 255, 0, 0, 128], size: PixelSize(width: 3, height: 1), colourType: .grayscaleAlpha)
        // Opaque white; fully transparent: exactly the background; half black over 0x40, 0x60, 0x80.
        let half = { (c: UInt32) in (c * 127 + 127) / 255 }
        #expect(try decode(png).pixels == [0xFFFFFF, 0x406080, half(0x40) << 16 | half(0x60) << 8 | half(0x80)])
    }

    @Test func truecolourWithAlpha() throws {
        let png = try PNGCodec.encode(
            samples: [255, 0, 0, 255, 0, 255, 0, 0], size: PixelSize(width: 2, height: 1), colourType: .truecolourAlpha)
        #expect(try decode(png).pixels == [0xFF0000, 0x406080])
    }

    @Test func paletteWithTransparencyAt4Bits() throws {
        let palette: [(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8)] = [
            (255, 0, 0, 255), (0, 0, 0, 0), (0, 0, 255, 255),
        ]
        // Indices 0, 1, 2, 0 at 4 bits each: 0x01, 0x20.
        let png = try PNGCodec.encode(
            samples: [0x01, 0x20], size: PixelSize(width: 4, height: 1), colourType: .indexed, bitDepth: 4, palette: palette)
        #expect(try decode(png).pixels == [0xFF0000, 0x406080, 0x0000FF, 0xFF0000])
    }

    /// A broken palette index is libspng's call: it shows black (opaque),
    /// rather than failing the whole picture. Nothing crashes either way.
    @Test func anIndexOutsideThePaletteShowsBlack() throws {
        let png = try PNGCodec.encode(
            samples: [0, 7], size: PixelSize(width: 2, height: 1), colourType: .indexed, palette: [(1, 2, 3, 255)])
        #expect(try decode(png).pixels == [0x010203, 0x000000])
    }

    @Test func interlacedDecodesLikeProgressiveRowsWould() throws {
        var samples: [UInt8] = []
        for y in 0..<9 { for x in 0..<11 { samples += [UInt8(x * 20), UInt8(y * 25), 77] } }
        let size = PixelSize(width: 11, height: 9)
        let plain = try PNGCodec.encode(samples: samples, size: size, colourType: .truecolour)
        let adam7 = try PNGCodec.encode(samples: samples, size: size, colourType: .truecolour, interlaced: true)
        #expect(adam7 != plain)
        #expect(try decode(adam7) == decode(plain))
        #expect(try decode(adam7)[10, 8] == 200 << 16 | 200 << 8 | 77)
    }

    /// Interlaced PNGs cannot be reduced row by row, so they have their own,
    /// smaller bound, checked before anything is allocated.
    @Test func aLargeInterlacedPNGIsRefused() throws {
        let size = PixelSize(width: 3000, height: 3000)   // 9 Mpx: over the 8 Mpx bound
        let png = try PNGCodec.encode(
            samples: [UInt8](repeating: 9, count: size.pixelCount), size: size, colourType: .grayscale, interlaced: true)
        let error = expectError(ImageFileError.self) { try decode(png) }
        #expect(error?.reason == .tooLarge(size))
    }

    /// Reducing averages k x k blocks: one-pixel black and white stripes
    /// become an even grey, not stripes picked at random.
    @Test func rowByRowReductionAveragesBlocks() throws {
        var samples = [UInt8](repeating: 0, count: 400 * 300)
        for y in 0..<300 { for x in stride(from: 0, to: 400, by: 2) { samples[y * 400 + x] = 255 } }
        let png = try PNGCodec.encode(samples: samples, size: PixelSize(width: 400, height: 300), colourType: .grayscale)
        let reduced = try PNGCodec.decode(
            png, path: "s.png", background: grey, minimumSize: PixelSize(width: 100, height: 75), maximumPixels: 1 << 20)
        #expect(reduced.size == PixelSize(width: 100, height: 75))
        #expect(Set(reduced.pixels) == [0x808080])
        // The remainder goes to the last block: 403 columns in blocks of 4, the last one 7 wide.
        let odd = try PNGCodec.encode(
            samples: [UInt8](repeating: 200, count: 403 * 300), size: PixelSize(width: 403, height: 300), colourType: .grayscale)
        let oddReduced = try PNGCodec.decode(
            odd, path: "o.png", background: grey, minimumSize: PixelSize(width: 100, height: 75), maximumPixels: 1 << 20)
        #expect(oddReduced.size == PixelSize(width: 100, height: 75))
        #expect(Set(oddReduced.pixels) == [0xC8C8C8])
    }

    @Test func aTruncatedPNGIsAClearError() throws {
        let png = try PNGCodec.encode(GeneratedPictures.photo(PixelSize(width: 200, height: 150)))
        let error = expectError(ImageFileError.self) {
            try PNGCodec.decode(Array(png.prefix(png.count / 2)), path: "cut.png", background: grey,
                                minimumSize: PixelSize(width: 50, height: 50), maximumPixels: 1 << 20)
        }
        #expect(error?.description.hasPrefix("cut.png: cannot decode: ") == true)
    }

    /// A decompression bomb: 8000x8000 (64 million pixels, 256 MB as RGBA)
    /// in a file of a few dozen kilobytes. It is within the 64 Mpx bound, so
    /// it is shown, but reduced while decoding: the only picture-sized buffer
    /// is the 1142x1142 reduction (5.2 MB), never the 256 MB the header asks for.
    @Test func aDecompressionBombCostsOnlyItsReduction() throws {
        let size = PixelSize(width: 8000, height: 8000)
        let bomb = try PNGCodec.encode(samples: [UInt8](repeating: 0, count: size.pixelCount), size: size, colourType: .grayscale)
        #expect(bomb.count < 100_000)
        let slot = PixelSize(width: 1344, height: 1080)
        let reduced = try PNGCodec.decode(
            bomb, path: "bomb.png", background: grey, minimumSize: aspectFitSize(of: size, in: slot), maximumPixels: 64 << 20)
        #expect(reduced.size == PixelSize(width: 1142, height: 1142))
        #expect(Set(reduced.pixels) == [0x000000])
    }
}
