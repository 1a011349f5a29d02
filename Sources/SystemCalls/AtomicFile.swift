#if canImport(Glibc)
import Glibc
#endif

/// Writes whole files so that whoever reads one (a person, the live
/// folder's watch, kioskd after a power cut) finds the old file or the new
/// one, never part of either: the bytes go to a hidden temporary file in
/// the same folder, are flushed to the disk (`fsync`), and the temporary
/// is renamed over the file; then the folder itself is flushed, so the
/// rename survives a power cut too. picframe's users lost frames to half
/// written files (its #748); kioskd's resume file, snapshots, and (next)
/// its cache of a server's photos are written this way.
///
/// The temporary is named `.<name>.partial-<pid>`: hidden, so the picture
/// folder's watch never shows it (``PictureFiles``' rule for dot files),
/// and one per process. On any failure (a full disk, a folder that cannot
/// be written) it is removed, the file is left as it was, and the error
/// says which call failed.
public enum AtomicFile {
    /// Replaces the file at `path` with `bytes` (made with `mode` when new;
    /// the umask applies).
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws(SystemCallError) {
        do {
            try write(to: path, mode: mode) { (file) throws(SystemCallError) in try file.write(all: bytes, path: path) }
        } catch {
            switch error {
            case .system(let failure), .filling(let failure): throw failure
            }
        }
    }

    /// Replaces the file at `path` with what `fill` writes into the
    /// temporary (a download, as it arrives). When `fill` throws, or any
    /// step after it fails, the temporary is removed and the file is left
    /// as it was.
    public static func write<FillFailure: Error>(
        to path: String, mode: mode_t = 0o644, _ fill: (borrowing FileDescriptor) throws(FillFailure) -> Void
    ) throws(Failure<FillFailure>) {
        let temporary = Self.temporary(for: path)
        do throws(Failure<FillFailure>) {
            let file = try open(temporary, mode: mode, failing: FillFailure.self)
            do { try fill(file) } catch { throw Failure<FillFailure>.filling(error) }
            do {
                try retryingInterrupts("fsync", path: path) { fsync(file.rawValue) }
                // A failed close can mean the data never reached the disk (NFS, a full USB stick).
                try file.close()
                try retryingInterrupts("rename", path: path) { rename(temporary, path) }
            } catch {
                throw Failure<FillFailure>.system(error)
            }
        } catch {
            unlink(temporary)
            throw error
        }
        do { try flush(folder: split(path).folder) } catch { throw .system(error) }
    }

    /// The temporary, opened to be written.
    private static func open<FillFailure: Error>(
        _ temporary: String, mode: mode_t, failing: FillFailure.Type
    ) throws(Failure<FillFailure>) -> FileDescriptor {
        do { return try FileDescriptor(opening: temporary, flags: O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: mode) } catch {
            throw .system(error)
        }
    }

    /// Why a ``write(to:mode:_:)`` failed: a call it made, or what filled the file.
    public enum Failure<FillFailure: Error>: Error {
        case system(SystemCallError)
        case filling(FillFailure)
    }

    /// The temporary file a write to `path` by this process uses.
    public static func temporary(for path: String) -> String {
        let (folder, name) = split(path)
        return folder + "/." + name + ".partial-\(getpid())"
    }

    /// Flushes `folder`'s own entries (a rename in it) to the disk.
    public static func flush(folder: String) throws(SystemCallError) {
        let directory = try FileDescriptor(opening: folder, flags: O_RDONLY | O_DIRECTORY)
        // Some file systems cannot flush a folder (EINVAL): the rename is as safe as they make it.
        if fsync(directory.rawValue) != 0, errno != EINVAL { throw .last("fsync", path: folder) }
    }

    /// The folder a path is in, and its name there.
    private static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = path[..<slash]
        return (folder.isEmpty ? "/" : String(folder), String(path[path.index(after: slash)...]))
    }
}
