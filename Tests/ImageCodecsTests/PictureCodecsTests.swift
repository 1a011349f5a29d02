import ImageCodecs
import KioskCore
import KioskRendering
import SystemCalls
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// An EXIF block (a TIFF, little-endian, without the `Exif\0\0` header)
/// saying the picture was taken at `date` ("YYYY:MM:DD HH:MM:SS") and is
/// turned by `orientation`: IFD0 holds the orientation and a pointer to
/// the Exif IFD, which holds DateTimeOriginal.
func datedEXIF(date: String, orientation: UInt16 = 1) -> [UInt8] {
    func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func u32(_ v: UInt32) -> [UInt8] { u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) }
    let text = Array(date.utf8) + [0]
    let exifIFD: UInt32 = 8 + 2 + 2 * 12 + 4
    let dateAt = exifIFD + 2 + 12 + 4
    return Array("II".utf8) + u16(42) + u32(8)
        + u16(2)
        + u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0)
        + u16(0x8769) + u16(4) + u32(1) + u32(exifIFD)
        + u32(0)
        + u16(1)
        + u16(0x9003) + u16(2) + u32(UInt32(text.count)) + u32(dateAt)
        + u32(0)
        + text
}

/// A JPEG whose EXIF (``datedEXIF(date:orientation:)``) says when it was taken and how it is turned.
func datedJPEG(_ image: RasterImage, date: String, orientation: UInt16 = 1) throws -> [UInt8] {
    let payload = Array("Exif".utf8) + [0, 0] + datedEXIF(date: date, orientation: orientation)
    let length = UInt16(payload.count + 2)
    let plain = try JPEGCodec.encode(image, quality: 95)
    return Array(plain.prefix(2)) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + Array(plain.dropFirst(2))
}

/// A still format as a codec author would add one: binary PPM (`P6`,
/// maxval 255), in one type. It cannot read as it decodes, so it gets
/// the protocol's whole-file read; it has no animation.
enum PPMCodec: PictureCodec {
    static let name = "PPM"
    static let fileExtensions = ["ppm"]

    static func recognises(_ head: borrowing [UInt8]) -> Bool { head.starts(with: Array("P6\n".utf8)) }

    /// "P6\nW H\n255\n" then RGB triples.
    private static func parse(_ bytes: [UInt8], path: String) throws(ImageFileError) -> (size: PixelSize, pixels: ArraySlice<UInt8>) {
        let lines = bytes.split(separator: 0x0A, maxSplits: 3, omittingEmptySubsequences: false)
        guard lines.count == 4, String(decoding: lines[2], as: UTF8.self) == "255" else {
            throw ImageFileError(path: path, reason: .corrupt("not a P6 header with maxval 255"))
        }
        let sides = String(decoding: lines[1], as: UTF8.self).split(separator: " ").compactMap { Int($0) }
        guard sides.count == 2, sides[0] > 0, sides[1] > 0, lines[3].count >= sides[0] * sides[1] * 3 else {
            throw ImageFileError(path: path, reason: .corrupt("the pixels are cut short"))
        }
        return (PixelSize(width: sides[0], height: sides[1]), lines[3])
    }

    static func header(of bytes: [UInt8], path: String, options: DecodeOptions) throws(ImageFileError) -> PictureHeader {
        PictureHeader(storedSize: try parse(bytes, path: path).size)
    }

    static func decode(bytes: consuming [UInt8], path: String, fittedTo slot: PixelSize, options: DecodeOptions) throws(ImageFileError) -> DecodedPicture {
        let whole = try decodeWhole(bytes, path: path)
        return DecodedPicture(picture: resample(whole, to: aspectFitSize(of: whole.size, in: slot)), info: PictureInfo(format: name, originalSize: whole.size))
    }

    static func decodeRegion(
        bytes: consuming [UInt8], path: String, region: PictureRegion, at size: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> RasterImage {
        let whole = try decodeWhole(bytes, path: path)
        return resample(whole.cropped(to: region.pixels(of: whole.size)), to: size)
    }

    private static func decodeWhole(_ bytes: [UInt8], path: String) throws(ImageFileError) -> RasterImage {
        let (size, rgb) = try parse(bytes, path: path)
        let start = rgb.startIndex
        let pixels = (0..<size.pixelCount).map { i -> UInt32 in
            let red = UInt32(rgb[start + 3 * i]), green = UInt32(rgb[start + 3 * i + 1]), blue = UInt32(rgb[start + 3 * i + 2])
            return red << 16 | green << 8 | blue
        }
        return RasterImage(size: size, pixels: pixels)
    }
}

@Suite struct PictureCodecsTests {
    let options = DecodeOptions(background: .black)

