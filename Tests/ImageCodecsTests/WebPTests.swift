import Foundation
import ImageCodecs
import KioskCore
import KioskRendering
import SystemCalls
import TestSupport
import Testing

/// WebP stills as phones, messaging apps and browsers save them, made here
/// with libwebp's own tools (`cwebp`, `webpmux`) and checked against its
/// reference decoder (`dwebp`) read back through kioskd's PNG path.
@Suite struct WebPTests {
    let loader = PictureLoader(background: RGBColor(xrgb: 0x204060))

    /// `image` as a PNG, then as a WebP made by `cwebp` with `options`; returns the WebP's path.
    func webp(_ image: RasterImage, _ options: [String], in folder: ScratchFolder, name: String = "picture") throws -> String {
        let png = try folder.write(name + "-source.png", PNGCodec.encode(image))
        let webp = folder.path + "/" + name + ".webp"
        try runTool("cwebp", options + [png, "-o", webp])
        return webp
    }

    /// What libwebp's reference decoder makes of `webp`, through kioskd's PNG path, fitted to `slot`.
    func reference(_ webp: String, in folder: ScratchFolder, fittedTo slot: PixelSize) throws -> RasterImage {
        let png = webp + ".dwebp.png"
        try runTool("dwebp", [webp, "-o", png])
        return try loader.load(png, fittedTo: slot)
    }

