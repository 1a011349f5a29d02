import Foundation
import ImageCodecs
@testable import KioskApp
import KioskCore
import TestSupport
import Testing

/// A folder of its own for one test, removed afterwards.
final class PictureFolderFixture {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "kioskd-folder-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `name` (a path inside the folder; folders made as needed): a
    /// demo JPEG by default, written in one go and closed.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]? = nil) throws -> String {
        let file = path + "/" + name
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes ?? Self.photo).write(to: URL(fileURLWithPath: file))
        return file
    }

    func mkdir(_ name: String) throws {
        try FileManager.default.createDirectory(atPath: path + "/" + name, withIntermediateDirectories: true)
    }

    func remove(_ name: String) throws { try FileManager.default.removeItem(atPath: path + "/" + name) }

    /// Dates `name` an hour back, as a photo copied long ago (a USB stick's) is.
    func age(_ name: String) {
        var times = [timespec(tv_sec: time(nil) - 3600, tv_nsec: 0), timespec(tv_sec: time(nil) - 3600, tv_nsec: 0)]
        precondition(utimensat(AT_FDCWD, path + "/" + name, &times, 0) == 0)
    }

    func link(_ name: String, to target: String) throws {
        try FileManager.default.createSymbolicLink(atPath: path + "/" + name, withDestinationPath: target)
    }

    /// A real photo: the first demo card.
    static let photo = [UInt8](FileManager.default.contents(atPath: demoImages + "/01.jpg")!)
}

@Suite struct FolderWalkTests {
    func walk(_ folder: String, recursive: Bool = true) throws -> FolderListing {
        var settings = FolderSettings()
        settings.recursive = recursive
        return try FolderListing(folder: folder, settings: settings)
    }