    /// One file of each format the registry lists, made by the libraries' own encoders (`cwebp` for WebP, `heif-enc` for HEIF, `avifenc` for AVIF).
    func samples() throws -> [String: [UInt8]] {
        let picture = solid(16, 8, 0x3060C0)
        let folder = try ScratchFolder()
        let png = try folder.write("sample.png", PNGCodec.encode(picture))
        try runTool("cwebp", ["-lossless", png, "-o", folder.path + "/sample.webp"])
        try runTool("heif-enc", [png, "-o", folder.path + "/sample.heic"])
        try runTool("avifenc", ["-s", "10", png, folder.path + "/sample.avif"])
        try runTool("ffmpeg", ["-loglevel", "error", "-i", png, "-c:v", "libx264", "-pix_fmt", "yuv444p", folder.path + "/sample.mp4"])
        return [
            AVIFCodec.name: try readWholeFile(folder.path + "/sample.avif", limit: 1 << 20),
            ClipCodec.name: try readWholeFile(folder.path + "/sample.mp4", limit: 1 << 20),
            HEIFCodec.name: try readWholeFile(folder.path + "/sample.heic", limit: 1 << 20),
            WebPCodec.name: try readWholeFile(folder.path + "/sample.webp", limit: 1 << 20),
            JPEGCodec.name: try JPEGCodec.encode(picture),
            PNGCodec.name: try PNGCodec.encode(picture),
            GIFCodec.name: GIFCodec.encode(
                width: 16, height: 8, palette: [RGBColor(xrgb: 0x3060C0)],
                frames: [GIFCodec.Frame(indices: [UInt8](repeating: 0, count: 128), delay: 10)]),
        ]
    }

    /// Sniffing is by content: each file is claimed by its own codec and by
    /// no other, whatever its name; a text file and an empty one by none.
    @Test func eachFormatIsRecognisedByItsOwnCodecAlone() throws {
        let files = try samples()
        #expect(Set(files.keys) == Set(PictureCodecs.all.map { $0.name }))
        for (format, bytes) in files {
            let head = Array(bytes.prefix(PictureCodecs.sniffLength))
            #expect(PictureCodecs.all.filter { $0.recognises(head) }.map { $0.name } == [format])
        }
        #expect(PictureCodecs.codec(sniffing: Array("hello, this is text".utf8)) == nil)
        #expect(PictureCodecs.codec(sniffing: []) == nil)
    }

    /// What an operator reads: the folder's extensions, the log line for a
    /// file that is not a picture, the note for an empty folder.
    @Test func theFolderAndTheMessagesNameTheRegistrysFormats() throws {
        #expect(PictureCodecs.fileExtensions == ["jpg", "jpeg", "png", "gif", "webp", "heic", "heif", "hif", "avif", "mp4", "mov", "m4v", "mkv", "webm"])
        #expect(PictureCodecs.names == "JPEG, PNG, GIF, WebP, HEIF, AVIF or video clip")
        #expect(PictureCodecs.spokenExtensions(joinedBy: "and") == ".jpg, .jpeg, .png, .gif, .webp, .heic, .heif, .hif, .avif, .mp4, .mov, .m4v, .mkv and .webm")
        let folder = try ScratchFolder()
        let text = try folder.write("notes.jpg", Array("shopping list".utf8))
        let error = expectError(ImageFileError.self) { try PictureLoader(background: .black).load(text, fittedTo: PixelSize(width: 64, height: 64)) }
        #expect(error?.description == "\(text): not a JPEG, PNG, GIF, WebP, HEIF, AVIF or video clip file")
    }

