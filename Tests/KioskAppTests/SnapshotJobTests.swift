import Foundation
import ImageCodecs
import KioskApp
import KioskCore
import KioskRendering
import TestSupport
import Testing

/// A folder of pictures for one test, removed afterwards.
final class PictureFolder {
    let path: String

    init(_ pictures: [(name: String, bytes: [UInt8])]) throws {
        path = NSTemporaryDirectory() + "kioskd-app-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for picture in pictures {
            try Data(picture.bytes).write(to: URL(fileURLWithPath: path + "/" + picture.name))
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

let red: UInt32 = 0xE02828, green: UInt32 = 0x28E028, blue: UInt32 = 0x2828E0, yellow: UInt32 = 0xE0E028
let background = RGBColor(xrgb: 0x202020)

/// A lossless flat picture; 4:3 so it fits a 1344x1080 slot as 1344x1008.
func flatPNG(_ xrgb: UInt32) throws -> [UInt8] {
    try PNGCodec.encode(flat(xrgb))
}

/// A flat 400x300 picture of `xrgb` (``flatPNG(_:)`` before it is a PNG).
func flat(_ xrgb: UInt32) -> RasterImage {
    RasterImage(size: PixelSize(width: 400, height: 300), filledWith: RGBColor(xrgb: xrgb))
}

/// `pictures` written as PNGs into a fresh folder and made into one file by
/// `tool` (cwebp, img2webp, heif-enc; `arguments` given the PNGs' paths and
/// the file's): that file's bytes.
func madeByTool(_ tool: String, from pictures: [RasterImage], _ arguments: (_ inputs: [String], _ output: String) -> [String]) throws -> [UInt8] {
    let folder = NSTemporaryDirectory() + "kioskd-\(tool)-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    var inputs: [String] = []
    for (i, picture) in pictures.enumerated() {
        inputs.append(folder + "/\(i).png")
        try Data(try PNGCodec.encode(picture)).write(to: URL(fileURLWithPath: inputs[i]))
    }
    try runTool(tool, arguments(inputs, folder + "/made"))
    return try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/made")))
}

func job(_ folder: PictureFolder, at position: Double, configure: (inout KioskSettings) -> Void = { _ in }) -> SnapshotJob {
    var settings = KioskSettings()
    settings.images = folder.path
    settings.layout.background = background
    configure(&settings)
    return SnapshotJob(settings: settings, screen: PixelSize(width: 1920, height: 1080), position: position)
}

/// Asserts that the colour changes from `before` to `after` between x - 1 and
/// x on row y: the edge is exactly where the geometry puts it.
func expectEdge(_ frame: RasterImage, x: Int, y: Int, from before: UInt32, to after: UInt32,
                sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(frame[x - 2, y] == before, "x=\(x - 2)", sourceLocation: sourceLocation)
    #expect(frame[x - 1, y] == before, "x=\(x - 1)", sourceLocation: sourceLocation)
    #expect(frame[x, y] == after, "x=\(x)", sourceLocation: sourceLocation)
    #expect(frame[x + 1, y] == after, "x=\(x + 1)", sourceLocation: sourceLocation)
}

@Suite struct SnapshotJobTests {
    @Test func theCentredPictureAndBothNeighboursPeekIn() throws {
        let folder = try PictureFolder([("a.png", flatPNG(red)), ("b.png", flatPNG(green)), ("c.png", flatPNG(blue))])
        let result = try job(folder, at: 0).run()
        let frame = result.frame
        #expect(result.log.isEmpty)
        // Slots at -1094, 288, 1670 (1344 wide); pictures 1344x1008, rows 36..<1044.
        let y = 540
        #expect(frame[0, y] == blue)                                       // c.png wraps round to the left
        expectEdge(frame, x: 250, y: y, from: blue, to: background.xrgb)  // left neighbour ends
        expectEdge(frame, x: 288, y: y, from: background.xrgb, to: red)   // centred picture starts
        expectEdge(frame, x: 1632, y: y, from: red, to: background.xrgb)  // and ends
        expectEdge(frame, x: 1670, y: y, from: background.xrgb, to: green) // right neighbour starts
        #expect(frame[1919, y] == green)
        // Vertically centred: 36 px of background above and below.
        #expect(frame[960, 35] == background.xrgb && frame[960, 36] == red)
        #expect(frame[960, 1043] == red && frame[960, 1044] == background.xrgb)
    }

    @Test func theWrittenPNGHoldsExactlyTheFrame() throws {
        let folder = try PictureFolder([("a.png", flatPNG(red)), ("b.png", flatPNG(green))])
        let frame = try job(folder, at: 0.3).run().frame
        let png = try PNGCodec.encode(frame)
        #expect(try PNGCodec.decode(png, path: "snapshot.png", background: .black, maximumPixels: 1 << 22) == frame)
    }

    @Test func positionJustBeforeTheFirstShowsTheLastOnTheLeft() throws {
        let folder = try PictureFolder([("1.png", flatPNG(red)), ("2.png", flatPNG(green)),
                                        ("3.png", flatPNG(blue)), ("4.png", flatPNG(yellow))])
        let frame = try job(folder, at: -0.25).run().frame
        // Slot -1 (item 3, yellow) at 288 - 0.75 * 1382 = -748.5 -> -748; ends at 596.
        expectEdge(frame, x: 596, y: 540, from: yellow, to: background.xrgb)
        // Slot 0 (item 0, red) at 288 + 345.5 -> 634.
        expectEdge(frame, x: 634, y: 540, from: background.xrgb, to: red)
    }

    @Test func theLastPictureHasTheFirstOnItsRight() throws {
        let folder = try PictureFolder([("1.png", flatPNG(red)), ("2.png", flatPNG(green)), ("3.png", flatPNG(blue))])
        let frame = try job(folder, at: 2).run().frame
        #expect(frame[960, 540] == blue)
        expectEdge(frame, x: 1670, y: 540, from: background.xrgb, to: red)
        #expect(frame[100, 540] == green)
    }

    @Test func aSinglePictureIsItsOwnNeighbour() throws {
        let folder = try PictureFolder([("only.png", flatPNG(red))])
        let frame = try job(folder, at: 0).run().frame
        #expect(frame[100, 540] == red && frame[960, 540] == red && frame[1800, 540] == red)
        #expect(frame[270, 540] == background.xrgb)
    }

    @Test func twoPicturesAlternate() throws {
        let folder = try PictureFolder([("1.png", flatPNG(red)), ("2.png", flatPNG(green))])
        let frame = try job(folder, at: 0).run().frame
        #expect(frame[100, 540] == green && frame[960, 540] == red && frame[1800, 540] == green)
    }

    @Test func anUnreadableFileIsSkippedWithOneLineAndTheShowGoesOn() throws {
        let folder = try PictureFolder([("1.png", flatPNG(red)), ("2.jpg", Array("not a picture".utf8)),
                                        ("3.png", flatPNG(blue)), ("4.jpg", [])])
        let result = try job(folder, at: 0).run()
        #expect(result.playlist.map { ($0 as NSString).lastPathComponent } == ["1.png", "3.png"])
        #expect(result.log.count == 2)
        #expect(result.log.contains { $0.hasPrefix("skipping ") && $0.hasSuffix("/2.jpg: not a JPEG, PNG, GIF, WebP, HEIF, AVIF or video clip file") })
        #expect(result.log.contains { $0.hasPrefix("skipping ") && $0.hasSuffix("/4.jpg: the file is empty") })
        // Red in the centre, blue on both sides: the broken files are simply not there.
        #expect(result.frame[960, 540] == red && result.frame[100, 540] == blue && result.frame[1800, 540] == blue)
    }

    /// A WebP and a HEIC cut short (a half-copied phone photo) are skipped
    /// with one line each, naming the file, and the show goes on without them.
    @Test func cutWebPsAndHEICsAreSkippedAndTheShowGoesOn() throws {
        let webp = try madeByTool("cwebp", from: [flat(green)]) { ["-q", "80", $0[0], "-o", $1] }
        let heic = try madeByTool("heif-enc", from: [flat(green)]) { ["-q", "80", $0[0], "-o", $1] }
        let folder = try PictureFolder([("1.png", flatPNG(red)), ("2.webp", Array(webp.prefix(webp.count / 2))),
                                        ("3.png", flatPNG(blue)), ("4.heic", Array(heic.prefix(heic.count / 2)))])
        let result = try job(folder, at: 0).run()
        #expect(result.playlist.map { ($0 as NSString).lastPathComponent } == ["1.png", "3.png"])
        #expect(result.log.count == 2, "\(result.log)")
        #expect(result.log.contains { $0.hasPrefix("skipping ") && $0.contains("/2.webp: ") })
        #expect(result.log.contains { $0.hasPrefix("skipping ") && $0.contains("/4.heic: ") })
        #expect(result.frame[960, 540] == red && result.frame[100, 540] == blue && result.frame[1800, 540] == blue)
    }

    /// A still GIF is a picture like the others: listed, decoded, fitted, shown.
    @Test func aGIFInTheFolderIsShown() throws {
        let gif = GIFCodec.encode(width: 4, height: 4, palette: [RGBColor(xrgb: green)], frames: [.init(indices: [UInt8](repeating: 0, count: 16))])
        let folder = try PictureFolder([("1.png", flatPNG(red)), ("2.gif", gif)])
        let result = try job(folder, at: 1).run()
        #expect(result.playlist.map { ($0 as NSString).lastPathComponent } == ["1.png", "2.gif"])
        #expect(result.frame[960, 540] == green && result.frame[100, 540] == red)
    }

    /// A WebP (made by cwebp from a flat PNG) is listed and shown like any picture.
    @Test func aWebPInTheFolderIsShown() throws {
        let folder = try PictureFolder([("1.png", flatPNG(red)), ("2.WEBP", try madeByTool("cwebp", from: [flat(green)]) { ["-lossless", $0[0], "-o", $1] })])
        let result = try job(folder, at: 1).run()
        #expect(result.playlist.map { ($0 as NSString).lastPathComponent } == ["1.png", "2.WEBP"])
        #expect(result.frame[960, 540] == green && result.frame[100, 540] == red)
    }

    /// A HEIC (made by heif-enc from a flat PNG), named as an iPhone names it, is listed and shown.
    /// A phone's photo beside a PNG, made by the format's own encoder from a flat green.
    @Test(arguments: [
        ("IMG_0002.HEIC", "heif-enc", ["-q", "95"], true),
        ("PXL_0003.avif", "avifenc", ["-s", "10", "-d", "10"], false),
    ])
    func aPhonePhotoInTheFolderIsShown(name: String, tool: String, options: [String], outputFlag: Bool) throws {
        let photo = try madeByTool(tool, from: [flat(green)]) { options + [$0[0]] + (outputFlag ? ["-o"] : []) + [$1] }
        let folder = try PictureFolder([("1.png", flatPNG(red)), (name, photo)])
        let result = try job(folder, at: 1).run()
        #expect(result.playlist.map { ($0 as NSString).lastPathComponent } == ["1.png", name])
        // HEVC and AV1 are lossy: a flat colour comes back within a few levels.
        let centre = RGBColor(xrgb: result.frame[960, 540]), expected = RGBColor(xrgb: green)
        #expect(abs(Int(centre.red) - Int(expected.red)) <= 4 && abs(Int(centre.green) - Int(expected.green)) <= 4
                && abs(Int(centre.blue) - Int(expected.blue)) <= 4, "\(centre)")
        #expect(result.frame[100, 540] == red)
    }

    /// A phone's clip (made by ffmpeg: a green frame, then a blue one) is
    /// listed and shown in its slot as its first frame; with `video = false`
    /// it is passed over, with a line saying why.
    @Test func aClipInTheFolderIsShownAsItsFirstFrame() throws {
        let clip = try madeByTool("ffmpeg", from: [flat(green), flat(blue)]) { inputs, output in
            ["-loglevel", "error", "-framerate", "10", "-i", (inputs[0] as NSString).deletingLastPathComponent + "/%d.png",
             "-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "1", "-f", "mp4", output]
        }
        let folder = try PictureFolder([("1.png", flatPNG(red)), ("VID_0002.mp4", clip)])
        let result = try job(folder, at: 1).run()
        #expect(result.playlist.map { ($0 as NSString).lastPathComponent } == ["1.png", "VID_0002.mp4"])
        let centre = RGBColor(xrgb: result.frame[960, 540]), expected = RGBColor(xrgb: green)
        #expect(abs(Int(centre.red) - Int(expected.red)) <= 3 && abs(Int(centre.green) - Int(expected.green)) <= 3
                && abs(Int(centre.blue) - Int(expected.blue)) <= 3, "\(centre)")
        #expect(result.frame[100, 540] == red)

        let without = try job(folder, at: 0) { $0.folder.clips = false }.run()
        #expect(without.playlist.map { ($0 as NSString).lastPathComponent } == ["1.png"])
        #expect(without.log.contains { $0.hasSuffix("VID_0002.mp4: a video clip, and video = false") }, "\(without.log)")
    }

    @Test func anEmptyFolderShowsTheBackgroundAndSaysSo() throws {
        let folder = try PictureFolder([("notes.txt", Array("hello".utf8))])
        let result = try job(folder, at: 0).run()
        #expect(Set(result.frame.pixels) == [background.xrgb])
        #expect(result.log.count == 2)
        #expect(result.log.contains { $0.hasSuffix("notes.txt: not a .jpg, .jpeg, .png, .gif, .webp, .heic, .heif, .hif, .avif, .mp4, .mov, .m4v, .mkv or .webm file") })
        #expect(result.log.contains { $0.hasPrefix("no pictures to show in ") })
    }

    @Test func aFolderOfOnlyBrokenFilesShowsTheBackground() throws {
        let folder = try PictureFolder([("a.jpg", [0xFF, 0xD8, 0xFF, 0xE0]), ("b.png", [0x89, 0x50])])
        let result = try job(folder, at: 5).run()
        #expect(result.playlist.isEmpty)
        #expect(Set(result.frame.pixels) == [background.xrgb])
        #expect(result.log.filter { $0.hasPrefix("skipping ") }.count == 2)
    }

    @Test func aLayoutWithNoRoomForNeighboursIsLoggedNotRefused() throws {
        let folder = try PictureFolder([("1.png", flatPNG(red)), ("2.png", flatPNG(green))])
        let result = try job(folder, at: 0) { $0.layout.slotWidth = .pixels(1800); $0.layout.spacing = .pixels(60) }.run()
        #expect(result.log == ["image_width 1800 px and spacing 60 px leave no room for the neighbours on a 1920 px screen: only the centred picture shows at rest"])
        #expect(result.frame[960, 540] == red && result.frame[30, 540] == background.xrgb)
    }

    @Test func invalidGeometryAndMissingFoldersAreClearErrors() throws {
        let folder = try PictureFolder([])
        let wide = expectError(ShowSetupError.self) { try job(folder, at: 0) { $0.layout.slotWidth = .pixels(2000) }.run() }
        #expect(wide?.description == "invalid image_width \"2000\": the slot is wider than the 1920 px screen")
        let missing = expectError(ShowSetupError.self) { try job(folder, at: 0) { $0.images = folder.path + "/nope" }.run() }
        #expect(missing?.description.contains("opendir failed: No such file or directory") == true)
        let none = expectError(ShowSetupError.self) { try job(folder, at: 0) { $0.images = nil }.run() }
        #expect(none?.description.contains("--images") == true)
    }
}

/// `kioskd snapshot --zoom Z --focus X,Y`: the centred picture zoomed, its
/// region decoded again from the file, sharp.
/// An 800x600 photo that ramps across and down with 16 px squares: a zoom
/// that is a blurred scale-up of the fitted picture, or the wrong region, differs from it.
func detailedPhoto() -> RasterImage {
    var image = RasterImage(size: PixelSize(width: 800, height: 600), filledWith: .black)
    for y in 0..<600 {
        for x in 0..<800 { image[x, y] = UInt32(x * 255 / 800) << 16 | UInt32(y * 255 / 600) << 8 | UInt32(((x / 16 + y / 16) % 2) * 180) }
    }
    return image
}

/// The pixels `rect` of `image`, cut by hand.
func cut(_ image: RasterImage, _ rect: PixelRect) -> RasterImage {
    RasterImage(size: rect.size, pixels: (rect.y..<(rect.y + rect.height)).flatMap { row in
        image.pixels[(row * image.width + rect.x)..<(row * image.width + rect.x + rect.width)]
    })
}

@Suite struct ZoomSnapshotTests {

