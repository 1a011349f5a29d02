#if canImport(Glibc)
import Glibc
#endif

/// A secret (a broker's or a server's password) kept in a file, never in
/// the config: its first line. A bare name is a systemd credential, looked
/// up in `$CREDENTIALS_DIRECTORY` (filled by `LoadCredential=`). What it
/// holds is never logged; only the file's path is. Beside ``readWholeFile(_:limit:)``,
/// which reads it: kioskd's servers' passwords and kioskd-web's password hash share it.
public enum CredentialFile {
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    /// The first line of `file`.
    public static func firstLine(of file: String) throws(Problem) -> String {
        var path = file
        if !file.contains("/") {
            guard let directory = getenv("CREDENTIALS_DIRECTORY").map({ String(cString: $0) }) else {
                throw Problem(description: "the password file \"\(file)\" is a credential's name, but systemd gave kioskd no credentials (LoadCredential=\(file):...)")
            }
            path = directory + "/" + file
        }
        let bytes: [UInt8]
        do { bytes = try readWholeFile(path, limit: 4096) } catch {
            throw Problem(description: "cannot read the password file \(path): \(error.why)")
        }
        let line = bytes.prefix { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }
        guard let password = String(validating: line, as: UTF8.self) else {
            throw Problem(description: "the password file \(path) is not UTF-8 text")
        }
        return password
    }
}
