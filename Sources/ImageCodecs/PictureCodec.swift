import KioskCore
import KioskRendering
import SystemCalls

/// One picture file format the kiosk shows: how its files are recognised
/// (by content, never by name), what their header says, and how they
/// become pictures fitted to a slot, a zoom's sharp region, or an
/// animation's frames. ``PictureLoader`` finds the codec for a file in
/// ``PictureCodecs/all`` and asks it; nothing else names a format.
///
/// Adding a still format is one type conforming to this and one line in
/// ``PictureCodecs/all``: the folder's extensions, the log lines and the
/// help text come from the registry. The requirements are static: a codec
/// holds no state, what a decode may spend comes in ``DecodeOptions``.
public protocol PictureCodec: Sendable {
    /// The format's name in log lines and help: "JPEG".
    static var name: String { get }
    /// The file name extensions a folder shows for it, lower case, without the dot.
    static var fileExtensions: [String] { get }
    /// True when a file starting with `head` is of this format. `head` is
    /// the file's first bytes: at least ``PictureCodecs/sniffLength`` of them
    /// unless the file is shorter.
    static func recognises(_ head: borrowing [UInt8]) -> Bool
    /// What the header in `bytes` (the file's start, or the whole file) says:
    /// the stored size and how to turn the picture upright.
    static func header(of bytes: [UInt8], path: String, options: DecodeOptions) throws(ImageFileError) -> PictureHeader
    /// The same from the open `file` whose first bytes are `head` (at
    /// least 128 KiB of them unless the file is shorter).
    static func header(file: consuming FileDescriptor, head: [UInt8], path: String, options: DecodeOptions) throws(ImageFileError) -> PictureHeader
    /// Files of this format above this many bytes are refused unread.
    static func maximumFileBytes(_ options: DecodeOptions) -> Int
    /// Decodes `bytes` (the whole file) upright and contain-fitted into `slot`.
    static func decode(bytes: consuming [UInt8], path: String, fittedTo slot: PixelSize, options: DecodeOptions) throws(ImageFileError) -> DecodedPicture
    /// The same, from the open `file` whose first bytes are `head`: a codec
    /// that can read as it decodes (row by row) never holds the file or
    /// the decoded picture whole. Takes `file` over.
    static func decode(
        file: consuming FileDescriptor, head: [UInt8], path: String, fittedTo slot: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> DecodedPicture
    /// The part `region` of the picture in `bytes` (each side a fraction of
    /// its upright width or height), resampled to `size`: a zoom shown sharp.
    static func decodeRegion(
        bytes: consuming [UInt8], path: String, region: PictureRegion, at size: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> RasterImage
    /// The same from the open `file`: a codec that reads its files in parts (a clip) never reads one whole.
    static func decodeRegion(
        file: consuming FileDescriptor, path: String, region: PictureRegion, at size: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> RasterImage
    /// The file at `path` opened to play its frames fitted to `slot`; nil
    /// for a format that has none.
    static func openAnimation(path: String, fittedTo slot: PixelSize, options: DecodeOptions) throws(ImageFileError) -> (any PictureAnimation)?
    /// When the photo at `path`, whose first bytes are `head`, was taken
    /// (`order = "taken"`), without decoding it; nil when it does not say.
    static func dateTaken(path: String, head: [UInt8]) -> Int64?
}

extension PictureCodec {
    /// A codec that cannot read as it decodes reads the file whole first.
    public static func decode(
        file: consuming FileDescriptor, head: [UInt8], path: String, fittedTo slot: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> DecodedPicture {
        _ = consume file
        return try decode(bytes: readWholeFile(path, limit: options.maximumFileBytes), path: path, fittedTo: slot, options: options)
    }

    /// The header from `head`, or from the whole file when it reaches
    /// further (a JPEG with a large EXIF thumbnail before its frame).
    public static func header(
        file: consuming FileDescriptor, head: [UInt8], path: String, options: DecodeOptions
    ) throws(ImageFileError) -> PictureHeader {
        _ = consume file
        do {
            return try header(of: head, path: path, options: options)
        } catch {
            guard head.count == PictureCodecs.headerLength else { throw error }
            return try header(of: readWholeFile(path, limit: options.maximumFileBytes), path: path, options: options)
        }
    }

    /// The file read whole, then ``decodeRegion(bytes:path:region:at:options:)``.
    public static func decodeRegion(
        file: consuming FileDescriptor, path: String, region: PictureRegion, at size: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> RasterImage {
        _ = consume file
        return try decodeRegion(bytes: readWholeFile(path, limit: options.maximumFileBytes), path: path, region: region, at: size, options: options)
    }

    /// A still's files are read whole by some codecs: ``DecodeOptions/maximumFileBytes``.
    public static func maximumFileBytes(_ options: DecodeOptions) -> Int { options.maximumFileBytes }

    /// EXIF at the file's start, as a JPEG has it (APP1).
    public static func dateTaken(path: String, head: [UInt8]) -> Int64? { EXIFDateTaken.read(head) }

    /// Stills have no frames to play.
    public static func openAnimation(path: String, fittedTo slot: PixelSize, options: DecodeOptions) throws(ImageFileError) -> (any PictureAnimation)? {
        nil
    }

    /// The picture's upright size from `header`, with the EXIF turn when `options` says so.
    static func uprightHeader(_ header: PictureHeader, options: DecodeOptions) -> PixelSize {
        options.orientation(header.orientation).uprightSize(of: header.storedSize)
    }
}

/// What a file's header says, before anything is decoded.
public struct PictureHeader: Equatable, Sendable {
    /// The size of the stored pixels.
    public var storedSize: PixelSize
    /// How the stored pixels are turned upright (EXIF Orientation for a JPEG).
    public var orientation: ImageOrientation

    public init(storedSize: PixelSize, orientation: ImageOrientation = .upright) {
        self.storedSize = storedSize
        self.orientation = orientation
    }
}

/// What is known about a picture beside its pixels, carried from the
/// decoder to the show (its zoom limits; a later caption overlay).
public struct PictureInfo: Equatable, Sendable {
    /// The codec's ``PictureCodec/name``: "JPEG".
    public var format: String
    /// The file's own upright size, before fitting: how far it may be zoomed.
    public var originalSize: PixelSize
    /// When the photo was taken (seconds since the epoch, local time), if the file says.
    public var dateTaken: Int64?
    /// Words that come with the picture (a caption or description), if any: room for an overlay.
    public var caption: String?
    /// Something about the file worth one line in the log that does not stop
    /// it showing: "holds 3 images (...): showing its primary image".
    public var note: String?
    /// A video clip's facts (the picture is its first frame); nil for a picture.
    public var clip: ClipInfo?
    /// A motion photo's movie: its bytes inside the still's file
    /// (``MotionPhotoProbe``); nil for any other picture, or when the
    /// loader was not asked to look (``PictureLoader/readsMotion``).
    public var motion: Range<Int64>?

    public init(format: String, originalSize: PixelSize, dateTaken: Int64? = nil, caption: String? = nil, note: String? = nil, clip: ClipInfo? = nil) {
        self.format = format
        self.originalSize = originalSize
        self.dateTaken = dateTaken
        self.caption = caption
        self.note = note
        self.clip = clip
    }
}

/// A picture decoded for the show: its pixels fitted to the slot, what is
/// known about it, and its frames' schedule when it is animated.
public struct DecodedPicture: Sendable {
    public var picture: RasterImage
    public var info: PictureInfo
    /// Nil for a still (or an animation of one frame).
    public var animation: FrameSchedule?

    public init(picture: RasterImage, info: PictureInfo, animation: FrameSchedule? = nil) {
        self.picture = picture
        self.info = info
        self.animation = animation
    }
}

/// An animated picture played from its file one frame at a time, each
/// frame fitted to the slot. Frames are numbered across plays: after the
/// last, the first comes again.
public protocol PictureAnimation: AnyObject {
    var path: String { get }
    /// The number of the frame ``decodeNext()`` returns next, counted across plays.
    var nextFrame: Int { get }
    /// Decodes the next frame.
    func decodeNext() throws(ImageFileError) -> RasterImage
    /// Passes over the next frame, composing it but not returning it.
    func advance() throws(ImageFileError)
}

/// What a decode may spend, and how pictures are shown: the same for every codec.
public struct DecodeOptions: Sendable, Equatable {
    /// Files above this size are refused unread.
    public var maximumFileBytes = DecodeOptions.defaultMaximumFileBytes
    /// The bound a file is read within where no options are at hand (a date read for `order = "taken"`).
    public static let defaultMaximumFileBytes = 256 << 20
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
    /// 16 Mpx covers 4K. An animated WebP's canvas has the same bound; its
    /// memory is two canvases (``WebPAnimation``).
    public var maximumGIFPixels = 16 << 20
    /// WebPs above this many pixels are refused from their header: a
    /// lossless WebP is decoded whole inside libwebp (4 bytes a pixel), so
    /// this bounds memory (32 Mpx, 128 MiB); phones write at most 16 Mpx.
    public var maximumWebPPixels = 32 << 20
    /// HEIF images above this many pixels (after the container's crop) are
    /// refused from the header: they are decoded whole to their planes
    /// (``HEIFCodec``), 1.5 bytes a pixel for 8-bit 4:2:0 and up to 8 for
    /// 16-bit 4:4:4 with alpha; 64 Mpx covers a 48 Mpx phone.
    public var maximumHEIFPixels = 64 << 20
    /// AVIFs above this many pixels (before the crop) are refused from the
    /// container, and libavif is told the same bound, so a grid declaring
    /// more is refused before its canvas is allocated. They are decoded
    /// whole to planes (``AVIFCodec``): 1.5 bytes a pixel for 8-bit 4:2:0,
    /// up to 8 for 12-bit 4:4:4 with alpha.
    public var maximumAVIFPixels = 64 << 20
    /// Video clips above this many pixels a frame (as the container
    /// declares, and as FFmpeg's decoder is told) are refused before a
    /// frame is decoded: 16 Mpx covers 4K and DCI 4K (8.8 Mpx). A decoder
    /// keeps its reference frames at full size (``ClipStream``).
    public var maximumClipPixels = 16 << 20
    /// Clips are read a part at a time as FFmpeg asks, never whole: this
    /// only refuses what no phone or camera makes (64 GiB).
    public var maximumClipBytes = 64 << 30
    /// `video`: false refuses every clip (a clip named .jpg included).
    public var clipsAllowed = true
    /// Composited under transparent pixels.
    public var background: RGBColor
    /// Show camera photos upright, as their EXIF Orientation tag says.
    public var exifRotate: Bool

    public init(background: RGBColor, exifRotate: Bool = true) {
        self.background = background
        self.exifRotate = exifRotate
    }

    /// The turn to apply for a stored `orientation`: none when ``exifRotate`` is off.
    public func orientation(_ stored: ImageOrientation) -> ImageOrientation { exifRotate ? stored : .upright }
}

/// The formats the kiosk shows, and the one place that lists them.
public enum PictureCodecs {
    /// Every codec, tried in this order on a file's first bytes.
    /// Clips come last: HEIF and AVIF claim their `ftyp` brands first.
    public static let all: [any PictureCodec.Type] = [
        JPEGCodec.self, PNGCodec.self, GIFCodec.self, WebPCodec.self, HEIFCodec.self, AVIFCodec.self, ClipCodec.self,
    ]

    /// How many first bytes ``PictureCodec/recognises(_:)`` is given.
    public static let sniffLength = 16

    /// How much of a file's start ``PictureCodec/header(file:head:path:options:)`` is given.
    public static let headerLength = 128 << 10

    /// The codec for a file starting with `head`, or nil for none.
    public static func codec(sniffing head: borrowing [UInt8]) -> (any PictureCodec.Type)? {
        for codec in all where codec.recognises(head) { return codec }
        return nil
    }

    /// When the photo at `path` was taken, as its format says (``PictureCodec/dateTaken(path:head:)``);
    /// nil for a file that cannot be read, is no picture, or has no date.
    public static func dateTaken(ofFile path: String) -> Int64? {
        guard let head = try? readFileStart(path, count: EXIFOrientation.searchLimit), let codec = codec(sniffing: head) else { return nil }
        return codec.dateTaken(path: path, head: head)
    }

    /// Every extension a folder shows, in the registry's order: `["jpg", "jpeg", "png", "gif", "webp", "heic", "heif", "hif", "avif", "mp4", "mov", "m4v", "mkv", "webm"]`.
    public static var fileExtensions: [String] { all.flatMap { $0.fileExtensions } }

    /// The formats' names for an operator: "JPEG, PNG, GIF, WebP, HEIF, AVIF or video clip".
    public static var names: String { spoken(all.map { $0.name }, joinedBy: "or") }

    /// The extensions as a list: ".jpg, .jpeg, .png, .gif, .webp, .heic, .heif, .hif, .avif, .mp4, ..." (help texts).
    public static var extensionList: String { fileExtensions.map { "." + $0 }.joined(separator: ", ") }

    /// The extensions for an operator: ".jpg, .jpeg, ..., .mkv or .webm".
    public static func spokenExtensions(joinedBy conjunction: String = "or") -> String {
        spoken(fileExtensions.map { "." + $0 }, joinedBy: conjunction)
    }

    private static func spoken(_ words: [String], joinedBy conjunction: String) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " \(conjunction) " + words.last!
    }
}
