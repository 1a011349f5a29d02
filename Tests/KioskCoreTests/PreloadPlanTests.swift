import KioskCore
import Testing

@Suite struct PreloadPlanTests {
    let playlist = CircularIndex(count: 10)
    let twoAhead = PreloadPlan(ahead: 2, behind: 1)

    @Test func atRestTheScreenComesFirstThenTwoAheadAndOneBehind() throws {
        // Full HD default: slots -1, 0, 1 on screen at position 0.
        let items = twoAhead.items(try fullHD(), at: 0, travelling: .forward, playlist: playlist)
        #expect(items == [0, 9, 1, 2, 3, 8])
        // The default: one each way.
        #expect(try PreloadPlan().items(fullHD(), at: 0, travelling: .forward, playlist: playlist) == [0, 9, 1, 2, 8])
    }

    @Test func travellingBackwardLooksAheadToTheLeft() throws {
        let items = twoAhead.items(try fullHD(), at: 0, travelling: .backward, playlist: playlist)
        #expect(items == [0, 9, 1, 8, 7, 2])
    }

    @Test func midSlideTheNearerPictureIsMoreUrgent() throws {
        // At 0.75 slot 1 is nearly centred and slot 0 is leaving on the left.
        let g = try fullHD()
        #expect(g.visibleSlots(at: 0.75).map(\.index) == [0, 1])
        let items = twoAhead.items(g, at: 0.75, travelling: .forward, playlist: playlist)
        #expect(items == [1, 0, 2, 3, 9])
    }

    /// Three quick `next`s: the strip is at 0.2 on its way to 3. What will
    /// be on screen there (2, 3, 4) comes first, then what is on screen now
    /// (0, 1), then the destination's neighbours (5 ahead; 1 behind, already
    /// wanted); a single step keeps the plain plan.
    @Test func aQuickRunOfNextsWantsTheDestinationFirst() throws {
        let g = try fullHD()
        #expect(g.visibleSlots(at: 3).map(\.index) == [2, 3, 4])
        #expect(g.visibleSlots(at: 0.2).map(\.index) == [0, 1])
        let items = PreloadPlan().items(g, at: 0.2, travelling: .forward, towards: 3, playlist: playlist)
        #expect(items == [3, 2, 4, 0, 1, 5])
        let backward = PreloadPlan().items(g, at: -0.2, travelling: .backward, towards: -3, playlist: playlist)
        #expect(backward == [7, 6, 8, 0, 9, 5])
        #expect(PreloadPlan().items(g, at: 0.2, travelling: .forward, towards: 1, playlist: playlist)
            == PreloadPlan().items(g, at: 0.2, travelling: .forward, playlist: playlist))
    }

    @Test func aShortPlaylistWantsEachPictureOnce() throws {
        let items = PreloadPlan().items(try fullHD(), at: 0, travelling: .forward, playlist: CircularIndex(count: 2))
        #expect(items == [0, 1])
        #expect(try PreloadPlan().items(fullHD(), at: 0, travelling: .forward, playlist: CircularIndex(count: 0)) == [])
    }

    @Test func theDefaultBudgetHoldsEverySlotThePlanCanWant() throws {
        let g = try fullHD()
        // ceil(1920 / 1382) + 2 = 4 slots on screen at most, plus 1 + 1.
        #expect(PreloadPlan().maximumPictures(g) == 6)
        #expect(PreloadPlan().defaultBudget(g) == 6 * 1344 * 1080 * 4)
        #expect(PreloadPlan().minimumBudget(g) == 4 * 1344 * 1080 * 4)
    }
}
