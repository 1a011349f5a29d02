/// The name an uploaded file gets in the picture folder, from the name the
/// browser sent: only its last part (so `../` and `C:\` never leave the
/// folder), without control characters, slashes or leading dots (no hidden
/// file, no `..`), at most ``maximumBytes`` bytes with its extension kept.
/// A name already taken gets ` (2)`, ` (3)`, ... before its extension, as a
/// desktop's file manager does: two phones both have an `IMG_0001.JPG`.
public enum UploadName {
    /// Well under the 255 bytes of a file name, leaving room for ` (99)` and a hidden temporary prefix.
    public static let maximumBytes = 200

    /// The cleaned name, or nil when nothing of it is left.
    public static func cleaned(_ sent: String) -> String? {
        let last = sent.split(omittingEmptySubsequences: true) { $0 == "/" || $0 == "\\" }.last ?? ""
        var name = String(String.UnicodeScalarView(last.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
        while let first = name.first, first == "." || first == " " { name.removeFirst() }
        while let final = name.last, final == " " || final == "." { name.removeLast() }
        guard !name.isEmpty else { return nil }
        guard name.utf8.count > maximumBytes else { return name }
        let (stem, suffix) = split(name)
        let keep = max(1, maximumBytes - suffix.utf8.count)
        var shortened = ""
        for character in stem {
            guard shortened.utf8.count + character.utf8.count <= keep else { break }
            shortened.append(character)
        }
        return shortened.isEmpty ? nil : shortened + suffix
    }

    /// The `n`th name to try for `name` (n ≥ 2): `IMG_0001 (2).JPG`.
    public static func alternative(_ name: String, _ n: Int) -> String {
        let (stem, suffix) = split(name)
        return "\(stem) (\(n))\(suffix)"
    }

    /// The name's extension in lower case, without the dot (`jpg`), or "".
    public static func fileExtension(of name: String) -> String {
        let suffix = split(name).suffix
        return suffix.isEmpty ? "" : String(suffix.dropFirst()).lowercased()
    }

    /// The name before its extension, and the extension with its dot.
    private static func split(_ name: String) -> (stem: String, suffix: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex, name.distance(from: dot, to: name.endIndex) <= 10 else { return (name, "") }
        return (String(name[..<dot]), String(name[dot...]))
    }
}

/// The first line of `web.password_file`: an Argon2id hash string
/// (`$argon2id$v=19$m=65536,t=2,p=1$...`), never a password itself.
public enum WebPasswordLine {
    /// The hash the file's text holds, or why it is refused.
    public static func hash(in text: String, file: String) -> Result<String, WebPasswordProblem> {
        let line = String(text.split(maxSplits: 1, omittingEmptySubsequences: false, whereSeparator: \.isNewline).first ?? "")
            .trimmingSuffix(while: { $0 == " " || $0 == "\t" })
        guard !line.isEmpty else { return .failure(WebPasswordProblem("\(file) is empty: \(howToMake)")) }
        guard line.hasPrefix("$argon2id$") else {
            return .failure(WebPasswordProblem("\(file) does not hold an Argon2id hash (a password is never kept in plain text): \(howToMake)"))
        }
        return .success(line)
    }

    public static let howToMake = "make it with `kioskd-web hash-password > FILE`, typing the password on its standard input"
}

public struct WebPasswordProblem: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension String {
    fileprivate func trimmingSuffix(while drop: (Character) -> Bool) -> String {
        var text = self
        while let last = text.last, drop(last) { text.removeLast() }
        return text
    }
}

/// A picture's path within the picture folder, as `pictures` gives it
/// (`2024/beach.jpg`), checked before the web page deletes it: relative,
/// each part a plain name (no `..`, no `.`, no hidden file or folder, no
/// control character), at most 4,096 bytes. Nothing that passes can name
/// a file outside the folder by its spelling; the remover also refuses to
/// follow a symbolic link on the way (``PictureRemover``).
public enum FolderPicturePath {
    /// The path's parts, or why it is refused. Split on the byte `/`, not
    /// on characters: a `/` followed by a combining mark is one character
    /// to Swift but a separator to the kernel.
    public static func parts(of path: String) -> Result<[String], FolderPicturePathError> {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= 4096 else { return .failure(.init("a picture's name is 1 to 4,096 bytes")) }
        guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return .failure(.init("a picture's name has no control characters")) }
        guard bytes[0] != UInt8(ascii: "/") else { return .failure(.init("a picture is named within the picture folder, not from /")) }
        let parts = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for part in parts {
            guard !part.isEmpty else { return .failure(.init("\"\(path)\" has an empty part (//, or a / at the end)")) }
            guard part.first != UInt8(ascii: ".") else { return .failure(.init("\"\(path)\" goes outside the picture folder or into a hidden file")) }
            guard part.count <= 255 else { return .failure(.init("a part of \"\(path)\" is longer than a file name can be")) }
        }
        // Each part of valid UTF-8 cut at an ASCII byte is valid UTF-8 again.
        return .success(parts.map { String(decoding: $0, as: UTF8.self) })
    }
}

public struct FolderPicturePathError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
