#if canImport(Glibc)
import Glibc
#endif

/// A system call that failed: which call, its errno, and the file or device
/// it was about, if any. Every libc and kernel call in kioskd reports
/// failure with this one type, so a log line always reads the same way:
/// `/dev/dri/card0: open failed: Permission denied (errno 13)`.
public struct SystemCallError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The C function, as its man page names it (`epoll_ctl`, `open`).
    public let call: String
    public let errno: Int32
    /// The path or device the call was about.
    public let path: String?

    public init(_ call: String, errno: Int32, path: String? = nil) {
        self.call = call
        self.errno = errno
        self.path = path
    }

    /// The failure without the path: `open failed: No such file or directory (errno 2)`.
    public var reason: String { "\(call) failed: \(Self.describe(errno))" }

    public var description: String { path.map { "\($0): \(reason)" } ?? reason }

    /// The text of an errno, e.g. "No such file or directory (errno 2)".
    public static func describe(_ code: Int32) -> String { "\(String(cString: strerror(code))) (errno \(code))" }

    /// The error for the call that just failed, from the thread's `errno`.
    public static func last(_ call: String, path: String? = nil) -> SystemCallError {
        SystemCallError(call, errno: Glibc.errno, path: path)
    }
}

/// Runs a system call that returns -1 and sets `errno` on failure, again
/// while it is interrupted by a signal (`EINTR`), and throws any other
/// failure as a ``SystemCallError`` naming `call` (``valueOrErrno(retryOnInterrupt:_:)``).
@discardableResult
public func retryingInterrupts<Result: BinaryInteger>(
    _ call: String, path: String? = nil, _ body: () -> Result
) throws(SystemCallError) -> Result {
    switch valueOrErrno(body) {
    case .success(let value): return value
    case .failure(let failure): throw SystemCallError(call, errno: failure.rawValue, path: path)
    }
}
