import CGIF
import KioskCore
import KioskRendering
import SystemCalls

/// GIF through giflib's low-level API (``GIFReader``): the header, the
/// first frame as a picture, and an encoder for the tests' files. Playing
/// every frame is ``GIFAnimation``'s work.
///
/// A GIF shows on the logical screen the file declares: each image at its
/// offset, the rest and any transparent pixels in the kiosk's background
/// colour (what browsers do; the file's own background index is ignored,
/// as they ignore it).
public enum GIFCodec {
    /// The logical screen's size, from the header.
    public static func size(of gif: [UInt8], path: String) throws(ImageFileError) -> PixelSize {
        try GIFReader(GIFBytes(gif), path: path).screen
    }

    /// The first image on its logical screen at full size, transparency
    /// onto `background`. Decoding stops after it: a 500-frame file costs one frame.
    public static func decodeFirstFrame(
        _ gif: [UInt8], path: String, background: RGBColor, maximumPixels: Int
    ) throws(ImageFileError) -> RasterImage {
        try GIFAnimation(bytes: gif, path: path, background: background, fittedTo: nil, maximumPixels: maximumPixels).decodeNext()
    }

    /// One frame for ``encode(width:height:palette:frames:)``: palette
    /// indices, row by row, for the whole logical screen.
    public struct Frame: Sendable {
        public var indices: [UInt8]
        /// Hundredths of a second.
        public var delay: Int
        public var transparentIndex: Int?
        public var interlaced: Bool
        /// The image's place on the screen; nil: the whole screen.
        public var rect: (left: Int, top: Int, width: Int, height: Int)?
        /// The disposal method: 1 keep, 2 background, 3 previous.
        public var disposal: Int

        public init(
            indices: [UInt8], delay: Int = 10, transparentIndex: Int? = nil, interlaced: Bool = false,
            rect: (left: Int, top: Int, width: Int, height: Int)? = nil, disposal: Int = 1
        ) {
            self.indices = indices
            self.delay = delay
            self.transparentIndex = transparentIndex
            self.interlaced = interlaced
            self.rect = rect
            self.disposal = disposal
        }
    }

    /// A GIF89a of `frames` (each the whole screen unless it says where it
    /// goes), with one global `palette` (up to 256 colours) and, if
    /// `loops` is given, a NETSCAPE2.0 loop count (0: for ever). For tests
    /// and demo pictures.
    public static func encode(width: Int, height: Int, palette: [RGBColor], frames: [Frame], loops: Int? = nil) -> [UInt8] {
        encode(width: width, height: height, palette: palette, frameCount: frames.count, loops: loops) { frames[$0] }
    }

