import Glibc
import KioskCore
import SystemCalls

/// Deletes a picture from the picture folder for the web page: its path
/// within the folder (`2024/beach.jpg`, as `pictures` names it) is checked
/// by its spelling (``FolderPicturePath``), then walked one folder at a
/// time from the picture folder without following a symbolic link
/// (`O_NOFOLLOW`), so neither `..` nor a link can lead outside it. A
/// folder is never deleted. The folder's watcher sees the file go and
/// kioskd's playlist drops it.
enum PictureRemover {
    struct Failure: Error, CustomStringConvertible {
        /// The answer's status: 400 a name refused, 404 gone already, 409 not a file, 500 the disk refused.
        let status: Int
        let description: String
    }

    static func remove(_ path: String, from folder: String) -> Result<Void, Failure> {
        let parts: [String]
        switch FolderPicturePath.parts(of: path) {
        case .success(let checked): parts = checked
        case .failure(let refusal): return .failure(Failure(status: 400, description: refusal.description))
        }
        var directory: FileDescriptor
        do throws(SystemCallError) { directory = try FileDescriptor(opening: folder, flags: O_RDONLY | O_DIRECTORY) } catch {
            return .failure(Failure(status: 500, description: "the picture folder cannot be opened: \(error)"))
        }
        for part in parts.dropLast() {
            let next = openat(directory.rawValue, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else { return .failure(failure(errno, path)) }
            directory = FileDescriptor(owning: next)
        }
        let name = parts[parts.count - 1]
        var info = stat()
        guard fstatat(directory.rawValue, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return .failure(failure(errno, path)) }
        guard info.st_mode & S_IFMT != S_IFDIR else { return .failure(Failure(status: 409, description: "\(path) is a folder: the page deletes only pictures")) }
        guard unlinkat(directory.rawValue, name, 0) == 0 else { return .failure(failure(errno, path)) }
        // The deletion on the disk, not only in the page cache: a power cut after "deleted" must not bring it back.
        _ = fsync(directory.rawValue)
        return .success(())
    }

    private static func failure(_ code: Int32, _ path: String) -> Failure {
        switch code {
        case ENOENT: Failure(status: 404, description: "\(path) is not in the picture folder (deleted already?)")
        case ELOOP, ENOTDIR: Failure(status: 409, description: "\(path) goes through a link or a file, not a folder: the page deletes only within the picture folder")
        default: Failure(status: 500, description: "\(path) was not deleted: \(SystemCallError.describe(code))")
        }
    }
}
