import HTTPServer
import Glibc
import JSONDocument
import KioskCore
import PasswordHashing
import SystemCalls

/// The page's requests, answered: the login, the session and its CSRF
/// token, the page's files, and the API the page's script calls, each
/// passed to kioskd over its control socket (``KioskLink``) or written into
/// the picture folder (``UploadReceiver``).
///
/// Nothing but the login page and its style is served without a session.
/// Every request that changes something (any method but GET) carries the
/// session's CSRF token in `X-CSRF-Token`; the session cookie is HttpOnly
/// and SameSite=Strict, Secure over TLS.
public final class WebApp {
    public struct Configuration {
        /// The Argon2id hash string the password is checked against.
        public var passwordHash: String
        /// Cookies marked Secure (the page is https).
        public var secureCookies: Bool
        /// kioskd's control socket.
        public var controlSocket: String
        /// Where uploads go; nil: uploads are off.
        public var pictureFolder: String?
        public var uploadMax: Int64
        public var uploadCount: Int

        public init(passwordHash: String, secureCookies: Bool, controlSocket: String, pictureFolder: String?, uploadMax: Int64, uploadCount: Int) {
            self.passwordHash = passwordHash
            self.secureCookies = secureCookies
            self.controlSocket = controlSocket
            self.pictureFolder = pictureFolder
            self.uploadMax = uploadMax
            self.uploadCount = uploadCount
        }
    }

    /// The session cookie's name.
    public static let cookie = "kioskd_session"

    /// Headers every answer carries: no framing, no sniffing, no referrer, scripts only from the page itself.
    public static let safetyHeaders: [(name: String, value: String)] = [
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("Content-Security-Policy", "default-src 'self'; img-src 'self' blob: data:; frame-ancestors 'none'; form-action 'self'"),
        ("Cache-Control", "no-store"),
    ]

    private let configuration: Configuration
    private let page: PageFiles
    private let kiosk: KioskLink
    private let log: (String) -> Void
    private let now: () -> Double
    private let events: EventRelay
    private let thumbnails: ThumbnailFetcher
    private var sessions = WebSessions()
    private var throttle = LoginThrottle()
    /// The live screen's last picture and when it was fetched.
    private var screen: (jpeg: [UInt8], at: Double)?

    /// The live screen is asked of kioskd at most this often, however many pages show it.
    static let screenGap = 2.0

    init(configuration: Configuration, page: PageFiles, events: EventRelay, thumbnails: ThumbnailFetcher, log: @escaping (String) -> Void,
         now: @escaping () -> Double = MonotonicClock.now) {
        self.configuration = configuration
        self.page = page
        self.kiosk = KioskLink(socket: configuration.controlSocket)
        self.events = events
        self.thumbnails = thumbnails
        self.log = log
        self.now = now
    }

    // MARK: Routing

