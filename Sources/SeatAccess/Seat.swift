import CSeat
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The seat kioskd's display and input devices belong to, through libseat
/// (the library Weston and wlroots use): it asks seatd or logind to open
/// the devices, so kioskd needs no root and no device groups, or runs an
/// embedded seatd when it is root with neither (`LIBSEAT_BACKEND` chooses).
///
/// The seat can be taken away (a VT switch, another session): libseat then
/// calls ``onDisable``, the show stops drawing and answers with
/// ``acknowledgeDisable()`` at once, and the seat manager drops DRM master
/// and revokes the input devices. ``onEnable`` gives it back: the devices
/// are usable again after a full mode set (input devices must be opened
/// again). Both are called from ``dispatch()``, on the caller's thread.
public final class Seat {
    private var handle: OpaquePointer!
    /// The seat's name, as the seat manager calls it: `seat0`.
    public private(set) var name = ""
    /// True while the seat is this process's: devices may be opened and used.
    public private(set) var isActive = false
    /// The seat was given to this process (again).
    public var onEnable: () -> Void = {}
    /// The seat is being taken away: stop using its devices and call ``acknowledgeDisable()``.
    public var onDisable: () -> Void = {}

    /// Readable when the seat manager has news: call ``dispatch()``.
    public var descriptor: Int32 { libseat_get_fd(handle) }

    /// Opens the seat and waits (at most `timeout` seconds) for it to be
    /// enabled. libseat tries seatd, then logind, then its embedded seatd;
    /// what each attempt said is in the error when none works.
    ///
    /// The embedded seatd needs root (without it, it never enables the
    /// seat), so a process that is not root tries only seatd and logind,
    /// unless the operator chose with `LIBSEAT_BACKEND`.
    public static func open(timeout: Double = 10) throws(SeatError) -> Seat {
        let chosen = getenv("LIBSEAT_BACKEND") != nil
        guard chosen || geteuid() == 0 else {
            var said: [String] = []
            for backend in ["seatd", "logind"] {
                setenv("LIBSEAT_BACKEND", backend, 1)
                defer { unsetenv("LIBSEAT_BACKEND") }
                do {
                    return try Seat(backendChosen: timeout)
                } catch {
                    guard case .noSeatManager(_, let messages) = error.kind else { throw error }
                    said += messages
                }
            }
            throw SeatError(.noSeatManager(errno: ENOENT, said: said))
        }
        return try Seat(backendChosen: timeout)
    }

    private init(backendChosen timeout: Double) throws(SeatError) {
        libseat_set_log_level(LIBSEAT_LOG_LEVEL_ERROR)
        kioskd_seat_log_to_swift()
        seatMessages = []
        // The embedded seatd is a child process forked here: it must not
        // inherit the daemon's blocked signals, or it could never answer
        // the kernel's VT switch signals. Unblocked for the fork only.
        var none = sigset_t(), kept = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &kept)
        handle = libseat_open_seat(seatListener, Unmanaged.passUnretained(self).toOpaque())
        let code = errno
        pthread_sigmask(SIG_SETMASK, &kept, nil)
        guard handle != nil else { throw SeatError(.noSeatManager(errno: code, said: seatMessages)) }
        name = String(cString: libseat_seat_name(handle))
        let deadline = MonotonicClock.now() + timeout
        while !isActive {
            let left = deadline - MonotonicClock.now()
            guard left > 0 else { throw SeatError(.notActive(seat: name)) }
            guard libseat_dispatch(handle, Int32(min(left, 1) * 1000)) >= 0 else {
                throw SeatError(.call("libseat_dispatch", errno: errno))
            }
        }
    }

    deinit {
        if let handle { libseat_close_seat(handle) }
    }

    /// Reads what the seat manager sent and calls ``onEnable`` or
    /// ``onDisable``; never waits.
    public func dispatch() throws(SeatError) {
        guard libseat_dispatch(handle, 0) >= 0 else { throw SeatError(.call("libseat_dispatch", errno: errno)) }
    }

    /// Says the devices are no longer in use, after ``onDisable``.
    public func acknowledgeDisable() throws(SeatError) {
        guard libseat_disable_seat(handle) == 0 else { throw SeatError(.call("libseat_disable_seat", errno: errno)) }
    }

    /// What libseat logged since it was last asked (errors only).
    public func takeMessages() -> [String] {
        defer { seatMessages = [] }
        return seatMessages
    }

    fileprivate func enabled() {
        isActive = true
        onEnable()
    }

    fileprivate func disabled() {
        isActive = false
        onDisable()
    }
}

extension Seat: DeviceOpener {
    /// Opens `path` through the seat manager (`libseat_open_device`); the
    /// descriptor gives it back (`libseat_close_device`) when closed.
    /// Fails while the seat is disabled.
    public func openDevice(_ path: String, flags: Int32) throws(SystemCallError) -> FileDescriptor {
        var fd: Int32 = -1
        let device = libseat_open_device(handle, path, &fd)
        guard device >= 0, fd >= 0 else { throw .last("libseat_open_device", path: path) }
        return FileDescriptor(owning: fd) { [self] in _ = libseat_close_device(handle, device) }
    }
}

/// Why the seat could not be had.
public struct SeatError: Error, CustomStringConvertible {
    public enum Kind: Sendable {
        /// No backend worked: no seatd, no logind session, and not root.
        case noSeatManager(errno: Int32, said: [String])
        /// The seat exists but another session has it.
        case notActive(seat: String)
        case call(String, errno: Int32)
    }

    public let kind: Kind

    init(_ kind: Kind) { self.kind = kind }

    public var description: String {
        switch kind {
        case .noSeatManager(let code, let said):
            let details = said.isEmpty ? String(cString: strerror(code)) : said.joined(separator: "; ")
            return "no seat manager (seatd or logind) lets kioskd open the display: \(details)"
        case .notActive(let seat):
            return "\(seat) belongs to another session (a VT switched away?): it was not given to kioskd within the wait"
        case .call(let call, let code):
            return "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        }
    }
}

/// libseat's messages, collected by its log handler (a C function, which
/// cannot capture): only touched on the thread that uses the seat.
nonisolated(unsafe) private var seatMessages: [String] = []

/// Each line libseat logs, formatted by CSeat's handler (`kioskd_seat_log`).
@_cdecl("kioskd_seat_log_line")
func seatLogLine(_ line: UnsafePointer<CChar>) {
    seatMessages.append(String(cString: line))
}

/// The listener libseat keeps a pointer to for the seat's life: one for all.
nonisolated(unsafe) private let seatListener: UnsafeMutablePointer<libseat_seat_listener> = {
    let listener = UnsafeMutablePointer<libseat_seat_listener>.allocate(capacity: 1)
    listener.initialize(to: libseat_seat_listener(
        enable_seat: { _, userData in Unmanaged<Seat>.fromOpaque(userData!).takeUnretainedValue().enabled() },
        disable_seat: { _, userData in Unmanaged<Seat>.fromOpaque(userData!).takeUnretainedValue().disabled() }))
    return listener
}()
