import CLinux
import Glibc
import HTTPServer
import ImageCodecs
import KioskConfigFile
import KioskCore
import LinuxPlatform
import PasswordHashing
import SystemCalls

/// kioskd-web's run: its settings read, the page served from its own
/// epoll loop until SIGTERM or SIGINT. It reaches kioskd only through the
/// control socket and writes only into the picture folder.
public enum WebService {
    /// The settings of `configPath`, with what `kioskctl set` kept over it.
    public static func settings(configPath: String?) throws -> KioskSettings {
        var settings = KioskSettings()
        if let configPath {
            let bytes: [UInt8]
            do { bytes = try readWholeFile(configPath, limit: 1 << 20) } catch {
                throw ConfigFile.Error(path: configPath, message: "cannot read the config file: \(error.why)")
            }
            _ = try ConfigFile.apply(bytes, path: configPath, to: &settings)
        }
        // kioskd passes a broken overrides file over whole; so does this.
        if let directory = settings.stateDirectory {
            let path = SettingOverrides.path(inStateDirectory: directory)
            if let bytes = try? readWholeFile(path, limit: 1 << 20) {
                var overridden = settings
                if (try? ConfigFile.apply(bytes, path: path, to: &overridden)) != nil { settings = overridden }
            }
        }
        return settings
    }

    /// Serves until asked to stop; returns the exit status. `log` gets each line.
    public static func run(settings: KioskSettings, pageFolder: String, log: @escaping (String) -> Void) -> Int32 {
        let web = settings.web
        guard let listen = web.listen else {
            log("the page is off: [web] listen is not set")
            return 0
        }
        if let problem = web.problem {
            log(problem)
            return 1
        }
        guard let socket = settings.control.socket else {
            log("kioskd's control socket is \"none\": the page reaches kioskd only through it; give socket a path")
            return 1
        }
        let passwordHash: String
        switch readPasswordHash(web.passwordFile!) {
        case .success(let hash): passwordHash = hash
        case .failure(let problem):
            log(problem.description)
            return 1
        }
        var tls: (certificate: String, key: String)?
        if let certificate = web.tlsCert, let key = web.tlsKey {
            do {
                tls = (String(decoding: try readWholeFile(certificate, limit: 1 << 20), as: UTF8.self),
                       String(decoding: try readWholeFile(key, limit: 1 << 20), as: UTF8.self))
            } catch {
                log("cannot read the page's certificate or key: \(error)")
                return 1
            }
        }
        let page: PageFiles
        do { page = try PageFiles(folder: pageFolder) } catch {
            log("\(error)")
            return 1
        }
        if let folder = settings.images { UploadReceiver.removeLeftovers(in: folder, log: log) }
        signal(SIGPIPE, SIG_IGN)
        blockDaemonSignals()
        do {
            let loop = try EventLoop()
            let events = EventRelay(socket: socket, loop: loop, log: log)
            let thumbnails = try ThumbnailFetcher(socket: socket, loop: loop)
            defer { thumbnails.stop() }
            let app = WebApp(
                configuration: .init(
                    passwordHash: passwordHash, secureCookies: tls != nil, controlSocket: socket, pictureFolder: settings.images,
                    uploadMax: web.uploadMax, uploadCount: web.uploadCount),
                page: page, events: events, thumbnails: thumbnails, log: log)
            let server = try HTTPServer(address: listen.host, port: listen.port, tls: tls, defaultHeaders: WebApp.safetyHeaders, handler: app.handle)
            let signals = try DaemonSignals()
            var stopping: Int32?
            _ = try loop.register(server.descriptor, name: "http") { _ in server.run() }
            _ = try loop.register(signals.descriptor.rawValue, name: "signals") { _ in
                while let number = signals.take() {
                    if number == SIGTERM || number == SIGINT { stopping = number }
                }
            }
            let due = loop.deadline(named: "http timeout") { _ in server.run() }
            let scheme = tls == nil ? "http" : "https"
            log("serving the page on \(scheme)://\(listen.description.replacingPort(with: server.port)) for kioskd on \(socket); pictures added to \(settings.images ?? "nowhere (no images folder)")")
            if !listen.isLoopback, tls == nil {
                log("warning: the page is served beyond this machine without TLS: its password and cookie cross the network readable; give web.tls_cert and web.tls_key")
            }
            log("a login costs \(PasswordHash.memoryLimit >> 20) MiB for its Argon2id hash (\(PasswordHash.operationsLimit) passes)")
            while stopping == nil {
                due.arm(at: server.timeout.map { MonotonicClock.now() + $0 })
                try loop.runOnce()
                server.run()
            }
            events.closeAll()
            server.stop()
            log("stopping on \(stopping == SIGINT ? "SIGINT" : "SIGTERM"); bye")
            return 0
        } catch {
            log("\(error)")
            return 1
        }
    }

    /// The hash in `web.password_file`, read as kioskd reads its servers'
    /// passwords (``CredentialFile``: a bare name is a systemd credential).
    static func readPasswordHash(_ file: String) -> Result<String, WebPasswordProblem> {
        let line: String
        do { line = try CredentialFile.firstLine(of: file) } catch { return .failure(WebPasswordProblem("web.password_file: \(error)")) }
        return WebPasswordLine.hash(in: line, file: file).flatMap { hash in
            PasswordHash.isWellFormed(hash) ? .success(hash) : .failure(WebPasswordProblem("\(file) holds no Argon2id hash libsodium can read: \(WebPasswordLine.howToMake)"))
        }
    }
}

extension String {
    /// `0.0.0.0:0` with the port the system chose.
    fileprivate func replacingPort(with port: UInt16) -> String {
        guard let colon = lastIndex(of: ":") else { return self }
        return self[...colon] + String(port)
    }
}
