import ImageCodecs
import KioskCore
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A server library's files on this machine's disk: a folder under
/// `state_dir` in the server's own layout, and its index (``MirrorIndex``:
/// each file's version as it was fetched), kept in the folder as a hidden
/// file. Used by one thread, the library's.
///
/// Every file arrives whole: it is written to a hidden temporary beside its
/// place, flushed, then renamed into it (``AtomicFile``), so the folder's
/// watch, and kioskd after a power cut, see the old file or the new one,
/// never part of one. When it is opened, what a power cut can leave is
/// tidied: temporaries are removed, and so are files the index does not
/// name (fetched, but the index not yet written; they are fetched again).
/// An index of another version, or of another address, empties the folder:
/// a fresh mirror, never a misread one.
final class MirrorFolder {
    /// The index's name in the folder: hidden, so never shown.
    static let indexName = ".kioskd-mirror"
    /// The pictures' facts beside it (``PictureFactsFile``), for a server that gives any.
    static let factsName = ".kioskd-facts"

    let root: String
    private(set) var index: MirrorIndex
    /// Whether the index changed since it was last written.
    private(set) var indexChanged = false
    /// What the server said of its pictures at the last listing, by relative path.
    private(set) var facts: [String: PictureFacts] = [:]
    private var factsChanged = false
    /// What opening it found, for the log (a fresh mirror, files tidied away).
    private(set) var notes: [String] = []

    /// Opens the mirror of `source` at `root`, making the folder (and those
    /// above it) when it is missing.
    init(root: String, source: String) throws(SystemCallError) {
        self.root = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root
        try Self.makeFolders(self.root)
        let bytes = try? readWholeFile(self.root + "/" + Self.indexName, limit: 512 << 20)
        if let bytes, let read = MirrorIndex.read(bytes, source: source) {
            index = read
            let factsBytes = try? readWholeFile(self.root + "/" + Self.factsName, limit: 512 << 20)
            facts = factsBytes.flatMap(PictureFactsFile.read) ?? [:]
        } else {
            index = MirrorIndex(source: source)
            if bytes != nil { notes.append("the cache of \(source) is of another address or version: starting it afresh") }
        }
        var removed = 0
        tidy(folder: self.root, relative: "", removed: &removed)
        if removed > 0 { notes.append("the cache of \(source): \(removed) file(s) it did not know removed") }
        // Files the index names but the disk lost (deleted by hand) are fetched again.
        let missing = index.files.keys.filter { access(self.root + "/" + $0, F_OK) != 0 }
        for path in missing { index.files[path] = nil }
        indexChanged = !missing.isEmpty || bytes == nil
    }

    /// Removes, under `folder`, hidden files (temporaries) and files the
    /// index does not name; then the folder itself if it is left empty.
    private func tidy(folder: String, relative: String, removed: inout Int) {
        var entries: [(name: String, isFolder: Bool)] = []
        try? forEachDirectoryEntry(folder) { name, kind in
            entries.append((String(decoding: name, as: UTF8.self), kind == .folder))
        }
        for entry in entries {
            let path = folder + "/" + entry.name
            let under = relative.isEmpty ? entry.name : relative + "/" + entry.name
            if entry.isFolder, !entry.name.hasPrefix(".") {
                tidy(folder: path, relative: under, removed: &removed)
                _ = rmdir(path)  // Only when it is left empty: rmdir refuses otherwise.
            } else if relative.isEmpty && (entry.name == Self.indexName || entry.name == Self.factsName) {
                continue
            } else if entry.name.hasPrefix(".") || index.files[under] == nil {
                if entry.isFolder { removeFolderTree(path) } else { unlink(path) }
                removed += entry.name.hasPrefix(".") ? 0 : 1
            }
        }
    }

    /// Stores `file`: `fill` writes its bytes into the open temporary (a
    /// download, as it arrives), which is then flushed and renamed into
    /// place. The index names it from then on.
    func store<Failure: Error>(_ file: RemoteFile, _ fill: (Int32) throws(Failure) -> Void) throws(AtomicFile.Failure<Failure>) {
        let path = root + "/" + file.path.relative
        if file.path.isInFolder {
            do { try Self.makeFolders(parentFolder(of: path)) } catch { throw .system(error) }
        }
        try AtomicFile.write(to: path) { (descriptor) throws(Failure) in try fill(descriptor.rawValue) }
        index.files[file.path.relative] = file.version
        indexChanged = true
    }

    /// Deletes the file at `relative` (and the folders it leaves empty).
    func remove(_ relative: String) {
        var path = root + "/" + relative
        unlink(path)
        index.files[relative] = nil
        indexChanged = true
        while true {
            path = parentFolder(of: path)
            guard path.count > root.count, rmdir(path) == 0 else { break }
        }
    }

    /// Takes what the server now says of its pictures (written with the index).
    func setFacts(_ facts: [String: PictureFacts]) {
        guard facts != self.facts else { return }
        self.facts = facts
        factsChanged = true
    }

    /// Writes the index and the facts, those that changed, each whole and atomically.
    func saveIndex() throws(SystemCallError) {
        if factsChanged {
            try AtomicFile.write(PictureFactsFile.encoded(facts), to: root + "/" + Self.factsName)
            factsChanged = false
        }
        guard indexChanged else { return }
        try AtomicFile.write(index.encoded, to: root + "/" + Self.indexName)
        indexChanged = false
    }

    /// Makes `path` and the folders above it that are missing.
    static func makeFolders(_ path: String) throws(SystemCallError) {
        if mkdir(path, 0o755) == 0 || errno == EEXIST { return }
        guard errno == ENOENT, path.count > 1 else { throw .last("mkdir", path: path) }
        try makeFolders(parentFolder(of: path))
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw .last("mkdir", path: path) }
    }
}
