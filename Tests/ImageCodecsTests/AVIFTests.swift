import Foundation
import ImageCodecs
import KioskCore
import KioskRendering
import SystemCalls
import TestSupport
import Testing

/// AVIF photos made here with `avifenc` and checked against libavif's own
/// `avifdec` (8-bit PNG, nearest chroma, as kioskd takes it) read back
/// through kioskd's PNG path.
@Suite struct AVIFTests {
    let loader = PictureLoader(background: RGBColor(xrgb: 0x204060))

    /// `source` (a PNG) encoded by avifenc with `arguments`; returns the AVIF's path.
    func avif(_ source: [UInt8], _ arguments: [String], in folder: ScratchFolder, name: String = "photo") throws -> String {
        let input = try folder.write(name + "-source.png", source)
        let path = folder.path + "/" + name + ".avif"
        try runTool("avifenc", ["-s", "10", "-j", "1"] + arguments + [input, path])
        return path
    }

    /// What libavif's own decoder makes of `path`, as an 8-bit PNG with nearest chroma, through kioskd's PNG path.
    func reference(_ path: String, fittedTo slot: PixelSize) throws -> RasterImage {
        let png = path + ".avifdec.png"
        try runTool("avifdec", ["-d", "8", "-u", "nearest", path, png])
        return try loader.load(png, fittedTo: slot)
    }

    /// Each depth and chroma layout, at an odd size: the same picture as
    /// avifdec's. Measured here: 8-bit within 1 level (libavif's 8-bit
    /// matrix rounds in its own way), 10 and 12 bits within 2 (avifdec
    /// rounds to 8 bits once more after its conversion), within 3 with
    /// Debian 13's libavif 1.2 (12-bit 4:4:4).
    @Test(arguments: [
        (8, "420"), (8, "422"), (8, "444"), (8, "400"), (10, "420"), (12, "444"), (10, "400"),
    ])
    func everyDepthAndLayoutIsShownAsAvifdecDecodesIt(depth: Int, layout: String) throws {
        let folder = try ScratchFolder()
        let size = PixelSize(width: 301, height: 199)
        let path = try avif(PNGCodec.encode(GeneratedPictures.photo(size, variant: 5)), ["-d", "\(depth)", "-y", layout, "--min", "8", "--max", "8"], in: folder)
        let shown = try loader.loadPicture(path, fittedTo: size)
        #expect(shown.info.format == "AVIF" && shown.info.originalSize == size && shown.picture.size == size)
        let (mean, worst) = channelDifferences(shown.picture, try reference(path, fittedTo: size))
        #expect(worst <= (depth == 8 ? 1 : 3), "mean \(mean), worst \(worst) levels")
        if layout == "400" {
            #expect(shown.picture.pixels.allSatisfy { $0 >> 16 & 0xFF == $0 & 0xFF && $0 >> 8 & 0xFF == $0 & 0xFF }, "monochrome is grey")
        }
    }

    /// Transparency over the kiosk's background; alpha 0 is the background exactly.
    @Test func alphaIsCompositedOverTheBackground() throws {
        let folder = try ScratchFolder()
        let size = PixelSize(width: 64, height: 40)
        let rgba = transparencyRamp(size)
        let path = try avif(PNGCodec.encode(samples: rgba, size: size, colourType: .truecolourAlpha), ["-y", "444", "--min", "0", "--max", "0", "--minalpha", "0", "--maxalpha", "0"], in: folder)
        let shown = try loader.load(path, fittedTo: size)
        #expect(shown[0, 20] == 0x204060, "alpha 0 is the background")
        let (mean, worst) = channelDifferences(shown, try reference(path, fittedTo: size))
        #expect(worst <= 1, "mean \(mean), worst \(worst) levels")
    }

    /// A grid (cells of one AV1 image each, composed by libavif) shows whole.
    @Test func aGridIsShownWhole() throws {
        let folder = try ScratchFolder()
        let size = PixelSize(width: 384, height: 256)
        let path = try avif(PNGCodec.encode(GeneratedPictures.photo(size, variant: 7)), ["-g", "3x2", "-y", "420", "--min", "8", "--max", "8"], in: folder)
        let file = try readWholeFile(path, limit: 1 << 20)
        #expect(file.indices.contains { file[$0...].starts(with: Array("grid".utf8)) }, "a grid item")
        let shown = try loader.loadPicture(path, fittedTo: size)
        #expect(shown.info.originalSize == size)
        let (mean, worst) = channelDifferences(shown.picture, try reference(path, fittedTo: size))
        #expect(worst <= 1, "mean \(mean), worst \(worst) levels")
    }

