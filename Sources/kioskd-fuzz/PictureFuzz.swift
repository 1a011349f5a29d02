import Foundation
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

/// The fuzz targets for one codec each (`webp`, `heif`, `avif`, `clip`): any bytes
/// handed straight to the codec's entry points, past the sniffing that
/// would turn most of them away: a decode fitted to a slot, the header,
/// and a zoom's region. Each seeded with small files of its format.
func decodeWith(_ codec: any PictureCodec.Type) -> (UnsafeRawBufferPointer) -> Void {
    { bytes in
        let file = Array(bytes), options = DecodeOptions(background: .black), path = "fuzz.picture"
        func named(_ body: () throws(ImageFileError) -> Void) {
            do { try body() } catch { check(error.description.hasPrefix(path + ": "), "an error that does not name the file: \(error)") }
        }
        named { () throws(ImageFileError) in _ = try codec.decode(bytes: file, path: path, fittedTo: PixelSize(width: 64, height: 48), options: options) }
        named { () throws(ImageFileError) in _ = try codec.header(of: file, path: path, options: options) }
        named { () throws(ImageFileError) in
            _ = try codec.decodeRegion(
                bytes: file, path: path, region: PictureRegion(left: 0.25, top: 0.25, right: 0.75, bottom: 0.75),
                at: PixelSize(width: 32, height: 24), options: options)
        }
    }
}

/// The fuzz target for clips (`clip`): any bytes through ``ClipCodec``'s
/// entry points (``decodeWith(_:)``), then played as the show plays a clip
/// (``ClipPlayer``, from a file, looping): at most 40 frames, every third
/// call passing over frames already late. A broken clip must be an error
/// naming it; frame times must only grow. Its Live Photo identifier is read
/// too, as the folder's thread reads a `.mov`'s (``ClipCodec/contentIdentifier(ofMovie:)``).
func playClip(_ bytes: UnsafeRawBufferPointer) {
    decodeWith(ClipCodec.self)(bytes)
    let path = clipFile
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { return }
    if let identifier = ClipCodec.contentIdentifier(ofMovie: path) { check(!identifier.isEmpty, "an empty identifier") }
    let options = DecodeOptions(background: .black)
    do {
        let player = try ClipPlayer(path: path, fittedTo: PixelSize(width: 48, height: 32), options: options, loops: true, threads: 1)
        var last = -Double.infinity
        for call in 0..<40 {
            guard case .frame(let frame) = try player.next(skippingBefore: call % 3 == 2 ? last + 0.2 : -.infinity) else { break }
            check(frame.time > last && frame.time.isFinite, "frame \(frame.number) at \(frame.time) after \(last)")
            last = frame.time
        }
    } catch {
        check(error.description.hasPrefix(path + ": "), "an error that does not name the file: \(error)")
    }
}

/// One scratch file for the clips' run, in this process's own name.
let clipFile = NSTemporaryDirectory() + "kioskd-fuzz-clip-\(getpid()).mp4"
