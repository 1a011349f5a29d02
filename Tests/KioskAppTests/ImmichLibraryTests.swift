import ControlClient
import Foundation
import HTTPClient
@testable import KioskApp
import KioskCore
import TestSupport
import Testing
import TextRendering
import WebServerSupport
#if canImport(Glibc)
import Glibc
#endif

/// An Immich library (``ServerLibrary`` with ``ImmichServer``) against a
/// stand-in server that answers as Immich's OpenAPI specification says and
/// checks every request kioskd sends against it (``TestImmichServer``).
/// A real Immich was never run here.
@Suite(.serialized) struct ImmichLibraryTests {
    let webdav = WebDAVLibraryTests()

    static let album = (id: "1a2b3c4d-0000-4000-8000-00000000a001", name: "Holidays 2024")
    static let grandma = (id: "1a2b3c4d-0000-4000-8000-00000000b001", name: "Grandma")
    static func assetID(_ n: Int) -> String { "0b0e6c1e-1f1a-4c3e-8d7a-" + String(repeating: "0", count: 12 - String(n).count) + String(n) }

    /// A library of `server`, mirrored under `state`.
    func library(
        _ server: TestImmichServer, state: String, poll: Double = 600, size: ImmichPictureSize = .preview, clips: Bool = false,
        today: String = "2024-02-29", settings: (inout ImmichSettings) -> Void
    ) throws -> ServerLibrary {
        var immich = ImmichSettings()
        immich.url = try ServerAddress(parsing: server.url)
        let key = state + "/api-key"
        try Data((server.apiKey + "\n").utf8).write(to: URL(fileURLWithPath: key))
        immich.apiKeyFile = key
        settings(&immich)
        let listing = ImmichServer(settings: immich, address: immich.url!, size: size, clips: clips, today: { today })
        return try ServerLibrary(server: listing, mirrorRoot: state + "/libraries/immich", cache: LibraryCacheSettings(), poll: poll, folder: FolderSettings())
    }

