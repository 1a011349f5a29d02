#if canImport(Glibc)
import Glibc
#endif

/// The names in folder `path` (not recursively), as the bytes the file
/// system holds, in no order, without `.` and `..`. The corresponding C
/// calls are `opendir` and `readdir`.
public func directoryEntryNames(_ path: String) throws(SystemCallError) -> [[UInt8]] {
    guard let directory = opendir(path) else { throw .last("opendir", path: path) }
    defer { closedir(directory) }
    var names: [[UInt8]] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
        if name != [UInt8(ascii: ".")] && name != [UInt8(ascii: "."), UInt8(ascii: ".")] { names.append(name) }
    }
    return names
}

/// What a folder entry is, as `readdir`'s `d_type` says without a `stat`.
public enum DirectoryEntryKind: Sendable {
    case file, folder, link
    /// A device, a FIFO, a socket.
    case other
    /// The file system does not say (some network and FUSE file systems): `stat` it.
    case unknown
}

/// Calls `body` with each entry of folder `path` (not `.` and `..`): its
/// name's bytes, valid only during the call, and its kind. One `opendir`,
/// `readdir` until the end; no allocation per entry.
public func forEachDirectoryEntry(
    _ path: String, _ body: (UnsafeBufferPointer<UInt8>, DirectoryEntryKind) -> Void
) throws(SystemCallError) {
    guard let directory = opendir(path) else { throw .last("opendir", path: path) }
    defer { closedir(directory) }
    while let entry = readdir(directory) {
        let kind: DirectoryEntryKind
        switch Int32(entry.pointee.d_type) {
        case Int32(DT_REG): kind = .file
        case Int32(DT_DIR): kind = .folder
        case Int32(DT_LNK): kind = .link
        case Int32(DT_UNKNOWN): kind = .unknown
        default: kind = .other
        }
        withUnsafeBytes(of: &entry.pointee.d_name) { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let length = bytes.firstIndex(of: 0) ?? bytes.count
            if length == 1 && bytes[0] == UInt8(ascii: ".") { return }
            if length == 2 && bytes[0] == UInt8(ascii: ".") && bytes[1] == UInt8(ascii: ".") { return }
            body(UnsafeBufferPointer(rebasing: bytes[..<length]), kind)
        }
    }
}

/// The folder `path` is in: `/dev/input` for `/dev/input/by-id`, `/` for
/// `/dev` (and for `/`). What a watch waits on while a folder is missing.
public func parentFolder(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
    return String(path[..<slash])
}

/// Removes folder `path` and everything under it, as far as it can (what
/// cannot be removed stays; links are removed, never followed).
public func removeFolderTree(_ path: String) {
    var entries: [(name: String, isFolder: Bool)] = []
    try? forEachDirectoryEntry(path) { name, kind in entries.append((String(decoding: name, as: UTF8.self), kind == .folder)) }
    for entry in entries {
        if entry.isFolder { removeFolderTree(path + "/" + entry.name) } else { unlink(path + "/" + entry.name) }
    }
    rmdir(path)
}
