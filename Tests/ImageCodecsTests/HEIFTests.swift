import CHEIF
import Foundation
@testable import ImageCodecs
import KioskCore
import KioskRendering
import SystemCalls
import TestSupport
import Testing

/// A HEIC as an iPhone writes a portrait: the sensor's landscape pixels,
/// the container saying how to turn them (`irot`/`imir`, written by libheif
/// for `orientation`), and an `Exif` item that says the same turn again.
/// Encoded with libheif's own API (x265), since heif-enc 1.15 writes no `irot`.
func phoneHEIC(_ image: RasterImage, orientation: heif_orientation, exif: [UInt8], to path: String) throws {
    struct Failure: Error, CustomStringConvertible { let description: String }
    func check(_ error: heif_error) throws { if error.code != heif_error_Ok { throw Failure(description: String(cString: error.message)) } }
    try OnDemandLibrary.heif.open()
    guard let context = heif_context_alloc() else { throw Failure(description: "no context") }
    defer { heif_context_free(context) }
    var encoder: OpaquePointer?
    try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder))
    defer { heif_encoder_release(encoder) }
    try check(heif_encoder_set_lossy_quality(encoder, 95))
    var picture: OpaquePointer?
    try check(heif_image_create(Int32(image.width), Int32(image.height), heif_colorspace_RGB, heif_chroma_interleaved_RGB, &picture))
    defer { heif_image_release(picture) }
    try check(heif_image_add_plane(picture, heif_channel_interleaved, Int32(image.width), Int32(image.height), 8))
    var stride: Int32 = 0
    guard let plane = heif_image_get_plane(picture, heif_channel_interleaved, &stride) else { throw Failure(description: "no plane") }
    for y in 0..<image.height {
        for x in 0..<image.width {
            let p = image[x, y], at = y * Int(stride) + 3 * x
            plane[at] = UInt8(truncatingIfNeeded: p >> 16)
            plane[at + 1] = UInt8(truncatingIfNeeded: p >> 8)
            plane[at + 2] = UInt8(truncatingIfNeeded: p)
        }
    }
    guard let options = heif_encoding_options_alloc() else { throw Failure(description: "no options") }
    defer { heif_encoding_options_free(options) }
    options.pointee.image_orientation = orientation
    var handle: OpaquePointer?
    try check(heif_context_encode_image(context, picture, encoder, options, &handle))
    defer { heif_image_handle_release(handle) }
    try check(heif_context_add_exif_metadata(context, handle, exif, Int32(exif.count)))
    try check(heif_context_write_to_file(context, path))
}

/// HEIC photos as an iPhone saves them, made here with `heif-enc` (x265)
/// and checked against libheif's own `heif-convert` read back through
/// kioskd's PNG path.
@Suite struct HEIFTests {
    let loader = PictureLoader(background: RGBColor(xrgb: 0x204060))

    /// `image` (or `jpeg`, with its EXIF) encoded by heif-enc; returns the HEIC's path.
    func heic(_ source: [UInt8], sourceName: String, in folder: ScratchFolder, name: String = "photo") throws -> String {
        let input = try folder.write(name + "-" + sourceName, source)
        let heic = folder.path + "/" + name + ".heic"
        try runTool("heif-enc", ["-q", "90", input, "-o", heic])
        return heic
    }

    /// What libheif's own converter makes of `heic`, through kioskd's PNG path, fitted to `slot`.
    func reference(_ heic: String, fittedTo slot: PixelSize) throws -> RasterImage {
        let png = heic + ".heif-convert.png"
        try runTool("heif-convert", [heic, png])
        return try loader.load(png, fittedTo: slot)
    }

    @Test(arguments: [PixelSize(width: 320, height: 200), PixelSize(width: 301, height: 199)])
    func aHEICAtItsOwnSizeIsExactlyWhatHeifConvertDecodes(size: PixelSize) throws {
        let folder = try ScratchFolder()
        let path = try heic(PNGCodec.encode(GeneratedPictures.photo(size, variant: 3)), sourceName: "source.png", in: folder)
        let shown = try loader.loadPicture(path, fittedTo: size)
        #expect(shown.picture.size == size)
        #expect(shown.info.format == "HEIF" && shown.info.originalSize == size)
        let converted = try reference(path, fittedTo: size)
        #expect(shown.picture.pixels == converted.pixels)
    }