    @Test(arguments: [["-q", "80"], ["-q", "95", "-sharp_yuv"], ["-lossless"]])
    func aWebPAtItsOwnSizeIsExactlyWhatDwebpDecodes(options: [String]) throws {
        let folder = try ScratchFolder()
        let photo = GeneratedPictures.photo(PixelSize(width: 301, height: 199), variant: 3)   // odd sides
        let path = try webp(photo, options, in: folder)
        let size = photo.size
        let shown = try loader.loadPicture(path, fittedTo: size)
        #expect(shown.picture.size == size)
        #expect(shown.info == PictureInfo(format: "WebP", originalSize: size))
        let decodedByDwebp = try reference(path, in: folder, fittedTo: size)
        #expect(shown.picture.pixels == decodedByDwebp.pixels)
        if options == ["-lossless"] { #expect(shown.picture.pixels == photo.pixels, "lossless is the source itself") }
    }

    /// Transparency over the kiosk's background, exactly as the same RGBA picture as a PNG.
    @Test func alphaIsCompositedOverTheBackgroundAsAPNGIs() throws {
        let folder = try ScratchFolder()
        let size = PixelSize(width: 64, height: 40)
        var rgba = [UInt8]()
        for y in 0..<size.height {
            for x in 0..<size.width { rgba += [UInt8(x * 4), UInt8(y * 6), 200, UInt8(min(255, x * 8))] }   // alpha 0 at the left, opaque at the right
        }
        let png = try folder.write("alpha.png", PNGCodec.encode(samples: rgba, size: size, colourType: .truecolourAlpha))
        let webp = folder.path + "/alpha.webp"
        try runTool("cwebp", ["-lossless", "-exact", png, "-o", webp])
        let shown = try loader.load(webp, fittedTo: size)
        let asPNG = try loader.load(png, fittedTo: size)
        #expect(shown.pixels == asPNG.pixels)
        #expect(shown[0, 0] == 0x204060, "alpha 0 is the background")
        #expect(shown[63, 0] == 0xFC00C8, "alpha 255 is the picture")
    }

    /// libwebp scales a WebP straight to the slot; another downscaler
    /// (dwebp's full picture through kioskd's PNG path: block averages,
    /// then a tent filter) gives nearly the same pixels. Measured: a mean
    /// difference of 0.5 levels a channel, 9 at worst; both are area
    /// averages, and they differ at sharp edges, where the two filters weigh
    /// a boundary pixel differently. The bound, 1.5, is three times that.
    @Test func aLargeWebPIsScaledToTheSlotByLibwebp() throws {
        let folder = try ScratchFolder()
        let photo = GeneratedPictures.photo(PixelSize(width: 1200, height: 800), variant: 1)
        let path = try webp(photo, ["-q", "85"], in: folder)
        let slot = PixelSize(width: 300, height: 300)
        let shown = try loader.load(path, fittedTo: slot)
        let expected = try reference(path, in: folder, fittedTo: slot)
        #expect(shown.size == PixelSize(width: 300, height: 200) && expected.size == shown.size)
        let (mean, worst) = channelDifferences(shown, expected)
        #expect(mean < 1.5, "mean difference \(mean) levels, worst \(worst)")
    }

    /// The `EXIF` chunk turns the picture upright (as a JPEG's APP1 does),
    /// and gives the date taken; `exif_rotate = false` keeps the stored pixels.
    @Test func theEXIFChunkTurnsThePictureAndDatesIt() throws {
        let folder = try ScratchFolder()
        let plain = try webp(quadrants, ["-lossless"], in: folder)
        let exif = try folder.write("turn.exif", datedEXIF(date: "2024:07:14 09:30:00", orientation: 6))
        let turned = folder.path + "/turned.webp"
        try runTool("webpmux", ["-set", "exif", exif, plain, "-o", turned])
        let shown = try loader.loadPicture(turned, fittedTo: PixelSize(width: 128, height: 128))
        #expect(shown.picture.size == PixelSize(width: 64, height: 128), "orientation 6 stands a landscape picture up")
        #expect(shown.picture[4, 4] == blue && shown.picture[59, 4] == red, "as a phone's gallery shows it")
        let jpeg = try loader.loadPicture(try folder.write("same.jpg", datedJPEG(quadrants, date: "2024:07:14 09:30:00", orientation: 6)),
                                          fittedTo: PixelSize(width: 128, height: 128))
        #expect(shown.info.dateTaken != nil && shown.info.dateTaken == jpeg.info.dateTaken)
        // `order = "taken"` reads it without decoding; a WebP without EXIF has no date.
        #expect(PictureCodecs.dateTaken(ofFile: turned) == jpeg.info.dateTaken)
        #expect(PictureCodecs.dateTaken(ofFile: plain) == nil)
        #expect(try loader.uprightSize(of: turned) == PixelSize(width: 32, height: 64))
        let stored = try PictureLoader(background: .black, exifRotate: false).load(turned, fittedTo: PixelSize(width: 128, height: 128))
        #expect(stored.size == PixelSize(width: 128, height: 64) && stored[4, 4] == red)
    }

    /// Portrait pairs read sizes from a file's first 128 KiB; a WebP's
    /// `EXIF` chunk comes after its picture, so for a larger WebP the whole
    /// file is read and the turn still counts.
    @Test func aLargeTurnedWebPsUprightSizeCountsItsEXIF() throws {
        let folder = try ScratchFolder()
        let plain = try webp(GeneratedPictures.photo(PixelSize(width: 1000, height: 700), variant: 6), ["-q", "100"], in: folder)
        let exif = try folder.write("turn.exif", datedEXIF(date: "2024:07:14 09:30:00", orientation: 6))
        let turned = folder.path + "/turned.webp"
        try runTool("webpmux", ["-set", "exif", exif, plain, "-o", turned])
        #expect(try readWholeFile(turned, limit: 1 << 24).count > 128 << 10, "the EXIF chunk lies past the first 128 KiB")
        #expect(try loader.uprightSize(of: turned) == PixelSize(width: 700, height: 1000))
        #expect(try loader.uprightSize(of: plain) == PixelSize(width: 1000, height: 700))
    }

    /// A zoom's region: libwebp cuts it out, kioskd resamples it; the same
    /// region as the PNG path cuts it from the same pixels.
    @Test(arguments: [PictureRegion(left: 0.25, top: 0.25, right: 0.75, bottom: 0.75), PictureRegion(left: 0.1, top: 0.3, right: 0.6, bottom: 0.9)])
    func aZoomedRegionIsTheSameAsThePNGsRegion(region: PictureRegion) throws {
        let folder = try ScratchFolder()
        let photo = GeneratedPictures.photo(PixelSize(width: 601, height: 401), variant: 2)
        let path = try webp(photo, ["-lossless"], in: folder)
        let png = try folder.write("same.png", PNGCodec.encode(photo))
        let size = PixelSize(width: 200, height: 150)
        let zoomed = try loader.loadRegion(path, region: region, at: size)
        let pngRegion = try loader.loadRegion(png, region: region, at: size)
        #expect(zoomed.pixels == pngRegion.pixels)
    }

    /// By content, not by name: a WebP named `.jpg` is shown; `.webp` is listed.
    @Test func aWebPIsKnownByItsContent() throws {
        let folder = try ScratchFolder()
        let path = try webp(quadrants, ["-lossless"], in: folder)
        let renamed = try folder.write("IMG_0042.jpg", try readWholeFile(path, limit: 1 << 20))
        #expect(try loader.load(renamed, fittedTo: PixelSize(width: 64, height: 32)).pixels == quadrants.pixels)
        #expect(PictureCodecs.fileExtensions.contains("webp"))
        #expect(PictureCodecs.names.contains("WebP"))
    }

    /// Every prefix of a WebP, and thousands of copies with bytes changed,
    /// are shown or refused with a line naming the file (the decoder's
    /// memory is the slot's picture and, for a lossless file, its own
    /// pixels: at most ``DecodeOptions/maximumWebPPixels``); a header
    /// claiming 16384x16384 pixels is refused before anything is allocated.
    @Test func cutAndHostileWebPsAreRefusedByName() throws {
        let folder = try ScratchFolder()
        let whole = try readWholeFile(try webp(GeneratedPictures.photo(PixelSize(width: 96, height: 64), variant: 4), ["-q", "70"], in: folder), limit: 1 << 20)
        let slot = PixelSize(width: 96, height: 64)
        var refused = 0
        for length in 1..<whole.count {
            do {
                _ = try loader.load(bytes: Array(whole.prefix(length)), path: "cut.webp", fittedTo: slot)
            } catch {
                #expect(error.description.hasPrefix("cut.webp: "), "\(error)")
                refused += 1
            }
        }
        #expect(refused >= whole.count - 2, "a cut WebP is refused, not shown half grey")
        let half = expectError(ImageFileError.self) {
            try loader.load(bytes: Array(whole.prefix(whole.count / 2)), path: "half.webp", fittedTo: slot)
        }
        #expect(half?.description == "half.webp: cannot decode: the WebP ends too early (truncated)")

        // 3,000 copies with a few bytes changed (a fixed sequence: the same copies every run), lossy and lossless.
        let lossless = try readWholeFile(try webp(GeneratedPictures.photo(slot, variant: 5), ["-lossless"], in: folder, name: "lossless"), limit: 1 << 20)
        for mutated in damagedCopies(of: whole, count: 1500) + damagedCopies(of: lossless, count: 1500) {
            do { _ = try loader.load(bytes: mutated, path: "mutated.webp", fittedTo: slot) } catch {
                #expect(error.description.hasPrefix("mutated.webp: "), "\(error)")
            }
        }

        // RIFF, WEBP, a VP8L chunk whose 14-bit sides say 16384x16384.
        let sides: UInt32 = 16383 | 16383 << 14
        let vp8l: [UInt8] = [0x2F, UInt8(sides & 0xFF), UInt8(sides >> 8 & 0xFF), UInt8(sides >> 16 & 0xFF), UInt8(sides >> 24)] + [UInt8](repeating: 0, count: 11)
        let bomb = Array("RIFF".utf8) + [UInt8(4 + 8 + vp8l.count), 0, 0, 0] + Array("WEBPVP8L".utf8) + [UInt8(vp8l.count), 0, 0, 0] + vp8l
        let huge = expectError(ImageFileError.self) { try loader.load(bytes: bomb, path: "bomb.webp", fittedTo: slot) }
        #expect(huge?.reason == .tooLarge(PixelSize(width: 16384, height: 16384)), "\(String(describing: huge))")
    }
}

/// Animated WebPs (as messaging apps send stickers and short clips) play
/// as animated GIFs do: the file's durations and loop count, each frame as
/// libwebp composes it, fitted to the slot, frames counted across plays.
/// Made here with `img2webp`.
@Suite struct AnimatedWebPTests {
    let loader = PictureLoader(background: RGBColor(xrgb: 0x000000))
    let size = PixelSize(width: 40, height: 30)

