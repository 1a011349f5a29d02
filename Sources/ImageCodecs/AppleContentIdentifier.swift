import CEXIF
import KioskCore

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
