import ArgumentParser
import CWebP
import ImageCodecs
import KioskCore
import KioskRendering
import SystemCalls

/// `webp_decode_ratio_vs_libwebp`: kioskd's whole pipeline for a 12 Mpx
/// lossy WebP into the 1344x1080 slot (sniff, EXIF, libwebp's scaled
/// decode, the composite, the turn) over a bare full-size `WebPDecodeRGBA`
/// of the same file, both timed in the same run (medians of `rounds`).
/// Below 1 because the pipeline never makes the 12 Mpx picture: libwebp
/// scales each row as it is decoded. The photo is generated and encoded
/// by `cwebp` (Debian's `webp` package) at run time.
struct WebPDecode: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "webp", abstract: "Print webp_decode_ratio_vs_libwebp.")
    @Option var folder = ".build/bench-pictures"
    @Option var rounds = 9

    static let size = PixelSize(width: 4032, height: 3024)   // a 12 Mpx phone photo

    func run() throws {
        let (pipeline, bare) = try Self.measure(folder: folder, rounds: rounds)
        let size = Self.size, fitted = aspectFitSize(of: size, in: slot)
        print("webp_decode_ratio_vs_libwebp \(format(pipeline / bare)) x (\(format(pipeline)) ms to \(fitted) against \(format(bare)) ms for the bare \(size) decode)")
    }

    /// The pipeline's and the bare decode's medians, in ms (also for `kioskd-bench guard`).
    static func measure(folder: String, rounds: Int) throws -> (pipelineMs: Double, bareMs: Double) {
        let path = try benchPhoto(size, in: folder, as: "webp", by: "cwebp", ["-quiet", "-q", "85"])
        let bytes = try readWholeFile(path, limit: 1 << 28)
        let loader = PictureLoader(background: .black)
        try OnDemandLibrary.webP.open()
        return try pipelineAgainstBare(rounds: rounds, pipeline: { _ = try loader.load(bytes: bytes, path: path, fittedTo: slot) }, bare: {
            var width: Int32 = 0, height: Int32 = 0
            let rgba = bytes.withUnsafeBufferPointer { WebPDecodeRGBA($0.baseAddress, $0.count, &width, &height) }
            guard let rgba else { throw ValidationError("libwebp cannot decode \(path)") }
            WebPFree(rgba)
        })
    }
}
