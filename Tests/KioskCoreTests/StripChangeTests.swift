import KioskCore
import Testing
import TestSupport

/// Seed 001's animation of playlist changes: the cells before and after are
/// exactly the still strips of the old and new playlists, the centre keeps
/// its picture, and what happens off screen moves nothing.
@Suite struct StripChangeTests {
    /// 1920x1080, slots 1200 wide with 40 between: the centre and a neighbour peeking in on each side.
    let geometry = try! CarouselGeometry(screen: PixelSize(width: 1920, height: 1080), slotWidth: 1200, slotHeight: 900, spacing: 40)

    /// A cell by the file it shows: comparable across the old and new playlists.
    struct Drawn: Hashable, CustomStringConvertible {
        var file: String, x: Int, y: Int, width: Int, height: Int
        var description: String { "\(file)@\(x),\(y) \(width)x\(height)" }
    }

    /// A change applied to a playlist as the show applies it: the edit, the
    /// strip's position renumbered, and the animation planned.
    struct Scenario {
        var old: Playlist
        var new: Playlist
        var oldPosition: Double
        var newPosition: Double
        var removed: [PlaylistEntry]
        var motion: StripChange?

        init(_ files: [String], at position: Double, remove: [String] = [], add: [String] = [], geometry: CarouselGeometry) {
            old = Playlist(files)
            new = old
            oldPosition = position
            let target = Int(position.rounded())
            let centred = old.entry(old.index.item(forSlot: target)!)
            let edit = new.apply(PlaylistChange(removed: remove, added: add.map { PlaylistEntry($0) }), keepingSlot: target)
            newPosition = position + Double(edit.slot - target)
            removed = edit.removed.map(old.entry)
            motion = StripChange(
                geometry: geometry, playlist: new, position: newPosition, seamSlot: edit.slot, removed: removed,
                centredRemoved: removed.firstIndex(of: centred), added: Set(edit.added), start: 10, duration: 0.5,
                easing: .easeInOut)
        }

        func drawn(_ cells: [StripCell], playlist: Playlist) -> [Drawn] {
            cells.map { cell in
                let file: String
                switch cell.content {
                case .item(let item): file = playlist[item]
                case .ghost(let ghost): file = removed[ghost].path
                }
                return Drawn(file: file, x: cell.x, y: cell.y, width: cell.size.width, height: cell.size.height)
            }
        }

        func still(_ geometry: CarouselGeometry, old: Bool) -> [Drawn] {
            let playlist = old ? self.old : new
            return drawn(geometry.cells(at: old ? oldPosition : newPosition, playlist: playlist.index), playlist: playlist)
        }

        func animated(at time: Double) -> [Drawn] {
            drawn(motion!.cells(at: newPosition, time: time), playlist: new)
        }
    }

    let files = (1...12).map { "IMG_\($0).jpg" }

    @Test func removingTheCentredPictureShrinksItWhileTheNextSlidesIntoItsPlace() throws {
        let s = Scenario(files, at: 4, remove: ["IMG_5.jpg"], geometry: geometry)
        #expect(s.motion != nil)
        #expect(s.animated(at: 10) == s.still(geometry, old: true))
        #expect(s.animated(at: 10.5) == s.still(geometry, old: false))
        #expect(s.still(geometry, old: false).contains { $0.file == "IMG_6.jpg" && $0.x == 360 })
        // Half way: the removed picture is half its size, its left edge where
        // it was, the next picture half way over, the one before still.
        let middle = s.animated(at: 10.25)
        let ghost = try #require(middle.first { $0.file == "IMG_5.jpg" })
        #expect(ghost.x == 360 && ghost.width == 600 && ghost.height == 450)
        #expect(ghost.y == 90 + 225)
        #expect(middle.contains { $0.file == "IMG_6.jpg" && $0.x == 360 + 620 && $0.width == 1200 })
        #expect(middle.contains { $0.file == "IMG_4.jpg" && $0.x == 360 - 1240 })
    }

