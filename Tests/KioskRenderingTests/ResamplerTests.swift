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
