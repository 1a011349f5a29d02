import KioskCore
import Testing

/// Two fingers, a pan and a double tap: the recogniser's side of seed
/// 002's zoom (on a 16 px slop panel, reports every 8 ms), and what
/// ``CentredZoom`` makes of it over time.
@Suite struct ZoomGestureTests {
    private struct Hand {
        var recognizer = SwipeRecognizer(thresholds: SwipeThresholds(slop: 16, flickVelocity: 380, flickDistance: 25))
        var gestures: [SwipeGesture] = []
        var time = 1.0

        mutating func feed(_ input: TouchInput) { if let gesture = recognizer.feed(input) { gestures.append(gesture) } }
        mutating func down(_ id: Int, _ x: Double, _ y: Double) { feed(.down(id: id, at: ScreenPoint(x: x, y: y), time: time)) }
        mutating func move(_ id: Int, _ x: Double, _ y: Double) {
            time += 0.008
            feed(.move(id: id, to: ScreenPoint(x: x, y: y), time: time))
        }
        mutating func up(_ id: Int, after seconds: Double = 0.008) {
            time += seconds
            feed(.up(id: id, time: time))
        }
        /// The strip's commands, as the daemon sends them.
        var strip: [StripTouch] { gestures.compactMap { StripTouch($0, pagePixels: 1000) } }
    }

    /// Two fingers landing 200 px apart begin a pinch about their midpoint;
    /// spreading them is reported as they move; a lift ends it. The strip is
    /// only caught and let go: it never moves.
    @Test func twoFingersPinchAndTheStripStaysCaught() {
        var hand = Hand()
        hand.down(0, 500, 400)
        hand.down(1, 700, 400)
        hand.move(1, 800, 400)
        hand.move(0, 400, 300)
        hand.up(0)
        hand.move(1, 900, 400)  // the other finger after the end: nothing
        hand.up(1)
        let spread: Double = (400.0 * 400 + 100 * 100).squareRoot()
        let expected: [SwipeGesture] = [
            .caught,
            .pinchBegan(midpoint: ScreenPoint(x: 600, y: 400), distance: 200),
            .pinchMoved(midpoint: ScreenPoint(x: 650, y: 400), distance: 300),
            .pinchMoved(midpoint: ScreenPoint(x: 600, y: 350), distance: spread),
            .zoomEnded,
        ]
        #expect(hand.gestures == expected)
        #expect(hand.strip == [.caught, .cancelled])
        #expect(!hand.recognizer.isTouching)
    }

    /// Once the first finger dragged the strip, a second one does not pinch (the swipe goes on).
    @Test func aSecondFingerAfterADragIsNoPinch() {
        var hand = Hand()
        hand.down(0, 500, 400)
        hand.move(0, 460, 400)
        hand.down(1, 800, 400)
        hand.move(1, 900, 400)
        hand.move(0, 400, 400)
        hand.up(0)
        #expect(!hand.gestures.contains { if case .pinchBegan = $0 { true } else { false } })
        #expect(hand.gestures.contains(.dragged(offset: -60)))
    }

    /// On a zoomed picture one finger pans it, in any direction, from where
    /// it passed the slop (no jump); the strip does not move. Set when the
    /// finger lands, it holds for the gesture.
    @Test func oneFingerPansAZoomedPicture() {
        var hand = Hand()
        hand.recognizer.pansPicture = true
        hand.down(0, 500, 400)
        hand.move(0, 505, 410)   // within the slop
        hand.move(0, 510, 430)   // past it: the pan starts here
        hand.recognizer.pansPicture = false
        hand.move(0, 470, 450)
        hand.move(0, 470, 450)   // the same place: nothing
        hand.move(0, 400, 440)
        hand.up(0)
        #expect(hand.gestures == [.caught, .panned(dx: -40, dy: 20), .panned(dx: -70, dy: -10), .zoomEnded])
        #expect(hand.strip == [.caught, .cancelled])
        // A second finger on a panned picture turns the pan into a pinch.
        var two = Hand()
        two.recognizer.pansPicture = true
        two.down(0, 500, 400)
        two.move(0, 540, 400)
        two.down(1, 700, 400)
        #expect(two.gestures.last == .pinchBegan(midpoint: ScreenPoint(x: 620, y: 400), distance: 160))
        // Without a zoom the same finger drags the strip.
        var swipe = Hand()
        swipe.down(0, 500, 400)
        swipe.move(0, 540, 400)
        #expect(swipe.gestures == [.caught, .dragged(offset: 0)])
    }

