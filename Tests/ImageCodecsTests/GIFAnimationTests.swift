import ImageCodecs
import KioskCore
import KioskRendering
import TestSupport
import Testing

/// Animated GIFs frame by frame: composed as browsers compose them, at the slot's size, looping.
@Suite struct GIFAnimationTests {
    let red = RGBColor(xrgb: 0xE02828), green = RGBColor(xrgb: 0x28E028), blue = RGBColor(xrgb: 0x2828E0)
    let grey = RGBColor(xrgb: 0x202020)
    var palette: [RGBColor] { [red, green, blue] }

    private func frames(_ gif: [UInt8], fittedTo slot: PixelSize? = nil, count: Int) throws -> [RasterImage] {
        let animation = try GIFAnimation(bytes: gif, path: "a.gif", background: grey, fittedTo: slot, maximumPixels: 1 << 24)
        return try (0..<count).map { _ in try animation.decodeNext() }
    }

    private func uniform(_ index: UInt8, _ count: Int) -> [UInt8] { [UInt8](repeating: index, count: count) }

    /// An 8x8 red screen; a green 4x4 square at (2,2) that is cleared to the
    /// background after it shows; a blue 2x2 at (0,0) that is put back; a red
    /// row at the bottom, kept.
    private var disposals: [UInt8] {
        GIFCodec.encode(width: 8, height: 8, palette: palette, frames: [
            .init(indices: uniform(0, 64), disposal: 1),
            .init(indices: uniform(1, 16), rect: (2, 2, 4, 4), disposal: 2),
            .init(indices: uniform(2, 4), rect: (0, 0, 2, 2), disposal: 3),
            .init(indices: uniform(1, 8), rect: (0, 7, 8, 1), disposal: 1),
        ])
    }

    @Test func eachFrameIsComposedWithTheDisposalsBeforeIt() throws {
        let shown = try frames(disposals, count: 4)
        #expect(shown.allSatisfy { $0.size == PixelSize(width: 8, height: 8) })
        // Frame 2: the green square over the red screen.
        #expect(shown[1][3, 3] == green.xrgb && shown[1][0, 0] == red.xrgb)
        // Frame 3: the square was cleared to the background; blue in the corner.
        #expect(shown[2][3, 3] == grey.xrgb && shown[2][0, 0] == blue.xrgb && shown[2][7, 7] == red.xrgb)
        // Frame 4: the corner is red again (disposal 3), the square still background, a green bottom row.
        #expect(shown[3][0, 0] == red.xrgb && shown[3][3, 3] == grey.xrgb && shown[3][4, 7] == green.xrgb)
        #expect(shown[3][4, 6] == red.xrgb)
    }

    /// After the last image the file plays again from an empty screen.
    @Test func framesAreNumberedAcrossPlays() throws {
        let animation = try GIFAnimation(bytes: disposals, path: "a.gif", background: grey, fittedTo: nil, maximumPixels: 1 << 20)
        let firstPlay = try (0..<4).map { _ in try animation.decodeNext() }
        let secondPlay = try (0..<4).map { _ in try animation.decodeNext() }
        #expect(animation.nextFrame == 8)
        #expect(secondPlay == firstPlay)
        #expect(try GIFCodec.decodeFirstFrame(disposals, path: "a.gif", background: grey, maximumPixels: 1 << 20) == firstPlay[0])
    }

    /// Transparent pixels leave the frame before them.
    @Test func transparencyLeavesTheFrameBefore() throws {
        var checker = uniform(1, 16)
        for i in stride(from: 0, to: 16, by: 2) { checker[i] = 0 }
        let gif = GIFCodec.encode(width: 4, height: 4, palette: palette, frames: [
            .init(indices: uniform(2, 16)), .init(indices: checker, transparentIndex: 0),
        ])
        let shown = try frames(gif, count: 2)
        #expect(shown[1][0, 0] == blue.xrgb && shown[1][1, 0] == green.xrgb)
    }