    /// At 480x270 the slot is 336x270 at x = 72 and the photo fits it at
    /// 336x252. Zoomed 2x it would be 672x504: the window shows a quarter
    /// of it, which is the original's region cut and resampled to the window.
    @Test func aZoomedPictureIsTheOriginalsRegionResampled() throws {
        let original = detailedPhoto()
        let folder = try PictureFolder([("a.png", try PNGCodec.encode(original)), ("b.png", try flatPNG(green))])
        func frame(zoom: Double, focus: (x: Double, y: Double) = (0.5, 0.5), maxZoom: Double = 2) throws -> SnapshotJob.Result {
            var settings = pictureSettings(folder)
            settings.input.maxZoom = maxZoom
            var job = SnapshotJob(settings: settings, screen: PixelSize(width: 480, height: 270), position: 0)
            job.zoom = zoom
            job.focus = focus
            return try job.run()
        }
        for focus in [(x: 0.5, y: 0.5), (x: 0.2, y: 0.7)] {
            let zoomed = try frame(zoom: 2, focus: focus)
            #expect(zoomed.log.isEmpty)
            let limits = PictureZoom.Limits(fitted: PixelSize(width: 336, height: 252), original: original.size, maximumZoom: 2)
            let view = PictureZoom.focused(on: focus, scale: 2, limits: limits).view(in: PixelSize(width: 336, height: 270), limits: limits)
            #expect(view.onScreen == PixelRect(x: 0, y: 0, width: 336, height: 270))
            let expected = resample(cut(original, view.region.pixels(of: original.size)), to: view.onScreen.size)
            let window = cut(zoomed.frame, PixelRect(x: 72, y: 0, width: 336, height: 270))
            #expect(window == expected, "focus \(focus)")
            // The neighbours are as they were: green peeks in on the right.
            #expect(zoomed.frame[470, 135] == green)
        }
        // Past max_zoom it is max_zoom; 1x is the plain snapshot.
        #expect(try frame(zoom: 4).frame == (frame(zoom: 2)).frame)
        #expect(try frame(zoom: 1.5, maxZoom: 1).frame == (frame(zoom: 1)).frame)
        #expect(try frame(zoom: 2).frame != (frame(zoom: 1)).frame)
    }
}