    /// The container turns the picture (`irot` 3: three quarter turns
    /// anticlockwise, one clockwise) and its EXIF says 6 again: upright
    /// once, as the stored pixels turned clockwise; the EXIF dates it.
    @Test func theContainersTurnIsAppliedOnceAndTheEXIFDatesIt() throws {
        let folder = try ScratchFolder()
        let exif = try folder.write("exif.bin", datedEXIF(date: "2025:05:01 18:45:00", orientation: 6))
        let path = try avif(PNGCodec.encode(quadrants), ["-y", "444", "--min", "0", "--max", "0", "--irot", "3", "--exif", exif], in: folder)
        let shown = try loader.loadPicture(path, fittedTo: PixelSize(width: 128, height: 128))
        let upright = resample(quadrants, to: PixelSize(width: 64, height: 128), turning: .turnedClockwise)
        #expect(shown.picture.size == upright.size, "\(shown.picture.size): turned once")
        #expect(channelDifferences(shown.picture, upright).worst <= 2)
        #expect(try loader.uprightSize(of: path) == PixelSize(width: 32, height: 64))
        // Reduced to a smaller slot (the planes scaled first, then turned): still upright.
        let small = try loader.load(path, fittedTo: PixelSize(width: 16, height: 32))
        let smallUpright = resample(quadrants, to: PixelSize(width: 16, height: 32), turning: .turnedClockwise)
        for (x, y) in [(4, 8), (12, 8), (4, 24), (12, 24)] {
            #expect(nearlyEqual(small[x, y], smallUpright[x, y], tolerance: 6), "at \(x), \(y)")
        }
        let jpeg = try datedJPEG(quadrants, date: "2025:05:01 18:45:00", orientation: 6)
        let asJPEG = try loader.loadPicture(try folder.write("camera.jpg", jpeg), fittedTo: PixelSize(width: 64, height: 64))
        #expect(shown.info.dateTaken != nil && shown.info.dateTaken == asJPEG.info.dateTaken)
        #expect(PictureCodecs.dateTaken(ofFile: path) == asJPEG.info.dateTaken)
    }

    /// `imir` after `irot`: a quarter turn anticlockwise, then left and right exchanged.
    @Test func aMirrorAfterATurnIsApplied() throws {
        let folder = try ScratchFolder()
        let path = try avif(PNGCodec.encode(quadrants), ["-y", "444", "--min", "0", "--max", "0", "--irot", "1", "--imir", "1"], in: folder)
        let shown = try loader.load(path, fittedTo: PixelSize(width: 128, height: 128))
        let upright = resample(quadrants, to: PixelSize(width: 64, height: 128), turning: .transversed)
        #expect(channelDifferences(shown, upright).worst <= 2)
    }

    /// By content, not by name; and the folder lists `.avif`.
    @Test func anAVIFIsKnownByItsContent() throws {
        let folder = try ScratchFolder()
        let path = try avif(PNGCodec.encode(quadrants), [], in: folder)
        let renamed = try folder.write("IMG_0042.jpg", try readWholeFile(path, limit: 1 << 20))
        #expect(try loader.load(renamed, fittedTo: PixelSize(width: 64, height: 32)).size == PixelSize(width: 64, height: 32))
        #expect(PictureCodecs.fileExtensions.contains("avif"))
    }

    /// An animated AVIF (an image sequence) shows its first frame and says so.
    @Test func aSequenceShowsItsFirstFrameAndSaysSo() throws {
        let folder = try ScratchFolder()
        let first = try folder.write("first.png", PNGCodec.encode(solid(64, 48, red)))
        let second = try folder.write("second.png", PNGCodec.encode(solid(64, 48, blue)))
        let path = folder.path + "/moving.avif"
        try runTool("avifenc", ["-s", "10", first, second, path])
        let shown = try loader.loadPicture(path, fittedTo: PixelSize(width: 64, height: 48))
        #expect(shown.info.note == "is an image sequence of 2 frames: showing its first")
        #expect(nearlyEqual(shown.picture[32, 24], red, tolerance: 8))
    }

