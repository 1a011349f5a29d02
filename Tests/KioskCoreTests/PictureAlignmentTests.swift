import KioskCore
import TestSupport
import Testing

/// `align = "inner"`: a picture narrower than its slot leans toward the
/// screen's centre, so a portrait neighbour of a landscape slot peeks in.
@Suite struct PictureAlignmentTests {
    /// 100 px to spare: against the left edge, centred, against the right, and a quarter of the way.
    @Test func theRemainderIsSplitByTheLean() {
        #expect(alignedOffsetX(of: 300, in: 400, lean: -1) == 0)
        #expect(alignedOffsetX(of: 300, in: 400, lean: 0) == 50)
        #expect(alignedOffsetX(of: 300, in: 400, lean: 1) == 100)
        #expect(alignedOffsetX(of: 300, in: 400, lean: 0.5) == 75)
        #expect(alignedOffsetX(of: 300, in: 400, lean: 7) == 100) // clamped
    }

    /// Odd remainders: centred as centredOffset puts it (the extra pixel on
    /// the right); at the edges the picture touches the slot's edge exactly.
    @Test func oddRemaindersCentreAsBeforeAndReachBothEdges() {
        #expect(alignedOffsetX(of: 295, in: 400, lean: 0) == centredOffset(of: PixelSize(width: 295, height: 1), in: PixelSize(width: 400, height: 1)).x)
        #expect(alignedOffsetX(of: 295, in: 400, lean: -1) == 0)
        #expect(alignedOffsetX(of: 295, in: 400, lean: 1) == 105)
        // A picture as wide as its slot, or wider (a rounding in a scaled cell), is centred.
        #expect(alignedOffsetX(of: 400, in: 400, lean: 1) == 0)
        #expect(alignedOffsetX(of: 402, in: 400, lean: -1) == -1)
    }

    /// Default 1920x1080 layout: slots at -1094, 288 and 1670 (1344 wide,
    /// pitch 1382). At rest the centred slot leans 0, the left neighbour 1
    /// (its picture goes right), the right one -1; half-way through a slide
    /// the two slots sharing the screen lean half each way.
    @Test func leansFollowTheDistanceToTheScreensCentre() throws {
        let g = try fullHD()
        #expect(g.lean(ofCellAt: 288, width: 1344) == 0)
        #expect(g.lean(ofCellAt: -1094, width: 1344) == 1)
        #expect(g.lean(ofCellAt: 1670, width: 1344) == -1)
        #expect(g.lean(ofCellAt: 1670 + 1382, width: 1344) == -1) // further out stays at the edge
        let halfway = lefts(g, at: 0.5)
        #expect(abs(g.lean(ofCellAt: halfway[0]!, width: 1344) - 0.5) < 0.001)
        #expect(abs(g.lean(ofCellAt: halfway[1]!, width: 1344) + 0.5) < 0.001)
    }

    @Test func theSettingTakesCentreOrInner() throws {
        var settings = KioskSettings()
        #expect(settings.layout.alignment == .inner)
        try settings.set("align", to: .string("center"))   // the American spelling too
        #expect(settings.layout.alignment == .centre && settings.writtenValue(of: "align") == .string("centre"))
        try settings.set("align", to: .string("inner"))
        #expect(settings.layout.alignment == .inner && settings.writtenValue(of: "align") == .string("inner"))
        let error = expectError(SettingError.self) { try settings.set("align", to: .string("left")) }
        #expect(error?.description == "invalid align \"left\": expected \"centre\" (a picture centred in its slot) or \"inner\" (toward the screen's centre, so every neighbour peeks in)")
    }
}
