import ArgumentParser
import CWebP
import ImageCodecs
import KioskCore
import KioskRendering
#if canImport(Glibc)
import Glibc
#endif

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

    func run() throws {
        let size = PixelSize(width: 4032, height: 3024)   // a 12 Mpx phone photo
        let path = try generateWebP(size, in: folder)
        let bytes = try readWholeFile(path, limit: 1 << 28)
        let loader = PictureLoader(background: .black)
        var bare: [Double] = [], pipeline: [Double] = []
        for _ in 0..<rounds {
            bare.append(try time {
                var width: Int32 = 0, height: Int32 = 0
                let rgba = bytes.withUnsafeBufferPointer { WebPDecodeRGBA($0.baseAddress, $0.count, &width, &height) }
                guard let rgba else { throw ValidationError("libwebp cannot decode \(path)") }
                WebPFree(rgba)
            })
            pipeline.append(try time { _ = try loader.load(bytes: bytes, path: path, fittedTo: slot) })
        }
        let fitted = aspectFitSize(of: size, in: slot)
        print("webp_decode_ratio_vs_libwebp \(format(median(pipeline) / median(bare))) x (\(format(median(pipeline))) ms to \(fitted) against \(format(median(bare))) ms for the bare \(size) decode)")
    }

    /// A generated photo as a lossy WebP (`cwebp -q 85`), made once and kept.
    private func generateWebP(_ size: PixelSize, in folder: String) throws -> String {
        mkdir(folder, 0o755)
        let path = "\(folder)/photo-\(size)-v1.webp"
        if access(path, F_OK) == 0 { return path }
        let source = path + ".png"
        try writeWholeFile(source, bytes: PNGCodec.encode(GeneratedPictures.photo(size)))
        defer { unlink(source) }
        let arguments = ["cwebp", "-quiet", "-q", "85", source, "-o", path]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawnp(&pid, "cwebp", nil, nil, argv, environ) == 0, waitForExit(pid) == 0 else {
            throw ValidationError("cwebp failed: install Debian's webp package (scripts/install-deps --vm)")
        }
        return path
    }
}
