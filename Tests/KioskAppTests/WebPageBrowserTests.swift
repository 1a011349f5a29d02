import Foundation
import KioskCore
import TestSupport
import Testing
import WebServerSupport

/// The page as a person uses it, in a real browser: Debian's chromium,
/// headless, driven by Selenium (Tests/browser/page-in-chromium.py) at a
/// phone's size (390x844) and a desktop's (1280x900), against the built
/// kioskd-web and a headless kioskd. The script checks each step as the
/// page and kioskd show it; this test checks the folder and kioskd after.
@Suite(.serialized) struct WebPageBrowserTests {
    static let steps = [
        "the login page", "logged in, HttpOnly SameSite=Strict cookie", "three photos and a clip uploaded through the file chooser",
        "delete one", "next, and the live screen changed", "previous", "pause", "a message on the screen", "brightness", "a setting changed and applied",
        "a change without the CSRF token is refused",
        "a text file named .jpg, an over-size file and a name with ../ are refused or cleaned", "a phone's width (390x844)",
        "a desktop window (1280x900)", "wrong passwords, rate-limited",
    ]

    @Test func aPersonWithAPhoneAddsPhotosAndDrivesTheKiosk() throws {
        let kiosk = try WebPageTests.Kiosk(web: #"upload_max = "2MB""#)
        let files = kiosk.folder.path + "/chosen"
        let shots = kiosk.folder.path + "/screenshots"
        for folder in [files, shots] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        for (n, demo) in ["04.jpg", "05.jpg", "06.jpg"].enumerated() {
            try FileManager.default.copyItem(atPath: demoImages + "/" + demo, toPath: files + "/photo-\(n + 1).jpg")
        }
        let clip = try run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=10", "-t", "2", "-pix_fmt", "yuv420p",
                                               "-c:v", "libx264", files + "/clip.mp4"])
        #expect(clip.status == 0, "\(clip.output)")
        try Data("Shopping list: milk, bread.\n".utf8).write(to: URL(fileURLWithPath: files + "/notes.jpg"))
        try Data(try Data(contentsOf: URL(fileURLWithPath: demoImages + "/07.jpg")) + Data(count: 2_500_000))
            .write(to: URL(fileURLWithPath: files + "/too-large.jpg"))

        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../browser/page-in-chromium.py").standardized.path
        let browser = try run(TestImmichServer.python, [script, "http://127.0.0.1:\(kiosk.web.port)", WebPageTests.password, files, shots], timeout: 600)
        #expect(browser.status == 0, "\(browser.output)\nkioskd-web: \(kiosk.web.stop())")
        let done = browser.output.split(separator: "\n").filter { $0.hasPrefix("ok: ") }.map { String($0.dropFirst(4)) }
        #expect(done == Self.steps, "\(browser.output)")

        // What the page did is what the folder and kioskd hold.
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: kiosk.pictures))
        #expect(names == ["01.jpg", "02.jpg", "03.jpg", "photo-1.jpg", "photo-3.jpg", "clip.mp4", "escaped.jpg"], "photo-2.jpg deleted: \(names)")
        #expect(FileManager.default.contentsEqual(atPath: kiosk.pictures + "/clip.mp4", andPath: files + "/clip.mp4"))
        let session = try kiosk.logInAfterTheLockout()
        #expect(try kiosk.status(session)["count"] as? Int == 7)
        #expect(try kiosk.status(session)["interval"] as? Double == 45, "the setting the page changed holds")

        for (name, size) in [("web-login-phone.png", (390, 844)), ("web-page-phone.png", (390, 844)), ("web-page-desktop.png", (1280, 900)),
                             ("web-pictures-desktop.png", (1280, 900))] {
            let png = try Data(contentsOf: URL(fileURLWithPath: shots + "/" + name))
            let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
            #expect(width == size.0 && height == size.1, "\(name): \(width)x\(height)")
            // `KIOSKD_WRITE_SCREENSHOTS=1` keeps them as docs/'s pictures of the page.
            if ProcessInfo.processInfo.environment["KIOSKD_WRITE_SCREENSHOTS"] == "1" {
                let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/" + name).standardized
                try? FileManager.default.removeItem(at: docs)
                try png.write(to: docs)
            }
        }
    }

    func run(_ program: String, _ arguments: [String], timeout: Double = 120) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}

extension WebPageTests.Kiosk {
    /// A session made from the kiosk itself after the browser's wrong
    /// passwords held 127.0.0.1 back: kioskd-web's throttle is per address,
    /// so this asks from 127.0.0.2.
    func logInAfterTheLockout() throws -> String {
        let login = try WebPageTests.HTTPAnswer.ask(
            port: web.port, method: "POST", path: "/login", headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Array("password=\(WebPageTests.password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")".utf8), from: "127.0.0.2")
        return try #require(login.header("Set-Cookie")?.split(separator: ";").first.map(String.init), "\(login)")
    }
}
