import Foundation
import ImageCodecs
import KioskCore
import Testing
import TestSupport

/// A photo's title for its caption, from each place photos keep one, in
/// the stated order: EXIF ImageDescription, XMP dc:title, XMP
/// dc:description, IPTC Caption/Abstract. The photos are written by the
/// real tools (exif, exempi, iptc) from a plain JPEG.
@Suite struct PhotoTitleTests {
    static let plain = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../demo/images/01.jpg").standardized.path

    /// A copy of the plain JPEG with what `steps` write into it.
    func photo(_ steps: [(tool: String, arguments: [String])]) throws -> String {
        let folder = NSTemporaryDirectory() + "kioskd-title-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var path = folder + "/photo.jpg"
        try FileManager.default.copyItem(atPath: Self.plain, toPath: path)
        for (number, step) in steps.enumerated() {
            if step.tool == "exif" {
                // exif writes a new file.
                let next = folder + "/photo\(number).jpg"
                try runTool("exif", step.arguments + ["--create-exif", "-o", next, path])
                path = next
            } else {
                try runTool(step.tool, step.arguments + [path])
            }
        }
        return path
    }

    static func exif(_ text: String) -> (String, [String]) { ("exif", ["--ifd=0", "-t", "ImageDescription", "--set-value=\(text)"]) }
    static func xmp(_ property: String, _ text: String) -> (String, [String]) { ("exempi", ["-w", "-s", property, "-v", text]) }
    static func iptc(_ text: String) -> (String, [String]) { ("iptc", ["-m", "Caption", "-v", text]) }

    func title(_ path: String) throws -> String? {
        let head = Array(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(256 * 1024))
        return PhotoTitle.read(path: path, head: head)
    }

    @Test func eachPlaceATitleIsKeptIsRead() throws {
        #expect(try title(photo([Self.exif("Harbour at dusk")])) == "Harbour at dusk")
        #expect(try title(photo([Self.xmp("dc:title", "The old mill")])) == "The old mill")
        #expect(try title(photo([Self.xmp("dc:description", "A mill by the river, 1890")])) == "A mill by the river, 1890")
        #expect(try title(photo([Self.iptc("Press photo: the opening")])) == "Press photo: the opening")
        #expect(try title(Self.plain) == nil)
    }

    @Test func theOrderIsExifThenXMPTitleThenDescriptionThenIPTC() throws {
        let all = [Self.exif("From EXIF"), Self.xmp("dc:title", "From XMP title"), Self.xmp("dc:description", "From XMP description"), Self.iptc("From IPTC")]
        #expect(try title(photo(all)) == "From EXIF")
        #expect(try title(photo(Array(all.dropFirst()))) == "From XMP title")
        // A JPEG's IPTC caption and its XMP description are one (Exempi reconciles them, as the
        // Metadata Working Group says): the caption written last is what both read.
        #expect(try title(photo(Array(all.dropFirst(2)))) == "From IPTC")
        // A camera's placeholder is no title: the next place is asked.
        #expect(try title(photo([Self.exif("OLYMPUS DIGITAL CAMERA"), Self.iptc("From IPTC")])) == "From IPTC")
        #expect(try title(photo([Self.exif("   ")])) == nil)
    }

    @Test func theLoaderReadsTheTitleOnlyWhenACaptionShowsIt() throws {
        let path = try photo([Self.xmp("dc:title", "The old mill")])
        var loader = PictureLoader(background: .black)
        #expect(try loader.loadPicture(path, fittedTo: PixelSize(width: 320, height: 180)).info.caption == nil)
        loader.readsTitle = true
        #expect(try loader.loadPicture(path, fittedTo: PixelSize(width: 320, height: 180)).info.caption == "The old mill")
    }

    /// Hostile words: invalid UTF-8, controls, a bidi override and a
    /// 100,000-character description are read without harm, and cleaned
    /// for the screen to what can be shown.
    @Test func hostileDescriptionsAreReadAndCleaned() throws {
        let huge = String(repeating: "very long description ", count: 4_600)  // over 100,000 characters
        let read = try title(photo([Self.xmp("dc:title", huge)]))
        #expect(read?.count ?? 0 > 100_000)
        let shown = DisplayText.cleaned(read ?? "")
        #expect(shown.unicodeScalars.count <= DisplayText.maxScalars + 1)
        let tricky = try title(photo([Self.iptc("Caf\u{E9} \u{202E}evil\u{202C}\u{7}bell")]))
        #expect(DisplayText.cleaned(tricky ?? "") == "Café evil bell")
    }
}
