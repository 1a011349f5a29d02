import CGIF
import KioskCore
import KioskRendering

/// GIF through giflib's low-level API, read straight from the file's bytes.
///
/// A GIF shows as its first image today (animated GIFs still, for now), on
/// the logical screen the file declares: the image at its offset, the rest
/// and any transparent pixels in the kiosk's background colour (what
/// browsers do; the file's own background index is ignored, as they ignore
/// it). Decoding stops after the first image: a 500-frame file costs one
/// frame. The encoder makes the test files.
public enum GIFCodec {
    /// The logical screen's size, from the header.
    public static func size(of gif: [UInt8], path: String) throws(ImageFileError) -> PixelSize {
        let reader = try Reader(gif, path: path)
        return reader.screen
    }

    /// The first image on its logical screen, transparency onto `background`.
    public static func decodeFirstFrame(
        _ gif: [UInt8], path: String, background: RGBColor, maximumPixels: Int
    ) throws(ImageFileError) -> RasterImage {
        let reader = try Reader(gif, path: path)
        // Refuse before allocating (a small file can claim a huge screen).
        guard reader.screen.pixelCount <= maximumPixels else { throw ImageFileError(path: path, reason: .tooLarge(reader.screen)) }
        var canvas = RasterImage(size: reader.screen, filledWith: background)
        try reader.drawFirstImage(onto: &canvas)
        return canvas
    }

    /// One frame for ``encode(width:height:palette:frames:)``: palette
    /// indices, row by row, for the whole logical screen.
    public struct Frame: Sendable {
        public var indices: [UInt8]
        /// Hundredths of a second.
        public var delay: Int
        public var transparentIndex: Int?
        public var interlaced: Bool

        public init(indices: [UInt8], delay: Int = 10, transparentIndex: Int? = nil, interlaced: Bool = false) {
            self.indices = indices
            self.delay = delay
            self.transparentIndex = transparentIndex
            self.interlaced = interlaced
        }
    }

