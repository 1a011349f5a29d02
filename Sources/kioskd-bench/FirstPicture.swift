import ArgumentParser
import ImageCodecs
import KioskApp
import KioskCore
import LinuxPlatform
import SystemCalls

#if canImport(Glibc)
import Glibc
#endif

/// `first_picture_ms`: from `exec` to the first frame with the centred
/// 24 Mpx photo on screen, headless at 1920x1080, on a folder of 10,000
/// of them (hard links to one generated photo, made once and kept in the
/// build folder). Each round is a fresh process started by this one: the
/// time runs from just before `posix_spawn` (this process's
/// `CLOCK_MONOTONIC`) to the shown time of that frame (the show's own
/// clock, the same one), so the runtime's start, the listing, the display's
/// set-up and the decode all count. The child is this program, which links
/// what kioskd links; the median of `rounds`, with the files in the page
/// cache as on any start after the first.
struct FirstPicture: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "first-picture", abstract: "Print first_picture_ms: exec to the centred 24 Mpx photo on screen, 10,000 files.")

    @Option(help: "Where the folder is kept between runs.")
    var folder = ".build/bench-folder-10k"
    @Option var count = 10_000
    @Option var rounds = 7
    @Option(help: "Be the show (the child): the parent's clock when it started it, and where to write the result.")
    var since: Double?
    @Option var result: String?

    func run() throws {
        if let since, let result { return try child(since: since, result: result) }
        try makeFolder()
        var times: [Double] = [], mains: [Double] = [], ready: [Double] = []
        for round in 0..<rounds {
            let result = folder + ".result"
            unlink(result)
            fflush(nil)
            let start = MonotonicClock.now()
            let status = waitForExit(spawnSelf(["first-picture", "--folder", folder, "--since", "\(start)", "--result", result]))
            if status != 0 { throw ExitCode(status) }
            let text = (try? readWholeFile(result, limit: 100)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            let ms = text.split(separator: " ").compactMap { Double($0) }
            guard ms.count == 3 else { throw ValidationError("round \(round): the child wrote no time") }
            times.append(ms[0])
            mains.append(ms[1])
            ready.append(ms[2])
        }
        let sorted = times.sorted()
        print("first_picture_ms \(format(median(times))) ms (\(count) files, the median of \(rounds); fastest \(format(sorted.first!)), slowest \(format(sorted.last!)))")
        print("first_picture_stages_ms exec to main \(format(median(mains))), to the display set up and the folder listed \(format(median(ready))), "
            + "then the decode and the next refresh \(format(median(times) - median(ready))) ms")
    }

    private func child(since: Double, result: String) throws {
        keepPictureBuffersOutOfTheHeap()   // as kioskd does
        let mainAt = MonotonicClock.now()   // the runtime and the libraries loaded
        var firstLog: Double?   // "showing on ...": the display is set up, the folder listed and laid out
        let statistics = try DisplayJob(settings: headlessShow(folder, interval: 3600), index: 0, log: { _ in if firstLog == nil { firstLog = MonotonicClock.now() } }).run {
            $0.firstPictureShownAt != nil
        }
        guard let shown = statistics.firstPictureShownAt else { throw ExitCode(3) }
        let ready = firstLog ?? shown
        try writeWholeFile(result, bytes: Array([shown, mainAt, ready].map { format(($0 - since) * 1000) }.joined(separator: " ").utf8))
    }

    private func makeFolder() throws {
        try hardLinkedFolder(folder, count: count) { try JPEGCodec.encode(GeneratedPictures.photo(photoSize), quality: 90) }
    }
}
