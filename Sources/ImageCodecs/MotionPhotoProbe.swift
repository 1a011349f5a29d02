import CExempi
import KioskCore
import SystemCalls

/// Finds the video inside a motion photo's still: Samsung's trailer, then
/// Google's XMP (Motion Photo 1.0's `Container:Directory`, or the older
/// `GCamera:MicroVideoOffset`), each taken only where the bytes open an
/// MP4 (``MotionPhotoLocation``); failing those, for a photo whose XMP
/// says it is a motion photo, the first `ftyp` box after the image. The
/// XMP is read by Exempi, which joins a JPEG's extended XMP to the
/// standard packet and reads the RDF in either of its forms (Pixel phones
/// write attributes, Samsung's elements).
public enum MotionPhotoProbe {
    /// What a photo's XMP says of an embedded video.
    public struct XMP: Equatable, Sendable {
        /// `Camera:MotionPhoto` is 1, or `Camera:MicroVideo` is.
        public var saysMotionPhoto = false
        public var directory: [MotionPhotoLocation.ContainerItem] = []
        public var microVideoOffset: Int64?
    }

    static let cameraNamespace = "http://ns.google.com/photos/1.0/camera/"
    static let containerNamespace = "http://ns.google.com/photos/1.0/container/"
    static let itemNamespace = "http://ns.google.com/photos/1.0/container/item/"
    /// The most directory items read: a still, a gain map, a video, and room.
    static let mostItems = 16

    /// The byte range of the video in the still at `path`, or nil when it
    /// has none that opens an MP4. `head`: a JPEG's first bytes, where its
    /// standard XMP is: Exempi is asked only when they name Google's photo
    /// namespaces, so a show of plain JPEGs never loads it.
    public static func video(in path: String, head: [UInt8]? = nil) -> Range<Int64>? {
        guard let file = try? openRegularFile(path, limit: .max), let info = try? status(of: file, path: path) else { return nil }
        let size = Int64(info.st_size)
        func bytes(at offset: Int64, _ count: Int) -> [UInt8] {
            guard offset >= 0, offset < size else { return [] }
            return (try? readFilePart(file, path: path, at: Int(offset), count: count)) ?? []
        }
        func opensMP4(_ range: Range<Int64>) -> Bool { MotionPhotoLocation.opensMP4(bytes(at: range.lowerBound, 8)) }

        let tailStart = max(0, size - Int64(SamsungTrailer.tailLength))
        let trailer = SamsungTrailer(tail: bytes(at: tailStart, Int(size - tailStart)), fileSize: size)
        var samsung: Range<Int64>?
        if let trailer, let entry = trailer.motionPhoto, let block = entry.block(header: bytes(at: entry.start, 256)) {
            samsung = SamsungTrailer.video(in: block, payloadHead: bytes(at: block.payload.lowerBound, 12), fileSize: size)
        }
        let xmp = head.map(mentionsGooglePhotos) == false ? XMP() : read(path) ?? XMP()
        let candidates = MotionPhotoLocation.candidates(
            samsung: samsung, directory: xmp.directory, microVideoOffset: xmp.microVideoOffset, fileSize: size)
        if let found = candidates.first(where: opensMP4) { return found }
        guard xmp.saysMotionPhoto || trailer != nil else { return nil }
        // Metadata that points wrong (an editor, One UI's gain maps): the
        // first `ftyp` of a movie in the file, read a megabyte at a time (the
        // chunks overlap by a box header), up to Samsung's blocks if any.
        let end = trailer?.entries.map(\.start).min() ?? size
        let chunk = 1 << 20, overlap = 16
        var offset: Int64 = 0
        while offset < min(end, scanLimit) {
            let part = bytes(at: offset, chunk)
            if let at = MotionPhotoLocation.firstFileType(in: part) {
                let start = offset + Int64(at)
                return start < end ? start..<end : nil
            }
            guard part.count == chunk else { break }
            offset += Int64(chunk - overlap)
        }
        return nil
    }

    /// True when `bytes` hold the start of Google's photo namespaces
    /// (`http://ns.google.com/photos/1.0/`), as a motion photo's XMP does.
    static func mentionsGooglePhotos(_ bytes: [UInt8]) -> Bool {
        let needle = Array("ns.google.com/photos/1.0/".utf8)
        guard bytes.count >= needle.count else { return false }
        var at = 0
        while let found = bytes[at...].firstIndex(of: needle[0]), found + needle.count <= bytes.count {
            if bytes[found..<(found + needle.count)].elementsEqual(needle) { return true }
            at = found + 1
        }
        return false
    }

    /// How far into a file the scan for a movie's `ftyp` goes.
    static let scanLimit: Int64 = 256 << 20

    /// The motion photo facts in the XMP of the file at `path`; nil when
    /// it has no XMP or Exempi is not installed.
    public static func read(_ path: String) -> XMP? {
        guard case .success(true) = PhotoTitle.xmpToolkit,
              let file = xmp_files_open_new(path, XmpOpenFileOptions(XMP_OPEN_READ.rawValue | XMP_OPEN_ONLYXMP.rawValue)) else { return nil }
        defer { xmp_files_free(file) }
        guard let packet = xmp_files_get_new_xmp(file) else { return nil }
        defer { xmp_free(packet) }
        guard let scratch = xmp_string_new() else { return nil }
        defer { xmp_string_free(scratch) }
        func property(_ namespace: String, _ name: String) -> String? {
            guard xmp_get_property(packet, namespace, name, scratch, nil), let text = xmp_string_cstr(scratch) else { return nil }
            return String(cString: text).trimmingWhitespace()
        }
        /// The prefix the toolkit registered for `namespace` ("Container:"), whatever the file called it.
        func prefix(_ namespace: String) -> String? {
            guard xmp_namespace_prefix(namespace, scratch), let text = xmp_string_cstr(scratch) else { return nil }
            let prefix = String(cString: text)
            return prefix.hasSuffix(":") ? prefix : prefix + ":"
        }
        var facts = XMP()
        if let camera = prefix(cameraNamespace) {
            facts.saysMotionPhoto = property(cameraNamespace, camera + "MotionPhoto") == "1" || property(cameraNamespace, camera + "MicroVideo") == "1"
            facts.microVideoOffset = property(cameraNamespace, camera + "MicroVideoOffset").flatMap { Int64($0) }
        }
        if let container = prefix(containerNamespace), let item = prefix(itemNamespace) {
            for index in 1...mostItems {
                let path = "\(container)Directory[\(index)]/\(container)Item/\(item)"
                guard let mime = property(containerNamespace, path + "Mime") else { break }
                facts.directory.append(MotionPhotoLocation.ContainerItem(
                    mime: mime, semantic: property(containerNamespace, path + "Semantic") ?? "",
                    length: property(containerNamespace, path + "Length").flatMap { Int64($0) } ?? 0,
                    padding: property(containerNamespace, path + "Padding").flatMap { Int64($0) } ?? 0))
            }
        }
        return facts
    }
}
