import SystemCalls
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads a whole file. The corresponding C calls are `open`, `fstat`, `read`.
/// Files above `limit` bytes are refused before anything is allocated.
public func readWholeFile(_ path: String, limit: Int) throws(ImageFileError) -> [UInt8] {
    let file = try openRegularFile(path, limit: limit)
    let size = Int(try status(of: file, path: path).st_size)
    var bytes = [UInt8](repeating: 0, count: size)
    let filled = try about(path) { () throws(SystemCallError) in
        try bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(SystemCallError) in
                var filled = 0
                while filled < size {
                    let n = try file.read(into: buffer.baseAddress! + filled, count: size - filled)
                    if n == 0 { break }   // the file shrank while we read it: decode what is there
                    filled += n
                }
                return filled
            }
        }.get()
    }
    bytes.removeLast(size - filled)
    return bytes
}

/// Opens `path` for reading: refused if it is not a regular file or is
/// larger than `limit` bytes.
public func openRegularFile(_ path: String, limit: Int) throws(ImageFileError) -> FileDescriptor {
    // O_NONBLOCK: a FIFO swapped in for a photo must not hang the decoder
    // in open(); it is then refused as not a regular file.
    let file = try about(path) { () throws(SystemCallError) in try FileDescriptor(opening: path, flags: O_RDONLY | O_NONBLOCK) }
    let info = try status(of: file, path: path)
    guard (info.st_mode & S_IFMT) == S_IFREG else { throw ImageFileError(path: path, reason: .notARegularFile) }
    guard Int(info.st_size) <= limit else { throw ImageFileError(path: path, reason: .fileTooLarge(bytes: Int(info.st_size))) }
    return file
}

/// `fstat` of the open `file`.
func status(of file: borrowing FileDescriptor, path: String) throws(ImageFileError) -> stat {
    var info = stat()
    try about(path) { () throws(SystemCallError) in try retryingInterrupts("fstat") { fstat(file.rawValue, &info) } }
    return info
}

/// Reads at most the first `count` bytes of the open `file`, without moving its offset.
public func readFileStart(_ file: borrowing FileDescriptor, path: String, count: Int) throws(ImageFileError) -> [UInt8] {
    try readFilePart(file, path: path, at: 0, count: count)
}

/// Reads at most `count` bytes of the open `file` from `offset`, without moving its offset.
public func readFilePart(_ file: borrowing FileDescriptor, path: String, at offset: Int, count: Int) throws(ImageFileError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    let read = try about(path) { () throws(SystemCallError) in
        try bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(SystemCallError) in try retryingInterrupts("pread") { pread(file.rawValue, buffer.baseAddress!, count, off_t(offset)) } }
        }.get()
    }
    bytes.removeLast(count - read)
    return bytes
}

/// Reads at most the first `count` bytes of a file (to tell its format).
public func readFileStart(_ path: String, count: Int) throws(ImageFileError) -> [UInt8] {
    let file = try about(path) { () throws(SystemCallError) in try FileDescriptor(opening: path, flags: O_RDONLY | O_NONBLOCK) }
    var bytes = [UInt8](repeating: 0, count: count)
    let read = (try? bytes.withUnsafeMutableBytes { buffer throws(SystemCallError) in try file.read(into: buffer.baseAddress!, count: count) }) ?? 0
    bytes.removeLast(count - max(0, read))
    return bytes
}

/// Writes a whole file, replacing it atomically (``AtomicFile``: a
/// hidden temporary, `fsync`, rename, the folder flushed).
public func writeWholeFile(_ path: String, bytes: [UInt8]) throws(ImageFileError) {
    do { try AtomicFile.write(bytes, to: path) } catch { throw ImageFileError(error, path: path) }
}

/// Runs system calls on the file at `path`, their failure reported as the file's.
@discardableResult
private func about<Result: ~Copyable>(
    _ path: String, _ body: () throws(SystemCallError) -> Result
) throws(ImageFileError) -> Result {
    do { return try body() } catch { throw ImageFileError(error, path: path) }
}
