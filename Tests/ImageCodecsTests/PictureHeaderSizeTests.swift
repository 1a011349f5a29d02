import ImageCodecs
import KioskCore
import KioskRendering
import TestSupport
import Testing

/// `portrait_pairs` reads each file's upright size from its header alone,
/// and draws a pair's two pictures side by side in one slot.
@Suite struct PictureHeaderSizeTests {
    let loader = PictureLoader(background: RGBColor(xrgb: 0x202020))

    @Test func sizesComeFromTheHeaderUprightForCameraJPEGs() throws {
        let folder = try ScratchFolder()
        let jpeg = try folder.write("a.jpg", JPEGCodec.encode(solid(64, 48, 0x808080), quality: 90))
        let png = try folder.write("b.png", PNGCodec.encode(solid(30, 40, 0x808080)))
        let gif = try folder.write("c.gif", GIFCodec.encode(
            width: 50, height: 20, palette: [RGBColor(xrgb: 0x808080)], frames: [GIFCodec.Frame(indices: [UInt8](repeating: 0, count: 1000), delay: 0)]))
        // Orientation 6 (turn 90 clockwise): stored 64x48, shown 48x64, a portrait.
        let turned = try folder.write("d.jpg", GeneratedPictures.cameraJPEG(solid(64, 48, 0x808080), orientation: 6))
        #expect(try loader.uprightSize(of: jpeg) == PixelSize(width: 64, height: 48))
        #expect(try loader.uprightSize(of: png) == PixelSize(width: 30, height: 40))
        #expect(try loader.uprightSize(of: gif) == PixelSize(width: 50, height: 20))
        #expect(try loader.uprightSize(of: turned) == PixelSize(width: 48, height: 64))
        var unturned = loader
        unturned.exifRotate = false
        #expect(try unturned.uprightSize(of: turned) == PixelSize(width: 64, height: 48))
    }

    /// A JPEG whose frame header comes after 200 KB of other segments (a
    /// large embedded thumbnail) is measured from the whole file.
    @Test func aFrameHeaderPastTheFirstReadIsStillFound() throws {
        let folder = try ScratchFolder()
        let plain = try JPEGCodec.encode(solid(40, 60, 0x808080), quality: 90)
        // Four 50 KB APP2 segments (65,533 bytes of payload at most each) between SOI and the rest.
        let segment: [UInt8] = [0xFF, 0xE2, 0xC3, 0x52] + [UInt8](repeating: 0x41, count: 50_000)
        let padded = try folder.write("big.jpg", Array(plain.prefix(2)) + Array([[UInt8]](repeating: segment, count: 4).joined()) + Array(plain.dropFirst(2)))
        #expect(try loader.uprightSize(of: padded) == PixelSize(width: 40, height: 60))
    }

    @Test func unreadableHeadersSayWhy() throws {
        let folder = try ScratchFolder()
        let text = try folder.write("notes.jpg", Array("just some text".utf8))
        let empty = try folder.write("empty.png", [])
        #expect(throws: ImageFileError(path: text, reason: .notAnImage)) { try loader.uprightSize(of: text) }
        #expect(throws: ImageFileError(path: empty, reason: .empty)) { try loader.uprightSize(of: empty) }
        #expect(throws: ImageFileError.self) { try loader.uprightSize(of: folder.path + "/missing.jpg") }
    }

    /// Two 3:4 pictures in a 1344x1080 slot, 38 apart: each gets 652x870
    /// (``PortraitPairs/sideBySide(_:_:slot:spacing:)``) and is fitted into
    /// it keeping its shape, 652x869 (400 x 652/300 = 869.3); the gap
    /// between them is the background, the whole 1,342 wide.
    @Test func aPairIsBothPicturesAtOneHeightWithTheGapBetween() throws {
        let folder = try ScratchFolder()
        let left = try folder.write("l.png", PNGCodec.encode(solid(300, 400, 0xE02828)))
        let right = try folder.write("r.png", PNGCodec.encode(solid(600, 800, 0x2828E0)))
        let pair = try loader.loadPair(left, right, fittedTo: PixelSize(width: 1344, height: 1080), spacing: 38)
        #expect(pair.size == PixelSize(width: 1342, height: 869))
        #expect(pair[0, 0] == 0xE02828 && pair[651, 868] == 0xE02828)
        #expect(pair[652, 435] == 0x202020 && pair[689, 435] == 0x202020)
        #expect(pair[690, 0] == 0x2828E0 && pair[1341, 868] == 0x2828E0)
        // A broken file is named in the error.
        let broken = try folder.write("b.png", Array(PNGCodec.encode(solid(300, 400, 0)).prefix(60)))
        let error = expectError(ImageFileError.self) { try loader.loadPair(left, broken, fittedTo: PixelSize(width: 1344, height: 1080), spacing: 38) }
        #expect(error?.path == broken)
    }
}
