import Foundation
import ImageCodecs
@testable import KioskApp
import KioskCore
import KioskRendering
import Synchronization
import TestSupport
import Testing

func pictureSettings(_ folder: PictureFolder) -> KioskSettings {
    var settings = KioskSettings()
    settings.images = folder.path
    settings.layout.background = background
    return settings
}

func fullHDLayout(_ configure: (inout KioskSettings) -> Void = { _ in }) throws -> ShowLayout {
    var s = KioskSettings()
    configure(&s)
    return try ShowLayout(settings: s, panel: PixelSize(width: 1920, height: 1080))
}

/// The show's parts for `folder` on a 1920x1080 screen.
func fullHDAssembly(_ folder: PictureFolder, _ configure: (inout KioskSettings) -> Void = { _ in }) throws -> ShowAssembly {
    var s = pictureSettings(folder)
    configure(&s)
    return try ShowAssembly(settings: s, panel: PixelSize(width: 1920, height: 1080))
}

@Suite struct DecodedPicturesTests {
    /// A file listed, then deleted before it was decoded (an operator tidying
    /// the folder): one line, dropped from the playlist, the show goes on.
    @Test func aFileDeletedBetweenListingAndDecodingIsSkipped() throws {
        let folder = try PictureFolder([("a.png", flatPNG(red)), ("b.png", flatPNG(green)), ("c.png", flatPNG(blue))])
        let assembly = try fullHDAssembly(folder)
        var pictures = assembly.makePictures()
        try FileManager.default.removeItem(atPath: folder.path + "/b.png")
        let refused = pictures.loadNow(
            { PreloadPlan(ahead: 0, behind: 0).items(assembly.layout.geometry, at: 0, travelling: .forward, playlist: $0) },
            with: assembly.recipe)
        #expect(pictures.playlist.files.map { ($0 as NSString).lastPathComponent } == ["a.png", "c.png"])
        #expect(refused.map(\.description) == ["\(folder.path)/b.png: open failed: No such file or directory (errno 2)"])
        #expect(pictures.picture(0)?[600, 500] == red)
        #expect(pictures.picture(1)?[600, 500] == blue)
    }

    /// A FIFO named like a photo must not hang the decoder in open().
    @Test func aFIFONamedLikeAPhotoIsRefusedWithoutWaiting() throws {
        let folder = try PictureFolder([])
        let path = folder.path + "/pipe.jpg"
        #expect(mkfifo(path, 0o644) == 0)
        let recipe = PictureRecipe(loader: PictureLoader(background: background), slot: PixelSize(width: 100, height: 100))
        let outcome = recipe.outcome(of: PictureKey(file: path))
        guard case .failed(let error) = outcome else { Issue.record("a FIFO decoded"); return }
        #expect(error.description == "\(path): not a regular file")
    }

    /// The show keeps only its neighbourhood: after moving from picture 0 to
    /// picture 20 of 30, nothing near 0 is held, and the cache never exceeds
    /// its budget on the way.
    @Test func theCacheHoldsOnlyTheNeighbourhoodWithinItsBudget() throws {
        let names = (0..<30).map { String(format: "%02d.png", $0) }
        let folder = try PictureFolder(try names.map { ($0, try flatPNG(red)) })
        let assembly = try fullHDAssembly(folder) { $0.cacheMegabytes = 24 }   // room for 4 of the 5.2 MiB pictures
        #expect(assembly.layout.cacheBudget == 24 << 20)
        var show = PictureNeighbourhood(pictures: assembly.makePictures(), geometry: assembly.layout.geometry, position: 0)
        for step in 0...20 {
            show.position = Double(step)
            for path in show.wanted() {
                _ = show.take([assembly.recipe.outcome(of: path)])
                #expect(show.pictures.cachedBytes <= 24 << 20)
            }
            #expect(show.allOnScreen)
        }
        let held = (0..<30).filter { show.pictures.picture($0) != nil }
        // On screen 19, 20, 21; then 22 ahead and 18 behind: one too many for 24 MiB.
        #expect(held == [19, 20, 21, 22])
        #expect(show.pictures.cachedBytes == 4 * 1344 * 1008 * 4)
    }

