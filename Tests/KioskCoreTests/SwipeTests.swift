import KioskCore
import Testing
import TestSupport

/// A finger on a 10-inch 1280x800 panel (16 px slop, flicks from 380 px/s
/// after 25 px), driving a strip of 10 pictures whose page (slot and
/// spacing) is 1000 px, as the daemon will: the recogniser's gestures go to
/// the schedule in pictures. The panel reports every 8 ms (125 Hz).
private struct Finger {
    var recognizer = SwipeRecognizer(thresholds: SwipeThresholds(slop: 16, flickVelocity: 380, flickDistance: 25))
    var schedule = ShowSchedule(at: 0, pictureCount: 10, settings: MotionSettings(), now: 0)
    var gestures: [SwipeGesture] = []
    var time = 1.0
    static let page = 1000.0
    static let report = 0.008

    mutating func feed(_ input: TouchInput) {
        guard let gesture = recognizer.feed(input) else { return }
        gestures.append(gesture)
        if let touch = StripTouch(gesture, pagePixels: Self.page) { schedule.apply(.touch(touch), at: time) }
    }

    mutating func down(_ x: Double, _ y: Double = 400, id: Int = 0) {
        feed(.down(id: id, at: ScreenPoint(x: x, y: y), time: time))
    }

    /// Moves by (dx, dy) over `seconds`, one report every 8 ms.
    mutating func move(from x: Double, by dx: Double, dy: Double = 0, over seconds: Double, id: Int = 0) {
        let steps = max(1, Int((seconds / Self.report).rounded()))
        for step in 1...steps {
            time += seconds / Double(steps)
            let f = Double(step) / Double(steps)
            feed(.move(id: id, to: ScreenPoint(x: x + dx * f, y: 400 + dy * f), time: time))
        }
    }

    mutating func up(after seconds: Double = Finger.report, id: Int = 0) {
        time += seconds
        feed(.up(id: id, time: time))
    }

    /// Where the strip comes to rest.
    var restsAt: Double { schedule.motion.target }
    var position: Double { schedule.position(at: time) }

    /// A whole swipe: down at `x`, `dx` over `seconds`, then up.
    mutating func swipe(from x: Double = 640, by dx: Double, over seconds: Double, stillBeforeLift: Double = Finger.report) {
        down(x)
        move(from: x, by: dx, over: seconds)
        up(after: stillBeforeLift)
    }
}

@Suite struct SwipeTests {
    @Test func thresholdsComeFromMillimetres() {
        // 10 inches across a 16:10 panel: 215.4 mm for 1280 px.
        let thresholds = SwipeThresholds(pixelsPerMillimetre: 1280 / 215.4)
        #expect(abs(thresholds.slop - 16) < 0.1)
        #expect(abs(thresholds.flickVelocity - 386) < 1)
        #expect(abs(thresholds.flickDistance - 23.8) < 0.1)
    }

    /// 1. A touch that moves less than the slop is a tap, and the strip stays exactly where it was.
    @Test func aTapUnderTheSlopChangesNothing() {
        var finger = Finger()
        finger.swipe(by: -12, over: 0.08)
        #expect(finger.gestures == [.caught, .tapped(at: ScreenPoint(x: 640, y: 400))])
        #expect(finger.restsAt == 0 && finger.position == 0)
        #expect(TapAction(tapAt: 640, screenWidth: 1280) == .pauseOrResume)
    }

    /// 2. A slow drag (200 px/s) to 40% of a page snaps back; to 60% it moves on.
    @Test func aSlowDragSnapsBackUnderHalfAPageAndMovesOnPastIt() {
        var short = Finger()
        short.swipe(by: -(16 + 400), over: 2.08)
        guard case .released(let offset, let velocity?, false) = short.gestures.last else {
            Issue.record("not a slow release: \(short.gestures)")
            return
        }
        #expect(abs(offset + 400) < 8 && abs(velocity + 200) < 1)
        #expect(short.restsAt == 0)
        var long = Finger()
        long.swipe(by: -(16 + 600), over: 3.08)
        #expect(!isFlick(long.gestures.last))
        #expect(long.restsAt == 1)
        // Right to left moves on; left to right goes back.
        var back = Finger()
        back.swipe(by: 16 + 600, over: 3.08)
        #expect(back.restsAt == -1)
    }

