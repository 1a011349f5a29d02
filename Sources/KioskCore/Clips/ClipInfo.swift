/// What a video clip is, as its container and first frame say: the words
/// of its log line, and what the show plans the clip's rest by (its length).
public struct ClipInfo: Equatable, Sendable, CustomStringConvertible {
    /// The codec as an operator knows it: "H.264", "HEVC", "VP9", "AV1".
    public var codec: String
    /// The size shown: the stored frames' size, turned as the container says (a phone held upright).
    public var size: PixelSize
    /// Bits a sample: 8, or 10 (an iPhone's HDR), 12.
    public var depth: Int
    /// Seconds, as the container says; nil when it does not.
    public var length: Double?
    /// The container's average rate; nil when it does not say.
    public var framesPerSecond: Double?
    /// The transfer, when it is an HDR one: "HLG" or "PQ" (tone-mapped as HDR photos are).
    public var highDynamicRange: String?

    public init(codec: String, size: PixelSize, depth: Int, length: Double?, framesPerSecond: Double?, highDynamicRange: String? = nil) {
        self.codec = codec
        self.size = size
        self.depth = depth
        self.length = length
        self.framesPerSecond = framesPerSecond
        self.highDynamicRange = highDynamicRange
    }

    /// "HEVC 1920x1080 10-bit HLG, 30 fps, 12.4 s".
    public var description: String {
        var words = "\(codec) \(size)"
        if depth > 8 { words += " \(depth)-bit" }
        if let highDynamicRange { words += " " + highDynamicRange }
        if let framesPerSecond, framesPerSecond.isFinite, framesPerSecond > 0 { words += ", " + Self.decimal(framesPerSecond) + " fps" }
        if let length, length.isFinite, length >= 0 { words += ", " + Self.decimal(length) + " s" }
        return words
    }

    /// A number with at most one decimal, none when it is whole: 29.97 is "30", 12.44 is "12.4".
    static func decimal(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        let whole = Int(tenths / 10)
        let tenth = Int(tenths) - whole * 10
        return tenth == 0 ? "\(whole)" : "\(whole).\(abs(tenth))"
    }
}

/// Where a movie's bytes are: a clip's whole file, the bytes `range` of a
/// motion photo's still (Google's or Samsung's, ``MotionPhotoLocation``),
/// or a Live Photo's MOV beside its still (``LivePhotoFolder``).
public struct ClipSource: Hashable, Sendable {
    public var path: String
    /// Nil: the whole file.
    public var range: Range<Int64>?

    public init(path: String, range: Range<Int64>? = nil) {
        self.path = path
        self.range = range
    }
}
