import ImageCodecs
import KioskCore
import KioskRendering
import Testing

/// The offset of the first start-of-frame segment (FFC0..FFC2) in a JPEG.
func startOfFrame(_ jpeg: [UInt8]) -> Int? {
    var i = 2
    while i + 4 < jpeg.count, jpeg[i] == 0xFF {
        let marker = jpeg[i + 1]
        if (0xC0...0xC2).contains(marker) { return i }
        i += 2 + Int(jpeg[i + 2]) << 8 + Int(jpeg[i + 3])
    }
    return nil
}

@Suite struct HostileJPEGTests {
    let loader = PictureLoader(background: .black)
    let slot = PixelSize(width: 1344, height: 1080)
    let teal: UInt32 = 0x20A0A0

    func claimingSize(_ side: UInt16) throws -> [UInt8] {
        var jpeg = try JPEGCodec.encode(solid(64, 64, teal))
        let sof = try #require(startOfFrame(jpeg))
        // SOF: FF Cx, length (2), precision (1), height (2), width (2).
        let bytes = [UInt8(side >> 8), UInt8(side & 0xFF)]
        jpeg.replaceSubrange((sof + 5)..<(sof + 9), with: bytes + bytes)
        return jpeg
    }

    @Test func aHeaderClaiming65535SquaredIsRefusedByTheLibrary() throws {
        let folder = try ScratchFolder()
        let error = #expect(throws: ImageFileError.self) { try loader.load(folder.write("huge.jpg", claimingSize(65535)), fittedTo: slot) }
        #expect(error?.reason == .corrupt("Maximum supported image dimension is 65500 pixels"))
    }

    /// The largest header libjpeg accepts would still need 64 Mpx at 1/8
    /// scale: refused before anything is allocated.
    @Test func aHeaderClaiming65500SquaredIsRefusedBeforeAllocating() throws {
        let folder = try ScratchFolder()
        let error = #expect(throws: ImageFileError.self) { try loader.load(folder.write("huge.jpg", claimingSize(65500)), fittedTo: slot) }
        #expect(error?.reason == .tooLarge(PixelSize(width: 65500, height: 65500)))
        #expect(error?.description.hasSuffix("huge.jpg: the picture is too large to decode (65500x65500 pixels)") == true)
    }

    /// TurboJPEG 2.1 decodes 8-bit samples only; a 12-bit file is refused
    /// with the library's reason, not shown as noise.
    @Test func twelveBitJPEGIsRefusedWithTheReason() throws {
        var jpeg = try JPEGCodec.encode(solid(64, 64, teal))
        let sof = try #require(startOfFrame(jpeg))
        jpeg[sof + 1] = 0xC1    // extended sequential, which allows 12-bit
        jpeg[sof + 4] = 12      // sample precision
        let folder = try ScratchFolder()
        let error = #expect(throws: ImageFileError.self) { try loader.load(folder.write("medical.jpg", jpeg), fittedTo: slot) }
        guard case .corrupt(let message)? = error?.reason else {
            Issue.record("expected the decoder's refusal, got \(String(describing: error))")
            return
        }
        #expect(message.contains("precision"), "got: \(message)")
    }

    @Test func grayscaleJPEGsShowInGrey() throws {
        let folder = try ScratchFolder()
        let path = try folder.write("grey.jpg", JPEGCodec.encode(solid(400, 300, 0x808080), kind: .grayscale))
        let shown = try loader.load(path, fittedTo: slot)
        #expect(shown.size == PixelSize(width: 1344, height: 1008))
        #expect(shown.pixels.allSatisfy { close($0, 0x808080, tolerance: 2) })
    }

    @Test func progressiveJPEGsShow() throws {
        let folder = try ScratchFolder()
        let path = try folder.write("web.jpg", JPEGCodec.encode(solid(400, 300, teal), kind: .progressive))
        #expect(try loader.load(path, fittedTo: slot).pixels.allSatisfy { close($0, teal) })
    }

    /// libjpeg cannot convert CMYK to RGB; kioskd converts the inks itself.
    @Test func cmykJPEGsShowInTheirColours() throws {
        let folder = try ScratchFolder()
        for colour: UInt32 in [teal, 0xE02828, 0x101010, 0xFFFFFF] {
            let path = try folder.write("print-\(colour).jpg", JPEGCodec.encode(solid(64, 48, colour), quality: 98, kind: .cmyk))
            let shown = try loader.load(path, fittedTo: slot)
            #expect(shown.pixels.allSatisfy { close($0, colour, tolerance: 6) }, "colour \(RGBColor(xrgb: colour)) came back \(RGBColor(xrgb: shown[10, 10]))")
        }
    }
}