    /// 3. Released at exactly half a page (after the finger stopped), the strip stays.
    @Test func aReleaseAtExactlyHalfAPageStays() {
        var finger = Finger()
        finger.down(640)
        finger.move(from: 640, by: -20, over: 0.04)   // past the slop: the drag begins at 620
        finger.move(from: 620, by: -500, over: 1.0)
        finger.up(after: 0.2)
        #expect(finger.gestures.last == .released(offset: -500, velocity: nil, flick: false))
        #expect(finger.restsAt == 0)
        var back = Finger()
        back.down(640)
        back.move(from: 640, by: 20, over: 0.04)
        back.move(from: 660, by: 500, over: 1.0)
        back.up(after: 0.2)
        #expect(back.restsAt == 0)
    }

    /// 4. A 30 px flick at 600 px/s moves on; 5. a 15 px jab at the same speed does not.
    @Test func aShortQuickFlickMovesOnAndAJabDoesNot() {
        var flick = Finger()
        flick.swipe(by: -30, over: 0.05)
        guard case .released(_, let velocity?, true) = flick.gestures.last else {
            Issue.record("no flick: \(flick.gestures)")
            return
        }
        #expect(abs(velocity + 600) < 1)
        #expect(flick.restsAt == 1)
        var jab = Finger()
        jab.swipe(by: -15, over: 0.025)
        #expect(jab.gestures.last == .tapped(at: ScreenPoint(x: 640, y: 400)))
        #expect(jab.restsAt == 0)
    }

    /// 6. Dragged 40% left, then flicked back right: the flick's direction wins, back to where it was.
    @Test func aDragThenAFlickTheOtherWaySnapsBack() {
        var finger = Finger()
        finger.down(800)
        finger.move(from: 800, by: -416, over: 2.0)
        finger.move(from: 384, by: 60, over: 0.064)
        finger.up()
        #expect(isFlick(finger.gestures.last))
        #expect(finger.restsAt == 0)
    }

    /// 7. A quick drag, then the finger held still for 100 ms: no flick, nearest picture.
    @Test func aDragHeldStillBeforeTheLiftIsNoFlick() {
        var finger = Finger()
        finger.down(640)
        finger.move(from: 640, by: -20, over: 0.008)   // the drag begins at 620
        finger.move(from: 620, by: -300, over: 0.2)    // 1,500 px/s
        finger.up(after: 0.1)
        #expect(finger.gestures.last == .released(offset: -300, velocity: nil, flick: false))
        #expect(finger.restsAt == 0)
    }

    /// 8. A second finger landing and moving mid-drag changes nothing; the first still drives.
    @Test func aSecondFingerMidDragIsIgnored() {
        var finger = Finger()
        finger.down(900)
        finger.move(from: 900, by: -216, over: 1.0)
        let before = finger.position
        finger.down(100, id: 1)
        finger.move(from: 100, by: 500, over: 0.1, id: 1)
        #expect(finger.position == before)
        finger.up(id: 1)
        finger.move(from: 684, by: -500, over: 2.0)
        finger.up()
        #expect(finger.gestures.filter { $0 == .cancelled }.isEmpty)
        #expect(finger.restsAt == 1)
    }

    /// 9. Lost events mid-drag: cancelled, and the strip settles on the nearest picture.
    @Test func lostEventsMidDragSettleOnTheNearestPicture() {
        var finger = Finger()
        finger.down(900)
        finger.move(from: 900, by: -716, over: 2.0)
        finger.time += 0.01
        finger.feed(.lost(time: finger.time))
        #expect(finger.gestures.last == .cancelled)
        #expect(finger.restsAt == 1)
        // The contacts after the resync are new: the next finger starts a new gesture.
        finger.down(640, id: 5)
        #expect(finger.gestures.last == .caught)
    }

