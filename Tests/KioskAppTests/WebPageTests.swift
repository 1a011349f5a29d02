import Foundation
import Synchronization
import ImageCodecs
@testable import KioskWeb
import KioskRendering
import KioskCore
import TestSupport
import WebServerSupport
import Testing

/// kioskd-web, the built program, serving the page for a headless kioskd
/// over its control socket: the login and its throttle, the session and
/// CSRF rules, the commands, and uploads into the picture folder, asked
/// over real HTTP on loopback as a browser asks.
@Suite struct WebPageTests {
    static let password = "correct horse battery staple"

    /// A kioskd on a folder of its own (a copy of three demo pictures) and a
    /// kioskd-web for it, with `web` added to the config's `[web]` table.
    final class Kiosk {
        let folder: PictureFolderFixture
        let kioskd: HeadlessDaemonTests.Daemon
        let web: WebDaemon
        var pictures: String { folder.path + "/pictures" }

        /// A small disk (tmpfs) mounted as the picture folder, when given its size.
        private var mounted: String?

        /// `sections`: more of the config after `[web]` (a library's table).
        init(web extra: String = "", listen: String = "127.0.0.1:0", scheme: String = "http", pictureDiskBytes: Int? = nil,
             folder: PictureFolderFixture? = nil, sections: String = "", state: String? = nil) throws {
            self.folder = try folder ?? PictureFolderFixture()
            let folder = self.folder
            if let pictureDiskBytes {
                try folder.mkdir("pictures")
                guard mount("none", folder.path + "/pictures", "tmpfs", 0, "size=\(pictureDiskBytes)") == 0 else {
                    throw TestFailure("cannot mount a tmpfs as the picture folder (the tests run as root): \(String(cString: strerror(errno)))")
                }
                mounted = folder.path + "/pictures"
            }
            for name in ["01.jpg", "02.jpg", "03.jpg"] {
                try folder.write("pictures/" + name, Array(try Data(contentsOf: URL(fileURLWithPath: demoImages + "/" + name))))
            }
            let hash = try WebPageTests.hashPassword(WebPageTests.password + "\n")
            #expect(hash.status == 0, "\(hash.stderr)")
            try folder.write("web-password", Array(hash.stdout.utf8))
            let config = try folder.write("kiosk.toml", Array("""
                images = "\(folder.path)/pictures"
                socket = "\(folder.path)/control.sock"
                state_dir = "\(state ?? "none")"
                interval = 600

                [web]
                listen = "127.0.0.1:8080"
                password_file = "\(folder.path)/web-password"
                \(extra)

                \(sections)

                """.utf8))
            kioskd = try HeadlessDaemonTests.Daemon(["--config", config, "--socket", folder.path + "/control.sock"])
            kioskd.waitFor("control socket: ")
            web = try WebDaemon(config: config, listen: listen, scheme: scheme)
        }

        deinit {
            _ = web.stop()
            _ = kioskd.stop()
            if let mounted { umount(mounted) }
        }

        /// A session's cookie and CSRF token, logged in with the password.
        func logIn() throws -> (cookie: String, csrf: String) {
            let login = try web.request("POST", "/login", form: ["password": WebPageTests.password])
            #expect(login.status == 303 && login.header("Location") == "/", "\(login)")
            let cookie = try #require(login.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
            let session = try web.request("GET", "/api/session", headers: [("Cookie", cookie)])
            let csrf = try #require(session.json["csrf"] as? String, "\(session)")
            return (cookie, csrf)
        }

        func status(_ cookie: String) throws -> [String: Any] {
            try web.request("GET", "/api/status", headers: [("Cookie", cookie)]).json
        }
    }

    /// The built kioskd-web on a free loopback port.
    final class WebDaemon {
        let process = Process()
        let err = Pipe()
        private(set) var log = ""
        private(set) var port = 0

        init(config: String, listen: String = "127.0.0.1:0", scheme: String = "http") throws {
            process.executableURL = URL(fileURLWithPath: try builtExecutable("kioskd-web"))
            let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../web").standardized.path
            process.arguments = ["--config", config, "--page", page, "--listen", listen]
            process.standardError = err
            try process.run()
            let prefix = "serving the page on \(scheme)://\(listen.dropLast(2)):"
            while process.isRunning, !log.contains(prefix) || !log[log.range(of: prefix)!.upperBound...].contains(" ") {
                log += String(decoding: err.fileHandleForReading.availableData, as: UTF8.self)
            }
            port = log.range(of: prefix).flatMap { Int(log[$0.upperBound...].prefix { $0.isNumber }) } ?? 0
            #expect(port > 0, "log: \(log)")
        }

        func stop() -> String {
            process.terminate()
            log += String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return log
        }

