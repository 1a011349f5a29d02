import Foundation
import ImageCodecs
import KioskCore
import KioskRendering
import SystemCalls
import TestSupport
import Testing

/// A fresh folder under the system's temporary directory, removed afterwards.
final class ScratchFolder {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "kioskd-codecs-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let file = path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }
}

func solid(_ width: Int, _ height: Int, _ xrgb: UInt32) -> RasterImage {
    RasterImage(size: PixelSize(width: width, height: height), filledWith: RGBColor(xrgb: xrgb))
}

/// `count` copies of `file`, each with one to four bytes past its first 12
/// (the container's signature) changed: the same copies every run (a fixed
/// generator from `seed`), for the hostile-file tests.
func damagedCopies(of file: [UInt8], count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [[UInt8]] {
    var random = seed
    func next(_ bound: Int) -> Int {
        random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int(random >> 33) % bound
    }
    return (0..<count).map { _ in
        var copy = file
        for _ in 0...next(4) { copy[12 + next(file.count - 12)] = UInt8(next(256)) }
        return copy
    }
}

/// Every prefix of `whole`, and `count` copies with bytes changed, loaded
/// as the file `name` into `slot`: each shown, or refused with one readable
/// line naming the file, in the library's own words (a libheif message read
/// after its context was freed once came out as garbage, and some of its
/// messages end in a newline).
func expectCutAndDamagedCopiesShownOrRefusedByName(
    _ whole: [UInt8], name: String, slot: PixelSize, count: Int, loader: PictureLoader,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    func decode(_ bytes: [UInt8]) {
        do { _ = try loader.load(bytes: bytes, path: name, fittedTo: slot) } catch {
            #expect(error.description.hasPrefix(name + ": "), "\(error)", sourceLocation: sourceLocation)
            #expect(error.description.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || $0.isASCII && $0.value >= 0x20 }, "\(error)",
                    sourceLocation: sourceLocation)
        }
    }
    for length in 1..<whole.count { decode(Array(whole.prefix(length))) }
    damagedCopies(of: whole, count: count).forEach(decode)
}

/// RGBA samples for `size`: colour ramps, alpha from 0 at the left edge to
/// opaque from x = 32 on (the alpha tests of the phone formats).
func transparencyRamp(_ size: PixelSize) -> [UInt8] {
    var rgba = [UInt8]()
    for y in 0..<size.height {
        for x in 0..<size.width { rgba += [UInt8(x * 4), UInt8(y * 6), 200, UInt8(min(255, x * 8))] }
    }
    return rgba
}

/// JPEG is lossy: flat colours come back within a few levels.
func nearlyEqual(_ a: UInt32, _ b: UInt32, tolerance: Int = 4) -> Bool {
    let x = RGBColor(xrgb: a), y = RGBColor(xrgb: b)
    return abs(Int(x.red) - Int(y.red)) <= tolerance && abs(Int(x.green) - Int(y.green)) <= tolerance
        && abs(Int(x.blue) - Int(y.blue)) <= tolerance
}

/// How far two pictures of one size are apart, channel by channel: the
/// mean and the largest difference in levels (a decoder against its
/// format's reference tool).
func channelDifferences(_ a: RasterImage, _ b: RasterImage) -> (mean: Double, worst: Int) {
    precondition(a.size == b.size, "\(a.size) against \(b.size)")
    var total = 0, worst = 0
    for (p, q) in zip(a.pixels, b.pixels) {
        for shift: UInt32 in [16, 8, 0] {
            let d = abs(Int((p >> shift) & 0xFF) - Int((q >> shift) & 0xFF))
            total += d
            worst = max(worst, d)
        }
    }
    return (Double(total) / Double(max(1, a.pixels.count * 3)), worst)
}

@Suite struct JPEGTests {
    let factors = JPEGCodec.scalingFactors

    @Test func libjpegTurboOffersEighthsDownToOneEighth() {
        #expect(factors.contains(JPEGCodec.ScalingFactor(num: 1, denom: 8)))
        #expect(factors.contains(JPEGCodec.ScalingFactor(num: 1, denom: 1)))
    }

