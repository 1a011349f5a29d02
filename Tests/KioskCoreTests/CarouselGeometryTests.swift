import KioskCore
#if canImport(PropertyBased)
import PropertyBased
#endif
import TestSupport
import Testing

/// A 1920x1080 screen with the default 70% slots and 2% gaps: w = 1344,
/// s = 38, pitch 1382, centred slot at x = 288.
func fullHD() throws -> CarouselGeometry {
    try CarouselGeometry(screen: PixelSize(width: 1920, height: 1080), settings: LayoutSettings())
}

func lefts(_ geometry: CarouselGeometry, at position: Double) -> [Int: Int] {
    Dictionary(uniqueKeysWithValues: geometry.visibleSlots(at: position).map { ($0.index, $0.x) })
}

@Suite struct CarouselGeometryTests {
    @Test func defaultLayoutOnFullHD() throws {
        let g = try fullHD()
        #expect(g.slotWidth == 1344 && g.spacing == 38 && g.slotHeight == 1080 && g.pitch == 1382)
        // The centred slot and both neighbours, which peek in 250 px each.
        #expect(lefts(g, at: 0) == [-1: -1094, 0: 288, 1: 1670])
        #expect(-1094 + 1344 == 250 && 1920 - 1670 == 250)
    }

    /// Where animated pictures play: slots with at least half their width on screen.
    @Test func slotsHalfVisible() throws {
        let g = try fullHD()
        // At rest only the centre (the neighbours show 250 of 1344 px).
        #expect(g.slotsHalfVisible(at: 0).map(\.index) == [0])
        // Slot 0 at x = 288 - 0.3 x 1382 = -126.6: 1217 px on screen; slot 1 at 1255.4: 665 px, under half.
        #expect(g.slotsHalfVisible(at: 0.3).map(\.index) == [0])
        // Halfway, slot 0 at -403 and slot 1 at 979 both show 941 px.
        #expect(g.slotsHalfVisible(at: 0.5).map(\.index) == [0, 1])
        // Narrow slots: every whole one on screen, and the one at 1760 (160 of 400 px) is not.
        let narrow = try CarouselGeometry(screen: PixelSize(width: 1920, height: 1080), slotWidth: 400, slotHeight: 300, spacing: 100)
        #expect(narrow.slotsHalfVisible(at: 0).map(\.index) == [-1, 0, 1])
    }

    @Test func otherScreensWidthsAndSpacings() throws {
        let g1 = try CarouselGeometry(screen: PixelSize(width: 1280, height: 800), slotWidth: 800, slotHeight: 800, spacing: 20)
        #expect(lefts(g1, at: 0) == [-1: -580, 0: 240, 1: 1060])
        // Narrow slots: more than one neighbour on each side.
        let g2 = try CarouselGeometry(screen: PixelSize(width: 1920, height: 1080), slotWidth: 400, slotHeight: 300, spacing: 100)
        #expect(lefts(g2, at: 0) == [-2: -240, -1: 260, 0: 760, 1: 1260, 2: 1760])
        #expect(g2.slotTop == 390)
        // Percentages of an odd screen width.
        let g3 = try CarouselGeometry(
            screen: PixelSize(width: 1001, height: 600),
            settings: { var s = LayoutSettings(); s.slotWidth = .percent(50); s.spacing = .pixels(0); return s }())
        #expect(g3.slotWidth == 501)   // 500.5 rounds up
        #expect(g3.slotLeft(0, at: 0) == 250)   // (1001 - 501) / 2
    }

    @Test func positionsRoundToTheNearestPixelHalvesUp() throws {
        let g = try fullHD()
        #expect(g.slotLeft(0, at: 0.25) == -57)     // 288 - 345.5 = -57.5
        #expect(g.slotLeft(1, at: 0.25) == 1325)    // 1670 - 345.5 = 1324.5
        #expect(g.slotLeft(0, at: 0.5) == -403)     // 288 - 691
        let oddCentre = try CarouselGeometry(screen: PixelSize(width: 1001, height: 10), slotWidth: 500, slotHeight: 10, spacing: 10)
        #expect(oddCentre.slotLeft(0, at: 0) == 251)   // 250.5
    }

    @Test func midSlideShowsTheSlotsThatTouchTheScreen() throws {
        let g = try fullHD()
        #expect(lefts(g, at: 0.5) == [0: -403, 1: 979])
        #expect(lefts(g, at: -0.5) == [-1: -403, 0: 979])
    }

    @Test func wrapsBackwardsFromTheFirstPicture() throws {
        let g = try fullHD()
        let playlist = CircularIndex(count: 5)
        // Position -0.25 from index 0: the picture on the left is the last one.
        let slots = g.visibleSlots(at: -0.25)
        let leftmost = try #require(slots.first)
        #expect(leftmost.index == -1 && leftmost.x == -748)   // 288 - 0.75 * 1382 = -748.5
        #expect(playlist.item(forSlot: leftmost.index) == 4)
        // Picture 1 has moved off the right edge (1670 + 345.5 > 1920).
        #expect(slots.compactMap { playlist.item(forSlot: $0.index) } == [4, 0])
    }

