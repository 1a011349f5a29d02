import ArgumentParser
import CHEIF
import ImageCodecs
import KioskCore
import KioskRendering
import SystemCalls

/// `heic_decode_ratio_vs_libheif`: kioskd's whole pipeline for a 12 Mpx
/// HEIC (4032x3024, as an iPhone takes it) into the 1344x1080 slot
/// (sniffing, reading the container, libheif's decode to its YCbCr planes,
/// their conversion to kioskd's pixels as they are resampled), over a bare
/// `heif_decode_image` of the same file to interleaved RGB, both timed in
/// the same run (medians of `rounds`). The photo is generated at run time
/// and stored as an iPhone stores it, a grid of 512x512 tiles (``benchHEIC(in:)``).
struct HEICDecode: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "heic", abstract: "Print heic_decode_ratio_vs_libheif.")
    @Option var folder = ".build/bench-pictures"
    @Option var rounds = 5

    func run() throws {
        let (pipeline, bare) = try Self.measure(folder: folder, rounds: rounds)
        let fitted = aspectFitSize(of: heicPhotoSize, in: slot)
        print("heic_decode_ratio_vs_libheif \(format(pipeline / bare)) x (\(format(pipeline)) ms to \(fitted) against \(format(bare)) ms for libheif's \(heicPhotoSize) decode to RGB)")
    }

    /// The pipeline's and the bare decode's medians, in ms (also for `kioskd-bench guard`).
    static func measure(folder: String, rounds: Int) throws -> (pipelineMs: Double, bareMs: Double) {
        let path = try benchHEIC(in: folder)
        let bytes = try readWholeFile(path, limit: 1 << 28)
        let loader = PictureLoader(background: .black)
        return try pipelineAgainstBare(
            rounds: rounds, pipeline: { _ = try loader.load(bytes: bytes, path: path, fittedTo: slot) }, bare: { try bareDecode(bytes) })
    }

    /// libheif alone: the file read, its primary image decoded to 8-bit interleaved RGB.
    private static func bareDecode(_ bytes: [UInt8]) throws {
        try OnDemandLibrary.heif.open()
        guard let context = heif_context_alloc() else { throw ValidationError("libheif cannot allocate a context") }
        defer { heif_context_free(context) }
        var handle: OpaquePointer?, image: OpaquePointer?
        let read = bytes.withUnsafeBytes { heif_context_read_from_memory_without_copy(context, $0.baseAddress, $0.count, nil) }
        guard read.code == heif_error_Ok, heif_context_get_primary_image_handle(context, &handle).code == heif_error_Ok else {
            throw ValidationError("libheif cannot read the bench's HEIC")
        }
        defer { heif_image_handle_release(handle) }
        guard heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, nil).code == heif_error_Ok else {
            throw ValidationError("libheif cannot decode the bench's HEIC")
        }
        heif_image_release(image)
    }
}
