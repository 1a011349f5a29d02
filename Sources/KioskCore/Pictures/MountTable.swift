/// The mounts that matter to one folder, read from `/proc/self/mountinfo`.
///
/// The kernel flags the mount table on every mount and unmount anywhere in
/// the process's namespace: on a busy machine (containers, automounters,
/// snaps) that is all the time. Only a mount at, above or below the picture
/// folder changes what the folder shows: one over it hides it (or brings it,
/// a USB stick), one inside it brings or hides a subfolder's pictures. So the
/// folder's thread lists the folder again only when ``relevant(to:)`` changed.
public struct MountTable: Equatable, Sendable {
    /// One line of mountinfo: the mount's id and where it is mounted.
    public struct Mount: Hashable, Sendable {
        public var id: Int
        public var mountPoint: String
    }

    public private(set) var mounts: [Mount]

    /// Parses mountinfo's text (proc(5)): each line
    /// `id parent major:minor root mountpoint options ... - fstype source super`,
    /// with space, tab, newline and backslash in paths written as `\040`,
    /// `\011`, `\012` and `\134`. Lines that do not parse are passed over.
    public init(mountinfo: String) {
        mounts = mountinfo.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count >= 5, let id = Int(fields[0]), fields[4].first == "/" else { return nil }
            return Mount(id: id, mountPoint: Self.unescaped(fields[4]))
        }
    }

    /// The mounts at `folder` or any folder above it (the one that holds it
    /// among them), and any below it, in the table's order: what a
    /// mount or an unmount changes for `folder`.
    public func relevant(to folder: String) -> [Mount] {
        let path = folder.count > 1 && folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        return mounts.filter { mount in
            Self.isAtOrBelow(mount.mountPoint, path) || Self.isAtOrBelow(path, mount.mountPoint)
        }
    }

    /// True when `path` is `folder` or inside it.
    static func isAtOrBelow(_ path: String, _ folder: String) -> Bool {
        folder == "/" || path == folder || path.hasPrefix(folder + "/")
    }

    /// A mountinfo path with its octal escapes decoded.
    static func unescaped(_ field: Substring) -> String {
        var bytes: [UInt8] = []
        let raw = Array(field.utf8)
        var index = 0
        while index < raw.count {
            if raw[index] == UInt8(ascii: "\\"), index + 3 < raw.count,
               let value = Int(String(decoding: raw[(index + 1)...(index + 3)], as: UTF8.self), radix: 8), value < 256 {
                bytes.append(UInt8(value))
                index += 4
            } else {
                bytes.append(raw[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
