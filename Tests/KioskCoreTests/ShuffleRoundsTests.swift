import KioskCore
import Testing
import TestSupport

/// `order = "shuffle"` over many rounds of the loop, sliding forward one
/// picture at a time as the show does, with the reshuffles applied to a
/// real playlist: each round holds every picture once, no picture follows
/// itself, rounds differ, and nothing on screen (or preloaded) is swapped.
@Suite struct ShuffleRoundsTests {
    func play(count: Int, margin: Int, rounds: Int, startAt start: Int = 0, seed: UInt64) -> (shown: [String], screensChanged: Int) {
        var random = SplitMix(seed: seed)
        var playlist = Playlist(entries: (0..<count).map { PlaylistEntry("p\($0).jpg", rank: Int64.random(in: 1...Int64.max, using: &random)) })
        var shuffles = ShuffleRounds(margin: margin)
        var shown: [String] = []
        var screensChanged = 0
        for slot in start..<(start + rounds * count) {
            let window = (slot - margin...slot + margin).map { playlist.file(forSlot: $0)! }
            for places in shuffles.due(at: slot, count: count) { playlist.shuffle(places, using: &random) }
            if window != (slot - margin...slot + margin).map({ playlist.file(forSlot: $0)! }) { screensChanged += 1 }
            #expect(playlist.entries.map(\.rank) == playlist.entries.map(\.rank).sorted(), "ranks stay sorted")
            shown.append(playlist.file(forSlot: slot)!)
        }
        return (shown, screensChanged)
    }

    @Test(arguments: [(2, 1), (3, 1), (5, 2), (12, 2), (40, 3), (101, 2)])
    func everyRoundHoldsEveryPictureOnceInANewOrder(count: Int, margin: Int) {
        for seed in 1...5 {
            let (shown, screensChanged) = play(count: count, margin: margin, rounds: 30, seed: UInt64(seed))
            #expect(screensChanged == 0)
            let rounds = stride(from: 0, to: shown.count, by: count).map { Array(shown[$0..<($0 + count)]) }
            for round in rounds { #expect(Set(round).count == count) }
            for (a, b) in zip(shown, shown.dropFirst()) { #expect(a != b) }
            if count >= 2 * margin + 4 {
                // Orders repeat only by chance: most rounds are new.
                let distinct = Set(rounds).count
                #expect(distinct >= rounds.count * 2 / 3, "\(distinct) of \(rounds.count) rounds differ")
            }
        }
    }

    @Test func aShowStartedMidRoundOrGoingBackIsShuffledOnlyForward() {
        var shuffles = ShuffleRounds(margin: 1)
        #expect(shuffles.due(at: 17, count: 10).isEmpty)   // the start: nothing yet
        #expect(shuffles.due(at: 18, count: 10).isEmpty)   // same half round
        #expect(shuffles.due(at: 20, count: 10) == [2..<9])   // a new round: all but 9, 0, 1
        #expect(shuffles.due(at: 19, count: 10).isEmpty)   // back: nothing
        #expect(shuffles.due(at: 20, count: 10).isEmpty)   // forward again over the same half: nothing
        #expect(shuffles.due(at: 25, count: 10) == [0..<4, 7..<10])
        #expect(shuffles.due(at: -3, count: 10).isEmpty)
    }
}