    /// 10. A palm cancels: the strip settles where it is nearest, and nothing more follows the hand.
    @Test func aPalmCancels() {
        var finger = Finger()
        finger.down(900)
        finger.move(from: 900, by: -216, over: 1.0)
        finger.time += 0.01
        finger.feed(.palm(id: 0, time: finger.time))
        #expect(finger.gestures.last == .cancelled)
        #expect(finger.restsAt == 0)
        finger.move(from: 684, by: -600, over: 0.5)
        finger.up()
        #expect(finger.gestures.last == .cancelled && finger.restsAt == 0)
    }

    /// 11. A finger landing on the settling strip catches it where it is: no jump.
    @Test func aTouchDuringTheSettleCatchesTheStrip() {
        var finger = Finger()
        finger.swipe(by: -616, over: 0.3)
        #expect(finger.restsAt == 1)
        finger.time += 0.1
        let moving = finger.position
        #expect(moving > 0.6 && moving < 1)
        finger.down(640)
        #expect(finger.position == moving)
        #expect(!finger.schedule.isMoving(at: finger.time + 0.1))
        // A drag from there carries on from that very point, pixel for pixel.
        finger.move(from: 640, by: -20, over: 0.008)
        #expect(finger.position == moving)
        finger.move(from: 620, by: -100, over: 0.5)
        #expect(abs(finger.position - (moving + 0.1)) < 1e-9)
    }

    /// A vertical swipe is not a swipe; three fingers are a hand (the
    /// first two begin a pinch, which the third ends: the strip never moves).
    @Test func verticalSwipesAndThreeFingersDoNotMoveTheStrip() {
        var vertical = Finger()
        vertical.down(640)
        vertical.move(from: 640, by: -10, dy: 200, over: 0.2)
        vertical.move(from: 630, by: -600, over: 0.2)
        vertical.up()
        #expect(vertical.gestures == [.caught, .cancelled] && vertical.restsAt == 0)
        var hand = Finger()
        hand.down(600)
        hand.down(700, id: 1)
        hand.down(800, id: 2)
        hand.move(from: 600, by: -600, over: 0.2)
        hand.up()
        #expect(hand.gestures == [.caught, .pinchBegan(midpoint: ScreenPoint(x: 650, y: 400), distance: 100), .zoomEnded])
        #expect(hand.restsAt == 0 && hand.position == 0)
    }

    /// 15. Samples with the same timestamp, or out of order, divide by nothing.
    @Test func duplicateTimestampsGiveNoVelocityRatherThanInfinity() {
        var tracker = VelocityTracker()
        for x in stride(from: 0.0, through: 50, by: 10) { tracker.add(x, at: 2.0) }
        #expect(tracker.velocity(liftedAt: 2.0) == nil)
        tracker.add(60, at: 1.9)  // earlier than the last: taken as the last's time
        #expect(tracker.velocity(liftedAt: 2.0) == nil)
        var finger = Finger()
        finger.down(640)
        for x in [620.0, 560, 500, 440] { finger.feed(.move(id: 0, to: ScreenPoint(x: x, y: 400), time: finger.time)) }
        finger.feed(.up(id: 0, time: finger.time))
        #expect(finger.gestures.last == .released(offset: -180, velocity: nil, flick: false))
        #expect(finger.restsAt == 0)
    }

    /// The velocity is the least-squares slope over the last 100 ms, and a pause of over 40 ms ends it.
    @Test func velocityIsTheRecentSlopeAndAPauseForgetsWhatCameBefore() {
        var tracker = VelocityTracker()
        for n in 0...30 { tracker.add(Double(n) * 4, at: Double(n) * 0.008) }  // 500 px/s
        #expect(abs(tracker.velocity(liftedAt: 0.25)! - 500) < 1e-6)
        #expect(tracker.velocity(liftedAt: 0.29) == nil, "lifted 50 ms after the last move")
        for n in 0...5 { tracker.add(120 - Double(n) * 2, at: 0.5 + Double(n) * 0.008) }  // back at 250 px/s after a pause
        #expect(abs(tracker.velocity(liftedAt: 0.54)! + 250) < 1e-6)
    }

