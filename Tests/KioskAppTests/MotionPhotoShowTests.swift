import Foundation
import ImageCodecs
@testable import KioskApp
import KioskCore
import KioskRendering
import Testing
import TestSupport

/// Motion photos in the show, on simulated time: Google's Motion Photo
/// 1.0, an older MVIMG with only its offset, and an iPhone Live Photo (a
/// still and its MOV, paired by content identifier). Each is a real JPEG
/// made here with the movie of ``ClipShowTests`` (ten flat frames at 10 a
/// second) inside it or beside it. Once the strip rests on the photo the
/// movie plays, then the still shows again; the photo rests its interval,
/// or one play of the movie when that is longer.
@Suite struct MotionPhotoShowTests {
    enum Kind: CaseIterable { case google, microVideo, livePhoto }

    static let stillColour: UInt32 = 0x3060C0
    static let identifier = "DF64C2AE-ED3C-4778-BFCA-C15277E521D2"

    /// A yellow picture, the motion photo `b.jpg` (and its `b.mov`), and a blue one; started on the photo.
    func show(_ kind: Kind, interval: Double, configure: (inout KioskSettings) -> Void = { _ in }) throws -> (SimulatedShow, PictureFolder) {
        let still = try JPEGCodec.encode(RasterImage(size: PixelSize(width: 160, height: 90), filledWith: RGBColor(xrgb: Self.stillColour)))
        var files: [(name: String, bytes: [UInt8])]
        switch kind {
        case .google:
            let movie = try ClipShowTests.clip(frames: 10)
            files = [("b.jpg", MotionPhotoBytes.withXMP(still, MotionPhotoBytes.googleXMP(videoLength: movie.count)) + movie)]
        case .microVideo:
            let movie = try ClipShowTests.clip(frames: 10)
            files = [("b.jpg", MotionPhotoBytes.withXMP(still, MotionPhotoBytes.microVideoXMP(offset: movie.count)) + movie)]
        case .livePhoto:
            files = [("b.jpg", MotionPhotoBytes.livePhotoStill(still, identifier: Self.identifier)),
                     ("b.mov", try ClipShowTests.clip(frames: 10, liveIdentifier: Self.identifier.lowercased()))]
        }
        let folder = try PictureFolder([("a.png", flatPNG(yellow))] + files + [("c.png", flatPNG(blue))])
        var settings = showSettings(folder, interval: interval)
        configure(&settings)
        return (try SimulatedShow(settings, startAt: 1), folder)
    }

    func centre(_ run: SimulatedShow) -> Int? { ClipShowTests.frameColour(run.screen.shown?[240, 135]) }

    /// The still on screen, not a movie frame.
    func showsStill(_ run: SimulatedShow) -> Bool { Self.isStill(run.screen.shown?[240, 135]) }

    /// The still's colour, within JPEG's few levels.
    static func isStill(_ pixel: UInt32?) -> Bool {
        guard let pixel else { return false }
        let p = RGBColor(xrgb: pixel), c = RGBColor(xrgb: stillColour)
        return abs(Int(p.red) - Int(c.red)) <= 8 && abs(Int(p.green) - Int(c.green)) <= 8 && abs(Int(p.blue) - Int(c.blue)) <= 8
    }

