import ArgumentParser
import CLinux
import ImageCodecs
import KioskApp
import KioskCore

#if canImport(Glibc)
import Glibc
#endif

/// A folder of 100,000 pictures: how long the daemon takes to its first
/// frame with pictures, and what the playlist costs in memory. The files
/// are hard links to one small JPEG (so the show can decode them), made
/// once and kept in the build folder.
struct FolderScale: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "folder", abstract: "Print list_100k_ms and rss_per_100k_pictures_mb.")

    @Option(help: "Where the folder is kept between runs.")
    var folder = ".build/bench-folder-100k"
    @Option var count = 100_000
    @Option(help: "Be the child that measures (a fresh process for each figure).")
    var child: String?
    @Option(help: "The order the memory child lists in.")
    var order = "name"

    func run() throws {
        switch child {
        case "first-frame": try firstFrame()
        case "memory": try memory()
        default:
            try makeFolder()
            for (figure, order) in [("first-frame", "name"), ("memory", "name"), ("memory", "mtime")] {
                fflush(nil)
                let status = waitForExit(spawnSelf(["folder", "--folder", folder, "--count", "\(count)", "--child", figure, "--order", order]))
                if status != 0 { throw ExitCode(status) }
            }
        }
    }

    private func makeFolder() throws {
        let marker = folder + "/IMG_\(count).jpg"
        if access(marker, F_OK) == 0 { return }
        mkdir(folder, 0o755)
        let original = folder + "/.original.jpg"
        let jpeg = try JPEGCodec.encode(GeneratedPictures.photo(PixelSize(width: 64, height: 48), variant: 1), quality: 80)
        try writeWholeFile(original, bytes: jpeg)
        for n in 1...count {
            let path = folder + "/IMG_\(n).jpg"
            if link(original, path) != 0 && errno != EEXIST { throw ExitCode(1) }
        }
    }

    /// `list_100k_ms`: from the start of the daemon's work (headless, 1920x1080)
    /// to its first frame with every picture on screen (the log's "showing ..." line).
    private func firstFrame() throws {
        keepPictureBuffersOutOfTheHeap()
        let settings = headlessShow(folder, interval: 3600)
        let start = ContinuousClock.now
        var ready: Duration?
        var count = 0
        _ = try DisplayJob(settings: settings, index: 0, log: { logged in
            let line = logged.text
            if ready == nil, line.hasPrefix("showing "), line.contains(" picture(s), picture ") {
                ready = ContinuousClock.now - start
                count = Int(line.split(separator: " ")[1]) ?? 0
            }
        }).run { _ in ready != nil }
        print("list_100k_ms \(format((ready ?? .zero) / .milliseconds(1))) ms to the first frame with pictures, \(count) pictures")
    }

    /// `rss_per_100k_pictures_mb`: the resident memory the playlist adds,
    /// paths included, scaled to 100,000 pictures; and its cost per picture
    /// beyond the path strings (the 100 bytes).
    private func memory() throws {
        keepPictureBuffersOutOfTheHeap()   // as kioskd does
        var settings = FolderSettings()
        settings.order = PictureOrder(rawValue: order) ?? .name
        let before = residentKiB("VmRSS")
        let heapBefore = mallinfo2().uordblks + mallinfo2().hblkhd
        let playlist = Playlist(entries: try listPictureFolder(folder, settings: settings), sorted: true)
        let after = residentKiB("VmRSS")
        let heap = Int(mallinfo2().uordblks + mallinfo2().hblkhd) - Int(heapBefore)
        // A path is a native string: its bytes plus a 32-byte header, as malloc rounds them.
        let paths = playlist.files.reduce(0) { $0 + malloc_good_size($1.utf8.count + 1 + 32) }
        let scale = 100_000 / Double(max(1, playlist.count))
        // The default order is the figure; mtime (a rank kept for every file) is the dearer case.
        let suffix = settings.order == .name ? "" : "_\(order)"
        print("rss_per_100k_pictures_mb\(suffix) \(format(Double(after - before) / 1024 * scale)) MB (\(playlist.count) pictures, order \(order))")
        print("playlist_bytes_per_picture\(suffix) \(format(Double(heap - paths) / Double(max(1, playlist.count)))) bytes beyond the path strings")
    }
}

/// What malloc hands out for `bytes` on glibc: 16-byte steps, 24 bytes at least, 8 of them its own.
private func malloc_good_size(_ bytes: Int) -> Int { max(32, (bytes + 8 + 15) & ~15) }