    @Test func aTooSmallCacheIsRaisedToWhatTheScreenNeeds() throws {
        let layout = try fullHDLayout { $0.cacheMegabytes = 1 }
        #expect(layout.cacheBudget == 4 * 1344 * 1080 * 4)
        #expect(layout.notes == ["cache_mb 1 cannot hold the 4 pictures that can be on screen at once: using 23 MiB"])
        #expect(try fullHDLayout().cacheBudget == 6 * 1344 * 1080 * 4)
    }
}

/// The decode worker's hand-off, held up at each decode by a pipe the test
/// writes to, so every step is deterministic.
@Suite struct DecodeWorkerTests {
    final class Gate: @unchecked Sendable {
        let fds: [Int32]
        let started = Mutex<[String]>([])
        init() {
            var fds: [Int32] = [0, 0]
            pipe(&fds)
            closeOnExec(fds)
            self.fds = fds
        }
        deinit { fds.forEach { close($0) } }
        /// Lets `count` waiting decodes finish.
        func open(_ count: Int) { for _ in 0..<count { var b: UInt8 = 1; write(fds[1], &b, 1) } }
        func pass(_ path: String) {
            started.withLock { $0.append(path) }
            var b: UInt8 = 0
            read(fds[0], &b, 1)
        }
        func waitUntilStarted(_ count: Int) {
            let begun = eventually(every: 0.001) { started.withLock { $0.count } >= count }
            #expect(begun, "\(count) decode(s) never began")
        }
    }

    func collect(_ worker: DecodeWorker, _ count: Int) -> [PictureKey] {
        var keys: [PictureKey] = []
        while keys.count < count, worker.waitForFinished(milliseconds: 30_000) {
            for case .decoded(let key, _, _, _) in worker.takeFinished() { keys.append(key) }
        }
        return keys
    }

    let picture = RasterImage(size: PixelSize(width: 2, height: 2), filledWith: RGBColor(xrgb: 0xFFFFFF))

    @Test func theMostUrgentFirstAndANewListReplacesTheOld() throws {
        let gate = Gate()
        let picture = self.picture
        let worker = try DecodeWorker { key in gate.pass(key.description); return .decoded(key, picture: picture) }
        worker.request(["a", "b", "c", "d"])
        gate.waitUntilStarted(1)
        // The show moved on while "a" was decoding: "b" is no longer wanted,
        // "a" (in progress) is not decoded twice.
        worker.request(["d", "c", "a"])
        // Nothing is ready and the run loop's call returns at once.
        #expect(worker.takeFinished().isEmpty)
        gate.open(3)
        #expect(collect(worker, 3) == ["a", "d", "c"])
        #expect(gate.started.withLock { $0 } == ["a", "d", "c"])
        worker.stop()
    }

    /// The run loop asks again for what it still lacks, and a picture may
    /// finish in between: one done but not yet taken is not decoded again
    /// (a broken one would be refused, and logged, twice).
    @Test func aPictureFinishedButNotYetTakenIsNotDecodedAgain() throws {
        let gate = Gate()
        let picture = self.picture
        let worker = try DecodeWorker { key in gate.pass(key.description); return .decoded(key, picture: picture) }
        worker.request(["a", "b"])
        gate.open(1)
        #expect(worker.waitForFinished(milliseconds: 30_000))
        gate.waitUntilStarted(2)   // "a" is finished, "b" waits at the gate
        worker.request(["a", "b", "c"])
        gate.open(2)
        #expect(collect(worker, 3) == ["a", "b", "c"])
        #expect(gate.started.withLock { $0 } == ["a", "b", "c"])
        // Once taken, a path asked for again is decoded again (the cache let it go).
        worker.request(["a"])
        gate.open(1)
        #expect(collect(worker, 1) == ["a"])
        worker.stop()
    }

