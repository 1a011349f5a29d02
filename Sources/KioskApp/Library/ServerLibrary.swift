import HTTPClient
import KioskCore
import LinuxPlatform
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A library on a server, shown from a mirror of it on this machine's disk
/// (docs/remote-libraries.md). Its own thread polls the server every
/// `poll` (``ServerListing``), plans what changed (``MirrorPlan``), fetches
/// it into the mirror in the show's order, each file whole (``MirrorFolder``),
/// and deletes what left. A ``FolderWatcher`` on the mirror gives the show
/// its news, so the show sees a file arrive as it sees one copied into the
/// picture folder, and a file deleted on the server leave, animated, as a
/// deleted one does.
///
/// Offline (the server does not answer) the mirror stays and the show
/// cycles it; the server is asked again within a minute (a doubling
/// backoff, never longer than `poll`), and caught up when it answers.
/// Refused (wrong credentials, a certificate not trusted): one line in the
/// log, then a backoff from `poll` doubling to an hour, so a kiosk with a
/// wrong password never floods a server. Its state and counts go to
/// `status` through ``reportFD``.
///
/// HTTP runs here, on this thread, rather than on the run loop as the issue
/// first suggested: every transfer, listing parse and `fsync` is then off
/// the loop by construction, and a slow server can hold up nothing but its
/// own library.
public final class ServerLibrary: PictureLibrary, @unchecked Sendable {
    let kind: LibraryKind
    let source: String
    let scope: String

    private let server: any ServerListing
    private let mirror: MirrorFolder
    /// The mirror's watch, whose news is the library's.
    let watcher: FolderWatcher
    private let client: HTTPClient?
    private let cache: LibraryCacheSettings
    private let poll: Double
    private let mailbox: WorkerMailbox<Shared>
    /// Whose the facts this library publishes are (``PictureFactsRegistry``).
    private let factsOwner = FactsOwner()
    private final class FactsOwner {}

    private struct Shared {
        var report: LibraryReport?
        var stopping = false
        var pollAsked = false
    }

    /// Opens the mirror at `mirrorRoot` (showing what it holds at once) and
    /// starts the thread, which asks the server straight away.
    public init(server: any ServerListing, mirrorRoot: String, cache: LibraryCacheSettings, poll: Double, folder: FolderSettings) throws(SystemCallError) {
        kind = server.kind
        source = server.address.description
        self.server = server
        self.cache = cache
        self.poll = poll
        mirror = try MirrorFolder(root: mirrorRoot, source: server.address.description)
        // Before the watch lists the mirror: its Live Photos pair by them.
        if !mirror.facts.isEmpty { PictureFactsRegistry.publish(mirror.facts, under: mirror.root, by: factsOwner) }
        var mirrorSettings = folder
        mirrorSettings.recursive = true  // The server's own layout: its folders are the mirror's.
        watcher = try FolderWatcher(root: mirror.root, settings: mirrorSettings)
        scope = LibraryStatus.scope(ofFolder: mirror.root)
        var missing: String?
        do { client = try HTTPClient() } catch {
            client = nil
            missing = error.description
        }
        let cached = mirror.index.files.count
        mailbox = try WorkerMailbox(Shared(report: LibraryReport(state: missing == nil ? .offline : .refused, reason: missing, listed: cached, cached: cached)))
        if client != nil { try mailbox.start { [self] in work() } }
    }

    /// The `[webdav]` library the settings name, made; nil when they name none.
    static func webDAV(for settings: KioskSettings) throws(SystemCallError) -> ServerLibrary? {
        guard let address = settings.webdav.url, let state = settings.stateDirectory else { return nil }
        let files = PictureFiles(order: settings.folder.order, clips: settings.folder.clips)
        let server: any ServerListing
        // An address that cannot be read as a path: the library shows its cache, and says why it asks nothing.
        do throws(ServerFailure) { server = try WebDAVFolder(settings: settings.webdav, address: address, shows: { files.shows($0) }) } catch {
            server = UnusableServer(kind: .webdav, address: address, failure: error)
        }
        return try ServerLibrary(
            server: server, mirrorRoot: state + "/libraries/webdav", cache: settings.libraryCache, poll: settings.webdav.poll,
            folder: settings.folder)
    }

