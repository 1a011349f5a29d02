import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Certificates for a test server at 127.0.0.1, made with `openssl`: a test
/// CA (the kiosk's `ca_file`), a certificate it signed, one it signed that
/// expired in 2020, and one signed by nobody the kiosk trusts.
public final class TestCertificates {
    public let folder: String
    /// The CA a kiosk is told to trust (PEM).
    public var authority: String { folder + "/ca.pem" }
    /// The server's key, which every certificate here is for.
    public var key: String { folder + "/server.key" }
    /// Signed by ``authority``, valid now.
    public var trusted: String { folder + "/trusted.pem" }
    /// Signed by ``authority``, valid only in January 2020.
    public var expired: String { folder + "/expired.pem" }
    /// Signed by itself: no kiosk trusts it.
    public var untrusted: String { folder + "/untrusted.pem" }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public init() throws {
        folder = NSTemporaryDirectory() + "kioskd-certificates-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        chmod(folder, 0o755)
        try "subjectAltName=IP:127.0.0.1\n".write(toFile: folder + "/san.cnf", atomically: true, encoding: .utf8)
        try """
            [ca]
            default_ca = test
            [test]
            database = index.txt
            new_certs_dir = .
            serial = serial
            default_md = sha256
            policy = any
            [any]
            commonName = supplied

            """.write(toFile: folder + "/ca.cnf", atomically: true, encoding: .utf8)
        try "".write(toFile: folder + "/index.txt", atomically: true, encoding: .utf8)
        try "02\n".write(toFile: folder + "/serial", atomically: true, encoding: .utf8)
        try run(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "30", "-subj", "/CN=kioskd test CA"])
        try run(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"])
        try run(["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "1", "-days", "30",
                 "-extfile", "san.cnf", "-out", "trusted.pem"])
        try run(["ca", "-batch", "-config", "ca.cnf", "-cert", "ca.pem", "-keyfile", "ca.key", "-in", "server.csr", "-startdate",
                 "20200101000000Z", "-enddate", "20200201000000Z", "-extfile", "san.cnf", "-out", "expired.pem"])
        try run(["x509", "-req", "-in", "server.csr", "-key", "server.key", "-days", "30", "-extfile", "san.cnf", "-out", "untrusted.pem"])
        for name in ["server.key", "ca.pem", "trusted.pem", "expired.pem", "untrusted.pem"] { chmod(folder + "/" + name, 0o644) }
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    private func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "openssl \(arguments.prefix(2).joined(separator: " ")) failed") }
    }
}