    /// A GIF89a of `frames`, each covering the whole screen, with one global
    /// `palette` (up to 256 colours). For tests and demo pictures.
    public static func encode(width: Int, height: Int, palette: [RGBColor], frames: [Frame]) -> [UInt8] {
        precondition(!palette.isEmpty && palette.count <= 256 && frames.allSatisfy { $0.indices.count == width * height })
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
        for frame in frames {
            var control = GraphicsControlBlock(
                DisposalMode: DISPOSAL_UNSPECIFIED, UserInputFlag: false, DelayTime: Int32(frame.delay),
                TransparentColor: Int32(frame.transparentIndex ?? Int(NO_TRANSPARENT_COLOR)))
            var extensionBytes = [GifByteType](repeating: 0, count: 4)
            let length = EGifGCBToExtension(&control, &extensionBytes)
            EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, Int32(length), extensionBytes)
            EGifPutImageDesc(gif, 0, 0, Int32(width), Int32(height), frame.interlaced, nil)
            // An interlaced image is written in its four passes' row order.
            for y in rowOrder(height: height, interlaced: frame.interlaced) {
                var row = Array(frame.indices[(y * width)..<((y + 1) * width)])
                EGifPutLine(gif, &row, Int32(width))
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

    /// An open decoder over the file's bytes (giflib pulls them through a callback).
    private final class Reader {
        let bytes: [UInt8]
        let path: String
        var offset = 0
        private var gif: UnsafeMutablePointer<GifFileType>!

        init(_ bytes: [UInt8], path: String) throws(ImageFileError) {
            self.bytes = bytes
            self.path = path
            var error: Int32 = 0
            gif = DGifOpen(Unmanaged.passUnretained(self).toOpaque(), { file, buffer, count in
                guard let file, let buffer, count > 0 else { return 0 }
                let reader = Unmanaged<Reader>.fromOpaque(file.pointee.UserData).takeUnretainedValue()
                let taken = min(Int(count), reader.bytes.count - reader.offset)
                guard taken > 0 else { return 0 }
                reader.bytes.withUnsafeBufferPointer { source in
                    buffer.update(from: source.baseAddress! + reader.offset, count: taken)
                }
                reader.offset += taken
                return Int32(taken)
            }, &error)
            guard gif != nil else { throw failure(error) }
            guard gif.pointee.SWidth > 0, gif.pointee.SHeight > 0 else { throw ImageFileError(path: path, reason: .corrupt("the GIF's screen is 0 pixels")) }
        }

        deinit {
            var error: Int32 = 0
            if let gif { DGifCloseFile(gif, &error) }
        }

        var screen: PixelSize { PixelSize(width: Int(gif.pointee.SWidth), height: Int(gif.pointee.SHeight)) }

        func failure(_ code: Int32) -> ImageFileError {
            let message = GifErrorString(code).map { String(cString: $0) } ?? "error \(code)"
            return ImageFileError(path: path, reason: .corrupt("GIF: \(message.prefix(1).lowercased() + message.dropFirst())"))
        }

        /// Reads records up to the first image and draws it; its graphics
        /// control block (the one before it) says which index is transparent.
        func drawFirstImage(onto canvas: inout RasterImage) throws(ImageFileError) {
            var transparent: Int32 = NO_TRANSPARENT_COLOR
            while true {
                var record = UNDEFINED_RECORD_TYPE
                guard DGifGetRecordType(gif, &record) == GIF_OK else { throw failure(gif.pointee.Error) }
                switch record {
                case EXTENSION_RECORD_TYPE:
                    var code: Int32 = 0
                    var block: UnsafeMutablePointer<GifByteType>?
                    guard DGifGetExtension(gif, &code, &block) == GIF_OK else { throw failure(gif.pointee.Error) }
                    if code == GRAPHICS_EXT_FUNC_CODE, let block {
                        var control = GraphicsControlBlock()
                        if DGifExtensionToGCB(Int(block[0]), block + 1, &control) == GIF_OK { transparent = control.TransparentColor }
                    }
                    while block != nil {
                        guard DGifGetExtensionNext(gif, &block) == GIF_OK else { throw failure(gif.pointee.Error) }
                    }
                case IMAGE_DESC_RECORD_TYPE:
                    guard DGifGetImageDesc(gif) == GIF_OK else { throw failure(gif.pointee.Error) }
                    try drawImage(onto: &canvas, transparent: Int(transparent))
                    return
                case TERMINATE_RECORD_TYPE:
                    throw ImageFileError(path: path, reason: .corrupt("the GIF has no image"))
                default:
                    break
                }
            }
        }

        private func drawImage(onto canvas: inout RasterImage, transparent: Int) throws(ImageFileError) {
            let image = gif.pointee.Image
            let width = Int(image.Width), height = Int(image.Height)
            guard width > 0, height > 0, width <= 65535, height <= 65535 else {
                throw ImageFileError(path: path, reason: .corrupt("the GIF's image is \(width)x\(height)"))
            }
            guard let map = image.ColorMap ?? gif.pointee.SColorMap else {
                throw ImageFileError(path: path, reason: .corrupt("the GIF has no colour table"))
            }
            let colours = (0..<Int(map.pointee.ColorCount)).map { i in
                let c = map.pointee.Colors[i]
                return RGBColor(red: c.Red, green: c.Green, blue: c.Blue).xrgb
            }
            let left = Int(image.Left), top = Int(image.Top)
            var line = [GifPixelType](repeating: 0, count: width)
            let canvasSize = canvas.size
            for y in rowOrder(height: height, interlaced: image.Interlace) {
                guard DGifGetLine(gif, &line, Int32(width)) == GIF_OK else { throw failure(gif.pointee.Error) }
                let screenY = top + y
                guard screenY >= 0, screenY < canvasSize.height else { continue }
                // Outside the screen is cropped; indices past the table and the transparent one leave the background.
                for x in 0..<width {
                    let screenX = left + x, index = Int(line[x])
                    guard screenX < canvasSize.width, index != transparent, index < colours.count else { continue }
                    canvas[screenX, screenY] = colours[index]
                }
            }
        }
    }
}