    /// Every prefix of an AVIF, and 2,000 copies with bytes changed: shown
    /// or refused with a line naming the file.
    @Test func cutAndMutatedAVIFsAreRefusedByName() throws {
        let folder = try ScratchFolder()
        let whole = try readWholeFile(try avif(PNGCodec.encode(GeneratedPictures.photo(PixelSize(width: 96, height: 64), variant: 4)), [], in: folder), limit: 1 << 20)
        expectCutAndDamagedCopiesShownOrRefusedByName(whole, name: "bad.avif", slot: PixelSize(width: 96, height: 64), count: 2000, loader: loader)
    }

    /// `file` (an AVIF with one `clap`) with the clap's horizontal and vertical offsets set to `offset` (whole pixels).
    func withCleanApertureOffset(_ offset: (x: Int32, y: Int32), in file: [UInt8]) throws -> [UInt8] {
        var file = file
        let at = try #require(file.indices.dropLast(36).first { file[$0..<($0 + 4)].elementsEqual("clap".utf8) })
        // After the type: width N/D, height N/D, horizOff N/D, vertOff N/D, each 32 bits, big-endian.
        for (field, value) in [(4, offset.x), (6, offset.y)] {
            file.replaceSubrange((at + 4 + 4 * field)..<(at + 8 + 4 * field), with: withUnsafeBytes(of: value.bigEndian) { Array($0) })
        }
        return file
    }

    /// A clean aperture whose top-left corner is on an odd column and row of
    /// a 4:2:0 picture (MIAF allows it: the chroma is upsampled first) is
    /// applied, as heif-convert applies it: 200x150 from (39, 39) of 320x240.
    @Test func aCleanApertureAtAnOddOriginIsApplied() throws {
        let folder = try ScratchFolder()
        let stored = PixelSize(width: 320, height: 240), shown = PixelSize(width: 200, height: 150)
        // Centred offsets -20, -5: from (40, 40), which avifenc accepts; then -21, -6: from (39, 39).
        let even = try avif(PNGCodec.encode(GeneratedPictures.photo(stored, variant: 10)),
                            ["-y", "420", "--min", "0", "--max", "0", "--clap", "200,1,150,1,-20,1,-5,1"], in: folder)
        let path = try folder.write("odd.avif", withCleanApertureOffset((-21, -6), in: try readWholeFile(even, limit: 1 << 20)))
        let picture = try loader.loadPicture(path, fittedTo: shown)
        #expect(picture.picture.size == shown && picture.info.originalSize == shown, "cropped, not the whole \(stored)")
        #expect(picture.info.note == nil)
        try runTool("heif-convert", [path, path + ".png"])
        let reference = try loader.load(path + ".png", fittedTo: shown)
        let (mean, worst) = channelDifferences(picture.picture, reference)
        // Worst at colour edges: libheif 1.19 and later (Debian 13) upsample
        // the chroma bilinearly where kioskd takes the covering sample (32
        // levels there, 1 with libheif 1.15); the mean shows the crop is the same.
        #expect(mean < 0.5 && worst <= 40, "mean \(mean), worst \(worst) levels")
        // Reduced (the planes scaled by libyuv from the odd corner, chroma from the sample covering it): the same picture halved.
        let half = try loader.load(path, fittedTo: PixelSize(width: 100, height: 75))
        let (halfMean, halfWorst) = channelDifferences(half, resample(reference, to: half.size))
        #expect(halfMean < 1.5, "mean \(halfMean), worst \(halfWorst) levels")
    }

    /// A clean aperture that reaches outside the picture cannot be applied:
    /// the whole picture is shown, and the log says why, once.
    @Test func aCleanApertureThatCannotBeAppliedIsSaidInTheLog() throws {
        let folder = try ScratchFolder()
        let stored = PixelSize(width: 320, height: 240)
        let even = try avif(PNGCodec.encode(GeneratedPictures.photo(stored, variant: 11)),
                            ["-y", "420", "--clap", "200,1,150,1,-20,1,-5,1"], in: folder)
        // From x = 160: 200 columns run past 320.
        let path = try folder.write("outside.avif", withCleanApertureOffset((100, -5), in: try readWholeFile(even, limit: 1 << 20)))
        let picture = try loader.loadPicture(path, fittedTo: stored)
        #expect(picture.picture.size == stored && picture.info.originalSize == stored)
        #expect(picture.info.note == "has a clean aperture (clap) that cannot be applied (crop rect is out of the image's bounds): showing the whole picture")
    }

