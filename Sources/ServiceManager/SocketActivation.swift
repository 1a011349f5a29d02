import CSystemd
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// What systemd (the service manager) hands kioskd, through libsystemd.
public enum SocketActivation {
    /// The listening Unix stream socket systemd passed (`LISTEN_FDS` and
    /// `LISTEN_PID`, read by `sd_listen_fds`, which then clears them so no
    /// child inherits them); nil when started without one. Made
    /// non-blocking and close-on-exec. A passed descriptor that is not a
    /// listening Unix stream socket is an error: the socket unit is wrong.
    public static func controlSocket() throws(SystemCallError) -> Int32? {
        let count = sd_listen_fds(1)
        guard count >= 0 else { throw SystemCallError("sd_listen_fds", errno: -count) }
        guard count > 0 else { return nil }
        let fd = SD_LISTEN_FDS_START
        guard sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0 else {
            throw SystemCallError("sd_is_socket_unix", errno: ENOTSOCK, path: "systemd's descriptor \(fd)")
        }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0, fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 else {
            throw .last("fcntl", path: "systemd's descriptor \(fd)")
        }
        return fd
    }
}
