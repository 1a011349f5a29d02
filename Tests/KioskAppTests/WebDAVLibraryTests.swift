import ControlClient
import Foundation
import HTTPClient
@testable import KioskApp
import KioskCore
import TestSupport
import Testing
import WebServerSupport
#if canImport(Glibc)
import Glibc
#endif

/// A WebDAV library (``ServerLibrary`` with ``WebDAVFolder``) against a
/// real server, Debian's Apache with mod_dav on loopback: its pictures
/// mirrored into the cache, what changes on the server seen at the next
/// poll, the cache shown while the server is away and after a restart,
/// and wrong credentials refused with one line and a backoff.
@Suite(.serialized) struct WebDAVLibraryTests {
    let helpers = FolderWatcherTests()

    /// A library of `server`'s folder, mirrored under `state`, polled every `poll` seconds.
    func library(
        _ server: TestWebDAVServer, state: String, poll: Double = 600, cache: LibraryCacheSettings = LibraryCacheSettings(),
        settings: (inout WebDAVSettings) -> Void = { _ in }
    ) throws -> ServerLibrary {
        var webdav = WebDAVSettings()
        webdav.url = try ServerAddress(parsing: server.url)
        settings(&webdav)
        let files = PictureFiles(order: .name)
        let folder = try WebDAVFolder(settings: webdav, address: webdav.url!, shows: { files.shows($0) })
        return try ServerLibrary(server: folder, mirrorRoot: state + "/libraries/webdav", cache: cache, poll: poll, folder: FolderSettings())
    }

    /// Reports from `library` until one satisfies `done` (30 s at most); the last one seen, with every note since the first.
    func report(from library: ServerLibrary, until done: (LibraryReport) -> Bool) -> LibraryReport? {
        let deadline = Date().addingTimeInterval(30)
        var last: LibraryReport?
        var notes: [String] = []
        while Date() < deadline {
            if var report = library.takeReport() {
                notes += report.notes
                report.notes = notes
                last = report
                if done(report) { return report }
            }
            _ = library.waitForReport(milliseconds: 100)
        }
        return last
    }