    /// Red; red with a green 10x10 square at (20, 10) (img2webp stores only
    /// the square, so libwebp's blending shows); blue. `loop` plays.
    func animation(loop: Int, in folder: ScratchFolder) throws -> String {
        var square = RasterImage(size: size, filledWith: RGBColor(xrgb: red))
        square.fill(x: 20, y: 10, width: 10, height: 10, with: RGBColor(xrgb: green))
        let frames = [solid(40, 30, red), square, solid(40, 30, blue)]
        var arguments = ["-loop", "\(loop)"]
        for (i, (frame, duration)) in zip(frames, [100, 200, 300]).enumerated() {
            arguments += ["-lossless", "-d", "\(duration)", try folder.write("frame-\(i).png", PNGCodec.encode(frame))]
        }
        let path = folder.path + "/animated.webp"
        try runTool("img2webp", arguments + ["-o", path])
        return path
    }

    @Test func itsFramesPlayWithTheFilesDurationsAndLoopCount() throws {
        let folder = try ScratchFolder()
        let path = try animation(loop: 2, in: folder)
        let decoded = try loader.loadPicture(path, fittedTo: size)
        #expect(decoded.picture.pixels == solid(40, 30, red).pixels, "the first frame is the still")
        #expect(decoded.animation == FrameSchedule(delays: [0.1, 0.2, 0.3], plays: 2), "WebP's loop count 2 plays twice")
        #expect(decoded.info.format == "WebP" && decoded.info.originalSize == size)

        let played = try loader.openAnimation(path, fittedTo: PixelSize(width: 80, height: 80))
        let frames = try (0..<4).map { _ in try played.decodeNext() }
        #expect(frames.allSatisfy { $0.size == PixelSize(width: 80, height: 60) })
        #expect(frames[0][10, 10] == red && frames[1][10, 10] == red && frames[1][50, 30] == green && frames[2][50, 30] == blue)
        #expect(frames[3].pixels == frames[0].pixels, "after the last frame, the first again")
        #expect(played.nextFrame == 4)

        let another = try ScratchFolder()
        let forever = try loader.loadPicture(try animation(loop: 0, in: another), fittedTo: size)
        #expect(forever.animation?.plays == nil, "loop count 0 plays for ever")
    }