    @Test func choosesTheSmallestDecodeStillAtLeastTheSlot() {
        let camera = PixelSize(width: 6000, height: 4000)   // 24 Mpx
        // Fitted into a 1344x1080 slot: 1344x896. 1/4 gives 1500x1000; 1/8 (750x500) is too small.
        #expect(JPEGCodec.scalingFactor(for: camera, atLeast: PixelSize(width: 1344, height: 896))
                == JPEGCodec.ScalingFactor(num: 1, denom: 4))
        // 3/8 of 4000x3000 is 1500x1125, enough for 1344x1008; 1/4 (1000x750) is not.
        #expect(JPEGCodec.scalingFactor(for: PixelSize(width: 4000, height: 3000), atLeast: PixelSize(width: 1344, height: 1008))
                == JPEGCodec.ScalingFactor(num: 3, denom: 8))
        #expect(JPEGCodec.scalingFactor(for: PixelSize(width: 1344, height: 1008), atLeast: PixelSize(width: 1344, height: 1008))
                == JPEGCodec.ScalingFactor(num: 1, denom: 1))
        // Smaller than the slot: full size, never an upscaling DCT factor.
        #expect(JPEGCodec.scalingFactor(for: PixelSize(width: 100, height: 80), atLeast: PixelSize(width: 1344, height: 1075))
                == JPEGCodec.ScalingFactor(num: 1, denom: 1))
    }

    @Test func decodesAtTheChosenScaleInDisplayPixelOrder() throws {
        let jpeg = try JPEGCodec.encode(solid(1600, 1200, 0xE02828))
        #expect(try JPEGCodec.size(of: jpeg, path: "x.jpg") == PixelSize(width: 1600, height: 1200))
        let decoded = try JPEGCodec.decode(jpeg, path: "x.jpg", minimumSize: PixelSize(width: 400, height: 300), maximumPixels: 1 << 26)
        #expect(decoded.size == PixelSize(width: 400, height: 300))
        #expect(decoded.pixels.allSatisfy { nearlyEqual($0, 0xE02828) })
    }

    /// The row-by-row decode the loader uses gives exactly the pixels of
    /// the whole picture decoded and then resampled, for every kind of JPEG
    /// and orientation, at sizes that pick different DCT scales: the rows
    /// reach the resampler whole, in order, none missing or repeated.
    @Test(arguments: [JPEGCodec.EncodingKind.colour, .grayscale, .progressive, .cmyk])
    func decodingRowByRowIsDecodingWholeThenResampling(_ kind: JPEGCodec.EncodingKind) throws {
        let jpeg = try JPEGCodec.encode(GeneratedPictures.photo(PixelSize(width: 1200, height: 800), variant: 3), quality: 90, kind: kind)
        for (fitted, orientation) in [(PixelSize(width: 700, height: 466), ImageOrientation.upright), (PixelSize(width: 290, height: 437), .turnedClockwise),
                                      (PixelSize(width: 151, height: 99), .upsideDown), (PixelSize(width: 1300, height: 1951), .turnedCounterClockwise)] {
            let stored = orientation.swapsSides ? PixelSize(width: fitted.height, height: fitted.width) : fitted
            let whole = try JPEGCodec.decode(jpeg, path: "x.jpg", minimumSize: stored, maximumPixels: 1 << 26)
            let rows = try JPEGCodec.decode(jpeg, path: "x.jpg", fittedTo: fitted, turning: orientation, maximumPixels: 1 << 26)
            #expect(rows == resample(whole, to: fitted, turning: orientation), "\(kind) at \(fitted), \(orientation)")
        }
    }

    @Test func decodingRowByRowRefusesHugePicturesBeforeDecoding() throws {
        let jpeg = try JPEGCodec.encode(solid(64, 64, 0x808080))
        let error = expectError(ImageFileError.self) {
            try JPEGCodec.decode(jpeg, path: "big.jpg", fittedTo: PixelSize(width: 64, height: 64), turning: .upright, maximumPixels: 64 * 63)
        }
        #expect(error?.reason == .tooLarge(PixelSize(width: 64, height: 64)))
    }

    @Test func refusesHugePicturesBeforeAllocating() throws {
        let jpeg = try JPEGCodec.encode(solid(64, 64, 0x808080))
        let error = expectError(ImageFileError.self) {
            try JPEGCodec.decode(jpeg, path: "big.jpg", minimumSize: nil, maximumPixels: 64 * 63)
        }
        #expect(error?.reason == .tooLarge(PixelSize(width: 64, height: 64)))
    }
}

@Suite struct PNGTests {
    @Test func roundTripsExactly() throws {
        var image = solid(31, 17, 0x102030)
        image[5, 6] = 0xFFEEDD
        let png = try PNGCodec.encode(image)
        #expect(try PNGCodec.size(of: png, path: "a.png") == image.size)
        #expect(try PNGCodec.decode(png, path: "a.png", background: .black, maximumPixels: 1 << 20) == image)
    }

    @Test func refusesHugePicturesBeforeAllocating() throws {
        let png = try PNGCodec.encode(solid(100, 100, 0))
        let error = expectError(ImageFileError.self) {
            try PNGCodec.decode(png, path: "big.png", background: .black, maximumPixels: 9_999)
        }
        #expect(error?.reason == .tooLarge(PixelSize(width: 100, height: 100)))
    }
}

@Suite struct PictureLoaderTests {
    let loader = PictureLoader(background: .black)
    let slot = PixelSize(width: 1344, height: 1080)

    @Test func loadsJPEGFittedToTheSlot() throws {
        let folder = try ScratchFolder()
        let path = try folder.write("a.jpg", JPEGCodec.encode(solid(4000, 3000, 0x2828E0)))
        let picture = try loader.load(path, fittedTo: slot)
        #expect(picture.size == PixelSize(width: 1344, height: 1008))
        #expect(nearlyEqual(picture[0, 0], 0x2828E0) && nearlyEqual(picture[1343, 1007], 0x2828E0))
    }

