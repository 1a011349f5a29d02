import CEXIF
import KioskCore

/// Reads the EXIF Orientation tag of a JPEG with libexif.
public enum EXIFOrientation {
    /// EXIF sits in an APP1 segment right after the start of the file and is
    /// at most 64 KiB; looking further would only cost time on big files.
    static let searchLimit = 256 << 10

    /// The picture's orientation, or `.upright` when there is no EXIF, no
    /// tag, or a value outside 1...8 (broken metadata must not hide a photo).
    public static func read(_ jpeg: [UInt8]) -> ImageOrientation {
        let prefix = jpeg.prefix(searchLimit)
        let data = prefix.withUnsafeBufferPointer { bytes in
            exif_data_new_from_data(bytes.baseAddress, UInt32(bytes.count))
        }
        guard let data else { return .upright }
        defer { exif_data_unref(data) }
        // exif_data_get_entry is a C macro: look in IFD 0, where cameras put it.
        let ifd0 = withUnsafePointer(to: data.pointee.ifd) { ifds in
            ifds.withMemoryRebound(to: UnsafeMutablePointer<ExifContent>?.self, capacity: Int(EXIF_IFD_COUNT.rawValue)) {
                $0[Int(EXIF_IFD_0.rawValue)]
            }
        }
        guard let ifd0, let entry = exif_content_get_entry(ifd0, EXIF_TAG_ORIENTATION),
              entry.pointee.format == EXIF_FORMAT_SHORT, entry.pointee.components >= 1,
              let value = entry.pointee.data, entry.pointee.size >= 2
        else { return .upright }
        let raw = exif_get_short(value, exif_data_get_byte_order(data))
        return ImageOrientation(rawValue: Int(raw)) ?? .upright
    }
}
