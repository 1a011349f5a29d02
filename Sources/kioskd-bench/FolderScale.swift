import ArgumentParser
import CLinux
import ImageCodecs
import KioskApp
import KioskCore
import LinuxPlatform
import SystemCalls

#if canImport(Glibc)
import Glibc
#endif

/// A folder of 100,000 pictures: how long the daemon takes to its first
/// frame with pictures, and what the playlist costs in memory. The files
/// are hard links to one small JPEG (so the show can decode them), made
/// once and kept in the build folder.
struct FolderScale: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "folder", abstract: "Print list_100k_ms, rss_per_100k_pictures_mb and pairs_layout_100k_ms.")

    static let defaultFolder = ".build/bench-folder-100k"
    @Option(help: "Where the folder is kept between runs.")
    var folder = FolderScale.defaultFolder
    @Option var count = 100_000
    @Option(help: "Be the child that measures (a fresh process for each figure).")
    var child: String?
    @Option(help: "The order the memory child lists in.")
    var order = "name"
    @Option(help: "Where the memory child also writes its figure (MB), for a ratio.")
    var result: String?

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
            pairsLayout()
        }
    }

    /// `portrait_pairs` over 100,000 files, all portraits (the most
    /// pairs), each the median of five. `pairs_layout_100k_ms`: a batch of
    /// 32 sizes arrives, what the show does on its loop while the folder is
    /// measured (about 16 times, and once per batch near the centre).
    /// `pairs_playlist_change_100k_ms`: the playlist changed (a file came
    /// or went), which lays the strip over every file afresh.
    private func pairsLayout() {
        let playlist = Playlist((1...count).map { "/srv/photos/IMG_\($0).jpg" })
        let portrait = PixelSize(width: 3000, height: 4000)
        var unlaid = PairedStrip(slot: PixelSize(width: 1344, height: 1080), spacing: 38)
        for file in playlist.files.dropFirst(5 * 32) { unlaid.measured(file, size: portrait) }
        func median(_ body: (Int) -> Void) -> Double {
            var times: [Double] = []
            for round in 0..<5 {
                let start = ContinuousClock.now
                body(round)
                times.append((ContinuousClock.now - start) / .milliseconds(1))
            }
            return times.sorted()[2]
        }
        // In place, as the show does: each round a new batch of 32.
        var strip = unlaid
        strip.layOut(playlist)
        let batch = median { round in
            for file in playlist.files[(round * 32)..<(round * 32 + 32)] { strip.measured(file, size: portrait) }
            strip.layOut(playlist)
        }
        let slots = strip.unitCount
        // A file arrives: the playlist's edit says where, so only its facts are read.
        var changing = playlist
        let change = median { round in
            let edit = changing.apply(PlaylistChange(added: [PlaylistEntry("/srv/photos/IMG_5000\(round)a.jpg")]), keepingSlot: 0)
            strip.layOut(changing, after: edit)
        }
        let afresh = median { _ in
            var fresh = unlaid
            fresh.layOut(playlist)
        }
        print("pairs_layout_100k_ms \(format(batch)) ms to take 32 sizes and pair \(count) portraits (\(slots) slots), the median of 5")
        print("pairs_playlist_change_100k_ms \(format(change)) ms to lay the pairs out again after a file arrives (\(format(afresh)) ms afresh, as after a shuffle), the median of 5")
    }

    private func makeFolder() throws { try Self.makeFolder(folder, count: count) }

    static func makeFolder(_ folder: String, count: Int) throws {
        try hardLinkedFolder(folder, count: count) {
            try JPEGCodec.encode(GeneratedPictures.photo(PixelSize(width: 64, height: 48), variant: 1), quality: 80)
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
        let figure = Double(after - before) / 1024 * scale
        print("rss_per_100k_pictures_mb\(suffix) \(format(figure)) MB (\(playlist.count) pictures, order \(order))")
        if let result { try writeWholeFile(result, bytes: Array(format(figure).utf8)) }
        print("playlist_bytes_per_picture\(suffix) \(format(Double(heap - paths) / Double(max(1, playlist.count)))) bytes beyond the path strings")
    }
}

/// What malloc hands out for `bytes` on glibc: 16-byte steps, 24 bytes at least, 8 of them its own.
private func malloc_good_size(_ bytes: Int) -> Int { max(32, (bytes + 8 + 15) & ~15) }

/// `folder` holding `IMG_1.jpg` to `IMG_<count>.jpg`, hard links to one
/// file (`original` makes its bytes), or to a copy of it for each 60,000:
/// ext4 allows a file 65,000 links. Made once, kept between runs.
func hardLinkedFolder(_ folder: String, count: Int, original: () throws -> [UInt8]) throws {
    if access(folder + "/IMG_\(count).jpg", F_OK) == 0 { return }
    mkdir(folder, 0o755)
    var bytes: [UInt8]?
    for n in 1...count {
        let source = folder + "/.original-\((n - 1) / 60_000).jpg"
        if access(source, F_OK) != 0 {
            if bytes == nil { bytes = try original() }
            try writeWholeFile(source, bytes: bytes!)
        }
        if link(source, folder + "/IMG_\(n).jpg") != 0 && Errno.current != .fileExists {
            print("kioskd-bench: cannot link \(folder)/IMG_\(n).jpg to \(source): \(Errno.current)")
            throw ExitCode(1)
        }
    }
}
