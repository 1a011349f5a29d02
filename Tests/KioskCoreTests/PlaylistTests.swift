import KioskCore
#if canImport(PropertyBased)
import PropertyBased
#endif
import Testing

/// Floor division: the lap of the loop slot `k` is on.
private func lap(_ slot: Int, _ count: Int) -> Int { Int((Double(slot) / Double(count)).rounded(.down)) }

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

    @Test func anAddedFileTakesItsPlaceInNaturalOrderAndTheCentreStays() {
        for slot in -12...12 {
            for name in ["0", "a1", "b2", "c10", "dd", "z"] {
                var playlist = Playlist(files)
                let centred = playlist.file(forSlot: slot)
                let edit = playlist.apply(PlaylistChange(added: [PlaylistEntry(name)]), keepingSlot: slot)
                #expect(playlist.files == (files + [name]).sorted { NaturalOrder.precedes(path: $0, $1) })
                #expect(playlist.file(forSlot: edit.slot) == centred, "slot \(slot), adding \(name)")
                #expect(lap(edit.slot, 6) == lap(slot, 5), "slot \(slot) jumped a lap")
                #expect(edit.added == [playlist.item(of: name)!] && edit.removed.isEmpty)
            }
        }
    }

    @Test func removingTheCentredFileHandsTheCentreToTheNext() {
        var playlist = Playlist(files)
        let slot = playlist.remove(at: 2, keepingSlot: 7)   // slot 7 shows "c" on the second lap
        #expect(playlist.files == ["a", "b", "d", "e"])
        #expect(playlist.file(forSlot: slot) == "d")
        #expect(lap(slot, 4) == 1)
        // The last file of a lap: the next picture is the first of the next lap.
        var batch = Playlist(files)
        let edit = batch.apply(PlaylistChange(removed: ["e"]), keepingSlot: 9)   // slot 9 shows "e"
        #expect(batch.file(forSlot: edit.slot) == "a" && lap(edit.slot, 4) == 2)
        #expect(edit.removed == [4])
    }

    @Test func theFirstFileIntoAnEmptyPlaylistTakesTheCentre() {
        var playlist = Playlist()
        let edit = playlist.apply(PlaylistChange(added: [PlaylistEntry("a")]), keepingSlot: 3)
        #expect(playlist.file(forSlot: edit.slot) == "a")
    }

    @Test func aRewrittenFileStaysAndAFileWithANewRankMoves() {
        var playlist = Playlist(entries: files.enumerated().map { PlaylistEntry($1, rank: Int64($0) * 10) })
        let same = playlist.apply(PlaylistChange(added: [PlaylistEntry("c", rank: 20)]), keepingSlot: 2)
        #expect(same.isEmpty && same.slot == 2)
        // "c" taken later: it moves to the end, and keeps the centre where it went.
        let moved = playlist.apply(PlaylistChange(added: [PlaylistEntry("c", rank: 99)]), keepingSlot: 2)
        #expect(playlist.files == ["a", "b", "d", "e", "c"])
        #expect(moved.removed == [2] && moved.added == [4])
        #expect(playlist.file(forSlot: moved.slot) == "c")
        #expect(playlist.item(of: "c") == 4 && playlist.item(of: "zz") == nil)
    }

    @Test func replacingWithANewOrderKeepsTheCentredFile() {
        var playlist = Playlist(files)
        let ranked = ["e", "d", "x", "c", "b", "a"].enumerated().map { PlaylistEntry($1, rank: Int64($0)) }
        let edit = playlist.replace(with: ranked, keepingSlot: -4)   // -4 shows "b"
        #expect(playlist.files == ["e", "d", "x", "c", "b", "a"])
        #expect(playlist.file(forSlot: edit.slot) == "b")
        #expect(lap(edit.slot, 6) == -1)
    }

    /// Two libraries in one playlist: one's listing replaces its own files
    /// only, wherever they sort among the other's; one gone (an empty
    /// listing within its scope) leaves the other's, and the centred file,
    /// if it was the other's, stays in the centre.
    @Test func oneLibrarysListingReplacesOnlyItsOwnFiles() {
        var playlist = Playlist(["/one/a", "/one/c", "/two/b", "/two/d"])
        let relisted = playlist.replace(with: [PlaylistEntry("/two/b"), PlaylistEntry("/two/e")], keepingSlot: 2, within: "/two/")
        #expect(playlist.files == ["/one/a", "/one/c", "/two/b", "/two/e"])
        #expect(relisted.removed == [3] && relisted.added == [3])
        #expect(playlist.file(forSlot: relisted.slot) == "/two/b")
        let gone = playlist.replace(with: [], keepingSlot: relisted.slot, within: "/one/")
        #expect(playlist.files == ["/two/b", "/two/e"])
        #expect(playlist.file(forSlot: gone.slot) == "/two/b")
        // A scope is a folder's path with its slash: "/two/" is not "/twofold/".
        var near = Playlist(["/two/a", "/twofold/b"])
        _ = near.replace(with: [], keepingSlot: 0, within: LibraryStatus.scope(ofFolder: "/two"))
        #expect(near.files == ["/twofold/b"])
    }

    /// A library's state changes `since` only when it changes; its assets
    /// are counted within its scope, or all of them when it is alone.
    @Test func aLibrarysStateAndItsAssets() {
        var library = LibraryStatus(kind: .folder, source: "/one", state: .online, since: 100, scope: LibraryStatus.scope(ofFolder: "/one"))
        #expect(!library.change(to: .online, at: 200) && library.since == 100)
        #expect(library.change(to: .offline, at: 300) && library.since == 300 && library.state == .offline)
        let playlist = Playlist(["/one/a", "/one/b", "/oneself/c", "/two/d"])
        #expect(library.assets(in: playlist, alone: false) == 2)
        #expect(library.assets(in: playlist, alone: true) == 4)
        #expect(library.object(assets: 2, cached: 2) == .object([
            "kind": "folder", "source": "/one", "state": "offline", "since": 300, "assets": 2, "cached": 2,
        ]))
    }

    /// Any sequence of batches (files added and removed, one at a time or a
    /// thousand at once, rescans), from any slot: the list stays in order,
    /// holds exactly the files that should be there, the centred file stays
    /// in the centre while it exists, otherwise the next file in the new
    /// order takes it, and the strip never jumps round the loop.
    @Test func theCentreSurvivesAnyBatchOfChanges() async {
        let batch = Gen.int(in: 0...999).array(of: 1...40)
        await propertyCheck(count: 300, input: batch.array(of: 1...6), Gen.int(in: -30...30), Gen.int(in: 0...30)) { batches, start, size in
            var playlist = Playlist((0..<size).map { "f\($0)" })
            var present = Set(playlist.files)
            var slot = start
            for numbers in batches {
                let before = playlist.files
                let centred = playlist.file(forSlot: slot)
                let oldLap = before.isEmpty ? nil : lap(slot, before.count)
                // Even numbers name a file to add, odd ones a file to remove (present or not).
                let change = PlaylistChange(
                    removed: numbers.filter { $0 % 2 == 1 }.map { "f\($0 / 2)" },
                    added: numbers.filter { $0 % 2 == 0 }.map { PlaylistEntry("f\($0 / 2)") })
                present.subtract(change.removed)
                present.formUnion(change.added.map(\.path))
                let edit = playlist.apply(change, keepingSlot: slot)
                slot = edit.slot
                #expect(playlist.files == present.sorted { NaturalOrder.precedes(path: $0, $1) })
                #expect(edit.removed.map { before[$0] }.allSatisfy { !playlist.files.contains($0) || change.added.contains(PlaylistEntry($0)) })
                #expect(Set(edit.added.map { playlist.files[$0] }) == Set(playlist.files).subtracting(before))
                guard let centred, !playlist.isEmpty else { continue }
                let next = playlist.files.first { !NaturalOrder.precedes(path: $0, centred) } ?? playlist.files[0]
                #expect(playlist.file(forSlot: slot) == next, "\(before) -> \(playlist.files), slot \(slot)")
                if let oldLap {
                    let wrapped = !playlist.files.contains(centred) && NaturalOrder.precedes(path: playlist.files.last!, centred)
                    #expect(lap(slot, playlist.count) == oldLap + (wrapped ? 1 : 0), "\(before) -> \(playlist.files)")
                }
            }
        }
    }
}