    /// The files in the mirror, by their paths under it (hidden ones too), and their bytes.
    func mirrored(_ state: String) -> [String: [UInt8]] {
        let root = state + "/libraries/webdav"
        var found: [String: [UInt8]] = [:]
        let walker = FileManager.default.enumerator(atPath: root)
        while let path = walker?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isFolder), !isFolder.boolValue {
                found[path] = [UInt8](FileManager.default.contents(atPath: root + "/" + path) ?? Data())
            }
        }
        return found
    }

    @Test func aServersPicturesAreMirroredWholeAndItsChangesSeenAtTheNextPoll() throws {
        let server = try TestWebDAVServer()
        let state = try PictureFolderFixture()
        let (redPNG, greenPNG, bluePNG, yellowPNG) = (try flatPNG(red), try flatPNG(green), try flatPNG(blue), try flatPNG(yellow))
        try server.put("a.png", redPNG)
        try server.put("b.png", greenPNG)
        try server.put("2024 summer/c.png", bluePNG)
        try server.put("notes.txt", Array("not a picture".utf8))
        let library = try library(server, state: state.path)
        defer { library.stop() }
        #expect(library.firstListing == [], "an empty cache shows nothing at first")

        let online = try #require(report(from: library) { $0.state == .online && $0.cached == 3 })
        #expect(online.listed == 3, "notes.txt is not a picture: not listed, not fetched")
        let fetched = mirrored(state.path)
        #expect(Set(fetched.keys) == ["a.png", "b.png", "2024 summer/c.png", MirrorFolder.indexName], "no temporary left, nothing else")
        #expect(fetched["a.png"] == redPNG && fetched["b.png"] == greenPNG && fetched["2024 summer/c.png"] == bluePNG)
        let root = state.path + "/libraries/webdav"
        let arrived = helpers.news(from: library.watcher) { Set(helpers.added($0)).count == 3 }
        #expect(Set(helpers.added(arrived)) == [root + "/a.png", root + "/b.png", root + "/2024 summer/c.png"])

        // On the server: a.png rewritten, b.png deleted, d.png added. Seen at the next poll.
        try server.put("a.png", yellowPNG)
        try FileManager.default.removeItem(atPath: server.files + "/b.png")
        try server.put("d.png", greenPNG)
        library.pollNow()
        let caughtUp = report(from: library) { _ in mirrored(state.path)["d.png"] != nil && mirrored(state.path)["b.png"] == nil }
        #expect(caughtUp?.listed == 3)
        let files = mirrored(state.path)
        #expect(files["a.png"] == yellowPNG, "the rewritten file fetched again")
        #expect(files["b.png"] == nil && files["d.png"] == greenPNG && files["2024 summer/c.png"] == bluePNG)
        func removed(_ news: [FolderNews]) -> [String] {
            news.flatMap { item -> [String] in if case .changes(let change) = item { change.removed } else { [] } }
        }
        let news = helpers.news(from: library.watcher) { removed($0).contains(root + "/b.png") && helpers.added($0).contains(root + "/d.png") }
        #expect(helpers.added(news).contains(root + "/d.png"))
        #expect(helpers.added(news).contains(root + "/a.png"), "a rewritten file is news again, to be decoded again")

        // The index says what was fetched, with the server's ETags.
        let index = try #require(MirrorIndex.read(files[MirrorFolder.indexName] ?? [], source: server.url))
        #expect(Set(index.files.keys) == ["a.png", "2024 summer/c.png", "d.png"])
        #expect(index.files["a.png"]?.size == Int64(yellowPNG.count) && index.files["a.png"]?.etagHash != nil)
    }

    /// A poll that finds every folder answering as before parses nothing
    /// and says so, with the count; a file added deep in a subfolder (its
    /// parent's answer unchanged) is still found.
    @Test func aPollOfAnUnchangedServerSaysSoAndAChangeInASubfolderIsFound() throws {
        let server = try TestWebDAVServer()
        try server.put("a.png", try flatPNG(red))
        try server.put("2024/b.png", try flatPNG(green))
        var settings = WebDAVSettings()
        settings.url = try ServerAddress(parsing: server.url)
        let files = PictureFiles(order: .name)
        let folder = try WebDAVFolder(settings: settings, address: settings.url!, shows: { files.shows($0) })
        let client = try HTTPClient()
        let first = try folder.list(using: client, unlessUnchanged: true)
        #expect(!first.unchanged && first.files.map(\.path.relative).sorted() == ["2024/b.png", "a.png"], "nothing to compare with yet: listed whole")
        let again = try folder.list(using: client, unlessUnchanged: true)
        #expect(again.unchanged && again.count == 2 && again.files.isEmpty)
        let whole = try folder.list(using: client, unlessUnchanged: false)
        #expect(!whole.unchanged, "asked whole, listed whole")

        try server.put("2024/c.png", try flatPNG(blue))
        let changed = try folder.list(using: client, unlessUnchanged: true)
        #expect(!changed.unchanged && changed.files.map(\.path.relative).sorted() == ["2024/b.png", "2024/c.png", "a.png"])
        #expect(try folder.list(using: client, unlessUnchanged: true).unchanged)
    }

    @Test func theCacheIsShownAfterARestartWhileTheServerIsAwayAndCaughtUpWhenItIsBack() throws {
        let server = try TestWebDAVServer()
        let state = try PictureFolderFixture()
        try server.put("a.png", try flatPNG(red))
        try server.put("b.png", try flatPNG(green))
        let first = try library(server, state: state.path)
        #expect(report(from: first) { $0.state == .online && $0.cached == 2 } != nil)
        first.stop()

        // The server goes (killed); kioskd restarts: the cache is shown from the start.
        server.stop()
        let second = try library(server, state: state.path, poll: 600)
        defer { second.stop() }
        let root = state.path + "/libraries/webdav"
        #expect(second.firstListing?.map(\.path) == [root + "/a.png", root + "/b.png"])
        let offline = try #require(report(from: second) { $0.state == .offline && $0.reason != nil })
        #expect(offline.reason?.hasPrefix("unreachable: ") == true)
        #expect(offline.cached == 2)
        let redPNG = try flatPNG(red)
        #expect(mirrored(state.path)["a.png"] == redPNG, "offline, the cache stays")

        // It comes back, with a new picture: asked again within the backoff (a minute at most), here at once.
        try server.put("c.png", try flatPNG(blue))
        try server.start()
        second.pollNow()
        let back = report(from: second) { $0.state == .online && $0.cached == 3 }
        #expect(back?.listed == 3)
    }

    /// The show itself: a folder and a server feed it; the server killed
    /// mid-show leaves its cached pictures on screen and `status` says
    /// `offline` since when, with one line in the log; back, it says `online`.
    @Test func theShowGoesOnFromTheCacheWhileTheServerIsOfflineAndStatusSaysSo() throws {
        let server = try TestWebDAVServer()
        let state = try PictureFolderFixture()
        let local = try PictureFolderFixture()
        try local.write("a.png", try flatPNG(red))
        local.age("a.png")
        try server.put("b.png", try flatPNG(green))
        try server.put("c.png", try flatPNG(blue))
        var settings = KioskSettings()
        settings.images = local.path
        settings.layout.background = background
        settings.motion.interval = 2
        let run = try SimulatedShow(settings)
        let folder = try FolderWatcher(root: local.path, settings: settings.folder)
        let webdav = try library(server, state: state.path)
        var wallNow: Int64 = 1_800_000_000
        let source = LibrarySource(libraries: [folder, webdav], wallClock: { wallNow })
        defer { source.stop() }
        run.controller.libraries = source.statuses
        func status() -> [JSONValue] { ControlCommands(controller: run.controller, started: 0, wakeUp: { 0 }).status.libraries }
        func webdavStatus() -> JSONObject? { if case .object(let object) = status().last { object } else { nil } }
        func feed(until done: () -> Bool) {
            let deadline = Date().addingTimeInterval(30)
            while !done(), Date() < deadline {
                _ = webdav.waitForNews(milliseconds: 50)
                source.take(webdav.take(), from: 1, controller: run.controller)
                if let report = webdav.takeReport() { source.take(report, from: 1, controller: run.controller) }
            }
        }

        feed { run.show.pictures.pictures.playlist.count == 3 && webdavStatus()?["cached"] == 2 }
        #expect(run.show.pictures.pictures.playlist.files.map(Playlist.fileName(of:)).sorted() == ["a.png", "b.png", "c.png"])
        #expect(webdavStatus()?["state"] == "online" && webdavStatus()?["assets"] == 2 && webdavStatus()?["since"] == .int(1_800_000_000))
        #expect(run.log.contains { $0.hasPrefix("library webdav \(server.url) online: 2 picture(s), ") && $0.hasSuffix(" in the cache") })

        // Killed mid-show: its pictures stay, and the show goes on through them.
        wallNow += 60
        server.stop()
        webdav.pollNow()
        feed { webdavStatus()?["state"] == "offline" }
        #expect(webdavStatus()?["since"] == .int(1_800_000_060) && webdavStatus()?["cached"] == 2)
        #expect(run.log.filter { $0.hasPrefix("library webdav \(server.url) offline since ") }.count == 1)
        #expect(run.log.contains { $0.contains("offline since") && $0.contains("unreachable") && $0.hasSuffix("showing its 2 cached picture(s), asking again") })
        var centred: Set<UInt32> = []
        for second in stride(from: 2.0, through: 14, by: 2) {
            run.run(until: second)
            let frame = try #require(run.screen.shown)
            centred.insert(frame.pixels[frame.size.height / 2 * frame.size.width + frame.size.width / 2] & 0xFF_FFFF)
        }
        #expect(centred == [red, green, blue], "every picture, the server's cached ones too, takes the centre while it is away")
        #expect(run.show.pictures.pictures.playlist.count == 3)

        // Back: online again, without a restart.
        wallNow += 60
        try server.start()
        webdav.pollNow()
        feed { webdavStatus()?["state"] == "online" }
        #expect(webdavStatus()?["since"] == .int(1_800_000_120))
    }

    /// A wrong password: `refused`, one line in the log, and a backoff
    /// that doubles from `poll` (here 0.2 s): a handful of requests in six
    /// seconds, not thirty attempts. A corrected password file is read at
    /// the next poll, with no reload.
    @Test func wrongCredentialsAreOneLineThenABackoffNotAFlood() throws {
        let server = try TestWebDAVServer(credentials: ("kiosk", "right horse")) { folder in
            "CustomLog \"\(folder)/access.log\" \"%m %U %>s\""
        }
        let state = try PictureFolderFixture()
        try server.put("a.png", try flatPNG(red))
        let password = try state.write("password", Array("wrong horse\n".utf8))
        let webdav = try library(server, state: state.path, poll: 0.2) {
            $0.username = "kiosk"
            $0.passwordFile = password
        }
        var settings = KioskSettings()
        settings.images = state.path
        let run = try SimulatedShow(settings)
        let source = LibrarySource(libraries: [webdav])
        defer { source.stop() }
        let started = Date()
        while Date().timeIntervalSince(started) < 6 {
            _ = webdav.waitForReport(milliseconds: 100)
            if let report = webdav.takeReport() { source.take(report, from: 0, controller: run.controller) }
        }
        let refusals = run.log.filter { $0.contains("refused since") }
        #expect(refusals.count == 1, "one line, however many tries: \(refusals)")
        #expect(refusals.first?.contains("the server refuses the kiosk's user name or password (HTTP 401)") == true)
        #expect(!run.log.joined().contains("wrong horse"), "a password never reaches the log")
        let log = (try? String(contentsOfFile: server.folder + "/access.log", encoding: .utf8)) ?? ""
        let propfinds = log.split(separator: "\n").filter { $0.hasPrefix("PROPFIND") }.count
        // 6 s at a fixed 0.2 s would be 30 tries (each two requests: curl asks without credentials, then with).
        #expect(propfinds >= 2 && propfinds <= 20, "\(propfinds) PROPFIND requests in 6 s")
        #expect(source.statuses.first?.state == .refused)

        // The password file corrected: read at the next poll.
        try state.write("password", Array("right horse\n".utf8))
        webdav.pollNow()
        let online = report(from: webdav) { $0.state == .online && $0.cached == 1 }
        #expect(online != nil)
    }

    /// A hostile server's listing: names that climb out with `..` (plain or
    /// escaped), an absolute path elsewhere, a newline in a name. None is
    /// written anywhere; the one good picture is.
    @Test func namesFromAHostileServerNeverLeaveTheCache() throws {
        let good = try flatPNG(green)
        let hrefs = [
            "/photos/", "/photos/good.png", "/photos/../escape.png", "/photos/%2e%2e/escape2.png", "/photos/sub/..%2f..%2fescape3.png",
            "/etc/escape4.png", "/photos/a%0Ab.png", "/photos/.hidden.png", "/photos/%00.png",
        ]
        let listing = "<?xml version=\"1.0\"?><D:multistatus xmlns:D=\"DAV:\">" + hrefs.map { href in
            let folder = href.hasSuffix("/")
            return "<D:response><D:href>\(href)</D:href><D:propstat><D:prop>"
                + (folder ? "<D:resourcetype><D:collection/></D:resourcetype>" : "<D:resourcetype/><D:getcontentlength>\(good.count)</D:getcontentlength><D:getetag>\"1\"</D:getetag>")
                + "</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>"
        }.joined() + "</D:multistatus>"
        let server = try HostileHTTPServer(answering: { head in
            if head.hasPrefix("PROPFIND /photos/ ") {
                return Array("HTTP/1.1 207 Multi-Status\r\nContent-Type: application/xml\r\nContent-Length: \(listing.utf8.count)\r\nConnection: close\r\n\r\n\(listing)".utf8)
            }
            let body = head.hasPrefix("GET /photos/good.png ") ? good : Array("no".utf8)
            let status = head.hasPrefix("GET /photos/good.png ") ? "200 OK" : "404 Not Found"
            return Array("HTTP/1.1 \(status)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8) + body
        })
        let parent = try PictureFolderFixture()
        let state = parent.path + "/state"
        var webdav = WebDAVSettings()
        webdav.url = try ServerAddress(parsing: server.url)
        let files = PictureFiles(order: .name)
        let library = try ServerLibrary(
            server: try WebDAVFolder(settings: webdav, address: webdav.url!, shows: { files.shows($0) }), mirrorRoot: state + "/libraries/webdav",
            cache: LibraryCacheSettings(), poll: 600, folder: FolderSettings())
        defer { library.stop() }
        let online = try #require(report(from: library) { $0.state == .online && $0.cached == 1 })
        #expect(online.listed == 1)
        #expect(Set(mirrored(state).keys) == ["good.png", MirrorFolder.indexName])
        #expect(mirrored(state)["good.png"] == good)
        // Nothing anywhere else under the test's folder, nor beside it.
        let everything = FileManager.default.enumerator(atPath: parent.path)?.allObjects as? [String] ?? []
        #expect(everything.filter { $0.contains("escape") } == [])
        #expect(!FileManager.default.fileExists(atPath: "/etc/escape4.png"))
        #expect(online.notes.contains { $0.contains("passing over") && $0.contains("outside the library") }, "\(online.notes)")
    }
}