    /// Transparency over the kiosk's background, as the same picture from heif-convert as a PNG.
    @Test func alphaIsCompositedOverTheBackground() throws {
        let folder = try ScratchFolder()
        let size = PixelSize(width: 64, height: 40)
        let rgba = transparencyRamp(size)
        let path = try heic(PNGCodec.encode(samples: rgba, size: size, colourType: .truecolourAlpha), sourceName: "alpha.png", in: folder)
        let shown = try loader.load(path, fittedTo: size)
        let converted = try reference(path, fittedTo: size)
        #expect(shown.pixels == converted.pixels)
        #expect(shown[0, 20] == 0x204060, "alpha 0 is the background")
    }

    /// A 10-bit HEIC (from a 16-bit PNG) is brought to 8 bits as libheif's
    /// converter brings it, within two levels: kioskd asks libheif for 8
    /// bits (1.15 drops the low two bits, Debian 13's 1.23 rounds), while
    /// heif-convert writes a 16-bit PNG that libspng brings to 8 its own way.
    /// Measured: 1 level at worst with 1.15, 2 with 1.23.
    @Test func tenBitIsBroughtToEight() throws {
        let folder = try ScratchFolder()
        let size = PixelSize(width: 64, height: 48)
        var samples = [UInt8]()
        for y in 0..<size.height {
            for x in 0..<size.width {
                for value in [UInt16(x * 1000), UInt16(y * 1300), UInt16(40_000)] { samples += withUnsafeBytes(of: value) { Array($0) } }
            }
        }
        let source = try folder.write("deep.png", PNGCodec.encode(samples: samples, size: size, colourType: .truecolour, bitDepth: 16))
        let path = folder.path + "/deep.heic"
        try runTool("heif-enc", ["-b", "10", "-q", "90", source, "-o", path])
        let shown = try loader.load(path, fittedTo: size)
        let converted = try reference(path, fittedTo: size)
        let worst = channelDifferences(shown, converted).worst
        #expect(worst <= 2, "\(worst) levels at worst")
    }

