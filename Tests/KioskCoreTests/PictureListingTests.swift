import KioskCore
import Testing

/// `pictures`, `thumbnail` and `settings`: the web page's list of pictures
/// and its settings, as the control protocol gives them; and the names the
/// page may delete.
@Suite struct PictureListingTests {
    static let folder = LibraryStatus(kind: .folder, source: "/srv/photos", state: .online, since: 0, scope: "/srv/photos/")
    static let immich = LibraryStatus(kind: .immich, source: "https://photos.example", state: .online, since: 0, scope: "/var/lib/kioskd/immich/")

    @Test func aPageNamesEachPictureWithinItsLibraryAndMarksAServersOnes() throws {
        let playlist = Playlist(entries: [
            PlaylistEntry("/srv/photos/2024/beach.jpg"),
            PlaylistEntry("/srv/photos/IMG_0001.HEIC", companion: "/srv/photos/IMG_0001.MOV"),
            PlaylistEntry("/var/lib/kioskd/immich/0f3a-IMG_0002.jpg"),
        ])
        let page = PictureListing.page(of: playlist, libraries: [Self.folder, Self.immich], from: 0, count: 10)
        #expect(page["count"] == .int(3) && page["from"] == .int(0))
        let items = (page["pictures"]?.array ?? []).compactMap { $0.object }
        #expect(items.count == 3)
        let byName = Dictionary(uniqueKeysWithValues: items.map { ($0["name"]?.string ?? "", $0) })
        let beach = try #require(byName["2024/beach.jpg"], "\(items)")
        #expect(beach["file"] == .string("beach.jpg") && beach["library"] == .int(0) && beach["kind"] == .string("folder") && beach["movie"] == .null)
        let live = try #require(byName["IMG_0001.HEIC"])
        #expect(live["movie"] == .string("IMG_0001.MOV"), "a Live Photo's movie goes with it, named within the folder")
        let remote = try #require(byName["0f3a-IMG_0002.jpg"])
        #expect(remote["library"] == .int(1) && remote["kind"] == .string("immich"))
        // The index is the playlist's: goto and thumbnail take it.
        for item in items {
            let path = playlist[item["index"]?.int ?? 0]
            let name = item["name"]?.string ?? "?"
            #expect(path.hasSuffix(name))
        }
    }

    @Test func pagesFollowOnAndAPageStopsAtItsBytes() throws {
        let playlist = Playlist((0..<250).map { "/srv/photos/\(String(repeating: "x", count: 400))-\($0).jpg" })
        let first = PictureListing.page(of: playlist, libraries: [Self.folder], from: 0, count: PictureListing.maximumCount)
        let shown = try #require(first["pictures"]?.array)
        #expect(shown.count < 250 && shown.count >= PictureListing.maximumBytes / 1000, "long names end a page early: \(shown.count)")
        #expect(first.line.count < ControlSession.unsentLimit)
        // Names of quotes and control characters take up to six times their bytes as written.
        let hostile = Playlist((0..<200).map { "/srv/photos/" + String(repeating: "\"\u{1}", count: 1000) + "-\($0).jpg" })
        let written = PictureListing.page(of: hostile, libraries: [Self.folder], from: 0, count: PictureListing.maximumCount).line.count
        #expect(written < ControlSession.unsentLimit, "\(written) bytes in one reply")
        let next = PictureListing.page(of: playlist, libraries: [Self.folder], from: shown.count, count: PictureListing.maximumCount)
        #expect(next["pictures"]?.array?.first?.object?["index"] == .int(shown.count), "the next page starts where the last ended")
        let past = PictureListing.page(of: playlist, libraries: [Self.folder], from: 250, count: 10)
        #expect(past["pictures"] == .array([]) && past["count"] == .int(250))
    }

    @Test func theCommandsParseAndSayWhatTheyTake() throws {
        #expect(try ControlRequest(parsing: "pictures") == .pictures(from: 0, count: PictureListing.defaultCount))
        #expect(try ControlRequest(parsing: "pictures 120 60") == .pictures(from: 120, count: 60))
        #expect(try ControlRequest(parsing: "thumbnail 7") == .thumbnail(7))
        #expect(try ControlRequest(parsing: "settings") == .settings)
        for request in [ControlRequest.pictures(from: 3, count: 9), .thumbnail(4), .settings] {
            #expect(try ControlRequest(parsing: request.line) == request)
        }
        for bad in ["pictures -1", "pictures 0 0", "pictures 0 501", "pictures a", "pictures 1 2 3", "thumbnail", "thumbnail -2", "thumbnail x", "settings all"] {
            #expect(throws: ControlRequestError.self, "\(bad)") { try ControlRequest(parsing: bad) }
        }
        do {
            _ = try ControlRequest(parsing: "pictures 0 999")
            Issue.record("pictures 0 999 was taken")
        } catch {
            #expect(error.message.contains("1 to \(PictureListing.maximumCount)"), "\(error)")
        }
        #expect(ControlRequest.thumbnail(1).isPicture && ControlRequest.screenshot(.png).isPicture && !ControlRequest.pictures(from: 0, count: 1).isPicture)
    }

