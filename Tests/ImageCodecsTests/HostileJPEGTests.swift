import Foundation
import ImageCodecs
import KioskCore
import KioskRendering
import TestSupport
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
        let error = expectError(ImageFileError.self) { try loader.load(folder.write("huge.jpg", claimingSize(65535)), fittedTo: slot) }
        #expect(error?.reason == .corrupt("Maximum supported image dimension is 65500 pixels"))
    }

    /// The largest header libjpeg accepts would still need 64 Mpx at 1/8
    /// scale: refused before anything is allocated.
    @Test func aHeaderClaiming65500SquaredIsRefusedBeforeAllocating() throws {
        let folder = try ScratchFolder()
        let error = expectError(ImageFileError.self) { try loader.load(folder.write("huge.jpg", claimingSize(65500)), fittedTo: slot) }
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
        let error = expectError(ImageFileError.self) { try loader.load(folder.write("medical.jpg", jpeg), fittedTo: slot) }
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
        #expect(shown.pixels.allSatisfy { nearlyEqual($0, 0x808080, tolerance: 2) })
    }

    @Test func progressiveJPEGsShow() throws {
        let folder = try ScratchFolder()
        let path = try folder.write("web.jpg", JPEGCodec.encode(solid(400, 300, teal), kind: .progressive))
        #expect(try loader.load(path, fittedTo: slot).pixels.allSatisfy { nearlyEqual($0, teal) })
    }

    /// libjpeg cannot convert CMYK to RGB; kioskd converts the inks itself.
    @Test func cmykJPEGsShowInTheirColours() throws {
        let folder = try ScratchFolder()
        for colour: UInt32 in [teal, 0xE02828, 0x101010, 0xFFFFFF] {
            let path = try folder.write("print-\(colour).jpg", JPEGCodec.encode(solid(64, 48, colour), quality: 98, kind: .cmyk))
            let shown = try loader.load(path, fittedTo: slot)
            #expect(shown.pixels.allSatisfy { nearlyEqual($0, colour, tolerance: 6) }, "colour \(RGBColor(xrgb: colour)) came back \(RGBColor(xrgb: shown[10, 10]))")
        }
    }
}

/// Which libjpeg warnings still show the photo, and arithmetic coding.
@Suite struct JPEGWarningTests {
    let slot = PixelSize(width: 1344, height: 1080)

    /// Stray bytes before the end marker, as some phones write: libjpeg warns
    /// "extraneous bytes", the picture is whole, and it is shown.
    @Test func strayBytesBeforeAMarkerStillShowThePhoto() throws {
        let whole = try JPEGCodec.encode(solid(640, 480, 0x2828E0))
        #expect(whole.suffix(2) == [0xFF, 0xD9])
        let padded: [UInt8] = Array(whole.prefix(whole.count - 2)) + [0x12, 0x34, 0x56, 0xFF, 0xD9]
        let picture = try PictureLoader(background: .black).load(bytes: Array(padded), path: "phone.jpg", fittedTo: slot)
        #expect(picture.size == PixelSize(width: 1344, height: 1008))
        #expect(nearlyEqual(picture[672, 504], 0x2828E0) && nearlyEqual(picture[1343, 1007], 0x2828E0))
    }

    @Test func onlyWarningsThatLeaveThePictureWholeAreHarmless() {
        #expect(JPEGCodec.isHarmless("Corrupt JPEG data: 3 extraneous bytes before marker 0xd9"))
        #expect(JPEGCodec.isHarmless("Corrupt JPEG data: bad ICC marker"))
        #expect(!JPEGCodec.isHarmless("Premature end of JPEG file"))
        #expect(!JPEGCodec.isHarmless("Corrupt JPEG data: premature end of data segment"))
    }

    /// A half-copied file: the data ends early, and the photo is skipped
    /// rather than shown with a grey bottom half.
    @Test func aTruncatedFileIsRefusedAsPrematureEnd() throws {
        let whole = try JPEGCodec.encode(GeneratedPictures.photo(PixelSize(width: 640, height: 480)))
        let error = expectError(ImageFileError.self) {
            try PictureLoader(background: .black).load(bytes: Array(whole.prefix(whole.count / 2)), path: "half.jpg", fittedTo: slot)
        }
        #expect(error?.description == "half.jpg: cannot decode: Premature end of JPEG file")
    }

