import CEXIF
import CExempi
import CIPTC
import KioskCore
import Synchronization
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A photo's own words about itself, for its caption's `{title}`: the
/// first of EXIF `ImageDescription`, XMP `dc:title`, XMP `dc:description`
/// and the IPTC caption (2:120) that says something. Each is read by its
/// library: libexif, Exempi (Adobe's XMP toolkit, which finds the XMP in
/// JPEG, PNG, TIFF, GIF, WebP and more), libiptcdata (a JPEG's Photoshop
/// block). Text comes back as written (invalid UTF-8 replaced); the caption
/// cleans it (``DisplayText``). Exempi reconciles a JPEG's IPTC with its
/// XMP as the Metadata Working Group's guidelines say, so an IPTC caption
/// edited after the XMP is also the XMP's description.
public enum PhotoTitle {
    /// What cameras write in ImageDescription when the photographer wrote
    /// nothing: not a title, so the next source is asked.
    static let cameraPlaceholders: Set<String> = [
        "OLYMPUS DIGITAL CAMERA", "SONY DSC", "DIGITAL CAMERA", "MINOLTA DIGITAL CAMERA", "KONICA MINOLTA DIGITAL CAMERA",
        "SAMSUNG", "DCIM", "Default", "default", "Image", "image", "Picture", "picture",
    ]

    /// The title of the photo at `path`; `head`: the file's first bytes (where a JPEG's EXIF is).
    public static func read(path: String, head: [UInt8]) -> String? {
        exifDescription(head) ?? xmp(path, "title") ?? xmp(path, "description") ?? iptcCaption(path)
    }

    /// Text worth showing: not blank, not a camera's placeholder.
    static func meaningful(_ text: String?) -> String? {
        guard let text else { return nil }
        let trimmed = text.trimmingWhitespace()
        return trimmed.isEmpty || cameraPlaceholders.contains(trimmed) ? nil : trimmed
    }

    /// EXIF ImageDescription (IFD 0), ASCII by the standard but UTF-8 in practice.
    static func exifDescription(_ head: [UInt8]) -> String? {
        let data = head.withUnsafeBufferPointer { exif_data_new_from_data($0.baseAddress, UInt32($0.count)) }
        guard let data else { return nil }
        defer { exif_data_unref(data) }
        let ifd0 = withUnsafePointer(to: data.pointee.ifd) { ifds in
            ifds.withMemoryRebound(to: UnsafeMutablePointer<ExifContent>?.self, capacity: Int(EXIF_IFD_COUNT.rawValue)) { $0[Int(EXIF_IFD_0.rawValue)] }
        }
        guard let ifd0, let entry = exif_content_get_entry(ifd0, EXIF_TAG_IMAGE_DESCRIPTION),
              entry.pointee.format == EXIF_FORMAT_ASCII, let value = entry.pointee.data, entry.pointee.size > 0 else { return nil }
        let bytes = UnsafeBufferPointer(start: value, count: Int(min(entry.pointee.size, 64 * 1024)))
        return meaningful(String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self))
    }

    /// Exempi's toolkit, mapped on first use (``OnDemandLibrary``) and
    /// started once for the process (its calls are safe from any thread
    /// after): true when it started.
    static let xmpToolkit = Result { () throws(MissingLibrary) in
        try OnDemandLibrary.exempi.open()
        return xmp_init()
    }

    /// libiptcdata, mapped on first use too.
    private static let iptcLibrary = Result { () throws(MissingLibrary) in try OnDemandLibrary.iptcData.open() }

    /// Why no photo's XMP or IPTC title can be read (Exempi or libiptcdata
    /// is not installed), for the log; empty when they can. The titles the
    /// others hold are still read.
    public static var librariesMissing: [MissingLibrary] {
        [xmpToolkit.map { _ in () }, iptcLibrary].compactMap { if case .failure(let missing) = $0 { missing } else { nil } }
    }

    /// XMP `dc:<name>`, its default language (x-default), else its first.
    static func xmp(_ path: String, _ name: String) -> String? {
        guard case .success(true) = xmpToolkit, let file = xmp_files_open_new(path, XmpOpenFileOptions(XMP_OPEN_READ.rawValue | XMP_OPEN_ONLYXMP.rawValue)) else { return nil }
        defer { xmp_files_free(file) }
        guard let packet = xmp_files_get_new_xmp(file) else { return nil }
        defer { xmp_free(packet) }
        guard let value = xmp_string_new() else { return nil }
        defer { xmp_string_free(value) }
        guard xmp_get_localized_text(packet, "http://purl.org/dc/elements/1.1/", name, "", "x-default", nil, value, nil), let text = xmp_string_cstr(value) else { return nil }
        return meaningful(String(cString: text))
    }

    /// A JPEG's IPTC Caption/Abstract (2:120); other files have none.
    static func iptcCaption(_ path: String) -> String? {
        guard case .success = iptcLibrary, let data = iptc_data_new_from_jpeg(path) else { return nil }
        defer { iptc_data_unref(data) }
        guard let dataset = iptc_data_get_dataset(data, IPTC_RECORD_APP_2, IPTC_TAG_CAPTION) else { return nil }
        defer { iptc_dataset_unref(dataset) }
        var buffer = [UInt8](repeating: 0, count: 2001)  // 2:120 holds at most 2,000 bytes
        let count = iptc_dataset_get_data(dataset, &buffer, UInt32(buffer.count))
        guard count > 0 else { return nil }
        return meaningful(String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self))
    }
}