    @Test func aThumbnailWaitsInLineAsAScreenshotDoes() {
        var session = ControlSession(now: 0)
        var asked: [ControlRequest] = []
        let respond = { (request: ControlRequest) -> [UInt8] in
            asked.append(request)
            return ControlReply.success().line
        }
        let wanted = session.receive(Array("thumbnail 2\nstatus\n".utf8), at: 0, respond: respond)
        #expect(wanted)
        #expect(session.awaitingPicture && session.pictureAsked == .thumbnail(2) && asked.isEmpty)
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xD9]
        _ = session.deliverPicture(ControlReply.success(["jpeg_bytes": .int(jpeg.count)]), bytes: jpeg, at: 1, respond: respond)
        #expect(asked == [.status], "status is answered after the thumbnail, in order")
        let text = String(decoding: session.unsent, as: UTF8.self)
        #expect(text.hasPrefix(#"{"ok":true,"jpeg_bytes":4}"# + "\n"))
        #expect(Array(session.unsent.dropFirst(#"{"ok":true,"jpeg_bytes":4}"#.utf8.count + 1).prefix(4)) == jpeg)
    }

    @Test func settingsGivesEveryValueInForceAndWhatSetTakes() throws {
        var settings = KioskSettings()
        try KioskSettings.table["interval"]!.set(&settings, to: .string("7"))
        let reply = SettingsListing.reply(settings, setKeys: ["interval"])
        let listed = (reply["settings"]?.array ?? []).compactMap { $0.object }
        #expect(listed.map { $0["name"]?.string } == KioskSettings.table.keys.map(Optional.some), "every setting, in the table's order")
        func named(_ name: String) -> JSONObject? { listed.first { $0["name"] == .string(name) } }
        let interval = try #require(named("interval"))
        #expect(interval["value"] == .string("7") && interval["set"] == .bool(true) && interval["settable"] == .bool(true) && interval["reload"] == .string("live"))
        let order = try #require(named("order"))
        #expect(order["set"] == .bool(false) && order["value"] == .string("name"))
        for name in ["socket", "state_dir", "mqtt.broker", "cec", "web.listen"] {
            let setting = try #require(named(name))
            #expect(setting["settable"] == .bool(false), "\(name) stays the config file's")
        }
        let images = try #require(named("images"))
        #expect(images["value"] == .null, "no folder given: null, not a made-up path")
    }

    @Test func aNameToDeleteStaysInsideThePictureFolder() throws {
        #expect(try FolderPicturePath.parts(of: "2024/beach.jpg").get() == ["2024", "beach.jpg"])
        #expect(try FolderPicturePath.parts(of: "IMG 0001 (2).JPG").get() == ["IMG 0001 (2).JPG"])
        // A / followed by a combining mark is one character to Swift, a separator to the kernel.
        #expect(try FolderPicturePath.parts(of: "album/\u{301}keep.jpg").get() == ["album", "\u{301}keep.jpg"])
        for bad in [".\u{301}hidden.jpg", "a/.\u{301}b.jpg", "a/\u{301}/../x.jpg", "", "/etc/passwd", "../kiosk.toml", "2024/../../x.jpg", "./a.jpg", ".hidden.jpg", "a//b.jpg", "a/", "a\nb.jpg",
                    String(repeating: "a", count: 256) + ".jpg"] {
            guard case .failure = FolderPicturePath.parts(of: bad) else {
                Issue.record("\(bad.debugDescription) was taken")
                continue
            }
        }
    }

    /// A bounded fuzz run of the names a form may send: whatever is taken
    /// is plain parts, none empty, none leading out or hidden.
    @Test func noNameTakenLeadsOutOfTheFolder() {
        let pieces = ["a", "b.jpg", ".", "..", "/", "//", "\n", "\u{7F}", "é", " ", "\\", "%2e", "2024"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let name = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            guard case .success(let parts) = FolderPicturePath.parts(of: name) else { continue }
            #expect(!parts.isEmpty && parts.joined(separator: "/") == name, "\(name.debugDescription)")
            for part in parts {
                #expect(!part.isEmpty && !part.hasPrefix(".") && !part.contains("/") && !part.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F },
                        "\(name.debugDescription) gave \(part.debugDescription)")
            }
        }
    }
}
