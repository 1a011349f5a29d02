/// What a server library's mirror holds: for each file fetched, its
/// version (ETag and size) as it was fetched, and the address the mirror
/// is of. Kept in the mirror's folder as a hidden file (the live folder
/// never shows it), written whole and atomically after each round of
/// fetches.
///
/// The format is versioned: text, one line each,
/// ```
/// kioskd-mirror 1
/// source https://cloud.example/remote.php/dav/files/anna/Photos/
/// 2481733<TAB>9c1f5e0b8d2a7f31<TAB>2024/summer/IMG_0001.jpg
/// ```
/// (size, the ETag's hash in hex or `-` for none, path). An index of
/// another version, of another address, or one that does not read whole,
/// is not misread: the library starts a fresh mirror (``read(_:source:)``
/// gives nil). Paths never hold a tab or a newline: ``RemotePath`` refuses
/// control characters.
public struct MirrorIndex: Equatable, Sendable {
    public static let format = "kioskd-mirror"
    public static let version = 1

    /// The address the mirror is of.
    public var source: String
    /// Each file's version as fetched, by its relative path.
    public var files: [String: FileVersion]

    public init(source: String, files: [String: FileVersion] = [:]) {
        self.source = source
        self.files = files
    }

    /// The index as its file holds it.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + files.count * 64)
        bytes.append(contentsOf: "\(Self.format) \(Self.version)\nsource \(source)\n".utf8)
        for path in files.keys.sorted() {
            let version = files[path]!
            bytes.append(contentsOf: "\(version.size)\t\(version.etagHash.map { String($0, radix: 16) } ?? "-")\t\(path)\n".utf8)
        }
        return bytes
    }

    /// The index in `bytes`, if it is one of this version and of `source`; nil otherwise.
    public static func read(_ bytes: [UInt8], source: String) -> MirrorIndex? {
        guard let text = String(validating: bytes, as: UTF8.self), text.hasSuffix("\n") else { return nil }
        var lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().makeIterator()
        guard let header = lines.next(), Substring(header) == "\(format) \(version)",
              let sourceLine = lines.next(), Substring(sourceLine) == "source \(source)" else { return nil }
        var files: [String: FileVersion] = [:]
        while let line = lines.next() {
            let fields = line.split(separator: UInt8(ascii: "\t"), maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, let size = Int64(Substring(fields[0])), size >= 0, !fields[1].isEmpty, !fields[2].isEmpty else {
                return nil
            }
            let etag = Substring(fields[1])
            let hash = etag == "-" ? nil : UInt64(etag, radix: 16)
            guard etag == "-" || hash != nil else { return nil }
            files[String(Substring(fields[2]))] = FileVersion(etagHash: hash, size: size)
        }
        return MirrorIndex(source: source, files: files)
    }
}