    /// Every prefix of an animated WebP, and 1,000 copies with bytes
    /// changed, played three frames each: shown or refused naming the file.
    @Test func cutAndMutatedAnimationsAreRefusedByName() throws {
        let folder = try ScratchFolder()
        let whole = try readWholeFile(try animation(loop: 0, in: folder), limit: 1 << 20)
        func play(_ bytes: [UInt8]) {
            do {
                _ = try loader.load(bytes: bytes, path: "bad.webp", fittedTo: size)
                let played = try WebPAnimation(bytes: bytes, path: "bad.webp", background: .black, fittedTo: size, maximumPixels: 1 << 24)
                for _ in 0..<3 { _ = try played.decodeNext() }
            } catch {
                #expect(error.description.hasPrefix("bad.webp: "), "\(error)")
            }
        }
        for length in 1..<whole.count { play(Array(whole.prefix(length))) }
        damagedCopies(of: whole, count: 1000).forEach(play)
    }

    /// A canvas over the GIFs' bound (16 Mpx) is refused from the header, before libwebp allocates its canvases.
    @Test func aCanvasPastTheBoundIsRefused() throws {
        let folder = try ScratchFolder()
        let first = try folder.write("first.png", PNGCodec.encode(solid(4100, 4100, red)))
        let second = try folder.write("second.png", PNGCodec.encode(solid(4100, 4100, blue)))
        let path = folder.path + "/big.webp"
        try runTool("img2webp", ["-lossless", first, "-lossless", second, "-o", path])
        let error = expectError(ImageFileError.self) { try loader.loadPicture(path, fittedTo: size) }
        #expect(error?.reason == .tooLarge(PixelSize(width: 4100, height: 4100)))
    }
}