        func request(_ method: String, _ path: String, headers: [(String, String)] = [], form: [String: String]? = nil, body: [UInt8] = []) throws -> HTTPAnswer {
            var headers = headers
            var body = body
            if let form {
                body = Array(form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&").utf8)
                headers.append(("Content-Type", "application/x-www-form-urlencoded"))
            }
            return try HTTPAnswer.ask(port: port, method: method, path: path, headers: headers, body: body)
        }
    }

    /// One answer, read raw off the socket: a browser's view, nothing interpreted.
    typealias HTTPAnswer = RawHTTPAnswer

    struct TestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func hashPassword(_ input: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try builtExecutable("kioskd-web"))
        process.arguments = ["hash-password"]
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile(), err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    /// A multipart/form-data body holding `files`, as a browser's FormData sends it.
    static func multipart(_ files: [(name: String, bytes: [UInt8])]) -> (contentType: String, body: [UInt8]) {
        let boundary = "----kioskd-test-\(UInt32.random(in: 0...UInt32.max))"
        var body: [UInt8] = []
        for file in files {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(file.name)\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
            body += file.bytes + [13, 10]
        }
        body += Array("--\(boundary)--\r\n".utf8)
        return ("multipart/form-data; boundary=\(boundary)", body)
    }

    // MARK: The tests

    @Test func hashPasswordMakesAnArgon2idHashAndTheServerRefusesAPlainPassword() throws {
        let made = try Self.hashPassword("secret\n")
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.hasPrefix("$argon2id$v=19$m=65536,t=2,p=1$") && made.stdout.hasSuffix("\n"), "\(made.stdout)")
        let again = try Self.hashPassword("secret\n")
        #expect(again.stdout != made.stdout, "each hash has its own salt")
        let empty = try Self.hashPassword("")
        #expect(empty.status == 1 && empty.stderr.contains("no password on standard input"), "\(empty)")

        let folder = try PictureFolderFixture()
        try folder.write("web-password", Array("secret\n".utf8))
        let config = try folder.write("kiosk.toml", Array("""
            images = "\(folder.path)"
            [web]
            listen = "127.0.0.1:8080"
            password_file = "\(folder.path)/web-password"

            """.utf8))
        let refused = try runBuilt("kioskd-web", ["--config", config, "--page", "/nonexistent"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("\(folder.path)/web-password does not hold an Argon2id hash"), "\(refused.stderr)")
        #expect(refused.stderr.contains("kioskd-web hash-password"), "it says how to make the hash")
    }

    @Test func nothingButTheLoginPageIsReachableWithoutASession() throws {
        let kiosk = try Kiosk()
        let web = kiosk.web
        #expect(try web.request("GET", "/login").status == 200)
        #expect(try web.request("GET", "/kiosk.css").status == 200, "the login page's style")
        for path in ["/", "/index.html", "/kiosk.js", "/nonexistent"] {
            let answer = try web.request("GET", path)
            #expect(answer.status == 303 && answer.header("Location") == "/login", "\(path): \(answer)")
        }
        for path in ["/api/status", "/api/session", "/api/commands", "/api/nonexistent"] {
            #expect(try web.request("GET", path).status == 401, "\(path)")
        }
        #expect(try web.request("POST", "/api/command", form: ["line": "next"]).status == 401)
        let forged = try web.request("GET", "/api/status", headers: [("Cookie", "\(WebPageTestsCookie.name)=guessed")])
        #expect(forged.status == 401, "\(forged)")
        let page = try web.request("GET", "/login")
        #expect(page.header("X-Frame-Options") == "DENY" && page.header("Content-Security-Policy")?.contains("default-src 'self'") == true, "\(page)")
    }

