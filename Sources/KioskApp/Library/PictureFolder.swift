import ImageCodecs
import KioskCore
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Which files in the picture folder are pictures, and where each sorts
/// (the `order` setting). Used by the walk at start and on rescans, and by
/// the watch for each file that arrives; all of it runs on the folder's
/// own thread after the start, never on the run loop.
public struct PictureFiles: Sendable {
    /// The file extensions that are shown (compared without case): the codecs' (``PictureCodecs``).
    static let extensions = PictureCodecs.fileExtensions
    /// Why a regular file is passed over, for the log.
    static let notAPicture = "not a \(PictureCodecs.spokenExtensions()) file"
    let order: PictureOrder
    /// `video`: video clips are shown (false passes over their extensions, with a line in the log).
    var clips = true

    public init(order: PictureOrder, clips: Bool = true) {
        self.order = order
        self.clips = clips
    }

    /// True for a name the show plays: a picture (``isPicture(_:)``), and a clip only when ``clips``.
    func shows(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        Self.isPicture(name) && (clips || !Self.hasExtension(name, in: ClipCodec.fileExtensions))
    }

    public func shows(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { shows($0) }
    }

    /// Why the regular file `name` is passed over, for the log.
    func whyNotShown(_ name: String) -> String {
        var name = name
        let clip = name.withUTF8 { Self.isPicture($0) && Self.hasExtension($0, in: ClipCodec.fileExtensions) }
        return clip && !clips ? ImageFileError.clipsOffWords : Self.notAPicture
    }

    /// True for a name the show plays: not hidden (no leading dot, like
    /// `.DS_Store` or rsync's `.IMG_1.jpg.Xa3f` while it copies) and ending
    /// in one of ``extensions``.
    static func isPicture(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = name.first, first != UInt8(ascii: ".") else { return false }
        return hasExtension(name, in: extensions)
    }

    /// True when `name` ends in one of `extensions` (compared without case).
    private static func hasExtension(_ name: UnsafeBufferPointer<UInt8>, in extensions: [String]) -> Bool {
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")) else { return false }
        let suffix = name[(dot + 1)...].map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
        return extensions.contains { $0.utf8.elementsEqual(suffix) }
    }

    static func isPicture(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { isPicture($0) }
    }

    /// Hidden names (a leading dot) are passed over without a word, files and folders alike.
    static func isHidden(_ name: UnsafeBufferPointer<UInt8>) -> Bool { name.first == UInt8(ascii: ".") }

    /// The playlist entry for the picture at `path`, or nil when it is not
    /// a regular file (any more). `info`: its `stat`, if already taken; name
    /// order needs none.
    func entry(_ path: String, info given: stat? = nil) -> PlaylistEntry? {
        if order == .name || order == .shuffle, given == nil { return PlaylistEntry(path, rank: rank(path, nil)) }
        var info = stat()
        if let given { info = given } else if stat(path, &info) != 0 { return nil }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return PlaylistEntry(path, rank: rank(path, info))
    }

    private func rank(_ path: String, _ info: stat?) -> Int64 {
        switch order {
        case .name: return 0
        case .shuffle: return Int64.random(in: 1...Int64.max)
        case .mtime: return info.map(Self.nanoseconds) ?? 0
        case .taken:
            // Modification times stand in for photos without a date (screenshots, scans).
            if let taken = PictureCodecs.dateTaken(ofFile: path) { return taken &* 1_000_000_000 }
            return info.map(Self.nanoseconds) ?? 0
        }
    }

    private static func nanoseconds(_ info: stat) -> Int64 { KioskApp.nanoseconds(info.st_mtim) }
}

extension FileSignature {
    /// What `stat` says of a file.
    init(_ info: stat) {
        self.init(
            size: Int64(info.st_size),
            modified: nanoseconds(info.st_mtim), changed: nanoseconds(info.st_ctim))
    }

    /// What `stat` says of the file at `path` now; nil when it is gone or not a regular file.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        self.init(info)
    }
}

/// A file time (`st_mtim`, `st_ctim`) in nanoseconds since the epoch.
func nanoseconds(_ time: timespec) -> Int64 { Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec) }

/// A folder's identity on disk: how a symlink loop is recognised.
struct FolderIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