    /// Auto-advance waits while a finger is down, and resumes `resumeAfter` seconds after the lift.
    @Test func automaticSlidesWaitForTheFingerAndResumeLater() {
        var finger = Finger()
        finger.down(640)
        finger.time = 100
        let whileHeld = finger.schedule.advanceIfDue(at: finger.time)
        #expect(!whileHeld)
        finger.move(from: 640, by: -100, over: 0.5)
        finger.up()
        let lifted = finger.time
        #expect(finger.schedule.nextAdvance == lifted + MotionSettings().resumeAfter)
        let early = finger.schedule.advanceIfDue(at: lifted + 29)
        #expect(!early)
        let due = finger.schedule.advanceIfDue(at: lifted + 30)
        #expect(due)
    }

    /// A contact of one or two reports is panel noise, not a tap; the strip goes on.
    @Test func ghostTapsAreNotTaps() {
        var finger = Finger()
        finger.down(100)
        finger.up(after: 0.01)
        #expect(finger.gestures == [.caught, .cancelled])
        #expect(finger.restsAt == 0)
        var tap = Finger()
        tap.down(100)
        tap.up(after: 0.06)
        #expect(tap.gestures.last == .tapped(at: ScreenPoint(x: 100, y: 400)))
    }

    /// A broken panel's jump gives an absurd speed, even against the way
    /// the strip settles: the strip still goes no further than about one
    /// picture past its target on the way, and rests there.
    @Test func anAbsurdReleaseSpeedDoesNotSpinTheStrip() {
        for velocity in [1e9, -1e9, .infinity, .nan] {
            var schedule = ShowSchedule(at: 0, pictureCount: 10, settings: MotionSettings(), now: 0)
            schedule.apply(.touch(.caught), at: 1)
            schedule.apply(.touch(.dragged(pictures: 0.2)), at: 1.1)
            schedule.apply(.touch(.released(pictures: 0.2, velocity: velocity, flick: false)), at: 1.2)
            let positions = stride(from: 1.2, through: 3, by: 0.004).map { schedule.position(at: $0) }
            #expect(positions.allSatisfy { $0.isFinite && abs($0) <= 1.2 }, "\(velocity): \(positions.map(abs).max()!)")
            #expect(schedule.position(at: 3) == 0)
        }
    }

    /// Tap zones: the left fifth is prev, the right fifth next, the middle pause or resume.
    @Test func tapZones() {
        #expect(TapAction(tapAt: 0, screenWidth: 1280) == .previous)
        #expect(TapAction(tapAt: 255, screenWidth: 1280) == .previous)
        #expect(TapAction(tapAt: 256, screenWidth: 1280) == .pauseOrResume)
        #expect(TapAction(tapAt: 1023, screenWidth: 1280) == .pauseOrResume)
        #expect(TapAction(tapAt: 1024, screenWidth: 1280) == .next)
    }

    /// Any stream of touches at all: no crash, the strip always somewhere finite, and whole once no finger holds it.
    @Test func anyTouchesLeaveTheStripWholeAndFinite() {
        var random = SplitMix(seed: 12)
        for _ in 0..<300 {
            var finger = Finger()
            for _ in 0..<60 {
                finger.time += Double(random.next() % 30) / 1000 - 0.005
                let id = Int(random.next() % 3)
                let point = ScreenPoint(x: Double(random.next() % 3000) - 800, y: Double(random.next() % 1000))
                switch random.next() % 6 {
                case 0: finger.feed(.down(id: id, at: point, time: finger.time))
                case 1, 2: finger.feed(.move(id: id, to: point, time: finger.time))
                case 3: finger.feed(.up(id: id, time: finger.time))
                case 4: finger.feed(.palm(id: id, time: finger.time))
                default: finger.feed(.lost(time: finger.time))
                }
                #expect(finger.position.isFinite)
                if !finger.schedule.isHeld { #expect(finger.restsAt == finger.restsAt.rounded()) }
            }
        }
    }
}

private func isFlick(_ gesture: SwipeGesture?) -> Bool {
    if case .released(_, _, true) = gesture { return true }
    return false
}
