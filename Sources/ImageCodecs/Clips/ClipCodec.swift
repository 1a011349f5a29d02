import KioskCore
import KioskRendering
import SystemCalls

/// Video clips, as phones and cameras make them: MP4 and QuickTime (MOV,
/// M4V), Matroska and WebM, in H.264, HEVC, VP9 or AV1, decoded by FFmpeg
/// (``ClipStream``) in kioskd's process, loaded on the first clip met.
///
/// As a picture, a clip is its first frame (its poster): what its
/// neighbours show of it and what the strip holds while it does not play.
/// The frame is turned as the container says (a phone's clip held
/// upright), reduced and converted as HEIF and AVIF photos are
/// (``YCbCrPicture``, libyuv's box filter, HDR tone-mapped).
///
/// Recognised by content, never by name, and only after every still
/// format has passed (it is last in ``PictureCodecs/all``): HEIF and AVIF
/// claim their own `ftyp` brands first.
public enum ClipCodec {
    /// The `ftyp` brands of MP4 and QuickTime movies that phones, cameras and encoders write.
    static let movieBrands: Set<String> = [
        "isom", "iso2", "iso3", "iso4", "iso5", "iso6", "iso7", "iso8", "iso9", "mp41", "mp42", "mp71", "avc1", "hvc1", "av01",
        "M4V ", "M4VH", "M4VP", "qt  ", "3gp4", "3gp5", "3gp6", "3gp7", "3g2a", "3g2b", "3g2c", "MSNV", "XAVC", "dash", "mmp4", "f4v ",
    ]
    /// The first atoms of a QuickTime movie older than `ftyp`.
    static let quickTimeAtoms: Set<String> = ["moov", "mdat", "wide", "free", "skip", "pnot"]

    /// The clip in the open `file` (bytes `range` of it; all of it when nil), ready to decode.
    static func open(
        file: consuming FileDescriptor, range: Range<Int64>? = nil, path: String, options: DecodeOptions, threads: Int = 1
    ) throws(ImageFileError) -> ClipStream {
        try mayDecode(path, options)
        let whole = try Int64(status(of: file, path: path).st_size)
        let input = try ClipInput(file: file, range: range ?? 0..<whole)
        return try ClipStream(input, path: path, maximumPixels: options.maximumClipPixels, threads: threads)
    }

    /// The clip whole in `bytes`, ready to decode (a header read, a zoom, the fuzzer).
    static func open(bytes: [UInt8], path: String, options: DecodeOptions) throws(ImageFileError) -> ClipStream {
        try mayDecode(path, options)
        return try ClipStream(ClipInput(bytes: bytes), path: path, maximumPixels: options.maximumClipPixels)
    }

    /// Clips are allowed (`video`), and FFmpeg and libyuv are loaded.
    private static func mayDecode(_ path: String, _ options: DecodeOptions) throws(ImageFileError) {
        guard options.clipsAllowed else { throw ImageFileError(path: path, reason: .clipsOff) }
        try OnDemandLibrary.open(.avUtil, .avCodec, .avFormat, .yuv, reading: path)
    }

    /// The Live Photo identifier of the movie at `path` (``ClipStream/contentIdentifier(of:path:)``);
    /// nil when it has none, cannot be read, or FFmpeg is not installed.
    public static func contentIdentifier(ofMovie path: String) -> String? {
        guard (try? OnDemandLibrary.open(.avUtil, .avCodec, .avFormat, reading: path)) != nil,
              let file = try? openRegularFile(path, limit: .max), let size = try? status(of: file, path: path).st_size,
              let input = try? ClipInput(file: file, range: 0..<Int64(size)) else { return nil }
        return ClipStream.contentIdentifier(of: input, path: path)
    }

    /// The first frame of `stream`, fitted to `slot`.
    static func poster(of stream: ClipStream, fittedTo slot: PixelSize, options: DecodeOptions) throws(ImageFileError) -> DecodedPicture {
        let picture = try firstFrame(of: stream).fitted(upright: stream.info.size, into: slot, turning: stream.orientation, background: options.background)
        return DecodedPicture(picture: picture, info: PictureInfo(format: name, originalSize: stream.info.size, clip: stream.info))
    }

