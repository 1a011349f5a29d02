import KioskCore
#if canImport(PropertyBased)
import PropertyBased
#endif
import Testing

/// Pinch zoom on the centred picture: the math the show follows.
@Suite struct PictureZoomTests {
    /// A 4000x3200 photo fitted to 1000x800, max_zoom 2.
    let limits = PictureZoom.Limits(fitted: PixelSize(width: 1000, height: 800), original: PixelSize(width: 4000, height: 3200), maximumZoom: 2)

    /// The picture's point (0...1 each way) at screen point `p`.
    private func pointUnder(_ p: (x: Double, y: Double), _ zoom: PictureZoom) -> (Double, Double) {
        (0.5 + (p.x - zoom.offsetX) / (zoom.scale * 1000), 0.5 + (p.y - zoom.offsetY) / (zoom.scale * 800))
    }

    /// Fingers 200 px apart around (100, 50) spread to 300 px around
    /// (130, 40): 1.5x, and the photo's point that was under them
    /// (0.6, 0.5625) is under them still.
    @Test func theMidpointStaysUnderTheFingers() {
        let zoom = PictureZoom.pinched(from: .fit, startMidpoint: (100, 50), startDistance: 200, midpoint: (130, 40), distance: 300, limits: limits)
        #expect(zoom == PictureZoom(scale: 1.5, offsetX: -20, offsetY: -35))
        let before = pointUnder((100, 50), .fit), after = pointUnder((130, 40), zoom)
        #expect(abs(before.0 - after.0) < 1e-12 && abs(before.1 - after.1) < 1e-12 && abs(before.0 - 0.6) < 1e-12)
        // A second pinch goes on from there: the point stays under the fingers again.
        let more = PictureZoom.pinched(from: zoom, startMidpoint: (130, 40), startDistance: 100, midpoint: (120, 30), distance: 120, limits: limits)
        #expect(abs(more.scale - 1.8) < 1e-12)
        let again = pointUnder((120, 30), more)
        #expect(abs(again.0 - after.0) < 1e-12 && abs(again.1 - after.1) < 1e-12)
    }

    /// max_zoom bounds the scale, and so does the photo's own resolution.
    @Test func theScaleStopsAtMaxZoomAndAtThePhotosPixels() {
        let far = PictureZoom.pinched(from: .fit, startMidpoint: (0, 0), startDistance: 100, midpoint: (0, 0), distance: 900, limits: limits)
        #expect(far.scale == 2)
        let small = PictureZoom.Limits(fitted: PixelSize(width: 1000, height: 800), original: PixelSize(width: 1200, height: 960), maximumZoom: 2)
        #expect(small.maximumScale == 1.2)
        let tiny = PictureZoom.Limits(fitted: PixelSize(width: 1000, height: 800), original: PixelSize(width: 300, height: 240), maximumZoom: 2)
        #expect(tiny.maximumScale == 1)   // a picture scaled up to fit cannot zoom
    }

    /// At 2x the picture's middle may move at most half the extra size: 500 and 400 px.
    @Test func aPanStopsAtThePicturesEdges() {
        let zoomed = PictureZoom(scale: 2, offsetX: 0, offsetY: 0)
        #expect(zoomed.panned(dx: 10_000, dy: -10_000, limits: limits) == PictureZoom(scale: 2, offsetX: 500, offsetY: -400))
        #expect(zoomed.panned(dx: 30, dy: 20, limits: limits) == PictureZoom(scale: 2, offsetX: 30, offsetY: 20))
        // At 1x nothing pans.
        #expect(PictureZoom.fit.panned(dx: 50, dy: 50, limits: limits) == .fit)
    }

    /// A double tap zooms to 2x about the tap (clamped at the edges), and a second one goes back.
    @Test func aDoubleTapToggles() {
        let zoomed = PictureZoom.fit.doubleTapped(at: (200, 0), limits: limits)
        #expect(zoomed == PictureZoom(scale: 2, offsetX: -200, offsetY: 0))
        #expect(zoomed.doubleTapped(at: (0, 0), limits: limits) == .fit)
        #expect(PictureZoom.fit.doubleTapped(at: (490, 390), limits: limits) == PictureZoom(scale: 2, offsetX: -490, offsetY: -390))
        // Beside the picture (the slot's letterbox) the tapped point cannot stay put: the edge holds.
        #expect(PictureZoom.fit.doubleTapped(at: (700, 450), limits: limits) == PictureZoom(scale: 2, offsetX: -500, offsetY: -400))
    }

