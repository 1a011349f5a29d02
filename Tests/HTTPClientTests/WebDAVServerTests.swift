import DAVListing
import Foundation
import HTTPClient
import KioskCore
import LoopbackSupport
import TestSupport
import Testing
import WebServerSupport
#if canImport(Glibc)
import Glibc
#endif

/// What kioskd asks a WebDAV server: a folder's listing (PROPFIND, Depth 1)
/// and a file; against a real one (Apache's mod_dav on loopback).
@Suite(.serialized) struct WebDAVServerTests {
    static let propfind = Array(
        #"<?xml version="1.0" encoding="utf-8"?><propfind xmlns="DAV:"><prop><resourcetype/><getetag/><getcontentlength/></prop></propfind>"#.utf8)

    func list(_ url: String, credentials: (String, String)? = nil, client: HTTPClient? = nil) throws -> (status: Int, entries: [DAVEntry]) {
        var request = HTTPRequest(url: url, method: "PROPFIND")
        request.headers = ["Depth: 1", "Content-Type: application/xml"]
        request.body = Self.propfind
        request.credentials = credentials
        let response = try (client ?? HTTPClient()).perform(request)
        return (response.status, response.status == 207 ? try DAVListing.parse(response.body) : [])
    }

    @Test func aFolderIsListedWithItsFilesETagsAndSizesAndAChangeChangesTheETag() throws {
        let server = try TestWebDAVServer()
        try server.put("a.jpg", [1, 2, 3])
        try server.put("Summer été/b.jpg", [UInt8](repeating: 7, count: 1000))
        let (status, entries) = try list(server.url)
        #expect(status == 207)
        let byHref = Dictionary(uniqueKeysWithValues: entries.map { ($0.href, $0) })
        #expect(Set(byHref.keys) == ["/photos/", "/photos/a.jpg", "/photos/Summer%20%c3%a9t%c3%a9/"], "\(byHref.keys)")
        let file = try #require(byHref["/photos/a.jpg"])
        #expect(!file.isFolder && file.size == 3 && file.etag != nil)
        #expect(byHref["/photos/Summer%20%c3%a9t%c3%a9/"]?.isFolder == true)
        // Rewritten (another size): another ETag.
        try server.put("a.jpg", [1, 2, 3, 4])
        let again = try list(server.url).entries.first { $0.href == "/photos/a.jpg" }
        #expect(again?.size == 4 && again?.etag != file.etag)
    }

    @Test func aFileIsFetchedWholeAndAMissingOneIsA404() throws {
        let server = try TestWebDAVServer()
        let photo = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try server.put("a.jpg", photo)
        let client = try HTTPClient()
        let fetched = try client.perform(HTTPRequest(url: server.url + "a.jpg"))
        #expect(fetched.status == 200 && fetched.body == photo)
        #expect(try client.perform(HTTPRequest(url: server.url + "missing.jpg")).status == 404)
    }

    @Test func wrongCredentialsAreA401AndTheRightOnesAreLetIn() throws {
        let server = try TestWebDAVServer(credentials: ("anna", "correct horse"))
        try server.put("a.jpg", [1])
        #expect(try list(server.url).status == 401)
        #expect(try list(server.url, credentials: ("anna", "wrong")).status == 401)
        #expect(try list(server.url, credentials: ("anna", "correct horse")).status == 207)
    }

    /// A library at http:// is never led to https://, file:// or anything
    /// else by a redirect; a redirect within its scheme is followed.
    @Test func aRedirectToAnotherSchemeIsRefused() throws {
        let port = try LoopbackPort.free()
        let server = try TestWebDAVServer { _ in
            """
            Redirect /to-https https://127.0.0.1:\(port)/photos/
            Redirect /to-file file:///etc/passwd
            Redirect /moved /photos/
            """
        }
        try server.put("a.jpg", [1])
        let base = "http://127.0.0.1:\(server.port)"
        let client = try HTTPClient()
        for target in ["/to-https", "/to-file"] {
            #expect(throws: HTTPError.self, "\(target)") { try client.perform(HTTPRequest(url: base + target)) }
            do { _ = try client.perform(HTTPRequest(url: base + target)) } catch {
                guard case .refused = error else { Issue.record("\(target): \(error)"); continue }
            }
        }
        #expect(try list(base + "/moved").status == 207)
        #expect(throws: HTTPError.refused("file:///etc/passwd: only http:// and https:// addresses are read")) {
            try client.perform(HTTPRequest(url: "file:///etc/passwd"))
        }
    }

