import ImageCodecs
@testable import KioskApp
import KioskCore
import KioskRendering
import Testing

/// `portrait_pairs` on screen: two portraits share a slot, `next` moves
/// over the pair at once, and `status` names both files.
@Suite struct PortraitPairsShowTests {
    /// A picture with something to resample: red and green ramps across
    /// and down, `tint` in blue.
    private func pattern(_ width: Int, _ height: Int, tint: UInt32) -> RasterImage {
        var image = RasterImage(size: PixelSize(width: width, height: height), filledWith: .black)
        for y in 0..<height {
            for x in 0..<width { image[x, y] = UInt32(x * 255 / width) << 16 | UInt32(y * 255 / height) << 8 | tint }
        }
        return image
    }

    /// A landscape, a left portrait, a right portrait and a landscape, in
    /// playing order (names chosen for their sides, ``PortraitPairs/fileName(_:ext:side:)``).
    private struct Pictures {
        let folder: PictureFolder
        let names: [String]
        let left: RasterImage, right: RasterImage
        var paths: [String] { names.map { folder.path + "/" + $0 } }
    }

    private func pictures(rightBytes: (([UInt8]) -> [UInt8])? = nil) throws -> Pictures {
        let names = zip(["00", "01", "02", "03"], [PortraitPairs.Side.right, .left, .right, .left]).map {
            PortraitPairs.fileName($0, ext: "png", side: $1)
        }
        let left = pattern(300, 400, tint: 0x40), right = pattern(330, 440, tint: 0xC0)
        let rightPNG = try PNGCodec.encode(right)
        let folder = try PictureFolder([
            (names[0], flatPNG(yellow)), (names[1], try PNGCodec.encode(left)), (names[2], rightBytes?(rightPNG) ?? rightPNG),
            (names[3], flatPNG(blue)),
        ])
        return Pictures(folder: folder, names: names, left: left, right: right)
    }

    private func pairSettings(_ pictures: Pictures) -> KioskSettings {
        var settings = showSettings(pictures.folder, interval: 60)
        settings.layout.portraitPairs = true
        return settings
    }