    @Test func theRightPasswordGivesAStrictHttpOnlySessionThatDrivesTheKiosk() throws {
        let kiosk = try Kiosk()
        let login = try kiosk.web.request("POST", "/login", form: ["password": Self.password])
        let cookie = try #require(login.header("Set-Cookie"), "\(login)")
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"), "\(cookie)")
        #expect(!cookie.contains("Secure"), "plain http: a Secure cookie would never come back")
        let (session, csrf) = try kiosk.logIn()
        #expect(try kiosk.web.request("GET", "/", headers: [("Cookie", session)]).text.contains("kiosk.js"))

        let before = try kiosk.status(session)
        #expect(before["count"] as? Int == 3 && before["index"] as? Int == 0, "\(before)")
        let next = try kiosk.web.request("POST", "/api/command", headers: [("Cookie", session), ("X-CSRF-Token", csrf)], form: ["line": "next"])
        #expect(next.status == 200 && next.json["ok"] as? Bool == true, "\(next)")
        #expect(eventually { (try? kiosk.status(session))?["index"] as? Int == 1 })
        _ = try kiosk.web.request("POST", "/api/command", headers: [("Cookie", session), ("X-CSRF-Token", csrf)], form: ["line": "prev"])
        #expect(eventually { (try? kiosk.status(session))?["index"] as? Int == 0 })
        _ = try kiosk.web.request("POST", "/api/command", headers: [("Cookie", session), ("X-CSRF-Token", csrf)], form: ["line": "pause"])
        #expect(try kiosk.status(session)["paused"] as? Bool == true)
        _ = try kiosk.web.request("POST", "/api/command", headers: [("Cookie", session), ("X-CSRF-Token", csrf)], form: ["line": "display on 40"])
        #expect(try kiosk.status(session)["brightness"] as? Int == 40)
        _ = try kiosk.web.request("POST", "/api/command", headers: [("Cookie", session), ("X-CSRF-Token", csrf)], form: ["line": "message --for 1m Welcome"])
        #expect(try kiosk.status(session)["message"] as? String == "Welcome")

        let refused = try kiosk.web.request("POST", "/api/command", headers: [("Cookie", session), ("X-CSRF-Token", csrf)], form: ["line": "next 0"])
        #expect(refused.status == 400 && (refused.json["error"] as? String)?.isEmpty == false, "\(refused)")
        // A second command smuggled after a newline never reaches kioskd.
        let smuggled = try kiosk.web.request("POST", "/api/command", headers: [("Cookie", session), ("X-CSRF-Token", csrf)], form: ["line": "goto 01.jpg\nwatch"])
        #expect(smuggled.status == 400 && (smuggled.json["error"] as? String)?.contains("without control characters") == true, "\(smuggled)")
        #expect(try kiosk.status(session)["ok"] as? Bool == true, "the connection to kioskd is one reply per request still")
        let streamed = try kiosk.web.request("POST", "/api/command", headers: [("Cookie", session), ("X-CSRF-Token", csrf)], form: ["line": "watch"])
        #expect(streamed.status == 400 && (streamed.json["error"] as? String)?.contains("not offered on the page") == true, "\(streamed)")
        let commands = try kiosk.web.request("GET", "/api/commands", headers: [("Cookie", session)]).json["commands"] as? [[String: Any]] ?? []
        #expect(commands.compactMap { $0["name"] as? String } == ControlRequest.table.filter { if case .everywhere = $0.reach { true } else { false } }.map(\.name))

        let out = try kiosk.web.request("POST", "/logout", headers: [("Cookie", session), ("X-CSRF-Token", csrf)])
        #expect(out.status == 303 && out.header("Set-Cookie")?.contains("Max-Age=0") == true, "\(out)")
        #expect(try kiosk.web.request("GET", "/api/status", headers: [("Cookie", session)]).status == 401, "logged out")
    }

    @Test func aChangeWithoutTheCSRFTokenIsRefused() throws {
        let kiosk = try Kiosk()
        let (session, csrf) = try kiosk.logIn()
        let without = try kiosk.web.request("POST", "/api/command", headers: [("Cookie", session)], form: ["line": "next"])
        #expect(without.status == 403 && (without.json["error"] as? String)?.contains("CSRF token") == true, "\(without)")
        let wrong = try kiosk.web.request("POST", "/api/command", headers: [("Cookie", session), ("X-CSRF-Token", String(csrf.reversed()))], form: ["line": "next"])
        #expect(wrong.status == 403)
        let upload = Self.multipart([("x.jpg", Array(try Data(contentsOf: URL(fileURLWithPath: demoImages + "/04.jpg"))))])
        let uploadWithout = try kiosk.web.request("POST", "/api/upload", headers: [("Cookie", session), ("Content-Type", upload.contentType)], body: upload.body)
        #expect(uploadWithout.status == 403)
        #expect(try kiosk.status(session)["index"] as? Int == 0, "nothing moved")
        #expect(!FileManager.default.fileExists(atPath: kiosk.pictures + "/x.jpg"), "nothing added")
    }

    @Test func pastFiveWrongPasswordsInAMinuteTheAnswerIs429WithRetryAfter() throws {
        let kiosk = try Kiosk()
        for attempt in 1...LoginThrottle.allowedFailures {
            let wrong = try kiosk.web.request("POST", "/login", form: ["password": "guess \(attempt)"])
            #expect(wrong.status == 401 && wrong.text.contains("That is not the password"), "\(wrong)")
            #expect(wrong.header("Set-Cookie") == nil)
        }
        let held = try kiosk.web.request("POST", "/login", form: ["password": Self.password])
        #expect(held.status == 429, "even the right password waits: \(held)")
        let wait = Int(held.header("Retry-After") ?? "") ?? 0
        #expect((1...60).contains(wait), "\(held)")
        #expect(held.text.contains("Too many wrong passwords from this address: try again in \(wait) seconds."), "\(held.text)")
        #expect(held.header("Set-Cookie") == nil)
        let log = kiosk.web.stop()
        #expect(log.contains("refused a login from 127.0.0.1: 5 wrong passwords within a minute"), "\(log)")
    }