    /// A 2 GB "photo" (here, anything over the bound) is refused from its
    /// announced length; an answer with no length that never ends, once past the bound.
    @Test func anAnswerLargerThanTheBoundIsRefused() throws {
        let server = try TestWebDAVServer()
        try server.put("huge.jpg", [UInt8](repeating: 1, count: 1 << 20))
        var request = HTTPRequest(url: server.url + "huge.jpg")
        request.maximumBytes = 100_000
        #expect(throws: HTTPError.tooLarge(100_000)) { try HTTPClient().perform(request) }

        let endless = try HostileHTTPServer { socket, stopping in
            guard HostileHTTPServer.send(socket, HostileHTTPServer.chunkedHead) else { return }
            let chunk = "1000\r\n" + String(repeating: "x", count: 4096) + "\r\n"
            while !stopping(), HostileHTTPServer.send(socket, chunk) {}
        }
        var forever = HTTPRequest(url: endless.url + "a.jpg")
        forever.maximumBytes = 1 << 20
        #expect(throws: HTTPError.tooLarge(1 << 20)) { try HTTPClient().perform(forever) }
    }

    /// A server that sends one byte a second is given up once it has been
    /// slower than the slowest rate for the time allowed (2 s here, 30 by default).
    @Test func aServerThatSendsOneByteASecondIsGivenUp() throws {
        let slow = try HostileHTTPServer { socket, stopping in
            guard HostileHTTPServer.send(socket, HostileHTTPServer.chunkedHead) else { return }
            while !stopping(), HostileHTTPServer.send(socket, "1\r\nx\r\n") { sleep(1) }
        }
        var request = HTTPRequest(url: slow.url + "a.jpg")
        request.slowFor = 2
        let started = Date()
        do {
            _ = try HTTPClient().perform(request)
            Issue.record("a server sending a byte a second was waited for to the end")
        } catch {
            guard case .tooSlow = error else { Issue.record("\(error)"); return }
        }
        #expect(Date().timeIntervalSince(started) < 60, "given up, not waited for")
    }

    /// The library's thread stops: a transfer to a server that never
    /// answers ends at once, from another thread.
    @Test func aTransferThatHangsIsStoppedFromAnotherThread() throws {
        let silent = try HostileHTTPServer { _, stopping in
            while !stopping() { usleep(10_000) }
        }
        let client = try HTTPClient()
        let stopper = Thread {
            usleep(300_000)
            client.cancel()
        }
        stopper.start()
        #expect(throws: HTTPError.cancelled) { try client.perform(HTTPRequest(url: silent.url)) }
        #expect(throws: HTTPError.cancelled) { try client.perform(HTTPRequest(url: silent.url)) }
    }

    @Test func aServerThatIsNotThereIsUnreachable() throws {
        let port = try LoopbackPort.free()
        do {
            _ = try HTTPClient().perform(HTTPRequest(url: "http://127.0.0.1:\(port)/photos/"))
            Issue.record("a closed port answered")
        } catch {
            guard case .unreachable = error else { Issue.record("\(error)"); return }
        }
    }

    /// libcurl looks names up on a thread of its own (its threaded
    /// resolver), so a stop never waits on DNS.
    @Test func namesAreLookedUpAsynchronously() {
        #expect(HTTPClient.resolvesAsynchronously)
    }
}

