import KioskCore
#if canImport(PropertyBased)
import PropertyBased
#endif
import Testing

/// `portrait_pairs`: which consecutive portraits share a slot, and at what size.
@Suite struct PortraitPairsTests {
    let slot = PixelSize(width: 1344, height: 1080)   // 70% of 1920x1080
    let spacing = 38

    /// Two 2:3 photos: the same height h with 2 x (2/3) h + 38 <= 1344, so
    /// h = 979 and each 652 wide (1,342 px in all); alone each would be
    /// 720x1080, so they keep 91% of their size.
    @Test func twoPortraitsShareTheSlotAtOneHeight() throws {
        let photo = PixelSize(width: 4000, height: 6000)
        let (left, right) = try #require(PortraitPairs.fit(photo, photo, slot: slot, spacing: spacing))
        #expect(left == PixelSize(width: 652, height: 979) && right == left)
        #expect(left.width + spacing + right.width <= slot.width)
    }

    /// 3:4 keeps 870/1080 = 81%, 4:5 keeps 816/1080 = 76%: both pair.
    /// 5:6 would keep 783/1080 = 72.5%, under 3/4: no pair. Squares,
    /// landscapes and a portrait slot never pair.
    @Test func onlyPortraitsThatKeepThreeQuartersOfTheirSizePair() {
        func pairs(_ a: PixelSize, _ b: PixelSize, in slot: PixelSize? = nil) -> Bool {
            PortraitPairs.fit(a, b, slot: slot ?? self.slot, spacing: spacing) != nil
        }
        let threeFour = PixelSize(width: 3000, height: 4000), fourFive = PixelSize(width: 4000, height: 5000)
        #expect(PortraitPairs.fit(threeFour, threeFour, slot: slot, spacing: spacing)?.0.height == 870)
        #expect(pairs(threeFour, threeFour) && pairs(fourFive, fourFive) && pairs(threeFour, PixelSize(width: 2000, height: 3000)))
        #expect(!pairs(PixelSize(width: 5000, height: 6000), PixelSize(width: 5000, height: 6000)))
        #expect(!pairs(PixelSize(width: 100, height: 100), threeFour))
        #expect(!pairs(PixelSize(width: 6000, height: 4000), threeFour))
        #expect(!pairs(threeFour, threeFour, in: PixelSize(width: 1080, height: 1344)))
    }

    /// A file's side comes from its name alone: the same in every run, and
    /// about as many of each over many names.
    @Test func sidesAreFixedAndBalanced() {
        let names = (0..<2000).map { "/srv/photos/IMG_\($0).jpg" }
        #expect(names.map { PortraitPairs.side(of: $0) } == names.map { PortraitPairs.side(of: $0) })
        let left = names.filter { PortraitPairs.side(of: $0) == .left }.count
        #expect((800...1200).contains(left), "\(left) of 2000 on the left")
        // The demo's own names are not all one side.
        let demo = (1...8).map { "demo/images/0\($0).jpg" }.map { PortraitPairs.side(of: $0) }
        #expect(demo.contains(.left) && demo.contains(.right))
    }

    /// A playlist of portraits and landscapes, each named at random.
    private static let playlists = Gen.int(in: 0...9999).array(of: 0...40)

    private func pairing(_ names: [Int]) -> PortraitPairs {
        // Odd numbers are 3:4 portraits, even ones 3:2 landscapes.
        PortraitPairs(paths: names.map { "p\($0).jpg" }, slot: slot, spacing: spacing) {
            names[$0] % 2 == 1 ? PixelSize(width: 3000, height: 4000) : PixelSize(width: 6000, height: 4000)
        }
    }

    /// Every picture once per cycle, in playing order; only portraits pair.
    @Test func everyPictureAppearsOnceInOrder() async {
        await propertyCheck(count: 300, input: Self.playlists) { names in
            let units = pairing(names).units
            #expect(units.flatMap(\.items) == Array(names.indices))
            for case .pair(let a, let b) in units { #expect(names[a] % 2 == 1 && names[b] % 2 == 1 && b == a + 1) }
        }
    }

    /// A file added anywhere, or removed, changes at most two slots: every
    /// other slot keeps its pictures (renumbered past the change).
    @Test func addingOrRemovingAFileChangesAtMostTwoSlots() async {
        await propertyCheck(count: 400, input: Self.playlists, Gen.int(in: 0...9999), Gen.int(in: 0...1000)) { names, added, at in
            let place = names.isEmpty ? 0 : at % (names.count + 1)
            var more = names
            more.insert(added, at: place)
            // Old units in the new numbering (items from `place` on move up one).
            let before = Set(pairing(names).units.map { unit in unit.items.map { $0 >= place ? $0 + 1 : $0 } })
            let after = Set(pairing(more).units.map(\.items))
            #expect(before.subtracting(after).count <= 2, "adding \(added) at \(place) of \(names)")
            // The other way: removing it from `more` keeps all but two of more's other slots.
            let removed = Set(pairing(more).units.map(\.items).filter { !$0.contains(place) }.map { $0.map { $0 > place ? $0 - 1 : $0 } })
            #expect(Set(pairing(names).units.map(\.items)).subtracting(removed).count <= 2)
        }
    }

    /// No pair across the loop's seam: the last picture and the first stay apart.
    @Test func noPairSpansTheSeam() {
        let pairs = PortraitPairs(count: 3) { _ in true }
        #expect(pairs.units == [.pair(0, 1), .single(2)])
    }
}
