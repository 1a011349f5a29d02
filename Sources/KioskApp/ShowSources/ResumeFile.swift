import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The file in the state directory that holds the centred picture's path
/// (one line), to resume on after a restart: `STATE_DIR/centred-picture`.
/// Written whole or not at all: a new file beside it, synced, then renamed
/// over it, so a power cut leaves the old name or the new, never half.
struct ResumeFile {
    let directory: String
    var path: String { directory + "/centred-picture" }

    /// Makes the directory if it is missing (a run by hand; the service's
    /// `StateDirectory=` makes it otherwise). A failure shows at the first write.
    func makeDirectory() { _ = mkdir(directory, 0o755) }

    /// The path it holds; nil when there is none (the first start) or it cannot be read.
    func read() -> String? {
        guard let descriptor = try? FileDescriptor(opening: path, flags: O_RDONLY) else { return nil }
        var bytes = [UInt8](repeating: 0, count: 4097)
        let count = bytes.withUnsafeMutableBytes { (try? descriptor.read(into: $0.baseAddress!, count: $0.count)) ?? -1 }
        guard count > 0, count < bytes.count else { return nil }
        let text = String(decoding: bytes.prefix(count), as: UTF8.self)
        guard text.hasSuffix("\n") else { return nil }
        let line = String(text.dropLast())
        return line.isEmpty || line.contains("\n") ? nil : line
    }

    /// Writes `picture` in place of what the file held.
    func write(_ picture: String) throws(SystemCallError) {
        let temporary = path + ".new"
        let descriptor = try FileDescriptor(opening: temporary, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644)
        let bytes = Array((picture + "\n").utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor.rawValue, $0.baseAddress!, $0.count) }
        guard written == bytes.count else { throw SystemCallError.last("write", path: temporary) }
        guard fsync(descriptor.rawValue) == 0 else { throw SystemCallError.last("fsync", path: temporary) }
        try descriptor.close()
        guard rename(temporary, path) == 0 else { throw SystemCallError.last("rename", path: path) }
    }
}
