import KioskCore
import PropertyBased
import Testing

/// Floor division: the lap of the loop slot `k` is on.
private func lap(_ slot: Int, _ count: Int) -> Int { Int((Double(slot) / Double(count)).rounded(.down)) }

/// What should be in the centre after a change: the centred file if it
/// stayed, else the first file after it (in the old cyclic order) that stayed.
private func expectedCentre(was centred: String, old: [String], new: [String]) -> String? {
    let staying = Set(new)
    let start = old.firstIndex(of: centred)!
    return (0..<old.count).lazy.map { old[(start + $0) % old.count] }.first { staying.contains($0) }
}

@Suite struct PlaylistTests {
    /// `status`, `goto` and `watch` name pictures by file name, never by path.
    @Test(arguments: [
        ("/srv/photos/IMG_0042.jpg", "IMG_0042.jpg"), ("IMG_0042.jpg", "IMG_0042.jpg"),
        ("/srv/photos/sub dir/a b.png", "a b.png"), ("/srv/photos/odd/", "odd"), ("/", "/"),
    ])
    func aPictureIsNamedByItsFileName(path: String, name: String) {
        #expect(Playlist.fileName(of: path) == name)
    }

    let files = ["a", "b", "c", "d", "e"]

    @Test func insertingBeforeTheCentreKeepsTheCentredFileOnEveryLap() {
        for slot in -12...12 {
            for position in 0...files.count {
                var playlist = Playlist(files)
                let centred = playlist.file(forSlot: slot)
                let newSlot = playlist.insert("new", at: position, keepingSlot: slot)
                #expect(playlist.file(forSlot: newSlot) == centred, "slot \(slot), insert at \(position)")
                #expect(lap(newSlot, 6) == lap(slot, 5), "slot \(slot) jumped a lap")
            }
        }
    }

    @Test func removingTheCentredFileHandsTheCentreToTheNext() {
        var playlist = Playlist(files)
        let slot = playlist.remove(at: 2, keepingSlot: 7)   // slot 7 shows "c" on the second lap
        #expect(playlist.files == ["a", "b", "d", "e"])
        #expect(playlist.file(forSlot: slot) == "d")
        #expect(lap(slot, 4) == 1)
    }

    @Test func theFirstFileIntoAnEmptyPlaylistTakesTheCentre() {
        var playlist = Playlist()
        let slot = playlist.insert("a", at: 0, keepingSlot: 3)
        #expect(playlist.file(forSlot: slot) == "a")
    }

    @Test func replacingWithANewOrderKeepsTheCentredFile() {
        var playlist = Playlist(files)
        let slot = playlist.replace(with: ["e", "d", "x", "c", "b", "a"], keepingSlot: -4)   // -4 shows "b"
        #expect(playlist.file(forSlot: slot) == "b")
        #expect(lap(slot, 6) == -1)
    }

    /// Any sequence of insertions, removals and rescans, from any slot: the
    /// centred file stays in the centre while it exists, otherwise the next
    /// surviving file takes it, and the strip never jumps round the loop.
    @Test func theCentreSurvivesAnySequenceOfChanges() async {
        let change = Gen.int(in: 0...99).array(of: 1...12)
        await propertyCheck(count: 300, input: change, Gen.int(in: -30...30), Gen.int(in: 1...8)) { steps, start, size in
            var playlist = Playlist((0..<size).map { "f\($0)" })
            var slot = start
            var made = size
            for step in steps {
                let before = playlist.files
                let centred = playlist.file(forSlot: slot)
                let oldLap = before.isEmpty ? nil : lap(slot, before.count)
                switch step % 3 {
                case 0:
                    made += 1
                    slot = playlist.insert("f\(made)", at: step % (before.count + 1), keepingSlot: slot)
                case 1 where !before.isEmpty:
                    slot = playlist.remove(at: step % before.count, keepingSlot: slot)
                default:
                    // A rescan: some files gone, one new, the order reversed.
                    made += 1
                    let kept = before.enumerated().filter { ($0.offset + step) % 4 != 0 }.map(\.element)
                    slot = playlist.replace(with: (kept + ["f\(made)"]).reversed(), keepingSlot: slot)
                }
                if let centred, let expected = expectedCentre(was: centred, old: before, new: playlist.files) {
                    #expect(playlist.file(forSlot: slot) == expected, "\(before) -> \(playlist.files), slot \(slot)")
                    // Never a jump round the loop; the file after the last
                    // of a lap is the first of the next.
                    if let oldLap {
                        let laps = playlist.files.contains(centred) ? [oldLap] : [oldLap, oldLap + 1]
                        #expect(laps.contains(lap(slot, playlist.count)), "\(before) -> \(playlist.files)")
                    }
                }
            }
        }
    }
}