    @Test func wrapsForwardsFromTheLastPicture() throws {
        let g = try fullHD()
        let playlist = CircularIndex(count: 5)
        let shown = g.visibleSlots(at: 4).compactMap { playlist.item(forSlot: $0.index) }
        #expect(shown == [3, 4, 0])
    }

    @Test func onePictureIsItsOwnNeighbour() throws {
        let shown = try fullHD().visibleSlots(at: 0).compactMap { CircularIndex(count: 1).item(forSlot: $0.index) }
        #expect(shown == [0, 0, 0])
    }

    @Test func twoPicturesFlankEachOther() throws {
        let g = try fullHD()
        let playlist = CircularIndex(count: 2)
        #expect(g.visibleSlots(at: 0).compactMap { playlist.item(forSlot: $0.index) } == [1, 0, 1])
        #expect(g.visibleSlots(at: 1).compactMap { playlist.item(forSlot: $0.index) } == [0, 1, 0])
        #expect(g.visibleSlots(at: -7).compactMap { playlist.item(forSlot: $0.index) } == [0, 1, 0])
    }

    @Test func anEmptyPlaylistShowsNothing() throws {
        let playlist = CircularIndex(count: 0)
        #expect(try fullHD().visibleSlots(at: 0).compactMap { playlist.item(forSlot: $0.index) } == [])
    }

    @Test func largePlaylists() throws {
        let g = try fullHD()
        let playlist = CircularIndex(count: 10_000)
        #expect(g.visibleSlots(at: 5_000).compactMap { playlist.item(forSlot: $0.index) } == [4_999, 5_000, 5_001])
        #expect(g.visibleSlots(at: 9_999).compactMap { playlist.item(forSlot: $0.index) } == [9_998, 9_999, 0])
        #expect(g.visibleSlots(at: 0).compactMap { playlist.item(forSlot: $0.index) } == [9_999, 0, 1])
    }

    @Test func farFromZeroTheLayoutIsTheSame() throws {
        let g = try fullHD()
        for base in [1_000_000, -1_000_000, 123_456_789] {
            for fraction in [0.0, 0.25, 0.5, 0.75] {
                let near = g.visibleSlots(at: fraction)
                let far = g.visibleSlots(at: Double(base) + fraction)
                #expect(far.map(\.x) == near.map(\.x), "at \(Double(base) + fraction)")
                #expect(far.map(\.index) == near.map { $0.index + base })
            }
        }
        #expect(CircularIndex(count: 7).item(forSlot: 1_000_000) == 1_000_000 % 7)
    }

    @Test func invalidGeometryNamesTheSetting() {
        let screen = PixelSize(width: 1920, height: 1080)
        func setting(_ body: () throws -> CarouselGeometry) -> String? {
            do { _ = try body(); return nil } catch let error as SettingError { return error.setting } catch { return "?" }
        }
        #expect(setting { try CarouselGeometry(screen: screen, slotWidth: 1921, slotHeight: 1080, spacing: 0) } == "image_width")
        #expect(setting { try CarouselGeometry(screen: screen, slotWidth: 0, slotHeight: 1080, spacing: 0) } == "image_width")
        #expect(setting { try CarouselGeometry(screen: screen, slotWidth: 1000, slotHeight: 0, spacing: 0) } == "slot_height")
        #expect(setting { try CarouselGeometry(screen: screen, slotWidth: 1000, slotHeight: 1081, spacing: 0) } == "slot_height")
        #expect(setting { try CarouselGeometry(screen: screen, slotWidth: 1000, slotHeight: 1080, spacing: -1) } == "spacing")
        #expect(setting { try CarouselGeometry(screen: PixelSize(width: 0, height: 1080), slotWidth: 1, slotHeight: 1, spacing: 0) } == "size")
        // A slot exactly as wide as the screen is allowed.
        #expect(setting { try CarouselGeometry(screen: screen, slotWidth: 1920, slotHeight: 1080, spacing: 0) } == nil)
    }

    @Test func errorsQuoteTheValueAsWritten() {
        var layout = LayoutSettings()
        layout.slotWidth = .percent(150)
        let error = expectError(SettingError.self) {
            try CarouselGeometry(screen: PixelSize(width: 1920, height: 1080), settings: layout)
        }
        #expect(error?.description == "invalid image_width \"150%\": the slot is wider than the 1920 px screen")
        layout = LayoutSettings()
        layout.spacing = .percent(-2)
        let spacing = expectError(SettingError.self) {
            try CarouselGeometry(screen: PixelSize(width: 1920, height: 1080), settings: layout)
        }
        #expect(spacing?.description == "invalid spacing \"-2%\": spacing cannot be negative")
    }

