import KioskCore
import KioskRendering
import SystemCalls

/// Turns a picture file into a ``RasterImage`` fitted to a slot: read, decode
/// (JPEG, PNG or GIF, recognised by content, not by name), scale once.
public struct PictureLoader: Sendable, Equatable {
    /// Files above this size are refused unread.
    public var maximumFileBytes = 256 << 20
    /// A JPEG whose DCT-scaled decode would exceed this many pixels is
    /// refused before allocation. Scaling keeps real photos far below it (a
    /// 100 Mpx camera decodes at 1/8 for a 1080p slot: 1.6 Mpx); a header
    /// claiming 65535x65535 would still need 64 Mpx, 256 MiB.
    public var maximumScaledJPEGPixels = 16 << 20
    /// PNGs above this many pixels are refused before decoding. They decode
    /// row by row into a reduced picture, so this bounds time, not memory:
    /// 64 Mpx covers a 50 Mpx picture.
    public var maximumPNGPixels = 64 << 20
    /// GIFs whose logical screen is above this many pixels are refused
    /// before decoding. They are composed at the slot's size
    /// (``GIFAnimation``), so this bounds a frame's time, not memory:
    /// 16 Mpx covers 4K.
    public var maximumGIFPixels = 16 << 20
    /// Composited under transparent PNG and GIF pixels.
    public var background: RGBColor
    /// Show camera JPEGs upright, as their EXIF Orientation tag says.
    public var exifRotate: Bool

    public init(background: RGBColor, exifRotate: Bool = true) {
        self.background = background
        self.exifRotate = exifRotate
    }

    /// Loads `path` and contain-fits it into `slot`.
    public func load(_ path: String, fittedTo slot: PixelSize) throws(ImageFileError) -> RasterImage {
        try loadPicture(path, fittedTo: slot).picture
    }

    /// Loads `path` contain-fitted into `slot`, with its frames' schedule
    /// if it is an animated GIF (more than one image). A GIF is read as it
    /// is decoded, never whole: a long animation can be a large file.
    ///
    /// A JPEG is read from the file as it is decoded and resampled row by
    /// row, so neither the file (5 to 10 MB for a 24 Mpx photo) nor the
    /// decoded picture is ever in memory whole: the fitted picture is the
    /// only picture-sized buffer. PNGs are read whole first.
    public func loadPicture(_ path: String, fittedTo slot: PixelSize) throws(ImageFileError) -> (picture: RasterImage, animation: FrameSchedule?) {
        let file = try openRegularFile(path, limit: maximumFileBytes)
        // EXIF is looked for only this far (`EXIFOrientation.read`): the same answer as from the whole file.
        let head = try readFileStart(file, path: path, count: EXIFOrientation.searchLimit)
        switch PictureFormat(sniffing: head) {
        case .jpeg:
            let orientation = exifRotate ? EXIFOrientation.read(head) : .upright
            let picture = try JPEGCodec.decode(
                file: file, path: path, fittedTo: { aspectFitSize(of: orientation.uprightSize(of: $0), in: slot) },
                turning: orientation, maximumPixels: maximumScaledJPEGPixels)
            return (picture, nil)
        case .gif:
            let picture = try openAnimation(path, fittedTo: slot).decodeNext()
            let schedule = try GIFAnimation.schedule(ofFile: path, maximumFileBytes: maximumFileBytes)
            return (picture, schedule.isAnimated ? schedule : nil)
        case .png, nil:
            return (try load(bytes: readWholeFile(path, limit: maximumFileBytes), path: path, fittedTo: slot), nil)
        }
    }

    /// Two portraits sharing a slot (`portrait_pairs`): each decoded
    /// straight at its share of `slot` (``PortraitPairs/sideBySide(_:_:slot:spacing:)``),
    /// the same height, `spacing` of background between them, both
    /// vertically centred. An error names the file that failed.
    public func loadPair(_ left: String, _ right: String, fittedTo slot: PixelSize, spacing: Int) throws(ImageFileError) -> RasterImage {
        let sizes = PortraitPairs.sideBySide(try uprightSize(of: left), try uprightSize(of: right), slot: slot, spacing: spacing)
        let pictures = [try load(left, fittedTo: sizes.0), try load(right, fittedTo: sizes.1)]
        var pair = RasterImage(
            size: PixelSize(width: pictures[0].width + spacing + pictures[1].width, height: max(pictures[0].height, pictures[1].height)),
            filledWith: background)
        pair.place(pictures[0], x: 0, y: (pair.height - pictures[0].height) / 2)
        pair.place(pictures[1], x: pictures[0].width + spacing, y: (pair.height - pictures[1].height) / 2)
        return pair
    }

    /// The upright size of the picture at `path`, from its header alone
    /// (what ``PortraitPairs`` needs before anything is decoded): read
    /// from the first 128 KiB, or from the whole file when the header
    /// reaches further (a JPEG with a large EXIF thumbnail before its frame).
    public func uprightSize(of path: String) throws(ImageFileError) -> PixelSize {
        let headLength = 128 << 10
        let head = try readFileStart(path, count: headLength)
        do {
            return try uprightSize(of: head, path: path)
        } catch {
            guard head.count == headLength else { throw error }
            return try uprightSize(of: readWholeFile(path, limit: maximumFileBytes), path: path)
        }
    }