    /// Two taps within 300 ms (lift to landing) and 16 mm are a double tap,
    /// reported instead of the second tap; slower or further apart they are two taps.
    @Test func aDoubleTapIsTwoQuickTapsInOnePlace() {
        func taps(gap: Double, secondAt x: Double) -> [SwipeGesture] {
            var hand = Hand()
            hand.down(0, 500, 400)
            hand.up(0, after: 0.08)
            hand.time += gap
            hand.down(1, x, 400)
            hand.up(1, after: 0.08)
            return hand.gestures.filter { $0 != .caught }
        }
        let point = ScreenPoint(x: 500, y: 400)
        #expect(taps(gap: 0.2, secondAt: 520) == [.tapped(at: point), .doubleTapped(at: ScreenPoint(x: 520, y: 400))])
        #expect(taps(gap: 0.35, secondAt: 500) == [.tapped(at: point), .tapped(at: point)])
        // 16 mm at 16 px per 2.7 mm is 94.8 px.
        #expect(taps(gap: 0.2, secondAt: 600) == [.tapped(at: point), .tapped(at: ScreenPoint(x: 600, y: 400))])
        // A third quick tap starts again: tap, double, tap.
        var hand = Hand()
        for id in 0..<3 {
            hand.down(id, 500, 400)
            hand.up(id, after: 0.08)
            hand.time += 0.1
        }
        #expect(hand.gestures.filter { $0 != .caught } == [.tapped(at: point), .doubleTapped(at: point), .tapped(at: point)])
        #expect(ZoomTouch(.doubleTapped(at: point)) == .doubleTapped(at: point))
        #expect(ZoomTouch(.tapped(at: point)) == nil)
    }

    /// A palm or lost events in the middle of a pinch cancel it: the zoom
    /// ends where it is and the strip is let go.
    @Test func aPalmEndsAPinch() {
        var hand = Hand()
        hand.down(0, 500, 400)
        hand.down(1, 700, 400)
        hand.feed(.palm(id: 1, time: hand.time))
        #expect(hand.gestures.last == .cancelled)
        #expect(ZoomTouch(hand.gestures.last!) == .ended)
        #expect(hand.strip.last == .cancelled)
    }

    // MARK: CentredZoom

    /// A 4000x3200 photo fitted to 1000x800 in the middle of a 1920x1080 screen.
    let limits = PictureZoom.Limits(fitted: PixelSize(width: 1000, height: 800), original: PixelSize(width: 4000, height: 3200), maximumZoom: 2)
    let centre = ScreenPoint(x: 960, y: 540)

    /// The fingers' pinch in screen pixels: the photo's point under the
    /// fingers at the start is under them at the end.
    @Test func aPinchKeepsThePointUnderTheFingers() {
        var zoom = CentredZoom(limits: limits, centre: centre, at: 0)
        zoom.apply(.pinchBegan(midpoint: ScreenPoint(x: 1060, y: 590), distance: 200), at: 1)
        zoom.apply(.pinchMoved(midpoint: ScreenPoint(x: 1090, y: 580), distance: 300), at: 1.1)
        // The same as PictureZoom's hand-checked case, moved to the screen's middle.
        #expect(zoom.zoom(at: 1.1) == PictureZoom(scale: 1.5, offsetX: -20, offsetY: -35))
        #expect(zoom.isTouched && !zoom.isStill(at: 1.1) && zoom.zoomBackDue(after: 30) == nil)
        zoom.apply(.ended, at: 1.2)
        #expect(zoom.isStill(at: 1.2) && zoom.zoom(at: 5) == PictureZoom(scale: 1.5, offsetX: -20, offsetY: -35))
        #expect(zoom.zoomBackDue(after: 30) == 31.2)
        // A pan then moves it within its edges (at 1.5x, 250 px each side).
        zoom.apply(.panned(dx: -1000, dy: 10), at: 2)
        #expect(zoom.zoom(at: 2) == PictureZoom(scale: 1.5, offsetX: -250, offsetY: -25))
    }