    private static func firstFrame(of stream: ClipStream) throws(ImageFileError) -> ClipFrame {
        guard let frame = try stream.nextFrame() else { throw ImageFileError(path: stream.path, reason: .corrupt("the clip has no frame that decodes")) }
        return frame
    }
}

extension ClipCodec: PictureCodec {
    public static let name = "video clip"
    public static let fileExtensions = ["mp4", "mov", "m4v", "mkv", "webm"]

    /// An MP4 or QuickTime `ftyp` of a movie brand, an older QuickTime
    /// movie's first atom, or Matroska's EBML header (WebM too).
    public static func recognises(_ head: borrowing [UInt8]) -> Bool {
        guard head.count >= 8 else { return false }
        if head[0..<4].elementsEqual([0x1A, 0x45, 0xDF, 0xA3]) { return true }
        let type = String(decoding: head[4..<8], as: UTF8.self)
        if type == "ftyp" {
            guard head.count >= 12 else { return false }
            return movieBrands.contains(String(decoding: head[8..<12], as: UTF8.self))
        }
        // An atom's size is at least its 8-byte header (1: a 64-bit size follows).
        let size = head[0..<4].reduce(0) { $0 << 8 | Int($1) }
        return quickTimeAtoms.contains(type) && (size == 1 || size >= 8)
    }

    /// The container's header: the video's size and turn, before any frame is decoded.
    public static func header(of bytes: [UInt8], path: String, options: DecodeOptions) throws(ImageFileError) -> PictureHeader {
        let stream = try open(bytes: bytes, path: path, options: options)
        return PictureHeader(storedSize: stream.info.size)
    }

    /// The same from the open file, whose header (`moov`) may be at its end.
    public static func header(
        file: consuming FileDescriptor, head: [UInt8], path: String, options: DecodeOptions
    ) throws(ImageFileError) -> PictureHeader {
        PictureHeader(storedSize: try open(file: file, path: path, options: options).info.size)
    }

