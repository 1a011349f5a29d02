/// Where the video of a motion photo lies inside its still's file, from
/// what the file says of itself. Three ways, most trusted first:
/// - Samsung's trailer (``SamsungTrailer``): the exact payload of its
///   `MotionPhoto_Data` block;
/// - Google's Motion Photo 1.0: the XMP `Container:Directory`, whose video
///   item must be the file's last bytes, so it starts `Length` bytes before
///   the end (the reader of androidx/media, `MotionPhotoDescription`, walks
///   the items back from the end the same way);
/// - the older `MVIMG` files' `GCamera:MicroVideoOffset`, counted back
///   from the end of the file.
///
/// The XMP can outlive its video (an editor kept it), and Samsung's
/// offsets are known to be off by its trailer, so each candidate is only
/// taken when the bytes there open an MP4 (``opensMP4(_:)``); when none
/// does, the caller scans after the image for an `ftyp` box
/// (``firstFileType(in:)``), as exiftool does. Pure: the caller reads.
public enum MotionPhotoLocation {
    /// One item of the XMP `Container:Directory` (namespace
    /// `http://ns.google.com/photos/1.0/container/item/`).
    public struct ContainerItem: Equatable, Sendable {
        public var mime: String
        public var semantic: String
        /// Its length in bytes as stored; 0 for the primary image.
        public var length: Int64
        /// The primary's bytes between the end of its image and the next item.
        public var padding: Int64

        public init(mime: String, semantic: String, length: Int64 = 0, padding: Int64 = 0) {
            self.mime = mime
            self.semantic = semantic
            self.length = length
            self.padding = padding
        }

        var isVideo: Bool { mime == "video/mp4" || mime == "video/quicktime" }
    }

    /// The video's bytes by the directory, walked back from the end of a
    /// file of `fileSize` bytes: the first video item (in the file's order)
    /// that spans any bytes. Nil without a primary and a video, or when the
    /// lengths add up to more than the file.
    public static func byDirectory(_ items: [ContainerItem], fileSize: Int64) -> Range<Int64>? {
        guard items.count >= 2, items.allSatisfy({ $0.length >= 0 && $0.padding >= 0 }) else { return nil }
        var start = fileSize, found: Range<Int64>?
        for (index, item) in items.enumerated().reversed() {
            var end = start
            if index == 0 {
                start = 0
                end -= item.padding
            } else {
                start -= item.length
            }
            guard start >= 0 else { return nil }
            if item.isVideo && start < end { found = start..<end }
        }
        return found
    }

    /// The video's bytes by `GCamera:MicroVideoOffset`: that many bytes
    /// before the end; nil when it does not fit the file.
    public static func byMicroVideoOffset(_ offset: Int64, fileSize: Int64) -> Range<Int64>? {
        guard offset > 0, offset < fileSize else { return nil }
        return (fileSize - offset)..<fileSize
    }

    /// The candidates to try, most trusted first, each once.
    public static func candidates(
        samsung: Range<Int64>?, directory: [ContainerItem], microVideoOffset: Int64?, fileSize: Int64
    ) -> [Range<Int64>] {
        let all = [samsung, byDirectory(directory, fileSize: fileSize), microVideoOffset.flatMap { byMicroVideoOffset($0, fileSize: fileSize) }]
        var seen: [Range<Int64>] = []
        for case let range? in all where !seen.contains(range) { seen.append(range) }
        return seen
    }

    /// True when `bytes`, a candidate's first bytes, open an ISO BMFF file
    /// (an MP4 or a QuickTime movie): a first box of at least 8 bytes
    /// whose type is `ftyp`.
    public static func opensMP4(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 8, Array(bytes[4..<8]) == fileType else { return false }
        let size = bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }
        return size >= 8 || size == 1
    }

    /// Where the first movie's `ftyp` box starts in `bytes` (its size
    /// field), for a scan of a file's bytes; nil when there is none. The
    /// box's size must be a plausible `ftyp`'s (16 to 255 bytes), and its
    /// brand not an image's: a HEIC or AVIF still begins with its own.
    public static func firstFileType(in bytes: [UInt8]) -> Int? {
        var at = 4
        while at + 8 <= bytes.count {
            if bytes[at] == fileType[0], Array(bytes[at..<(at + 4)]) == fileType,
               bytes[at - 4] == 0, bytes[at - 3] == 0, bytes[at - 2] == 0, (16...255).contains(bytes[at - 1]),
               !imageBrands.contains(Array(bytes[(at + 4)..<(at + 8)])) {
                return at - 4
            }
            at += 1
        }
        return nil
    }

    private static let fileType = Array("ftyp".utf8)
    /// The major brands of HEIF and AVIF stills.
    private static let imageBrands: Set<[UInt8]> = Set(["heic", "heix", "heim", "heis", "mif1", "msf1", "avif", "avis"].map { Array($0.utf8) })
}