    public func handle(_ request: HTTPRequest) -> HTTPAnswer {
        let name = String(request.path.dropFirst())
        switch (request.method, request.path) {
        case ("GET", "/login"), ("HEAD", "/login"):
            return .respond(pageFile("login.html"))
        case ("POST", "/login"):
            return login(request)
        case ("GET", _) where PageFiles.beforeLogin.contains(name), ("HEAD", _) where PageFiles.beforeLogin.contains(name):
            return .respond(pageFile(name))
        default:
            break
        }
        guard let token = request.cookie(Self.cookie), let session = sessions.use(token, at: now()) else {
            if request.method == "GET", !request.path.hasPrefix("/api/") { return .respond(.seeOther("/login")) }
            return .respond(Self.json(401, [("ok", .bool(false)), ("error", .string("log in first"))]))
        }
        if request.method != "GET", request.method != "HEAD" {
            guard let sent = request.header("X-CSRF-Token"), RandomToken.same(sent, session.csrf) else {
                log("refused \(request.method) \(request.path) from \(request.clientAddress): no CSRF token, or a wrong one")
                return .respond(Self.json(403, [("ok", .bool(false)), ("error", .string("this request lacks the page's CSRF token: reload the page"))]))
            }
        }
        switch (request.method, request.path) {
        case ("GET", "/"):
            return .respond(pageFile("index.html"))
        case ("GET", "/api/session"):
            return .respond(Self.json(200, [("ok", .bool(true)), ("csrf", .string(session.csrf)), ("uploads", .bool(configuration.pictureFolder != nil)),
                                            ("upload_max", .int(Int(configuration.uploadMax))), ("upload_count", .int(configuration.uploadCount))]))
        case ("GET", "/api/status"):
            return .respond(kioskReply(kiosk.ask(ControlRequest.status.line)))
        case ("GET", "/api/screen"):
            return .respond(screenPicture())
        case ("GET", "/api/events"):
            return .respond(HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream")], body: .stream(events.open())))
        case ("GET", "/api/commands"):
            return .respond(Self.json(200, [("ok", .bool(true)), ("commands", .array(Self.commands))]))
        case ("POST", "/api/command"):
            return .receiveForm(FormFields { [self] fields in command(fields["line"] ?? "") })
        case ("POST", "/api/upload"):
            return upload(request)
        case ("GET", "/api/pictures"):
            return .respond(pictures(from: request.query("from").flatMap { Int($0) } ?? 0))
        case ("GET", "/api/thumbnail"):
            guard let index = request.query("index").flatMap({ Int($0) }), index >= 0, let name = request.query("name") else {
                return .respond(Self.json(400, [("ok", .bool(false)), ("error", .string("a thumbnail is asked by index (0 or more) and name, as /api/pictures gives them"))]))
            }
            return .later(thumbnails.fetch(index: index, name: name, cached: request.query("v") != nil))
        case ("POST", "/api/delete"):
            return .receiveForm(FormFields { [self] fields in delete(index: fields["index"].flatMap { Int($0) }, name: fields["name"] ?? "") })
        case ("GET", "/api/settings"):
            return .respond(settings())
        case ("POST", "/logout"):
            sessions.close(token)
            return .respond(.seeOther("/login", headers: [("Set-Cookie", cookie(value: "", maxAge: 0))]))
        case ("GET", _) where page[name] != nil:
            return .respond(pageFile(name))
        default:
            return .respond(Self.json(404, [("ok", .bool(false)), ("error", .string("no such page: \(request.method) \(request.path)"))]))
        }
    }

    // MARK: Logging in

    private func login(_ request: HTTPRequest) -> HTTPAnswer {
        let address = request.clientAddress
        // Counted before the hash is made: a refused address costs nothing.
        if let wait = throttle.wait(for: address, at: now()) { return .respond(tooManyFailures(address, wait: wait)) }
        return .receiveForm(FormFields { [self] fields in
            if let wait = throttle.wait(for: address, at: now()) { return tooManyFailures(address, wait: wait) }
            guard PasswordHash.matches(Array((fields["password"] ?? "").utf8), hash: configuration.passwordHash) else {
                throttle.failed(from: address, at: now())
                log("a wrong password from \(address)")
                return loginPage(status: 401, problem: "That is not the password. Try again.")
            }
            throttle.succeeded(from: address)
            let token = RandomToken.make()
            sessions.open(token: token, csrf: RandomToken.make(), at: now())
            log("logged in from \(address) (\(sessions.count) session(s))")
            return .seeOther("/", headers: [("Set-Cookie", cookie(value: token, maxAge: Int(WebSessions.idleLifetime)))])
        })
    }

    private func tooManyFailures(_ address: String, wait: Int) -> HTTPResponse {
        log("refused a login from \(address): \(LoginThrottle.allowedFailures) wrong passwords within a minute")
        return loginPage(status: 429, problem: "Too many wrong passwords from this address: try again in \(wait) seconds.")
            .adding("Retry-After", String(wait))
    }

    private func cookie(value: String, maxAge: Int) -> String {
        "\(Self.cookie)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (configuration.secureCookies ? "; Secure" : "")
    }

    /// The login page, with `problem` said where the page leaves room for it.
    private func loginPage(status: Int, problem: String) -> HTTPResponse {
        var response = pageFile("login.html")
        response.status = status
        if case .bytes(let bytes) = response.body {
            let text = String(decoding: bytes, as: UTF8.self)
                .replacingFirst("<!-- problem -->", with: "<p class=\"problem\" role=\"alert\">\(Self.escaped(problem))</p>")
            response.body = .bytes(Array(text.utf8))
        }
        return response
    }

    // MARK: Driving the kiosk

    /// The commands the page may send: every one answered everywhere (not
    /// `watch`, `screenshot` or the tests'), as the table describes them.
    static let commands: [JSONValue] = ControlRequest.table.compactMap { command in
        guard case .everywhere = command.reach else { return nil }
        return .object(JSONObject([
            ("name", .string(command.name)), ("usage", .array(command.usage.map(JSONValue.string))),
            ("arguments", .array(command.arguments.map { .object(JSONObject([("name", .string($0.name)), ("help", .string($0.help))])) })),
            ("summary", .string(command.summary)),
        ]))
    }

    private func command(_ line: String) -> HTTPResponse {
        // One line, one command: a newline inside would be a second command
        // on kioskd's socket, past the check below.
        guard !line.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            return Self.json(400, [("ok", .bool(false)), ("error", .string("a command is one line of text, without control characters"))])
        }
        let request: ControlRequest
        do throws(ControlRequestError) { request = try ControlRequest(parsing: line) } catch {
            return Self.json(400, [("ok", .bool(false)), ("error", .string(error.description))])
        }
        guard case .everywhere = request.command.reach else {
            return Self.json(400, [("ok", .bool(false)), ("error", .string("\(request.name) is not offered on the page"))])
        }
        switch request {
        case .set(let setting, _), .unset(let setting):
            if let descriptor = KioskSettings.table[setting], descriptor.takesSet, !descriptor.pageMayChange {
                return Self.json(403, [("ok", .bool(false)), ("error", .string(
                    "\(setting) names a file, a folder, a server or an account: change it in the config file (or with kioskctl), not from the page"))])
            }
        default:
            break
        }
        return kioskReply(kiosk.ask(request.line))
    }