    public static func decode(
        bytes: consuming [UInt8], path: String, fittedTo slot: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> DecodedPicture {
        try poster(of: open(bytes: bytes, path: path, options: options), fittedTo: slot, options: options)
    }

    /// The poster, read from the file as FFmpeg asks for its parts: a clip is never read whole.
    public static func decode(
        file: consuming FileDescriptor, head: [UInt8], path: String, fittedTo slot: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> DecodedPicture {
        try poster(of: open(file: file, path: path, options: options), fittedTo: slot, options: options)
    }

    /// Clips are read in parts, never whole: ``DecodeOptions/maximumClipBytes``.
    public static func maximumFileBytes(_ options: DecodeOptions) -> Int { options.maximumClipBytes }

    /// A zoom into the poster.
    public static func decodeRegion(
        bytes: consuming [UInt8], path: String, region: PictureRegion, at size: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> RasterImage {
        try zoomedRegion(of: open(bytes: bytes, path: path, options: options), region: region, at: size, options: options)
    }

    /// A zoom into the poster, the clip read from its file in parts.
    public static func decodeRegion(
        file: consuming FileDescriptor, path: String, region: PictureRegion, at size: PixelSize, options: DecodeOptions
    ) throws(ImageFileError) -> RasterImage {
        try zoomedRegion(of: open(file: file, path: path, options: options), region: region, at: size, options: options)
    }

    private static func zoomedRegion(of stream: ClipStream, region: PictureRegion, at size: PixelSize, options: DecodeOptions) throws(ImageFileError) -> RasterImage {
        let frame = try firstFrame(of: stream)
        let stored = frame.storedSize
        let wanted = region.pixels(of: stream.orientation.uprightSize(of: stored))
        let cut = stream.orientation.storedRect(forUpright: wanted, stored: stored)
        return try frame.planes().resampled(cropping: cut, to: size, turning: stream.orientation, background: options.background)
    }

    /// A clip's date is not read (the container's `creation_time` is UTC,
    /// where EXIF dates are local): `order = "taken"` sorts it by its file's time.
    public static func dateTaken(path: String, head: [UInt8]) -> Int64? { nil }
}

/// A clip played from its file, frame by frame, each fitted to the slot,
/// with its time on the clip's own clock: from 0 at its first frame, and
/// growing across plays when it loops (a play's length added each time).
/// Times the stream does not give, or gives out of order (a clip of zero
/// durations), become the previous frame's time plus the clip's nominal
/// frame time, so the clip always moves on.
public final class ClipPlayer {
    public let path: String
    public let slot: PixelSize
    /// What the container says.
    public var info: ClipInfo { stream.info }
    private let stream: ClipStream
    private let options: DecodeOptions
    private let loops: Bool
    /// Where its frames are made, one after another.
    private let memory = ClipFrameMemory()
    /// The first frame's own timestamp: clip times count from it.
    private var origin: Double?
    /// The last frame's time on the clip's clock, and where the plays before this one end.
    private var last: Double?
    private var playsBefore = 0.0
    /// Frames given out, over every play.
    public private(set) var frames = 0

    /// The nominal time of one frame: the container's rate, else 1/30 s.
    public var frameTime: Double {
        guard let rate = info.framesPerSecond, rate.isFinite, (1...240).contains(rate) else { return 1.0 / 30 }
        return 1 / rate
    }

    /// Opens the clip at `path` to play it fitted to `slot`, decoded by
    /// `threads` threads; `loops`: it plays again from the start at its end.
    /// `range`: the movie is those bytes of the file (a motion photo's, inside its still).
    public init(
        path: String, range: Range<Int64>? = nil, fittedTo slot: PixelSize, options: DecodeOptions, loops: Bool, threads: Int
    ) throws(ImageFileError) {
        self.path = path
        self.slot = slot
        self.options = options
        self.loops = loops
        stream = try LibraryMessages.about(path) { () throws(ImageFileError) in
            try ClipCodec.open(file: openRegularFile(path, limit: options.maximumClipBytes), range: range, path: path, options: options, threads: threads)
        }
    }

    /// One frame decoded and fitted to the slot.
    public struct Frame {
        public let number: Int
        /// Seconds on the clip's clock.
        public let time: Double
        public let picture: RasterImage
        /// Frames decoded before it and passed over, late (``next(skippingBefore:)``).
        public let skipped: Int
    }

    /// The most late frames passed over in a row: then one is given, late or not.
    static let mostSkipped = 30

    /// What comes next: a frame, or the end (where the last play ends on
    /// the clip's clock; never for a clip that loops, unless it has no frame at all).
    public enum Next {
        case frame(Frame)
        case end(at: Double)
    }

    /// The next frame; frames earlier than `late` on the clip's clock are
    /// decoded (those after them need them) but not converted, and counted
    /// in the frame given (a decoder fallen behind catches up).
    public func next(skippingBefore late: Double = -.infinity) throws(ImageFileError) -> Next {
        try LibraryMessages.about(path) { () throws(ImageFileError) in try nextNow(skippingBefore: late) }
    }

    private func nextNow(skippingBefore late: Double) throws(ImageFileError) -> Next {
        var skipped = 0
        while true {
            var decoded = try stream.nextFrame()
            if decoded == nil, loops, let last {
                // The end of a play: the next begins a frame after its last.
                playsBefore = last + frameTime
                origin = nil
                try stream.rewind()
                decoded = try stream.nextFrame()
            }
            guard let frame = decoded else { return .end(at: last.map { $0 + frameTime } ?? 0) }
            let time = clipTime(of: frame.time)
            last = time
            frames += 1
            if time < late && skipped < Self.mostSkipped {
                skipped += 1
                continue
            }
            let picture = try frame.fitted(upright: info.size, into: slot, turning: stream.orientation, background: options.background, memory: memory)
            return .frame(Frame(number: frames - 1, time: time, picture: picture, skipped: skipped))
        }
    }

    /// A frame's time on the clip's clock from its own timestamp `own`
    /// (NaN when the stream gives none): from 0 at the play's first frame,
    /// after the plays before; always after the last frame's, and never
    /// more than a second (or ten frames) after it, so a timestamp that
    /// jumps (a broken file) does not freeze the clip.
    private func clipTime(of own: Double) -> Double {
        guard own.isFinite else { return last.map { $0 + frameTime } ?? playsBefore }
        if origin == nil { origin = own }
        var time = playsBefore + own - (origin ?? own)
        if let last {
            if !(time > last) {
                time = last + frameTime
            } else if time - last > max(1, 10 * frameTime) {
                // Counted on from here: the frames after follow this one.
                origin = playsBefore + own - (last + frameTime)
                time = last + frameTime
            }
        }
        return time
    }
}