    /// The same, each frame made when it is written (a long animation is never whole in memory).
    public static func encode(
        width: Int, height: Int, palette: [RGBColor], frameCount: Int, loops: Int? = nil, frame makeFrame: (Int) -> Frame
    ) -> [UInt8] {
        precondition(!palette.isEmpty && palette.count <= 256)
        // Only the tests, the demo pictures and the benchmark write GIFs.
        do throws(MissingLibrary) { try OnDemandLibrary.gif.open() } catch { fatalError("\(error)") }
        let writer = Writer()
        var error: Int32 = 0
        guard let gif = EGifOpen(Unmanaged.passUnretained(writer).toOpaque(), { file, bytes, count in
            guard let file, let bytes, count > 0 else { return 0 }
            Unmanaged<Writer>.fromOpaque(file.pointee.UserData).takeUnretainedValue().bytes.append(contentsOf: UnsafeBufferPointer(start: bytes, count: Int(count)))
            return count
        }, &error) else { return [] }
        // A power of two as giflib wants, padded with black.
        var size = 2
        while size < palette.count { size *= 2 }
        let colours = (0..<size).map { i in
            let colour = i < palette.count ? palette[i] : .black
            return GifColorType(Red: colour.red, Green: colour.green, Blue: colour.blue)
        }
        let map = colours.withUnsafeBufferPointer { GifMakeMapObject(Int32(size), $0.baseAddress) }
        defer { GifFreeMapObject(map) }
        EGifSetGifVersion(gif, true)
        EGifPutScreenDesc(gif, Int32(width), Int32(height), 8, 0, map)
        if let loops {
            EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE)
            EGifPutExtensionBlock(gif, 11, Array("NETSCAPE2.0".utf8))
            EGifPutExtensionBlock(gif, 3, [1, UInt8(loops & 0xFF), UInt8(loops >> 8 & 0xFF)])
            EGifPutExtensionTrailer(gif)
        }
        for number in 0..<frameCount {
            let frame = makeFrame(number)
            precondition(frame.indices.count == (frame.rect.map { $0.width * $0.height } ?? width * height))
            var control = GraphicsControlBlock(
                DisposalMode: Int32(frame.disposal), UserInputFlag: false, DelayTime: Int32(frame.delay),
                TransparentColor: Int32(frame.transparentIndex ?? Int(NO_TRANSPARENT_COLOR)))
            var extensionBytes = [GifByteType](repeating: 0, count: 4)
            let length = EGifGCBToExtension(&control, &extensionBytes)
            EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, Int32(length), extensionBytes)
            let rect = frame.rect ?? (0, 0, width, height)
            EGifPutImageDesc(gif, Int32(rect.left), Int32(rect.top), Int32(rect.width), Int32(rect.height), frame.interlaced, nil)
            // An interlaced image is written in its four passes' row order.
            for y in rowOrder(height: rect.height, interlaced: frame.interlaced) {
                var row = Array(frame.indices[(y * rect.width)..<((y + 1) * rect.width)])
                EGifPutLine(gif, &row, Int32(rect.width))
            }
        }
        EGifCloseFile(gif, &error)
        return writer.bytes
    }

    /// The rows of an image in the order the file stores them: top to
    /// bottom, or interlaced in four passes (every 8th from 0, every 8th
    /// from 4, every 4th from 2, every 2nd from 1).
    public static func rowOrder(height: Int, interlaced: Bool) -> [Int] {
        guard interlaced else { return Array(0..<height) }
        return [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { start, step in Array(stride(from: start, to: height, by: step)) }
    }

    private final class Writer { var bytes: [UInt8] = [] }
}

extension GIFCodec: PictureCodec {
    public static let name = "GIF"
    public static let fileExtensions = ["gif"]

    public static func recognises(_ head: borrowing [UInt8]) -> Bool {
        head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8))
    }

    public static func header(of bytes: [UInt8], path: String, options: DecodeOptions) throws(ImageFileError) -> PictureHeader {
        PictureHeader(storedSize: try size(of: bytes, path: path))
    }

    /// Its first image, composed at the slot's size, and the frames' schedule when it has more than one.
    public static func decode(
        bytes: consuming [UInt8], path: String, fittedTo slot: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> DecodedPicture {
        let schedule = try GIFAnimation.schedule(of: bytes, path: path)
        let animation = try GIFAnimation(bytes: bytes, path: path, background: options.background, fittedTo: slot, maximumPixels: options.maximumGIFPixels)
        return DecodedPicture(
            picture: try animation.decodeNext(), info: PictureInfo(format: name, originalSize: animation.screen),
            animation: schedule.isAnimated ? schedule : nil)
    }

    /// Read as it is decoded, never whole: a long animation can be a large file.
    public static func decode(
        file: consuming FileDescriptor, head: [UInt8], path: String, fittedTo slot: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> DecodedPicture {
        _ = consume file
        let animation = try GIFAnimation(
            path: path, background: options.background, fittedTo: slot, maximumPixels: options.maximumGIFPixels, maximumFileBytes: options.maximumFileBytes)
        let picture = try animation.decodeNext()
        let schedule = try GIFAnimation.schedule(ofFile: path, maximumFileBytes: options.maximumFileBytes)
        return DecodedPicture(
            picture: picture, info: PictureInfo(format: name, originalSize: animation.screen), animation: schedule.isAnimated ? schedule : nil)
    }

    /// The first image at its full size, then cut.
    public static func decodeRegion(
        bytes: consuming [UInt8], path: String, region: PictureRegion, at size: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> RasterImage {
        let decoded = try GIFAnimation(bytes: bytes, path: path, background: options.background, fittedTo: nil, maximumPixels: options.maximumGIFPixels)
            .decodeNext()
        return resample(decoded.cropped(to: region.pixels(of: decoded.size)), to: size)
    }

    public static func openAnimation(path: String, fittedTo slot: PixelSize, options: DecodeOptions) throws(ImageFileError) -> (any PictureAnimation)? {
        try GIFAnimation(
            path: path, background: options.background, fittedTo: slot, maximumPixels: options.maximumGIFPixels, maximumFileBytes: options.maximumFileBytes)
    }
}

extension GIFAnimation: PictureAnimation {}
