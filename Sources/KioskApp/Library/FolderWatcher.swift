import CLinux
import ImageCodecs
import KioskCore
import LinuxPlatform
import Synchronization
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// What the folder's thread tells the show, in the order it happened.
enum FolderNews: Equatable, Sendable {
    /// The whole folder, listed again (a rescan, the folder back), sorted:
    /// the playlist becomes this. `notes`: entries not shown, for the log.
    case listing([PlaylistEntry], notes: [String])
    /// Files that arrived, were rewritten, or left.
    case changes(PlaylistChange)
    /// A subfolder (its path ending in `/`) was deleted or moved away: every file under it left.
    case folderLeft(String)
    /// The picture folder itself is gone (unmounted, deleted, moved): the show waits for it.
    case folderGone
    /// A line for the operator's log.
    case note(String)
}

/// Watches the picture folder with inotify, on its own thread, and hands
/// the show what changed (``FolderNews``) through a descriptor the run loop
/// polls, as the ``DecodeWorker`` hands over pictures: every `stat`,
/// listing and EXIF read happens here, so a slow disk or a network share
/// that stops answering never holds up a frame.
///
/// The rules (docs/live-folder-and-reload.md):
/// - A file joins when it is complete: when it is closed after writing, or
///   renamed into place (rsync, `mv`), or created as a link. A file being
///   copied is not shown until its copy is closed. One that is rewritten
///   in place is decoded again.
/// - A file deleted or renamed away leaves.
/// - Subfolders (with `recursive`) are watched as they appear, and listed
///   then, since files may already be in them.
/// - Events are gathered into batches: news goes out once nothing has
///   happened for ``FolderChangeBatch/quietTime``, or ``FolderChangeBatch/longestBatch`` after the first
///   change of a batch, so a thousand files copied in arrive as a handful
///   of batches, each shown with one animation.
/// - A listing after the first (a rescan, an overflow, the watch limit, a
///   mount change, the folder back, a subfolder that appeared) holds back
///   every picture written within ``SettlingFiles/settleTime``: it may be a
///   copy still open. It joins when its copy closes, or once it has been
///   quiet for that long (``SettlingFiles``). The first listing, at start,
///   takes what it finds: nothing was shown before it, and a copy under way
///   then is decoded again when it closes.
/// - When the kernel's event queue overflows (`IN_Q_OVERFLOW`), the whole
///   folder is listed again. When the inotify watch limit is reached
///   (`fs.inotify.max_user_watches`), the folder is listed again every
///   `rescan_interval` seconds, with one line in the log.
/// - When the picture folder itself goes (an unmounted USB stick, a share
///   gone, the folder deleted), the show is told once; the thread then
///   watches the folder above it and the mount table
///   (`/proc/self/mountinfo`, which the kernel flags on every mount and
///   unmount) and lists the folder again when it is back. A mount elsewhere
///   (``MountTable/relevant(to:)``) changes nothing and lists nothing.
final class FolderWatcher: @unchecked Sendable {
    let root: String
    let settings: FolderSettings
    var files: PictureFiles { PictureFiles(order: settings.order, clips: settings.clips) }

    private let inotify: FileDescriptor
    /// `/proc/self/mountinfo`, or -1 where it cannot be opened.
    private let mounts: Int32
    private let mailbox: WorkerMailbox<Shared>

    private struct Shared {
        var news: [FolderNews] = []
        var stopping = false
        var rescanAsked = false
    }

    // The thread's own state (also the initial walk's, before the thread starts).
    /// Watch descriptor to the folder it watches (no trailing slash).
    private var watched: [Int32: String] = [:]
    private var rootWatch: Int32?
    /// The watch limit was reached: list again every `rescanInterval`.
    private var watchLimited = false
    /// Tests: the most watches to add before acting as if the limit were reached.
    private let watchLimit: Int
    private var batch = FolderChangeBatch()
    /// iPhone Live Photos paired: a paired movie is never sent, its still carries it.
    private var livePhotos = LivePhotoFolder()
    /// Pictures a listing held back while they may still be being written.
    private var settling = SettlingFiles()
    /// The mounts at, above and below the folder when the mount table was last read.
    private var mountsSeen: [MountTable.Mount] = []
    private var nextRescan: Double?
    /// While the folder is gone: the folder above it that is watched meanwhile.
    private var waitingAbove: Int32?

    /// The first listing of the folder, made while the watches were set up;
    /// nil if the folder is not there (the show starts on the background and
    /// the thread waits for it). `notes`: entries not shown.
    private var first: FolderListing?
    var firstListing: [PlaylistEntry]? { first?.entries }
    var firstNotes: [String] { first?.notes ?? [] }

    /// Poll this for readability: news is waiting (``take()``).
    var readyFD: Int32 { mailbox.readyFD }