    @Test func noVisibleNeighbourIsAllowedButFlagged() throws {
        let screen = PixelSize(width: 1920, height: 1080)
        #expect(try CarouselGeometry(screen: screen, slotWidth: 1800, slotHeight: 1080, spacing: 60).neighboursHiddenAtRest)
        #expect(try !CarouselGeometry(screen: screen, slotWidth: 1800, slotHeight: 1080, spacing: 59).neighboursHiddenAtRest)
        #expect(try !fullHD().neighboursHiddenAtRest)
        let g = try CarouselGeometry(screen: screen, slotWidth: 1800, slotHeight: 1080, spacing: 60)
        #expect(lefts(g, at: 0) == [0: 60])
    }
}

/// A valid geometry from three random numbers: the screen width, the slot
/// width as thousandths of it, and the spacing.
func geometry(_ width: Int, _ thousandths: Int, _ spacing: Int) -> CarouselGeometry {
    try! CarouselGeometry(
        screen: PixelSize(width: width, height: 600), slotWidth: max(1, width * thousandths / 1000),
        slotHeight: 600, spacing: spacing)
}
let screenWidths = Gen.int(in: 1...4000)
let slotShares = Gen.int(in: 1...1000)
let spacings = Gen.int(in: 0...2000)
/// Positions that are exact binary fractions, so `p + 1` is exact too.
let positions = Gen.int(in: -4_000_000...4_000_000).map { Double($0) / 4 }

@Suite struct CarouselGeometryProperties {
    @Test func theCentredSlotIsAlwaysCentred() async {
        await propertyCheck(count: 300, input: screenWidths, slotShares, spacings, Gen.int(in: -1_000_000...1_000_000)) { w, f, s, k in
            let g = geometry(w, f, s)
            let x = g.slotLeft(k, at: Double(k))
            let leftMargin = x
            let rightMargin = g.screen.width - (x + g.slotWidth)
            #expect(abs(leftMargin - rightMargin) <= 1, "margins \(leftMargin) and \(rightMargin)")
        }
    }

    @Test func movingOnePictureShiftsEverySlotByOnePitch() async {
        await propertyCheck(count: 300, input: screenWidths, slotShares, spacings, positions) { w, f, s, p in
            let g = geometry(w, f, s)
            for slot in g.visibleSlots(at: p) {
                #expect(g.slotLeft(slot.index, at: p + 1) == slot.x - g.pitch)
                #expect(g.slotLeft(slot.index + 1, at: p + 1) == slot.x)
            }
        }
    }

    @Test func visibleSlotsAreExactlyThoseOnScreen() async {
        await propertyCheck(count: 300, input: screenWidths, slotShares, spacings, positions) { w, f, s, p in
            let g = geometry(w, f, s)
            let slots = g.visibleSlots(at: p)
            #expect(slots.count <= g.maximumVisibleSlots)
            guard !slots.isEmpty else {
                // Only possible mid-slide with gaps wider than the screen: then
                // the slots on either side of the position are both off screen.
                let k = Int(p.rounded(.down))
                #expect(g.slotLeft(k, at: p) + g.slotWidth <= 0 && g.slotLeft(k + 1, at: p) >= g.screen.width)
                #expect(g.spacing > 0 && p != p.rounded(.down))
                return
            }
            #expect(slots.map(\.index) == Array((slots.first!.index)...(slots.last!.index)))
            for slot in slots { #expect(slot.x < g.screen.width && slot.x + g.slotWidth > 0) }
            let before = g.slotLeft(slots.first!.index - 1, at: p)
            let after = g.slotLeft(slots.last!.index + 1, at: p)
            #expect(before + g.slotWidth <= 0)
            #expect(after >= g.screen.width)
        }
    }

    @Test func theCircularIndexWrapsBothWays() async {
        await propertyCheck(count: 300, input: Gen.int(in: 1...10_000), Gen.int(in: -10_000_000...10_000_000)) { n, k in
            let index = CircularIndex(count: n)
            let item = index.item(forSlot: k)!
            #expect((0..<n).contains(item))
            #expect(index.item(forSlot: k + n) == item)
            #expect(index.item(forSlot: k - n) == item)
            #expect(index.item(forSlot: k + 1) == (item + 1) % n)
        }
    }
}

@Suite struct SlotsEitherSideTests {
    /// The count is what the still strip shows at rest on a slot, and while sliding off it, on either side.
    @Test(arguments: [(1920, 1200, 40), (1920, 1344, 48), (480, 150, 7), (1080, 1080, 0), (1920, 600, 300), (800, 799, 1)])
    func coversEverySlotThatCanShow(width: Int, slot: Int, spacing: Int) throws {
        let g = try CarouselGeometry(screen: PixelSize(width: width, height: 100), slotWidth: slot, slotHeight: 100, spacing: spacing)
        var farthest = 0
        for step in -10...10 {
            let position = Double(step) / 10
            for visible in g.visibleSlots(at: position) { farthest = max(farthest, abs(visible.index)) }
        }
        #expect(farthest == g.slotsEitherSide)
    }
}