    @Test(arguments: Kind.allCases)
    func theMoviePlaysOnceThenTheStillHoldsAndTheRestIsTheLonger(_ kind: Kind) throws {
        // The interval (0.5 s) is shorter than the movie (1 s): the photo rests the movie's length.
        let (run, folder) = try show(kind, interval: 0.5)
        #expect(run.show.strip.decoded.playlist.files.map { Playlist.fileName(of: $0) } == ["a.png", "b.jpg", "c.png"],
                "a Live Photo's MOV is never a slot of its own")
        #expect(Self.isStill(try run.snapshot(at: 1)[240, 135]), "its neighbours and the snapshot show the still")
        run.run(until: 0.2)
        let t0 = try #require(run.show.strip.clip?.clock?.startedAt)
        run.run(until: t0 + 0.95)
        // Every frame, in order, each first on screen at the refresh nearest its time.
        var firstSeen: [Int: Double] = [:]
        for frame in run.frames where frame.shownAt >= t0 {
            if let n = ClipShowTests.frameColour(frame.pixels[240, 135]), firstSeen[n] == nil { firstSeen[n] = frame.shownAt }
        }
        #expect(firstSeen.keys.sorted() == Array(0..<8), "frames seen: \(firstSeen.keys.sorted())")
        for n in 1..<8 {
            let at = try #require(firstSeen[n])
            #expect(abs(at - (t0 + Double(n) * 0.1)) <= 1.0 / 120 + 1e-9, "frame \(n) at \(at - t0) s")
        }
        let status = try #require(run.show.snapshot(at: run.now).strip.clip)
        #expect(status.length == 1 && status.decoder == "software")
        run.run(until: t0 + 0.99)
        #expect(run.show.schedule.target == 1)
        #expect(abs((run.show.schedule.nextAdvance ?? 0) - (t0 + 1.0)) < 1e-6, "the rest ends with the movie")
        run.run(until: t0 + 1.0 + 1.0 / 120)
        #expect(showsStill(run), "played once, the still shows again")
        #expect(run.show.snapshot(at: run.now).strip.clip == nil)
        run.run(until: t0 + 1.6)
        #expect(run.show.schedule.target == 2)
        let movie = kind == .livePhoto ? "b.mov" : "b.jpg"
        #expect(run.log.contains { $0.hasPrefix("playing \(folder.path)/\(movie): H.264 160x90, 10 fps, 1 s") }, "\(run.log)")
    }

    @Test func aLongerIntervalHoldsTheStillAfterTheMovie() throws {
        let (run, folder) = try show(.google, interval: 3)
        _ = folder
        run.run(until: 0.2)
        let t0 = try #require(run.show.strip.clip?.clock?.startedAt)
        run.run(until: t0 + 0.45)
        #expect(centre(run) == 4)
        run.run(until: t0 + 1.5)
        #expect(showsStill(run) && run.show.schedule.target == 1)
        #expect((run.show.schedule.nextAdvance ?? 0) > t0 + 2.5, "the interval, not the movie, ends the rest")
        let drawn = run.frames.count
        run.run(until: t0 + 2.4)
        #expect(run.frames.count == drawn, "nothing is drawn while the still holds")
    }

    @Test func loopPlaysTheMovieWhileThePhotoRests() throws {
        let (run, folder) = try show(.google, interval: 2.5) { $0.clips.motionPhotos = .loop }
        _ = folder
        run.run(until: 0.2)
        let t0 = try #require(run.show.strip.clip?.clock?.startedAt)
        run.run(until: t0 + 1.45)
        #expect(centre(run) == 4, "the second play, at its fifth frame")
        run.run(until: t0 + 2.6)
        #expect(run.show.schedule.target == 2, "the interval ends it")
    }

    @Test(arguments: [Kind.google, Kind.livePhoto])
    func offShowsTheStillAlone(_ kind: Kind) throws {
        let (run, folder) = try show(kind, interval: 0.5) { $0.clips.motionPhotos = .off }
        _ = folder
        #expect(run.show.strip.decoded.playlist.count == 3, "the MOV stays out of the playlist")
        run.run(until: 0.45)
        #expect(run.show.strip.clip == nil && showsStill(run))
        run.run(until: 1)
        #expect(run.show.schedule.target == 2, "the interval alone")
    }
}

/// `kioskd snapshot --frame N` with a clip or a motion photo resting in
/// the centre: the frame the show puts there N frames after it started;
/// past its end a clip keeps its last frame and a motion photo played
/// once shows its still again; a loop counts across plays.
@Suite struct ClipSnapshotTests {
    func frame(_ folder: PictureFolder, _ n: Int, configure: (inout KioskSettings) -> Void = { _ in }) throws -> UInt32 {
        var snapshot = job(folder, at: 1, configure: configure)
        snapshot.frame = n
        return try snapshot.run().frame[960, 540]
    }

