import KioskCore
import TestSupport
import Testing

#if canImport(PropertyBased)
import PropertyBased
#endif

/// A server's names made safe for the cache's folder (``RemotePath``),
/// and what a poll means for the cache (``MirrorPlan``).
@Suite struct RemotePathTests {
    let base = "/remote.php/dav/files/anna/Photos/"

    @Test(arguments: [
        ("/remote.php/dav/files/anna/Photos/2024/IMG_0001.jpg", "2024/IMG_0001.jpg"),
        ("/remote.php/dav/files/anna/Photos/Summer été/a.jpg", "Summer été/a.jpg"),
        ("/remote.php/dav/files/anna/Photos/2024/", "2024"),
        ("/remote.php/dav/files/anna/Photos/a%zz.jpg", "a%zz.jpg"),
    ])
    func aServersNameBecomesItsPathUnderTheCache(path: String, relative: String) throws {
        #expect(try RemotePath(path: path, base: base).relative == relative)
    }

    @Test(arguments: [
        ("/remote.php/dav/files/anna/Photos/../../../../etc/passwd", RemotePath.Refusal.unsafePart("..")),
        ("/remote.php/dav/files/anna/Photos/a/../../b.jpg", .unsafePart("..")),
        ("/remote.php/dav/files/anna/Photos/a//b.jpg", .unsafePart("")),
        ("/remote.php/dav/files/anna/Photos/./b.jpg", .unsafePart(".")),
        ("/remote.php/dav/files/anna/Photos/.kioskd-partial.jpg", .unsafePart(".kioskd-partial.jpg")),
        ("/remote.php/dav/files/anna/Photos/a\0.jpg", .unsafePart("a\0.jpg")),
        ("/remote.php/dav/files/anna/Photos/a\nb.jpg", .unsafePart("a\nb.jpg")),
        ("/remote.php/dav/files/bob/Photos/a.jpg", .outsideTheLibrary),
        ("/remote.php/dav/files/anna/PhotosOther/a.jpg", .outsideTheLibrary),
        ("/remote.php/dav/files/anna/Photos/", .empty),
        ("/remote.php/dav/files/anna/Photos/" + String(repeating: "x", count: 256), .tooLong),
        ("/remote.php/dav/files/anna/Photos/" + String(repeating: "d/", count: 33) + "a.jpg", .tooDeep),
    ])
    func aHostileNameIsRefused(path: String, refusal: RemotePath.Refusal) {
        #expect(throws: refusal) { try RemotePath(path: path, base: base) }
    }

    /// Any path made of slashes, dots, NULs and letters: what is accepted,
    /// joined to the cache's folder and resolved as the kernel would (`..`
    /// up, `.` stays), is still inside it, and every part is a plain name.
    @Test func noNameEscapesTheCache() async {
        let pieces = ["/", ".", "..", "\0", "a", "b.jpg", "\\", "~", "%2e", " "]
        await propertyCheck(count: 3000, input: Gen.int(in: 0...(pieces.count - 1)).array(of: 1...12)) { picks in
            let path = "/dav/" + picks.map { pieces[$0] }.joined()
            guard let accepted = try? RemotePath(path: path, base: "/dav/") else { return }
            var resolved: [String] = ["cache"]
            for part in accepted.relative.split(separator: "/", omittingEmptySubsequences: false) {
                switch part {
                case "..": resolved.removeLast()
                case ".", "": continue
                default: resolved.append(String(part))
                }
                #expect(!resolved.isEmpty && resolved[0] == "cache", "\(path) escapes as \(accepted.relative)")
                if resolved.isEmpty { return }
            }
            #expect(resolved.count == accepted.parts.count + 1, "\(path): every part is a plain name")
            #expect(!accepted.relative.contains("\0") && !accepted.relative.hasPrefix("/"))
        }
    }
}

@Suite struct MirrorPlanTests {
    func file(_ relative: String, etag: String? = "e1", size: Int64 = 100) -> RemoteFile {
        RemoteFile(path: try! RemotePath(path: "/dav/" + relative, base: "/dav/"), version: FileVersion(etag: etag, size: size))
    }

    /// New and changed files are fetched (a new ETag, or the same ETag with
    /// another size), unchanged ones are not, and what left the server
    /// leaves the cache.
    @Test func newAndChangedFilesAreFetchedAndGoneOnesDeleted() {
        let cached = [
            "same.jpg": FileVersion(etag: "e1", size: 100), "retagged.jpg": FileVersion(etag: "e1", size: 100),
            "resized.jpg": FileVersion(etag: "e1", size: 100), "gone.jpg": FileVersion(etag: "e1", size: 100),
        ]
        let plan = MirrorPlan(
            listed: [file("same.jpg"), file("retagged.jpg", etag: "e2"), file("resized.jpg", size: 101), file("new.jpg")],
            cached: cached, maxBytes: 1 << 30, maxItems: 10_000)
        #expect(plan.fetch.map(\.path.relative) == ["new.jpg", "resized.jpg", "retagged.jpg"])
        #expect(plan.delete == ["gone.jpg"])
        #expect(plan.kept == 4 && plan.beyondBounds == 0)
    }