    @Test func picturesPlayInNaturalOrderSubfoldersTooAndTheRestIsExplained() throws {
        let folder = try PictureFolderFixture()
        for name in ["b.jpg", "B.JPG", "10.jpeg", "9.png", "a.Jpeg", "IMG_10.jpg", "img_2.jpg", "notes.txt", ".DS_Store", "README",
                     "trip 10/a.jpg", "trip 2/b.jpg", "trip 2/a.jpg", ".thumbnails/x.jpg", "trip 2/.hidden.jpg"] {
            try folder.write(name)
        }
        let listing = try walk(folder.path)
        #expect(listing.entries.map { String($0.path.dropFirst(folder.path.count + 1)) } == [
            "9.png", "10.jpeg", "a.Jpeg", "B.JPG", "b.jpg", "img_2.jpg", "IMG_10.jpg", "trip 2/a.jpg", "trip 2/b.jpg", "trip 10/a.jpg",
        ])
        #expect(listing.notes.sorted() == [
            "ignoring \(folder.path)/README: not a .jpg, .jpeg, .png, .gif, .webp, .heic, .heif, .hif, .avif, .mp4, .mov, .m4v, .mkv or .webm file",
            "ignoring \(folder.path)/notes.txt: not a .jpg, .jpeg, .png, .gif, .webp, .heic, .heif, .hif, .avif, .mp4, .mov, .m4v, .mkv or .webm file",
        ])
        let flat = try walk(folder.path, recursive: false)
        #expect(flat.entries.count == 7)
        #expect(flat.notes.contains("ignoring \(folder.path)/trip 2: subfolders are not searched (recursive = false)"))
    }

    /// Clips are listed with the pictures; `video = false` passes over
    /// them, each with a line saying why.
    @Test func videoFalsePassesOverTheClips() throws {
        let folder = try PictureFolderFixture()
        for name in ["a.jpg", "b.MP4", "c.mov", "d.webm", "e.mkv", "f.m4v"] { try folder.write(name) }
        #expect(try walk(folder.path).entries.count == 6)
        var settings = FolderSettings()
        settings.clips = false
        let listing = try FolderListing(folder: folder.path, settings: settings)
        #expect(listing.entries.map { String($0.path.dropFirst(folder.path.count + 1)) } == ["a.jpg"])
        #expect(listing.notes.sorted() == ["b.MP4", "c.mov", "d.webm", "e.mkv", "f.m4v"].map { "ignoring \(folder.path)/\($0): a video clip, and video = false" })
    }

    /// Links are followed, to files and folders, but a link back up is a
    /// loop and is not: the walk ends, and each picture is listed once.
    @Test func linksAreFollowedButLoopsAreNot() throws {
        let folder = try PictureFolderFixture()
        let elsewhere = try PictureFolderFixture()
        try elsewhere.write("far.jpg")
        try folder.write("sub/a.jpg")
        try folder.link("sub/up", to: folder.path)
        try folder.link("sub/self", to: ".")
        try folder.link("linked.jpg", to: folder.path + "/sub/a.jpg")
        try folder.link("away", to: elsewhere.path)
        try folder.link("dangling.jpg", to: "/nonexistent/x.jpg")
        let listing = try walk(folder.path)
        #expect(listing.entries.map(\.path) == [folder.path + "/away/far.jpg", folder.path + "/linked.jpg", folder.path + "/sub/a.jpg"])
        #expect(listing.notes.contains("ignoring \(folder.path)/sub/up: a link back to a folder it is inside (a loop)"))
        #expect(listing.notes.contains("ignoring \(folder.path)/sub/self: a link back to a folder it is inside (a loop)"))
        #expect(listing.notes.contains { $0.hasPrefix("ignoring \(folder.path)/dangling.jpg: stat failed: No such file") })
    }

    @Test func aNameThatIsNotUTF8IsRefusedWithALine() throws {
        let folder = try PictureFolderFixture()
        let name = folder.path + "/caf\u{E9}.jpg"
        // Latin-1 é: one byte, 0xE9, not UTF-8.
        var bytes = Array(folder.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".jpg".utf8) + [0]
        let fd = bytes.withUnsafeMutableBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644) }
        #expect(fd >= 0)
        close(fd)
        try folder.write("ok.jpg")
        let listing = try walk(folder.path)
        #expect(listing.entries.map(\.path) == [folder.path + "/ok.jpg"])
        #expect(listing.notes == ["ignoring \(folder.path)/caf\u{FFFD}.jpg: the name is not UTF-8; rename the file"])
        _ = name
    }

    @Test func aMissingFolderIsAClearError() {
        let error = expectError(SystemCallError.self) { try walk("/nonexistent/kioskd-photos") }
        #expect(error?.errno == ENOENT)
        #expect(error?.description == "/nonexistent/kioskd-photos: opendir failed: No such file or directory (errno 2)")
    }

    /// `order = "mtime"` and `"taken"`: oldest first; a photo without an
    /// EXIF date sorts by its modification time.
    @Test func modificationTimesOrderOldestFirst() throws {
        let folder = try PictureFolderFixture()
        for (name, age) in [("a.jpg", 10), ("b.jpg", 30), ("c.jpg", 20)] {
            let path = try folder.write(name)
            var times = [timespec(tv_sec: 1_700_000_000 - age, tv_nsec: 0), timespec(tv_sec: 1_700_000_000 - age, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        }
        for order in [PictureOrder.mtime, .taken] {
            var settings = FolderSettings()
            settings.order = order
            let listing = try FolderListing(folder: folder.path, settings: settings)
            #expect(listing.entries.map { Playlist.fileName(of: $0.path) } == ["b.jpg", "c.jpg", "a.jpg"], "\(order)")
        }
    }
}

import SystemCalls

/// The folder's thread on a real folder, with real inotify: what it reports, and when.
@Suite(.serialized) struct FolderWatcherTests {
    /// News gathered until `done` holds of all of it, or 30 s pass (a
    /// generous bound for a busy machine: it returns as soon as `done` holds).
    func news(from watcher: FolderWatcher, until done: ([FolderNews]) -> Bool) -> [FolderNews] {
        var all: [FolderNews] = []
        let deadline = Date().addingTimeInterval(30)
        while !done(all), Date() < deadline {
            _ = watcher.waitForNews(milliseconds: 100)
            all += watcher.take()
        }
        return all
    }

    func added(_ news: [FolderNews]) -> [String] {
        news.flatMap { item -> [String] in
            if case .changes(let change) = item { return change.added.map(\.path) }
            return []
        }
    }

    /// The files a playlist holds after `news`, starting from `start`.
    func files(after news: [FolderNews], from start: [PlaylistEntry] = []) -> [String] {
        var playlist = Playlist(entries: start)
        for item in news {
            switch item {
            case .listing(let entries, _): _ = playlist.replace(with: entries, keepingSlot: 0)
            case .changes(let change): _ = playlist.apply(change, keepingSlot: 0)
            case .folderLeft(let folder): _ = playlist.apply(PlaylistChange(removed: playlist.files(under: folder)), keepingSlot: 0)
            case .folderGone: playlist = Playlist()
            case .note: break
            }
        }
        return playlist.files
    }

    func removed(_ news: [FolderNews]) -> [String] {
        news.flatMap { item -> [String] in
            if case .changes(let change) = item { return change.removed }
            return []
        }
    }

    /// A file being copied is not news until it is closed; then it is, once.
    /// A rescan in the middle of the copy (as an overflow, the watch limit or
    /// a mount change makes) lists the folder without it.
    @Test func aFileJoinsWhenItsCopyIsClosedNotBefore() throws {
        let folder = try PictureFolderFixture()
        try folder.write("old.jpg")
        folder.age("old.jpg")
        let watcher = try FolderWatcher(root: folder.path, settings: FolderSettings())
        defer { watcher.stop() }
        #expect(watcher.firstListing == [PlaylistEntry(folder.path + "/old.jpg")])
        let path = folder.path + "/slow.jpg"
        let fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
        try #require(fd >= 0)
        let photo = PictureFolderFixture.photo
        var during: [FolderNews] = []
        for (chunk, start) in stride(from: 0, to: photo.count, by: 4096).enumerated() {
            let bytes = Array(photo[start..<min(start + 4096, photo.count)])
            #expect(write(fd, bytes, bytes.count) == bytes.count)
            if chunk == 2 { watcher.rescan() }
            // The copier's pace: a little slower than the folder's batches.
            _ = watcher.waitForNews(milliseconds: 150)
            during += watcher.take()
        }
        let relisted = during.filter { if case .listing = $0 { return true } else { return false } }
        #expect(relisted == [.listing([PlaylistEntry(folder.path + "/old.jpg")], notes: [])], "the forced rescan, without the open copy")
        #expect(!files(after: during).contains(path), "news of slow.jpg before its copy was closed: \(during)")
        close(fd)
        let arrived = news(from: watcher) { files(after: during + $0).contains(path) }
        #expect(added(arrived) == [path])
    }

    /// A picture written just before a rescan may be a copy still open: the
    /// listing holds it back, and it joins once it has been quiet for the
    /// settle time, even when no close is seen.
    @Test func aPictureWrittenJustBeforeARescanJoinsOnceItSettles() throws {
        let folder = try PictureFolderFixture()
        try folder.write("a.jpg")
        folder.age("a.jpg")
        try folder.write("b.jpg")
        folder.age("b.jpg")
        let watcher = try FolderWatcher(root: folder.path, settings: FolderSettings())
        defer { watcher.stop() }
        #expect(watcher.firstListing?.count == 2)
        // b.jpg rewritten without a close the watch sees: its time set to now (IN_ATTRIB is not watched).
        #expect(utimensat(AT_FDCWD, folder.path + "/b.jpg", nil, 0) == 0)
        let rescannedAt = Date()
        watcher.rescan()
        let listed = news(from: watcher) { news in news.contains { if case .listing = $0 { return true } else { return false } } }
        #expect(listed.contains(.listing([PlaylistEntry(folder.path + "/a.jpg")], notes: [])), "\(listed)")
        let settled = news(from: watcher) { files(after: listed + $0).contains(folder.path + "/b.jpg") }
        #expect(added(settled) == [folder.path + "/b.jpg"])
        #expect(Date().timeIntervalSince(rescannedAt) >= SettlingFiles.settleTime - 0.1, "joined before it settled")
    }

    /// The mount table changes all the time on a busy machine: a mount
    /// elsewhere lists nothing again (a mount over the folder does, but
    /// needs root and a filesystem: the pure `MountTable` tests cover it).
    @Test func aMountElsewhereListsNothingAgain() throws {
        let folder = try PictureFolderFixture()
        try folder.write("a.jpg")
        let watcher = try FolderWatcher(root: folder.path, settings: FolderSettings())
        defer { watcher.stop() }
        let elsewhere = try PictureFolderFixture()
        guard mount("none", elsewhere.path, "tmpfs", 0, nil) == 0 else { return }  // not root, or no mounts here
        defer { umount(elsewhere.path) }
        try folder.write("b.jpg")
        let after = news(from: watcher) { !added($0).isEmpty }
        #expect(added(after) == [folder.path + "/b.jpg"])
        #expect(!after.contains { if case .listing = $0 { return true } else { return false } }, "\(after)")
    }

    @Test func renamesIntoPlaceDeletionsAndRenamesAwayAreReported() throws {
        let folder = try PictureFolderFixture()
        try folder.write("stays.jpg")
        try folder.write("goes.jpg")
        let watcher = try FolderWatcher(root: folder.path, settings: FolderSettings())
        defer { watcher.stop() }
        #expect(watcher.firstListing?.map(\.path) == [folder.path + "/goes.jpg", folder.path + "/stays.jpg"])
        // rsync's way: a hidden temporary file, renamed into place.
        try folder.write(".IMG_1.jpg.Xa3f")
        #expect(rename(folder.path + "/.IMG_1.jpg.Xa3f", folder.path + "/IMG_1.jpg") == 0)
        try folder.remove("goes.jpg")
        #expect(rename(folder.path + "/stays.jpg", folder.path + "/.trash-stays.jpg") == 0)
        let all = news(from: watcher) { removed($0).count == 2 && !added($0).isEmpty }
        #expect(added(all) == [folder.path + "/IMG_1.jpg"])
        #expect(Set(removed(all)) == [folder.path + "/goes.jpg", folder.path + "/stays.jpg"])
    }

    @Test func subfoldersAreWatchedAsTheyAppearAndLeaveWhole() throws {
        let folder = try PictureFolderFixture()
        let watcher = try FolderWatcher(root: folder.path, settings: FolderSettings())
        defer { watcher.stop() }
        try folder.write("2024/may/a.jpg")       // the folders and the file in quick succession
        let first = news(from: watcher) { added($0).count == 1 }
        #expect(added(first) == [folder.path + "/2024/may/a.jpg"])
        try folder.write("2024/may/b.jpg")       // in a folder only the thread knew about
        let second = news(from: watcher) { added($0).count == 1 }
        #expect(added(second) == [folder.path + "/2024/may/b.jpg"])
        try folder.remove("2024")
        let left = news(from: watcher) { $0.contains(.folderLeft(folder.path + "/2024/")) }
        #expect(left.contains(.folderLeft(folder.path + "/2024/")))
    }

    /// The folder deleted, then made again: said once, then listed whole.
    @Test func aFolderThatGoesIsWaitedForAndListedWhenItIsBack() throws {
        let parent = try PictureFolderFixture()
        let root = parent.path + "/pictures"
        try parent.write("pictures/a.jpg")
        let watcher = try FolderWatcher(root: root, settings: FolderSettings())
        defer { watcher.stop() }
        try parent.remove("pictures")
        let gone = news(from: watcher) { $0.contains(.folderGone) }
        #expect(gone.filter { $0 == .folderGone }.count == 1)
        try parent.mkdir("pictures.tmp")
        try parent.write("pictures.tmp/b.jpg")
        parent.age("pictures.tmp/b.jpg")   // a folder from elsewhere: its photos were written long ago
        #expect(rename(parent.path + "/pictures.tmp", root) == 0)
        let back = news(from: watcher) { news in news.contains { if case .listing = $0 { return true } else { return false } } }
        #expect(back.contains(.listing([PlaylistEntry(root + "/b.jpg")], notes: [])))
    }

    /// A folder missing at the start (a USB stick not yet mounted) is waited for.
    @Test func aFolderMissingAtTheStartIsWaitedFor() throws {
        let parent = try PictureFolderFixture()
        let watcher = try FolderWatcher(root: parent.path + "/usb/photos", settings: FolderSettings())
        defer { watcher.stop() }
        #expect(watcher.firstListing == nil)
        try parent.write("usb/photos/a.jpg")
        // Listed when the folder appears (perhaps still empty), the file then or just after.
        let back = news(from: watcher) { files(after: $0) == [parent.path + "/usb/photos/a.jpg"] }
        #expect(files(after: back) == [parent.path + "/usb/photos/a.jpg"])
        #expect(back.contains { if case .listing = $0 { return true } else { return false } })
    }

    /// Past the kernel's watch limit: one line, then rescans every
    /// `rescan_interval`, which still find files in the unwatched folders.
    /// (The limit is simulated: the real one is the machine's, shared by
    /// every process.)
    @Test func pastTheWatchLimitTheFolderIsRescanned() throws {
        let folder = try PictureFolderFixture()
        try folder.write("a/1.jpg")
        try folder.write("b/1.jpg")
        var settings = FolderSettings()
        settings.rescanInterval = 1
        let watcher = try FolderWatcher(root: folder.path, settings: settings, watchLimit: 2)
        defer { watcher.stop() }
        let note = news(from: watcher) { !$0.isEmpty }
        #expect(note.count == 1)
        guard case .note(let line)? = note.first else { Issue.record("no note: \(note)"); return }
        #expect(line.hasPrefix("the kernel's inotify watch limit is reached (fs.inotify.max_user_watches) at \(folder.path)/"))
        #expect(line.hasSuffix(": listing \(folder.path) again every 1 s instead"))
        let unwatched = watcher.firstListing!.count == 2 ? "b" : "a"
        try folder.write("b/2.jpg")
        try folder.write("a/2.jpg")
        let rescan = news(from: watcher) { news in news.contains { if case .listing(let entries, _) = $0 { return entries.count == 4 } else { return false } } }
        #expect(rescan.contains { if case .listing(let entries, _) = $0 { return entries.count == 4 } else { return false } }, "\(unwatched)")
    }
}

import ControlClient

/// The built daemon, headless, on a folder the test changes while it runs:
/// every change shows in `status` within a second, and the daemon lives.
@Suite struct LiveFolderDaemonTests {
    typealias Daemon = HeadlessDaemonTests.Daemon

    /// A daemon resting on `folder` (a long interval: only the folder moves it).
    func start(_ folder: PictureFolderFixture, _ extra: [String] = []) throws -> (Daemon, ControlConnection) {
        let daemon = try Daemon(["--images", folder.path, "--interval", "600", "--transition", "0.2"] + extra)
        daemon.waitFor("control socket: ")
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: daemon.socket) { usleep(20_000) }
        return (daemon, try ControlConnection(path: daemon.socket))
    }

    func status(_ control: ControlConnection) throws -> [String: Any] {
        (try JSONSerialization.jsonObject(with: Data(try control.request("status"))) as? [String: Any]) ?? [:]
    }

    /// Asks `status` until `holds` (at most 1 s after the change, as the
    /// issue asks, unless `seconds` says why not); the last status.
    @discardableResult
    func within1s(
        _ control: ControlConnection, _ what: String, seconds: Double = 1, _ holds: ([String: Any]) -> Bool
    ) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        var last: [String: Any] = [:]
        repeat {
            last = try status(control)
            if holds(last) { return last }
            usleep(10_000)
        } while Date() < deadline
        Issue.record("not within \(seconds) s: \(what); status \(last)")
        return last
    }

    func folderOf(_ names: [String]) throws -> PictureFolderFixture {
        let folder = try PictureFolderFixture()
        for name in names { try folder.write(name) }
        return folder
    }

    @Test func addedRenamedAndSubfolderPicturesJoinWithinASecond() throws {
        let folder = try folderOf(["b.jpg", "d.jpg"])
        let (daemon, control) = try start(folder)
        defer { _ = daemon.stop() }
        #expect(try status(control)["count"] as? Int == 2)
        try folder.write("a.jpg")
        // a.jpg sorts first: the centred b.jpg stays in the centre, now as item 1.
        try within1s(control, "a.jpg added") { $0["count"] as? Int == 3 && $0["index"] as? Int == 1 && $0["file"] as? String == "b.jpg" }
        try folder.write(".c.jpg.part")
        #expect(rename(folder.path + "/.c.jpg.part", folder.path + "/c.jpg") == 0)
        try within1s(control, "c.jpg renamed into place") { $0["count"] as? Int == 4 }
        try folder.write("2024/e.jpg")
        // A new folder is walked when the thread hears of it. On a busy machine
        // e.jpg may be written and closed by then, before its folder's watch
        // existed: no close event will come, and it is held like any fresh file
        // a listing finds, until it has been quiet for the settle time
        // (FolderWatcher's doc comment). When the watch comes first, within 1 s.
        try within1s(control, "a subfolder's picture", seconds: SettlingFiles.settleTime + 1) { $0["count"] as? Int == 5 }
        #expect(try ControlConnection(path: daemon.socket).request("goto e.jpg").count > 0)
        try within1s(control, "goto e.jpg") { $0["file"] as? String == "e.jpg" && $0["index"] as? Int == 0 }
        let lines = daemon.stop().joined(separator: "\n")
        #expect(lines.contains("kioskd: 3 picture(s) in the playlist (1 added)"))
        #expect(!lines.contains("skipping"))
    }

    /// A big file copied slowly, in chunks: never shown (or refused) half-written.
    @Test func aSlowCopyIsShownOnlyWhenComplete() throws {
        let folder = try folderOf(["a.jpg"])
        let (daemon, control) = try start(folder)
        defer { _ = daemon.stop() }
        let big = try #require(FileManager.default.contents(atPath: demoImages + "/08.jpg")).map { $0 }
        let fd = open(folder.path + "/b.jpg", O_CREAT | O_WRONLY | O_TRUNC, 0o644)
        try #require(fd >= 0)
        for start in stride(from: 0, to: big.count, by: big.count / 8 + 1) {
            let chunk = Array(big[start..<min(start + big.count / 8 + 1, big.count)])
            #expect(write(fd, chunk, chunk.count) == chunk.count)
            usleep(150_000)
            #expect(try status(control)["count"] as? Int == 1, "shown before the copy ended")
        }
        close(fd)
        try within1s(control, "the copy closed") { $0["count"] as? Int == 2 }
        #expect(try ControlConnection(path: daemon.socket).request("next").count > 0)
        try within1s(control, "moved onto b.jpg") { $0["file"] as? String == "b.jpg" && $0["moving"] as? Bool == false }
        usleep(200_000)
        let log = daemon.stop().joined(separator: "\n")
        #expect(!log.contains("skipping"), "a half-written file was decoded: \(log)")
    }

    @Test func deletingTheCentredPictureCentresTheNextThenANeighbourLeaves() throws {
        let folder = try folderOf(["a.jpg", "b.jpg", "c.jpg", "d.jpg"])
        let (daemon, control) = try start(folder)
        defer { _ = daemon.stop() }
        try folder.remove("a.jpg")
        try within1s(control, "a.jpg deleted") { $0["count"] as? Int == 3 && $0["file"] as? String == "b.jpg" && $0["index"] as? Int == 0 }
        try folder.remove("c.jpg")
        try within1s(control, "c.jpg deleted") { $0["count"] as? Int == 2 && $0["file"] as? String == "b.jpg" }
        // Everything, then one new picture.
        try folder.remove("b.jpg")
        try folder.remove("d.jpg")
        try within1s(control, "all deleted") { $0["count"] as? Int == 0 && $0["file"] is NSNull }
        try folder.write("new.jpg")
        try within1s(control, "new.jpg added to the empty show") { $0["count"] as? Int == 1 && $0["file"] as? String == "new.jpg" }
        let log = daemon.stop().joined(separator: "\n")
        #expect(log.contains("kioskd: no picture in the folder can be shown: showing the background only"))
    }

    /// The folder removed (a USB stick pulled), then restored.
    @Test func aFolderThatGoesShowsTheBackgroundUntilItComesBack() throws {
        let parent = try PictureFolderFixture()
        try parent.write("photos/a.jpg")
        try parent.write("photos/b.jpg")
        // A USB stick's photos were written long ago; fresh ones would be held for the settle time.
        parent.age("photos/a.jpg")
        parent.age("photos/b.jpg")
        let folder = parent.path + "/photos"
        let daemon = try Daemon(["--images", folder, "--interval", "600"])
        daemon.waitFor("control socket: ")
        defer { _ = daemon.stop() }
        let control = try ControlConnection(path: daemon.socket)
        #expect(rename(folder, parent.path + "/away") == 0)
        try within1s(control, "the folder went") { $0["count"] as? Int == 0 }
        #expect(rename(parent.path + "/away", folder) == 0)
        try within1s(control, "the folder came back") { $0["count"] as? Int == 2 && $0["file"] as? String == "a.jpg" }
        let log = daemon.stop().joined(separator: "\n")
        #expect(log.contains("kioskd: the picture folder \(folder) is gone (unmounted, moved or deleted): showing the background until it is back"))
        #expect(log.contains("kioskd: the picture folder \(folder) is back: 2 picture(s)"))
    }

    /// 1,000 files copied in at once: all in the playlist within a second
    /// of the last, in a handful of batches, and the show never stops.
    @Test func aThousandFilesCopiedInAtOnce() throws {
        let folder = try folderOf(["0000.jpg"])
        let (daemon, control) = try start(folder)
        defer { _ = daemon.stop() }
        let staging = try PictureFolderFixture()
        for n in 1...1000 { try staging.write(String(format: "%04d.jpg", n)) }
        for n in 1...1000 {
            let name = String(format: "/%04d.jpg", n)
            #expect(rename(staging.path + name, folder.path + name) == 0)
        }
        try within1s(control, "1,001 pictures") { $0["count"] as? Int == 1001 && $0["file"] as? String == "0000.jpg" }
        let log = daemon.stop()
        let batches = log.filter { $0.contains("added)") }
        #expect((1...10).contains(batches.count), "\(batches)")
    }
}

