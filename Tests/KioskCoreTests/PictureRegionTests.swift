import KioskCore
#if canImport(PropertyBased)
import PropertyBased
#endif
import Testing

/// The part of a photo a zoomed picture shows, in whole pixels, upright and as stored.
@Suite struct PictureRegionTests {
    /// The middle half of a 6000x4000 photo is 3000x2000 from (1500, 1000);
    /// a region's edges round outward, and a region never leaves the picture.
    @Test func regionsRoundOutwardWithinThePicture() {
        let photo = PixelSize(width: 6000, height: 4000)
        #expect(PictureRegion(left: 0.25, top: 0.25, right: 0.75, bottom: 0.75).pixels(of: photo) == PixelRect(x: 1500, y: 1000, width: 3000, height: 2000))
        #expect(PictureRegion(left: 0.10005, top: 0, right: 0.20005, bottom: 1).pixels(of: photo) == PixelRect(x: 600, y: 0, width: 601, height: 4000))
        #expect(PictureRegion.whole.pixels(of: photo) == PixelRect(x: 0, y: 0, width: 6000, height: 4000))
        #expect(PictureRegion(left: -0.5, top: 1, right: 2, bottom: 1).pixels(of: photo) == PixelRect(x: 0, y: 3999, width: 6000, height: 1))
    }

    private static let cases = Gen.int(in: 1...9).array(of: 6)

    /// For every EXIF orientation, the stored rectangle of an upright one
    /// holds exactly the stored pixels that show it (checked pixel by pixel).
    @Test func storedRectanglesHoldExactlyTheUprightOnes() async {
        await propertyCheck(count: 300, input: Self.cases) { n in
            let stored = PixelSize(width: n[0], height: n[1])
            for orientation in ImageOrientation.allCases {
                let upright = orientation.uprightSize(of: stored)
                let x = n[2] % upright.width, y = n[3] % upright.height
                let rect = PixelRect(x: x, y: y, width: 1 + n[4] % (upright.width - x), height: 1 + n[5] % (upright.height - y))
                let expected = Set((rect.x..<(rect.x + rect.width)).flatMap { ux in
                    (rect.y..<(rect.y + rect.height)).map { uy in
                        let p = orientation.storedPixel(forUpright: ux, uy, stored: stored)
                        return p.y * stored.width + p.x
                    }
                })
                let got = orientation.storedRect(forUpright: rect, stored: stored)
                let covered = Set((got.x..<(got.x + got.width)).flatMap { sx in (got.y..<(got.y + got.height)).map { $0 * stored.width + sx } })
                #expect(covered == expected, "\(orientation) \(rect) in \(upright)")
            }
        }
    }
}
