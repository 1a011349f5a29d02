import CGIF
import KioskCore
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Where a ``GIFReader`` pulls bytes from: a file read as it goes (a long
/// animation is never held whole), or bytes already in memory (tests).
protocol GIFInput: AnyObject {
    /// Copies up to `count` bytes into `buffer`; 0 at the end.
    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int
    /// Back to the first byte, to play the animation again.
    func rewind() throws(ImageFileError)
}

final class GIFBytes: GIFInput {
    let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        let taken = min(count, bytes.count - offset)
        guard taken > 0 else { return 0 }
        bytes.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + offset, count: taken) }
        offset += taken
        return taken
    }

    func rewind() { offset = 0 }
}

/// A GIF file, open for as long as its animation plays.
final class GIFFile: GIFInput {
    let path: String
    private let file: FileDescriptor

    /// Opens `path` (never blocking on a FIFO), refusing what is not a
    /// regular file or is over `limit` bytes, as for every picture.
    init(_ path: String, limit: Int) throws(ImageFileError) {
        self.path = path
        do { file = try FileDescriptor(opening: path, flags: O_RDONLY | O_NONBLOCK) } catch { throw ImageFileError(error, path: path) }
        var info = stat()
        let fd = file.rawValue
        do { try retryingInterrupts("fstat") { fstat(fd, &info) } } catch { throw ImageFileError(error, path: path) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw ImageFileError(path: path, reason: .notARegularFile) }
        guard Int(info.st_size) <= limit else { throw ImageFileError(path: path, reason: .fileTooLarge(bytes: Int(info.st_size))) }
    }

    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        // A read error ends the data: giflib then reports the file as cut short.
        max(0, (try? file.read(into: buffer, count: count)) ?? 0)
    }

    func rewind() throws(ImageFileError) {
        guard lseek(file.rawValue, 0, SEEK_SET) == 0 else { throw ImageFileError(SystemCallError.last("lseek"), path: path) }
    }
}

/// One image of a GIF, its header read, its pixels not yet.
struct GIFImage {
    /// Where it sits on the logical screen (it may stick out: the screen crops it).
    var left: Int, top: Int, width: Int, height: Int
    var interlaced: Bool
    /// The colour table in XRGB8888.
    var colours: [UInt32]
    /// The transparent index, or -1.
    var transparent: Int
    /// What happens to its area before the next image (the graphics control block's disposal method).
    var disposal: GIFDisposal
    /// Hundredths of a second.
    var delay: Int
}

/// What a GIF image asks to be done with its area once it has been shown.
enum GIFDisposal {
    /// Leave it (disposal 0, 1 and the undefined 4 to 7, as browsers do).
    case keep
    /// Clear it to the background (2).
    case background
    /// Put back what was there before it (3).
    case previous

    init(_ mode: Int32) {
        switch mode {
        case DISPOSE_BACKGROUND: self = .background
        case DISPOSE_PREVIOUS: self = .previous
        default: self = .keep
        }
    }
}

/// giflib's low-level decoder over a ``GIFInput``, record by record: the
/// images in order with their graphics control blocks, the loop count.
final class GIFReader {
    let path: String
    private let input: any GIFInput
    private var gif: UnsafeMutablePointer<GifFileType>!
    /// The NETSCAPE2.0 loop count, once read: 0 for ever.
    private(set) var loopCount: Int?

    init(_ input: any GIFInput, path: String) throws(ImageFileError) {
        self.input = input
        self.path = path
        try open()
    }

    deinit { close() }

    private func open() throws(ImageFileError) {
        try OnDemandLibrary.open(.gif, reading: path)
        var error: Int32 = 0
        gif = DGifOpen(Unmanaged.passUnretained(self).toOpaque(), { file, buffer, count in
            guard let file, let buffer, count > 0 else { return 0 }
            let reader = Unmanaged<GIFReader>.fromOpaque(file.pointee.UserData).takeUnretainedValue()
            return Int32(reader.input.read(into: buffer, count: Int(count)))
        }, &error)
        guard gif != nil else { throw failure(error) }
        guard gif.pointee.SWidth > 0, gif.pointee.SHeight > 0 else {
            throw ImageFileError(path: path, reason: .corrupt("the GIF's screen is 0 pixels"))
        }
    }

    private func close() {
        var error: Int32 = 0
        if let gif { DGifCloseFile(gif, &error) }
        gif = nil
    }

    /// Back to the file's start, for the animation's next play.
    func rewind() throws(ImageFileError) {
        close()
        try input.rewind()
        try open()
    }

    /// The logical screen's size, from the header.
    var screen: PixelSize { PixelSize(width: Int(gif.pointee.SWidth), height: Int(gif.pointee.SHeight)) }