    @Test func uploadedPhotosJoinTheShowAndWhatIsNotAPictureIsRefusedByName() throws {
        let kiosk = try Kiosk(web: #"upload_max = "1MB""#)
        let (session, csrf) = try kiosk.logIn()
        let auth = [("Cookie", session), ("X-CSRF-Token", csrf)]
        let photo = Array(try Data(contentsOf: URL(fileURLWithPath: demoImages + "/04.jpg")))
        let another = Array(try Data(contentsOf: URL(fileURLWithPath: demoImages + "/05.jpg")))

        let three = Self.multipart([("IMG_0001.JPG", photo), ("../../escape.jpg", another), ("01.jpg", photo)])
        let added = try kiosk.web.request("POST", "/api/upload", headers: auth + [("Content-Type", three.contentType)], body: three.body)
        #expect(added.status == 200, "\(added)")
        #expect(added.json["added"] as? [String] == ["IMG_0001.JPG", "escape.jpg", "01 (2).jpg"], "cleaned, and never over a photo already there: \(added)")
        #expect(!FileManager.default.fileExists(atPath: kiosk.folder.path + "/escape.jpg"), "../ never leaves the folder")
        #expect(FileManager.default.contentsEqual(atPath: kiosk.pictures + "/01 (2).jpg", andPath: demoImages + "/04.jpg"))
        #expect(eventually { (try? kiosk.status(session))?["count"] as? Int == 6 }, "the show's count grows")

        let text = Self.multipart([("notes.jpg", Array("These are not a photo's bytes.\n".utf8))])
        let notPicture = try kiosk.web.request("POST", "/api/upload", headers: auth + [("Content-Type", text.contentType)], body: text.body)
        #expect(notPicture.status == 415, "\(notPicture)")
        #expect((notPicture.json["error"] as? String)?.hasPrefix("notes.jpg is not a picture or clip kioskd shows") == true, "\(notPicture)")

        let large = Self.multipart([("big.jpg", photo + [UInt8](repeating: 0, count: 1_100_000))])
        let tooLarge = try kiosk.web.request("POST", "/api/upload", headers: auth + [("Content-Type", large.contentType)], body: large.body)
        #expect(tooLarge.status == 413 && (tooLarge.json["error"] as? String)?.contains("web.upload_max") == true, "\(tooLarge)")

        // None of the refused left a file, hidden or not.
        let names = try FileManager.default.contentsOfDirectory(atPath: kiosk.pictures).sorted()
        #expect(names == ["01 (2).jpg", "01.jpg", "02.jpg", "03.jpg", "IMG_0001.JPG", "escape.jpg"], "\(names)")
        #expect(try kiosk.status(session)["count"] as? Int == 6)
    }

    @Test func aFullDiskIsRefusedCleanlyAndTheFolderLeftAsItWas() throws {
        let kiosk = try Kiosk(pictureDiskBytes: 400_000)
        let (session, csrf) = try kiosk.logIn()
        let before = try FileManager.default.contentsOfDirectory(atPath: kiosk.pictures).sorted()
        let photo = Array(try Data(contentsOf: URL(fileURLWithPath: demoImages + "/04.jpg")))
        // A photo, then one that does not fit what is left: the upload is whole or not at all.
        let upload = Self.multipart([("fits.jpg", photo), ("too-much.jpg", photo + [UInt8](repeating: 0x20, count: 600_000))])
        let full = try kiosk.web.request("POST", "/api/upload", headers: [("Cookie", session), ("X-CSRF-Token", csrf), ("Content-Type", upload.contentType)], body: upload.body)
        #expect(full.status == 507, "\(full)")
        #expect(full.json["error"] as? String == "too-much.jpg was not kept: the kiosk's disk is full", "\(full)")
        let after = try FileManager.default.contentsOfDirectory(atPath: kiosk.pictures).sorted()
        #expect(after == before, "no photo, no hidden temporary left: \(after)")
        #expect(try kiosk.status(session)["count"] as? Int == 3)
        // Room again: the same photo goes in.
        let small = Self.multipart([("fits.jpg", photo)])
        let added = try kiosk.web.request("POST", "/api/upload", headers: [("Cookie", session), ("X-CSRF-Token", csrf), ("Content-Type", small.contentType)], body: small.body)
        #expect(added.status == 200 && added.json["added"] as? [String] == ["fits.jpg"], "\(added)")
    }

    @Test func anUploadCutShortIsNotKeptAndLeftoversOfAStopAreSweptAtStart() throws {
        let folder = try PictureFolderFixture()
        // What a kioskd-web stopped mid-upload left (a power cut).
        try folder.write("pictures/01.jpg")
        try folder.write("pictures/.upload-Zm9vYmFyYmF6.partial", [0xFF, 0xD8, 0xFF])
        try folder.write("pictures/.upload-notes.txt", Array("an operator's own hidden file\n".utf8))
        let kiosk = try Kiosk(folder: folder)
        let names = try FileManager.default.contentsOfDirectory(atPath: kiosk.pictures).sorted()
        #expect(names == [".upload-notes.txt", "01.jpg", "02.jpg", "03.jpg"], "\(names)")
        #expect(kiosk.web.log.contains("removed \(kiosk.pictures)/.upload-Zm9vYmFyYmF6.partial, an upload a stop cut short"), "\(kiosk.web.log)")

        let (session, csrf) = try kiosk.logIn()
        let photo = Array(try Data(contentsOf: URL(fileURLWithPath: demoImages + "/04.jpg")))
        var upload = Self.multipart([("cut.jpg", photo)])
        // The body stops before its closing boundary: half a photo.
        upload.body.removeLast(upload.body.count - photo.count / 2)
        let cut = try kiosk.web.request("POST", "/api/upload", headers: [("Cookie", session), ("X-CSRF-Token", csrf), ("Content-Type", upload.contentType)], body: upload.body)
        #expect(cut.status == 400, "\(cut)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: kiosk.pictures).sorted() == names, "nothing kept")
    }

    @Test func onADualStackSocketAnIPv4ClientIsCountedAsItself() throws {
        let kiosk = try Kiosk(listen: "[::]:0")
        let wrong = try kiosk.web.request("POST", "/login", form: ["password": "guess"])
        #expect(wrong.status == 401)
        let log = kiosk.web.stop()
        #expect(log.contains("a wrong password from 127.0.0.1"), "\(log)")
    }

    @Test func aPictureNamedWithoutItsExtensionGetsTheOneItsContentSays() throws {
        let kiosk = try Kiosk()
        let (session, csrf) = try kiosk.logIn()
        let photo = Array(try Data(contentsOf: URL(fileURLWithPath: demoImages + "/04.jpg")))
        let upload = Self.multipart([("From the party", photo)])
        let added = try kiosk.web.request("POST", "/api/upload", headers: [("Cookie", session), ("X-CSRF-Token", csrf), ("Content-Type", upload.contentType)], body: upload.body)
        #expect(added.json["added"] as? [String] == ["From the party.jpg"], "\(added)")
        #expect(eventually { (try? kiosk.status(session))?["count"] as? Int == 4 })
    }
}

extension WebPageTests {
    /// The pictures in the show: a page of them, each with kioskd's
    /// thumbnail, and delete for the picture folder's, only of the item the
    /// list showed.
    @Test func thePicturesAreListedWithThumbnailsAndTheFoldersDeleted() throws {
        let kiosk = try Kiosk()
        let (session, csrf) = try kiosk.logIn()
        let auth = [("Cookie", session), ("X-CSRF-Token", csrf)]
        let list = try kiosk.web.request("GET", "/api/pictures", headers: [("Cookie", session)])
        #expect(list.status == 200 && list.json["count"] as? Int == 3, "\(list)")
        let items = try #require(list.json["pictures"] as? [[String: Any]])
        #expect(items.map { $0["name"] as? String } == ["01.jpg", "02.jpg", "03.jpg"])
        #expect(items.allSatisfy { $0["deletable"] as? Bool == true && $0["kind"] as? String == "folder" }, "\(items)")

        let version = try #require(items[1]["version"] as? String, "a folder's picture has its version: \(items[1])")
        let thumbnail = try kiosk.web.request("GET", "/api/thumbnail?index=1&name=02.jpg&v=\(version)", headers: [("Cookie", session)])
        #expect(thumbnail.status == 200 && thumbnail.header("Content-Type") == "image/jpeg", "\(thumbnail)")
        #expect(thumbnail.header("Cache-Control") == "private, max-age=86400", "kept by the browser, not no-store: \(thumbnail)")
        let unversioned = try kiosk.web.request("GET", "/api/thumbnail?index=1&name=02.jpg", headers: [("Cookie", session)])
        #expect(unversioned.status == 200 && unversioned.header("Cache-Control") == "private, no-cache", "\(unversioned)")
        let picture = try JPEGCodec.header(of: thumbnail.body, path: "thumbnail", options: DecodeOptions(background: RGBColor(hex: "000000")!))
        #expect(max(picture.storedSize.width, picture.storedSize.height) == PictureListing.thumbnailSize.width)
        let stale = try kiosk.web.request("GET", "/api/thumbnail?index=1&name=03.jpg", headers: [("Cookie", session)])
        #expect(stale.status == 409, "item 1 is not 03.jpg: never another picture under a name: \(stale)")
        #expect(try kiosk.web.request("GET", "/api/thumbnail?index=1&name=02.jpg").status == 401)

        let noToken = try kiosk.web.request("POST", "/api/delete", headers: [("Cookie", session)], form: ["index": "1", "name": "02.jpg"])
        #expect(noToken.status == 403, "\(noToken)")
        let wrongItem = try kiosk.web.request("POST", "/api/delete", headers: auth, form: ["index": "1", "name": "03.jpg"])
        #expect(wrongItem.status == 409, "\(wrongItem)")
        let escape = try kiosk.web.request("POST", "/api/delete", headers: auth, form: ["index": "0", "name": "../kiosk.toml"])
        #expect(escape.status == 409 && FileManager.default.fileExists(atPath: kiosk.folder.path + "/kiosk.toml"), "\(escape)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: kiosk.pictures).sorted() == ["01.jpg", "02.jpg", "03.jpg"], "nothing refused was deleted")

        let deleted = try kiosk.web.request("POST", "/api/delete", headers: auth, form: ["index": "1", "name": "02.jpg"])
        #expect(deleted.status == 200 && deleted.json["deleted"] as? [String] == ["02.jpg"], "\(deleted)")
        #expect(!FileManager.default.fileExists(atPath: kiosk.pictures + "/02.jpg"))
        #expect(eventually { (try? kiosk.status(session))?["count"] as? Int == 2 }, "the show drops it")
        let after = try kiosk.web.request("GET", "/api/pictures", headers: [("Cookie", session)])
        #expect((after.json["pictures"] as? [[String: Any]])?.map { $0["name"] as? String } == ["01.jpg", "03.jpg"], "\(after)")
        let again = try kiosk.web.request("POST", "/api/delete", headers: auth, form: ["index": "1", "name": "02.jpg"])
        #expect(again.status == 409, "deleted already: item 1 is now 03.jpg, which stays: \(again)")
        #expect(FileManager.default.fileExists(atPath: kiosk.pictures + "/03.jpg"))
    }

