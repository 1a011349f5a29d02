import KioskCore
import ServiceManager
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Why the control socket could not be set up. The daemon does not start:
/// an operator who configured a socket expects to reach it.
public enum ControlSocketError: Error, Equatable, CustomStringConvertible {
    /// Something that is not a socket is at the path: never deleted.
    case notASocket(String)
    /// Another process (another kioskd) is listening at the path.
    case inUse(String)
    case unknownGroup(String)
    case system(SystemCallError)

    public var description: String {
        switch self {
        case .notASocket(let path):
            return "\(path) exists and is not a socket; kioskd will not delete it: move it away, or set `socket` (--socket) to another path"
        case .inUse(let path):
            return "\(path): another process is already listening there (is another kioskd running?); stop it, or set `socket` (--socket) to another path"
        case .unknownGroup(let name):
            return "socket_group: there is no group named \"\(name)\" (see /etc/group)"
        case .system(let error):
            return "control socket: \(error); set `socket` (--socket) to a path kioskd may create, or \"none\""
        }
    }
}

/// The control socket's listening descriptor: the one systemd passed, or
/// one bound at the configured path.
///
/// Binding: a socket file left by a crash (nobody answers a connect) is
/// replaced; anything else at the path is left alone and is an error. The
/// file gets mode 0660 and the configured group before anyone can connect
/// (it is not listening yet), so only root and that group drive the kiosk.
/// The file is removed when the listener closes, if it is still the one
/// bound here; a socket from systemd is systemd's to remove.
final class ControlListener {
    let descriptor: FileDescriptor
    /// Where it listens, for the log: the path, or systemd's socket.
    let summary: String
    /// The socket file this process made, and its identity (removed on close).
    private let ownedFile: (path: String, device: dev_t, inode: ino_t)?

    /// The socket for `settings`; nil when it is turned off (`socket = "none"`)
    /// and systemd passed none.
    static func open(_ settings: ControlSettings) throws(ControlSocketError) -> ControlListener? {
        do {
            if let fd = try SocketActivation.controlSocket() {
                return ControlListener(descriptor: FileDescriptor(owning: fd), summary: "the socket systemd passed", ownedFile: nil)
            }
        } catch { throw .system(error) }
        guard let path = settings.socket else { return nil }
        return try ControlListener(binding: path, group: settings.socketGroup)
    }

    private init(descriptor: consuming FileDescriptor, summary: String, ownedFile: (path: String, device: dev_t, inode: ino_t)?) {
        self.descriptor = descriptor
        self.summary = summary
        self.ownedFile = ownedFile
    }

    private init(binding path: String, group: String?) throws(ControlSocketError) {
        let groupID: gid_t?
        if let group {
            guard let entry = getgrnam(group) else { throw .unknownGroup(group) }
            groupID = entry.pointee.gr_gid
        } else {
            groupID = nil
        }
        try Self.clearStaleSocket(at: path)
        try Self.makeFolder(of: path)
        let fd = FileDescriptor(owning: try Self.system { () throws(SystemCallError) in
            try retryingInterrupts("socket", path: path) {
                socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            }
        })
        guard var address = UnixAddress(path) else { throw .system(SystemCallError("bind", errno: ENAMETOOLONG, path: path)) }
        guard address.withSockaddr({ bind(fd.rawValue, $0, $1) }) == 0 else {
            let error = SystemCallError.last("bind", path: path)
            if error.code == .addressInUse { throw .inUse(path) }
            throw .system(error)
        }
        var status = stat()
        for (call, result) in [("chmod", { chmod(path, 0o660) }), ("chown", { groupID.map { chown(path, uid_t.max, $0) } ?? 0 }),
                               ("lstat", { lstat(path, &status) })] where result() != 0 {
            let error = SystemCallError.last(call, path: path)
            unlink(path)
            throw .system(error)
        }
        guard listen(fd.rawValue, SOMAXCONN) == 0 else {
            let error = SystemCallError.last("listen", path: path)
            unlink(path)
            throw .system(error)
        }
        descriptor = fd
        summary = path
        ownedFile = (path, status.st_dev, status.st_ino)
    }

    deinit {
        // Removed only if it is still the file bound here (not a later daemon's).
        guard let owned = ownedFile else { return }
        var status = stat()
        if lstat(owned.path, &status) == 0, status.st_dev == owned.device, status.st_ino == owned.inode {
            unlink(owned.path)
        }
    }

    private static func system<Result>(_ body: () throws(SystemCallError) -> Result) throws(ControlSocketError) -> Result {
        do { return try body() } catch { throw .system(error) }
    }

    /// The socket's folder (`/run/kioskd`, which systemd's `RuntimeDirectory`
    /// makes for the service) is made if it is missing, one level only.
    private static func makeFolder(of path: String) throws(ControlSocketError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let folder = String(path[..<slash])
        guard mkdir(folder, 0o755) == 0 || Errno.current == .fileExists else { throw .system(.last("mkdir", path: folder)) }
    }

    /// Nothing at `path`, or a socket nobody listens on (removed): fine.
    /// A live socket, or anything that is not a socket: an error.
    private static func clearStaleSocket(at path: String) throws(ControlSocketError) {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if Errno.current == .noSuchFileOrDirectory { return }
            throw .system(.last("lstat", path: path))
        }
        guard status.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path) }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { throw .system(.last("socket", path: path)) }
        defer { close(probe) }
        guard var address = UnixAddress(path) else { throw .system(SystemCallError("connect", errno: ENAMETOOLONG, path: path)) }
        if address.withSockaddr({ connect(probe, $0, $1) }) == 0 { throw .inUse(path) }
        guard Errno.current == .connectionRefused else { throw .system(.last("connect", path: path)) }
        guard unlink(path) == 0 || Errno.current == .noSuchFileOrDirectory else { throw .system(.last("unlink", path: path)) }
    }
}