    @Test func aClipsFrameN() throws {
        let folder = try PictureFolder([("a.png", flatPNG(yellow)), ("b.mp4", ClipShowTests.clip(frames: 10)), ("c.png", flatPNG(blue))])
        for n in [0, 3, 7, 9] { #expect(ClipShowTests.frameColour(try frame(folder, n)) == n % 8, "frame \(n)") }
        #expect(ClipShowTests.frameColour(try frame(folder, 25)) == 9 % 8, "past the end, the last frame")
        #expect(ClipShowTests.frameColour(try frame(folder, 25) { $0.clips.repeats = .loop }) == 25 % 10 % 8, "a loop counts across plays")
    }

    @Test func aMotionPhotosFrameNAndItsStillAfter() throws {
        let still = try JPEGCodec.encode(RasterImage(size: PixelSize(width: 160, height: 90), filledWith: RGBColor(xrgb: MotionPhotoShowTests.stillColour)))
        let movie = try ClipShowTests.clip(frames: 10)
        let photo = MotionPhotoBytes.withXMP(still, MotionPhotoBytes.googleXMP(videoLength: movie.count)) + movie
        let folder = try PictureFolder([("a.png", flatPNG(yellow)), ("b.jpg", photo), ("c.png", flatPNG(blue))])
        #expect(MotionPhotoShowTests.isStill(try frame(folder, 0)), "frame 0 is what a still shows")
        #expect(ClipShowTests.frameColour(try frame(folder, 4)) == 4)
        #expect(MotionPhotoShowTests.isStill(try frame(folder, 12)), "played once, the still again")
        #expect(ClipShowTests.frameColour(try frame(folder, 12) { $0.clips.motionPhotos = .loop }) == 2)
        #expect(MotionPhotoShowTests.isStill(try frame(folder, 4) { $0.clips.motionPhotos = .off }))
    }
}

/// Live Photos in the watched folder: a MOV copied in after its still
/// pairs with it (the still is sent again, carrying its movie, and the MOV
/// never joins the playlist); when the still is deleted, the MOV is a clip
/// of its own.
@Suite struct LivePhotoWatchTests {
    @Test func aMovieCopiedInAfterItsStillPairsAndIsAClipAgainWhenTheStillGoes() throws {
        let folder = try PictureFolderFixture()
        let identifier = MotionPhotoShowTests.identifier
        try folder.write("IMG_0042.JPG", MotionPhotoBytes.livePhotoStill(PictureFolderFixture.photo, identifier: identifier))
        try folder.write("other.jpg")
        folder.age("IMG_0042.JPG")
        folder.age("other.jpg")
        let watcher = try FolderWatcher(root: folder.path, settings: FolderSettings())
        defer { watcher.stop() }
        let start = try #require(watcher.firstListing)
        #expect(start.map(\.companion) == [nil, nil])
        let helpers = FolderWatcherTests()
        let still = folder.path + "/IMG_0042.JPG", movie = folder.path + "/IMG_0042.MOV"
        try folder.write("IMG_0042.MOV", ClipShowTests.clip(frames: 3, liveIdentifier: identifier))
        let paired = helpers.news(from: watcher) { helpers.added($0).contains(still) }
        var playlist = Playlist(entries: start)
        for case .changes(let change) in paired { _ = playlist.apply(change, keepingSlot: 0) }
        #expect(playlist.files == [still, folder.path + "/other.jpg"], "the MOV is no slot")
        #expect(playlist.companion(of: still) == movie)
        try folder.remove("IMG_0042.JPG")
        let alone = helpers.news(from: watcher) { helpers.added($0).contains(movie) }
        for case .changes(let change) in alone { _ = playlist.apply(change, keepingSlot: 0) }
        #expect(playlist.files == [movie, folder.path + "/other.jpg"])
        #expect(playlist.companion(of: movie) == nil)
    }
}