    /// Pinched under 1x (down to 1/2 while the fingers are on it), it springs back when they lift.
    @Test func underOneItSpringsBack() {
        let pinched = PictureZoom.pinched(from: .fit, startMidpoint: (0, 0), startDistance: 300, midpoint: (40, 0), distance: 60, limits: limits)
        #expect(pinched.scale == 0.5 && pinched.offsetX == 0)
        #expect(pinched.settled(limits) == .fit)
        #expect(PictureZoom(scale: 1.5, offsetX: 10, offsetY: 0).settled(limits) == PictureZoom(scale: 1.5, offsetX: 10, offsetY: 0))
    }

    /// What to decode again, sharp: the part of the photo in the slot.
    @Test func theVisibleRegionIsThePartInTheSlot() {
        let whole = PictureZoom.fit.visibleRegion(visibleWidth: 1000, visibleHeight: 800, limits: limits)
        #expect(whole == (0, 0, 1, 1))
        let middle = PictureZoom(scale: 2, offsetX: 0, offsetY: 0).visibleRegion(visibleWidth: 1000, visibleHeight: 800, limits: limits)
        #expect(middle == (0.25, 0.25, 0.75, 0.75))
        let right = PictureZoom(scale: 2, offsetX: -500, offsetY: 0).visibleRegion(visibleWidth: 1000, visibleHeight: 800, limits: limits)
        #expect(right == (0.5, 0.25, 1, 0.75))
    }

    /// Any sequence of pinches and pans keeps the scale within 1/2 and the
    /// maximum and the picture over its place at 1x.
    @Test func anyGesturesStayWithinTheLimits() async {
        let steps = Gen.int(in: -400...400).array(of: 5)
        await propertyCheck(count: 300, input: steps.array(of: 1...20)) { moves in
            var zoom = PictureZoom.fit
            for m in moves {
                if m[0] % 2 == 0 {
                    zoom = PictureZoom.pinched(from: zoom, startMidpoint: (Double(m[1]), Double(m[2])), startDistance: Double(abs(m[3]) + 1),
                                               midpoint: (Double(m[2]), Double(m[1])), distance: Double(abs(m[4]) + 1), limits: limits)
                } else {
                    zoom = zoom.panned(dx: Double(m[1]), dy: Double(m[2]), limits: limits)
                }
                #expect(zoom.scale >= 0.5 && zoom.scale <= 2)
                #expect(abs(zoom.offsetX) <= max(0, (zoom.scale - 1) * 500) + 1e-9 && abs(zoom.offsetY) <= max(0, (zoom.scale - 1) * 400) + 1e-9)
            }
            let settled = zoom.settled(limits)
            #expect(settled.scale >= 1 && (settled.scale > 1 || settled == .fit))
        }
    }

    /// A 4:3 photo fitted 1344x1008 in a 1344x1080 slot, zoomed 2x about
    /// its middle: shown 2688x2016, it covers the whole window, which shows
    /// x 0.25...0.75 and y (1008 - 540) / 2016 = 0.2321...0.7679 of it.
    /// Focused on its top left corner, the pan stops at the edges: the
    /// corner stays where it was at 1x, (0, 36), and the window shows the
    /// top left half across and (1080 - 36) / 2016 = 0.5179 down.
    @Test func aFocusedZoomShowsTheRegionAroundTheFocus() {
        let limits = PictureZoom.Limits(
            fitted: PixelSize(width: 1344, height: 1008), original: PixelSize(width: 6000, height: 4500), maximumZoom: 2)
        let window = PixelSize(width: 1344, height: 1080)
        let middle = PictureZoom.focused(on: (0.5, 0.5), scale: 2, limits: limits).view(in: window, limits: limits)
        #expect(middle.onScreen == PixelRect(x: 0, y: 0, width: 1344, height: 1080))
        #expect(middle.region.left == 0.25 && middle.region.right == 0.75)
        #expect(abs(middle.region.top - 468.0 / 2016) < 1e-12 && abs(middle.region.bottom - 1548.0 / 2016) < 1e-12)
        let corner = PictureZoom.focused(on: (0, 0), scale: 2, limits: limits).view(in: window, limits: limits)
        #expect(corner.onScreen == PixelRect(x: 0, y: 36, width: 1344, height: 1044))
        #expect(corner.region.left == 0 && corner.region.top == 0 && corner.region.right == 0.5)
        #expect(abs(corner.region.bottom - 1044.0 / 2016) < 1e-12)
        // Past max_zoom it stops at max_zoom; at 1x the view is the fitted picture.
        #expect(PictureZoom.focused(on: (0.5, 0.5), scale: 5, limits: limits).scale == 2)
        let fit = PictureZoom.focused(on: (0.9, 0.1), scale: 1, limits: limits).view(in: window, limits: limits)
        #expect(fit.onScreen == PixelRect(x: 0, y: 36, width: 1344, height: 1008) && fit.region == .whole)
    }
}
