import KioskCore
import PropertyBased
import Testing

@Suite struct PreloadPlanTests {
    let playlist = CircularIndex(count: 10)
    let twoAhead = PreloadPlan(ahead: 2, behind: 1)

    @Test func atRestTheScreenComesFirstThenTwoAheadAndOneBehind() throws {
        // Full HD default: slots -1, 0, 1 on screen at position 0.
        let items = twoAhead.items(try fullHD(), at: 0, travelling: .forward, playlist: playlist)
        #expect(items == [0, 9, 1, 2, 3, 8])
        // The default: one each way.
        #expect(PreloadPlan().items(try fullHD(), at: 0, travelling: .forward, playlist: playlist) == [0, 9, 1, 2, 8])
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

    @Test func aShortPlaylistWantsEachPictureOnce() throws {
        let items = PreloadPlan().items(try fullHD(), at: 0, travelling: .forward, playlist: CircularIndex(count: 2))
        #expect(items == [0, 1])
        #expect(PreloadPlan().items(try fullHD(), at: 0, travelling: .forward, playlist: CircularIndex(count: 0)) == [])
    }

    @Test func theDefaultBudgetHoldsEverySlotThePlanCanWant() throws {
        let g = try fullHD()
        // ceil(1920 / 1382) + 2 = 4 slots on screen at most, plus 1 + 1.
        #expect(PreloadPlan().maximumPictures(g) == 6)
        #expect(PreloadPlan().defaultBudget(g) == 6 * 1344 * 1080 * 4)
        #expect(PreloadPlan().minimumBudget(g) == 4 * 1344 * 1080 * 4)
    }
}

@Suite struct ByteBoundedCacheTests {
    @Test func onlyWantedPicturesAreKept() {
        var cache = ByteBoundedCache<String, Int>(budget: 100)
        cache.want(["a", "b"])
        let kept1 = cache.insert(1, bytes: 10, for: "a")
        #expect(kept1)
        let kept2 = cache.insert(3, bytes: 10, for: "c")
        #expect(!kept2)   // finished, but no longer wanted
        #expect(cache["a"] == 1 && cache["c"] == nil && cache.bytes == 10)
        cache.want(["b", "c"])
        #expect(cache["a"] == nil && cache.bytes == 0)
        #expect(cache.missing(estimatedBytes: 10) == ["b", "c"])
    }

    @Test func aTightBudgetEvictsTheLeastUrgent() {
        var cache = ByteBoundedCache<String, Int>(budget: 30)
        cache.want(["a", "b", "c", "d"])
        let kept3 = cache.insert(4, bytes: 10, for: "d")
        #expect(kept3)
        let kept4 = cache.insert(3, bytes: 10, for: "c")
        #expect(kept4)
        let kept5 = cache.insert(2, bytes: 10, for: "b")
        #expect(kept5)
        // "a" is the most urgent: "d" goes to make room.
        let kept6 = cache.insert(1, bytes: 10, for: "a")
        #expect(kept6)
        #expect(cache["d"] == nil && cache["a"] == 1 && cache.bytes == 30)
        // Nothing less urgent than "d" is held: it is the one left out.
        let kept7 = cache.insert(4, bytes: 10, for: "d")
        #expect(!kept7)
        #expect(cache.count == 3 && cache.bytes == 30)
    }

    @Test func missingStopsWhereTheBudgetEnds() {
        var cache = ByteBoundedCache<Int, Int>(budget: 25)
        cache.want([5, 6, 7, 8])
        #expect(cache.missing(estimatedBytes: 10) == [5, 6])
        cache.insert(0, bytes: 4, for: 5)   // a portrait picture: smaller than a slot
        #expect(cache.missing(estimatedBytes: 10) == [6, 7])   // 4 + 10 + 10 fits; the room it left is used
        #expect(ByteBoundedCache<Int, Int>(budget: 5).missing(estimatedBytes: 10) == [])
    }

    @Test func aPictureLargerThanTheWholeBudgetIsRefused() {
        var cache = ByteBoundedCache<Int, Int>(budget: 5)
        cache.want([1])
        let kept8 = cache.insert(1, bytes: 6, for: 1)
        #expect(!kept8)
        #expect(cache.count == 0)
    }

    /// Any sequence of wants and inserts: never over budget, and whatever is
    /// held is wanted.
    @Test func neverOverBudgetNeverUnwanted() async {
        let step = Gen.int(in: 0...19)
        await propertyCheck(count: 200, input: step.array(of: 40), Gen.int(in: 1...60)) { steps, budget in
            var cache = ByteBoundedCache<Int, Int>(budget: budget)
            for s in steps {
                if s < 4 {
                    cache.want(Array((s..<(s + 5)).map { $0 * 3 % 10 }))
                } else {
                    cache.insert(s, bytes: s, for: s % 10)
                }
                #expect(cache.bytes <= budget)
                #expect(cache.count == Set(cache.wanted).filter { cache[$0] != nil }.count)
            }
        }
    }
}
