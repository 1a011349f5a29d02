import ImageCodecs

/// `kioskd-fuzz [control|config|picture|webp|heif|avif|clip|mqtt|caption|title|motion|immich] ...`: the fuzz targets in one executable,
/// chosen by the first argument (`control` when it is none of them):
/// - `control`: what a control client can send (``runControlScript(_:)``);
/// - `config`: a config file's bytes (``readConfigFile(_:)``);
/// - `picture`: a picture file's bytes (``decodePicture(_:)``);
/// - `webp`, `heif`, `avif`, `clip`: a file's bytes straight into one codec (``decodeWith(_:)``);
///   `clip` is FFmpeg's demuxers and decoders behind ``ClipCodec``, then the clip played (``playClip(_:)``);
/// - `mqtt`: a command or a group's beat from a broker (``readMQTTPayload(_:)``);
/// - `caption`: a description or caption template, drawn (``drawCaption(_:)``);
/// - `title`: a photo's EXIF, XMP and IPTC, read for its title (``readTitle(_:)``);
/// - `motion`: a photo read for an embedded movie and a Live Photo's identifier (``findMotion(_:)``);
/// - `immich`: an Immich server's answer, read as JSON and as each answer kioskd reads (``readImmichAnswer(_:)``).
///
/// Built with `-sanitize=fuzzer -D FUZZING` (`scripts/fuzz`), the rest of
/// the arguments are libFuzzer's. Otherwise it is a replayer: each
/// argument is a saved input (a crash libFuzzer found), run once.
enum FuzzTarget: String {
    case control, config, picture, webp, heif, avif, clip, mqtt, caption, title, motion, immich

    var run: (UnsafeRawBufferPointer) -> Void {
        switch self {
        case .control: return runControlScript
        case .config: return readConfigFile
        case .picture: return decodePicture
        case .webp: return decodeWith(WebPCodec.self)
        case .heif: return decodeWith(HEIFCodec.self)
        case .avif: return decodeWith(AVIFCodec.self)
        case .clip: return playClip
        case .mqtt: return readMQTTPayload
        case .caption: return drawCaption
        case .title: return readTitle
        case .motion: return findMotion
        case .immich: return readImmichAnswer
        }
    }

    /// The target named by the first argument, and the arguments after it.
    static func chosen(_ arguments: [String]) -> (FuzzTarget, [String]) {
        guard let first = arguments.first, let target = FuzzTarget(rawValue: first) else { return (.control, arguments) }
        return (target, Array(arguments.dropFirst()))
    }
}

func check(_ condition: Bool, _ message: String) {
    if !condition { fatalError("a promise broken: \(message)") }
}

#if FUZZING
/// libFuzzer's driver (it parses libFuzzer's flags and runs the loop).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// The target this run fuzzes (set before the driver starts).
nonisolated(unsafe) var fuzzed = FuzzTarget.control

/// libFuzzer's own `main` refers to this; the driver below is given it too.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzed.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// SwiftPM links an executable's entry point under this name (in place of
/// libFuzzer's own `main`): it takes the target's name off the arguments
/// and hands the rest to libFuzzer's driver.
@_cdecl("kioskd_fuzz_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var arguments = argv
    var count = argc
    if count > 1, let name = argv?[1], let target = FuzzTarget(rawValue: String(cString: name)) {
        fuzzed = target
        // The program's name moves up one, over the target's.
        argv?[1] = argv?[0]
        arguments = argv.map { $0 + 1 }
        count -= 1
    }
    return LLVMFuzzerRunDriver(&count, &arguments) { fuzzOneInput($0, $1) }
}
#else
import Foundation

@main
struct ReplayFuzzInputs {
    static func main() throws {
        let (target, paths) = FuzzTarget.chosen(Array(CommandLine.arguments.dropFirst()))
        for path in paths {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            data.withUnsafeBytes(target.run)
            print("\(path): no promise broken (\(target.rawValue))")
        }
    }
}
#endif