    /// The mirror's files, by name, and their bytes (the index left out).
    func mirrored(_ state: String) -> [String: [UInt8]] {
        let root = state + "/libraries/immich"
        var found: [String: [UInt8]] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] where name != MirrorFolder.indexName && name != MirrorFolder.factsName {
            found[name] = [UInt8](FileManager.default.contents(atPath: root + "/" + name) ?? Data())
        }
        return found
    }

    /// The stand-in's library: red and green in the album (green with
    /// Grandma), blue a favourite, yellow in nothing chosen, and a clip in the album.
    func family() throws -> TestImmichServer.Library {
        var library = TestImmichServer.Library()
        library.albums = [Self.album, ("1a2b3c4d-0000-4000-8000-00000000a002", "Work")]
        library.people = [Self.grandma]
        var first = TestImmichServer.Asset(Self.assetID(1), "IMG_0001.HEIC", taken: "2024-05-01T12:30:00.000Z", bytes: try flatPNG(red))
        first.albums = [Self.album.id]
        var second = TestImmichServer.Asset(Self.assetID(2), "IMG_0002.jpg", taken: "2024-05-02T08:00:05.000Z", bytes: try flatPNG(green))
        second.albums = [Self.album.id]
        second.people = [Self.grandma.id]
        var third = TestImmichServer.Asset(Self.assetID(3), "beach.jpg", taken: "2023-08-10T17:45:00.000Z", bytes: try flatPNG(blue))
        third.favourite = true
        let fourth = TestImmichServer.Asset(Self.assetID(4), "receipt.jpg", taken: "2024-06-01T09:00:00.000Z", bytes: try flatPNG(yellow))
        var clip = TestImmichServer.Asset(Self.assetID(5), "clip.mp4", taken: "2024-05-01T12:31:00.000Z", bytes: try ClipShowTests.clip(frames: 3))
        clip.type = "VIDEO"
        clip.albums = [Self.album.id]
        library.assets = [first, second, third, fourth, clip]
        return library
    }

    @Test func anAlbumByNameAPersonAndTheFavouritesAreMirroredAndChangesSeenAtTheNextPoll() throws {
        let server = try TestImmichServer()
        var family = try family()
        try server.set(family)
        let state = try PictureFolderFixture()
        let library = try library(server, state: state.path) {
            $0.albums = ["holidays 2024", "Nowhere"]
            $0.people = ["Grandma"]
            $0.favourites = true
        }
        defer { library.stop() }
        let online = try #require(webdav.report(from: library) { $0.state == .online && $0.cached == 3 })
        #expect(online.listed == 3, "the album's two photos (Grandma's among them, once), the favourite; not the clip, not the receipt")
        let red = ImmichAsset.mirrorName(id: Self.assetID(1), "IMG_0001.HEIC", "2024-05-01T12:30:00.000Z")
        let green = ImmichAsset.mirrorName(id: Self.assetID(2), "IMG_0002.jpg", "2024-05-02T08:00:05.000Z")
        let blue = ImmichAsset.mirrorName(id: Self.assetID(3), "beach.jpg", "2023-08-10T17:45:00.000Z")
        #expect(red == "2024-05-01 12.30.00 IMG_0001 000000000001.jpg")
        let files = mirrored(state.path)
        #expect(Set(files.keys) == [red, green, blue])
        #expect(files[red] == family.assets[0].bytes && files[green] == family.assets[1].bytes && files[blue] == family.assets[2].bytes)
        #expect(online.notes.contains { $0.contains("no album named \"Nowhere\"") }, "\(online.notes)")
        #expect(server.problems == [], "every request and answer as Immich's specification says")
        let requests = server.requests
        #expect(requests.contains("GET /api/albums") && requests.contains("GET /api/people") && requests.contains("POST /api/search/metadata"))
        #expect(requests.contains("GET /api/assets/\(Self.assetID(1))/thumbnail"), "the preview, not the original")
        #expect(!requests.contains { $0.contains(Self.assetID(4)) || $0.contains(Self.assetID(5)) })

        // In Immich: the favourite unmarked, the red photo edited (a new checksum).
        family.assets[2].favourite = false
        family.assets[0].version = "v2"
        family.assets[0].bytes = try flatPNG(yellow)
        try server.set(family)
        library.pollNow()
        let caughtUp = webdav.report(from: library) { _ in mirrored(state.path)[blue] == nil && mirrored(state.path)[red] == family.assets[0].bytes }
        #expect(caughtUp?.listed == 2)
        #expect(Set(mirrored(state.path).keys) == [red, green])
        #expect(server.problems == [])
    }

    /// With `video` on: a clip fetched through Immich's playback endpoint,
    /// and a Live Photo's movie (a hidden asset of its own) beside its
    /// still, paired by the identifier the library publishes, since
    /// Immich's preview and transcode keep no Apple identifier. After a
    /// restart with the server away, the pair is still one slot.
    @Test func aClipAndALivePhotosMovieAreFetchedAndThePairShowsAsOneSlot() throws {
        let server = try TestImmichServer()
        var family = TestImmichServer.Library()
        family.albums = [Self.album]
        var still = TestImmichServer.Asset(Self.assetID(11), "IMG_0011.HEIC", taken: "2024-07-04T18:00:00.000Z", bytes: try flatPNG(red))
        still.albums = [Self.album.id]
        still.live = Self.assetID(12)
        var movie = TestImmichServer.Asset(Self.assetID(12), "IMG_0011.MOV", taken: "2024-07-04T18:00:00.000Z", bytes: try ClipShowTests.clip(frames: 4))
        movie.type = "VIDEO"
        movie.hidden = true
        var clip = TestImmichServer.Asset(Self.assetID(13), "party.mp4", taken: "2024-07-04T20:00:00.000Z", bytes: try ClipShowTests.clip(frames: 6))
        clip.type = "VIDEO"
        clip.albums = [Self.album.id]
        family.assets = [still, movie, clip]
        try server.set(family)
        let state = try PictureFolderFixture()
        let root = state.path + "/libraries/immich"
        let stillName = "2024-07-04 18.00.00 IMG_0011 000000000011.jpg", movieName = "2024-07-04 18.00.00 IMG_0011 000000000011.mov"
        let clipName = "2024-07-04 20.00.00 party 000000000013.mp4"
        do {
            let library = try library(server, state: state.path, clips: true) { $0.albums = [Self.album.name] }
            defer { library.stop() }
            #expect(webdav.report(from: library) { $0.state == .online && $0.cached == 3 } != nil)
            let files = mirrored(state.path)
            #expect(Set(files.keys) == [stillName, movieName, clipName])
            #expect(files[movieName] == movie.bytes && files[clipName] == clip.bytes)
            #expect(server.requests.contains("GET /api/assets/\(Self.assetID(12))/video/playback"), "the movie, through its own asset's playback")
            #expect(server.requests.contains("GET /api/assets/\(Self.assetID(13))/video/playback"))
            let helpers = webdav.helpers
            var entries: [String: PlaylistEntry] = [:]
            let news = helpers.news(from: library.watcher) { news in
                for case .changes(let change) in news { for entry in change.added { entries[entry.path] = entry } }
                return entries[root + "/" + stillName]?.companion != nil && entries[root + "/" + clipName] != nil
            }
            _ = news
            #expect(entries[root + "/" + stillName]?.companion == root + "/" + movieName, "the still carries its movie")
            #expect(entries[root + "/" + movieName] == nil, "the movie is no slot of its own")
            #expect(entries[root + "/" + clipName]?.companion == nil)
            #expect(server.problems == [])
        }
        // A restart while the server is away: the facts were kept beside the index.
        server.stop()
        let again = try library(server, state: state.path, clips: true) { $0.albums = [Self.album.name] }
        defer { again.stop() }
        let listing = try #require(again.firstListing)
        #expect(listing.map(\.path).sorted() == [root + "/" + stillName, root + "/" + clipName])
        #expect(listing.first { $0.path == root + "/" + stillName }?.companion == root + "/" + movieName)
    }

    /// A preview holds no EXIF: the caption's `{title}`, `{date}`,
    /// `{people}` and `{album}` come from what Immich said, kept beside the mirror.
    @Test func anImmichPhotosCaptionSaysItsDescriptionDatePeopleAndAlbum() throws {
        let server = try TestImmichServer()
        var family = try family()
        family.assets[1].description = "Grandma at the lake"
        try server.set(family)
        let state = try PictureFolderFixture()
        let library = try library(server, state: state.path) { $0.albums = [Self.album.name] }
        defer { library.stop() }
        #expect(webdav.report(from: library) { $0.state == .online && $0.cached == 2 } != nil)
        let green = state.path + "/libraries/immich/" + ImmichAsset.mirrorName(id: Self.assetID(2), "IMG_0002.jpg", "2024-05-02T08:00:05.000Z")
        let facts = CaptionFacts(path: green, info: nil)
        #expect(facts.title == "Grandma at the lake" && facts.people == "Grandma" && facts.album == Self.album.name)
        var time = tm()
        (time.tm_year, time.tm_mon, time.tm_mday, time.tm_hour, time.tm_min, time.tm_sec, time.tm_isdst) = (124, 4, 2, 8, 0, 5, -1)
        #expect(facts.dateTaken == Int64(mktime(&time)), "when it was taken, read as the kiosk's local time, as EXIF's is")
        let template = try CaptionTemplate(parsing: "{title}\n{people} in {album}\n{file}")
        #expect(facts.caption(template, dates: DateWriter(locale: nil)) == "Grandma at the lake\nGrandma in Holidays 2024\n2024-05-02 08.00.05 IMG_0002 000000000002")
        library.stop()
        #expect(CaptionFacts(path: green, info: nil).people == nil, "a stopped library's facts are withdrawn")
    }

    /// A show fed by the picture folder and Immich together: every
    /// picture takes the centre, checked at the screen's pixel, and goes on
    /// doing so from the cache after the server is killed.
    @Test func anImmichAlbumFeedsTheShowAlongsideTheFolderAndStaysWhenTheServerIsKilled() throws {
        let server = try TestImmichServer()
        try server.set(try family())
        let state = try PictureFolderFixture()
        let local = try PictureFolderFixture()
        try local.write("a.png", try flatPNG(yellow))
        local.age("a.png")
        var settings = KioskSettings()
        settings.images = local.path
        settings.layout.background = background
        settings.motion.interval = 2
        let run = try SimulatedShow(settings)
        let folder = try FolderWatcher(root: local.path, settings: settings.folder)
        let immich = try library(server, state: state.path) { $0.albums = [Self.album.name] }
        let source = LibrarySource(libraries: [folder, immich])
        defer { source.stop() }
        run.controller.libraries = source.statuses
        func immichStatus() -> JSONObject? {
            if case .object(let object) = ControlCommands(controller: run.controller, started: 0, wakeUp: { 0 }).status.libraries.last { object } else { nil }
        }
        func feed(until done: () -> Bool) {
            let deadline = Date().addingTimeInterval(30)
            while !done(), Date() < deadline {
                _ = immich.waitForNews(milliseconds: 50)
                source.take(immich.take(), from: 1, controller: run.controller)
                if let report = immich.takeReport() { source.take(report, from: 1, controller: run.controller) }
            }
        }
        feed { run.show.pictures.pictures.playlist.count == 3 && immichStatus()?["cached"] == 2 }
        #expect(immichStatus()?["kind"] == "immich" && immichStatus()?["state"] == "online" && immichStatus()?["assets"] == 2)
        func centred(until: Double) throws -> Set<UInt32> {
            var seen: Set<UInt32> = []
            for second in stride(from: until - 12, through: until, by: 2) {
                run.run(until: second)
                let frame = try #require(run.screen.shown)
                seen.insert(frame.pixels[frame.size.height / 2 * frame.size.width + frame.size.width / 2] & 0xFF_FFFF)
            }
            return seen
        }
        #expect(try centred(until: 14) == [yellow, red, green], "the folder's picture and the album's two, each in the centre")

        server.stop()
        immich.pollNow()
        feed { immichStatus()?["state"] == "offline" }
        #expect(immichStatus()?["cached"] == 2)
        #expect(try centred(until: 28) == [yellow, red, green], "from the cache while the server is away")
    }

    @Test func todaysMemoriesAndARandomDrawThatChangesFromPollToPoll() throws {
        let server = try TestImmichServer()
        var family = try family()
        for n in 6...9 {
            family.assets.append(TestImmichServer.Asset(Self.assetID(n), "IMG_\(n).jpg", taken: "2022-0\(n - 5)-01T10:00:00.000Z", bytes: try flatPNG(0x1000 * UInt32(n))))
        }
        family.memories = [(2023, [Self.assetID(3)])]
        try server.set(family)
        let state = try PictureFolderFixture()
        let library = try library(server, state: state.path, today: "2024-02-29") { $0.memories = true }
        let memory = ImmichAsset.mirrorName(id: Self.assetID(3), "beach.jpg", "2023-08-10T17:45:00.000Z")
        let online = try #require(webdav.report(from: library) { $0.state == .online && $0.cached == 1 })
        #expect(online.listed == 1 && Set(mirrored(state.path).keys) == [memory])
        #expect(server.requests.contains("memories for 2024-02-29"), "today's memories, by the kiosk's date")
        library.stop()

        try FileManager.default.createDirectory(atPath: state.path + "/random", withIntermediateDirectories: true)
        let random = try self.library(server, state: state.path + "/random") { $0.random = 2 }
        defer { random.stop() }
        var draws: Set<Set<String>> = []
        for _ in 0..<6 {
            let drawn = try #require(webdav.report(from: random) { $0.state == .online && $0.cached == 2 && $0.listed == 2 })
            _ = drawn
            draws.insert(Set(mirrored(state.path + "/random").keys))
            random.pollNow()
            _ = random.waitForReport(milliseconds: 2000)
        }
        #expect(draws.allSatisfy { $0.count == 2 }, "two photos at a time")
        #expect(draws.count > 1, "drawn anew: 6 draws of 2 of 8 photos all alike would be 1 in 28^5")
        #expect(server.problems == [])
    }

    @Test func aWrongAPIKeyIsRefusedInOneLineAndNeverLogged() throws {
        let server = try TestImmichServer()
        try server.set(try family())
        let state = try PictureFolderFixture()
        var immich = ImmichSettings()
        immich.url = try ServerAddress(parsing: server.url)
        immich.apiKeyFile = try state.write("api-key", Array("not-the-key\n".utf8))
        immich.favourites = true
        let library = try ServerLibrary(
            server: ImmichServer(settings: immich, address: immich.url!, size: .preview, clips: false), mirrorRoot: state.path + "/libraries/immich",
            cache: LibraryCacheSettings(), poll: 600, folder: FolderSettings())
        defer { library.stop() }
        let refused = try #require(webdav.report(from: library) { $0.state == .refused })
        #expect(refused.reason?.contains("the server refuses the kiosk's API key (HTTP 401)") == true, "\(refused.reason ?? "")")
        #expect(!(refused.reason ?? "").contains("not-the-key") && !refused.notes.joined().contains("not-the-key"))
        #expect(server.problems == [], "the key is sent as the specification says (x-api-key), even a wrong one")

        // Corrected in its file: read at the next poll.
        try state.write("api-key", Array((server.apiKey + "\n").utf8))
        library.pollNow()
        #expect(webdav.report(from: library) { $0.state == .online && $0.cached == 1 } != nil)
    }

    /// A key revoked between the listing and a fetch: the refusal speaks
    /// of the API key, as the listing's does, not of a WebDAV password.
    @Test func aFetchRefusedForTheKeySpeaksOfTheKey() throws {
        let server = try TestImmichServer()
        var family = try family()
        family.hostile["/api/assets/\(Self.assetID(3))/thumbnail"] = "unauthorized"
        try server.set(family)
        let state = try PictureFolderFixture()
        let library = try library(server, state: state.path) { $0.favourites = true }
        defer { library.stop() }
        let refused = try #require(webdav.report(from: library) { $0.state == .refused })
        #expect(refused.reason?.contains("the server refuses the kiosk's API key (HTTP 401) for") == true, "\(refused.reason ?? "")")
        #expect(refused.reason?.contains("user name or password") == false)
        #expect(server.problems == [])
    }

    /// The stand-in's checks can fail: a field Immich's search does not
    /// take, and a request without the key, are caught and written down.
    @Test func theStandInCatchesWhatImmichWouldRefuse() throws {
        let server = try TestImmichServer()
        let client = try HTTPClient()
        var request = HTTPRequest(url: server.url + "api/search/random", method: "POST")
        request.headers = ["x-api-key: \(server.apiKey)", "Content-Type: application/json"]
        request.body = Array(#"{"size":2,"withExif":true,"shuffle":true}"#.utf8)
        #expect(try client.perform(request).status == 200)
        #expect(server.problems.contains { $0.contains("shuffle") }, "\(server.problems)")
        #expect(try client.perform(HTTPRequest(url: server.url + "api/albums")).status == 401)
        #expect(server.problems.contains { $0.contains("GET /api/albums") && $0.contains("Security") }, "\(server.problems)")
    }

    /// Answers that break the specification: invalid JSON and a list that
    /// is an object are refused whole, with the path at fault, and the
    /// cache stays; an asset with fields of the wrong types is passed over
    /// by name and the others kept. Then the server is killed: offline,
    /// the cache stays; back: online.
    @Test func invalidJSONAndWrongTypesAreRefusedOrPassedOverAndTheCacheStays() throws {
        let server = try TestImmichServer()
        var family = try family()
        family.assets[3].albums = [Self.album.id]
        try server.set(family)
        let state = try PictureFolderFixture()
        let library = try library(server, state: state.path) { $0.albums = [Self.album.id] }
        defer { library.stop() }
        #expect(webdav.report(from: library) { $0.state == .online && $0.cached == 3 } != nil, "an album by its id")
        let cached = mirrored(state.path)
        #expect(cached.count == 3)

        family.hostile = ["/api/search/metadata": "invalid-json"]
        try server.set(family)
        library.pollNow()
        let broken = try #require(webdav.report(from: library) { $0.state == .refused })
        #expect(broken.reason?.contains("its answer to POST /api/search/metadata is refused: not JSON: ") == true, "\(broken.reason ?? "")")
        #expect(broken.reason?.contains("line 1, column") == true)
        #expect(mirrored(state.path) == cached, "the cache stays as it was")

        family.hostile = ["/api/search/metadata": "wrong-frame"]
        try server.set(family)
        library.pollNow()
        let wrongFrame = try #require(webdav.report(from: library) { $0.state == .refused && $0.reason?.contains("assets.items") == true })
        #expect(wrongFrame.reason?.hasSuffix("is not as Immich's API says: assets.items: expected a list, found an object") == true, "\(wrongFrame.reason ?? "")")
        #expect(mirrored(state.path) == cached)

        family.hostile = ["/api/search/metadata": "wrong-asset"]
        try server.set(family)
        library.pollNow()
        let passedOver = try #require(webdav.report(from: library) { $0.state == .online })
        #expect(passedOver.notes.contains { $0.hasSuffix("passing over an asset: assets.items[0].id: expected a string, found a number") }, "\(passedOver.notes)")
        #expect(passedOver.notes.contains { $0.hasSuffix("passing over an asset: assets.items[2].originalFileName: expected a string, found a list") }, "\(passedOver.notes)")
        #expect(passedOver.listed == 1, "the album's other photo is kept: \(passedOver.notes)")

        family.hostile = [:]
        try server.set(family)
        library.pollNow()
        #expect(webdav.report(from: library) { $0.state == .online && $0.listed == 3 && $0.cached == 3 } != nil)
        server.stop()
        library.pollNow()
        let offline = try #require(webdav.report(from: library) { $0.state == .offline })
        #expect(offline.reason?.contains("unreachable") == true && offline.cached == 3 && mirrored(state.path).count == 3)
        try server.start()
        library.pollNow()
        #expect(webdav.report(from: library) { $0.state == .online } != nil)
        #expect(server.problems == [])
    }
}

