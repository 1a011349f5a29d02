#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The text of an errno, e.g. "No such file or directory (errno 2)".
func errnoDescription(_ code: Int32) -> String {
    "\(String(cString: strerror(code))) (errno \(code))"
}

/// Reads a whole file. The corresponding C calls are `open`, `fstat`, `read`.
/// Files above `limit` bytes are refused before anything is allocated.
public func readWholeFile(_ path: String, limit: Int) throws(ImageFileError) -> [UInt8] {
    // O_NONBLOCK: a FIFO swapped in for a photo must not hang the decoder
    // in open(); it is then refused as not a regular file.
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else { throw ImageFileError(path: path, reason: .system(call: "open", errno: errno)) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw ImageFileError(path: path, reason: .system(call: "fstat", errno: errno)) }
    guard (info.st_mode & S_IFMT) == S_IFREG else { throw ImageFileError(path: path, reason: .notARegularFile) }
    let size = Int(info.st_size)
    guard size <= limit else { throw ImageFileError(path: path, reason: .fileTooLarge(bytes: size)) }
    var bytes = [UInt8](repeating: 0, count: size)
    var filled = 0
    while filled < size {
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, size - filled) }
        if n < 0 {
            if errno == EINTR { continue }
            throw ImageFileError(path: path, reason: .system(call: "read", errno: errno))
        }
        if n == 0 { break }   // the file shrank while we read it: decode what is there
        filled += n
    }
    bytes.removeLast(size - filled)
    return bytes
}

/// Writes a whole file, replacing it atomically (write to a temporary, rename).
public func writeWholeFile(_ path: String, bytes: [UInt8]) throws(ImageFileError) {
    let temporary = path + ".partial"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw ImageFileError(path: path, reason: .system(call: "open", errno: errno)) }
    var written = 0
    while written < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
        if n < 0 {
            if errno == EINTR { continue }
            let code = errno
            close(fd)
            unlink(temporary)
            throw ImageFileError(path: path, reason: .system(call: "write", errno: code))
        }
        written += n
    }
    guard close(fd) == 0 else { throw ImageFileError(path: path, reason: .system(call: "close", errno: errno)) }
    guard rename(temporary, path) == 0 else {
        let code = errno
        unlink(temporary)
        throw ImageFileError(path: path, reason: .system(call: "rename", errno: code))
    }
}
