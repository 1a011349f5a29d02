import Foundation
import ImageCodecs
import KioskCore
import KioskRendering
import TextRendering

/// The fuzz target for captions (`caption`): any bytes as a photo's
/// description and as a `caption` template, drawn as the show draws
/// captions: cleaned (``DisplayText``), wrapped, shaped by HarfBuzz with
/// fontconfig's fallback fonts, drawn by FreeType. The first byte picks
/// the width, the lines and the style. The layer must fit the width, and
/// nothing may crash or hang.
func drawCaption(_ bytes: UnsafeRawBufferPointer) {
    guard let first = bytes.first else { return }
    let text = DisplayText.cleaned(utf8: bytes.dropFirst())
    let styles = TextLegibility.allCases
    let appearance = TextAppearance(
        family: "DejaVu Sans", pixelSize: 12 + Int(first & 0x0F), legibility: styles[Int(first >> 4) % styles.count],
        maxWidth: 40 + Int(first) * 3, maxLines: 1 + Int(first % 4))
    if let template = try? CaptionTemplate(parsing: String(decoding: bytes.dropFirst(), as: UTF8.self)) {
        _ = template.caption(value: { _ in text }, date: { _ in "1 May 2024" })
    }
    do {
        let lines = try captionRenderer.lines(of: text, appearance: appearance)
        check(lines.count <= appearance.maxLines, "\(lines.count) lines for at most \(appearance.maxLines)")
        if let layer = try captionRenderer.layer(for: text, appearance: appearance) {
            check(layer.size.width <= max(appearance.maxWidth, 8 * appearance.pixelSize), "a layer \(layer.size.width) wide for \(appearance.maxWidth)")
        }
    } catch {
        check(false, "a caption that could not be drawn: \(error)")
    }
}

/// The fonts, opened once for the whole run (as the show's worker does).
nonisolated(unsafe) let captionRenderer = TextRenderer(fonts: try! FontLibrary(family: "DejaVu Sans"))

/// The fuzz target for photos' titles (`title`): any bytes as a file whose
/// EXIF, XMP and IPTC are read for `{title}` (libexif, Exempi, libiptcdata).
/// Nothing may crash or hang; whatever is read is cleaned for the screen.
func readTitle(_ bytes: UnsafeRawBufferPointer) {
    let path = titleFile
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { return }
    if let title = PhotoTitle.read(path: path, head: Array(bytes.prefix(128 * 1024))) {
        _ = DisplayText.cleaned(title)
    }
}

/// One scratch file for the titles' run, in this process's own name.
let titleFile = NSTemporaryDirectory() + "kioskd-fuzz-title-\(getpid()).jpg"

/// The fuzz target for motion photos (`motion`): any bytes as a photo
/// whose embedded movie is looked for (Samsung's trailer, Google's XMP
/// read by Exempi, the `ftyp` scan) and whose Live Photo identifier is
/// read (libexif and ``AppleMakerNote``). Nothing may crash or hang, and a
/// movie found lies inside the file and opens with an `ftyp` box.
func findMotion(_ bytes: UnsafeRawBufferPointer) {
    let path = motionFile
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { return }
    if let range = MotionPhotoProbe.video(in: path) {
        check(range.lowerBound >= 0 && range.upperBound <= Int64(bytes.count) && !range.isEmpty, "a movie at \(range) in \(bytes.count) bytes")
        let start = Int(range.lowerBound)
        check(start + 8 <= bytes.count && Array(bytes[(start + 4)..<(start + 8)]) == Array("ftyp".utf8), "a movie at \(range) without ftyp")
    }
    _ = AppleContentIdentifier.read(Array(bytes.prefix(128 * 1024)))
}

/// One scratch file for the motion photos' run, in this process's own name.
let motionFile = NSTemporaryDirectory() + "kioskd-fuzz-motion-\(getpid()).jpg"
