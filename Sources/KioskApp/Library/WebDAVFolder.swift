import DAVListing
import HTTPClient
import ImageCodecs
import KioskCore

/// What a server library asks its server: the files it lists now, and the
/// request that fetches each one. A WebDAV folder is the first kind; Immich
/// is to be the second.
public protocol ServerListing: Sendable {
    var kind: LibraryKind { get }
    /// The server's address, without credentials: for the log, `status`, and the cache's index.
    var address: ServerAddress { get }
    /// Lists the server's pictures (those the show would play). Runs on
    /// the library's thread; `client` is its own. `unlessUnchanged`: when the
    /// server's answers are what they were at the last listing, say only
    /// that (``ServerFiles/unchanged``), with their count.
    func list(using client: HTTPClient, unlessUnchanged: Bool) throws(ServerFailure) -> ServerFiles
    /// The request that fetches `file`, bounded to the size it was listed at.
    func request(for file: RemoteFile) throws(ServerFailure) -> HTTPRequest
    /// What an HTTP status other than success, to a listing or a fetch of
    /// `what`, means for the library, in the server's own terms (a WebDAV
    /// password, an Immich API key).
    static func failure(status: Int, of what: String) -> ServerFailure
}

/// What a server listed: its files, and lines for the log about entries
/// passed over; or that nothing changed since the last listing, and how
/// many files it holds.
public struct ServerFiles {
    public var files: [RemoteFile] = []
    public var notes: [String] = []
    /// The server answered as it did at the last listing: `files` is empty, `count` says how many.
    public var unchanged = false
    public var count = 0
    /// What the server says of its pictures beyond their files (Immich's
    /// captions), by relative path; nil when it says nothing (WebDAV).
    public var facts: [String: PictureFacts]? = nil
}

/// Why a server could not be read, sorted as `status` reports it.
public enum ServerFailure: Error, Equatable {
    /// It does not answer, or broke off (`offline`): the cache goes on showing, and it is asked again soon.
    case offline(String)
    /// It answers, but says no (wrong credentials, a certificate not
    /// trusted, not a WebDAV folder, a hostile answer): asked again after a longer backoff.
    case refused(String)
    /// The library is stopping.
    case stopped

    /// A transfer's failure, sorted.
    init(_ error: HTTPError) {
        switch error {
        case .cancelled: self = .stopped
        case .certificate, .refused, .missingLibrary: self = .refused(error.description)
        case .unreachable, .tooSlow, .tooLarge, .sink, .failed: self = .offline(error.description)
        }
    }
}

/// A WebDAV folder (Nextcloud, ownCloud, a NAS, Apache's mod_dav), listed
/// by walking it: `PROPFIND` with `Depth: 1` on the folder, then on each
/// folder it holds (RFC 4918; `Depth: infinity` is refused by most
/// servers). Files are then compared by ETag and size (``MirrorPlan``):
/// folders' ETags are never trusted.
///
/// Every `href` is decoded once by libcurl and judged by ``RemotePath``
/// before it means anything; a folder is walked only when it lies under
/// the one it was listed in, once, at most ``mostFolders`` of them. A
/// listing answer is bounded to ``largestListing`` bytes (some 400,000
/// entries).
///
/// A poll that changes nothing costs little: each folder's answer is
/// hashed, and when every folder answers as it did at the last listing
/// (byte for byte, as Apache and Nextcloud do for a folder that did not
/// change), nothing is parsed (``ServerFiles/unchanged``). Expat alone
/// takes some 40 ms for 10,000 entries here; a poll of them takes under
/// `remote_poll_cpu_ms`. At the first folder that answers otherwise, the
/// folder is listed whole.
public struct WebDAVFolder: ServerListing {
    public var kind: LibraryKind { .webdav }
    public let address: ServerAddress
    /// The folder's path, decoded.
    let basePath: String
    let username: String?
    let passwordFile: String?
    let caFile: String?
    /// Whether the show plays a file of this name (``PictureFiles/shows(_:)``).
    let shows: @Sendable (String) -> Bool

    static let mostFolders = 10_000
    static let largestListing = 128 << 20

    /// What a `PROPFIND` asks for: only what tells a folder, a change, and a size.
    static let propfindBody = Array("""
        <?xml version="1.0" encoding="utf-8"?>
        <propfind xmlns="DAV:"><prop><resourcetype/><getetag/><getcontentlength/></prop></propfind>
        """.utf8)

    public init(settings: WebDAVSettings, address: ServerAddress, shows: @escaping @Sendable (String) -> Bool) throws(ServerFailure) {
        guard let decoded = HTTPClient.decodedPath(of: address.path) else {
            throw .refused("the address \(address) is not a valid URL path (or libcurl is not installed)")
        }
        self.address = address
        basePath = decoded.hasSuffix("/") ? decoded : decoded + "/"
        username = settings.username
        passwordFile = settings.passwordFile
        caFile = settings.caFile
        self.shows = shows
    }

    /// What each folder answered at the last whole listing: its answer's
    /// length and hash, the folders in it, and how many files it listed;
    /// and the credentials read for the last listing, which the fetches
    /// after it use. Used by the library's thread only.
    private final class Memo: @unchecked Sendable {
        struct Folder {
            var length: Int
            var hash: Int
            var folders: [String]
            var files: Int
        }
        var folders: [String: Folder] = [:]
        var credentials: (username: String, password: String)?
    }
    private let memo = Memo()

