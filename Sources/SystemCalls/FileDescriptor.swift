#if canImport(Glibc)
import Glibc
#endif

/// An open file descriptor that this value owns: it is closed exactly once,
/// when the value goes away (or by ``close()``). Non-copyable, so an fd can
/// never be closed twice or used after its owner closed it.
///
/// The run loop's timers and counters, the DRM card and (later) sockets and
/// input devices each hold one.
public struct FileDescriptor: ~Copyable {
    /// The kernel's number for it, for calls that take an `int fd`. Valid
    /// while this value lives.
    public let rawValue: Int32
    /// Called just before the descriptor is closed: a device opened through
    /// a seat manager is given back to it first (`libseat_close_device`).
    /// Held retained by hand, so the value stays trivially destroyed (which
    /// `discard` needs).
    private let beforeClose: Unmanaged<CloseHook>?

    /// Takes ownership of `rawValue` (from `open`, `timerfd_create`, ...).
    public init(owning rawValue: Int32, beforeClose: (() -> Void)? = nil) {
        precondition(rawValue >= 0, "not a file descriptor: \(rawValue)")
        self.rawValue = rawValue
        self.beforeClose = beforeClose.map { Unmanaged.passRetained(CloseHook($0)) }
    }

    /// Opens `path`. The corresponding C function is `open`; `O_CLOEXEC` is
    /// always added, so no descriptor leaks into a child process.
    public init(opening path: String, flags: Int32, mode: mode_t = 0) throws(SystemCallError) {
        rawValue = try retryingInterrupts("open", path: path) { open(path, flags | O_CLOEXEC, mode) }
        beforeClose = nil
    }

    /// Closes it now, reporting a failure (after writing a file, a failed
    /// close can mean the data never reached the disk). Not retried on
    /// `EINTR`: on Linux the descriptor is released even then.
    public consuming func close() throws(SystemCallError) {
        let fd = rawValue
        let beforeClose = beforeClose
        discard self
        beforeClose?.takeRetainedValue().run()
        guard Glibc.close(fd) == 0 else { throw .last("close") }
    }

    /// Gives the descriptor up without closing it: the caller owns it now
    /// (a C library that closes what it is handed, such as `fdopen`'s `FILE`).
    /// Not for a seat's device, which must be given back through ``close()``.
    public consuming func release() -> Int32 {
        precondition(beforeClose == nil, "a seat's device is given back by close()")
        let fd = rawValue
        discard self
        return fd
    }

    deinit {
        beforeClose?.takeRetainedValue().run()
        _ = Glibc.close(rawValue)
    }

    /// Reads up to `count` bytes into `buffer`; 0 at end of file. Retries
    /// `EINTR`; `EAGAIN` on a non-blocking descriptor is thrown like any error.
    public func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(SystemCallError) -> Int {
        try retryingInterrupts("read") { Glibc.read(rawValue, buffer, count) }
    }

    /// Writes up to `count` bytes from `buffer`; returns how many were written.
    public func write(from buffer: UnsafeRawPointer, count: Int) throws(SystemCallError) -> Int {
        try retryingInterrupts("write") { Glibc.write(rawValue, buffer, count) }
    }

    /// Writes all of `bytes`, in as many calls as the kernel takes (a short
    /// write goes on where it stopped); `path` names the file in an error.
    public func write(all bytes: [UInt8], path: String? = nil) throws(SystemCallError) {
        // (A Result: `withUnsafeBytes` does not carry a typed throw on Swift 6.0.)
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(SystemCallError) in try writeAll(buffer, to: rawValue, path: path) }
        }.get()
    }

    /// Reads one fixed-size record (a timer's expiry count, a `signalfd_siginfo`):
    /// false when none was read (none waiting on a non-blocking descriptor, or a failure).
    public func readRecord<Record>(_ type: Record.Type, into record: inout Record) -> Bool {
        withUnsafeMutableBytes(of: &record) { bytes in
            (try? read(into: bytes.baseAddress!, count: bytes.count)) == bytes.count
        }
    }
}

/// What a ``FileDescriptor`` runs just before it closes.
final class CloseHook {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

/// Writes all of `buffer` to `descriptor` (one this code does not own: a
/// download's temporary, reached from libcurl's callback), in as many
/// calls as the kernel takes; `path` names the file in an error.
public func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32, path: String? = nil) throws(SystemCallError) {
    var written = 0
    while written < buffer.count {
        written += try retryingInterrupts("write", path: path) {
            Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
        }
    }
}
