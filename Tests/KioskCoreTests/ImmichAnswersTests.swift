@testable import KioskCore
import Testing

/// Immich's answers read (``ImmichAnswers``): the fields kioskd uses, the
/// path named when a field is of the wrong type, and the names the mirror
/// gives what it fetches.
struct ImmichAnswersTests {
    static func asset(_ id: String = "0b0e6c1e-1f1a-4c3e-8d7a-000000000001", name: JSONValue = "IMG_0001.HEIC") -> JSONValue {
        .object([
            "id": .string(id), "type": "IMAGE", "originalFileName": name, "localDateTime": "2024-05-01T12:30:00.000Z",
            "checksum": "q1w2e3", "updatedAt": "2024-06-01T00:00:00.000Z", "isTrashed": false, "livePhotoVideoId": .null,
            "exifInfo": .object(["description": "At the lake", "fileSizeInByte": 2_400_000]),
            "people": .array([.object(["id": "p1", "name": "Grandma"]), .object(["id": "p2", "name": ""])]),
        ])
    }

    static func searchPage(_ items: [JSONValue], next: JSONValue = .null) -> JSONValue {
        .object(["albums": .object(["items": .array([])]), "assets": .object(["items": .array(items), "nextPage": next, "count": .int(items.count)])])
    }

    @Test func aSearchPagesAssetsAreReadWithTheirCaptionFieldsAndTheNextPage() throws {
        let page = try ImmichAnswers.searchPage(Self.searchPage([Self.asset()], next: "2"))
        #expect(page.nextPage == 2 && page.notes == [])
        let asset = try #require(page.assets.first)
        #expect(asset.id == "0b0e6c1e-1f1a-4c3e-8d7a-000000000001" && asset.kind == .image && asset.originalFileName == "IMG_0001.HEIC")
        #expect(asset.description == "At the lake" && asset.fileSize == 2_400_000)
        #expect(asset.people == ["Grandma"], "a face without a name is not a name")
        #expect(try ImmichAnswers.searchPage(Self.searchPage([])).nextPage == nil)
    }

    @Test func aWrongFrameIsRefusedByItsPathAndAWrongAssetPassedOverByItsOwn() throws {
        let frame = JSONValue.object(["assets": .object(["items": .object(["id": 5])])])
        #expect(throws: ImmichAnswerError(path: "assets.items", expected: "a list", found: "an object")) { try ImmichAnswers.searchPage(frame) }
        #expect(throws: ImmichAnswerError(path: "the answer", expected: "a list", found: "an object")) { try ImmichAnswers.assetList(.object([:])) }
        #expect(throws: ImmichAnswerError(path: "assets.nextPage", expected: "a page number", found: "\"soon\"")) {
            try ImmichAnswers.searchPage(Self.searchPage([], next: "soon"))
        }