/// https: a home CA's certificate is trusted through `ca_file`; without it,
/// or with an expired certificate or one signed by nobody the kiosk trusts,
/// the server is refused with curl's own words, and the cache stays.
@Suite(.serialized) struct WebDAVTLSTests {
    let libraries = WebDAVLibraryTests()

    @Test func anHTTPSServerIsReadThroughItsHomeCA() throws {
        let certificates = try TestCertificates()
        let server = try TestWebDAVServer(tls: (certificates.trusted, certificates.key))
        #expect(server.url.hasPrefix("https://"))
        try server.put("a.png", try flatPNG(red))
        let state = try PictureFolderFixture()
        let trusting = try libraries.library(server, state: state.path) { $0.caFile = certificates.authority }
        #expect(libraries.report(from: trusting) { $0.state == .online && $0.cached == 1 } != nil)
        trusting.stop()
        let redPNG = try flatPNG(red)
        #expect(libraries.mirrored(state.path)["a.png"] == redPNG)

        // Without ca_file the system's authorities do not know the home CA: refused, the cache kept.
        let system = try libraries.library(server, state: state.path)
        defer { system.stop() }
        let refused = libraries.report(from: system) { $0.state == .refused }
        #expect(refused?.reason == "its certificate is refused: SSL certificate problem: unable to get local issuer certificate")
        #expect(refused?.cached == 1 && libraries.mirrored(state.path)["a.png"] != nil)
    }