    /// Larger than its slot, a GIF is composed at the slot's size: each
    /// pixel the average of the screen pixels it covers, transparency included.
    @Test func aLargeGIFIsComposedAtTheSlotsSize() throws {
        // 12x6 screen into a 4x2 slot: boxes of 3x3. Frame 1 has a pattern,
        // frame 2 paints the right half of each box green with the rest
        // transparent: over a flat blue box the average is exact.
        let pattern = (0..<72).map { UInt8(($0 % 12 + $0 / 12) % 3) }
        let halfGreen = (0..<72).map { i in UInt8(i % 12 < 6 ? 0 : (i % 3 == 2 ? 1 : 3)) }
        let gif = GIFCodec.encode(width: 12, height: 6, palette: palette + [.black], frames: [
            .init(indices: pattern), .init(indices: uniform(2, 72)), .init(indices: halfGreen, transparentIndex: 3),
        ])
        let full = try frames(gif, count: 3)
        let fitted = try frames(gif, fittedTo: PixelSize(width: 4, height: 4), count: 3)
        #expect(fitted.allSatisfy { $0.size == PixelSize(width: 4, height: 2) })
        for (small, big) in zip(fitted, full) { #expect(small == boxAverage(big, to: small.size)) }
        // The right half: a third green, two thirds blue (0x28; (6 x 0x28 + 3 x 0xE0) / 9; (6 x 0xE0 + 3 x 0x28) / 9).
        let mixed = fitted[2][3, 0]
        #expect(mixed == RGBColor(red: 0x28, green: 0x65, blue: 0xA3).xrgb, "\(String(mixed, radix: 16))")
    }

    /// The reference the canvas must match: box averages of the full-size frame.
    private func boxAverage(_ image: RasterImage, to size: PixelSize) -> RasterImage {
        let bw = image.width / size.width, bh = image.height / size.height
        var out = RasterImage(size: size, filledWith: .black)
        for y in 0..<size.height {
            for x in 0..<size.width {
                var sums = [0, 0, 0]
                for dy in 0..<bh { for dx in 0..<bw {
                    let p = image[x * bw + dx, y * bh + dy]
                    sums[0] += Int(p >> 16 & 0xFF); sums[1] += Int(p >> 8 & 0xFF); sums[2] += Int(p & 0xFF)
                } }
                let n = bw * bh
                out[x, y] = RGBColor(red: UInt8((sums[0] + n / 2) / n), green: UInt8((sums[1] + n / 2) / n), blue: UInt8((sums[2] + n / 2) / n)).xrgb
            }
        }
        return out
    }

    /// Smaller than its slot, a frame is composed exactly and scaled up like any picture.
    @Test func aSmallGIFIsScaledUpLikeAPicture() throws {
        let shown = try frames(disposals, fittedTo: PixelSize(width: 32, height: 16), count: 2)
        let exact = try frames(disposals, count: 2)
        #expect(shown[1] == resample(exact[1], to: PixelSize(width: 16, height: 16)))
    }

    /// The delays and loop count come from the file, without decoding a pixel.
    @Test func theScheduleIsTheFilesDelaysAndLoops() throws {
        let frames = (0..<3).map { GIFCodec.Frame(indices: uniform(UInt8($0), 4), delay: [5, 50, 1][$0]) }
        let once = try GIFAnimation.schedule(of: GIFCodec.encode(width: 2, height: 2, palette: palette, frames: frames), path: "a.gif")
        #expect(once.delays == [0.05, 0.5, 0.1] && once.plays == 1)
        let forever = try GIFAnimation.schedule(of: GIFCodec.encode(width: 2, height: 2, palette: palette, frames: frames, loops: 0), path: "a.gif")
        #expect(forever.plays == nil)
        let three = try GIFAnimation.schedule(of: GIFCodec.encode(width: 2, height: 2, palette: palette, frames: frames, loops: 2), path: "a.gif")
        #expect(three.plays == 3)
        let still = try GIFAnimation.schedule(of: GIFCodec.encode(width: 2, height: 2, palette: palette, frames: [frames[0]]), path: "a.gif")
        #expect(!still.isAnimated)
    }

    /// A file cut short in its third image: the first two play, the third is one clear error.
    @Test func aGIFBrokenMidwayFailsAtTheBrokenFrame() throws {
        let frames = (0..<3).map { n in GIFCodec.Frame(indices: (0..<256).map { UInt8(($0 * 7 + n) % 3) }) }
        let gif = GIFCodec.encode(width: 16, height: 16, palette: palette, frames: frames)
        let cut = Array(gif.prefix(gif.count - 40))
        let animation = try GIFAnimation(bytes: cut, path: "cut.gif", background: grey, fittedTo: nil, maximumPixels: 1 << 20)
        _ = try animation.decodeNext()
        _ = try animation.decodeNext()
        let error = expectError(ImageFileError.self) { try animation.decodeNext() }
        #expect(error.map { "\($0)" }?.hasPrefix("cut.gif: cannot decode: GIF: ") == true, "\(String(describing: error))")
        // Every prefix and mangled copy: frames or errors, never a crash.
        for length in stride(from: 0, to: gif.count, by: 3) {
            guard let animation = try? GIFAnimation(bytes: Array(gif.prefix(length)), path: "p.gif", background: grey, fittedTo: PixelSize(width: 5, height: 5), maximumPixels: 1 << 20) else { continue }
            for _ in 0..<4 { _ = try? animation.decodeNext() }
        }
    }
}