        let read = try ImmichAnswers.searchPage(Self.searchPage([
            Self.asset(), Self.asset("../../etc"), Self.asset("0b0e6c1e-1f1a-4c3e-8d7a-000000000003", name: 42),
        ]))
        #expect(read.assets.map(\.id) == ["0b0e6c1e-1f1a-4c3e-8d7a-000000000001"])
        #expect(read.notes == [
            "passing over an asset: assets.items[1].id: expected an id of letters, digits and hyphens, found \"../../etc\"",
            "passing over an asset: assets.items[2].originalFileName: expected a string, found a number",
        ])
    }

    @Test func albumsPeopleAndMemoriesAreRead() throws {
        let albums = try ImmichAnswers.albums(.array([.object(["id": "a1", "albumName": "Holidays"])]))
        #expect(albums.map(\.id) == ["a1"] && albums.map(\.name) == ["Holidays"])
        let people = try ImmichAnswers.people(.object(["people": .array([.object(["id": "p1", "name": "Grandma"])]), "hasNextPage": true]))
        #expect(people.people.map(\.name) == ["Grandma"] && people.hasNextPage)
        #expect(throws: ImmichAnswerError(path: "[0].albumName", expected: "a string", found: "null")) {
            try ImmichAnswers.albums(.array([.object(["id": "a1", "albumName": .null])]))
        }
        let memories = try ImmichAnswers.memories(.array([.object(["assets": .array([Self.asset()])]), .object(["assets": .array([])])]))
        #expect(memories.assets.count == 1)
    }

    @Test func namesOrIdsAreResolvedExactlyThenWithoutRegardToCase() {
        let known = [(id: "a1", name: "Holidays"), (id: "a2", name: "holidays"), (id: "a3", name: "Work")]
        let resolved = ImmichRequests.resolve(["holidays", "WORK", "a1", "Nowhere"], among: known)
        #expect(resolved.ids == ["a2", "a3", "a1"] && resolved.unknown == ["Nowhere"])
    }

    @Test func theMirrorsNameIsTheDateTheNameAndTheIdsEnd() throws {
        let asset = try #require(try ImmichAnswers.assetList(.array([Self.asset()])).assets.first)
        #expect(asset.mirrorName(.picture(.preview)) == "2024-05-01 12.30.00 IMG_0001 000000000001.jpg")
        #expect(asset.mirrorName(.picture(.original)) == "2024-05-01 12.30.00 IMG_0001 000000000001.heic")
        var hostile = asset
        hostile.originalFileName = "../../.ssh/\u{7}key.jpg"
        hostile.localDateTime = "yesterday"
        #expect(hostile.mirrorName(.picture(.preview)) == "undated _.._.ssh__key 000000000001.jpg")
        hostile.originalFileName = String(repeating: "é", count: 300) + ".jpg"
        let long = hostile.mirrorName(.picture(.preview))
        #expect(long.utf8.count <= 8 + 100 + 18, "a long name is cut, whole characters: \(long.utf8.count) bytes")
        #expect(hostile.remoteFile(.picture(.preview)) != nil)
        let preview = try #require(asset.remoteFile(.picture(.preview))), original = try #require(asset.remoteFile(.picture(.original)))
        #expect(preview.version.size == ImmichAsset.previewEstimate && original.version.size == 2_400_000)
        #expect(preview.version != original.version, "a change of size fetches again")
    }

    @Test func aLivePhotoKeepsItsMovieBesideItsStillAndAClipIsFetchedAsImmichPlaysItBack() throws {
        var live = try #require(try ImmichAnswers.assetList(.array([Self.asset()])).assets.first)
        live.livePhotoVideoId = "0b0e6c1e-1f1a-4c3e-8d7a-00000000f00d"
        #expect(live.mirrored(size: .preview, clips: true) == [.picture(.preview), .motion])
        #expect(live.mirrored(size: .preview, clips: false) == [.picture(.preview)], "video = false: the still alone")
        #expect(live.mirrorName(.motion) == "2024-05-01 12.30.00 IMG_0001 000000000001.mov", "the movie's name is the still's, .mov")
        #expect(live.fetchPath(.motion) == "api/assets/0b0e6c1e-1f1a-4c3e-8d7a-00000000f00d/video/playback")
        #expect(live.fetchPath(.picture(.preview)) == "api/assets/0b0e6c1e-1f1a-4c3e-8d7a-000000000001/thumbnail?size=preview")
        var clip = live
        clip.kind = .video
        clip.livePhotoVideoId = nil
        #expect(clip.mirrored(size: .preview, clips: true) == [.clip] && clip.mirrored(size: .preview, clips: false) == [])
        #expect(clip.mirrorName(.clip).hasSuffix(".mp4") && clip.fetchPath(.clip) == "api/assets/0b0e6c1e-1f1a-4c3e-8d7a-000000000001/video/playback")
        #expect(live.fetchPath(.picture(.original)) == "api/assets/0b0e6c1e-1f1a-4c3e-8d7a-000000000001/original")
    }

    @Test func theFactsFileReadsBackWhatItWroteAndNothingOfAnotherVersion() {
        let facts = [
            "a.jpg": PictureFacts(title: "At the\tlake\n", taken: "2024-05-01T12:30:00.000Z", people: ["Anna", "Grand\u{1F}ma"], album: "Holidays", liveIdentifier: "L1"),
            "b.jpg": PictureFacts(),
        ]
        let read = PictureFactsFile.read(PictureFactsFile.encoded(facts))
        #expect(read?["a.jpg"] == PictureFacts(title: "At the lake ", taken: "2024-05-01T12:30:00.000Z", people: ["Anna", "Grand ma"], album: "Holidays", liveIdentifier: "L1"))
        #expect(read?["b.jpg"] == PictureFacts())
        #expect(PictureFactsFile.read(Array("kioskd-facts 0\n".utf8)) == nil && PictureFactsFile.read(Array("kioskd-facts 1\nx\ty\n".utf8)) == nil)
    }

    @Test func theRequestsBodiesAreTheFieldsImmichTakes() {
        let body = String(decoding: ImmichRequests.search(albumID: "a1", page: 2), as: UTF8.self)
        #expect(body == #"{"albumIds":["a1"],"type":"IMAGE","withExif":true,"withPeople":true,"page":2,"size":1000}"#)
        #expect(String(decoding: ImmichRequests.search(favourites: true, page: 1), as: UTF8.self).hasPrefix(#"{"isFavorite":true,"#))
        let body2 = String(decoding: ImmichRequests.search(favourites: true, clips: true, page: 1), as: UTF8.self)
        #expect(!body2.contains("\"type\""), "clips too: no type asked for")
    }

    @Test func previewsUnlessTheScreenIsMuchLargerThanOne() {
        #expect(ImmichPictureSize.choose(forPanel: nil) == .preview)
        #expect(ImmichPictureSize.choose(forPanel: PixelSize(width: 1920, height: 1080)) == .preview)
        #expect(ImmichPictureSize.choose(forPanel: PixelSize(width: 1080, height: 1920)) == .preview)
        #expect(ImmichPictureSize.choose(forPanel: PixelSize(width: 2560, height: 1440)) == .original)
    }

    @Test func theSettingsSayWhatIsMissing() throws {
        var settings = ImmichSettings()
        #expect(settings.problem == nil)
        settings.url = try ServerAddress(parsing: "https://photos.example")
        #expect(settings.problem?.contains("api_key_file") == true)
        settings.apiKeyFile = "immich-api-key"
        #expect(settings.problem?.hasPrefix("immich chooses no photos") == true)
        settings.random = 20
        #expect(settings.problem == nil)
        settings.url = try ServerAddress(parsing: "http://photos.example")
        settings.caFile = "/etc/ca.pem"
        #expect(settings.problem?.contains("ca_file is for https://") == true)
    }
}