/// SIGHUP and `kioskctl reload` on the built daemon: a good config is
/// applied in place, a bad one refused while the show goes on.
@Suite struct ConfigReloadTests {
    typealias Daemon = HeadlessDaemonTests.Daemon

    @Test func aGoodConfigIsAppliedInPlaceAndABadOneRefused() throws {
        let first = try PictureFolderFixture()
        try first.write("a.jpg")
        try first.write("b.jpg")
        let second = try PictureFolderFixture()
        for name in ["x.jpg", "y.jpg", "z.jpg"] { try second.write(name) }
        let config = first.path + ".toml"
        defer { unlink(config) }
        try "images = \"\(first.path)\"\ninterval = 600\nstate_dir = \"none\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try Daemon(["--config", config, "--transition", "0.2"])
        daemon.waitFor("control socket: ")
        defer { _ = daemon.stop() }
        let control = try ControlConnection(path: daemon.socket)
        func status() throws -> [String: Any] {
            (try JSONSerialization.jsonObject(with: Data(try control.request("status"))) as? [String: Any]) ?? [:]
        }
        #expect(try status()["interval"] as? Double == 600)

        // SIGHUP with a new interval and background.
        try "images = \"\(first.path)\"\ninterval = 300\nbackground = \"202020\"\nstate_dir = \"none\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        daemon.waitFor("reload: ")
        for _ in 0..<100 where try status()["interval"] as? Double != 300 { usleep(10_000) }
        #expect(try status()["interval"] as? Double == 300)

        // A typo: refused, the show untouched.
        try "images = \"\(first.path)\"\nintervall = 5\nstate_dir = \"none\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let refused = try JSONSerialization.jsonObject(with: Data(try control.request("reload"))) as? [String: Any]
        #expect(refused?["ok"] as? Bool == false)
        #expect((refused?["error"] as? String)?.contains("unknown setting; did you mean interval?") == true)
        #expect(try status()["interval"] as? Double == 300 && status()["count"] as? Int == 2)

        // Another folder, and an input setting that waits for a restart.
        try "images = \"\(second.path)\"\ninterval = 300\nbackground = \"202020\"\ntap_zones = false\nstate_dir = \"none\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let applied = try JSONSerialization.jsonObject(with: Data(try control.request("reload"))) as? [String: Any]
        #expect(applied?["changed"] as? [String] == ["images"])
        #expect(applied?["restart_needed"] as? [String] == ["tap_zones"])
        #expect(try status()["count"] as? Int == 3)
        try second.write("w.jpg")   // the new folder is watched
        for _ in 0..<100 where try status()["count"] as? Int != 4 { usleep(10_000) }
        #expect(try status()["count"] as? Int == 4)

        let log = daemon.stop().joined(separator: "\n")
        #expect(log.contains("kioskd: reload: background \"000000\" -> \"202020\", interval 600.0 -> 300.0"))
        #expect(log.contains("kioskd: reload refused, the show goes on with the settings it has: \(config): line 2: invalid intervall"))
        #expect(log.contains("kioskd: reload: images \"\(first.path)\" -> \"\(second.path)\""))
        #expect(log.contains("kioskd: reload: tap_zones takes effect when kioskd restarts"))
    }