    /// An iPhone's portrait: the container turns it, and the EXIF inside still says 6.
    /// It stands upright once, not on its side; the EXIF gives the date taken.
    @Test func aTurnedPhoneHEICIsUprightOnceAndDated() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/IMG_0001.HEIC"
        try phoneHEIC(quadrants, orientation: heif_orientation_rotate_90_cw, exif: datedEXIF(date: "2024:07:14 09:30:00", orientation: 6), to: path)
        // The same photo as a camera JPEG (the pixels as stored, EXIF 6): what upright means.
        let jpeg = try datedJPEG(quadrants, date: "2024:07:14 09:30:00", orientation: 6)
        let shown = try loader.loadPicture(path, fittedTo: PixelSize(width: 128, height: 128))
        let asJPEG = try loader.loadPicture(try folder.write("camera.jpg", jpeg), fittedTo: PixelSize(width: 128, height: 128))
        #expect(shown.picture.size == asJPEG.picture.size, "\(shown.picture.size): upright as the JPEG, turned once")
        #expect(nearlyEqual(shown.picture[4, 4], asJPEG.picture[4, 4], tolerance: 24) && nearlyEqual(shown.picture[59, 4], asJPEG.picture[59, 4], tolerance: 24))
        #expect(shown.info.dateTaken != nil && shown.info.dateTaken == asJPEG.info.dateTaken)
        #expect(PictureCodecs.dateTaken(ofFile: path) == asJPEG.info.dateTaken)
        #expect(try loader.uprightSize(of: path) == PixelSize(width: 32, height: 64))
    }

    /// A file of several images (a burst, a collection) shows its primary
    /// image and says so; a single photo says nothing.
    @Test func aBurstShowsItsPrimaryImageAndSaysSo() throws {
        let folder = try ScratchFolder()
        let first = try folder.write("first.png", PNGCodec.encode(solid(64, 48, red)))
        let second = try folder.write("second.png", PNGCodec.encode(solid(64, 48, blue)))
        let burst = folder.path + "/burst.heic"
        try runTool("heif-enc", ["-q", "90", first, second, "-o", burst])
        let shown = try loader.loadPicture(burst, fittedTo: PixelSize(width: 64, height: 48))
        #expect(shown.info.note == "holds 2 images (a burst, a collection or a stereo pair): showing its primary image")
        #expect(nearlyEqual(shown.picture[32, 24], red, tolerance: 6), "the primary image is the first")
        let single = try loader.loadPicture(try heic(PNGCodec.encode(solid(64, 48, red)), sourceName: "one.png", in: folder), fittedTo: PixelSize(width: 64, height: 48))
        #expect(single.info.note == nil)
    }

    /// By content, not by name: a HEIC named `.jpg` is shown, and a JPEG named `.heic`.
    @Test func aHEICIsKnownByItsContent() throws {
        let folder = try ScratchFolder()
        let path = try heic(PNGCodec.encode(quadrants), sourceName: "q.png", in: folder)
        let renamed = try folder.write("IMG_0042.jpg", try readWholeFile(path, limit: 1 << 20))
        #expect(try loader.load(renamed, fittedTo: PixelSize(width: 64, height: 32)).size == PixelSize(width: 64, height: 32))
        let jpeg = try folder.write("IMG_0043.heic", try JPEGCodec.encode(quadrants, quality: 95))
        #expect(try loader.load(jpeg, fittedTo: PixelSize(width: 64, height: 32)).size == PixelSize(width: 64, height: 32))
        #expect(PictureCodecs.fileExtensions.contains("heic") && PictureCodecs.fileExtensions.contains("hif"))
    }

    /// Every prefix of a HEIC, and 2,000 copies with bytes changed: shown
    /// or refused with a line naming the file.
    @Test func cutAndMutatedHEICsAreRefusedByName() throws {
        let folder = try ScratchFolder()
        let whole = try readWholeFile(try heic(PNGCodec.encode(GeneratedPictures.photo(PixelSize(width: 96, height: 64), variant: 4)), sourceName: "s.png", in: folder), limit: 1 << 20)
        expectCutAndDamagedCopiesShownOrRefusedByName(whole, name: "bad.heic", slot: PixelSize(width: 96, height: 64), count: 2000, loader: loader)
    }
}

/// An iPhone stores a photo as a grid of 512x512 HEVC tiles composed by a
/// `grid` item (written here by ``HEIFGridWriter``, as no Debian 12 tool
/// writes one). kioskd decodes it a row of tiles at a time (libheif 1.18's
/// tile API, or each tile as a file of its own for 1.15) and shows what
/// heif-convert composes whole.
@Suite struct HEIFGridTests {
    let loader = PictureLoader(background: RGBColor(xrgb: 0x204060))

    /// heif-convert's picture of the HEIC at `path`, through kioskd's PNG path.
    func converted(_ path: String, size: PixelSize) throws -> RasterImage {
        let png = path + ".png"
        try runTool("heif-convert", [path, png])
        return try loader.load(png, fittedTo: size)
    }