    /// The decoder says what it learnt beside the pixels: the format, the
    /// upright size before fitting (a turned camera photo's sides swapped),
    /// and when the photo was taken.
    @Test func aDecodedPhotoCarriesItsOriginalSizeAndDateTaken() throws {
        let folder = try ScratchFolder()
        let earlier = try folder.write("a.jpg", try datedJPEG(solid(64, 32, 0x808080), date: "2024:05:17 14:30:00", orientation: 6))
        let later = try folder.write("b.jpg", try datedJPEG(solid(64, 32, 0x808080), date: "2024:05:17 15:30:00"))
        let loader = PictureLoader(background: .black)
        let turned = try loader.loadPicture(earlier, fittedTo: PixelSize(width: 40, height: 40))
        #expect(turned.info.format == "JPEG")
        #expect(turned.info.originalSize == PixelSize(width: 32, height: 64))
        #expect(turned.picture.size == PixelSize(width: 20, height: 40))
        let other = try loader.loadPicture(later, fittedTo: PixelSize(width: 40, height: 40))
        #expect(other.info.originalSize == PixelSize(width: 64, height: 32))
        let first = try #require(turned.info.dateTaken), second = try #require(other.info.dateTaken)
        #expect(second - first == 3600)
        // The same answer from bytes already read (the benchmark's path) as from the file read as it decodes.
        let fromBytes = try JPEGCodec.decode(bytes: readWholeFile(earlier, limit: 1 << 20), path: earlier, fittedTo: PixelSize(width: 40, height: 40), options: options)
        #expect(fromBytes.info == turned.info)
        #expect(fromBytes.picture == turned.picture)
        // PNG and GIF have no date; their size is their own. (A clip's info also says what the clip is: ClipCodecTests.)
        for (format, bytes) in try samples() where format != JPEGCodec.name && format != ClipCodec.name {
            let path = try folder.write("sample-\(format)", bytes)
            let info = try loader.loadPicture(path, fittedTo: PixelSize(width: 8, height: 8)).info
            #expect(info == PictureInfo(format: format, originalSize: PixelSize(width: 16, height: 8)))
        }
    }

    /// A new still format is one type: with it, a file decodes, fitted,
    /// from the open file (the protocol reads it whole), and its region
    /// and header are answered; a broken one gets its own error.
    @Test func aNewStillFormatIsOneConformingType() throws {
        let folder = try ScratchFolder()
        var ppm = Array("P6\n4 2\n255\n".utf8)
        for i in 0..<8 { ppm += i % 4 < 2 ? [0xFF, 0, 0] : [0, 0, 0xFF] }
        let path = try folder.write("two.ppm", ppm)
        #expect(PPMCodec.recognises(Array(ppm.prefix(PictureCodecs.sniffLength))))
        #expect(try PPMCodec.header(of: ppm, path: path, options: options).storedSize == PixelSize(width: 4, height: 2))
        let file = try FileDescriptor(opening: path, flags: O_RDONLY)
        let decoded = try PPMCodec.decode(file: file, head: Array(ppm.prefix(16)), path: path, fittedTo: PixelSize(width: 8, height: 8), options: options)
        #expect(decoded.picture.size == PixelSize(width: 8, height: 4))
        #expect(decoded.picture[0, 0] == 0xFF0000 && decoded.picture[7, 3] == 0x0000FF)
        #expect(decoded.info == PictureInfo(format: "PPM", originalSize: PixelSize(width: 4, height: 2)))
        #expect(try PPMCodec.openAnimation(path: path, fittedTo: PixelSize(width: 8, height: 8), options: options) == nil)
        let right = try PPMCodec.decodeRegion(bytes: ppm, path: path, region: PictureRegion(left: 0.5, top: 0, right: 1, bottom: 1), at: PixelSize(width: 2, height: 2), options: options)
        #expect(right.pixels.allSatisfy { $0 == 0x0000FF })
        let cut = Array(ppm.prefix(20))
        let error = expectError(ImageFileError.self) { try PPMCodec.decode(bytes: cut, path: "cut.ppm", fittedTo: PixelSize(width: 8, height: 8), options: options) }
        #expect(error?.description == "cut.ppm: cannot decode: the pixels are cut short")
    }

    /// Only an animated file opens as an animation; a still says why not.
    @Test func aStillHasNoFramesToPlay() throws {
        let folder = try ScratchFolder()
        let png = try folder.write("still.png", try PNGCodec.encode(solid(16, 8, 0x3060C0)))
        let loader = PictureLoader(background: .black)
        let error = expectError(ImageFileError.self) { try loader.openAnimation(png, fittedTo: PixelSize(width: 8, height: 8)) }
        #expect(error?.description == "\(png): the picture has no frames to play")
        let gif = try folder.write("still.gif", try samples()[GIFCodec.name]!)
        #expect(try loader.openAnimation(gif, fittedTo: PixelSize(width: 8, height: 8)).nextFrame == 0)
        #expect(try loader.loadPicture(gif, fittedTo: PixelSize(width: 8, height: 8)).animation == nil)
    }
}

/// The `images` setting's help (in `--help`, the man page and the
/// configuration reference) names the formats in KioskCore's words, which
/// cannot see the registry: it must name every codec the registry has.
@Suite struct ImagesHelpTests {
    @Test func theImagesHelpNamesEveryFormat() throws {
        let help = try #require(KioskSettings.table["images"]).help
        for codec in PictureCodecs.all { #expect(help.contains(codec.name), "\(codec.name) missing from: \(help)") }
        #expect(help.contains("\(PictureCodecs.all.map { $0.name }.dropLast().joined(separator: ", ")) or \(PictureCodecs.all.last!.name)"))
    }
}