    /// kioskd's reply line as the answer: 200 when it says ok, 400 when it
    /// refused, 503 when it did not answer.
    private func kioskReply(_ line: [UInt8]) -> HTTPResponse {
        let ok = line.starts(with: Array(#"{"ok":true"#.utf8))
        let answered = ok || line.starts(with: Array(#"{"ok":false"#.utf8)) && !String(decoding: line, as: UTF8.self).contains("kioskd does not answer")
        return HTTPResponse(status: ok ? 200 : answered ? 400 : 503, headers: [("Content-Type", "application/json")], body: .bytes(line + [0x0A]))
    }

    /// The frame on screen as a small JPEG, fetched from kioskd at most once every ``screenGap`` seconds.
    private func screenPicture() -> HTTPResponse {
        let time = now()
        if let screen, time - screen.at < Self.screenGap {
            return HTTPResponse(status: 200, headers: [("Content-Type", "image/jpeg")], body: .bytes(screen.jpeg))
        }
        switch kiosk.screenPicture() {
        case .success(let jpeg):
            screen = (jpeg, time)
            return HTTPResponse(status: 200, headers: [("Content-Type", "image/jpeg")], body: .bytes(jpeg))
        case .failure(let error):
            return Self.json(503, [("ok", .bool(false)), ("error", .string(error.description))])
        }
    }

    // MARK: The pictures in the show

    /// How many pictures one page of the list shows.
    static let picturesPerPage = 60

    /// A page of the playlist (`pictures`), each item marked `deletable`
    /// when it is in the picture folder this page adds to: a server's
    /// pictures (in kioskd's cache) are listed and marked by their `kind`, never deleted.
    private func pictures(from: Int) -> HTTPResponse {
        guard from >= 0, let page = kioskObject(ControlRequest.pictures(from: from, count: Self.picturesPerPage).line) else {
            return Self.json(from < 0 ? 400 : 503, [("ok", .bool(false)), ("error", .string(from < 0 ? "from is 0 or more" : "kioskd does not answer"))])
        }
        guard page["ok"]?.bool == true else { return HTTPResponse(status: 400, headers: [("Content-Type", "application/json")], body: .bytes(page.line)) }
        let ownLibrary = ownLibraryIndex()
        let items: [JSONValue] = (page["pictures"]?.array ?? []).map { value in
            guard var item = value.object else { return value }
            let own = ownLibrary != nil && item["library"]?.int == ownLibrary
            item.append("deletable", .bool(own))
            item.append("version", own ? version(of: item["name"]?.string ?? "").map(JSONValue.string) ?? .null : .null)
            return .object(item)
        }
        return Self.json(200, [("ok", .bool(true)), ("count", page["count"] ?? .int(0)), ("from", .int(from)), ("pictures", .array(items))])
    }

    /// A picture folder's file's version, for its thumbnail's address
    /// (`1732860000.123456789-5242880`: when it was last written, and its
    /// size): a file deleted and uploaded again under its name is another
    /// address, so the browser never shows the old thumbnail for it. Nil
    /// for a name that cannot be in the folder, or a file not there.
    private func version(of name: String) -> String? {
        guard let folder = configuration.pictureFolder, case .success = FolderPicturePath.parts(of: name) else { return nil }
        var info = stat()
        guard stat(folder + "/" + name, &info) == 0 else { return nil }
        return "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)-\(info.st_size)"
    }

    /// Where this page's picture folder is in `status`'s `libraries`; nil
    /// when uploads are off or kioskd shows another folder.
    private func ownLibraryIndex() -> Int? {
        guard let folder = configuration.pictureFolder, let libraries = kioskObject(ControlRequest.status.line)?["libraries"]?.array else { return nil }
        func trimmed(_ path: String) -> Substring { var path = Substring(path); while path.count > 1, path.last == "/" { path = path.dropLast() }; return path }
        return libraries.firstIndex { $0.object?["kind"]?.string == "folder" && $0.object?["source"]?.string.map(trimmed) == trimmed(folder) }
    }

    /// Deletes playlist item `index`, named `name` in the picture folder
    /// (and a Live Photo's movie with it): only when kioskd still shows
    /// that item from this page's folder, so a stale list or a forged form
    /// never deletes another file, nor a server's picture.
    private func delete(index: Int?, name: String) -> HTTPResponse {
        guard let folder = configuration.pictureFolder else {
            return Self.json(409, [("ok", .bool(false)), ("error", .string("this kiosk shows no picture folder (images): there is nothing to delete"))])
        }
        guard let index, index >= 0 else { return Self.json(400, [("ok", .bool(false)), ("error", .string("which picture? index is a playlist item, 0 or more"))]) }
        guard let page = kioskObject(ControlRequest.pictures(from: index, count: 1).line), page["ok"]?.bool == true else {
            return Self.json(503, [("ok", .bool(false)), ("error", .string("kioskd does not answer"))])
        }
        // The same bytes, not only the same characters (two spellings of é are two files).
        guard let item = page["pictures"]?.array?.first?.object, let listed = item["name"]?.string, Array(listed.utf8) == Array(name.utf8) else {
            return Self.json(409, [("ok", .bool(false)), ("error", .string("the show changed: picture \(index) is no longer \(name); reload the list"))])
        }
        guard item["kind"]?.string == "folder", let own = ownLibraryIndex(), item["library"]?.int == own else {
            return Self.json(403, [("ok", .bool(false)), ("error", .string("\(name) comes from \(item["kind"]?.string ?? "no library") (kioskd's cache of it): the page deletes only the picture folder's pictures"))])
        }
        if case .failure(let failure) = PictureRemover.remove(listed, from: folder) {
            log("refused to delete \(listed): \(failure)")
            return Self.json(failure.status, [("ok", .bool(false)), ("error", .string(failure.description))])
        }
        var deleted = [listed]
        if let movie = item["movie"]?.string, case .success = PictureRemover.remove(movie, from: folder) { deleted.append(movie) }
        log("deleted \(deleted.joined(separator: " and ")) from the picture folder")
        return Self.json(200, [("ok", .bool(true)), ("deleted", .array(deleted.map(JSONValue.string)))])
    }

    // MARK: Settings

    /// Every setting with its value in force (kioskd's `settings`), and
    /// what the page needs to edit it from the settings table: its help,
    /// the value it takes, its default, and what applies a change.
    private func settings() -> HTTPResponse {
        guard let reply = kioskObject(ControlRequest.settings.line), reply["ok"]?.bool == true, let listed = reply["settings"]?.array else {
            return Self.json(503, [("ok", .bool(false)), ("error", .string("kioskd does not answer"))])
        }
        let settings: [JSONValue] = listed.compactMap { value in
            guard var setting = value.object, let name = setting["name"]?.string, let descriptor = KioskSettings.table[name] else { return nil }
            // What the page may change: set takes it, and it names no file, server or account.
            setting = JSONObject(setting.fields.map { $0.key == "settable" ? ($0.key, .bool(descriptor.pageMayChange)) : $0 })
            setting.append("help", .string(descriptor.help))
            setting.append("takes", .string(descriptor.flagIsSwitch ? "true or false" : descriptor.valueName))
            setting.append("default", .string(descriptor.shownDefault))
            setting.append("applies", .string(Self.applies(descriptor.reload)))
            return .object(setting)
        }
        return Self.json(200, [("ok", .bool(true)), ("settings", .array(settings))])
    }

    /// What a change to a setting waits for, as the page says it.
    static func applies(_ policy: ReloadPolicy) -> String {
        switch policy {
        case .live: "applies at once"
        case .newFolder: "applies with a new look at the pictures"
        case .newDisplay: "opens the display again"
        case .reconnect: "connects to MQTT again"
        case .restart: "needs a restart of kioskd"
        case .webRestart: "needs a restart of this page (kioskd-web)"
        }
    }

    // MARK: kioskd's replies

    /// kioskd's reply to `line` as an object; nil when it did not answer.
    private func kioskObject(_ line: String) -> JSONObject? {
        let reply = kiosk.ask(line)
        guard let object = Self.object(reply), !(object["ok"]?.bool == false && object["error"]?.string?.hasPrefix("kioskd does not answer") == true) else { return nil }
        return object
    }

    static func object(_ line: [UInt8]) -> JSONObject? { (try? JSONDocument.parse(line))?.object }

    // MARK: Uploads

    private func upload(_ request: HTTPRequest) -> HTTPAnswer {
        guard let folder = configuration.pictureFolder else {
            return .respond(Self.json(409, [("ok", .bool(false)), ("error", .string("this kiosk shows no picture folder (images): there is nowhere to add pictures"))]))
        }
        // Refused before a byte is sent, when the browser says how much comes.
        let (most, overflow) = configuration.uploadMax.multipliedReportingOverflow(by: Int64(configuration.uploadCount))
        if let length = request.contentLength, !overflow, length > UInt64(most) + (1 << 20) {
            return .respond(Self.json(413, [("ok", .bool(false)), ("error", .string(
                "the upload is larger than \(ByteSizeText.written(configuration.uploadMax)) a file (web.upload_max) for \(configuration.uploadCount) files (web.upload_count)"))]))
        }
        return .receiveForm(UploadReceiver(folder: folder, limits: .init(bytesPerFile: configuration.uploadMax, files: configuration.uploadCount), log: log))
    }

    // MARK: Answers

    private func pageFile(_ name: String) -> HTTPResponse {
        guard let file = page[name] else { return .text(404, "no such file: \(name)") }
        return HTTPResponse(status: 200, headers: [("Content-Type", file.contentType)], body: .bytes(file.bytes))
    }

    static func json(_ status: Int, _ fields: [(key: String, value: JSONValue)]) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: .bytes(JSONObject(fields).line))
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}

extension String {
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        let bytes = Array(utf8), needle = Array(target.utf8)
        guard !needle.isEmpty, bytes.count >= needle.count,
              let start = (0...(bytes.count - needle.count)).first(where: { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }) else { return self }
        return String(decoding: bytes[..<start] + Array(replacement.utf8) + bytes[(start + needle.count)...], as: UTF8.self)
    }
}
