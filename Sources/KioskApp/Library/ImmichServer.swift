import HTTPClient
import ImageCodecs
import JSONDocument
import KioskCore
#if canImport(Glibc)
import Glibc
#endif

/// An Immich server (immich.app), listed through its API with an API key
/// (`x-api-key`): the photos of the albums, people, favourites, memories
/// and random draw the settings choose (``ImmichSettings``), each fetched
/// as its preview, or its original for a large screen
/// (``ImmichPictureSize``); with `video` on, clips through Immich's
/// playback endpoint, and each Live Photo's movie beside its still, paired
/// by the facts the library publishes (``PictureFacts/liveIdentifier``). The answers' JSON is read by Jansson
/// (``JSONDocument``) and judged by ``ImmichAnswers``, on the library's
/// thread.
///
/// Album and people names are looked up again at every poll: an album
/// renamed in Immich is followed at the next poll, and a name that matches
/// nothing is named in the log.
///
/// Tested against a stand-in server that answers as Immich's OpenAPI
/// specification says and checks each request against it
/// (Tests/Fixtures/immich); a real Immich was never run here.
public struct ImmichServer: ServerListing {
    public var kind: LibraryKind { .immich }
    public let address: ServerAddress
    let settings: ImmichSettings
    let size: ImmichPictureSize
    /// Whether clips are shown (`video`): clips, and Live Photos' motion, are then fetched too.
    let clips: Bool
    /// Today's date where the kiosk stands (`2026-11-28`), for the memories.
    let today: @Sendable () -> String

    public init(
        settings: ImmichSettings, address: ServerAddress, size: ImmichPictureSize, clips: Bool = true,
        today: @escaping @Sendable () -> String = ImmichServer.localDate
    ) {
        self.address = address
        self.settings = settings
        self.size = size
        self.clips = clips
        self.today = today
    }

    /// The key read for the last listing, which the fetches after it use;
    /// the API path that fetches each file; and the last listing's answers' hash and count.
    /// Used by the library's thread only.
    private final class Memo: @unchecked Sendable {
        var key = ""
        var fetches: [String: String] = [:]
        var answersHash: Int?
        var count = 0
    }
    private let memo = Memo()

    public func list(using client: HTTPClient, unlessUnchanged: Bool) throws(ServerFailure) -> ServerFiles {
        memo.key = try apiKey()
        var answers = Hasher()
        /// Each asset, with the album it was found through.
        var assets: [(asset: ImmichAsset, album: String?)] = []
        var notes: [String] = []
        func note(_ line: String) { notes += addressed([line]) }

        if !settings.albums.isEmpty {
            let albums = try read("albums", answers: &answers, client: client) { (json) throws(ImmichAnswerError) in try ImmichAnswers.albums(json) }
            let (ids, unknown) = ImmichRequests.resolve(settings.albums, among: albums)
            for name in unknown { note("no album named \(name.debugDescription)") }
            for id in ids {
                let name = albums.first { $0.id == id }?.name
                assets += try search(client, answers: &answers, notes: &notes, albumID: id).map { ($0, name) }
            }
        }
        if !settings.people.isEmpty {
            var people: [(id: String, name: String)] = []
            for page in 1...ImmichRequests.mostPages {
                let found = try read("people?page=\(page)&size=\(ImmichRequests.pageSize)", answers: &answers, client: client) {
                    (json) throws(ImmichAnswerError) in try ImmichAnswers.people(json)
                }
                people += found.people
                if !found.hasNextPage { break }
            }
            let (ids, unknown) = ImmichRequests.resolve(settings.people, among: people)
            for name in unknown { note("no person named \(name.debugDescription)") }
            for id in ids { assets += try search(client, answers: &answers, notes: &notes, personID: id).map { ($0, nil) } }
        }
        if settings.favourites { assets += try search(client, answers: &answers, notes: &notes, favourites: true).map { ($0, nil) } }
        if settings.memories {
            let found = try read("memories?for=\(today())", answers: &answers, client: client) { (json) throws(ImmichAnswerError) in try ImmichAnswers.memories(json) }
            assets += found.assets.map { ($0, nil) }
            notes += addressed(found.notes)
        }
        if settings.random > 0 {
            let found = try read("search/random", body: ImmichRequests.random(count: settings.random, clips: clips), answers: &answers, client: client) {
                (json) throws(ImmichAnswerError) in try ImmichAnswers.assetList(json)
            }
            assets += found.assets.map { ($0, nil) }
            notes += addressed(found.notes)
        }

        let hash = answers.finalize()
        if unlessUnchanged, hash == memo.answersHash { return ServerFiles(unchanged: true, count: memo.count) }
        var listed = ServerFiles(notes: notes)
        var fetches: [String: String] = [:]
        var facts: [String: PictureFacts] = [:]
        for (asset, album) in assets where !asset.isTrashed {
            for kept in asset.mirrored(size: size, clips: clips) {
                guard let file = asset.remoteFile(kept), let path = asset.fetchPath(kept) else {
                    note("passing over \(asset.originalFileName.debugDescription): no name the cache can hold")
                    continue
                }
                guard fetches.updateValue(path, forKey: file.path.relative) == nil else { continue }  // In two albums: once.
                listed.files.append(file)
                facts[file.path.relative] = PictureFacts(
                    title: asset.description.flatMap { $0.isEmpty ? nil : $0 }, taken: asset.localDateTime, people: asset.people, album: album,
                    liveIdentifier: kept == .clip ? nil : asset.livePhotoVideoId)
            }
        }
        listed.facts = facts
        listed.count = listed.files.count
        memo.fetches = fetches
        memo.answersHash = hash
        memo.count = listed.count
        return listed
    }

