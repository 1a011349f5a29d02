import ImageCodecs
import KioskCore

/// The fuzz target for picture files (`scripts/fuzz`): any bytes, read as
/// the show reads a file in the folder (sniffed by content, decoded fitted
/// to a slot, its header read for portrait pairs, a zoom's region cut
/// out). Seeded with WebPs, so it explores libwebp's entry points most. A
/// broken file must be an error naming it; a crash, a trap or a hang is
/// what libFuzzer reports.
func decodePicture(_ bytes: UnsafeRawBufferPointer) {
    let loader = PictureLoader(background: .black)
    let file = Array(bytes)
    do {
        _ = try loader.load(bytes: file, path: "fuzz.picture", fittedTo: PixelSize(width: 64, height: 48))
        _ = try loader.uprightSize(of: file, path: "fuzz.picture")
    } catch {
        check(error.description.hasPrefix("fuzz.picture: "), "an error that does not name the file: \(error)")
    }
}
