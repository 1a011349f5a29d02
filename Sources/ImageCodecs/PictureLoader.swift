import KioskCore
import KioskRendering
import SystemCalls

/// Turns a picture file into a ``RasterImage`` fitted to a slot: read, find
/// its format by content (``PictureCodecs``, never by name), decode, scale
/// once. What it may spend and how pictures are shown are its ``options``.
public struct PictureLoader: Sendable, Equatable {
    public var options: DecodeOptions
    /// Read each photo's title (``PhotoTitle``) into its ``PictureInfo/caption``:
    /// only when a caption shows it, as it costs a look at the file's metadata.
    public var readsTitle = false
    /// Look in each JPEG and HEIF for a motion photo's movie (``PictureInfo/motion``):
    /// only when `motion_photos` plays them, as it costs a look at the file's end and its XMP.
    public var readsMotion = false

    public init(background: RGBColor, exifRotate: Bool = true, readsTitle: Bool = false, clips: Bool = true) {
        options = DecodeOptions(background: background, exifRotate: exifRotate)
        options.clipsAllowed = clips
        self.readsTitle = readsTitle
    }

    /// Composited under transparent pixels.
    public var background: RGBColor {
        get { options.background }
        set { options.background = newValue }
    }

    /// Show camera photos upright, as their EXIF Orientation tag says.
    public var exifRotate: Bool {
        get { options.exifRotate }
        set { options.exifRotate = newValue }
    }

    /// Loads `path` and contain-fits it into `slot`.
    public func load(_ path: String, fittedTo slot: PixelSize) throws(ImageFileError) -> RasterImage {
        try loadPicture(path, fittedTo: slot).picture
    }

    /// Loads `path` contain-fitted into `slot`, with what is known about it
    /// and its frames' schedule if it is animated. Each codec reads the
    /// file as it decodes when it can (``PictureCodec/decode(file:head:path:fittedTo:options:)``).
    /// What a C library prints to `stderr` meanwhile (libde265's complaints)
    /// is about `path` (``LibraryMessages``).
    public func loadPicture(_ path: String, fittedTo slot: PixelSize) throws(ImageFileError) -> DecodedPicture {
        try LibraryMessages.about(path) { () throws(ImageFileError) in try loadPictureNow(path, fittedTo: slot) }
    }

