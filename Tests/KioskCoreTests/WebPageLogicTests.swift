import KioskCore
import Testing

/// kioskd-web's rules that need no server: wrong passwords counted per
/// address, sessions that end, upload names that never leave the folder,
/// and the `[web]` settings.
@Suite struct WebPageLogicTests {
    @Test func fiveWrongPasswordsInAMinuteMakeTheSixthWaitUntilTheFirstIsAMinuteOld() {
        var throttle = LoginThrottle()
        for second in 0..<5 {
            #expect(throttle.wait(for: "192.0.2.7", at: Double(second) * 10) == nil, "attempt \(second + 1) is heard")
            throttle.failed(from: "192.0.2.7", at: Double(second) * 10)
        }
        // Failures at 0, 10, 20, 30, 40: the first is a minute old at 60.
        #expect(throttle.wait(for: "192.0.2.7", at: 41) == 19)
        #expect(throttle.wait(for: "192.0.2.7", at: 59.5) == 1)
        #expect(throttle.wait(for: "198.51.100.1", at: 41) == nil, "another address is not held back")
        #expect(throttle.wait(for: "192.0.2.7", at: 60) == nil, "a minute after the first failure, the address may try again")
        throttle.failed(from: "192.0.2.7", at: 61)
        #expect(throttle.wait(for: "192.0.2.7", at: 62) == 8, "the failures of the last minute still count: 10, 20, 30, 40, 61")
    }

    @Test func theRightPasswordForgetsTheFailures() {
        var throttle = LoginThrottle()
        for n in 0..<4 { throttle.failed(from: "192.0.2.7", at: Double(n)) }
        throttle.succeeded(from: "192.0.2.7")
        throttle.failed(from: "192.0.2.7", at: 5)
        #expect(throttle.wait(for: "192.0.2.7", at: 6) == nil)
    }

    @Test func anIPv6ClientIsCountedByItsSlash64() {
        var throttle = LoginThrottle()
        for n in 0..<5 {
            throttle.failed(from: "2001:0db8:0001:0002:0000:0000:0000:000\(n)", at: 0)
        }
        #expect(throttle.wait(for: "2001:0db8:0001:0002:ffff:0000:0000:0001", at: 1) != nil, "a new address in the same /64 waits too")
        #expect(throttle.wait(for: "2001:0db8:0001:0003:0000:0000:0000:0001", at: 1) == nil, "the next /64 is someone else")
    }

    @Test func aFloodOfAddressesIsRememberedInBoundedMemory() {
        var throttle = LoginThrottle()
        for n in 0..<(LoginThrottle.trackedAddresses + 500) {
            throttle.failed(from: "10.\(n >> 16 & 255).\(n >> 8 & 255).\(n & 255)", at: Double(n) / 1000)
        }
        #expect(throttle.trackedCount <= LoginThrottle.trackedAddresses)
        // The newest are kept: the last address still counts its failure.
        for _ in 0..<LoginThrottle.allowedFailures { throttle.failed(from: "10.0.18.3", at: 10) }
        #expect(throttle.wait(for: "10.0.18.3", at: 10) != nil)
    }

    @Test func aSessionEndsWhenUnusedForAMonthOrLoggedOut() {
        var sessions = WebSessions()
        sessions.open(token: "a", csrf: "csrf-a", at: 0)
        #expect(sessions.use("a", at: 100)?.csrf == "csrf-a")
        #expect(sessions.use("b", at: 100) == nil, "a token never given")
        #expect(sessions.use("a", at: 100 + WebSessions.idleLifetime - 1) != nil, "used within the month: it lasts another month")
        #expect(sessions.use("a", at: 100 + 2 * WebSessions.idleLifetime) == nil)
        sessions.open(token: "c", csrf: "csrf-c", at: 0)
        sessions.close("c")
        #expect(sessions.use("c", at: 1) == nil)
    }

    @Test func pastItsCapacityTheSessionUnusedLongestEnds() {
        var sessions = WebSessions()
        for n in 0..<WebSessions.capacity { sessions.open(token: "t\(n)", csrf: "c", at: Double(n)) }
        _ = sessions.use("t0", at: 1000)
        sessions.open(token: "new", csrf: "c", at: 1001)
        #expect(sessions.count == WebSessions.capacity)
        #expect(sessions.use("t1", at: 1002) == nil, "t1 was the one unused longest")
        #expect(sessions.use("t0", at: 1002) != nil && sessions.use("new", at: 1002) != nil)
    }

