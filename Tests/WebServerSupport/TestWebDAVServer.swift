import Foundation
import LoopbackSupport
#if canImport(Glibc)
import Glibc
#endif

/// A real WebDAV server: Debian's Apache with mod_dav, on a free loopback
/// port, serving a folder of the test's own at `/photos/`, stopped when the
/// test ends. Files are put in ``files`` directly (as a person would copy
/// them to a NAS); the server lists them with its own ETags.
///
/// It runs as one process (`-X`), its threads as `nobody`: the folder is
/// made readable, and its lock folder writable, by all.
public final class TestWebDAVServer {
    public let port: Int
    /// Where its config, logs and served files live.
    public let folder: String
    /// The folder served at `/photos/`.
    public var files: String { folder + "/photos" }
    /// The library's address.
    public var url: String { (tls == nil ? "http" : "https") + "://127.0.0.1:\(port)/photos/" }
    /// Its certificate and key (PEM), when it speaks https.
    public let tls: (certificate: String, key: String)?
    /// The user and password it asks for, if any.
    public let credentials: (username: String, password: String)?
    private var process: Process?
    private var config: String { folder + "/httpd.conf" }

    public struct ServerFailure: Error, CustomStringConvertible {
        public let description: String
    }

    /// `credentials`: Basic authentication, with that one user; `extra`:
    /// more lines of its config (a redirect), given the server's folder.
    public init(
        credentials: (username: String, password: String)? = nil, tls: (certificate: String, key: String)? = nil,
        extra: (String) -> String = { _ in "" }
    ) throws {
        port = try LoopbackPort.free()
        self.credentials = credentials
        self.tls = tls
        folder = NSTemporaryDirectory() + "kioskd-webdav-\(getpid())-\(port)"
        for made in [folder, folder + "/photos", folder + "/lock"] {
            try FileManager.default.createDirectory(atPath: made, withIntermediateDirectories: true)
            chmod(made, 0o777)
        }
        let modules = "/usr/lib/apache2/modules"
        var access = "Require all granted"
        var loaded = ["mpm_event", "authz_core", "authn_core", "alias", "dav", "dav_fs"]
        var ssl = ""
        if let tls {
            loaded += ["socache_shmcb", "ssl"]
            ssl = "SSLEngine on\nSSLCertificateFile \"\(tls.certificate)\"\nSSLCertificateKeyFile \"\(tls.key)\""
        }
        if let credentials {
            loaded += ["auth_basic", "authn_file", "authz_user"]
            let hash = try Self.run("/usr/bin/htpasswd", ["-nbB", credentials.username, credentials.password])
            try hash.write(toFile: folder + "/users", atomically: true, encoding: .utf8)
            chmod(folder + "/users", 0o644)
            access = "AuthType Basic\n    AuthName photos\n    AuthBasicProvider file\n    AuthUserFile \"\(folder)/users\"\n    Require valid-user"
        }
        let lines = """
            ServerRoot "\(folder)"
            ServerName 127.0.0.1
            Listen 127.0.0.1:\(port)
            PidFile "\(folder)/apache2.pid"
            DefaultRuntimeDir "\(folder)"
            ErrorLog "\(folder)/error.log"
            LogLevel warn
            User nobody
            Group nogroup
            \(loaded.map { "LoadModule \($0)_module \(modules)/mod_\($0).so" }.joined(separator: "\n"))
            \(ssl)
            DavLockDB "\(folder)/lock/DavLock"
            Alias /photos "\(folder)/photos"
            <Directory "\(folder)/photos">
                Dav On
                \(access)
            </Directory>
            \(extra(folder))

            """
        try lines.write(toFile: config, atomically: true, encoding: .utf8)
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Starts it (again, on the same port), answering within 30 s.
    public func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/apache2")
        // -X: one process, no workers of its own, so a kill stops all of it at once.
        process.arguments = ["-f", config, "-X"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(30)
        while !LoopbackPort.accepts(port) {
            guard Date() < deadline, process.isRunning else {
                let log = (try? String(contentsOfFile: folder + "/error.log", encoding: .utf8)) ?? ""
                throw ServerFailure(description: "apache2 did not listen on port \(port): \(log)")
            }
            usleep(5_000)
        }
    }

    /// Stops it at once, as a crash or a cut cable would.
    public func stop() {
        guard let process else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    /// Writes a file the server then serves (`name` under `/photos/`), readable by its workers.
    @discardableResult
    public func put(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = files + "/" + name
        let parent = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        chmod(parent, 0o777)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o644)
        return path
    }

    private static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ServerFailure(description: "\(tool) failed") }
        return String(decoding: data, as: UTF8.self)
    }
}
