import CSodium

/// Argon2id password hashes (libsodium's `crypto_pwhash_str`), made and
/// checked with libsodium's interactive limits: 2 passes over 64 MiB, which
/// is what one login costs in memory (freed when the check returns).
public enum PasswordHash {
    /// Passes over the memory (`t` in the hash string).
    public static var operationsLimit: Int { Int(crypto_pwhash_opslimit_interactive()) }
    /// Bytes of memory one hash takes (`m`, in KiB, in the hash string).
    public static var memoryLimit: Int { Int(crypto_pwhash_memlimit_interactive()) }

    /// The hash string of `password`: `$argon2id$v=19$m=65536,t=2,p=1$` and a random salt and the hash.
    public static func make(_ password: [UInt8]) throws(PasswordHashError) -> String {
        try ready()
        var out = [CChar](repeating: 0, count: Int(crypto_pwhash_strbytes()))
        let made = withCharacters(password) { crypto_pwhash_str(&out, $0, $1, UInt64(operationsLimit), memoryLimit) }
        guard made == 0 else { throw PasswordHashError("cannot make the hash: \(memoryLimit >> 20) MiB could not be had") }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` is the one `hash` was made from.
    public static func matches(_ password: [UInt8], hash: String) -> Bool {
        guard (try? ready()) != nil, hash.utf8.count < Int(crypto_pwhash_strbytes()) else { return false }
        return withCharacters(password) { crypto_pwhash_str_verify(hash, $0, $1) == 0 }
    }

    /// Whether `hash` is a hash string libsodium can check (whatever its limits).
    public static func isWellFormed(_ hash: String) -> Bool {
        guard (try? ready()) != nil, hash.utf8.count < Int(crypto_pwhash_strbytes()) else { return false }
        return crypto_pwhash_str_needs_rehash(hash, UInt64(operationsLimit), memoryLimit) != -1
    }

    /// `bytes` as C characters and their count (an empty password has an address too).
    private static func withCharacters<Result>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>, UInt64) -> Result) -> Result {
        (bytes + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!, UInt64(bytes.count)) }
        }
    }

    private static let initialised = sodium_init() >= 0
    private static func ready() throws(PasswordHashError) {
        guard initialised else { throw PasswordHashError("libsodium cannot start (sodium_init failed)") }
    }
}

public struct PasswordHashError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Unguessable tokens (sessions, CSRF): random bytes from the kernel
/// (libsodium's `randombytes_buf`), written as base64url without padding,
/// which is safe in a cookie and a header as it is.
public enum RandomToken {
    public static func make(bytes count: Int = 32) -> String {
        _ = sodium_init()
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        let variant = Int32(sodium_base64_VARIANT_URLSAFE_NO_PADDING)
        var out = [CChar](repeating: 0, count: sodium_base64_encoded_len(count, variant))
        _ = sodium_bin2base64(&out, out.count, bytes, count, variant)
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `a` and `b` are the same, in a time that does not depend on where they differ.
    public static func same(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8), right = Array(b.utf8)
        guard left.count == right.count else { return false }
        return sodium_memcmp(left, right, left.count) == 0
    }
}