    /// The remover walks the folder without following a link: neither a
    /// link to a folder elsewhere nor a name of a folder deletes anything.
    @Test func theRemoverNeverFollowsALinkOutOfTheFolderNorDeletesAFolder() throws {
        let folder = try PictureFolderFixture()
        try folder.mkdir("pictures/2024")
        try folder.write("pictures/2024/beach.jpg", [1])
        try folder.write("outside/keep.jpg", [2])
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/pictures/album", withDestinationPath: folder.path + "/outside")
        let pictures = folder.path + "/pictures"
        func status(_ path: String) -> Int? {
            if case .failure(let failure) = PictureRemover.remove(path, from: pictures) { return failure.status }
            return nil
        }
        #expect(status("album/keep.jpg") == 409, "through a link")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/outside/keep.jpg"))
        #expect(status("2024") == 409, "a folder")
        #expect(status("../outside/keep.jpg") == 400 && status("/etc/hostname") == 400)
        #expect(status("2024/none.jpg") == 404)
        #expect(status("2024/beach.jpg") == nil && !FileManager.default.fileExists(atPath: pictures + "/2024/beach.jpg"))
        #expect(status("album") == nil, "a link itself is the folder's entry: it goes, not what it points to")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/outside/keep.jpg"))
    }

    /// A thumbnail kioskd is slow to make holds up no other request: with
    /// kioskd stopped (SIGSTOP) a thumbnail waits out its 10 s, and the
    /// page's other answers come meanwhile.
    @Test func aSlowThumbnailHoldsUpNothingElse() throws {
        let kiosk = try Kiosk()
        let (session, _) = try kiosk.logIn()
        let pid = kiosk.kioskd.process.processIdentifier
        kill(pid, SIGSTOP)
        defer { kill(pid, SIGCONT) }
        let port = kiosk.web.port
        let done = Mutex<RawHTTPAnswer?>(nil)
        let asking = Thread {
            let answer = try? RawHTTPAnswer.ask(port: port, method: "GET", path: "/api/thumbnail?index=0&name=01.jpg", headers: [("Cookie", session)])
            done.withLock { $0 = answer }
        }
        asking.start()
        usleep(300_000)
        let login = try kiosk.web.request("GET", "/login")
        let css = try kiosk.web.request("GET", "/kiosk.css")
        #expect(login.status == 200 && css.status == 200)
        #expect(done.withLock { $0 } == nil, "answered while the thumbnail still waits for kioskd")
        kill(pid, SIGCONT)
        #expect(eventually(within: 30) { done.withLock { $0 } != nil }, "the thumbnail is answered in the end")
        let thumbnail = done.withLock { $0 }
        #expect(thumbnail?.status == 503 || thumbnail?.status == 200, "\(String(describing: thumbnail))")
    }

