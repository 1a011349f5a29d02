import KioskCore
#if canImport(PropertyBased)
import PropertyBased
#endif
import Testing

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