    private func loadPictureNow(_ path: String, fittedTo slot: PixelSize) throws(ImageFileError) -> DecodedPicture {
        let file = try openRegularFile(path, limit: max(options.maximumFileBytes, options.maximumClipBytes))
        // EXIF is looked for only this far (`EXIFOrientation.read`): the same answer as from the whole file.
        let head = try readFileStart(file, path: path, count: EXIFOrientation.searchLimit)
        let codec = try Self.codec(of: head, path: path)
        try Self.check(file, path: path, against: codec.maximumFileBytes(options))
        var decoded = try codec.decode(file: file, head: head, path: path, fittedTo: slot, options: options)
        if readsTitle { decoded.info.caption = PhotoTitle.read(path: path, head: head) }
        if readsMotion, codec == JPEGCodec.self || codec == HEIFCodec.self {
            decoded.info.motion = MotionPhotoProbe.video(in: path, head: codec == JPEGCodec.self ? head : nil)
        }
        return decoded
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
    /// from the first 128 KiB, or as far as the format needs
    /// (``PictureCodec/header(file:head:path:options:)``).
    public func uprightSize(of path: String) throws(ImageFileError) -> PixelSize {
        try uprightSize(of: path, clips: true)!
    }

    /// ``uprightSize(of:)``, or nil for a video clip when not `clips`
    /// (known from the head, before its container is read).
    private func uprightSize(of path: String, clips: Bool) throws(ImageFileError) -> PixelSize? {
        let file = try openRegularFile(path, limit: max(options.maximumFileBytes, options.maximumClipBytes))
        let head = try readFileStart(file, path: path, count: PictureCodecs.headerLength)
        let codec = try Self.codec(of: head, path: path)
        if !clips && codec == ClipCodec.self { return nil }
        let header = try codec.header(file: file, head: head, path: path, options: options)
        return options.orientation(header.orientation).uprightSize(of: header.storedSize)
    }

    /// The upright size that decides whether the picture at `path` shares
    /// a slot (`portrait_pairs`): ``uprightSize(of:)``, but nil for a video
    /// clip, which plays alone in its slot (a clip in a pair could not play).
    public func pairingSize(of path: String) throws(ImageFileError) -> PixelSize? {
        try uprightSize(of: path, clips: false)
    }

    /// The upright size the header in `bytes` gives (the EXIF turn included when ``exifRotate``).
    public func uprightSize(of bytes: [UInt8], path: String) throws(ImageFileError) -> PixelSize {
        let header = try Self.codec(of: bytes, path: path).header(of: bytes, path: path, options: options)
        return options.orientation(header.orientation).uprightSize(of: header.storedSize)
    }

    /// The part `region` of the picture at `path` (each side a fraction of
    /// its upright width or height), resampled to `size`: what a zoomed
    /// picture shows sharp (``PictureCodec/decodeRegion(bytes:path:region:at:options:)``).
    public func loadRegion(_ path: String, region: PictureRegion, at size: PixelSize) throws(ImageFileError) -> RasterImage {
        try LibraryMessages.about(path) { () throws(ImageFileError) in
            let file = try openRegularFile(path, limit: max(options.maximumFileBytes, options.maximumClipBytes))
            let format = try codec(of: file, path: path)
            return try format.decodeRegion(file: file, path: path, region: region, at: size, options: options)
        }
    }

    /// Opens the animated picture at `path` to play it fitted to `slot`.
    public func openAnimation(_ path: String, fittedTo slot: PixelSize) throws(ImageFileError) -> any PictureAnimation {
        let head = try readFileStart(path, count: PictureCodecs.sniffLength)
        guard let animation = try Self.codec(of: head, path: path).openAnimation(path: path, fittedTo: slot, options: options) else {
            throw ImageFileError(path: path, reason: .notAnimated)
        }
        return animation
    }

    /// Decodes a file already read and contain-fits it into `slot`: decode,
    /// turn upright, resample (what the benchmark times).
    public func load(bytes: consuming [UInt8], path: String, fittedTo slot: PixelSize) throws(ImageFileError) -> RasterImage {
        let codec = try Self.codec(of: bytes, path: path)
        return try codec.decode(bytes: bytes, path: path, fittedTo: slot, options: options).picture
    }

    /// The codec the open `file`'s first bytes say, when the file is within that codec's size limit.
    private func codec(of file: borrowing FileDescriptor, path: String) throws(ImageFileError) -> any PictureCodec.Type {
        let codec = try Self.codec(of: readFileStart(file, path: path, count: PictureCodecs.sniffLength), path: path)
        try Self.check(file, path: path, against: codec.maximumFileBytes(options))
        return codec
    }

    /// Refuses the open `file` when it is larger than `limit` bytes (its codec's).
    private static func check(_ file: borrowing FileDescriptor, path: String, against limit: Int) throws(ImageFileError) {
        let bytes = Int(try status(of: file, path: path).st_size)
        guard bytes <= limit else { throw ImageFileError(path: path, reason: .fileTooLarge(bytes: bytes)) }
    }

    /// The codec for a file that starts with `head`, or the error that says it is none.
    static func codec(of head: borrowing [UInt8], path: String) throws(ImageFileError) -> any PictureCodec.Type {
        guard !head.isEmpty else { throw ImageFileError(path: path, reason: .empty) }
        guard let codec = PictureCodecs.codec(sniffing: head) else { throw ImageFileError(path: path, reason: .notAnImage) }
        return codec
    }
}
