import KioskCore
import KioskRendering
import Testing

/// 4x2, corners: top-left 1, top-right 2, bottom-left 3, bottom-right 4.
let corners = RasterImage(size: PixelSize(width: 4, height: 2), pixels: [1, 0, 0, 2, 3, 0, 0, 4])

@Suite struct OrientTests {
    /// The corners of the upright picture, clockwise from the top-left, for
    /// each EXIF orientation (what the EXIF 2.3 specification draws for each):
    /// the resampler turns as it writes, and at the same size moves pixels only.
    @Test(arguments: [
        (ImageOrientation.upright, [UInt32(1), 2, 4, 3]),
        (.mirrored, [2, 1, 3, 4]),
        (.upsideDown, [4, 3, 1, 2]),
        (.mirroredUpsideDown, [3, 4, 2, 1]),
        (.transposed, [1, 3, 4, 2]),
        (.turnedClockwise, [3, 1, 2, 4]),
        (.transversed, [4, 2, 1, 3]),
        (.turnedCounterClockwise, [2, 4, 3, 1]),
    ])
    func everyOrientationShowsUpright(orientation: ImageOrientation, clockwiseCorners: [UInt32]) {
        let image = resample(corners, to: orientation.uprightSize(of: corners.size), turning: orientation)
        #expect(image.size == (orientation.swapsSides ? PixelSize(width: 2, height: 4) : corners.size))
        let w = image.width, h = image.height
        #expect([image[0, 0], image[w - 1, 0], image[w - 1, h - 1], image[0, h - 1]] == clockwiseCorners)
        #expect(image.pixels.sorted() == corners.pixels.sorted(), "a permutation: nothing lost, nothing made up")
    }
}