    /// Lines for the log, each saying which server it is about.
    private func addressed(_ lines: [String]) -> [String] { lines.map { "\(address): \($0)" } }

    /// Every page of one search's photos.
    private func search(
        _ client: HTTPClient, answers: inout Hasher, notes: inout [String], albumID: String? = nil, personID: String? = nil, favourites: Bool = false
    ) throws(ServerFailure) -> [ImmichAsset] {
        var assets: [ImmichAsset] = []
        var page = 1
        for _ in 0..<ImmichRequests.mostPages {
            let body = ImmichRequests.search(albumID: albumID, personID: personID, favourites: favourites, clips: clips, page: page)
            let found = try read("search/metadata", body: body, answers: &answers, client: client) {
                (json) throws(ImmichAnswerError) in try ImmichAnswers.searchPage(json)
            }
            assets += found.assets
            notes += addressed(found.notes)
            guard let next = found.nextPage, next > page else { break }
            page = next
        }
        return assets
    }

    /// One answer of the API (`GET`, or `POST` with a JSON body), parsed and read.
    private func read<Answer>(
        _ path: String, body: [UInt8]? = nil, answers: inout Hasher, client: HTTPClient,
        _ reading: (JSONValue) throws(ImmichAnswerError) -> Answer
    ) throws(ServerFailure) -> Answer {
        var request = self.request(path: "api/" + path, maximumBytes: Self.largestAnswer)
        request.headers.append("Accept: application/json")
        if let body {
            request.method = "POST"
            request.body = body
            request.headers.append("Content-Type: application/json")
        }
        let response: HTTPResponse
        do { response = try client.perform(request) } catch { throw ServerFailure(error) }
        let what = "\(request.method) /api/\(path.prefix { $0 != "?" })"
        guard response.status == 200 else { throw Self.failure(status: response.status, of: what) }
        answers.combine(response.body.count)
        response.body.withUnsafeBytes { answers.combine(bytes: $0) }
        do {
            return try reading(try JSONDocument.parse(response.body, keeping: ImmichAnswers.fieldsRead))
        } catch let error as JSONDocumentError {
            if case .missingLibrary(let why) = error { throw .refused(why) }
            throw .refused("its answer to \(what) is refused: \(error)")
        } catch let error as ImmichAnswerError {
            throw .refused("its answer to \(what) is not as Immich's API says: \(error)")
        } catch {
            fatalError("unreachable: \(error)")
        }
    }

    /// A listing's answer is bounded: a page of 1,000 assets with their EXIF is some 3 MB.
    static let largestAnswer = 64 << 20

    public func request(for file: RemoteFile) throws(ServerFailure) -> HTTPRequest {
        guard let path = memo.fetches[file.path.relative] else { throw .refused("\(file.path) is no asset of the last listing") }
        let bound = path.hasSuffix("/original") && file.version.size > 0 ? min(file.version.size, MirrorPlan.largestFile) : MirrorPlan.largestFile
        return request(path: path, maximumBytes: Int(bound))
    }

    private func request(path: String, maximumBytes: Int) -> HTTPRequest {
        var request = HTTPRequest(url: address.origin + address.path + path)
        request.headers = ["x-api-key: " + memo.key]
        request.maximumBytes = maximumBytes
        request.caFile = settings.caFile
        return request
    }

    /// The API key file's first line, read again each poll; a key that
    /// could not be an HTTP header's value is refused, never sent.
    private func apiKey() throws(ServerFailure) -> String {
        guard let file = settings.apiKeyFile else { throw .refused("no immich.api_key_file is given") }
        let key: String
        do { key = try CredentialFile.firstLine(of: file) } catch { throw .refused(error.description) }
        guard !key.isEmpty, key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .refused("the API key in \(file) is empty or holds a space or a character outside ASCII")
        }
        return key
    }

    /// What an HTTP status other than success means for the library.
    public static func failure(status: Int, of what: String) -> ServerFailure {
        switch status {
        case 401: .refused("the server refuses the kiosk's API key (HTTP 401) for \(what)")
        case 403: .refused("the API key lacks the permission for \(what) (HTTP 403)")
        case 404: .refused("\(what) is not on the server (HTTP 404): is immich.url Immich's own address?")
        case 500...: .offline("the server answers HTTP \(status) for \(what)")
        default: .refused("the server answers HTTP \(status) for \(what)")
        }
    }

    /// Today's date in the kiosk's time zone, as Immich's `for` takes it.
    public static func localDate() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
    }
}