    /// A limited-range monochrome AVIF (4:0:0 with its luma in 16...235, as
    /// `avifenc -y 400 -r limited` writes one) shows the greys it was made
    /// from: its luma stretched to 0...255 as libavif's own conversion
    /// (avifImageYUVToRGB) stretches it. The reference is avifdec's 16-bit
    /// PNG, which goes through that conversion; its 8-bit PNG of an 8-bit
    /// 4:0:0 file copies the luma plane as it is (range not applied), which
    /// would lift black to 16 and lower white to 235.
    @Test(arguments: [8, 10, 12])
    func aLimitedRangeMonochromeAVIFShowsTheGreysItWasMadeFrom(depth: Int) throws {
        let folder = try ScratchFolder()
        let size = PixelSize(width: 301, height: 199)
        // A ramp from 16 to 239 across, the same down every column.
        let greys = RasterImage(size: size, pixels: (0..<size.pixelCount).map { i in
            let v = UInt32(16 + (i % size.width) * 224 / size.width)
            return v << 16 | v << 8 | v
        })
        let path = try avif(PNGCodec.encode(greys), ["-d", "\(depth)", "-y", "400", "-r", "limited", "--min", "0", "--max", "0"], in: folder)
        let shown = try loader.load(path, fittedTo: size)
        let converted = path + ".avifdec16.png"
        try runTool("avifdec", ["-d", "16", path, converted])
        let (mean, worst) = channelDifferences(shown, try loader.load(converted, fittedTo: size))
        #expect(mean < 1 && worst <= 1, "against libavif's conversion: mean \(mean), worst \(worst) levels")
        // 219 steps for 255 levels: each grey back within a level.
        let (madeMean, madeWorst) = channelDifferences(shown, greys)
        #expect(madeMean < 1 && madeWorst <= 1, "against the greys made: mean \(madeMean), worst \(madeWorst) levels")
        if depth == 8 {
            // avifdec's 8-bit PNG: the luma copied, 8 levels off on average here (18 at the ends).
            let copied = path + ".avifdec8.png"
            try runTool("avifdec", ["-d", "8", path, copied])
            #expect(channelDifferences(shown, try loader.load(copied, fittedTo: size)).mean > 4, "avifdec's 8-bit PNG skips the range")
        }
    }
}

/// Decompression bombs: a small file whose container declares a picture of
/// 60000x60000 is refused from the container, before anything that size is
/// allocated (the process would need 5 GB to decode it).
@Suite struct PictureBombTests {
    let loader = PictureLoader(background: .black)