@Suite(.serialized) struct ImmichDaemonTests {
    @Test func theDaemonShowsAnImmichAlbumFromItsConfig() throws {
        let server = try TestImmichServer()
        try server.set(try ImmichLibraryTests().family())
        let folder = try PictureFolderFixture()
        let key = try folder.write("api-key", Array((server.apiKey + "\n").utf8))
        let kiosk = try ServerLibraryDaemon(folder, section: """
            [immich]
            url = "\(server.url)"
            api_key_file = "\(key)"
            albums = ["Holidays 2024"]
            """)
        defer { _ = kiosk.daemon.stop() }
        let daemon = kiosk.daemon, control = kiosk.control, live = kiosk.live
        func library(_ status: [String: Any]) -> [String: Any] { ServerLibraryDaemon.library(status) }
        // Its two photos and its clip (video is on by default).
        let shown = try live.within1s(control, "the album's photos and clip shown", seconds: 30) {
            $0["count"] as? Int == 3 && library($0)["state"] as? String == "online" && library($0)["cached"] as? Int == 3
        }
        #expect(library(shown)["kind"] as? String == "immich" && library(shown)["source"] as? String == server.url)
        daemon.waitFor("library immich \(server.url) online: 3 picture(s), ")
        #expect(server.problems == [])
    }
}

extension ImmichAsset {
    /// The name the mirror gives an image asset's preview.
    static func mirrorName(id: String, _ name: String, _ taken: String) -> String {
        ImmichAsset(id: id, kind: .image, originalFileName: name, localDateTime: taken, checksum: "", updatedAt: "").mirrorName(.picture(.preview))
    }
}
