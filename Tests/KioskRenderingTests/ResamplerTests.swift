import KioskCore
import KioskRendering
import Testing

@Suite struct ResamplerTests {
    @Test func aFlatColourStaysExactlyThatColour() {
        let image = RasterImage(size: PixelSize(width: 97, height: 61), filledWith: RGBColor(red: 224, green: 40, blue: 40))
        for size in [PixelSize(width: 13, height: 7), PixelSize(width: 300, height: 211), PixelSize(width: 97, height: 5)] {
            #expect(Set(resample(image, to: size).pixels) == [0xE02828], "at \(size)")
        }
    }

    /// Nearest-neighbour would pick black or white pixels; an area filter
    /// averages the checkerboard to mid-grey everywhere.
    /// A hostile picture's extreme shape (a mutated WebP's 40x9502 canvas
    /// into a 40x30 slot is 1x30: 9502 rows to 30) once gave a negative
    /// 8-bit weight and trapped; such reductions average too, and a flat
    /// colour stays exact.
    @Test func extremeReductionsAverageAndKeepAFlatColour() {
        for (from, to) in [(PixelSize(width: 40, height: 9502), PixelSize(width: 1, height: 30)), (PixelSize(width: 65000, height: 3), PixelSize(width: 20, height: 1))] {
            let flat = resample(RasterImage(size: from, filledWith: RGBColor(xrgb: 0x3C7DA0)), to: to)
            #expect(flat.size == to && flat.pixels.allSatisfy { $0 == 0x3C7DA0 })
            // Half black, half white (by rows, then by columns): the ends keep their colours.
            var halves = RasterImage(size: from, filledWith: .black)
            if from.height > from.width { halves.fill(x: 0, y: from.height / 2, width: from.width, height: from.height - from.height / 2, with: RGBColor(xrgb: 0xFFFFFF)) }
            else { halves.fill(x: from.width / 2, y: 0, width: from.width - from.width / 2, height: from.height, with: RGBColor(xrgb: 0xFFFFFF)) }
            let mixed = resample(halves, to: to)
            #expect(mixed.pixels.first == 0 && mixed.pixels.last == 0xFFFFFF)
        }
    }

    @Test func downscalingAveragesInsteadOfPickingPixels() {
        var checker = RasterImage(size: PixelSize(width: 64, height: 64), filledWith: .black)
        for y in 0..<64 { for x in 0..<64 where (x + y) % 2 == 0 { checker[x, y] = 0xFFFFFF } }
        let small = resample(checker, to: PixelSize(width: 16, height: 16))
        for pixel in small.pixels {
            let c = RGBColor(xrgb: pixel)
            #expect(abs(Int(c.red) - 128) <= 8 && c.red == c.green && c.green == c.blue, "got \(c)")
        }
    }

    @Test func upscalingInterpolatesBetweenPixels() {
        var two = RasterImage(size: PixelSize(width: 2, height: 1), filledWith: .black)
        two[1, 0] = 0xFFFFFF
        let wide = resample(two, to: PixelSize(width: 8, height: 1))
        let reds = wide.pixels.map { Int(RGBColor(xrgb: $0).red) }
        #expect(reds.first == 0 && reds.last == 255)
        #expect(reds == reds.sorted(), "a ramp, not a step: \(reds)")
        #expect(Set(reds).count >= 4)
    }

    @Test func theSameSizeIsUntouched() {
        var image = RasterImage(size: PixelSize(width: 3, height: 2), filledWith: .black)
        image[2, 1] = 0x123456
        #expect(resample(image, to: image.size) == image)
    }
}

/// The resampler against a plain floating-point tent filter written out here:
/// every output pixel within 2 levels, on a noisy picture reduced and enlarged
/// by awkward factors (the row ring must feed each output row the right rows).
@Suite struct ResamplerReferenceTests {
    @Test(arguments: [(150, 100, 134, 89), (150, 100, 47, 31), (40, 30, 97, 71), (150, 100, 150, 37)])
    func matchesAFloatingPointTentFilter(_ sw: Int, _ sh: Int, _ tw: Int, _ th: Int) {
        let image = noisy(PixelSize(width: sw, height: sh))
        let worst = largestDifference(resample(image, to: PixelSize(width: tw, height: th)), fromTentFilterOf: image)
        #expect(worst <= 2, "largest difference \(worst) levels")
    }