    /// `file` with every `ispe` box (the image's declared size) saying `size`.
    func declaring(_ size: PixelSize, in file: [UInt8]) -> [UInt8] {
        var file = file
        let type = Array("ispe".utf8)
        for at in file.indices.dropLast(16) where file[at..<(at + 4)].elementsEqual(type) {
            for (offset, value) in [(8, size.width), (12, size.height)] {
                for byte in 0..<4 { file[at + offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * (3 - byte))) }
            }
        }
        return file
    }

    /// A still of each format, and a grid of each (4 tiles, its size in its `ispe` and, for HEIF, its `grid` data too).
    @Test(arguments: ["avif", "heic", "grid.avif", "grid.heic"])
    func aHugeDeclaredSizeIsRefusedBeforeDecoding(format: String) throws {
        let folder = try ScratchFolder()
        let picture = GeneratedPictures.photo(PixelSize(width: 128, height: 128))
        let source = try folder.write("s.png", PNGCodec.encode(picture))
        let path = folder.path + "/small." + format
        switch format {
        case "avif": try runTool("avifenc", ["-s", "10", source, path])
        case "grid.avif": try runTool("avifenc", ["-s", "10", "-g", "2x2", source, path])
        case "grid.heic": try writeWholeFile(path, bytes: HEIFGridWriter.encode(picture, tile: 64, quality: 50))
        default: try runTool("heif-enc", [source, "-o", path])
        }
        var file = try readWholeFile(path, limit: 1 << 20)
        if format == "grid.heic", let grid = file.indices.first(where: { file[$0...].starts(with: Array("idat".utf8)) }) {
            // The grid's own output size, after its version, flags, rows and columns.
            file.replaceSubrange((grid + 8)..<(grid + 12), with: [0xFF, 0xFF, 0xFF, 0xFF])
        }
        let bomb = declaring(PixelSize(width: 60000, height: 60000), in: file)
        expectRefusedForItsSize(bomb, name: "bomb." + format)
    }

    /// A grid whose `ispe` tells the truth and whose own data declares
    /// 30000x30000 (within libheif 1.15's own limit of 32768 a side, which
    /// then allocated the canvas: the fuzz target's 675-byte grid declared
    /// 26991x30316 and took it past 2 GB).
    @Test func aGridWhoseOwnDataDeclaresAHugePictureIsRefusedBeforeDecoding() throws {
        var file = try HEIFGridWriter.encode(GeneratedPictures.photo(PixelSize(width: 128, height: 128)), tile: 64, quality: 50)
        let grid = try #require(file.indices.first { file[$0...].starts(with: Array("idat".utf8)) })
        file.replaceSubrange((grid + 8)..<(grid + 12), with: [0x75, 0x30, 0x75, 0x30])
        expectRefusedForItsSize(file, name: "IMG_0400.HEIC")
    }

    func expectRefusedForItsSize(_ bomb: [UInt8], name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try loader.load(bytes: bomb, path: name, fittedTo: PixelSize(width: 1920, height: 1080))
            Issue.record("\(name) was decoded", sourceLocation: sourceLocation)
        } catch {
            #expect(error.description.hasPrefix("\(name): "), "\(error)", sourceLocation: sourceLocation)
            // Refused for its size by the library's parser or kioskd's limit, in words (not a decoder's failure).
            #expect(["too large", "exceeds", "limit"].contains { error.description.contains($0) }, "\(error)", sourceLocation: sourceLocation)
        }
    }
}

/// Grey patches 16 pixels square side by side, patch i carrying `signals[i]`
/// (0...1), as a 16-bit PNG: what an HDR encoder is given.
func greyPatchesPNG(_ signals: [Double]) throws -> [UInt8] {
    let size = PixelSize(width: 16 * signals.count, height: 16)
    var samples = [UInt8]()
    for _ in 0..<size.height {
        for x in 0..<size.width {
            let value = UInt16((signals[x / 16] * 65535).rounded())
            for _ in 0..<3 { samples += withUnsafeBytes(of: value) { Array($0) } }   // host order, as PNGCodec takes them
        }
    }
    return try PNGCodec.encode(samples: samples, size: size, colourType: .truecolour, bitDepth: 16)
}

/// 10-bit HDR AVIFs (PQ and HLG, BT.2020), as phones now write them:
/// brought to the 8-bit screen through ``HDRToneMapping``, neither clipped
/// to white nor washed out.
@Suite struct HDRAVIFTests {
    let loader = PictureLoader(background: .black)

    /// Eight grey patches 16 pixels wide, each carrying `signals[i]` (0...1) in a 16-bit PNG, encoded with `cicp`.
    func patches(_ signals: [Double], cicp: String, in folder: ScratchFolder) throws -> String {
        let source = try folder.write("hdr.png", greyPatchesPNG(signals))
        let path = folder.path + "/hdr.avif"
        try runTool("avifenc", ["-s", "10", "-d", "10", "-y", "444", "--min", "0", "--max", "0", "--cicp", cicp, "-r", "full", source, path])
        return path
    }

    func levels(of path: String, count: Int) throws -> [Int] {
        let shown = try loader.load(path, fittedTo: PixelSize(width: 16 * count, height: 16))
        return (0..<count).map { Int(shown[16 * $0 + 8, 8] >> 8 & 0xFF) }
    }