    /// The upright size the header in `bytes` gives (the EXIF turn included when ``exifRotate``).
    public func uprightSize(of bytes: [UInt8], path: String) throws(ImageFileError) -> PixelSize {
        switch PictureFormat(sniffing: bytes) {
        case .jpeg:
            let stored = try JPEGCodec.size(of: bytes, path: path)
            return (exifRotate ? EXIFOrientation.read(bytes) : .upright).uprightSize(of: stored)
        case .png:
            return try PNGCodec.size(of: bytes, path: path)
        case .gif:
            return try GIFCodec.size(of: bytes, path: path)
        case nil:
            throw ImageFileError(path: path, reason: bytes.isEmpty ? .empty : .notAnImage)
        }
    }

    /// The part `region` of the picture at `path` (each side a fraction of
    /// its upright width or height), resampled to `size`: what a zoomed
    /// picture shows sharp.
    ///
    /// A JPEG's region alone is decoded
    /// (``JPEGCodec/decodeRegion(_:path:rect:minimumSize:maximumPixels:)``,
    /// in its stored orientation), at the smallest DCT scale still at
    /// least `size`: only about the region at screen resolution is ever
    /// in memory, never the whole photo zoomed. PNGs
    /// and GIFs are decoded whole, reduced as they are when fitted, then cut.
    public func loadRegion(_ path: String, region: PictureRegion, at size: PixelSize) throws(ImageFileError) -> RasterImage {
        var bytes = try readWholeFile(path, limit: maximumFileBytes)
        guard !bytes.isEmpty else { throw ImageFileError(path: path, reason: .empty) }
        switch PictureFormat(sniffing: bytes) {
        case .jpeg:
            let stored = try JPEGCodec.size(of: bytes, path: path)
            let orientation = exifRotate ? EXIFOrientation.read(bytes) : .upright
            let wanted = region.pixels(of: orientation.uprightSize(of: stored))
            let cut = orientation.storedRect(forUpright: wanted, stored: stored)
            // `size` is upright: the stored part must cover it with its sides turned back.
            let storedTarget = orientation.swapsSides ? PixelSize(width: size.height, height: size.width) : size
            let (decoded, exact) = try JPEGCodec.decodeRegion(
                bytes, path: path, rect: cut, minimumSize: storedTarget, maximumPixels: maximumScaledJPEGPixels)
            bytes = []
            return resample(decoded.cropped(to: exact.pixels(of: decoded.size)), to: size, turning: orientation)
        case .png:
            let full = try PNGCodec.size(of: bytes, path: path)
            let wanted = region.pixels(of: full)
            let minimum = PixelSize(
                width: (size.width * full.width + wanted.width - 1) / wanted.width, height: (size.height * full.height + wanted.height - 1) / wanted.height)
            let decoded = try PNGCodec.decode(bytes, path: path, background: background, minimumSize: minimum, maximumPixels: maximumPNGPixels)
            bytes = []
            return resample(decoded.cropped(to: region.pixels(of: decoded.size)), to: size)
        case .gif:
            let decoded = try GIFAnimation(bytes: bytes, path: path, background: background, fittedTo: nil, maximumPixels: maximumGIFPixels).decodeNext()
            return resample(decoded.cropped(to: region.pixels(of: decoded.size)), to: size)
        case nil:
            throw ImageFileError(path: path, reason: .notAnImage)
        }
    }

    /// Opens the GIF at `path` to play it fitted to `slot`.
    public func openAnimation(_ path: String, fittedTo slot: PixelSize) throws(ImageFileError) -> GIFAnimation {
        try GIFAnimation(path: path, background: background, fittedTo: slot, maximumPixels: maximumGIFPixels, maximumFileBytes: maximumFileBytes)
    }

    /// Decodes a file already read and contain-fits it into `slot`: decode,
    /// turn upright, resample (what the benchmark times).
    ///
    /// A JPEG is resampled row by row as it is decoded, so its only
    /// picture-sized buffers are the file's bytes and the fitted picture.
    /// Other files' bytes are freed as soon as the decoder is done with
    /// them, before the resampler allocates: at most two picture-sized
    /// buffers are alive at once.
    public func load(bytes: consuming [UInt8], path: String, fittedTo slot: PixelSize) throws(ImageFileError) -> RasterImage {
        guard !bytes.isEmpty else { throw ImageFileError(path: path, reason: .empty) }
        switch PictureFormat(sniffing: bytes) {
        case .jpeg:
            // Fit the upright picture from the header's full size; the
            // DCT-scaled decode (in stored orientation) is only a cheaper
            // starting point, resampled row by row as it is decoded and
            // turned upright by the resampler as it writes.
            let stored = try JPEGCodec.size(of: bytes, path: path)
            let orientation = exifRotate ? EXIFOrientation.read(bytes) : .upright
            let fitted = aspectFitSize(of: orientation.uprightSize(of: stored), in: slot)
            return try JPEGCodec.decode(bytes, path: path, fittedTo: fitted, turning: orientation, maximumPixels: maximumScaledJPEGPixels)
        case .png:
            let fitted = aspectFitSize(of: try PNGCodec.size(of: bytes, path: path), in: slot)
            let decoded = try PNGCodec.decode(
                bytes, path: path, background: background, minimumSize: fitted, maximumPixels: maximumPNGPixels)
            bytes = []
            return resample(decoded, to: fitted)
        case .gif:
            // Its first image, composed at the slot's size.
            return try GIFAnimation(bytes: bytes, path: path, background: background, fittedTo: slot, maximumPixels: maximumGIFPixels).decodeNext()
        case nil:
            throw ImageFileError(path: path, reason: .notAnImage)
        }
    }
}

/// The formats the kiosk decodes, told apart by their first bytes.
public enum PictureFormat: Sendable {
    case jpeg, png, gif

    public init?(sniffing bytes: borrowing [UInt8]) {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) {
            self = .gif
        } else {
            return nil
        }
    }
}