    /// The `[immich]` library the settings name, made; nil when they name
    /// none. `panel`: the screen's, which chooses previews or originals.
    static func immich(for settings: KioskSettings, panel: PixelSize?) throws(SystemCallError) -> ServerLibrary? {
        guard let address = settings.immich.url, let state = settings.stateDirectory else { return nil }
        let server = ImmichServer(settings: settings.immich, address: address, size: ImmichPictureSize.choose(forPanel: panel), clips: settings.folder.clips)
        return try ServerLibrary(
            server: server, mirrorRoot: state + "/libraries/immich", cache: settings.libraryCache, poll: settings.immich.poll,
            folder: settings.folder)
    }

    var firstListing: [PlaylistEntry]? { watcher.firstListing }
    var firstNotes: [String] { mirror.notes + watcher.firstNotes }
    var readyFD: Int32 { watcher.readyFD }
    func take() -> [FolderNews] { watcher.take() }
    var reportFD: Int32? { mailbox.readyFD }

    public func takeReport() -> LibraryReport? {
        mailbox.take { shared in
            defer { shared.report = nil }
            return shared.report
        }
    }

    public func stop() {
        PictureFactsRegistry.withdraw(under: mirror.root, by: factsOwner)
        watcher.stop()
        mailbox.tell { $0.stopping = true }
        client?.cancel()
    }

    /// Asks the server now rather than at the next poll (tests).
    func pollNow() { mailbox.tell { $0.pollAsked = true } }

    /// Waits up to `milliseconds` for a report (tests; never the run loop).
    public func waitForReport(milliseconds: Int32) -> Bool { mailbox.waitForResults(milliseconds: milliseconds) }

    /// Waits up to `milliseconds` for the mirror's news (tests; never the run loop).
    func waitForNews(milliseconds: Int32) -> Bool { watcher.waitForNews(milliseconds: milliseconds) }

    // MARK: The thread

    private var stopping: Bool { mailbox.withShared { $0.stopping } }

    private func work() {
        guard let client else { return }
        var offline = ReconnectBackoff(first: 2, cap: 60)
        var refused = ReconnectBackoff(first: poll, cap: max(poll, 3600))
        var random = SystemRandomNumberGenerator()
        var listed = mirror.index.files.count
        /// The last round planned, fetched and deleted all it had to: an unchanged server then needs nothing.
        var caughtUp = false
        while !stopping {
            let wait: Double
            switch round(client, listed: &listed, caughtUp: &caughtUp) {
            case nil:
                offline.connected()
                refused.connected()
                wait = poll
            case .offline(let why)?:
                report(.offline, reason: why, listed: listed)
                refused.connected()
                wait = min(poll, offline.nextDelay(using: &random))
            case .refused(let why)?:
                report(.refused, reason: why, listed: listed)
                offline.connected()
                wait = max(poll, refused.nextDelay(using: &random))
            case .stopped?:
                return
            }
            sleep(seconds: wait)
        }
    }

    /// Sleeps `seconds`, or until the library stops or a poll is asked for.
    private func sleep(seconds: Double) {
        let until = MonotonicClock.now() + seconds
        while true {
            let asked = mailbox.withShared { shared in
                defer { shared.pollAsked = false }
                return shared.stopping || shared.pollAsked
            }
            let left = until - MonotonicClock.now()
            if asked || left <= 0 { return }
            _ = mailbox.sleep(milliseconds: Int32(min(left, 3600) * 1000) + 1)
        }
    }