    /// A part of a picture resampled where it lies is the part cut out
    /// and resampled, pixel for pixel (a pinch's frames read it in place).
    @Test func aPartReadInPlaceIsThePartCutOut() {
        let image = noisy(PixelSize(width: 150, height: 100))
        for (rect, size) in [(PixelRect(x: 37, y: 21, width: 61, height: 40), PixelSize(width: 134, height: 88)),
                             (PixelRect(x: 0, y: 99, width: 150, height: 1), PixelSize(width: 75, height: 3)),
                             (PixelRect(x: 0, y: 0, width: 150, height: 100), PixelSize(width: 97, height: 71))] {
            #expect(resample(image, cropping: rect, to: size) == resample(image.cropped(to: rect), to: size), "\(rect) to \(size)")
        }
    }

    /// A zoom's frames draw over the last frame's pixels: the same picture
    /// as drawn afresh, and pixels still held elsewhere are never changed.
    @Test func pixelsReusedGiveTheSamePictureAndNothingSharedChanges() {
        let image = noisy(PixelSize(width: 150, height: 100))
        let size = PixelSize(width: 140, height: 100)
        let here = PixelRect(x: 10, y: 5, width: 70, height: 50), there = PixelRect(x: 60, y: 40, width: 70, height: 50)
        let earlier = resample(image, cropping: there, to: size)
        let held = earlier   // a frame still held by someone
        #expect(resample(image, cropping: here, to: size, reusing: earlier.pixels) == resample(image, cropping: here, to: size))
        #expect(held == resample(image, cropping: there, to: size))
        // Pixels of another size are not used.
        #expect(resample(image, cropping: here, to: size, reusing: [UInt32](repeating: 7, count: 3)) == resample(image, cropping: here, to: size))
    }

    /// A camera's stored picture, turned upright while it is resampled: the
    /// upright picture resampled, within the same 2 levels, for every EXIF
    /// orientation (a pixel from the wrong row or column would be far off).
    @Test(arguments: ImageOrientation.allCases)
    func turnsUprightAsItResamples(_ orientation: ImageOrientation) {
        let stored = noisy(PixelSize(width: 150, height: 100))
        let upright = uprightByHand(stored, orientation)
        for size in [PixelSize(width: 61, height: 89), PixelSize(width: 97, height: 71), upright.size] {
            let turned = resample(stored, to: size, turning: orientation)
            #expect(turned.size == size)
            let worst = largestDifference(turned, fromTentFilterOf: upright)
            #expect(worst <= 2, "\(orientation) at \(size): largest difference \(worst) levels")
        }
    }

    func noisy(_ size: PixelSize) -> RasterImage {
        var image = RasterImage(size: size, filledWith: .black)
        var seed: UInt32 = 12345
        for i in image.pixels.indices {
            seed = seed &* 1_103_515_245 &+ 12345
            image.pixels[i] = seed >> 8 & 0xFFFFFF
        }
        return image
    }

    /// The picture turned upright pixel by pixel, as EXIF says.
    func uprightByHand(_ image: RasterImage, _ orientation: ImageOrientation) -> RasterImage {
        var upright = RasterImage(size: orientation.uprightSize(of: image.size), filledWith: .black)
        for y in 0..<upright.height {
            for x in 0..<upright.width {
                let s = orientation.storedPixel(forUpright: x, y, stored: image.size)
                upright[x, y] = image[s.x, s.y]
            }
        }
        return upright
    }

    /// The largest difference in any channel between `result` and a
    /// floating-point tent filter of `image` to its size, in levels.
    func largestDifference(_ result: RasterImage, fromTentFilterOf image: RasterImage) -> Int {
        let across = tentWeights(from: image.width, to: result.width), down = tentWeights(from: image.height, to: result.height)
        var worst = 0
        for y in 0..<result.height {
            for x in 0..<result.width {
                for shift in [16, 8, 0] {
                    var value = 0.0
                    for (sy, wy) in down[y] {
                        for (sx, wx) in across[x] { value += wy * wx * Double(image[sx, sy] >> UInt32(shift) & 0xFF) }
                    }
                    worst = max(worst, abs(Int(result[x, y] >> UInt32(shift) & 0xFF) - Int(value.rounded())))
                }
                if result[x, y] >> 24 != 0 { worst = 255 }   // the X byte stays 0
            }
        }
        return worst
    }

    func tentWeights(from source: Int, to target: Int) -> [[(Int, Double)]] {
        let scale = Double(source) / Double(target), radius = max(1, scale)
        return (0..<target).map { i in
            let centre = (Double(i) + 0.5) * scale - 0.5
            let taps = (0..<source).map { ($0, max(0, 1 - abs(Double($0) - centre) / radius)) }.filter { $0.1 > 0 }
            let total = taps.map(\.1).reduce(0, +)
            return taps.map { ($0.0, $0.1 / total) }
        }
    }
}