    /// Arithmetic-coded JPEGs (rare, but legal, and some tools write them):
    /// TurboJPEG 2.1 cannot write one, so jpegtran recodes a baseline file.
    @Test func arithmeticCodedJPEGsDecode() throws {
        let folder = try ScratchFolder()
        let baseline = try folder.write("baseline.jpg", JPEGCodec.encode(solid(320, 240, 0xE0E028), quality: 95))
        let arithmetic = folder.path + "/arithmetic.jpg"
        let jpegtran = Process()
        jpegtran.executableURL = URL(fileURLWithPath: "/usr/bin/jpegtran")
        jpegtran.arguments = ["-arithmetic", "-outfile", arithmetic, baseline]
        try jpegtran.run()
        jpegtran.waitUntilExit()
        #expect(jpegtran.terminationStatus == 0)
        let bytes = try readWholeFile(arithmetic, limit: 1 << 20)
        #expect(zip(bytes, bytes.dropFirst()).contains { $0.0 == 0xFF && $0.1 == 0xC9 })   // SOF9: arithmetic, sequential
        let picture = try PictureLoader(background: .black).load(arithmetic, fittedTo: slot)
        #expect(picture.size == PixelSize(width: 1344, height: 1008))
        #expect(nearlyEqual(picture[672, 504], 0xE0E028))
    }
}

/// A zoom's region decoded alone (libjpeg's own API through `CLibJPEG`):
/// the files a kiosk meets give their colours or a clear error, as a whole
/// decode does, and mangled ones never crash it.
@Suite struct JPEGRegionDecodeTests {
    let middle = PictureRegion(left: 0.25, top: 0.25, right: 0.75, bottom: 0.75)
    let loader = PictureLoader(background: .black)

    @Test func greyProgressiveAndCMYKRegionsKeepTheirColours() throws {
        let folder = try ScratchFolder()
        let files: [(String, [UInt8], UInt32)] = [
            ("grey.jpg", try JPEGCodec.encode(solid(400, 300, 0x808080), kind: .grayscale), 0x808080),
            ("web.jpg", try JPEGCodec.encode(solid(400, 300, 0x28A0A0), kind: .progressive), 0x28A0A0),
            ("print.jpg", try JPEGCodec.encode(solid(400, 300, 0xE02828), quality: 98, kind: .cmyk), 0xE02828),
        ]
        for (name, bytes, colour) in files {
            let region = try loader.loadRegion(try folder.write(name, bytes), region: middle, at: PixelSize(width: 150, height: 110))
            #expect(region.size == PixelSize(width: 150, height: 110))
            #expect(region.pixels.allSatisfy { nearlyEqual($0, colour, tolerance: 6) }, "\(name): \(RGBColor(xrgb: region[75, 55]))")
        }
    }

    /// A half-copied file whose region lies past where its data ends is
    /// refused as the whole decode refuses it; a region above that still shows.
    @Test func aTruncatedFilesRegionIsRefusedAsPrematureEnd() throws {
        let folder = try ScratchFolder()
        let whole = try JPEGCodec.encode(GeneratedPictures.photo(PixelSize(width: 640, height: 480)))
        let path = try folder.write("half.jpg", Array(whole.prefix(whole.count / 2)))
        let error = expectError(ImageFileError.self) {
            try loader.loadRegion(path, region: PictureRegion(left: 0, top: 0.6, right: 0.5, bottom: 1), at: PixelSize(width: 320, height: 192))
        }
        #expect(error?.description == "\(path): cannot decode: Premature end of JPEG file")
        let top = try loader.loadRegion(path, region: PictureRegion(left: 0, top: 0, right: 0.5, bottom: 0.2), at: PixelSize(width: 320, height: 96))
        #expect(top.size == PixelSize(width: 320, height: 96))
    }

    /// A bounded fuzz run: 400 copies of a small photo, each with up to 8
    /// bytes changed, cut short or both, decoded whole from the file (read
    /// as it is decoded) and in a region: each gives a picture of the size
    /// asked for or an error naming the file, never a crash.
    @Test func mangledFilesGiveAPictureOrAnError() throws {
        let folder = try ScratchFolder()
        let original = try JPEGCodec.encode(GeneratedPictures.photo(PixelSize(width: 320, height: 240)), kind: .colour)
        // Knuth's MMIX LCG, its high bits: reproducible runs.
        var state: UInt64 = 16
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        var refused = 0, refusedWhole = 0
        for round in 0..<400 {
            var bytes = original
            for _ in 0...Int(next() % 8) {
                bytes[Int(next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: next())
            }
            if round % 3 == 0 { bytes = Array(bytes.prefix(Int(next() % UInt64(bytes.count)))) }
            let path = try folder.write("mangled.jpg", bytes)
            do {
                let whole = try loader.load(path, fittedTo: PixelSize(width: 160, height: 160))
                #expect(whole.size == PixelSize(width: 160, height: 120))
            } catch {
                refusedWhole += 1
                #expect(error.path == path && !error.why.isEmpty)
            }
            do {
                let region = try loader.loadRegion(path, region: middle, at: PixelSize(width: 80, height: 60))
                #expect(region.size == PixelSize(width: 80, height: 60))
            } catch {
                refused += 1
                #expect(error.path == path && !error.why.isEmpty)
            }
        }
        #expect(refused > 0 && refused < 400, "\(refused) refused")
        #expect(refusedWhole > 0 && refusedWhole < 400, "\(refusedWhole) refused whole")
    }
}