    public func list(using client: HTTPClient, unlessUnchanged: Bool) throws(ServerFailure) -> ServerFiles {
        let credentials = try self.credentials()
        memo.credentials = credentials
        if unlessUnchanged, !memo.folders.isEmpty, let count = try unchangedCount(credentials: credentials, client: client) {
            return ServerFiles(unchanged: true, count: count)
        }
        var listed = ServerFiles()
        var answered: [String: Memo.Folder] = [:]
        var queue = [basePath]
        var seen: Set<String> = [basePath]
        var passedOver = 0
        func passOver(_ path: String, _ why: String) {
            passedOver += 1
            if listed.notes.count < 5 { listed.notes.append("\(address): passing over \(path.debugDescription): \(why)") }
        }
        while let folder = queue.popLast() {
            guard let body = try propfind(folder, credentials: credentials, client: client) else { continue }
            let entries: [DAVEntry]
            do { entries = try DAVListing.parse(body) } catch { throw .refused("its listing of \(folder) is refused: \(error)") }
            var memo = Memo.Folder(length: body.count, hash: Self.hash(body), folders: [], files: listed.files.count)
            defer {
                memo.files = listed.files.count - memo.files
                answered[folder] = memo
            }
            for entry in entries {
                guard let path = HTTPClient.decodedPath(of: entry.href) else {
                    passOver(entry.href, "not a path that decodes to UTF-8")
                    continue
                }
                if path == folder || path + "/" == folder { continue }  // The folder itself.
                if entry.isFolder {
                    let inner = path.hasSuffix("/") ? path : path + "/"
                    do { _ = try RemotePath(path: inner, base: basePath) } catch {
                        passOver(path, error.description)
                        continue
                    }
                    guard inner.hasPrefix(folder) else {
                        passOver(path, "a folder outside the one that listed it")
                        continue
                    }
                    guard seen.count < Self.mostFolders else {
                        passOver(path, "more than \(Self.mostFolders) folders")
                        continue
                    }
                    if seen.insert(inner).inserted {
                        queue.append(inner)
                        memo.folders.append(inner)
                    }
                    continue
                }
                do {
                    let remote = try RemotePath(path: path, base: basePath)
                    guard shows(String(remote.name)) else { continue }
                    listed.files.append(RemoteFile(path: remote, version: FileVersion(etag: entry.etag, size: entry.size ?? 0)))
                } catch {
                    passOver(path, error.description)
                }
            }
        }
        if passedOver > listed.notes.count { listed.notes.append("\(address): \(passedOver) entries passed over in all") }
        listed.count = listed.files.count
        memo.folders = answered
        return listed
    }

    /// How many files the server holds, when every folder answers as it did
    /// at the last whole listing; nil at the first that does not.
    private func unchangedCount(credentials: (username: String, password: String)?, client: HTTPClient) throws(ServerFailure) -> Int? {
        var queue = [basePath]
        var count = 0
        while let folder = queue.popLast() {
            guard let known = memo.folders[folder], let body = try propfind(folder, credentials: credentials, client: client),
                  body.count == known.length, Self.hash(body) == known.hash else { return nil }
            count += known.files
            queue += known.folders
        }
        return count
    }

    static func hash(_ body: [UInt8]) -> Int {
        var hasher = Hasher()
        body.withUnsafeBytes { hasher.combine(bytes: $0) }
        return hasher.finalize()
    }

    /// One folder's answer; nil when it is gone (a subfolder deleted while it was walked).
    private func propfind(_ folder: String, credentials: (username: String, password: String)?, client: HTTPClient) throws(ServerFailure) -> [UInt8]? {
        var request = try self.request(path: folder, maximumBytes: Self.largestListing, credentials: credentials)
        request.method = "PROPFIND"
        request.headers = ["Depth: 1", "Content-Type: application/xml; charset=utf-8"]
        request.body = Self.propfindBody
        let response: HTTPResponse
        do { response = try client.perform(request) } catch { throw ServerFailure(error) }
        switch response.status {
        case 207: break
        case 404 where folder != basePath: return nil
        default: throw Self.failure(status: response.status, of: folder == basePath ? "the folder \(address)" : "the folder \(folder)")
        }
        return response.body
    }

    public func request(for file: RemoteFile) throws(ServerFailure) -> HTTPRequest {
        let bound = file.version.size > 0 ? min(file.version.size, MirrorPlan.largestFile) : MirrorPlan.largestFile
        return try request(path: basePath + file.path.relative, maximumBytes: Int(bound), credentials: memo.credentials)
    }

    private func request(path: String, maximumBytes: Int, credentials: (username: String, password: String)?) throws(ServerFailure) -> HTTPRequest {
        guard let escaped = HTTPClient.escapedPath(path) else { throw .refused("libcurl could not escape \(path.debugDescription)") }
        var request = HTTPRequest(url: address.origin + escaped)
        request.maximumBytes = maximumBytes
        request.credentials = credentials
        request.caFile = caFile
        return request
    }

    /// The user name and the password file's first line, read again each
    /// poll (a corrected file needs no reload), once: the poll's fetches use what it read.
    private func credentials() throws(ServerFailure) -> (username: String, password: String)? {
        guard let username else { return nil }
        guard let passwordFile else { return (username, "") }
        do { return (username, try CredentialFile.firstLine(of: passwordFile)) } catch { throw .refused(error.description) }
    }

    /// What an HTTP status other than success means for the library.
    public static func failure(status: Int, of what: String) -> ServerFailure {
        switch status {
        case 401: .refused("the server refuses the kiosk's user name or password (HTTP 401) for \(what)")
        case 403: .refused("the server forbids the kiosk \(what) (HTTP 403)")
        case 404: .refused("\(what) is not on the server (HTTP 404)")
        case 405, 501: .refused("\(what) is not a WebDAV folder (HTTP \(status) to PROPFIND)")
        case 500...: .offline("the server answers HTTP \(status) for \(what)")
        default: .refused("the server answers HTTP \(status) for \(what)")
        }
    }
}
