import Foundation
import SystemCalls
import Testing

/// The libraries kioskd maps on first use (COnDemand, ``OnDemandLibrary``):
/// the right ones, named by the right packages, absent from a show of JPEGs,
/// and a clear error, not a crash, where one is not installed.
@Suite struct OnDemandLibraryTests {
    /// Where Debian keeps this machine's libraries.
    static let libraryFolder: String = {
        var name = utsname()
        uname(&name)
        let machine = withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return "/usr/lib/\(machine)-linux-gnu"
    }()

    /// What `tool` prints, and what it says on stderr.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> (stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (stdout, stderr)
    }

    /// dlopen asks for the soname of the headers kioskd was compiled
    /// against: the one the development package's `libX.so` names, which
    /// the linker would have written had kioskd linked the library.
    @Test(arguments: OnDemandLibrary.allCases)
    func eachOpensAndIsTheOneItsHeadersBelongTo(library: OnDemandLibrary) throws {
        try library.open()
        let soname = library.soname
        let number = try #require(soname.firstRange(of: ".so."))
        let developmentLink = Self.libraryFolder + "/" + soname[..<number.lowerBound] + ".so"
        let dynamic = try Self.run("readelf", ["--dynamic", developmentLink]).stdout
        #expect(dynamic.contains("Library soname: [\(soname)]"), "\(developmentLink): \(dynamic)")
    }

    /// The error for a missing library names the package to install: the
    /// one dpkg says holds that soname here.
    @Test(arguments: OnDemandLibrary.allCases)
    func thePackageNamedIsTheOneThatInstallsIt(library: OnDemandLibrary) throws {
        let file = try FileManager.default.destinationOfSymbolicLink(atPath: Self.libraryFolder + "/" + library.soname)
        // By the file's name, as scripts/make-deb asks: a package may have put it in /lib (libexpat1), which dpkg knows it by.
        let owner = try Self.run("dpkg", ["-S", "*/" + (file.split(separator: "/").last.map(String.init) ?? file)]).stdout
        #expect(owner.split(separator: ":").first.map(String.init) == library.package, "\(owner)")
    }

    /// A kiosk of JPEGs with no broker and no text maps none of them, nor
    /// what they bring (OpenSSL, HarfBuzz, GLib): the memory `make bench`
    /// holds kioskd to.
    @Test func aShowOfJPEGsMapsNoneOfThem() throws {
        let daemon = try HeadlessDaemonTests.Daemon(["--interval", "0.2", "--transition", "0.1", "--socket", "none"])
        daemon.waitFor("picture 2 in the centre")
        let maps = try Self.run("cat", ["/proc/\(daemon.process.processIdentifier)/maps"]).stdout
        _ = daemon.stop()
        try #require(maps.contains("libturbojpeg.so"), "not the daemon's maps: \(maps.prefix(400))")
        let mapped = (OnDemandLibrary.allCases.map(\.soname) + ["libssl.so", "libcrypto.so", "libharfbuzz.so", "libglib-2.0.so", "libde265.so", "libdav1d.so"])
            .filter { maps.contains("/" + $0) }
        #expect(mapped.isEmpty, "mapped by a show of JPEGs: \(mapped)")
    }

    /// Whether a library can be hidden from one process: as root, in a
    /// mount namespace of its own whose mounts stay in it (not in a chroot,
    /// where the root is no mount point and cannot be made private).
    static let canHideALibrary: Bool = {
        guard geteuid() == 0, let probe = try? run("unshare", ["--mount", "--propagation", "private", "true"]) else { return false }
        return probe.stderr.isEmpty
    }()

    /// Where a library is not installed (here: hidden under /dev/null in a
    /// mount namespace of the test's own), the picture or the text that
    /// needed it is refused with the package to install, and the show goes
    /// on.
    @Test(.enabled(if: canHideALibrary, "hiding a library needs a private mount namespace: root, outside a chroot"), arguments: [
        (OnDemandLibrary.heif, "heic"), (OnDemandLibrary.raqm, "caption"),
    ])
    func aMissingLibraryIsNamedWithItsPackage(library: OnDemandLibrary, need: String) throws {
        let folder = NSTemporaryDirectory() + "kioskd-missing-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(atPath: demoImages + "/01.jpg", toPath: folder + "/01.jpg")
        // An ISO media file of the HEIC brand: its decoding needs libheif first.
        try Data([0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8) + [UInt8](repeating: 0, count: 64))
            .write(to: URL(fileURLWithPath: folder + "/02.heic"))
        let file = Self.libraryFolder + "/" + (try FileManager.default.destinationOfSymbolicLink(atPath: Self.libraryFolder + "/" + library.soname))
        let out = folder + "/snapshot.png"
        let snapshot = [try builtExecutable("kioskd"), "snapshot", "--images", folder, "--size", "320x180", "--out", out]
            + (need == "heic" ? ["--index", "1"] : ["--caption", "{file}"])
        let script = "mount --bind /dev/null \"$0\" && exec \"$@\""
        let run = try Self.run("unshare", ["--mount", "--propagation", "private", "sh", "-c", script, file] + snapshot)
        #expect(run.stderr.contains(library.soname) && run.stderr.contains("package \(library.package)"), "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: out), "no snapshot: \(run.stderr)")
    }
}

