import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The file in the state directory that holds the centred picture's path
/// (one line), to resume on after a restart: `STATE_DIR/centred-picture`.
/// Written whole or not at all (``AtomicFile``): a hidden file beside it,
/// synced, then renamed over it, so a power cut leaves the old name or the
/// new, never half.
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
        try AtomicFile.write(Array((picture + "\n").utf8), to: path)
    }
}
