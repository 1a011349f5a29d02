import ArgumentParser
import CAVIF
import ImageCodecs
import KioskCore
import KioskRendering
import SystemCalls

/// `avif_decode_ratio_vs_bare`: kioskd's whole pipeline for a 4K AVIF
/// (3840x2160, 10-bit 4:2:0, as a phone or a browser saves one) into the
/// 1344x1080 slot (sniff, parse, libavif's decode to planes, their
/// conversion as they are resampled) over libavif alone making the
/// picture an application can show: `avifDecoderReadMemory` and
/// `avifImageYUVToRGB` to 8-bit RGBA, with the same two decoder threads.
/// Both timed in the same run (medians of `rounds`); the photo is
/// generated and encoded by `avifenc` at run time.
struct AVIFDecode: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "avif", abstract: "Print avif_decode_ratio_vs_bare.")
    @Option var folder = ".build/bench-pictures"
    @Option var rounds = 9

    func run() throws {
        let (pipeline, bare) = try Self.measure(folder: folder, rounds: rounds)
        let fitted = aspectFitSize(of: avifPhotoSize, in: slot)
        print("avif_decode_ratio_vs_bare \(format(pipeline / bare)) x (\(format(pipeline)) ms to \(fitted) against \(format(bare)) ms for libavif's \(avifPhotoSize) decode to RGBA)")
    }

    /// The pipeline's and the bare decode's medians, in ms (also for `kioskd-bench guard`).
    static func measure(folder: String, rounds: Int) throws -> (pipelineMs: Double, bareMs: Double) {
        let path = try benchAVIF(in: folder)
        let bytes = try readWholeFile(path, limit: 1 << 28)
        let loader = PictureLoader(background: .black)
        return try pipelineAgainstBare(
            rounds: rounds, pipeline: { _ = try loader.load(bytes: bytes, path: path, fittedTo: slot) }, bare: { try bareDecode(bytes) })
    }

    private static func bareDecode(_ bytes: [UInt8]) throws {
        try OnDemandLibrary.avif.open()
        guard let decoder = avifDecoderCreate(), let image = avifImageCreateEmpty() else { throw ValidationError("libavif cannot allocate") }
        defer { avifImageDestroy(image); avifDecoderDestroy(decoder) }
        decoder.pointee.maxThreads = 2
        let read = bytes.withUnsafeBufferPointer { avifDecoderReadMemory(decoder, image, $0.baseAddress, $0.count) }
        guard read == AVIF_RESULT_OK else { throw ValidationError("libavif cannot decode the bench's AVIF") }
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.depth = 8
        rgb.format = AVIF_RGB_FORMAT_RGBA
        avifRGBImageAllocatePixels(&rgb)
        defer { avifRGBImageFreePixels(&rgb) }
        guard avifImageYUVToRGB(image, &rgb) == AVIF_RESULT_OK else { throw ValidationError("libavif cannot convert the bench's AVIF") }
    }
}