    /// 1100x700 in 256-pixel tiles: 5 by 3, the last column and row cut by the grid's size.
    @Test func aGridHEICIsShownWholeAsHeifConvertComposesIt() throws {
        let folder = try ScratchFolder()
        let size = PixelSize(width: 1100, height: 700)
        let grid = try HEIFGridWriter.encode(GeneratedPictures.photo(size, variant: 6), tile: 256, quality: 90)
        #expect(grid.indices.filter { grid[$0...].starts(with: Array("hvc1".utf8)) }.count == 15, "fifteen tiles")
        let path = try folder.write("IMG_0100.HEIC", grid)
        let shown = try loader.loadPicture(path, fittedTo: size)
        #expect(shown.picture.size == size && shown.info.originalSize == size)
        #expect(shown.info.note == nil, "the tiles are hidden: one image, not a burst")
        let converted = try converted(path, size: size)
        #expect(shown.picture.pixels == converted.pixels)
        // Halved: each row of tiles joined and its columns narrowed by the
        // resampler's tent, then converted and reduced down: heif-convert's
        // whole picture halved, within the difference of chroma narrowed over
        // its own 4:2:0 samples against chroma taken at full size.
        let half = try loader.load(path, fittedTo: PixelSize(width: 550, height: 350))
        let (mean, worst) = channelDifferences(half, resample(converted, to: half.size))
        #expect(mean < 1 && worst <= 32, "mean \(mean), worst \(worst) levels")
    }

    /// A phone held upright or upside down records its sensor's picture
    /// and a turn (`irot`) and mirror (`imir`) on the grid: each tile is
    /// turned and put where the turn puts it, and the picture is the one
    /// heif-convert turns whole, pixel for pixel. 700x500 in 256-pixel
    /// tiles leaves part-tiles on the right and bottom, which a turn moves
    /// to the left or top.
    @Test(arguments: [(1, nil), (2, nil), (3, nil), (0, ImageOrientation.ContainerMirror.leftAndRight), (1, .topAndBottom), (3, .leftAndRight)])
    func aTurnedOrMirroredGridIsShownAsHeifConvertTurnsIt(turns: Int, mirror: ImageOrientation.ContainerMirror?) throws {
        let folder = try ScratchFolder()
        let stored = PixelSize(width: 700, height: 500)
        let grid = try HEIFGridWriter.encode(GeneratedPictures.photo(stored, variant: 3), tile: 256, quality: 90, turns: turns, mirror: mirror)
        let path = try folder.write("IMG_0200.HEIC", grid)
        let upright = turns % 2 == 1 ? PixelSize(width: stored.height, height: stored.width) : stored
        let shown = try loader.loadPicture(path, fittedTo: upright)
        #expect(shown.picture.size == upright && shown.info.originalSize == upright)
        let converted = try converted(path, size: upright)
        let (mean, worst) = channelDifferences(shown.picture, converted)
        #expect(worst == 0, "mean \(mean), worst \(worst) levels")
    }

    /// An iPhone 12 and later joins an HDR gain map to each photo, an
    /// auxiliary image kioskd does not show: the grid is still read for a
    /// tile at a time (``HEIFGridTiles``, which Debian 12's libheif 1.15
    /// decodes through) and shown as heif-convert shows it. A grid with
    /// alpha is left to libheif whole, which joins the alpha plane to it.
    @Test func aGridWithAGainMapIsStillReadTileByTile() throws {
        let folder = try ScratchFolder()
        let size = PixelSize(width: 300, height: 200)
        let picture = GeneratedPictures.photo(size, variant: 5)
        func tiles(_ file: [UInt8]) -> HEIFGridTiles? {
            HEIFGridTiles.read(ISOBMFF.parts(of: file))
        }
        let gainMap = try HEIFGridWriter.encode(picture, tile: 128, quality: 60, auxiliary: "urn:com:apple:photo:2020:aux:hdrgainmap")
        let alpha = try HEIFGridWriter.encode(picture, tile: 128, quality: 60, auxiliary: "urn:mpeg:hevc:2015:auxid:1")
        let layout = try #require(tiles(gainMap)?.layout)
        #expect(layout.columns == 3 && layout.rows == 2 && layout.size == size)
        #expect(tiles(alpha) == nil)
        let path = try folder.write("IMG_0500.HEIC", gainMap)
        let shown = try loader.load(path, fittedTo: size), reference = try converted(path, size: size)
        #expect(shown.pixels == reference.pixels)
    }

