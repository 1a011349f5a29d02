import ArgumentParser
import HTTPClient
import ImageCodecs
import JSONDocument
import KioskApp
import KioskCore
import LinuxPlatform
import SystemCalls
import WebServerSupport

#if canImport(Glibc)
import Glibc
#endif

/// A WebDAV library served by a real Apache (mod_dav) on loopback:
/// - `remote_first_picture_ms`: a headless show whose only library is a
///   WebDAV folder of 10,000 photos (1920x1280 JPEGs), with an empty cache:
///   from the show's start to the first frame with the centred picture
///   (listing, the first fetch, the folder's news, the decode); the median
///   of 3, each with a fresh cache.
/// - `remote_poll_cpu_ms`: the CPU time of the library's thread for one
///   poll of that folder when nothing changed (the `PROPFIND`, the parse,
///   the names judged, the plan); the median of 5.
/// - `offline_gap_frames`: a show of 30 cached pictures sliding every
///   second; Apache is killed after 3 slides, and the show goes on for 12
///   more: frames whose centred slot had no picture.
/// - `rss_per_100k_remote_assets_mb`: in a fresh process, the resident
///   memory a library of 100,000 pictures adds, fully cached: its listing
///   (as during a poll), its index, and the show's playlist of its files;
///   printed beside `rss_per_100k_pictures_mb` (a folder's 100,000),
///   measured in this run, and their ratio (the target: at most 2).
/// - `immich_listing_cpu_ms`: the CPU time to read an Immich album of
///   10,000 photos as a poll that finds a change does: 10 search pages of
///   1,000 assets each, with their EXIF and people, as Immich's
///   specification shapes them (about 11 MB of JSON), parsed by Jansson,
///   read by `ImmichAnswers`, named for the mirror and planned; the median of 5.
struct RemoteLibraryFigures: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote",
        abstract: "Print remote_first_picture_ms, remote_poll_cpu_ms, offline_gap_frames and rss_per_100k_remote_assets_mb.")

    @Option var count = 10_000
    @Option(help: "Be the child that measures memory, listing this address.")
    var memoryOf: String?
    @Option(help: "Where that child also writes its figure (MB), for the ratio.")
    var result: String?

    func run() throws {
        if let memoryOf { return try memory(of: memoryOf) }
        try immichListingCPU()
        let server = try TestWebDAVServer()
        try hardLinkedFolder(server.files + "/ten", count: count) {
            try JPEGCodec.encode(GeneratedPictures.photo(PixelSize(width: 1920, height: 1280)), quality: 90)
        }
        try firstPicture(server)
        try pollCPU(server)
        try offlineGap(server)
        try server.start()
        try hardLinkedFolder(server.files + "/large", count: 100_000) {
            try JPEGCodec.encode(GeneratedPictures.photo(PixelSize(width: 64, height: 48)), quality: 90)
        }
        try FolderScale.makeFolder(FolderScale.defaultFolder, count: 100_000)
        let results = (remote: "/tmp/kioskd-bench-remote-\(getpid()).rss", folder: "/tmp/kioskd-bench-folder-\(getpid()).rss")
        defer { unlink(results.remote); unlink(results.folder) }
        for arguments in [
            ["remote", "--memory-of", server.url + "large/", "--result", results.remote],
            ["folder", "--child", "memory", "--folder", FolderScale.defaultFolder, "--count", "100000", "--result", results.folder],
        ] {
            fflush(nil)
            let status = waitForExit(spawnSelf(arguments))
            if status != 0 { throw ExitCode(status) }
        }
        func figure(_ path: String) -> Double? { (try? readWholeFile(path, limit: 64)).flatMap { Double(String(decoding: $0, as: UTF8.self)) } }
        if let remote = figure(results.remote), let folder = figure(results.folder), folder > 0 {
            print("rss_per_100k_remote_assets_ratio \(format(remote / folder)) (rss_per_100k_remote_assets_mb over rss_per_100k_pictures_mb, this run; target at most 2)")
        }
    }

    private func show(_ url: String, state: String, interval: Double, cacheItems: Int = 10_000) throws -> KioskSettings {
        var settings = headlessShow("", interval: interval)
        settings.images = nil
        settings.stateDirectory = state
        settings.webdav.url = try ServerAddress(parsing: url)
        settings.libraryCache.maxItems = cacheItems
        return settings
    }

    private func freshState(_ name: String) -> String {
        let state = "/tmp/kioskd-bench-remote-\(getpid())-\(name)"
        removeFolderTree(state)
        mkdir(state, 0o755)
        return state
    }

    private func firstPicture(_ server: TestWebDAVServer) throws {
        var times: [Double] = []
        for round in 0..<3 {
            let state = freshState("first-\(round)")
            defer { removeFolderTree(state) }
            let start = MonotonicClock.now()
            let statistics = try DisplayJob(settings: show(server.url + "ten/", state: state, interval: 3600), index: 0, log: { _ in }).run {
                $0.firstPictureShownAt != nil || MonotonicClock.now() - start > 60
            }
            guard let shown = statistics.firstPictureShownAt else { throw ValidationError("no picture within 60 s") }
            times.append((shown - start) * 1000)
        }
        print("remote_first_picture_ms \(format(median(times))) ms (\(count) photos over WebDAV on loopback, empty cache, the median of 3; slowest \(format(times.max()!)))")
    }

    private func pollCPU(_ server: TestWebDAVServer) throws {
        var settings = WebDAVSettings()
        settings.url = try ServerAddress(parsing: server.url + "ten/")
        let files = PictureFiles(order: .name)
        let folder = try WebDAVFolder(settings: settings, address: settings.url!, shows: { files.shows($0) })
        let client = try HTTPClient()
        // The first listing, whole: what a poll that finds changes costs (its plan included).
        var cpuStart = threadCPUSeconds()
        let listed = try folder.list(using: client, unlessUnchanged: false)
        let cached = Dictionary(uniqueKeysWithValues: listed.files.map { ($0.path.relative, $0.version) })
        let plan = MirrorPlan(listed: listed.files, cached: cached, maxBytes: 1 << 40, maxItems: 1_000_000)
        let whole = (threadCPUSeconds() - cpuStart) * 1000
        guard plan.fetch.isEmpty, plan.kept == count else { throw ValidationError("the plan of a cached listing fetches") }
        var cpu: [Double] = [], wall: [Double] = []
        for _ in 0..<5 {
            let wallStart = MonotonicClock.now()
            cpuStart = threadCPUSeconds()
            let again = try folder.list(using: client, unlessUnchanged: true)
            cpu.append((threadCPUSeconds() - cpuStart) * 1000)
            wall.append((MonotonicClock.now() - wallStart) * 1000)
            guard again.unchanged, again.count == count else { throw ValidationError("an unchanged poll was not seen as unchanged") }
        }
        print("remote_poll_cpu_ms \(format(median(cpu))) ms of the library's thread for one unchanged poll of \(count) files (the median of 5; \(format(median(wall))) ms on the clock, the server's time included)")
        print("remote_listing_cpu_ms \(format(whole)) ms of the library's thread to list and plan those \(count) files whole (a poll that finds a change)")
    }

    private func immichListingCPU() throws {
        func padded(_ n: Int) -> String { String(repeating: "0", count: 6 - String(n).count) + String(n) }
        let pages = (0..<10).map { page in
            let items = (0..<1000).map { n in
                let id = "0b0e6c1e-1f1a-4c3e-8d7a-" + padded(page) + padded(n)
                return #"{"id":"\#(id)","type":"IMAGE","originalFileName":"IMG_\#(page)\#(n).HEIC","originalPath":"/upload/library/IMG_\#(page)\#(n).HEIC","#
                    + #""ownerId":"5e1f0c52-7b7e-4d43-9d3e-2f4d0c6b1a01","checksum":"q1w2e3r4t5y6u7i8o9p0a1s2d3f=","createdAt":"2024-01-01T00:00:00.000Z","#
                    + #""updatedAt":"2024-06-01T00:00:00.000Z","fileCreatedAt":"2024-05-01T12:30:00.000Z","fileModifiedAt":"2024-05-01T12:30:00.000Z","#
                    + #""localDateTime":"2024-05-01T12:30:00.000Z","duration":null,"hasMetadata":true,"width":4032,"height":3024,"isArchived":false,"#
                    + #""isEdited":false,"isFavorite":false,"isOffline":false,"isTrashed":false,"thumbhash":"1QcSHQRnh493V4dIh4eXh1h4kJUI","#
                    + #""visibility":"timeline","livePhotoVideoId":null,"exifInfo":{"make":"Apple","model":"iPhone 15","exifImageWidth":4032,"#
                    + #""exifImageHeight":3024,"fileSizeInByte":2400000,"description":"At the lake","dateTimeOriginal":"2024-05-01T10:30:00.000Z","#
                    + #""latitude":47.1,"longitude":8.2,"city":"Lucerne","country":"Switzerland","fNumber":1.8,"iso":50},"#
                    + #""people":[{"id":"1a2b3c4d-0000-4000-8000-00000000b001","name":"Grandma","birthDate":null,"isHidden":false,"thumbnailPath":""}]}"#
            }
            return Array(#"{"albums":{"count":0,"facets":[],"items":[],"total":0},"assets":{"count":1000,"facets":[],"items":["#.utf8)
                + Array(items.joined(separator: ",").utf8) + Array(#"],"nextPage":null,"total":10000}}"#.utf8)
        }
        var cpu: [Double] = []
        var files = 0
        for _ in 0..<5 {
            let start = threadCPUSeconds()
            var listed: [RemoteFile] = []
            for page in pages {
                for asset in try ImmichAnswers.searchPage(try JSONDocument.parse(page, keeping: ImmichAnswers.fieldsRead)).assets {
                    for file in asset.mirrored(size: .preview, clips: true) { if let remote = asset.remoteFile(file) { listed.append(remote) } }
                }
            }
            let plan = MirrorPlan(listed: listed, cached: [:], maxBytes: 1 << 40, maxItems: 1_000_000)
            cpu.append((threadCPUSeconds() - start) * 1000)
            files = plan.fetch.count
        }
        guard files == 10_000 else { throw ValidationError("an Immich listing of 10,000 photos planned \(files)") }
        let bytes = pages.reduce(0) { $0 + $1.count }
        print("immich_listing_cpu_ms \(format(median(cpu))) ms to read and plan an Immich album of 10,000 photos (10 search pages, \(bytes / 1_000_000) MB of JSON; the median of 5)")
    }

    private func offlineGap(_ server: TestWebDAVServer) throws {
        let state = freshState("offline")
        defer { removeFolderTree(state) }
        let settings = try show(server.url + "ten/", state: state, interval: 1, cacheItems: 30)
        // The cache filled first, as a kiosk's is after its first poll.
        let files = PictureFiles(order: .name)
        let library = try ServerLibrary(
            server: try WebDAVFolder(settings: settings.webdav, address: settings.webdav.url!, shows: { files.shows($0) }),
            mirrorRoot: state + "/libraries/webdav", cache: settings.libraryCache, poll: 600, folder: settings.folder)
        let deadline = MonotonicClock.now() + 60
        while MonotonicClock.now() < deadline {
            _ = library.waitForReport(milliseconds: 100)
            if let report = library.takeReport(), report.cached == 30 { break }
        }
        library.stop()
        var killedAt: Int?
        let statistics = try DisplayJob(settings: settings, index: 0, log: { _ in }).run { statistics in
            if killedAt == nil, statistics.slides >= 3 {
                server.stop()
                killedAt = statistics.framesShown
            }
            return statistics.slides >= 15 || MonotonicClock.now() > deadline + 60
        }
        print("offline_gap_frames \(statistics.framesWithoutPicture) frames without the centred picture (\(statistics.framesShown - (killedAt ?? 0)) frames and \(statistics.slides - 3) slides after Apache was killed, 30 pictures cached)")
    }

    private func memory(of url: String) throws {
        keepPictureBuffersOutOfTheHeap()   // as kioskd does
        var settings = WebDAVSettings()
        settings.url = try ServerAddress(parsing: url)
        let files = PictureFiles(order: .name)
        let folder = try WebDAVFolder(settings: settings, address: settings.url!, shows: { files.shows($0) })
        let client = try HTTPClient()
        let before = residentKiB("VmRSS")
        // As the daemon holds them after a poll: the index and the playlist; the listing was the poll's.
        let root = "/var/lib/kioskd/libraries/webdav/"
        let (index, playlist): (MirrorIndex, Playlist) = try {
            let listed = try folder.list(using: client, unlessUnchanged: false)
            let index = MirrorIndex(source: url, files: Dictionary(uniqueKeysWithValues: listed.files.map { ($0.path.relative, $0.version) }))
            let entries = listed.files.map { PlaylistEntry(root + $0.path.relative) }.sorted(by: PlaylistEntry.precedes)
            return (index, Playlist(entries: entries, sorted: true))
        }()
        let after = residentKiB("VmRSS")
        let scale = 100_000 / Double(max(1, playlist.count))
        let figure = Double(after - before) / 1024 * scale
        print("rss_per_100k_remote_assets_mb \(format(figure)) MB (\(index.files.count) pictures listed and cached: the cache's index and the playlist, after the poll's listing)")
        if let result { try writeWholeFile(result, bytes: Array(format(figure).utf8)) }
    }
}

/// This thread's CPU time, user and kernel, in seconds.
func threadCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
