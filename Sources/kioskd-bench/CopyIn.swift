import ArgumentParser
import Foundation
import ImageCodecs
import KioskCore

#if canImport(Glibc)
import Glibc
#endif

/// A thousand files copied into the folder while the strip slides: the
/// `slides` scenario (back-to-back slides through 24 Mpx photos, headless
/// at 1920x1080 and 60 Hz) in a child process on a folder of 100 of the
/// benchmark's photos (links), while this process writes 1,000 small JPEGs
/// into it, each a real copy (written, then closed): one beside each of
/// the photos, so those that land on screen are animated in, the other 900
/// after them, off screen. The child prints `dropped_frames_during_copy_in`: the
/// refreshes during slides and change animations that got no new frame.
struct CopyIn: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy-in", abstract: "Print dropped_frames_during_copy_in: 1,000 files copied in during 100 slides.")

    @Argument var photos: String
    @Option var files = 1000

    func run() throws {
        let folder = NSTemporaryDirectory() + "kioskd-bench-copy-in-\(getpid())"
        mkdir(folder, 0o755)
        defer { _ = try? FileManager.default.removeItem(atPath: folder) }
        // Links need the photos' absolute path.
        let photos = URL(fileURLWithPath: photos).standardizedFileURL.path
        let names = try FileManager.default.contentsOfDirectory(atPath: photos).filter { $0.hasSuffix(".jpg") }.sorted().prefix(100)
        for name in names { symlink(photos + "/" + name, folder + "/" + name) }
        let child = spawnSelf(["slides", folder, "--suffix", "_during_copy_in"])
        // Let the show start and the first slides run, then copy everything in as fast as it goes.
        sleep(2)
        let jpeg = try JPEGCodec.encode(GeneratedPictures.photo(PixelSize(width: 640, height: 480), variant: 7), quality: 85)
        let start = ContinuousClock.now
        for n in 0..<files {
            // photo-0007-copy.jpg beside photo-0007.jpg: one between every two of
            // the 100 photos (the strip's neighbours grow apart), the rest after them.
            let path = folder + "/photo-\(String(format: "%04d", n))-copy.jpg"
            try writeWholeFile(path, bytes: jpeg)
        }
        let took = (ContinuousClock.now - start) / .milliseconds(1)
        print("copy_in_files \(files) files copied in \(format(took)) ms during the slides")
        let status = waitForExit(child)
        if status != 0 { throw ExitCode(status) }
    }
}