    func failure(_ code: Int32) -> ImageFileError {
        let message = GifErrorString(code).map { String(cString: $0) } ?? "error \(code)"
        return ImageFileError(path: path, reason: .corrupt("GIF: \(message.prefix(1).lowercased() + message.dropFirst())"))
    }

    private var lastError: ImageFileError { failure(gif.pointee.Error) }

    /// Reads records up to the next image and returns its header; nil at
    /// the file's end. Its pixels must then be read (``readRows(of:_:)``)
    /// or skipped (``skipRows()``) before the next call.
    func nextImage() throws(ImageFileError) -> GIFImage? {
        var control = GraphicsControlBlock(
            DisposalMode: DISPOSAL_UNSPECIFIED, UserInputFlag: false, DelayTime: 0, TransparentColor: NO_TRANSPARENT_COLOR)
        while true {
            var record = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(gif, &record) == GIF_OK else { throw lastError }
            switch record {
            case EXTENSION_RECORD_TYPE:
                var code: Int32 = 0
                var block: UnsafeMutablePointer<GifByteType>?
                guard DGifGetExtension(gif, &code, &block) == GIF_OK else { throw lastError }
                var netscape = false
                if code == GRAPHICS_EXT_FUNC_CODE, let block {
                    var read = GraphicsControlBlock()
                    if DGifExtensionToGCB(Int(block[0]), block + 1, &read) == GIF_OK { control = read }
                } else if code == APPLICATION_EXT_FUNC_CODE, let block, block[0] == 11 {
                    netscape = Array(UnsafeBufferPointer(start: block + 1, count: 11)) == Array("NETSCAPE2.0".utf8)
                }
                while block != nil {
                    guard DGifGetExtensionNext(gif, &block) == GIF_OK else { throw lastError }
                    // The sub-block after NETSCAPE2.0: 1, then the loop count, little-endian.
                    if netscape, let data = block, data[0] >= 3, data[1] == 1 {
                        loopCount = Int(data[2]) | Int(data[3]) << 8
                        netscape = false
                    }
                }
            case IMAGE_DESC_RECORD_TYPE:
                guard DGifGetImageDesc(gif) == GIF_OK else { throw lastError }
                let image = gif.pointee.Image
                let width = Int(image.Width), height = Int(image.Height)
                guard width > 0, height > 0 else { throw ImageFileError(path: path, reason: .corrupt("the GIF's image is \(width)x\(height)")) }
                guard let map = image.ColorMap ?? gif.pointee.SColorMap else {
                    throw ImageFileError(path: path, reason: .corrupt("the GIF has no colour table"))
                }
                let colours = (0..<Int(map.pointee.ColorCount)).map { i in
                    let c = map.pointee.Colors[i]
                    return RGBColor(red: c.Red, green: c.Green, blue: c.Blue).xrgb
                }
                return GIFImage(
                    left: Int(image.Left), top: Int(image.Top), width: width, height: height, interlaced: image.Interlace,
                    colours: colours, transparent: Int(control.TransparentColor), disposal: GIFDisposal(control.DisposalMode),
                    delay: Int(control.DelayTime))
            case TERMINATE_RECORD_TYPE:
                return nil
            default:
                break
            }
        }
    }

    /// Reads `image`'s rows (palette indices) and hands them over top to
    /// bottom, whatever order the file stores them in. An interlaced
    /// image is gathered whole first (width x height bytes).
    func readRows(of image: GIFImage, _ body: (Int, UnsafeBufferPointer<GifPixelType>) -> Void) throws(ImageFileError) {
        var line = [GifPixelType](repeating: 0, count: image.width)
        if !image.interlaced {
            for y in 0..<image.height {
                guard DGifGetLine(gif, &line, Int32(image.width)) == GIF_OK else { throw lastError }
                line.withUnsafeBufferPointer { body(y, $0) }
            }
            return
        }
        var whole = [GifPixelType](repeating: 0, count: image.width * image.height)
        for y in GIFCodec.rowOrder(height: image.height, interlaced: true) {
            guard DGifGetLine(gif, &line, Int32(image.width)) == GIF_OK else { throw lastError }
            whole.replaceSubrange((y * image.width)..<((y + 1) * image.width), with: line)
        }
        whole.withUnsafeBufferPointer { all in
            for y in 0..<image.height { body(y, UnsafeBufferPointer(rebasing: all[(y * image.width)..<((y + 1) * image.width)])) }
        }
    }

    /// Passes over an image's compressed data without decoding it.
    func skipRows() throws(ImageFileError) {
        var code: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetCode(gif, &code, &block) == GIF_OK else { throw lastError }
        while block != nil {
            guard DGifGetCodeNext(gif, &block) == GIF_OK else { throw lastError }
        }
    }
}