/// A PROPFIND answer that is hostile or broken is refused with a clear error.
@Suite struct DAVListingTests {
    @Test func anXMLBombIsRefusedAtItsDeclaration() {
        var bomb = #"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">"#
        for level in 1...9 { bomb += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level == 1 ? "" : String(level - 1));", count: 10) + "\">" }
        bomb += #"]><D:multistatus xmlns:D="DAV:"><D:response><D:href>&lol9;</D:href></D:response></D:multistatus>"#
        #expect(throws: DAVListingError.entityDeclared) { try DAVListing.parse(Array(bomb.utf8)) }
        let external = #"<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><D:multistatus xmlns:D="DAV:"><D:response><D:href>&e;</D:href></D:response></D:multistatus>"#
        #expect(throws: DAVListingError.entityDeclared) { try DAVListing.parse(Array(external.utf8)) }
    }

    @Test func whatIsNotAListingIsRefused() {
        #expect(throws: DAVListingError.self) { try DAVListing.parse(Array("<html><body>Welcome to nginx".utf8)) }
        #expect(throws: DAVListingError.notMultistatus) { try DAVListing.parse(Array("<html><body>Welcome</body></html>".utf8)) }
        let long = #"<D:multistatus xmlns:D="DAV:"><D:response><D:href>"# + String(repeating: "a", count: 20_000) + "</D:href></D:response></D:multistatus>"
        #expect(throws: DAVListingError.textTooLong) { try DAVListing.parse(Array(long.utf8)) }
    }

    /// 100,000 files in one folder: all listed, each with its own ETag and size.
    @Test func aHundredThousandEntriesAreListed() throws {
        var xml = #"<?xml version="1.0" encoding="utf-8"?><D:multistatus xmlns:D="DAV:">"#
        for n in 0..<100_000 {
            xml += "<D:response><D:href>/photos/\(n).jpg</D:href><D:propstat><D:prop><D:resourcetype/><D:getetag>\"e\(n)\"</D:getetag>"
                + "<D:getcontentlength>\(n)</D:getcontentlength></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>"
                + "<D:propstat><D:prop><D:quota/></D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat></D:response>"
        }
        xml += "</D:multistatus>"
        let entries = try DAVListing.parse(Array(xml.utf8))
        #expect(entries.count == 100_000)
        #expect(entries[99_999] == DAVEntry(href: "/photos/99999.jpg", isFolder: false, etag: "\"e99999\"", size: 99_999))
    }

    /// Properties a server lists under 404 (it lacks them) are not taken.
    @Test func propertiesUnder404AreNotTaken() throws {
        let xml = #"""
            <D:multistatus xmlns:D="DAV:"><D:response><D:href>/p/a.jpg</D:href>
            <D:propstat><D:prop><D:getetag>"x"</D:getetag></D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>
            <D:propstat><D:prop><D:getcontentlength>5</D:getcontentlength></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>
            </D:response></D:multistatus>
            """#
        #expect(try DAVListing.parse(Array(xml.utf8)) == [DAVEntry(href: "/p/a.jpg", isFolder: false, etag: nil, size: 5)])
    }
}

/// A server's href, decoded once by libcurl, then judged by ``RemotePath``:
/// escapes of dots and slashes never escape the cache.
@Suite struct ServerNameTests {
    let base = "/remote.php/dav/files/anna/Photos/"

    func path(_ href: String) throws -> RemotePath {
        guard let decoded = HTTPClient.decodedPath(of: href) else { throw RemotePath.Refusal.empty }
        return try RemotePath(path: decoded, base: base)
    }

    @Test(arguments: [
        ("/remote.php/dav/files/anna/Photos/Summer%20%C3%A9t%C3%A9/a.jpg", "Summer été/a.jpg"),
        ("https://cloud.example:8443/remote.php/dav/files/anna/Photos/b%20c.jpg", "b c.jpg"),
        ("/remote.php/dav/files/anna/Photos/a.jpg?x=1", "a.jpg"),
    ])
    func anEscapedNameIsDecodedOnce(href: String, relative: String) throws {
        #expect(try path(href).relative == relative)
        #expect(HTTPClient.decodedPath(of: "/p/%2541.jpg") == "/p/%41.jpg", "once, not twice")
    }

    @Test(arguments: [
        "/remote.php/dav/files/anna/Photos/%2e%2e/%2e%2e/etc/passwd",
        "/remote.php/dav/files/anna/Photos/a%2f..%2f..%2fb.jpg",
        "https://cloud.example/remote.php/dav/files/anna/Photos/../../../../etc/passwd",
        "/remote.php/dav/files/anna/Photos/a%00.jpg",
        "/remote.php/dav/files/anna/Photos/%ff%fe.jpg",
        "/remote.php/dav/files/anna/Photos/%2ehidden.jpg",
    ])
    func anEscapedHostileNameIsRefused(href: String) {
        #expect(throws: (any Error).self) { try path(href) }
    }
}
