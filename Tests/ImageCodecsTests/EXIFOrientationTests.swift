import ImageCodecs
import KioskCore
import KioskRendering
import Testing

func exifSegment(orientation value: UInt16, bigEndian: Bool = false) -> [UInt8] {
    GeneratedPictures.exifSegment(orientation: value, bigEndian: bigEndian)
}

func cameraJPEG(_ image: RasterImage, orientation: UInt16, bigEndian: Bool = false) throws -> [UInt8] {
    try GeneratedPictures.cameraJPEG(image, orientation: orientation, bigEndian: bigEndian)
}

let red: UInt32 = 0xE02020, green: UInt32 = 0x20E020, blue: UInt32 = 0x2020E0, white: UInt32 = 0xF0F0F0

/// 64x32, four flat 32x16 quadrants (MCU-aligned, so JPEG keeps them flat):
/// top-left red, top-right green, bottom-left blue, bottom-right white.
let quadrants: RasterImage = {
    var image = RasterImage(size: PixelSize(width: 64, height: 32), filledWith: RGBColor(xrgb: red))
    image.fill(x: 32, y: 0, width: 32, height: 16, with: RGBColor(xrgb: green))
    image.fill(x: 0, y: 16, width: 32, height: 16, with: RGBColor(xrgb: blue))
    image.fill(x: 32, y: 16, width: 32, height: 16, with: RGBColor(xrgb: white))
    return image
}()

@Suite struct EXIFOrientationTests {
    @Test(arguments: 1...8)
    func theTagIsRead(value: Int) throws {
        let jpeg = try cameraJPEG(quadrants, orientation: UInt16(value))
        #expect(EXIFOrientation.read(jpeg) == ImageOrientation(rawValue: value))
        let bigEndian = try cameraJPEG(quadrants, orientation: UInt16(value), bigEndian: true)
        #expect(EXIFOrientation.read(bigEndian) == ImageOrientation(rawValue: value))
    }

    @Test func noTagOrANonsenseValueMeansUpright() throws {
        #expect(try EXIFOrientation.read(JPEGCodec.encode(quadrants)) == .upright)
        #expect(try EXIFOrientation.read(cameraJPEG(quadrants, orientation: 9)) == .upright)
        #expect(try EXIFOrientation.read(cameraJPEG(quadrants, orientation: 0)) == .upright)
        #expect(EXIFOrientation.read([0xFF, 0xD8, 0xFF, 0xE1, 0x00]) == .upright)
    }

    /// The upright picture's top-left and top-right colours, and whether it
    /// stands portrait, for each tag: what a phone's gallery shows.
    @Test(arguments: [
        (1, red, green, false), (2, green, red, false), (3, white, blue, false), (4, blue, white, false),
        (5, red, blue, true), (6, blue, red, true), (7, white, green, true), (8, green, white, true),
    ])
    func camerasPhotosAreShownUpright(value: Int, topLeft: UInt32, topRight: UInt32, portrait: Bool) throws {
        let folder = try ScratchFolder()
        let path = try folder.write("photo-\(value).jpg", cameraJPEG(quadrants, orientation: UInt16(value)))
        let shown = try PictureLoader(background: .black).load(path, fittedTo: PixelSize(width: 128, height: 128))
        #expect(shown.size == (portrait ? PixelSize(width: 64, height: 128) : PixelSize(width: 128, height: 64)))
        let w = shown.width
        #expect(nearlyEqual(shown[4, 4], topLeft, tolerance: 12), "top-left \(RGBColor(xrgb: shown[4, 4]))")
        #expect(nearlyEqual(shown[w - 5, 4], topRight, tolerance: 12), "top-right \(RGBColor(xrgb: shown[w - 5, 4]))")
    }

    @Test func exifRotateOffKeepsTheStoredPixels() throws {
        let folder = try ScratchFolder()
        let path = try folder.write("photo.jpg", cameraJPEG(quadrants, orientation: 6))
        let shown = try PictureLoader(background: .black, exifRotate: false).load(path, fittedTo: PixelSize(width: 128, height: 128))
        #expect(shown.size == PixelSize(width: 128, height: 64))
        #expect(nearlyEqual(shown[4, 4], red, tolerance: 12))
    }
}