    /// A server's pictures are listed from kioskd's cache and marked, and
    /// never deleted, even by a form made by hand.
    @Test func aServersPicturesAreListedAsSuchAndNeverDeleted() throws {
        let server = try TestImmichServer()
        try server.set(try ImmichLibraryTests().family())
        let folder = try PictureFolderFixture()
        let key = try folder.write("api-key", Array((server.apiKey + "\n").utf8))
        let state = folder.path + "/state"
        try folder.mkdir("state")
        let kiosk = try Kiosk(folder: folder, sections: """
            [immich]
            url = "\(server.url)"
            api_key_file = "\(key)"
            albums = ["Holidays 2024"]
            """, state: state)
        let (session, csrf) = try kiosk.logIn()
        #expect(eventually { (try? kiosk.status(session))?["count"] as? Int == 6 }, "three photos of the folder, the album's two and its clip")
        let list = try kiosk.web.request("GET", "/api/pictures", headers: [("Cookie", session)])
        let items = try #require(list.json["pictures"] as? [[String: Any]], "\(list)")
        let remote = items.filter { $0["kind"] as? String == "immich" }
        #expect(remote.count == 3 && remote.allSatisfy { $0["deletable"] as? Bool == false && $0["library"] as? Int == 1 }, "\(items)")
        #expect(items.filter { $0["deletable"] as? Bool == true }.count == 3)
        let first = try #require(remote.first)
        let refused = try kiosk.web.request("POST", "/api/delete", headers: [("Cookie", session), ("X-CSRF-Token", csrf)],
                                            form: ["index": "\(first["index"] as? Int ?? -1)", "name": first["name"] as? String ?? ""])
        #expect(refused.status == 403 && (refused.json["error"] as? String)?.contains("comes from immich") == true, "\(refused)")
        #expect(try kiosk.status(session)["count"] as? Int == 6)
        let thumbnail = try kiosk.web.request(
            "GET", "/api/thumbnail?index=\(first["index"] as? Int ?? -1)&name=\((first["name"] as? String ?? "").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")",
            headers: [("Cookie", session)])
        #expect(thumbnail.status == 200 && thumbnail.header("Content-Type") == "image/jpeg", "a cached picture has its thumbnail too: \(thumbnail)")
        #expect(server.problems == [])
    }