    /// The cache keeps the first files in the show's order (IMG_2 before
    /// IMG_10) that fit its count and its bytes; the rest are not fetched,
    /// and leave the cache if they were in it.
    @Test func theCacheKeepsTheFirstFilesThatFitByCountAndByBytes() {
        let listed = (1...12).map { file("IMG_\($0).jpg", size: 1000) }
        let byCount = MirrorPlan(listed: listed, cached: ["IMG_12.jpg": FileVersion(etag: "e1", size: 1000)], maxBytes: 1 << 30, maxItems: 3)
        #expect(byCount.fetch.map(\.path.relative) == ["IMG_1.jpg", "IMG_2.jpg", "IMG_3.jpg"])
        #expect(byCount.delete == ["IMG_12.jpg"] && byCount.beyondBounds == 9)
        let byBytes = MirrorPlan(listed: listed, cached: [:], maxBytes: 4500, maxItems: 10_000)
        #expect(byBytes.fetch.map(\.path.relative) == ["IMG_1.jpg", "IMG_2.jpg", "IMG_3.jpg", "IMG_4.jpg"])
    }

    /// A 2 GB "photo" is never fetched, and is named for the log; the files after it still are.
    @Test func aFileTooLargeIsNeverFetched() {
        let plan = MirrorPlan(listed: [file("a.jpg"), file("huge.jpg", size: 2 << 30), file("z.jpg")], cached: [:], maxBytes: 1 << 40, maxItems: 10)
        #expect(plan.fetch.map(\.path.relative) == ["a.jpg", "z.jpg"])
        #expect(plan.tooLarge.map(\.path.relative) == ["huge.jpg"])
    }
}

/// The mirror's index (``MirrorIndex``): written and read back whole; an
/// index of another version, another address, or a damaged one, is not
/// misread but refused, so the library starts a fresh mirror.
@Suite struct MirrorIndexTests {
    let source = "https://cloud.example/remote.php/dav/files/anna/Photos/"
    let index = MirrorIndex(source: "https://cloud.example/remote.php/dav/files/anna/Photos/", files: [
        "2024/summer été/IMG_0001.jpg": FileVersion(etag: "\"5f2a-1c3b\"", size: 2_481_733),
        "a b.png": FileVersion(etag: nil, size: 0),
        "W/weak.jpg": FileVersion(etag: "W/\"x y\"", size: 12),
    ])

    @Test func anIndexReadsBackAsItWasWritten() {
        #expect(MirrorIndex.read(index.encoded, source: source) == index)
        #expect(MirrorIndex.read(MirrorIndex(source: source).encoded, source: source) == MirrorIndex(source: source))
        #expect(String(decoding: index.encoded, as: UTF8.self).hasPrefix("kioskd-mirror 1\nsource \(source)\n"))
    }

    @Test func anIndexOfAnotherVersionOrAddressOrDamagedIsRefused() {
        let other = Array("kioskd-mirror 2".utf8) + index.encoded.dropFirst("kioskd-mirror 1".utf8.count)
        #expect(MirrorIndex.read(other, source: source) == nil, "another version")
        #expect(MirrorIndex.read(index.encoded, source: source + "Other/") == nil, "another address")
        #expect(MirrorIndex.read(Array(index.encoded.dropLast(5)), source: source) == nil, "cut short (no final newline)")
        #expect(MirrorIndex.read(index.encoded + Array("12\tonly two fields\n".utf8), source: source) == nil)
        #expect(MirrorIndex.read(index.encoded + Array("-3\t-\ta.jpg\n".utf8), source: source) == nil, "a negative size")
        #expect(MirrorIndex.read(index.encoded + [0xFF, 0x0A], source: source) == nil, "not UTF-8")
        #expect(MirrorIndex.read([], source: source) == nil)
    }

    @Test func anETagIsKeptAsItsHashWhateverItHolds() {
        let odd = MirrorIndex(source: source, files: ["a.jpg": FileVersion(etag: "\"a\tb\nc\"", size: 3)])
        #expect(MirrorIndex.read(odd.encoded, source: source) == odd, "a tab or a newline in an ETag cannot break the index")
        #expect(FileVersion(etag: "", size: 3) == FileVersion(etag: nil, size: 3))
        #expect(FileVersion(etag: "\"a\"", size: 3) != FileVersion(etag: "\"b\"", size: 3))
        #expect(FileVersion(etag: "x", size: 1).etagHash == 0xaf63_f54c_8602_1707, "FNV-1a of \"x\": the same in every process")
    }
}

