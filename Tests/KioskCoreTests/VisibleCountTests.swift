import KioskCore
import TestSupport
import Testing

/// `visible`: how many slot widths (slot plus spacing) the screen holds,
/// instead of `image_width` (seed 001). Each case worked out by hand.
@Suite struct VisibleCountTests {
    private func geometry(_ visible: Double, screen: PixelSize = PixelSize(width: 1920, height: 1080), spacing: Length = .percent(2)) throws -> CarouselGeometry {
        var layout = LayoutSettings()
        layout.visible = visible
        layout.spacing = spacing
        return try CarouselGeometry(screen: screen, settings: layout)
    }

    /// 1920 / 1.4 = 1371.43 px a pitch; less 38 px spacing, a 1333 px slot.
    /// Centred at x = 293.5, rounded up to 294: the left neighbour ends at
    /// 294 - 38 = 256 and the right one starts at 294 + 1333 + 38 = 1665,
    /// so both peek in (256 and 255 px).
    @Test func onePointFourOnFullHD() throws {
        let g = try geometry(1.4)
        #expect(g.slotWidth == 1333 && g.spacing == 38 && g.pitch == 1371)
        #expect(lefts(g, at: 0) == [-1: 294 - 1371, 0: 294, 1: 294 + 1371])
        #expect(294 - 1371 + 1333 == 256)
        #expect(!g.neighboursHiddenAtRest)
    }

    /// Two across a 1000 px screen without spacing: 500 px slots, the
    /// centred one at 250, half of each neighbour showing.
    @Test func twoAcrossWithoutSpacing() throws {
        let g = try geometry(2, screen: PixelSize(width: 1000, height: 600), spacing: .pixels(0))
        #expect(g.slotWidth == 500)
        #expect(lefts(g, at: 0) == [-1: -250, 0: 250, 1: 750])
    }

    /// One across: the slot is the screen less one spacing, no neighbour shows.
    @Test func oneAcrossHidesTheNeighbours() throws {
        let g = try geometry(1, screen: PixelSize(width: 1000, height: 600), spacing: .pixels(10))
        #expect(g.slotWidth == 990 && g.neighboursHiddenAtRest)
    }

    /// A half pixel rounds up: 1001 / 2 = 500.5.
    @Test func aHalfPixelRoundsUp() throws {
        #expect(try geometry(2, screen: PixelSize(width: 1001, height: 600), spacing: .pixels(0)).slotWidth == 501)
    }

    /// Fewer than one across makes a slot wider than the screen: the error names visible.
    @Test func aSlotWiderThanTheScreenIsAnErrorAboutVisible() throws {
        let error = expectError(SettingError.self) { try geometry(0.9) }
        #expect(error?.setting == "visible" && error?.value == "0.9")
        #expect(error?.reason.contains("make a slot 2095 px wide") == true, "\(String(describing: error))")
        #expect(error?.reason.contains("wider than the 1920 px screen") == true)
    }

    @Test func theSettingTakesANumberFromTheFileOrAFlag() throws {
        var settings = KioskSettings()
        try settings.set("visible", to: .float(1.4))
        #expect(settings.layout.visible == 1.4)
        try settings.set("visible", to: .string("2"))
        #expect(settings.layout.visible == 2)
        try settings.set("visible", to: .integer(3))
        #expect(settings.layout.visible == 3)
        for bad: SettingValue in [.string("0"), .string("-1"), .string("many"), .boolean(true), .float(.infinity)] {
            let error = expectError(SettingError.self) { try settings.set("visible", to: bad) }
            #expect(error?.reason.contains("how many slots the screen holds") == true)
        }
    }

    /// Written together, wherever, they are one error naming both and where each was written.
    @Test func visibleAndImageWidthTogetherIsAnErrorNamingBoth() throws {
        var settings = KioskSettings()
        try settings.set("visible", to: .float(1.4))
        let places = ["visible": "the --visible flag", "image_width": "kiosk.toml: line 3"]
        let error = try #require(settings.slotWidthConflict(written: ["image_width", "visible"], place: { places[$0] }))
        #expect(error.description == "invalid visible \"1.4\": visible (the --visible flag) and image_width (kiosk.toml: line 3) "
            + "both set the slot's width: keep one (visible counts slots across the screen, image_width gives the width)")
        #expect(settings.slotWidthConflict(written: ["visible", "spacing"], place: { places[$0] }) == nil)
        #expect(KioskSettings().slotWidthConflict(written: ["image_width"], place: { places[$0] }) == nil)
    }

    /// The effective configuration writes one of the two, so it reads back without the conflict.
    @Test func onlyOneOfTheTwoIsWritten() throws {
        var settings = KioskSettings()
        #expect(settings.writtenValue(of: "visible") == nil && settings.writtenValue(of: "image_width") == .string("70%"))
        try settings.set("visible", to: .float(1.4))
        #expect(settings.writtenValue(of: "visible") == .float(1.4) && settings.writtenValue(of: "image_width") == nil)
    }
}
