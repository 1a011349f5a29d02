import ControlClient
import SystemCalls
import Foundation
@testable import KioskApp
import KioskCore
import KioskRendering
import TestSupport
import Testing

/// Several libraries feeding one show (``LibrarySource``): each one's
/// listing, and its going, touch its own pictures only, and `status` says
/// of each whether it can be read and since when.
@Suite(.serialized) struct LibrariesShowTests {
    let helpers = FolderWatcherTests()

    func libraries(_ run: SimulatedShow) -> [JSONValue] {
        ControlCommands(controller: run.controller, started: 0, wakeUp: { 0 }).status.libraries
    }

    func library(_ kind: String, _ source: String, _ state: String, since: Int, assets: Int) -> JSONValue {
        .object([
            "kind": .string(kind), "source": .string(source), "state": .string(state), "since": .int(since), "assets": .int(assets),
            "cached": .int(assets),
        ])
    }

    /// The colour in the middle of the centred slot.
    func centreColour(_ run: SimulatedShow) throws -> UInt32 {
        let frame = try #require(run.screen.shown)
        return frame.pixels[frame.size.height / 2 * frame.size.width + frame.size.width / 2] & 0xFF_FFFF
    }

    @Test func aLibraryThatGoesTakesOnlyItsOwnPicturesAndStatusSaysWhichAndSinceWhen() throws {
        let parent = try PictureFolderFixture()
        for (name, colour) in [("one/a.png", red), ("one/b.png", green), ("two/c.png", blue), ("two/d.png", yellow)] {
            try parent.write(name, flatPNG(colour))
            parent.age(name)
        }
        let one = parent.path + "/one", two = parent.path + "/two"
        var settings = KioskSettings()
        settings.images = one
        settings.layout.background = background
        settings.motion.interval = 600
        let run = try SimulatedShow(settings)
        let first = try FolderWatcher(root: one, settings: settings.folder)
        let second = try FolderWatcher(root: two, settings: settings.folder)
        var wallNow: Int64 = 1_800_000_000
        let source = LibrarySource(libraries: [first, second], wallClock: { wallNow })
        defer { source.stop() }
        run.controller.libraries = source.statuses
        // The second library's listing joins the first's pictures: it replaces only its own (none yet).
        source.take([.listing(try #require(second.firstListing), notes: [])], from: 1, controller: run.controller)
        run.run(until: 1)
        #expect(run.show.pictures.pictures.playlist.files.map(Playlist.fileName(of:)) == ["a.png", "b.png", "c.png", "d.png"])
        #expect(try centreColour(run) == red)
        #expect(libraries(run) == [
            library("folder", one, "online", since: 1_800_000_000, assets: 2), library("folder", two, "online", since: 1_800_000_000, assets: 2),
        ])

        // The first library's folder goes (a USB stick pulled): its pictures leave, the second's stay on screen.
        wallNow += 60
        #expect(rename(one, parent.path + "/away") == 0)
        let gone = helpers.news(from: first) { $0.contains(.folderGone) }
        source.take(gone, from: 0, controller: run.controller)
        run.run(until: 3)
        #expect(run.show.pictures.pictures.playlist.files.map(Playlist.fileName(of:)) == ["c.png", "d.png"])
        #expect(try centreColour(run) == blue, "the next picture, the second library's, takes the centre")
        #expect(libraries(run) == [
            library("folder", one, "offline", since: 1_800_000_060, assets: 0), library("folder", two, "online", since: 1_800_000_000, assets: 2),
        ])
        #expect(run.log.contains("the picture folder \(one) is gone (unmounted, moved or deleted): showing the background until it is back"))

