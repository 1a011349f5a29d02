import CEXIF
import KioskCore
import SystemCalls

/// A Live Photo still's content identifier: tag 17 of Apple's makernote
/// (exiftool's `ContentIdentifier`), the UUID its movie carries as
/// `com.apple.quicktime.content.identifier` (``LivePhotoPairs``). libexif
/// finds the makernote in the EXIF; ``AppleMakerNote`` reads the tag (why
/// not libexif's own Apple makernote reader is said there).
public enum AppleContentIdentifier {
    /// The identifier in `exif`: a JPEG's first bytes, or a HEIF `Exif`
    /// item as ``EXIFDateTaken/tiff(fromExifItem:)`` gives it; nil when
    /// there is none (not an iPhone's photo, or not a Live Photo).
    public static func read(_ exif: [UInt8]) -> String? {
        EXIFDateTaken.exifIFDValue(EXIF_TAG_MAKER_NOTE, in: exif).flatMap { AppleMakerNote.contentIdentifier(in: $0.bytes) }
    }
}

/// Which side of an iPhone Live Photo a file is, and its content
/// identifier: read from the still's EXIF (a JPEG's first bytes, a HEIF's
/// `Exif` item) or the movie's QuickTime header (by FFmpeg). What the
/// folder's thread tells ``LivePhotoFolder``.
public enum LivePhotoIdentity {
    /// The file at `path` as a Live Photo's still or movie, by its
    /// content; nil for any other file, or one without an identifier.
    public static func read(_ path: String) -> LivePhotoFolder.Side? {
        guard let head = try? readFileStart(path, count: EXIFOrientation.searchLimit),
              let codec = PictureCodecs.codec(sniffing: head) else { return nil }
        if codec == JPEGCodec.self { return AppleContentIdentifier.read(head).map { .still($0) } }
        if codec == HEIFCodec.self { return HEIFCodec.exif(ofFile: path).flatMap(AppleContentIdentifier.read).map { .still($0) } }
        // An iPhone's movie is QuickTime: `ftyp` of brand `qt  `.
        if codec == ClipCodec.self, head.count >= 12, head[4..<12].elementsEqual(Array("ftypqt  ".utf8)) {
            return ClipCodec.contentIdentifier(ofMovie: path).map { .movie($0) }
        }
        return nil
    }
}
