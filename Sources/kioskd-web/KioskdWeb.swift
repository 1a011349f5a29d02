import ArgumentParser
import KioskCore
import KioskWeb
import PasswordHashing
#if canImport(Glibc)
import Glibc
#endif

/// `kioskd-web`: the page on the local network where a phone adds photos,
/// sees the screen and drives the kiosk. A program of its own, beside
/// kioskd (docs/architecture.md says why): it reaches kioskd only through
/// the control socket and writes only into the picture folder.
@main
struct KioskdWeb: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kioskd-web",
        abstract: "Serve kioskd's page: add photos from a phone, see the screen, drive the kiosk.",
        discussion: "Off until the config file's [web] table gives listen and password_file (docs/configuration.md).",
        version: KioskVersion.current,
        subcommands: [Serve.self, HashPassword.self],
        defaultSubcommand: Serve.self)
}

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the page (the default).")

    @Option(name: .long, help: ArgumentHelp("The config file kioskd reads; its [web] table says where and how the page is served.", valueName: "path"))
    var config: String = "/etc/kioskd/kioskd.toml"

    @Option(name: .long, help: ArgumentHelp("The folder of the page's files (HTML, CSS, JavaScript).", valueName: "dir"))
    var page: String = "/usr/share/kioskd/web"

    @Option(name: .long, help: ArgumentHelp("Serve here instead of web.listen (address:port; port 0 picks a free one).", valueName: "address:port"))
    var listen: String?

    func run() throws {
        let log: (String) -> Void = { line in standardError("kioskd-web: \(line)\n") }
        var settings: KioskSettings
        do { settings = try WebService.settings(configPath: config) } catch {
            log("\(error)")
            throw ExitCode(1)
        }
        if let listen {
            guard let address = WebListenAddress(parsing: listen) else {
                log("--listen \(listen): expected an address and port like 127.0.0.1:8080")
                throw ExitCode(64)
            }
            settings.web.listen = address
        }
        let status = WebService.run(settings: settings, pageFolder: page, log: log)
        if status != 0 { throw ExitCode(status) }
    }
}

struct HashPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the Argon2id hash of the password read from standard input, for web.password_file.",
        discussion: "kioskd-web hash-password > /etc/kioskd/web-password (typed at a terminal, the password is not shown).")

    func run() throws {
        let terminal = isatty(0) == 1
        var saved = termios()
        if terminal {
            standardError("Password: ")
            tcgetattr(0, &saved)
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(0, TCSANOW, &quiet)
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= 4096 {
            let count = read(0, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
            if terminal, bytes.contains(0x0A) { break }
        }
        if terminal {
            tcsetattr(0, TCSANOW, &saved)
            standardError("\n")
        }
        // The line's end is not part of the password.
        if let newline = bytes.firstIndex(of: 0x0A) { bytes = Array(bytes[..<newline]) }
        if bytes.last == 0x0D { bytes.removeLast() }
        guard !bytes.isEmpty else {
            standardError("kioskd-web: hash-password: no password on standard input\n")
            throw ExitCode(1)
        }
        guard bytes.count <= 1024 else {
            standardError("kioskd-web: hash-password: a password of at most 1024 bytes, on one line\n")
            throw ExitCode(1)
        }
        do { print(try PasswordHash.make(bytes)) } catch {
            standardError("kioskd-web: hash-password: \(error)\n")
            throw ExitCode(1)
        }
    }
}

/// One line to standard error, written whole (a journal line each).
func standardError(_ text: String) {
    let bytes = Array(text.utf8)
    var written = 0
    while written < bytes.count {
        let count = bytes[written...].withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return }
        written += count
    }
}
