import ImageCodecs
import SystemCalls

/// The page's files (HTML, CSS, JavaScript, read once at start from the
/// page folder): small, so they are served from memory. Only files named in
/// ``contentTypes`` by their extension are read; nothing below the folder.
struct PageFiles {
    struct File {
        let bytes: [UInt8]
        let contentType: String
    }

    static let contentTypes = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png", "ico": "image/x-icon",
    ]
    /// The files served before logging in: the login page and its style.
    static let beforeLogin = ["login.html", "kiosk.css", "favicon.svg"]

    private(set) var files: [String: File] = [:]

    init(folder: String) throws(PageFilesError) {
        let names: [String]
        do { names = try directoryEntryNames(folder).map { String(decoding: $0, as: UTF8.self) } } catch { throw PageFilesError("cannot read the page's folder \(folder): \(error)") }
        for name in names where !name.hasPrefix(".") {
            guard let dot = name.lastIndex(of: "."), let type = Self.contentTypes[String(name[name.index(after: dot)...])] else { continue }
            do { files[name] = File(bytes: try readWholeFile(folder + "/" + name, limit: 1 << 20), contentType: type) } catch {
                throw PageFilesError("cannot read the page's file \(folder)/\(name): \(error)")
            }
        }
        for needed in ["index.html", "login.html"] where files[needed] == nil {
            throw PageFilesError("the page's folder \(folder) has no \(needed)")
        }
    }

    subscript(name: String) -> File? { files[name] }

    /// The whole page's weight: every file, uncompressed.
    var totalBytes: Int { files.values.reduce(0) { $0 + $1.bytes.count } }
}

struct PageFilesError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