    @Test func recognisesFilesByContentNotName() throws {
        let folder = try ScratchFolder()
        let path = try folder.write("really-a-png.jpg", PNGCodec.encode(solid(20, 10, 0x00FF00)))
        #expect(try loader.load(path, fittedTo: slot) == solid(1344, 672, 0x00FF00))
    }

    @Test func anEmptyFileIsReportedAsEmpty() throws {
        let folder = try ScratchFolder()
        let error = expectError(ImageFileError.self) { try loader.load(folder.write("empty.jpg", []), fittedTo: slot) }
        #expect(error?.reason == .empty)
        #expect(error?.description.hasSuffix("empty.jpg: the file is empty") == true)
    }

    @Test func randomBytesAreNotAPicture() throws {
        let folder = try ScratchFolder()
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<4096).map { _ in UInt8.random(in: 1...255, using: &generator) }
        let error = expectError(ImageFileError.self) { try loader.load(folder.write("noise.jpg", noise), fittedTo: slot) }
        #expect(error?.reason == .notAnImage)
    }

    @Test func aTruncatedJPEGIsRefusedWithTheDecodersReason() throws {
        let folder = try ScratchFolder()
        let whole = try JPEGCodec.encode(solid(640, 480, 0xE02828))
        let path = try folder.write("half-copied.jpg", Array(whole.prefix(whole.count / 2)))
        let error = expectError(ImageFileError.self) { try loader.load(path, fittedTo: slot) }
        guard case .corrupt(let message)? = error?.reason else {
            Issue.record("expected a decoder error, got \(String(describing: error))")
            return
        }
        #expect(!message.isEmpty)
        #expect(error?.description.contains("half-copied.jpg: cannot decode:") == true)
    }

    /// A JPEG loaded from its file is read as it is decoded, never whole;
    /// it gives exactly the picture, or the error, of the same bytes read
    /// whole first: every kind of JPEG, turned by EXIF or not, cut short
    /// in its data or in its header, or with a frame header 300 KB in.
    @Test(arguments: [JPEGCodec.EncodingKind.colour, .grayscale, .progressive, .cmyk])
    func aJPEGReadFromItsFileIsTheJPEGReadWhole(_ kind: JPEGCodec.EncodingKind) throws {
        let folder = try ScratchFolder()
        let photo = GeneratedPictures.photo(PixelSize(width: 1200, height: 800), variant: 5)
        let plain = try JPEGCodec.encode(photo, quality: 90, kind: kind)
        let turned = Array(plain.prefix(2)) + exifSegment(orientation: 6) + Array(plain.dropFirst(2))
        // An APP2 segment of 300 KB before the frame: the header is past the first read.
        let padding = (0..<5).flatMap { _ in [0xFF, 0xE2, 0xFF, 0xF0] + [UInt8](repeating: 0x41, count: 0xFFEE) }
        let late = Array(plain.prefix(2)) + padding + Array(plain.dropFirst(2))
        let files = [("plain.jpg", plain), ("turned.jpg", turned), ("late-header.jpg", late),
                     ("cut.jpg", Array(plain.prefix(plain.count * 2 / 3))), ("cut-header.jpg", Array(plain.prefix(100)))]
        for (name, bytes) in files {
            let path = try folder.write(name, bytes)
            let whole = Result { () throws(ImageFileError) in try loader.load(bytes: readWholeFile(path, limit: 1 << 24), path: path, fittedTo: slot) }
            let streamed = Result { () throws(ImageFileError) in try loader.load(path, fittedTo: slot) }
            switch (whole, streamed) {
            case (.success(let a), .success(let b)):
                let samePixels = a == b   // (not inside #expect: it would print every pixel)
                #expect(samePixels, "\(kind) \(name)")
                #expect(b.size == (name == "turned.jpg" ? PixelSize(width: 720, height: 1080) : PixelSize(width: 1344, height: 896)), "\(kind) \(name)")
            case (.failure(let a), .failure(let b)):
                #expect(name.hasPrefix("cut"), "\(kind) \(name): \(b)")
                #expect(b.description.hasPrefix(path + ": cannot decode: "), "\(kind) \(name): \(b)")
                if name == "cut.jpg" { #expect(a == b, "\(kind) \(name)") }
            default:
                Issue.record("\(kind) \(name): read whole \(whole), read as decoded \(streamed)")
            }
        }
    }

    @Test func aJPEGCutInsideItsHeaderIsRefused() throws {
        let folder = try ScratchFolder()
        let whole = try JPEGCodec.encode(solid(64, 64, 0xE02828))
        let error = expectError(ImageFileError.self) {
            try loader.load(folder.write("stub.jpg", Array(whole.prefix(40))), fittedTo: slot)
        }
        #expect(error != nil)
    }

    @Test func aMissingFileNamesTheCallAndErrno() throws {
        let error = expectError(ImageFileError.self) { try loader.load("/nonexistent/kioskd/x.jpg", fittedTo: slot) }
        #expect(error?.reason == .system(SystemCallError("open", errno: ENOENT)))
        #expect(error?.description.contains("No such file or directory") == true)
    }
}
