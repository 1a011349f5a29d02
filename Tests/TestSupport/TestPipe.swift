import Glibc

/// Marks test descriptors close-on-exec: tests start daemons from other
/// threads, and a pipe's end a daemon inherits would never report its end.
public func closeOnExec(_ fds: [Int32]) { for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) } }

/// A pipe whose ends close with it, each exactly once: tests run in
/// parallel, and closing a number twice could close another test's fd.
public final class TestPipe {
    public let read: Int32, write: Int32
    private var closed = false
    private var writeClosed = false
    public init() {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0)
        closeOnExec(fds)
        (read, write) = (fds[0], fds[1])
        for fd in fds { _ = fcntl(fd, F_SETFL, O_NONBLOCK) }
    }
    public func send() { var byte: UInt8 = 1; _ = Glibc.write(write, &byte, 1) }
    public func drain() { var buffer = [UInt8](repeating: 0, count: 64); _ = Glibc.read(read, &buffer, 64) }
    public func closeWriteEnd() { if !writeClosed { Glibc.close(write); writeClosed = true } }
    public func closeBoth() {
        guard !closed else { return }
        Glibc.close(read)
        closeWriteEnd()
        closed = true
    }
    deinit { closeBoth() }
}