    /// A grid cut short (a copy that stopped) or damaged: each tile whose
    /// data is missing or wrong is refused with a line naming the file.
    @Test func cutAndMutatedGridsAreRefusedByName() throws {
        let grid = try HEIFGridWriter.encode(GeneratedPictures.photo(PixelSize(width: 200, height: 120), variant: 2), tile: 64, quality: 40, turns: 1)
        expectCutAndDamagedCopiesShownOrRefusedByName(grid, name: "IMG_0300.HEIC", slot: PixelSize(width: 60, height: 100), count: 1000, loader: loader)
    }

    /// Grey rings about the centre, finer and finer outwards: half a cycle a pixel at the corners.
    func zonePlate(_ size: PixelSize) -> RasterImage {
        let cx = Double(size.width) / 2, cy = Double(size.height) / 2
        // The rings' frequency at radius r is r / reach cycles a pixel.
        let reach = 2 * (cx * cx + cy * cy).squareRoot()
        return RasterImage(size: size, pixels: (0..<size.pixelCount).map { i in
            let x = Double(i % size.width) - cx, y = Double(i / size.width) - cy
            let v = UInt32((128 + 127 * cos(Double.pi * (x * x + y * y) / reach)).rounded())
            return v << 16 | v << 8 | v
        })
    }

    /// An iPhone's 12 Mpx grid of 512x512 tiles, of rings too fine for the
    /// slot: more than 6 times smaller, and exactly a third (4032 into the
    /// 1344-wide slot of a 1920x1080 screen, where libyuv, asked for a box
    /// with the rows kept, took every third column alone). What is too fine
    /// for the slot fades to grey, as when the whole picture is resampled,
    /// instead of coming back as moiré.
    @Test func ringsTooFineForTheSlotFadeRatherThanTurnToMoire() throws {
        let folder = try ScratchFolder()
        let size = PixelSize(width: 4032, height: 3024)
        let path = try folder.write("IMG_0300.HEIC", HEIFGridWriter.encode(zonePlate(size), quality: 90))
        let whole = try converted(path, size: size)
        for slot in [PixelSize(width: 640, height: 480), PixelSize(width: 1344, height: 1008)] {
            let shown = try loader.load(path, fittedTo: slot)
            #expect(shown.size == slot)
            let (mean, worst) = channelDifferences(shown, resample(whole, to: slot))
            #expect(mean < 1.5, "\(slot): mean \(mean), worst \(worst) levels")
        }
    }
}

/// Files Debian 12's libheif 1.15 cannot survive, refused before it decodes
/// (``HEIFDerivationCheck``): found by the `heif` fuzz target.
@Suite struct HEIFDerivationTests {
    let loader = PictureLoader(background: .black)

    /// Each file the fuzz target found (Tests/fuzz-regressions/heif): grids
    /// listed among their own tiles, one through a reference entry whose
    /// size is false (libheif 1.15 reads the entries in sequence and ignores
    /// their sizes, and so does the check), one in a second `meta` box after
    /// an ordinary first (libheif 1.15 keeps the last it reads; the check
    /// refuses a file with two). libheif 1.15 starts threads until none can
    /// be made, then ends the process (`heif-info` too).
    @Test(arguments: [
        ("grid-made-from-itself.heic", "its images are made from themselves"),
        ("grid-reference-with-a-false-size.heic", "its images are made from themselves"),
        ("second-description-with-a-grid-made-from-itself.heic", "it holds two descriptions (meta boxes)"),
        // An identity image made from item 12802, which the file does not list: libheif 1.15 asserts and aborts.
        ("identity-made-from-an-item-not-listed.heic", "its image 2 is made from an item it does not have (12802)"),
        // One made from item 1, whose type the fuzzer turned from `hvc1` to `hvc0`: libheif 1.15 asserts it is a picture.
        ("identity-made-from-an-item-that-is-not-a-picture.heic", "its image 2 is made from item 1, which is not a picture (\"hvc0\")"),
    ])
    func aGridMadeFromItselfIsRefusedByName(file: String, reason: String) throws {
        let regressions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../fuzz-regressions/heif").standardized.path
        let path = regressions + "/" + file
        let error = expectError(ImageFileError.self) { try loader.load(path, fittedTo: PixelSize(width: 64, height: 48)) }
        #expect(error?.description.hasPrefix(path + ": cannot decode: " + reason) == true, "\(String(describing: error))")
        // The same in memory, as a zoom reads a file.
        let bytes = try readWholeFile(path, limit: 1 << 20)
        let inMemory = expectError(ImageFileError.self) { try loader.load(bytes: bytes, path: "x.heic", fittedTo: PixelSize(width: 64, height: 48)) }
        #expect(inMemory?.description.contains(reason) == true)
    }

