import KioskCore
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The pictures in a folder, in the order the show plays them.
public struct ImageFolder: Sendable {
    /// The file extensions that are shown (compared without case).
    public static let extensions: Set<String> = ["jpg", "jpeg", "png"]

    public let path: String
    /// Full paths of the pictures, ordered by file name in ``NaturalOrder``:
    /// `IMG_2.jpg` plays before `IMG_10.jpg`, `a.jpg` before `B.jpg`, and
    /// the order never depends on the locale.
    public let pictures: [String]
    /// One line for each entry that is not shown (other files, subfolders).
    /// Names starting with a dot (`.DS_Store`, editor swap files) are passed
    /// over silently.
    public let ignored: [String]

    /// Lists `path` (not recursively). The corresponding C calls are
    /// `opendir`, `readdir` and `stat`.
    public init(listing path: String) throws(ImageFileError) {
        var names: [[UInt8]]
        do { names = try directoryEntryNames(path).filter { $0.first != UInt8(ascii: ".") } } catch { throw ImageFileError(error, path: path) }
        names.sort(by: NaturalOrder.precedes)

        var pictures: [String] = []
        var ignored: [String] = []
        let base = path.hasSuffix("/") ? path : path + "/"
        for rawName in names {
            let name = String(decoding: rawName, as: UTF8.self)
            let full = base + name
            var info = stat()
            // stat follows symlinks: a link to a photo is a photo.
            guard stat(full, &info) == 0 else {
                ignored.append("ignoring \(full): \(SystemCallError.last("stat").reason)")
                continue
            }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                ignored.append("ignoring \(full): subfolders are not searched")
            } else if (info.st_mode & S_IFMT) != S_IFREG {
                ignored.append("ignoring \(full): not a regular file")
            } else if let dot = name.lastIndex(of: "."), Self.extensions.contains(name[name.index(after: dot)...].lowercased()) {
                pictures.append(full)
            } else {
                ignored.append("ignoring \(full): not a .jpg, .jpeg or .png file")
            }
        }
        self.path = path
        self.pictures = pictures
        self.ignored = ignored
    }
}