/// One walk over the picture folder (or a subfolder that just appeared):
/// the pictures in it, and a line for each entry that is not shown.
///
/// - Subfolders are searched when `recursive`; hidden ones are not.
/// - Symbolic links are followed, to files and to folders, but a link back
///   to a folder the walk is already inside (a loop) is not.
/// - Names that are not UTF-8 are refused with a line: a path the show
///   could not spell could never be opened again.
/// - `willRead` is called with each folder before it is read: the watch
///   starts watching it there, so a file added during the walk is seen by
///   one or the other.
struct FolderWalk {
    let files: PictureFiles
    let recursive: Bool
    var willRead: (String) -> Void = { _ in }
    /// When set (Unix time, now): pictures written within
    /// ``SettlingFiles/settleTime`` of it go to ``fresh``, not ``entries``;
    /// they may still be being copied.
    var holdingFreshAt: Double?
    private(set) var entries: [PlaylistEntry] = []
    /// The pictures held back as fresh, with what each looked like.
    private(set) var fresh: [(entry: PlaylistEntry, signature: FileSignature)] = []
    /// The first ``mostNotes`` lines about entries not shown, and how many there were.
    private(set) var notes: [String] = []
    private(set) var notShown = 0
    static let mostNotes = 20

    init(files: PictureFiles, recursive: Bool, willRead: @escaping (String) -> Void = { _ in }) {
        self.files = files
        self.recursive = recursive
        self.willRead = willRead
    }

    /// Walks `folder`, inside the folders `ancestors` (for loops); throws
    /// only when `folder` itself cannot be read.
    mutating func walk(_ folder: String, ancestors: Set<FolderIdentity> = []) throws(SystemCallError) {
        var inside = ancestors
        if let identity = FolderIdentity(folder) { inside.insert(identity) }
        willRead(folder)
        let base = folder.hasSuffix("/") ? folder : folder + "/"
        var subfolders: [String] = []
        var checkFirst: [String] = []
        try forEachDirectoryEntry(folder) { name, kind in
            if PictureFiles.isHidden(name) { return }
            guard let text = String(validating: name, as: UTF8.self) else {
                note("ignoring \(base)\(String(decoding: name, as: UTF8.self)): the name is not UTF-8; rename the file")
                return
            }
            let path = base + text
            switch kind {
            case .file:
                if files.shows(name) {
                    if holdingFreshAt == nil {
                        if let entry = files.entry(path) { entries.append(entry) }
                    } else {
                        var info = stat()
                        if stat(path, &info) == 0 { found(path, info: info) }
                    }
                } else {
                    note("ignoring \(path): \(files.whyNotShown(text))")
                }
            case .folder: subfolders.append(path)
            case .link, .unknown: checkFirst.append(path)
            case .other: note("ignoring \(path): not a regular file")
            }
        }
        // Links and entries of unknown kind: what they point to decides.
        for path in checkFirst {
            var info = stat()
            guard stat(path, &info) == 0 else {
                note("ignoring \(path): \(SystemCallError.last("stat").reason)")
                continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: subfolders.append(path)
            case S_IFREG where files.shows(Playlist.fileName(of: path)):
                found(path, info: info)
            case S_IFREG: note("ignoring \(path): \(files.whyNotShown(Playlist.fileName(of: path)))")
            default: note("ignoring \(path): not a regular file")
            }
        }
        for path in subfolders {
            guard recursive else {
                note("ignoring \(path): subfolders are not searched (recursive = false)")
                continue
            }
            if let identity = FolderIdentity(path), inside.contains(identity) {
                note("ignoring \(path): a link back to a folder it is inside (a loop)")
                continue
            }
            do { try walk(path, ancestors: inside) } catch { note("ignoring \(path): \(error.reason)") }
        }
    }

    /// A picture at `path`, `stat`ed: listed, or held back while fresh.
    private mutating func found(_ path: String, info: stat) {
        guard let entry = files.entry(path, info: info) else { return }
        let signature = FileSignature(info)
        if let now = holdingFreshAt, signature.isFresh(atWallTime: now) {
            fresh.append((entry, signature))
        } else {
            entries.append(entry)
        }
    }

    private mutating func note(_ line: String) {
        notShown += 1
        if notes.count < Self.mostNotes { notes.append(line) }
    }

    /// The notes for the log, with a last line for those left out.
    var noteLines: [String] {
        notShown > notes.count ? notes + ["... and \(notShown - notes.count) more files not shown"] : notes
    }
}