    /// Let go under 1x, it springs back to 1x over 0.25 s, easing out.
    @Test func releasedUnderOneItSpringsBack() {
        var zoom = CentredZoom(limits: limits, centre: centre, at: 0)
        zoom.apply(.pinchBegan(midpoint: centre, distance: 400), at: 1)
        zoom.apply(.pinchMoved(midpoint: centre, distance: 240), at: 1.1)
        #expect(zoom.zoom(at: 1.1).scale == 0.6)
        zoom.apply(.ended, at: 1.2)
        let half = zoom.zoom(at: 1.325)
        #expect(abs(half.scale - (0.6 + 0.4 * Easing.easeOut.progress(0.5))) < 1e-12)
        #expect(zoom.isAnimating(at: 1.44) && !zoom.isOver(at: 1.44))
        #expect(zoom.zoom(at: 1.45) == .fit && zoom.isOver(at: 1.45))
    }

    /// A double tap zooms to 2x about the tapped point, animated; a second goes back to 1x.
    @Test func aDoubleTapTogglesWithAnAnimation() {
        var zoom = CentredZoom(limits: limits, centre: centre, at: 0)
        zoom.apply(.doubleTapped(at: ScreenPoint(x: 1160, y: 540)), at: 1)
        #expect(zoom.zoom(at: 1) == .fit)
        #expect(zoom.zoom(at: 1.25) == PictureZoom(scale: 2, offsetX: -200, offsetY: 0))
        #expect(zoom.zoom(at: 1.1).scale > 1 && zoom.zoom(at: 1.1).scale < 2)
        zoom.apply(.doubleTapped(at: centre), at: 3)
        #expect(zoom.zoom(at: 3.25) == .fit && zoom.isOver(at: 3.25))
    }

    /// Fingers that stop moving it for 100 ms make it worth decoding sharp
    /// before they lift; a move starts the wait again, and a move that
    /// changes nothing (held at max_zoom) does not.
    @Test func aZoomHeldStillSettlesBeforeTheLift() {
        var zoom = CentredZoom(limits: limits, centre: centre, at: 0)
        zoom.apply(.pinchBegan(midpoint: centre, distance: 100), at: 1)
        zoom.apply(.pinchMoved(midpoint: centre, distance: 150), at: 1.05)
        #expect(!zoom.isSettling(at: 1.1) && zoom.settlesAt == 1.05 + CentredZoom.holdBeforeSharp)
        #expect(zoom.isSettling(at: 1.05 + CentredZoom.holdBeforeSharp))
        zoom.apply(.pinchMoved(midpoint: centre, distance: 250), at: 1.2)   // 2.5x: held at 2x
        zoom.apply(.pinchMoved(midpoint: centre, distance: 300), at: 1.25)  // 2x still: no change
        #expect(zoom.settlesAt == 1.2 + CentredZoom.holdBeforeSharp && zoom.zoom(at: 1.25).scale == 2)
        zoom.apply(.ended, at: 1.4)
        #expect(zoom.settlesAt == nil && zoom.isSettling(at: 1.4))
    }

    /// Untouched for `resume_after`, it zooms back with the show's easing over `transition`.
    @Test func itZoomsBackByItself() {
        var zoom = CentredZoom(limits: limits, centre: centre, at: 0)
        zoom.apply(.doubleTapped(at: centre), at: 1)
        #expect(zoom.zoomBackDue(after: 10) == 11)
        zoom.zoomBack(at: 11, duration: 0.5, easing: .easeInOut)
        #expect(zoom.zoomBackDue(after: 10) == nil)
        #expect(zoom.zoom(at: 11.25).scale == 1.5)
        #expect(!zoom.isOver(at: 11.4) && zoom.isOver(at: 11.5))
    }
}