        // It comes back: its listing puts its pictures back beside the second's.
        wallNow += 60
        #expect(rename(parent.path + "/away", one) == 0)
        let back = helpers.news(from: first) { news in news.contains { if case .listing = $0 { true } else { false } } }
        source.take(back, from: 0, controller: run.controller)
        run.run(until: 5)
        #expect(run.show.pictures.pictures.playlist.files.map(Playlist.fileName(of:)) == ["a.png", "b.png", "c.png", "d.png"])
        #expect(try centreColour(run) == blue, "the centred picture keeps the centre")
        #expect(libraries(run) == [
            library("folder", one, "online", since: 1_800_000_120, assets: 2), library("folder", two, "online", since: 1_800_000_000, assets: 2),
        ])
        #expect(run.log.contains("the picture folder \(one) is back: 2 picture(s)"))
    }

    /// The daemon itself: `status` names its one library, the picture folder,
    /// and says when it went offline (moved away) and came back online.
    @Test func theDaemonsStatusNamesItsFolderAndItsStateAsItGoesAndComesBack() throws {
        let parent = try PictureFolderFixture()
        for name in ["photos/a.jpg", "photos/b.jpg"] {
            try parent.write(name)
            parent.age(name)
        }
        let folder = parent.path + "/photos"
        let daemon = try HeadlessDaemonTests.Daemon(["--images", folder, "--interval", "600"])
        daemon.waitFor("control socket: ")
        defer { _ = daemon.stop() }
        let control = try ControlConnection(path: daemon.socket)
        let live = LiveFolderDaemonTests()
        func library(_ status: [String: Any]) -> [String: Any] { (status["libraries"] as? [[String: Any]])?.first ?? [:] }
        let started = Int(Date().timeIntervalSince1970)
        let online = library(try live.status(control))
        #expect(online["kind"] as? String == "folder" && online["source"] as? String == folder && online["state"] as? String == "online")
        #expect(online["assets"] as? Int == 2 && online["cached"] as? Int == 2)
        let since = online["since"] as? Int ?? 0
        #expect(since <= started && since > started - 300, "since the start")
        sleep(1)
        #expect(rename(folder, parent.path + "/away") == 0)
        let offline = library(try live.within1s(control, "the folder went") { library($0)["state"] as? String == "offline" })
        #expect(offline["assets"] as? Int == 0)
        let wentAt = offline["since"] as? Int ?? 0
        #expect(wentAt > since && wentAt >= started)
        #expect(rename(parent.path + "/away", folder) == 0)
        let back = library(try live.within1s(control, "the folder came back") { library($0)["state"] as? String == "online" })
        #expect(back["assets"] as? Int == 2)
        #expect(try #require(back["since"] as? Int) >= wentAt)
    }

    /// A photo written with ``AtomicFile`` (as the cache and uploads will
    /// be) joins the watched folder once, whole, under its own name: its
    /// hidden temporary is never news.
    @Test func aFileWrittenAtomicallyJoinsTheFolderOnceWhole() throws {
        let folder = try PictureFolderFixture()
        let watcher = try FolderWatcher(root: folder.path, settings: FolderSettings())
        defer { watcher.stop() }
        let path = folder.path + "/new.jpg"
        try AtomicFile.write(PictureFolderFixture.photo, to: path)
        let news = helpers.news(from: watcher) { !helpers.added($0).isEmpty }
        #expect(helpers.added(news) == [path])
        #expect(!helpers.added(news).contains(AtomicFile.temporary(for: path)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["new.jpg"])
    }

    /// `rescan_interval` set while the show runs reaches the folder: the
    /// reload watches it anew with the new interval (a watcher keeps the
    /// settings it was made with, so a live change would never reach it).
    @Test func aNewRescanIntervalIsTheFoldersAfterAReload() throws {
        let folder = try PictureFolderFixture()
        try folder.write("a.jpg")
        var settings = KioskSettings()
        settings.images = folder.path
        settings.stateDirectory = nil  // what is set is kept nowhere
        let run = try SimulatedShow(settings)
        let source = LibrarySource(libraries: try PictureLibraries.make(for: settings))
        defer { source.stop() }
        let reload = ConfigReload(settings: settings, controller: run.controller, libraries: source, log: { _ in }) { _ in
            var explained = ExplainedSettings()
            explained.settings = settings
            return explained
        }
        guard case .applied(let changed, let restart) = reload.set("rescan_interval", to: "5") else {
            Issue.record("set rescan_interval refused")
            return
        }
        #expect(changed == ["rescan_interval"] && restart.isEmpty)
        let watcher = try #require(source.libraries.first as? FolderWatcher)
        #expect(watcher.settings.rescanInterval == 5)
        #expect(run.show.pictures.pictures.playlist.files == [folder.path + "/a.jpg"], "the playlist stays")
    }
}
