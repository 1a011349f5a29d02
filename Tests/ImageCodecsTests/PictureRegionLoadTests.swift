import ImageCodecs
import KioskCore
import KioskRendering
import Testing

/// What a zoomed picture shows sharp: a region of the photo decoded again
/// at screen resolution, equal to the original cut and resampled.
@Suite struct PictureRegionLoadTests {
    let loader = PictureLoader(background: RGBColor(xrgb: 0x202020))

    /// Ramps across and down, and a checker of 64 px squares: every region
    /// looks different, and a region off by a few pixels moves the squares' edges.
    private func pattern(_ width: Int, _ height: Int) -> RasterImage {
        var image = RasterImage(size: PixelSize(width: width, height: height), filledWith: .black)
        for y in 0..<height {
            for x in 0..<width {
                image[x, y] = UInt32(x * 255 / width) << 16 | UInt32(y * 255 / height) << 8 | UInt32(((x / 64 + y / 64) % 2) * 200)
            }
        }
        return image
    }

    private func cut(_ image: RasterImage, _ rect: PixelRect) -> RasterImage {
        RasterImage(size: rect.size, pixels: (rect.y..<(rect.y + rect.height)).flatMap { row in
            image.pixels[(row * image.width + rect.x)..<(row * image.width + rect.x + rect.width)]
        })
    }

    /// The mean difference per channel between two pictures of one size.
    private func meanDifference(_ a: RasterImage, _ b: RasterImage) -> Double {
        var total = 0
        for (p, q) in zip(a.pixels, b.pixels) {
            for shift in [0, 8, 16] { total += abs(Int((p >> shift) & 0xFF) - Int((q >> shift) & 0xFF)) }
        }
        return Double(total) / Double(3 * a.pixels.count)
    }

    /// A lossless PNG: the region is exactly the original's pixels cut and resampled.
    @Test func aPNGRegionIsTheOriginalCutAndResampled() throws {
        let folder = try ScratchFolder()
        let original = pattern(400, 300)
        let path = try folder.write("p.png", PNGCodec.encode(original))
        let region = PictureRegion(left: 0.25, top: 0.1, right: 0.75, bottom: 0.6)
        let sharp = try loader.loadRegion(path, region: region, at: PixelSize(width: 600, height: 450))
        #expect(sharp == resample(cut(original, PixelRect(x: 100, y: 30, width: 200, height: 150)), to: PixelSize(width: 600, height: 450)))
    }

    /// A JPEG is cut losslessly, decoded at a DCT scale and resampled: the
    /// result matches the whole photo decoded, cut and resampled, to within
    /// JPEG's own noise and the two scalings', with the region's edges in
    /// place (32 px off, the squares' edges move and it differs by far
    /// more). Upright for a camera's orientation 6 too.
    @Test func aJPEGRegionMatchesTheWholePhotoCutAndResampled() throws {
        let folder = try ScratchFolder()
        let original = pattern(1600, 1200)
        let plain = try folder.write("a.jpg", JPEGCodec.encode(original, quality: 95))
        let region = PictureRegion(left: 0.306, top: 0.357, right: 0.556, bottom: 0.607)
        let size = PixelSize(width: 300, height: 225)
        let decodedWhole = try JPEGCodec.decode(try readWholeFile(plain, limit: 1 << 24), path: plain, minimumSize: nil, maximumPixels: 1 << 24)
        let reference = resample(cut(decodedWhole, region.pixels(of: decodedWhole.size)), to: size)
        let sharp = try loader.loadRegion(plain, region: region, at: size)
        #expect(sharp.size == size)
        #expect(meanDifference(sharp, reference) < 4, "\(meanDifference(sharp, reference))")
        // A different region differs: the comparison can fail.
        let elsewhere = try loader.loadRegion(plain, region: PictureRegion(left: 0.326, top: 0.357, right: 0.576, bottom: 0.607), at: size)
        #expect(meanDifference(elsewhere, reference) > 10, "\(meanDifference(elsewhere, reference))")

        // Stored turned (orientation 6): the region is of the upright photo.
        let turnedStored = resample(original, to: PixelSize(width: original.height, height: original.width), turning: .turnedCounterClockwise)
        let turned = try folder.write("t.jpg", GeneratedPictures.cameraJPEG(turnedStored, orientation: 6))
        #expect(try loader.uprightSize(of: turned) == original.size)
        let sharpTurned = try loader.loadRegion(turned, region: region, at: size)
        #expect(meanDifference(sharpTurned, reference) < 4, "\(meanDifference(sharpTurned, reference))")
    }

    @Test func aBrokenFileSaysWhy() throws {
        let folder = try ScratchFolder()
        let text = try folder.write("n.jpg", Array("no picture here".utf8))
        #expect(throws: ImageFileError(path: text, reason: .notAnImage)) {
            try loader.loadRegion(text, region: .whole, at: PixelSize(width: 10, height: 10))
        }
        let truncated = try folder.write("t.jpg", Array(try JPEGCodec.encode(pattern(320, 240), quality: 90).prefix(400)))
        #expect(throws: ImageFileError.self) { try loader.loadRegion(truncated, region: .whole, at: PixelSize(width: 10, height: 10)) }
    }
}