    /// One poll: list, plan, delete, fetch. Nil when the server answered
    /// throughout; else why it stopped (the mirror keeps what it has).
    private func round(_ client: HTTPClient, listed: inout Int, caughtUp: inout Bool) -> ServerFailure? {
        let listing: ServerFiles
        do { listing = try server.list(using: client, unlessUnchanged: caughtUp) } catch { return error }
        caughtUp = false
        if listing.unchanged {
            listed = listing.count
            caughtUp = true
            report(.online, listed: listed)
            return nil
        }
        if let facts = listing.facts {
            mirror.setFacts(facts)
            PictureFactsRegistry.publish(facts, under: mirror.root, by: factsOwner)
        }
        let plan = MirrorPlan(listed: listing.files, cached: mirror.index.files, maxBytes: cache.maxBytes, maxItems: cache.maxItems)
        listed = listing.files.count
        var notes = listing.notes
        for file in plan.tooLarge.prefix(5) {
            notes.append("\(source): not fetching \(file.path) (\(file.version.size) bytes): larger than \(min(MirrorPlan.largestFile, cache.maxBytes)) bytes")
        }
        if plan.beyondBounds > 0 {
            notes.append("\(source): \(plan.beyondBounds) picture(s) beyond the cache's bounds (cache_max, cache_items) are not shown")
        }
        for path in plan.delete { mirror.remove(path) }
        saveIndex(&notes)
        report(.online, listed: listed, notes: notes)
        notes = []
        var lastReport = MonotonicClock.now()
        // Whether every file planned arrived (a file that failed is tried again at the next poll, changed or not).
        var complete = true
        defer {
            saveIndex(&notes)
            report(nil, listed: listed, notes: notes)
        }
        defer { caughtUp = complete }
        for file in plan.fetch {
            if stopping {
                complete = false
                return .stopped
            }
            do {
                let request = try server.request(for: file)
                try mirror.store(file) { (descriptor) throws(FetchFailure) in
                    let response: HTTPResponse
                    do throws(HTTPError) { response = try client.perform(request, into: FileSink(descriptor)) } catch { throw .transfer(error) }
                    guard response.status == 200 else { throw .status(response.status) }
                }
            } catch let failure as ServerFailure {
                complete = false
                return failure
            } catch let failure as AtomicFile.Failure<FetchFailure> {
                switch failure {
                case .filling(.transfer(.tooLarge)):
                    complete = false
                    notes.append("\(source): \(file.path) is larger than the \(file.version.size) bytes it was listed at: not fetched")
                case .filling(.transfer(let error)):
                    complete = false
                    return ServerFailure(error)
                case .filling(.status(404)):
                    complete = false  // Deleted since it was listed: the next poll says so.
                case .filling(.status(let status)):
                    let failure = type(of: server).failure(status: status, of: file.path.relative)
                    complete = false
                    if case .refused = failure, status == 401 || status == 403 { return failure }
                    notes.append("\(source): \(file.path) not fetched: \(failure)")
                case .system(let error):
                    // A full disk, a cache folder that cannot be written: nothing more this round.
                    notes.append("\(source): cannot write the cache: \(error)")
                    complete = false
                    return nil
                }
            } catch {
                fatalError("unreachable: \(error)")
            }
            if MonotonicClock.now() - lastReport >= 2 {
                lastReport = MonotonicClock.now()
                saveIndex(&notes)
                report(nil, listed: listed, notes: notes)
                notes = []
            }
        }
        return nil
    }

    private func saveIndex(_ notes: inout [String]) {
        do { try mirror.saveIndex() } catch { notes.append("\(source): cannot write the cache's index: \(error)") }
    }

    /// Posts the state (nil: unchanged), the counts, and lines for the log.
    private func report(_ state: LibraryState?, reason: String? = nil, listed: Int, notes: [String] = []) {
        let cached = mirror.index.files.count
        mailbox.post { shared in
            let earlier = shared.report
            shared.report = LibraryReport(
                state: state ?? earlier?.state ?? .online, reason: state == nil ? earlier?.reason : reason, listed: listed, cached: cached,
                notes: (earlier?.notes ?? []) + notes)
            return true
        }
    }
}

/// Why a file was not fetched: the transfer failed, or the server answered with other than success.
private enum FetchFailure: Error {
    case transfer(HTTPError)
    case status(Int)
}

/// A download written into the mirror's temporary as it arrives.
private final class FileSink: HTTPBodySink {
    let descriptor: Int32

    init(_ descriptor: Int32) { self.descriptor = descriptor }

    func write(_ bytes: UnsafeRawBufferPointer) -> String? {
        do { try writeAll(bytes, to: descriptor) } catch { return "cannot write the cache: \(error)" }
        return nil
    }
}

/// A server whose address cannot be used: asking it gives the reason, as a refusal.
private struct UnusableServer: ServerListing {
    let kind: LibraryKind
    let address: ServerAddress
    let failure: ServerFailure
    func list(using client: HTTPClient, unlessUnchanged: Bool) throws(ServerFailure) -> ServerFiles { throw failure }
    func request(for file: RemoteFile) throws(ServerFailure) -> HTTPRequest { throw failure }
    static func failure(status: Int, of what: String) -> ServerFailure { .refused("the server answers HTTP \(status) for \(what)") }
}
