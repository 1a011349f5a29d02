import KioskCore
#if canImport(PropertyBased)
import PropertyBased
#endif
import Testing

@Suite struct AspectFitTests {
    let slot = PixelSize(width: 1344, height: 1080)

    @Test func landscapeFillsTheWidth() {
        #expect(aspectFitSize(of: PixelSize(width: 4000, height: 3000), in: slot) == PixelSize(width: 1344, height: 1008))
        #expect(aspectFitSize(of: PixelSize(width: 1920, height: 1080), in: slot) == PixelSize(width: 1344, height: 756))
    }

    @Test func portraitFillsTheHeight() {
        #expect(aspectFitSize(of: PixelSize(width: 3000, height: 4000), in: slot) == PixelSize(width: 810, height: 1080))
    }

    @Test func smallPicturesAreScaledUp() {
        #expect(aspectFitSize(of: PixelSize(width: 100, height: 50), in: slot) == PixelSize(width: 1344, height: 672))
    }

    @Test func extremePanoramasKeepAtLeastOnePixel() {
        #expect(aspectFitSize(of: PixelSize(width: 65535, height: 16), in: slot) == PixelSize(width: 1344, height: 1))
        #expect(aspectFitSize(of: PixelSize(width: 16, height: 65535), in: slot) == PixelSize(width: 1, height: 1080))
    }

    @Test func centringPutsTheOddPixelOnTheFarSide() {
        let offset = centredOffset(of: PixelSize(width: 811, height: 1007), in: slot)
        #expect(offset.x == 266 && offset.y == 36)
    }

    @Test func fittedSizesFitTouchOneSideAndKeepTheAspect() async {
        let side = Gen.int(in: 1...5000)
        await propertyCheck(count: 300, input: side, side, side, side) { sw, sh, bw, bh in
            let fitted = aspectFitSize(of: PixelSize(width: sw, height: sh), in: PixelSize(width: bw, height: bh))
            #expect(fitted.width <= bw && fitted.height <= bh)
            #expect(fitted.width == bw || fitted.height == bh)
            // The aspect is kept to within the rounding of the shorter side.
            let error = abs(Double(fitted.width) / Double(fitted.height) - Double(sw) / Double(sh))
            let tolerance = Double(sw) / Double(sh) * (1 / Double(min(fitted.width, fitted.height)) + 1e-9) * 1.01
            #expect(fitted.width == 1 || fitted.height == 1 || error <= tolerance)
        }
    }
}