    /// The settings: kioskd's values in force with the table's help and
    /// policy; one changed through the page's command applies at once.
    @Test func theSettingsComeFromTheTableAndAChangeApplies() throws {
        let kiosk = try Kiosk()
        let (session, csrf) = try kiosk.logIn()
        let listed = try kiosk.web.request("GET", "/api/settings", headers: [("Cookie", session)])
        let settings = try #require(listed.json["settings"] as? [[String: Any]], "\(listed)")
        #expect(settings.map { $0["name"] as? String } == KioskSettings.table.keys.map(Optional.some))
        func setting(_ name: String, in list: [[String: Any]]) -> [String: Any] { list.first { $0["name"] as? String == name } ?? [:] }
        let interval = setting("interval", in: settings)
        #expect(interval["value"] as? String == "600" && interval["set"] as? Bool == false && interval["applies"] as? String == "applies at once")
        #expect(interval["help"] as? String == KioskSettings.table["interval"]?.help)
        let socket = setting("socket", in: settings)
        #expect(socket["settable"] as? Bool == false && socket["applies"] as? String == "needs a restart of kioskd", "\(socket)")
        #expect(setting("web.listen", in: settings)["applies"] as? String == "needs a restart of this page (kioskd-web)")
        #expect(setting("portrait_pairs", in: settings)["takes"] as? String == "true or false")

        let changed = try kiosk.web.request("POST", "/api/command", headers: [("Cookie", session), ("X-CSRF-Token", csrf)], form: ["line": "set interval 45"])
        #expect(changed.status == 200, "\(changed)")
        #expect(try kiosk.status(session)["interval"] as? Double == 45)
        let after = try kiosk.web.request("GET", "/api/settings", headers: [("Cookie", session)]).json["settings"] as? [[String: Any]] ?? []
        #expect(setting("interval", in: after)["value"] as? String == "45" && setting("interval", in: after)["set"] as? Bool == true)
        let refused = try kiosk.web.request("POST", "/api/command", headers: [("Cookie", session), ("X-CSRF-Token", csrf)], form: ["line": "set socket /tmp/x"])
        #expect(refused.status == 400 && (refused.json["error"] as? String)?.contains("write it in the config file") == true, "\(refused)")
        // set takes these from kioskctl; from the page they could send a credential kioskd can read to someone's server.
        #expect(setting("images", in: settings)["settable"] as? Bool == false && setting("webdav.password_file", in: settings)["settable"] as? Bool == false)
        for line in ["set webdav.url https://attacker.example/dav/", "set webdav.password_file /etc/kioskd/mqtt-password", "set images /etc", "unset images"] {
            let forbidden = try kiosk.web.request("POST", "/api/command", headers: [("Cookie", session), ("X-CSRF-Token", csrf)], form: ["line": line])
            #expect(forbidden.status == 403 && (forbidden.json["error"] as? String)?.contains("not from the page") == true, "\(line): \(forbidden)")
        }
    }