    @Test func addingBesideTheCentreMakesRoomAndGrowsWhileTheCentreStays() throws {
        let s = Scenario(files, at: 4, add: ["IMG_5b.jpg"], geometry: geometry)
        #expect(s.new[5] == "IMG_5b.jpg")
        #expect(s.animated(at: 10) == s.still(geometry, old: true))
        #expect(s.animated(at: 10.5) == s.still(geometry, old: false))
        let middle = s.animated(at: 10.25)
        #expect(middle.contains { $0.file == "IMG_5.jpg" && $0.x == 360 && $0.width == 1200 })
        let grown = try #require(middle.first { $0.file == "IMG_5b.jpg" })
        #expect(grown.x == 360 + 1240 && grown.width == 600)
    }

    @Test func removingTheLeftNeighbourPullsTheStripBeforeItRightNotTheCentre() throws {
        let s = Scenario(files, at: 4, remove: ["IMG_4.jpg"], geometry: geometry)
        #expect(s.animated(at: 10) == s.still(geometry, old: true))
        #expect(s.animated(at: 10.5) == s.still(geometry, old: false))
        for time in stride(from: 10.0, through: 10.5, by: 0.05) {
            #expect(s.animated(at: time).contains { $0.file == "IMG_5.jpg" && $0.x == 360 && $0.width == 1200 })
        }
    }

    @Test func changesOffScreenAreNotAnimated() {
        #expect(Scenario(files, at: 4, remove: ["IMG_9.jpg", "IMG_1.jpg"], geometry: geometry).motion == nil)
        #expect(Scenario(files, at: 4, add: ["IMG_9b.jpg", "IMG_1b.jpg"], geometry: geometry).motion == nil)
    }

    @Test func aFloodOfArrivalsOnScreenIsShownAtOnce() {
        let flood = (1...1000).map { "IMG_5_\($0).jpg" }
        #expect(Scenario(files, at: 4, add: flood, geometry: geometry).motion == nil)
    }

    /// Every place of a change relative to the centre, several at once,
    /// mid-slide positions too, across the loop's seam, on three screens:
    /// the first frame is the old still strip and the last the new one,
    /// pixel for pixel, and the picture that stays centred never moves.
    @Test func startAndEndAreTheStillStripsForAnyChange() throws {
        var random = SplitMix(seed: 13)
        let screens = [
            geometry,
            try CarouselGeometry(screen: PixelSize(width: 480, height: 270), slotWidth: 150, slotHeight: 200, spacing: 7),
            try CarouselGeometry(screen: PixelSize(width: 1080, height: 1920), slotWidth: 1080, slotHeight: 1920, spacing: 0),
        ]
        var animated = 0
        for round in 0..<600 {
            let geometry = screens[round % screens.count]
            let count = 1 + random.below(14)
            let files = (0..<count).map { "IMG_\($0 * 10).jpg" }
            let removed = files.filter { _ in random.below(4) == 0 }
            let added = (0..<random.below(4)).map { _ in "IMG_\(random.below(count * 10 + 10)).jpg" }
                .filter { !files.contains($0) }
            guard removed.count < count || !added.isEmpty else { continue }
            let whole = Double(random.below(3 * count)) - Double(count)
            let position = whole + (random.below(3) == 0 ? Double(random.below(100)) / 100 : 0)
            let s = Scenario(files, at: position, remove: removed, add: added, geometry: geometry)
            guard let motion = s.motion else {
                #expect(s.still(geometry, old: true) == s.still(geometry, old: false),
                        "round \(round): not animated but the screen changes")
                continue
            }
            animated += 1
            #expect(s.animated(at: 10) == s.still(geometry, old: true), "round \(round): first frame")
            #expect(s.animated(at: 10.5) == s.still(geometry, old: false), "round \(round): last frame")
            for time in [10.1, 10.25, 10.4] {
                let cells = motion.cells(at: s.newPosition, time: time)
                // Left to right, never overlapping.
                for (a, b) in zip(cells, cells.dropFirst()) { #expect(a.x + a.size.width <= b.x, "round \(round)") }
                for cell in cells { #expect(cell.scale > 0 && cell.scale <= 1) }
            }
        }
        #expect(animated > 200)
    }
}