/// Which of a folder's files are iPhone Live Photos, read for the
/// ``LivePhotoFolder`` on the folder's thread. Reading every photo's EXIF
/// would cost a read of each file on a slow card, so only movies (`.mov`,
/// by name) are read first, with FFmpeg, and then only the stills (`.jpg`,
/// `.jpeg`, `.heic`, `.heif`) in folders where a movie has an identifier.
enum LivePhotoReading {
    static let movieExtensions: Set<String> = ["mov"]
    static let stillExtensions: Set<String> = ["jpg", "jpeg", "heic", "heif"]

    /// The sides of `entries` worth reading; `folderHasMovies`: a folder
    /// already known to hold a movie with an identifier.
    static func sides(of entries: [PlaylistEntry], folderHasMovies: (String) -> Bool = { _ in false }) -> [String: LivePhotoFolder.Side] {
        var sides: [String: LivePhotoFolder.Side] = [:]
        var movieFolders = Set<String>()
        for entry in entries where movieExtensions.contains(fileExtension(entry.path)) {
            guard let side = side(of: entry.path) else { continue }
            sides[entry.path] = side
            if case .movie = side { movieFolders.insert(parentFolder(of: entry.path)) }
        }
        for entry in entries where stillExtensions.contains(fileExtension(entry.path)) {
            let folder = parentFolder(of: entry.path)
            guard movieFolders.contains(folder) || folderHasMovies(folder) else { continue }
            if let side = side(of: entry.path) { sides[entry.path] = side }
        }
        return sides
    }

    /// The Live Photo side of the file at `path`: what a server says of it
    /// (an Immich Live Photo's identifier, ``PictureFactsRegistry``, a movie
    /// by its extension), else what the file itself holds; nil when neither
    /// names an identifier.
    static func side(of path: String) -> LivePhotoFolder.Side? {
        if let identifier = PictureFactsRegistry.facts(of: path)?.liveIdentifier {
            return movieExtensions.contains(fileExtension(path)) ? .movie(identifier) : .still(identifier)
        }
        return LivePhotoIdentity.read(path)
    }

    /// The folders of the movies with an identifier in `sides`.
    static func movieFolders(_ sides: [String: LivePhotoFolder.Side]) -> Set<String> {
        Set(sides.compactMap { path, side in if case .movie = side { parentFolder(of: path) } else { nil } })
    }

    /// The stills (by name) directly in `folder`.
    static func stills(in folder: String) -> [String] {
        var found: [String] = []
        try? forEachDirectoryEntry(folder) { name, _ in
            guard !PictureFiles.isHidden(name), let text = String(validating: name, as: UTF8.self),
                  stillExtensions.contains(fileExtension(text)) else { return }
            found.append(folder + "/" + text)
        }
        return found
    }

    /// The extension of `path`'s name, in small letters ("" for none).
    static func fileExtension(_ path: String) -> String {
        let name = Playlist.fileName(of: path)
        guard let dot = name.lastIndex(of: ".") else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }
}

/// The picture folder listed once, sorted as the show plays it: what a
/// snapshot and the benchmark show, and what the daemon starts from (the
/// ``FolderWatcher`` makes its own while it sets up its watches).
struct FolderListing: Sendable {
    var entries: [PlaylistEntry]
    /// Lines for the log about entries not shown.
    var notes: [String]

    /// Lists `folder` as `settings` say (recursive, order); throws when the
    /// folder itself cannot be read.
    init(folder: String, settings: FolderSettings) throws(SystemCallError) {
        var walk = FolderWalk(files: PictureFiles(order: settings.order, clips: settings.clips), recursive: settings.recursive)
        try walk.walk(folder)
        let sorted = walk.entries.sorted(by: PlaylistEntry.precedes)
        var livePhotos = LivePhotoFolder()
        entries = livePhotos.listing(sorted, sides: LivePhotoReading.sides(of: sorted))
        notes = walk.noteLines
    }

    init(entries: [PlaylistEntry], notes: [String]) {
        self.entries = entries
        self.notes = notes
    }
}

/// The pictures in `folder`, sorted as the show plays them (the benchmark's way in).
public func listPictureFolder(_ folder: String, settings: FolderSettings) throws(SystemCallError) -> [PlaylistEntry] {
    try FolderListing(folder: folder, settings: settings).entries
}