    /// An iPhone-like grid passes the check: one level, grid then tiles.
    @Test func anOrdinaryGridPasses() throws {
        let grid = try HEIFGridWriter.encode(GeneratedPictures.photo(PixelSize(width: 300, height: 200)), tile: 128, quality: 50)
        #expect(try loader.load(bytes: grid, path: "grid.heic", fittedTo: PixelSize(width: 300, height: 200)).size == PixelSize(width: 300, height: 200))
    }
}

/// The check on a file's derived images, on item references written here.
@Suite struct HEIFDerivationCheckTests {
    /// A file of an `ftyp` and a `meta` holding one `iref` with these `dimg` links (16-bit IDs).
    func file(_ links: [(from: Int, to: [Int])]) -> [UInt8] {
        func join(_ parts: [UInt8]...) -> [UInt8] { parts.flatMap { $0 } }
        func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { join(u16(v >> 16), u16(v)) }
        func box(_ type: String, _ contents: [UInt8]) -> [UInt8] { join(u32(8 + contents.count), Array(type.utf8), contents) }
        let entries = links.flatMap { box("dimg", join(u16($0.from), u16($0.to.count), $0.to.flatMap(u16))) }
        return join(box("ftyp", join(Array("heic".utf8), u32(0), Array("mif1heic".utf8))), box("meta", join(u32(0), box("iref", join(u32(0), entries)))))
    }

    func refusal(_ bytes: [UInt8]) -> String? {
        switch HEIFDerivationCheck.refusal(maximumPixels: 1 << 26, read: ISOBMFF.parts(of: bytes)) {
        case .corrupt(let reason)?: return reason
        case let other?: return "\(other)"
        case nil: return nil
        }
    }

    @Test func aGridOfTilesPasses() {
        #expect(refusal(file([(1, [2, 3, 4, 5])])) == nil)
        #expect(refusal(file([(1, [2]), (2, [3, 4])])) == nil, "an overlay of a grid")
        #expect(refusal([]) == nil && refusal(Array("not a heif".utf8)) == nil, "nothing to check: libheif refuses it itself")
    }

    @Test func aCycleIsRefused() {
        #expect(refusal(file([(1, [1])])) == "its images are made from themselves (item 1)")
        #expect(refusal(file([(1, [2]), (2, [3]), (3, [1])]))?.hasPrefix("its images are made from themselves") == true)
    }

    /// libheif 1.15 keeps the last `meta` box it reads; a check reading the first would miss what it decodes.
    @Test func aSecondDescriptionIsRefused() {
        let ordinary = file([(1, [2, 3])]), cycle = file([(1, [1])])
        #expect(refusal(ordinary + cycle.dropFirst(24)) == "it holds two descriptions (meta boxes)")
        #expect(refusal(ordinary + ordinary.dropFirst(24)) == "it holds two descriptions (meta boxes)", "even two alike")
        #expect(refusal(ordinary) == nil)
    }

    @Test func nestingDeeperThanThreeIsRefused() {
        #expect(refusal(file([(1, [2]), (2, [3]), (3, [4])])) == nil, "three levels")
        #expect(refusal(file([(1, [2]), (2, [3]), (3, [4]), (4, [5])])) == "its images are derived from others more than 3 deep")
        // Found through memoised items too: 9 reaches 1's chain from above.
        #expect(refusal(file([(1, [2]), (2, [3]), (3, [4]), (9, [1])])) == "its images are derived from others more than 3 deep")
    }
}
