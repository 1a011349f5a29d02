import KioskCore
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