/// `[webdav]` and the cache's settings, as an operator writes them.
@Suite struct ServerLibrarySettingsTests {
    @Test func aServersAddressIsAnHTTPFolderWithoutCredentials() throws {
        let nextcloud = try ServerAddress(parsing: "https://Cloud.example:8443/remote.php/dav/files/anna/Photos")
        #expect(nextcloud.origin == "https://Cloud.example:8443" && nextcloud.path == "/remote.php/dav/files/anna/Photos/")
        #expect(nextcloud.description == "https://Cloud.example:8443/remote.php/dav/files/anna/Photos/" && nextcloud.usesTLS)
        #expect(try ServerAddress(parsing: "http://nas.local").path == "/")
        #expect(throws: ServerAddress.Problem.credentials) { try ServerAddress(parsing: "https://anna:secret@cloud.example/dav/") }
        #expect(throws: ServerAddress.Problem.scheme) { try ServerAddress(parsing: "ftp://nas.local/photos/") }
        #expect(throws: ServerAddress.Problem.scheme) { try ServerAddress(parsing: "file:///etc/") }
        #expect(throws: ServerAddress.Problem.noHost) { try ServerAddress(parsing: "https:///photos/") }
        #expect(throws: ServerAddress.Problem.queryOrFragment) { try ServerAddress(parsing: "https://nas.local/photos/?x=1") }
        #expect(throws: ServerAddress.Problem.controlCharacter) { try ServerAddress(parsing: "https://nas.local/my photos/") }
    }

    @Test func theWebDAVTableReadsAndWritesBack() throws {
        var settings = KioskSettings()
        #expect(settings.webdav.url == nil && settings.webdav.poll == 300)
        #expect(settings.libraryCache.maxBytes == 1_000_000_000 && settings.libraryCache.maxItems == 10_000)
        try settings.set("webdav", to: .table([
            "url": .string("https://cloud.example/remote.php/dav/files/kiosk/Photos/"), "username": .string("kiosk"),
            "password_file": .string("webdav-password"), "poll": .string("30s"),
        ]))
        #expect(settings.webdav.poll == 30 && settings.webdav.username == "kiosk" && settings.webdav.problem == nil)
        #expect(settings.writtenValue(of: "webdav.poll") == .string("30s"))
        #expect(settings.writtenValue(of: "webdav.url") == .string("https://cloud.example/remote.php/dav/files/kiosk/Photos/"))
        let tooOften = expectError(SettingError.self) { try settings.set("webdav.poll", to: .string("5s")) }
        #expect(tooOften?.description.contains("10 seconds to 24 hours") == true)
        #expect(expectError(SettingError.self) { try settings.set("webdav.url", to: .string("https://a:b@cloud.example/")) }?
            .description.contains("username and password_file") == true)
        try settings.set("webdav.ca_file", to: .string("/etc/kioskd/home-ca.pem"))
        try settings.set("webdav.url", to: .string("http://nas.local/photos/"))
        #expect(settings.webdav.problem == "webdav.ca_file is for https:// servers; http://nas.local/photos/ is plain http")
    }

    @Test(arguments: [
        ("1GB", Int64(1_000_000_000)), ("500MB", 500_000_000), ("2GiB", 2_147_483_648), ("1.5 GB", 1_500_000_000), ("64TB", 64_000_000_000_000),
        ("5000000", 5_000_000), ("2gb", 2_000_000_000),
    ])
    func aCacheSizeIsWrittenAsACardsSizeIs(text: String, bytes: Int64) throws {
        var settings = KioskSettings()
        try settings.set("cache_max", to: .string(text))
        #expect(settings.libraryCache.maxBytes == bytes)
    }

    @Test func cacheBoundsOutsideTheirRangeAreRefused() throws {
        var settings = KioskSettings()
        for bad in ["100KB", "65TB", "lots", "-1GB", "GB"] {
            #expect(expectError(SettingError.self) { try settings.set("cache_max", to: .string(bad)) } != nil, "\(bad)")
        }
        try settings.set("cache_max", to: .integer(2_000_000_000))
        #expect(settings.writtenValue(of: "cache_max") == .string("2GB"))
        #expect(expectError(SettingError.self) { try settings.set("cache_items", to: .integer(0)) } != nil)
        try settings.set("cache_items", to: .integer(500))
        #expect(settings.libraryCache.maxItems == 500)
    }
}
