#if canImport(Glibc)
import Glibc
#endif

/// An `errno` value by name, as swift-system's `Errno`: the failures
/// kioskd tells apart are compared by these names, never by raw numbers.
public struct Errno: RawRepresentable, Error, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }
    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno` now (right after the call that failed).
    public static var current: Errno { Errno(Glibc.errno) }

    /// `EINTR`: a signal interrupted the call before it did anything.
    public static let interrupted = Errno(EINTR)
    /// `EAGAIN`: a non-blocking descriptor has nothing now.
    public static let wouldBlock = Errno(EAGAIN)
    /// `ENOENT`
    public static let noSuchFileOrDirectory = Errno(ENOENT)
    /// `ENOTDIR`
    public static let notDirectory = Errno(ENOTDIR)
    /// `EEXIST`
    public static let fileExists = Errno(EEXIST)
    /// `EPERM`
    public static let notPermitted = Errno(EPERM)
    /// `EACCES`
    public static let permissionDenied = Errno(EACCES)
    /// `EBUSY`
    public static let resourceBusy = Errno(EBUSY)
    /// `EADDRINUSE`
    public static let addressInUse = Errno(EADDRINUSE)
    /// `ECONNREFUSED`: nothing listens on the socket.
    public static let connectionRefused = Errno(ECONNREFUSED)
    /// `ECONNRESET`
    public static let connectionReset = Errno(ECONNRESET)
    /// `ECONNABORTED`: a connection went before it was accepted.
    public static let connectionAborted = Errno(ECONNABORTED)
    /// `EPIPE`: the other end is gone.
    public static let brokenPipe = Errno(EPIPE)
    /// `ENOSPC` (also the inotify watch limit).
    public static let noSpace = Errno(ENOSPC)
    /// `ECANCELED` (a wall-clock timer when the clock was set).
    public static let canceled = Errno(ECANCELED)
    /// `ENOBUFS` (a netlink socket's queue overflowed).
    public static let noBufferSpace = Errno(ENOBUFS)
    /// `EMFILE`, `ENFILE`: out of descriptors, for the process or the system.
    public static let tooManyOpenFiles = Errno(EMFILE)
    public static let tooManyOpenFilesInSystem = Errno(ENFILE)
    /// `ENOMEM`
    public static let noMemory = Errno(ENOMEM)
    /// `EINVAL`: an argument the kernel refuses (a CRTC without `page_flip`, another process DRM master).
    public static let invalidArgument = Errno(EINVAL)
    /// `ENOSYS`: the driver does not implement the call.
    public static let notImplemented = Errno(ENOSYS)
    /// `ENOTSUP`: the operation is not supported here.
    public static let notSupported = Errno(ENOTSUP)
    /// `ENODEV`: the device is gone (a display unplugged).
    public static let noDevice = Errno(ENODEV)

    /// "No such file or directory (errno 2)".
    public var description: String { SystemCallError.describe(rawValue) }
}

extension SystemCallError {
    /// The failure's `errno` by name.
    public var code: Errno { Errno(errno) }
}

/// Runs a system call that returns -1 and sets `errno` on failure: its
/// result, or its `errno`. With `retryOnInterrupt` (the default, as
/// swift-system's calls) it runs again while a signal interrupts it
/// (`EINTR`); without, the interruption is returned like any failure (a
/// wait that must come back to its loop). Every retry of an interrupted
/// call in kioskd happens here.
public func valueOrErrno<Value: BinaryInteger>(retryOnInterrupt: Bool = true, _ body: () -> Value) -> Result<Value, Errno> {
    while true {
        let result = body()
        if result != -1 { return .success(result) }
        let failure = Errno.current
        if failure == .interrupted && retryOnInterrupt { continue }
        return .failure(failure)
    }
}