    /// Lists `root` and starts watching it. Throws when it exists but is not
    /// a folder that can be read, the error an operator must fix.
    init(
        root: String, settings: FolderSettings, watchLimit: Int = .max
    ) throws(SystemCallError) {
        self.root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        self.settings = settings
        self.watchLimit = watchLimit
        inotify = FileDescriptor(owning: try retryingInterrupts("inotify_init1") { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) })
        // The mount table: poll reports POLLPRI when anything is mounted or unmounted.
        mounts = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)
        mailbox = try WorkerMailbox(Shared(), threadPolls: true)
        mountsSeen = relevantMounts()
        if let listing = try Self.firstWalk(self) {
            first = FolderListing(entries: listing.entries, notes: listing.notes)
        } else {
            waitAbove()
        }
        if watchLimited { nextRescan = MonotonicClock.now() + settings.rescanInterval }
        try mailbox.start { [self] in work() }
    }

    private static func firstWalk(_ watcher: FolderWatcher) throws(SystemCallError) -> (entries: [PlaylistEntry], notes: [String])? {
        do {
            return try watcher.list()
        } catch where error.code == .noSuchFileOrDirectory {
            return nil
        }
    }

    deinit { if mounts >= 0 { close(mounts) } }

    /// Asks the thread to end; it does within a poll.
    func stop() { mailbox.tell { $0.stopping = true } }

    /// Lists the folder again, as a rescan does (tests; an operator's
    /// `kioskctl reload` with a new folder goes through a new watcher).
    func rescan() { mailbox.tell { $0.rescanAsked = true } }

    /// The news since the last call. Never waits.
    func take() -> [FolderNews] {
        mailbox.take { shared in
            defer { shared.news = [] }
            return shared.news
        }
    }

    /// Waits up to `milliseconds` for news (tests; never the run loop).
    func waitForNews(milliseconds: Int32) -> Bool { mailbox.waitForResults(milliseconds: milliseconds) }

    // MARK: The thread

    private func work() {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 64 << 10, alignment: MemoryLayout<inotify_event>.alignment)
        defer { buffer.deallocate() }
        while true {
            let (stopping, rescanAsked) = mailbox.withShared { shared in
                defer { shared.rescanAsked = false }
                return (shared.stopping, shared.rescanAsked)
            }
            if stopping { break }
            if rescanAsked { relist() }
            var descriptors = [
                pollfd(fd: inotify.rawValue, events: Int16(POLLIN), revents: 0),
                pollfd(fd: mailbox.wakeFD, events: Int16(POLLIN), revents: 0),
            ]
            if mounts >= 0 { descriptors.append(pollfd(fd: mounts, events: Int16(POLLPRI), revents: 0)) }
            _ = poll(&descriptors, nfds_t(descriptors.count), timeout(at: MonotonicClock.now()))
            mailbox.acknowledgeWake()
            let now = MonotonicClock.now()
            if descriptors[0].revents != 0 { readEvents(into: buffer, at: now) }
            if descriptors.count > 2, descriptors[2].revents != 0 { mountsChanged() }
            if let due = nextRescan, now >= due {
                nextRescan = now + settings.rescanInterval
                relist()
            }
            lookAtSettling(at: now)
            if let change = batch.takeIfDue(at: now) { sendChange(change) }
        }
    }

    /// Milliseconds until the thread must wake with nothing to read: a batch to send, a rescan due.
    private func timeout(at now: Double) -> Int32 {
        var due = batch.due
        for next in [nextRescan, settling.due].compactMap({ $0 }) { due = min(due ?? next, next) }
        guard let due else { return -1 }
        return Int32(max(0, min(60_000, ((due - now) * 1000).rounded(.up))))
    }

    /// Sends a batch of changes with its Live Photos paired. A movie that
    /// brings Live Photos to a folder makes the stills already there worth
    /// reading: they are sent again, with their movie.
    private func sendChange(_ given: PlaylistChange) {
        var change = given
        var sides = LivePhotoReading.sides(of: change.added) { [livePhotos] in livePhotos.hasMovies(in: $0) }
        let arriving = Set(change.added.map(\.path))
        for folder in LivePhotoReading.movieFolders(sides) where !livePhotos.hasMovies(in: folder) {
            for still in LivePhotoReading.stills(in: folder) where !arriving.contains(still) && !settling.contains(still) {
                guard let side = LivePhotoReading.side(of: still), let entry = files.entry(still) else { continue }
                sides[still] = side
                change.added.append(entry)
            }
        }
        let paired = livePhotos.change(change, sides: sides)
        if !paired.isEmpty { send(.changes(paired)) }
    }

    private func send(_ news: FolderNews) {
        mailbox.post { shared in
            shared.news.append(news)
            return true
        }
    }

    private func readEvents(into buffer: UnsafeMutableRawPointer, at now: Double) {
        while true {
            let count = Glibc.read(inotify.rawValue, buffer, 64 << 10)
            guard count > 0 else { return }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameStart = buffer + offset + MemoryLayout<inotify_event>.size
                let name = UnsafeBufferPointer(
                    start: nameStart.assumingMemoryBound(to: UInt8.self), count: Int(event.len))
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
                handle(event, name: UnsafeBufferPointer(rebasing: name.prefix { $0 != 0 }), at: now)
            }
        }
    }

    private func handle(_ event: inotify_event, name: UnsafeBufferPointer<UInt8>, at now: Double) {
        let mask = event.mask
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            send(.note("the folder changed faster than the kernel could report (inotify queue overflow): listing \(root) again"))
            relist()
            return
        }
        if let above = waitingAbove, event.wd == above {
            // Something changed in the folder above the missing one: perhaps
            // it is back, or a folder on the way to it appeared (watch that).
            waitAbove()
            return
        }
        guard let folder = watched[event.wd] else { return }
        if mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT) != 0 {
            if event.wd == rootWatch { rootGone() } else if mask & UInt32(IN_IGNORED) != 0 { watched[event.wd] = nil }
            return
        }
        guard !name.isEmpty, !PictureFiles.isHidden(name), let text = String(validating: name, as: UTF8.self) else { return }
        let path = folder + "/" + text
        batch.event(at: now)
        if mask & UInt32(IN_ISDIR) != 0 {
            if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                arrivedFolder(path)
            } else if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
                leftFolder(path)
            }
            return
        }
        if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
            // Held back by a listing, it was never sent: nothing to remove.
            if !settling.forget(path) { batch.removed(path, at: now) }
        } else if mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO) != 0 {
            settling.forget(path)
            // An empty file is a copy that has not begun (a tool that creates, closes and opens again).
            var info = stat()
            if files.shows(name), stat(path, &info) == 0, info.st_size > 0, let entry = files.entry(path, info: info) {
                batch.added(entry, at: now)
            } else if mask & UInt32(IN_MOVED_TO) != 0 {
                arrivedLink(path, at: now)   // a link to a folder renamed into place
            }
        } else if mask & UInt32(IN_CREATE) != 0 {
            // A link (to a file or a folder) never gets IN_CLOSE_WRITE: it is complete at once.
            arrivedLink(path, at: now)
        }
    }

    /// A new entry that may be a link to a picture or a folder.
    private func arrivedLink(_ path: String, at now: Double) {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK, stat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            arrivedFolder(path)
        } else if files.shows(Playlist.fileName(of: path)), let entry = files.entry(path, info: info) {
            batch.added(entry, at: now)
        }
    }

    private func arrivedFolder(_ path: String) {
        guard settings.recursive else { return }
        // A loop: the new folder is (a link to) one of the folders it sits in.
        var ancestors: Set<FolderIdentity> = []
        var above = parentFolder(of: path)
        while above.count >= root.count {
            if let identity = FolderIdentity(above) { ancestors.insert(identity) }
            above = parentFolder(of: above)
        }
        if let identity = FolderIdentity(path), ancestors.contains(identity) { return }
        var walk = FolderWalk(files: files, recursive: true) { [unowned self] folder in self.watch(folder) }
        // `cp -r` makes the folder, then copies into it: its files may be half written.
        walk.holdingFreshAt = WallClockTimer.preciseNow()
        do { try walk.walk(path, ancestors: ancestors) } catch { return }
        for entry in walk.entries { batch.added(entry, at: batch.lastEvent) }
        hold(walk.fresh)
    }

    private func leftFolder(_ path: String) {
        let prefix = path + "/"
        for (wd, folder) in watched where folder == path || folder.hasPrefix(prefix) {
            inotify_rm_watch(inotify.rawValue, wd)
            watched[wd] = nil
        }
        // What is pending under it goes with it; the show removes the rest.
        batch.forget(under: prefix)
        livePhotos.forget(under: prefix)
        settling.forget(under: prefix)
        flushPending()
        send(.folderLeft(prefix))
    }

    /// Sends what is pending now (before news that must follow it).
    private func flushPending() {
        if let change = batch.take(), !change.isEmpty { sendChange(change) }
    }

    // MARK: Listing

    /// Lists the whole folder, watching every folder in it. `settle`: hold
    /// back the pictures written lately (every listing but the first).
    private func list(settle: Bool = false) throws(SystemCallError) -> (entries: [PlaylistEntry], notes: [String]) {
        for wd in watched.keys { inotify_rm_watch(inotify.rawValue, wd) }
        watched = [:]
        rootWatch = nil
        var walk = FolderWalk(files: files, recursive: settings.recursive) { [unowned self] folder in self.watch(folder) }
        if settle { walk.holdingFreshAt = WallClockTimer.preciseNow() }
        try walk.walk(root)
        rootWatch = watched.first { $0.value == root }?.key
        hold(walk.fresh)
        let sorted = walk.entries.sorted(by: PlaylistEntry.precedes)
        return (livePhotos.listing(sorted, sides: LivePhotoReading.sides(of: sorted)), walk.noteLines)
    }

    /// Holds back pictures a listing found fresh.
    private func hold(_ fresh: [(entry: PlaylistEntry, signature: FileSignature)]) {
        let now = MonotonicClock.now()
        for (entry, signature) in fresh { settling.hold(entry, signature: signature, at: now) }
    }

    /// Looks again at the held pictures that are due: those that settled join.
    private func lookAtSettling(at now: Double) {
        let due = settling.dueFiles(at: now)
        guard !due.isEmpty else { return }
        let wallNow = WallClockTimer.preciseNow()
        for path in due {
            if let entry = settling.looked(at: path, signature: FileSignature(path: path), now: now, wallNow: wallNow) {
                batch.event(at: now)
                batch.added(entry, at: now)
            }
        }
    }

    /// Lists the folder again and sends it whole, or says it is gone.
    private func relist() {
        batch.clear()
        settling.clear()
        do {
            let listing = try list(settle: true)
            if let above = waitingAbove {
                inotify_rm_watch(inotify.rawValue, above)
                waitingAbove = nil
            }
            send(.listing(listing.entries, notes: listing.notes))
        } catch {
            if waitingAbove == nil { rootGone() }
        }
    }

    private func mountsChanged() {
        // A mount over the folder (or under it) hides what the watches see:
        // start again. A mount anywhere else changes nothing here.
        let relevant = relevantMounts()
        guard relevant != mountsSeen else { return }
        mountsSeen = relevant
        if waitingAbove != nil {
            if FolderIdentity(root) != nil { relist() }
        } else {
            relist()
        }
    }

    /// The mounts at, above and below the folder (by the path it was given,
    /// and the path links lead to), from the mount table read now.
    private func relevantMounts() -> [MountTable.Mount] {
        guard mounts >= 0 else { return [] }
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        var offset: off_t = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(mounts, $0.baseAddress, $0.count, offset) }
            guard count > 0 else { break }
            text += chunk[..<count]
            offset += off_t(count)
        }
        let table = MountTable(mountinfo: String(decoding: text, as: UTF8.self))
        var relevant = table.relevant(to: root)
        if let real = realpath(root, nil) {
            defer { free(real) }
            let resolved = String(cString: real)
            if resolved != root { relevant += table.relevant(to: resolved) }
        }
        return relevant
    }

    private func rootGone() {
        for wd in watched.keys { inotify_rm_watch(inotify.rawValue, wd) }
        watched = [:]
        rootWatch = nil
        batch.clear()
        settling.clear()
        send(.folderGone)
        waitAbove()
    }

    /// Watches the nearest existing folder above the missing one for it
    /// (or a folder on the way to it) to appear; lists it if it is there.
    private func waitAbove() {
        if let above = waitingAbove {
            inotify_rm_watch(inotify.rawValue, above)
            waitingAbove = nil
        }
        var path = parentFolder(of: root)
        while true {
            let wd = inotify_add_watch(inotify.rawValue, path, UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_ONLYDIR))
            if wd >= 0 {
                waitingAbove = wd
                break
            }
            guard path != "/" else { break }
            path = parentFolder(of: path)
        }
        // It may have appeared before the watch was in place.
        if FolderIdentity(root) != nil { relist() }
    }

    /// Starts watching `folder`; past the watch limit, says so once and rescans from then on.
    private func watch(_ folder: String) {
        let mask = UInt32(
            IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF
                | IN_ONLYDIR | IN_EXCL_UNLINK)
        let wd = watched.count < watchLimit ? inotify_add_watch(inotify.rawValue, folder, mask) : { errno = ENOSPC; return -1 }()
        if wd >= 0 {
            watched[wd] = folder
            return
        }
        guard Errno.current == .noSpace, !watchLimited else { return }
        watchLimited = true
        nextRescan = MonotonicClock.now() + settings.rescanInterval
        let line = "the kernel's inotify watch limit is reached (fs.inotify.max_user_watches) at \(folder): listing \(root) again every \(settings.rescanInterval.formatted) s instead"
        send(.note(line))
    }
}

extension Double {
    /// `60` rather than `60.0`, `0.5` as it is.
    fileprivate var formatted: String { self == rounded() && abs(self) < 1e15 ? "\(Int(self))" : "\(self)" }
}
