import ControlClient
import Foundation
import ImageCodecs
@testable import KioskApp
import KioskCore
import KioskRendering
import SystemCalls
import Testing

/// Words on the screen of the built daemon, in real time, and through
/// `kioskd snapshot`: a message sent with kioskctl, and what happens when
/// the fonts are not what the config asks for.
@Suite struct ScreenTextDaemonTests {
    typealias Daemon = HeadlessDaemonTests.Daemon
    static let text = ["--caption", "{file}", "--clock", "%Y", "--text-font", "DejaVu Sans"]

    /// `kioskd snapshot` of demo picture 0 at 320x180 with `arguments`, and its stderr.
    func snapshot(_ arguments: [String], environment: [String: String] = [:]) throws -> (image: RasterImage, stderr: String) {
        let out = NSTemporaryDirectory() + "kioskd-text-" + UUID().uuidString + ".png"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try kioskd(["snapshot", "--images", demoImages, "--size", "320x180", "--index", "0", "--out", out] + arguments, environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        return (try PNGCodec.decode(try readWholeFile(out, limit: 1 << 24), path: out, background: .black, maximumPixels: 1 << 22), run.stderr)
    }

    @Test func aMessageFromKioskctlIsOnScreenUntilItExpires() throws {
        let daemon = try Daemon(["--interval", "600", "--transition", "0.2"] + Self.text)
        defer { _ = daemon.stop() }
        daemon.waitFor("picture(s), picture 0 in the centre")
        let control = try ControlConnection(path: daemon.socket)
        let plain = try snapshot(Self.text).image
        let withMessage = try snapshot(Self.text + ["--message", "Closing in 15 minutes"]).image
        #expect(plain != withMessage)
        // The caption and the clock, before any message.
        #expect(try screenshot(control, matching: plain).image == plain)

        // Long enough that a busy machine still sees it before it goes.
        let sent = try kioskctl(["--socket", daemon.socket, "message", "--for", "10s", "Closing in 15 minutes"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stdout.contains("showing \"Closing in 15 minutes\" for 10 s"))
        #expect(try screenshot(control, matching: withMessage).image == withMessage)
        let status = object(try control.request("status"))
        #expect(status["message"] as? String == "Closing in 15 minutes")
        #expect(status["caption"] as? String == "01")
        #expect(status["clock"] as? String == String(Calendar.current.component(.year, from: Date())))
        // Gone by itself after 10 s, the screen as before.
        #expect(try screenshot(control, matching: plain, within: 40).image == plain)
        #expect(object(try control.request("status"))["message"] is NSNull)

        // Until cleared.
        #expect(try kioskctl(["--socket", daemon.socket, "message", "Closing in 15 minutes"]).status == 0)
        #expect(try screenshot(control, matching: withMessage).image == withMessage)
        let cleared = try kioskctl(["--socket", daemon.socket, "message", "--clear"])
        #expect(cleared.stdout.contains("no message"))
        #expect(try screenshot(control, matching: plain).image == plain)
        // A bad duration is refused by kioskctl before it is sent.
        #expect(try kioskctl(["--socket", daemon.socket, "message", "--for", "2d", "x"]).status == 64)
    }

    /// No font at all: one clear error naming the package, and the show goes
    /// on without text rather than not at all.
    @Test func withNoFontsTheShowRunsWithoutTextAndSaysWhichPackageToInstall() throws {
        let folder = NSTemporaryDirectory() + "kioskd-nofonts-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let config = folder + "/fonts.conf"
        try """
            <?xml version="1.0"?>
            <!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
            <fontconfig><cachedir>\(folder)/cache</cachedir></fontconfig>
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let noFonts = try snapshot(Self.text + ["--message", "hello"], environment: ["FONTCONFIG_FILE": config])
        #expect(noFonts.stderr.contains("no fonts are installed (fontconfig found none): text is not drawn; install the package fonts-dejavu-core"))
        #expect(noFonts.stderr.components(separatedBy: "no fonts are installed").count == 2, "said once: \(noFonts.stderr)")
        #expect(try noFonts.image == snapshot([]).image)
    }

    @Test func aFamilyThatIsNotInstalledIsDrawnInTheNearestWithOneLogLine() throws {
        let substituted = try snapshot(["--caption", "{file}", "--text-font", "No Such Family"])
        #expect(substituted.stderr.contains("text_font \"No Such Family\" is not installed: text is drawn in"))
        #expect(try substituted.image != snapshot([]).image, "the caption is drawn")
    }
}