    @Test func anUploadsNameNeverLeavesThePictureFolder() {
        #expect(UploadName.cleaned("../../etc/passwd.jpg") == "passwd.jpg")
        #expect(UploadName.cleaned("..\\..\\boot.ini") == "boot.ini")
        #expect(UploadName.cleaned("C:\\Users\\me\\IMG_0001.JPG") == "IMG_0001.JPG")
        #expect(UploadName.cleaned("..") == nil)
        #expect(UploadName.cleaned("../") == nil)
        #expect(UploadName.cleaned(".hidden.jpg") == "hidden.jpg", "never a hidden file, which the show passes by")
        #expect(UploadName.cleaned("a\u{0}b\u{1B}[31m.jpg") == "ab[31m.jpg")
        #expect(UploadName.cleaned("  Grandma's 90th.jpg  ") == "Grandma's 90th.jpg")
        #expect(UploadName.cleaned("Ünïcødé 写真.heic") == "Ünïcødé 写真.heic")
        let long = String(repeating: "写", count: 120) + ".jpeg"
        let cleaned = UploadName.cleaned(long)
        #expect(cleaned.map { $0.utf8.count <= UploadName.maximumBytes && $0.hasSuffix("写.jpeg") } == true, "\(cleaned ?? "nil")")
    }

    @Test func aNameAlreadyTakenGetsANumberBeforeItsExtension() {
        #expect(UploadName.alternative("IMG_0001.JPG", 2) == "IMG_0001 (2).JPG")
        #expect(UploadName.alternative("notes", 3) == "notes (3)")
        #expect(UploadName.fileExtension(of: "IMG_0001.JPG") == "jpg")
        #expect(UploadName.fileExtension(of: "photo") == "")
    }

    @Test func thePasswordFileHoldsAHashNeverAPassword() {
        let hash = "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$" + String(repeating: "A", count: 43)
        #expect(WebPasswordLine.hash(in: hash + "\n", file: "f") == .success(hash))
        #expect(WebPasswordLine.hash(in: hash + "\r\nmore", file: "f") == .success(hash))
        guard case .failure(let plain) = WebPasswordLine.hash(in: "hunter2\n", file: "/etc/kioskd/web-password") else {
            Issue.record("a plain password was taken")
            return
        }
        #expect(plain.description.contains("/etc/kioskd/web-password does not hold an Argon2id hash"))
        #expect(plain.description.contains("kioskd-web hash-password"), "it says how to make one")
        #expect(WebPasswordLine.hash(in: "", file: "f") != .success(""))
    }

    @Test func theWebTableIsReadAndCheckedTogether() throws {
        var settings = KioskSettings()
        try settings.set("web.listen", to: .string("0.0.0.0:8080"))
        #expect(settings.web.listen == WebListenAddress(parsing: "0.0.0.0:8080"))
        #expect(settings.web.listen?.isLoopback == false)
        #expect(settings.web.problem?.contains("web.listen needs web.password_file") == true)
        try settings.set("web.password_file", to: .string("/etc/kioskd/web-password"))
        #expect(settings.web.problem == nil)
        try settings.set("web.tls_cert", to: .string("/etc/kioskd/web.pem"))
        #expect(settings.web.problem?.contains("go together") == true)
        try settings.set("web.upload_max", to: .string("2GB"))
        #expect(settings.web.uploadMax == 2_000_000_000)
        #expect(throws: (any Error).self) { try settings.set("web.listen", to: .string("8080")) }
        #expect(throws: (any Error).self) { try settings.set("web.listen", to: .string("0.0.0.0:0")) }
        #expect(throws: (any Error).self) { try settings.set("web.upload_count", to: .integer(0)) }
        #expect(KioskSettings.table["web.listen"]?.reload == .webRestart)
    }

    @Test func listenAddressesAreIPv4OrBracketedIPv6() {
        #expect(WebListenAddress(parsing: "127.0.0.1:8080")?.isLoopback == true)
        #expect(WebListenAddress(parsing: "[::1]:8080")?.isLoopback == true)
        #expect(WebListenAddress(parsing: "[::]:8443")?.description == "[::]:8443")
        #expect(WebListenAddress(parsing: "[::]:8443")?.host == "::")
        #expect(WebListenAddress(parsing: "::1:8080") == nil, "IPv6 goes in brackets")
        #expect(WebListenAddress(parsing: "kiosk.local:8080") == nil, "numeric only: no lookup at start")
        #expect(WebListenAddress(parsing: "256.0.0.1:80") == nil)
        #expect(WebListenAddress(parsing: "1.2.3.4:65536") == nil)
        #expect(WebListenAddress(parsing: "1.2.3.4:+80") == nil)
    }
}
