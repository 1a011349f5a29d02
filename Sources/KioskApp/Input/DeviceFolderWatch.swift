import CLinux
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Folders watched with inotify for entries coming and going: `/dev/input`
/// for devices plugged in and out, and the folder of each device named in
/// the config (`/dev/input/by-id`, where udev puts its links after the
/// node).
///
/// A folder that does not exist yet is waited for: the nearest folder above
/// it that does is watched until it appears (a Raspberry Pi booted with
/// nothing plugged in has no `/dev/input` until the first device comes). A
/// watched folder that goes away (udev removing an empty `by-id`) is waited
/// for again the same way.
final class DeviceFolderWatch {
    let folders: [String]
    private let inotify: FileDescriptor
    /// Watch descriptor to the folder it watches: one of `folders`, or a folder above a missing one.
    private var watched: [Int32: String] = [:]
    /// Entries created and removed, attributes changed (udev giving a node
    /// its group), and the watched folder itself moving or going away.
    private static let mask = UInt32(
        IN_CREATE | IN_ATTRIB | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF)

    /// Starts watching `folders` (or the nearest existing folder above each).
    init(_ folders: [String]) throws(SystemCallError) {
        self.folders = folders
        inotify = FileDescriptor(owning: try retryingInterrupts("inotify_init1") {
            inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        })
        try watchMissing()
    }

    /// Readable when something changed.
    var fd: Int32 { inotify.rawValue }

    /// The folders watched now, for the log and the tests: a missing one appears as the folder above it.
    var watchedFolders: [String] { Set(watched.values).sorted() }

    /// Takes what happened (call when ``fd`` is readable) and watches
    /// folders that appeared. The names do not matter to the caller, which
    /// looks at its folders again (a handful of entries).
    func take() throws(SystemCallError) {
        let size = 4096
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<inotify_event>.alignment)
        defer { buffer.deallocate() }
        var gone: [Int32] = []
        while true {
            let count = Glibc.read(inotify.rawValue, buffer, size)
            guard count > 0 else { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                // IN_IGNORED: the kernel dropped the watch (its folder was removed).
                if event.mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 { gone.append(event.wd) }
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
            }
        }
        for wd in gone where watched.removeValue(forKey: wd) != nil {
            inotify_rm_watch(inotify.rawValue, wd)
        }
        try watchMissing()
    }

    /// Watches every folder not watched yet, or the nearest folder above it
    /// that exists; stops watching folders above ones that now exist.
    private func watchMissing() throws(SystemCallError) {
        var needed: Set<Int32> = []
        for folder in folders {
            if let wd = watched.first(where: { $0.value == folder })?.key {
                needed.insert(wd)
                continue
            }
            var path = folder
            while true {
                let wd = inotify_add_watch(inotify.rawValue, path, Self.mask)
                if wd >= 0 {
                    watched[wd] = path
                    needed.insert(wd)
                    break
                }
                guard [.noSuchFileOrDirectory, .notDirectory].contains(Errno.current), path != "/" else { throw .last("inotify_add_watch", path: path) }
                path = parentFolder(of: path)
            }
        }
        for wd in watched.keys where !needed.contains(wd) {
            inotify_rm_watch(inotify.rawValue, wd)
            watched[wd] = nil
        }
    }
}