    /// A reload that changes the display (here the panel turned on its
    /// side) moves the show onto the new one at once, where it was: the
    /// screen is then exactly `kioskd snapshot` of the new display. A new
    /// display whose layout cannot fit is refused, and the show goes back
    /// to the display it had.
    @Test func aNewDisplayIsOpenedInPlaceAndOneThatCannotFitIsRefused() throws {
        let folder = try fourColours()
        let config = folder.path + ".toml"
        defer { unlink(config) }
        try "images = \"\(folder.path)\"\ninterval = 600\nstate_dir = \"none\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try Daemon(["--config", config, "--transition", "0.2"])   // headless, 320x180
        daemon.waitFor("control socket: ")
        defer { _ = daemon.stop() }
        let control = try ControlConnection(path: daemon.socket)
        func ask(_ line: String) throws -> [String: Any] {
            (try JSONSerialization.jsonObject(with: Data(try control.request(line))) as? [String: Any]) ?? [:]
        }
        _ = try ask("goto 2")
        for _ in 0..<200 where try ask("status")["moving"] as? Bool != false { usleep(10_000) }

        try "images = \"\(folder.path)\"\ninterval = 600\nrotation = 90\nstate_dir = \"none\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let applied = try ask("reload")
        #expect(applied["changed"] as? [String] == ["rotation"], "\(applied)")
        #expect(applied["restart_needed"] as? [String] == [])
        var settings = KioskSettings()
        settings.images = folder.path
        settings.display.rotation = .quarter
        let expected = try SnapshotJob(settings: settings, screen: PixelSize(width: 320, height: 180), position: 2).run().frame
        // The pictures are decoded again for the turned display.
        let (reply, shown) = try screenshot(control, matching: expected)
        #expect(reply["index"] as? Int == 2)
        #expect(shown.size == expected.size)
        let differing = zip(shown.pixels, expected.pixels).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) pixels differ from kioskd snapshot of the turned display")

        // Turned back, slots 500 px wide cannot fit the 320 px strip: refused, and back on the turned display.
        try "images = \"\(folder.path)\"\ninterval = 600\nimage_width = 500\nstate_dir = \"none\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let refused = try ask("reload")
        #expect(refused["ok"] as? Bool == false)
        // Found only against the screen, the mistake still names the file and the line.
        #expect((refused["error"] as? String)?.contains(": \(config): line 3: invalid image_width \"500\"") == true, "\(refused)")
        #expect(try ask("status")["index"] as? Int == 2)
        let still = try screenshot(control, matching: expected).image
        #expect(still.pixels == shown.pixels, "the show is back on the turned display as it was")
        let log = daemon.stop().joined(separator: "\n")
        #expect(log.contains("kioskd: showing on headless 320x180 at 60 Hz, rotation 90"))
        #expect(log.contains("back on headless 320x180"))
    }
}