    @Test func aPQPhotoKeepsItsHighlightsAndItsBlacks() throws {
        let folder = try ScratchFolder()
        // PQ signals for 0, 5, 100, 203, 400, 600, 800 and 1,000 nits.
        let nits: [Double] = [0, 5, 100, 203, 400, 600, 800, 1000]
        let signals = nits.map { n -> Double in
            let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128, c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
            let y = pow(n / 10000, m1)
            return pow((c1 + c2 * y) / (1 + c3 * y), m2)
        }
        let shown = try levels(of: try patches(signals, cicp: "9/16/9", in: folder), count: nits.count)
        #expect(shown[0] <= 2, "black is black, not grey: \(shown)")
        #expect((184...198).contains(shown[3]), "reference white at three quarters: \(shown)")
        #expect(shown[7] >= 253, "the peak is white: \(shown)")
        #expect(zip(shown, shown.dropFirst()).allSatisfy { $0 < $1 }, "every highlight its own level, none clipped: \(shown)")
        // Midtones keep their contrast: 100 nits is half of reference white's light, a visible step below it.
        #expect(shown[3] - shown[2] >= 25, "\(shown)")
    }

    @Test func anHLGPhotoKeepsItsHighlightsAndItsBlacks() throws {
        let folder = try ScratchFolder()
        let signals = [0, 0.25, 0.5, 0.75, 0.85, 0.92, 1.0]
        let shown = try levels(of: try patches(signals, cicp: "9/18/9", in: folder), count: signals.count)
        #expect(shown[0] <= 2 && shown[6] >= 253, "\(shown)")
        #expect((184...198).contains(shown[3]), "HLG's reference white (75%) at three quarters: \(shown)")
        #expect(zip(shown, shown.dropFirst()).allSatisfy { $0 < $1 }, "\(shown)")
    }
}

/// A zoom shown sharp: the region decoded again from the full-size planes,
/// not the slot's picture enlarged. For HEIC and for a turned AVIF.
@Suite struct PhoneFormatZoomTests {
    let loader = PictureLoader(background: .black)

    /// The region of the picture as the format's own tool decodes it, cut and resampled.
    func expectRegion(_ path: String, reference png: String, region: PictureRegion, at size: PixelSize, turned orientation: ImageOrientation = .upright) throws {
        let sharp = try loader.loadRegion(path, region: region, at: size)
        let stored = try loader.load(png, fittedTo: try loader.uprightSize(of: png))
        let whole = resample(stored, to: orientation.uprightSize(of: stored.size), turning: orientation)
        let expected = resample(whole, cropping: region.pixels(of: whole.size), to: size)
        let (mean, worst) = channelDifferences(sharp, expected)
        #expect(mean < 0.5 && worst <= 3, "mean \(mean), worst \(worst) levels")
        // Sharp: finer than the whole picture fitted to the same size and the region enlarged.
        let fitted = try loader.load(path, fittedTo: size)
        let blurred = resample(fitted, cropping: region.pixels(of: fitted.size), to: size)
        #expect(channelDifferences(blurred, expected).mean > mean + 1, "the region is decoded again, not enlarged")
    }

    @Test func aHEICRegionIsDecodedSharp() throws {
        let folder = try ScratchFolder()
        let source = try folder.write("s.png", PNGCodec.encode(GeneratedPictures.photo(PixelSize(width: 1200, height: 800), variant: 8)))
        let path = folder.path + "/zoom.heic"
        try runTool("heif-enc", ["-q", "95", source, "-o", path])
        try runTool("heif-convert", [path, path + ".png"])
        try expectRegion(path, reference: path + ".png", region: PictureRegion(left: 0.3, top: 0.35, right: 0.55, bottom: 0.6), at: PixelSize(width: 300, height: 200))
    }

    @Test func aTurnedAVIFRegionIsDecodedSharpAndUpright() throws {
        let folder = try ScratchFolder()
        let source = try folder.write("s.png", PNGCodec.encode(GeneratedPictures.photo(PixelSize(width: 1200, height: 800), variant: 9)))
        let path = folder.path + "/zoom.avif"
        try runTool("avifenc", ["-s", "10", "-y", "444", "--min", "4", "--max", "4", "--irot", "3", source, path])
        try runTool("avifdec", ["-d", "8", "-u", "nearest", path, path + ".png"])
        // avifdec writes the stored pixels; the container turns them once, clockwise.
        try expectRegion(path, reference: path + ".png", region: PictureRegion(left: 0.3, top: 0.35, right: 0.55, bottom: 0.6), at: PixelSize(width: 200, height: 300), turned: .turnedClockwise)
    }
}