    @Test func theLiveScreenIsKioskdsSmallJPEGAskedAtMostOnceEveryTwoSeconds() throws {
        let kiosk = try Kiosk()
        let (session, _) = try kiosk.logIn()
        let first = try kiosk.web.request("GET", "/api/screen", headers: [("Cookie", session)])
        #expect(first.status == 200 && first.header("Content-Type") == "image/jpeg", "\(first)")
        let picture = try JPEGCodec.header(of: first.body, path: "/api/screen", options: DecodeOptions(background: RGBColor(hex: "000000")!))
        #expect(picture.storedSize == PixelSize(width: 320, height: 180), "the headless screen's frame, under 640 across: it is not made larger")
        // Asked again at once: the same bytes, not a new picture from kioskd.
        let again = try kiosk.web.request("GET", "/api/screen", headers: [("Cookie", session)])
        #expect(again.body == first.body)
        #expect(try kiosk.web.request("GET", "/api/screen").status == 401, "no screen without a session")
    }

    @Test func kioskdsEventsReachAnOpenPageAsServerSentEvents() throws {
        let kiosk = try Kiosk()
        let (session, csrf) = try kiosk.logIn()
        let stream = try HTTPStreamReader(port: kiosk.web.port, path: "/api/events", cookie: session)
        #expect(stream.read(until: { $0.contains("retry: 3000") }).contains("text/event-stream"))
        _ = try kiosk.web.request("POST", "/api/command", headers: [("Cookie", session), ("X-CSRF-Token", csrf)], form: ["line": "pause"])
        let heard = stream.read(until: { $0.contains(#"data: {"event":"pause"}"#) })
        #expect(heard.contains(#"data: {"event":"pause"}"#), "\(heard)")
        // kioskd stops: the page hears so, and kioskd-web goes on serving.
        _ = kiosk.kioskd.stop()
        let away = stream.read(until: { $0.contains("event: kiosk") })
        #expect(away.contains("event: kiosk\ndata: {\"ok\":false"), "\(away)")
        #expect(try kiosk.web.request("GET", "/login").status == 200)
        let status = try kiosk.web.request("GET", "/api/status", headers: [("Cookie", session)])
        #expect(status.status == 503 && (status.json["error"] as? String)?.contains("kioskd does not answer") == true, "\(status)")
    }
}

/// A response that stays open (Server-Sent Events), read as it comes.
final class HTTPStreamReader {
    private let socket: Int32
    private var received = ""

    init(port: Int, path: String, cookie: String) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { throw WebPageTests.TestFailure("cannot connect to 127.0.0.1:\(port)") }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(cookie)\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    deinit { close(socket) }

    /// What arrived so far, once `done` holds for it or 30 s passed.
    func read(until done: (String) -> Bool) -> String {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let end = Date().addingTimeInterval(30)
        while !done(received), Date() < end {
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 1000) > 0 else { continue }
            let count = recv(socket, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            received += String(decoding: chunk[..<count], as: UTF8.self)
        }
        return received
    }
}

extension WebPageTests {
    @Test func withACertificateThePageIsHTTPSOnlyAndItsCookieSecure() throws {
        let certificates = try TestCertificates()
        let kiosk = try Kiosk(web: "tls_cert = \"\(certificates.trusted)\"\ntls_key = \"\(certificates.key)\"", scheme: "https")
        let url = "https://127.0.0.1:\(kiosk.web.port)/login"
        let login = try curl(["--cacert", certificates.authority, "-i", "--data-urlencode", "password=\(Self.password)", url])
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.hasPrefix("HTTP/1.1 303"), "\(login.stdout)")
        let cookie = login.stdout.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") } ?? ""
        #expect(cookie.contains("; Secure") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "\(cookie)")
        let plain = try curl(["-i", "--max-time", "10", "http://127.0.0.1:\(kiosk.web.port)/login"])
        #expect(!plain.stdout.contains("200 OK"), "no page over plain http on the TLS port: \(plain)")
        #expect(!kiosk.web.stop().contains("without TLS"))
    }

    @Test func servingBeyondLoopbackWithoutTLSWarnsAtStart() throws {
        let kiosk = try Kiosk(listen: "0.0.0.0:0")
        #expect(try kiosk.web.request("GET", "/login").status == 200)
        let log = kiosk.web.stop()
        #expect(log.contains("warning: the page is served beyond this machine without TLS"), "\(log)")
    }

    func curl(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sS"] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile(), stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }
}

enum WebPageTestsCookie {
    static let name = "kioskd_session"
}
