import CEXIF
#if canImport(Glibc)
import Glibc
#endif

/// When a photo was taken: the EXIF `DateTimeOriginal` tag, read with
/// libexif (`order = "taken"`).
public enum EXIFDateTaken {
    /// Seconds since the epoch, the camera's clock read as the kiosk's
    /// local time (EXIF stores no time zone), or nil when the file has no
    /// readable date.
    public static func read(_ jpeg: [UInt8]) -> Int64? {
        guard let value = exifIFDValue(EXIF_TAG_DATE_TIME_ORIGINAL, in: jpeg), value.format == EXIF_FORMAT_ASCII, value.bytes.count >= 19
        else { return nil }
        return seconds(fromEXIF: Array(value.bytes.prefix(19)))
    }

    /// The value of `tag` in the Exif IFD of `exif` (a JPEG's first bytes,
    /// or an `Exif` item's TIFF), read by libexif, with its format; nil when
    /// there is none.
    static func exifIFDValue(_ tag: ExifTag, in exif: [UInt8]) -> (format: ExifFormat, bytes: [UInt8])? {
        let prefix = exif.prefix(EXIFOrientation.searchLimit)
        let data = prefix.withUnsafeBufferPointer { bytes in exif_data_new_from_data(bytes.baseAddress, UInt32(bytes.count)) }
        guard let data else { return nil }
        defer { exif_data_unref(data) }
        let exifIFD = withUnsafePointer(to: data.pointee.ifd) { ifds in
            ifds.withMemoryRebound(to: UnsafeMutablePointer<ExifContent>?.self, capacity: Int(EXIF_IFD_COUNT.rawValue)) {
                $0[Int(EXIF_IFD_EXIF.rawValue)]
            }
        }
        guard let exifIFD, let entry = exif_content_get_entry(exifIFD, tag), let value = entry.pointee.data, entry.pointee.size > 0
        else { return nil }
        return (entry.pointee.format, Array(UnsafeBufferPointer(start: value, count: Int(entry.pointee.size))))
    }

    /// `"YYYY:MM:DD HH:MM:SS"` as local time; nil when malformed (cameras write `"    :  :  "` for unknown).
    /// The separators are not read: Immich's `2024-05-01T12:30:00` reads the same.
    public static func seconds(fromEXIF text: [UInt8]) -> Int64? {
        func number(_ range: Range<Int>) -> Int32? {
            var value: Int32 = 0
            for byte in text[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int32(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard text.count >= 19, let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              year >= 1900, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var time = tm()
        time.tm_year = year - 1900
        time.tm_mon = month - 1
        time.tm_mday = day
        time.tm_hour = hour
        time.tm_min = minute
        time.tm_sec = second
        time.tm_isdst = -1
        let seconds = mktime(&time)
        return seconds == -1 ? nil : Int64(seconds)
    }
}

extension EXIFDateTaken {
    /// A HEIF or AVIF `Exif` item as libexif reads it (`Exif\0\0`, then the
    /// TIFF). The item starts with four bytes giving the TIFF's offset past
    /// them; some readers (libavif 0.11 and later) hand over the TIFF alone.
    static func tiff(fromExifItem item: [UInt8]) -> [UInt8]? {
        let header: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]   // "Exif\0\0"
        if item.starts(with: header) { return item }
        if item.starts(with: [0x49, 0x49, 0x2A, 0]) || item.starts(with: [0x4D, 0x4D, 0, 0x2A]) { return header + item }
        guard item.count > 4 else { return nil }
        let offset = Int(item[0]) << 24 | Int(item[1]) << 16 | Int(item[2]) << 8 | Int(item[3])
        guard offset >= 0, 4 + offset < item.count else { return nil }
        let tiff = Array(item[(4 + offset)...])
        return tiff.starts(with: header) ? tiff : header + tiff
    }
}