    /// At 1920x1080 the slot is 1344x1080 at x = 288, 38 px apart. Two 3:4
    /// portraits share it at one height: h = (1344 - 38) / (3/4 + 3/4) =
    /// 870, each 652 wide (and fitted into that, 652x869 and 652x870),
    /// 1,342 in all, centred: the gap (38 px of background) is centred on
    /// the screen's middle column, 960.
    @Test func aPairSlotIsItsTwoPicturesFittedSideBySide() throws {
        let pictures = try pictures()
        let frame = try job(pictures.folder, at: 1) { $0.layout.portraitPairs = true }.run().frame
        let (leftSize, rightSize) = PortraitPairs.sideBySide(pictures.left.size, pictures.right.size, slot: PixelSize(width: 1344, height: 1080), spacing: 38)
        #expect(leftSize == PixelSize(width: 652, height: 870) && rightSize == leftSize)
        // Each picture is its original fitted to its share (the resampler's own output), side by side.
        let left = resample(pictures.left, to: aspectFitSize(of: pictures.left.size, in: leftSize))
        let right = resample(pictures.right, to: aspectFitSize(of: pictures.right.size, in: rightSize))
        let pairWidth = left.width + 38 + right.width, pairHeight = max(left.height, right.height)
        let x0 = 288 + (1344 - pairWidth) / 2, y0 = (1080 - pairHeight) / 2
        var mismatches = 0
        for y in 0..<left.height {
            for x in 0..<left.width where frame[x0 + x, y0 + (pairHeight - left.height) / 2 + y] != left[x, y] { mismatches += 1 }
        }
        for y in 0..<right.height {
            for x in 0..<right.width where frame[x0 + left.width + 38 + x, y0 + (pairHeight - right.height) / 2 + y] != right[x, y] {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
        // Between them, and above and below, the background.
        for x in [x0 + left.width, 960, x0 + left.width + 37] { #expect(frame[x, 540] == background.xrgb, "x=\(x)") }
        #expect(frame[960, y0 - 1] == background.xrgb && frame[700, y0 - 1] == background.xrgb)
        #expect(frame[x0 + 10, y0 + 10] & 0xFF == 0x40 && frame[x0 + pairWidth - 10, y0 + 10] & 0xFF == 0xC0)
        // The landscape neighbours peek in either side, as without pairs.
        #expect(frame[100, 540] == yellow && frame[1900, 540] == blue)
    }

    @Test func withoutPortraitPairsEachPortraitHasItsOwnSlot() throws {
        let pictures = try pictures()
        let frame = try job(pictures.folder, at: 1).run().frame
        // The left portrait alone fills the slot's height, centred: no gap at the screen's middle.
        #expect(frame[960, 540] & 0xFF == 0x40)
    }

    @Test func nextMovesOverThePairAndStatusNamesBoth() throws {
        let pictures = try pictures()
        let run = try SimulatedShow(pairSettings(pictures))
        run.run(until: 0.5)
        let status = { ControlCommands(controller: run.controller, started: 0, wakeUp: { 0 }).status }
        #expect(run.show.centredFiles == [pictures.paths[0]])
        #expect(status().files == [pictures.names[0]] && status().count == 4)
        run.command(.move(by: 1))
        run.run(until: 1.5)
        #expect(run.show.centredFiles == [pictures.paths[1], pictures.paths[2]])
        #expect(status().index == 1 && status().file == pictures.names[1] && status().files == [pictures.names[1], pictures.names[2]])
        #expect(status().position == 1)
        #expect(run.events.map(\.untimed).contains(.pictureCentred(item: 1, file: pictures.paths[1], pairedWith: pictures.paths[2])))
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: 1)).pixels)
        // One more slot is the landscape after the pair; one more after that, round the loop of three slots, the first.
        run.command(.move(by: 1))
        run.run(until: 2.5)
        #expect(run.show.centredFiles == [pictures.paths[3]])
        run.command(.move(by: 1))
        run.run(until: 3.5)
        #expect(run.show.centredFiles == [pictures.paths[0]])
        // goto the pair's right file: the pair's slot, the shortest way (from slot 3, the next lap's slot 4).
        #expect(run.show.schedule.target == 3 && run.show.schedule.pictureCount == 3)
        run.command(.goto(item: 2))
        run.run(until: 4.5)
        #expect(run.show.centredFiles == [pictures.paths[1], pictures.paths[2]])
        #expect(run.show.schedule.target == 4)
        #expect(run.events.last { if case .pictureCentred = $0 { true } else { false } }?.untimed
            == .pictureCentred(item: 1, file: pictures.paths[1], pairedWith: pictures.paths[2]))
    }

    /// Nothing is decoded alone that then jumps into a pair: the sizes are
    /// read first, and the portraits are decoded once, together.
    @Test func portraitsAreDecodedOnlyAsTheirPair() throws {
        let pictures = try pictures()
        let run = try SimulatedShow(pairSettings(pictures))
        run.run(until: 1)
        let pair = PictureKey(pair: pictures.paths[1], pictures.paths[2])
        #expect(run.decoder.decodedKeys.contains(pair))
        #expect(!run.decoder.decodedKeys.contains(PictureKey(file: pictures.paths[1])) && !run.decoder.decodedKeys.contains(PictureKey(file: pictures.paths[2])))
        #expect(Set(run.decoder.measureRequests.joined()) == Set(pictures.paths))
        // The first frame with every picture is the snapshot's: the pair peeks in on the right.
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: 0)).pixels)
    }

    /// A pair whose right file's header reads but whose pictures do not
    /// decode: the file is refused with one line, and the left one shows alone.
    @Test func aBrokenFileInAPairLeavesItsPartnerAlone() throws {
        let pictures = try pictures(rightBytes: { Array($0.prefix(120)) })
        let run = try SimulatedShow(pairSettings(pictures))
        run.run(until: 1)
        #expect(run.log.filter { $0.hasPrefix("skipping") }.count == 1)
        #expect(run.log.contains { $0.hasPrefix("skipping \(pictures.paths[2])") })
        run.command(.move(by: 1))
        run.run(until: 2)
        #expect(run.show.centredFiles == [pictures.paths[1]])
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: 1)).pixels)
    }

    /// A playlist change keeps the centred pair in the centre.
    @Test func aFileArrivingKeepsThePairInTheCentre() throws {
        let pictures = try pictures()
        let run = try SimulatedShow(pairSettings(pictures), startAt: 1)
        run.run(until: 1)
        #expect(run.show.centredFiles == [pictures.paths[1], pictures.paths[2]])
        let arriving = pictures.folder.path + "/" + PortraitPairs.fileName("00a", ext: "png", side: .left)
        try writeWholeFile(arriving, bytes: flatPNG(green))
        run.show.folderChanged([.changes(PlaylistChange(added: [PlaylistEntry(arriving)]))], at: run.now)
        run.run(until: 2)
        #expect(run.show.centredFiles == [pictures.paths[1], pictures.paths[2]])
        #expect(run.show.pictures.pictures.playlist.count == 5)
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: Double(run.show.schedule.target))).pixels)
    }
}
