import Foundation
@testable import KioskApp
import KioskCore
import KioskRendering
import Testing

/// Seed 001's animation in the running show: a picture deleted or copied in
/// on screen shrinks away or grows in over one `transition`, frame by frame,
/// from exactly what was on screen to exactly what `kioskd snapshot` draws
/// for the new folder.
@Suite struct ChangeAnimationTests {
    func colourCount(_ frame: RasterImage, _ colour: UInt32) -> Int { frame.pixels.count { $0 == colour } }

    /// The show on four colours, at rest on the first, with the folder's news
    /// delivered at 2 s.
    func showChanging(_ folder: PictureFolder, at position: Int = 0, _ news: () throws -> [FolderNews]) throws -> (SimulatedShow, before: RasterImage, framesBefore: Int) {
        let run = try SimulatedShow(showSettings(folder, interval: 60, transition: 0.5), startAt: position)
        run.run(until: 2)
        let before = try #require(run.screen.shown)
        let framesBefore = run.frames.count
        run.show.folderChanged(try news(), at: run.now)
        return (run, before, framesBefore)
    }

    @Test func theCentredPictureDeletedShrinksWhileTheNextSlidesIntoItsPlace() throws {
        let folder = try fourColours()
        let (run, before, framesBefore) = try showChanging(folder, at: 1) {
            try FileManager.default.removeItem(atPath: folder.path + "/b.png")
            return [.changes(PlaylistChange(removed: [folder.path + "/b.png"]))]
        }
        run.run(until: 3)
        let frames = run.frames.dropFirst(framesBefore).map(\.pixels)
        // One frame a refresh through the half-second transition, from the
        // old strip to the new one, and then nothing more.
        #expect((29...32).contains(frames.count), "\(frames.count) frames")
        #expect(frames.first == before)
        #expect(try frames.last == (run.snapshot(at: 1)))
        #expect(run.show.centredItem == 1 && run.show.pictures.pictures.playlist[1].hasSuffix("c.png"))
        // The green picture shrinks frame by frame, and blue takes its place.
        let green = frames.map { colourCount($0, 0x28E028) }
        #expect(green.first! > 0 && green.last! == 0)
        for (a, b) in zip(green, green.dropFirst()) { #expect(b <= a) }
        let middle = frames[frames.count / 2]
        #expect(green[frames.count / 2] < green.first! / 2 && green[frames.count / 2] > 0)
        #expect(middle != before && middle != frames.last)
        #expect(run.show.statistics.refreshesMissed == 0)
        #expect(run.show.change == nil)
    }

    @Test func aPictureCopiedInBesideTheCentreGrowsAsTheOthersMakeRoom() throws {
        let folder = try fourColours()
        let white: UInt32 = 0xF0F0F0
        let (run, before, framesBefore) = try showChanging(folder) {
            try Data(flatPNG(white)).write(to: URL(fileURLWithPath: folder.path + "/a2.png"))
            return [.changes(PlaylistChange(added: [PlaylistEntry(folder.path + "/a2.png")]))]
        }
        run.run(until: 3)
        let frames = run.frames.dropFirst(framesBefore).map(\.pixels)
        #expect(frames.first == before)
        #expect(try frames.last == (run.snapshot(at: 0)))
        let grown = frames.map { colourCount($0, white) }
        #expect(grown.first == 0 && grown.last! > 0)
        for (a, b) in zip(grown, grown.dropFirst()) { #expect(b >= a) }
        // The centred picture never moves.
        let red = frames.map { colourCount($0, 0xE02828) }
        #expect(Set(red).count == 1)
    }

    @Test func changesOffScreenRedrawNothingThatMoves() throws {
        let names = (0..<12).map { String(format: "p%02d.png", $0) }
        let folder = try PictureFolder(names.enumerated().map { ($1, try flatPNG(0x101010 * UInt32($0 + 1))) })
        let (run, before, framesBefore) = try showChanging(folder, at: 1) {
            [.changes(PlaylistChange(removed: [folder.path + "/p07.png"]))]
        }
        run.run(until: 3)
        #expect(run.show.pictures.pictures.playlist.count == 11)
        let frames = run.frames.dropFirst(framesBefore).map(\.pixels)
        #expect(frames.count <= 1)
        #expect(frames.allSatisfy { $0 == before })
    }

    /// A thousand files copied in beside the centre: no blur of a thousand
    /// growing pictures, one frame of the new strip.
    @Test func aThousandArrivalsAreShownAtOnceInOneFrame() throws {
        let folder = try fourColours()
        let (run, _, framesBefore) = try showChanging(folder) {
            let bytes = Data(try flatPNG(0xF0F0F0))
            let paths = (0..<1000).map { folder.path + "/a\($0).png" }
            for path in paths { try bytes.write(to: URL(fileURLWithPath: path)) }
            return [.changes(PlaylistChange(added: paths.map { PlaylistEntry($0) }))]
        }
        #expect(run.show.change == nil)
        run.run(until: 3)
        #expect(run.frames.count - framesBefore == 1)
    }

    /// News that comes while a change is animated waits for its end, then
    /// animates once: the playlist is right within a transition.
    @Test func newsDuringAnAnimationWaitsForItsEnd() throws {
        let folder = try fourColours()
        let (run, _, _) = try showChanging(folder, at: 1) {
            [.changes(PlaylistChange(removed: [folder.path + "/b.png"]))]
        }
        run.run(until: 2.2)
        run.show.folderChanged([.changes(PlaylistChange(removed: [folder.path + "/c.png"]))], at: run.now)
        #expect(run.show.pictures.pictures.playlist.count == 3)
        run.run(until: 2.6)
        #expect(run.show.pictures.pictures.playlist.count == 2)
        #expect(run.show.change != nil)
        run.run(until: 3.5)
        #expect(run.show.change == nil)
        #expect(run.show.pictures.pictures.playlist.files.map { ($0 as NSString).lastPathComponent } == ["a.png", "d.png"])
    }
}

/// `order = "shuffle"` in the running show: every round of the loop shows
/// every picture once, in a new order each round.
@Suite struct ShuffleShowTests {
    @Test func eachRoundShowsEveryPictureOnceInANewOrder() throws {
        let count = 10
        let folder = try PictureFolder((0..<count).map { ("p\($0).png", try flatPNG(0x101010 * UInt32($0 + 1))) })
        var settings = showSettings(folder, interval: 0.5, transition: 0.1)
        settings.folder.order = .shuffle
        let run = try SimulatedShow(settings)
        let first = run.show.pictures.pictures.playlist[0]
        run.run(until: 0.6 * Double(4 * count) + 0.3)
        let shown = [first] + run.events.compactMap { event -> String? in
            if case .pictureCentred(_, let file, _, _) = event { file } else { nil }
        }
        #expect(shown.count >= 4 * count)
        let rounds = (0..<4).map { Array(shown[($0 * count)..<(($0 + 1) * count)]) }
        for round in rounds { #expect(Set(round).count == count, "\(round)") }
        for (a, b) in zip(shown, shown.dropFirst()) { #expect(a != b) }
        #expect(Set(rounds).count >= 3, "rounds repeat: \(rounds)")
        #expect(run.show.statistics.refreshesMissed == 0)
    }
}