    @Test func theReadyDescriptorWakesThePollOnlyWhenAPictureIsDone() throws {
        let gate = Gate()
        let picture = self.picture
        let worker = try DecodeWorker { key in gate.pass(key.description); return .decoded(key, picture: picture) }
        worker.request(["a"])
        gate.waitUntilStarted(1)
        var pfd = pollfd(fd: worker.readyFD, events: Int16(POLLIN), revents: 0)
        #expect(poll(&pfd, 1, 0) == 0)
        gate.open(1)
        #expect(poll(&pfd, 1, 30_000) == 1)
        #expect(worker.takeFinished().count == 1)
        #expect(poll(&pfd, 1, 0) == 0)   // taken: quiet again
        worker.stop()
    }

    /// Before its picture arrives a slot shows the background; the frame
    /// after the hand-off shows the picture. A broken file leaves the
    /// playlist with its line and the next file takes its place.
    @Test func slotsShowTheBackgroundUntilTheirPictureArrives() throws {
        let folder = try PictureFolder([
            ("a.png", flatPNG(red)), ("b.jpg", [0xFF, 0xD8, 0xFF, 0xE0, 0, 0]), ("c.png", flatPNG(blue)),
        ])
        let assembly = try fullHDAssembly(folder)
        let layout = assembly.layout
        var show = PictureNeighbourhood(pictures: assembly.makePictures(), geometry: layout.geometry, position: 0)
        let worker = try DecodeWorker(recipe: assembly.recipe)
        defer { worker.stop() }
        func frame() -> RasterImage {
            var frame = RasterImage(size: PixelSize(width: 1920, height: 1080), filledWith: .black)
            frame.withSurface { surface in
                layout.renderer.draw(into: surface, position: show.position, playlist: show.pictures.index) {
                    show.pictures.picture($0)
                }
            }
            return frame
        }
        #expect(frame()[960, 540] == background.xrgb)
        worker.request(show.wanted())
        var refused: [String] = []
        while !show.allOnScreen, worker.waitForFinished(milliseconds: 30_000) {
            for error in show.take(worker.takeFinished()).refused {
                refused.append(error.description)
                _ = show.pictures.remove(error.path, keepingSlot: 0)
            }
            worker.request(show.wanted())
        }
        // libjpeg's own words for a file that ends before its frame header.
        #expect(refused == ["\(folder.path)/b.jpg: cannot decode: JPEG datastream contains no image"])
        let shown = frame()
        #expect(shown[960, 540] == red)
        #expect(shown[1900, 540] == blue)   // c moved up into b's place on the right
        #expect(shown[20, 540] == blue)     // and, with two pictures, also on the left
    }

    /// `portrait_pairs`: the worker reads sizes after the pictures asked
    /// for, all it was given in one batch, and decodes a pair's key as one picture.
    @Test func theWorkerMeasuresAfterDecodingAndDecodesPairs() throws {
        let portrait = try PNGCodec.encode(RasterImage(size: PixelSize(width: 300, height: 400), filledWith: RGBColor(xrgb: red)))
        let names = (0..<40).map { "p\($0 < 10 ? "0" : "")\($0).png" }
        let folder = try PictureFolder(names.map { ($0, portrait) } + [("x.png", Array("not a picture".utf8))])
        var settings = pictureSettings(folder)
        settings.layout.portraitPairs = true
        let assembly = try ShowAssembly(settings: settings, panel: PixelSize(width: 1920, height: 1080))
        let worker = try DecodeWorker(recipe: assembly.recipe)
        defer { worker.stop() }
        let paths = (names + ["x.png"]).map { folder.path + "/" + $0 }
        let pair = PictureKey(pair: paths[0], paths[1])
        worker.request([pair])
        worker.measure(paths)
        var outcomes: [DecodeOutcome] = []
        while outcomes.count < 2, worker.waitForFinished(milliseconds: 30_000) { outcomes += worker.takeFinished() }
        guard outcomes.count == 2, case .decoded(let key, let picture, nil, _) = outcomes[0], case .measured(let sizes) = outcomes[1] else {
            Issue.record("expected a picture, then the sizes: \(outcomes.map(\.files))")
            return
        }
        #expect(key == pair && picture.size == PixelSize(width: 1342, height: 869))
        #expect(sizes.map(\.path) == paths)
        #expect(sizes.dropLast().allSatisfy { $0.size == PixelSize(width: 300, height: 400) })
        #expect(sizes.last == MeasuredSize(path: paths[40], size: nil))
    }

}