    @Test(arguments: [("expired", "certificate has expired"), ("untrusted", "self-signed certificate")])
    func aCertificateThatIsExpiredOrTrustedByNobodyIsRefusedWithCurlsWords(which: String, words: String) throws {
        let certificates = try TestCertificates()
        let server = try TestWebDAVServer(tls: (which == "expired" ? certificates.expired : certificates.untrusted, certificates.key))
        try server.put("a.png", try flatPNG(red))
        let state = try PictureFolderFixture()
        let library = try libraries.library(server, state: state.path) { $0.caFile = certificates.authority }
        defer { library.stop() }
        let refused = libraries.report(from: library) { $0.state == .refused }
        #expect(refused?.reason == "its certificate is refused: SSL certificate problem: \(words)")
        #expect(libraries.mirrored(state.path)["a.png"] == nil, "nothing fetched from it")
    }
}

/// The built daemon, its only library a WebDAV folder named in its config:
/// the server's pictures are shown, `status` names the library with its
/// counts, and the log says it is online; the server killed, the pictures
/// stay and `status` says `offline` at the next poll.
@Suite(.serialized) struct WebDAVDaemonTests {
    @Test func theDaemonShowsAServersPicturesFromItsConfigAndSaysWhenItIsOffline() throws {
        let server = try TestWebDAVServer()
        try server.put("a.png", try flatPNG(red))
        try server.put("2024/b.png", try flatPNG(green))
        let folder = try PictureFolderFixture()
        let kiosk = try ServerLibraryDaemon(folder, section: """
            [webdav]
            url = "\(server.url)"
            """)
        defer { _ = kiosk.daemon.stop() }
        let daemon = kiosk.daemon, control = kiosk.control, live = kiosk.live
        func library(_ status: [String: Any]) -> [String: Any] { ServerLibraryDaemon.library(status) }
        let shown = try live.within1s(control, "the server's pictures shown", seconds: 30) {
            $0["count"] as? Int == 2 && library($0)["state"] as? String == "online" && library($0)["cached"] as? Int == 2
        }
        #expect((shown["libraries"] as? [[String: Any]])?.count == 1, "no folder: the server is the only library")
        #expect(library(shown)["kind"] as? String == "webdav" && library(shown)["source"] as? String == server.url)
        #expect(library(shown)["assets"] as? Int == 2)
        #expect(FileManager.default.fileExists(atPath: folder.path + "/state/libraries/webdav/2024/b.png"))
        daemon.waitFor("library webdav \(server.url) online: 2 picture(s), ")

        server.stop()
        let offline = try live.within1s(control, "offline at the next poll (10 s)", seconds: 40) { library($0)["state"] as? String == "offline" }
        #expect(offline["count"] as? Int == 2, "its cached pictures stay in the show")
        daemon.waitFor("library webdav \(server.url) offline since ")
    }
}

/// A headless kioskd whose config names a server's library (`section`,
/// polled every 10 s), and a control connection to it.
struct ServerLibraryDaemon {
    let daemon: HeadlessDaemonTests.Daemon
    let control: ControlConnection
    let live = LiveFolderDaemonTests()

    init(_ folder: PictureFolderFixture, section: String) throws {
        let config = try folder.write("kiosk.toml", Array("""
            state_dir = "\(folder.path)/state"
            interval = 600
            \(section)
            poll = "10s"

            """.utf8))
        daemon = try HeadlessDaemonTests.Daemon(["--config", config])
        do {
            daemon.waitFor("control socket: ")
            control = try ControlConnection(path: daemon.socket)
        } catch {
            _ = daemon.stop()
            throw error
        }
    }

    /// The first library `status` lists.
    static func library(_ status: [String: Any]) -> [String: Any] { (status["libraries"] as? [[String: Any]])?.first ?? [:] }
}
