import KioskCore
import Testing

@Suite struct ShowScheduleTests {
    /// interval 8 s, transition 0.45 s, ease-in-out: the defaults.
    let settings = MotionSettings()

    /// A clip in the centre holds the rest to its end (`restUntil`): the
    /// automatic slide waits, `next` still moves at once, a pause clears it
    /// (the show sets it again on resume), a new interval leaves it alone,
    /// and nothing sets it while paused or held.
    @Test func aClipsRestEndsWhenTheClipEnds() {
        var show = ShowSchedule(at: 0, pictureCount: 5, settings: settings, now: 0)
        show.restUntil(20)
        #expect(show.nextAdvance == 20)
        var changed = settings
        changed.interval = 3
        show.apply(changed)
        #expect(show.nextAdvance == 20, "a reload's interval is not the clip's")
        let early = show.advanceIfDue(at: 8)
        #expect(!early)
        let due = show.advanceIfDue(at: 20)
        #expect(due && show.target == 1)
        #expect(show.nextAdvance == 20.45 + 3, "the next rest is the interval again")
        show.restUntil(30)
        show.apply(.next, at: 21)
        #expect(show.target == 2 && show.nextAdvance == 21.45 + 3, "next leaves at once")
        show.apply(.pause, at: 22)
        show.restUntil(40)
        #expect(show.nextAdvance == nil, "paused: no rest to hold")
        show.apply(.resume, at: 23)
        show.restUntil(24.5)
        #expect(show.nextAdvance == 24.5)
        show.apply(.touch(.caught), at: 24)
        show.restUntil(50)
        #expect(show.nextAdvance == nil, "held by a finger")
    }

    @Test func restsForTheIntervalThenSlidesToTheNextPicture() {
        var show = ShowSchedule(at: 0, pictureCount: 5, settings: settings, now: 100)
        #expect(show.nextAdvance == 108)
        let advanced1 = show.advanceIfDue(at: 107.99)
        #expect(!advanced1)
        #expect(show.position(at: 107.99) == 0 && !show.isMoving(at: 107.99))
        let advanced2 = show.advanceIfDue(at: 108)
        #expect(advanced2)
        #expect(show.target == 1 && show.isMoving(at: 108.1))
        #expect(abs(show.position(at: 108 + 0.225) - 0.5) < 1e-12)
        #expect(show.position(at: 108.45) == 1 && !show.isMoving(at: 108.45))
        // The next rest is measured from the end of the slide.
        #expect(show.nextAdvance == 108.45 + 8)
        let advanced3 = show.advanceIfDue(at: 116.4)
        #expect(!advanced3)
        let advanced4 = show.advanceIfDue(at: 116.45)
        #expect(advanced4 && show.target == 2)
    }

    @Test func aManualMoveRestartsTheRestFromTheEndOfItsSlide() {
        var show = ShowSchedule(at: 0, pictureCount: 5, settings: settings, now: 0)
        show.apply(.next, at: 7)
        #expect(show.target == 1)
        #expect(show.nextAdvance == 7.45 + 8)
        let advanced101 = show.advanceIfDue(at: 8)
        #expect(!advanced101)   // the old deadline no longer counts
        show.apply(.previous, at: 10)
        #expect(show.target == 0 && show.nextAdvance == 10.45 + 8)
        let advanced5 = show.advanceIfDue(at: 18.45)
        #expect(advanced5 && show.target == 1)
    }

    @Test func pauseStopsAutomaticSlidesButNotManualOnes() {
        var show = ShowSchedule(at: 3, pictureCount: 5, settings: settings, now: 0)
        show.apply(.pause, at: 1)
        #expect(show.isPaused && show.nextAdvance == nil)
        let advanced6 = show.advanceIfDue(at: 1_000_000)
        #expect(!advanced6)
        #expect(show.target == 3)
        show.apply(.next, at: 50)
        #expect(show.target == 4 && show.nextAdvance == nil)
        show.apply(.pause, at: 60)   // pausing twice changes nothing
        show.apply(.resume, at: 100)
        #expect(!show.isPaused && show.nextAdvance == 108)
        show.apply(.resume, at: 104)   // already running: the rest is not restarted
        #expect(show.nextAdvance == 108)
        let advanced7 = show.advanceIfDue(at: 108)
        #expect(advanced7 && show.target == 5)
    }

    @Test func pauseDuringASlideLetsItFinish() {
        var show = ShowSchedule(at: 0, pictureCount: 5, settings: settings, now: 0)
        let advanced8 = show.advanceIfDue(at: 8)
        #expect(advanced8)
        show.apply(.pause, at: 8.2)
        #expect(show.position(at: 8.45) == 1)
        // Resumed mid-slide: the rest starts when the slide ends.
        var resumed = show
        resumed.apply(.resume, at: 8.3)
        #expect(resumed.nextAdvance == 8.45 + 8)
    }

    @Test func oneOrNoPictureNeverMoves() {
        for count in [0, 1] {
            var show = ShowSchedule(at: 0, pictureCount: count, settings: settings, now: 0)
            let advanced9 = show.advanceIfDue(at: 100)
            #expect(!advanced9)
            // The deadline moves on, so a run loop never spins on it.
            #expect(show.nextAdvance == 108)
            show.apply(.next, at: 101)
            show.apply(.previous, at: 102)
            #expect(show.target == 0 && !show.isMoving(at: 102.1))
        }
    }

    /// Five quick `next`s move five pictures, without ever going back; the
    /// rest restarts after the last.
    @Test func quickNextsMoveThatManyPictures() {
        var show = ShowSchedule(at: 0, pictureCount: 3, settings: settings, now: 0)
        for i in 0..<5 { show.apply(.next, at: 1 + 0.1 * Double(i)) }
        #expect(show.target == 5)
        var last = 0.0
        for t in stride(from: 1.0, through: 3, by: 0.005) {
            let p = show.position(at: t)
            #expect(p >= last - 1e-12 && p <= 5)
            last = p
        }
        #expect(show.position(at: 3) == 5)
        #expect(show.nextAdvance! > 1.4 + 8 - 1e-9)
        // Slot 5 of a 3-picture loop is picture 2: the loop has wrapped.
        #expect(CircularIndex(count: 3).item(forSlot: show.target) == 2)
    }

    /// `prev` from the first picture goes to the last one, mid-slide too,
    /// and the strip keeps going the same way through the wrap.
    @Test func wrapsAroundInBothDirectionsDuringMotion() {
        let loop = CircularIndex(count: 4)
        var show = ShowSchedule(at: 0, pictureCount: 4, settings: settings, now: 0)
        show.apply(.previous, at: 1)
        show.apply(.previous, at: 1.2)
        #expect(show.direction(at: 1.3) == .backward)
        #expect(loop.item(forSlot: show.target) == 2)
        let midway = show.position(at: 1.3)
        #expect(midway < -0.5 && midway > -2)
        // The slot the strip is passing shows the last picture.
        let passing = Int(midway.rounded(.down))
        #expect(loop.item(forSlot: passing) == (passing == -1 ? 3 : 2))
        show.apply(.next, at: 1.3)
        show.apply(.next, at: 1.35)
        show.apply(.next, at: 1.4)
        show.apply(.next, at: 1.45)
        #expect(show.direction(at: 1.5) == .forward)
        #expect(show.target == 2 && loop.item(forSlot: show.target) == 2)
        #expect(show.position(at: 10) == 2)
    }
}

@Suite struct PlaylistShrinkTests {
    /// Removing a file before the centred one keeps the centred file, on any lap of the loop.
    @Test func theCentredPictureStaysWhenAnEarlierFileDrops() {
        let files = ["a", "b", "c", "d", "e"]
        for slot in -12...12 {
            for removed in files.indices {
                let before = CircularIndex(count: 5)
                let centred = files[before.item(forSlot: slot)!]
                var after = files
                after.remove(at: removed)
                let newSlot = before.slotKeepingItem(atSlot: slot, afterRemoving: removed)
                let shown = after[CircularIndex(count: 4).item(forSlot: newSlot)!]
                if centred != files[removed] {
                    #expect(shown == centred, "slot \(slot), removed \(files[removed])")
                } else {
                    // The centred file itself went: the one after it takes the centre.
                    let next = files[(files.firstIndex(of: centred)! + 1) % 5]
                    #expect(shown == next, "slot \(slot), removed \(files[removed])")
                }
                // Nothing jumps a whole lap: the slot moves by less than one loop.
                #expect(abs(newSlot - slot) <= abs(slot) / 4 + 1)
            }
        }
    }

    @Test func theLastFileLeavingKeepsTheSlot() {
        #expect(CircularIndex(count: 1).slotKeepingItem(atSlot: 7, afterRemoving: 0) == 7)
    }

    @Test func renumberingMovesNothingOnScreen() {
        var show = ShowSchedule(at: 7, pictureCount: 5, settings: MotionSettings(), now: 0)
        show.apply(.next, at: 1)
        let offset = show.position(at: 1.2) - Double(show.target)
        show.renumber(slot: 8, as: 6, pictureCount: 4)
        #expect(show.target == 6 && show.pictureCount == 4)
        #expect(abs(show.position(at: 1.2) - Double(show.target) - offset) < 1e-12)
    }
}

@Suite struct SettingsReloadTests {
    /// A reload mid-slide: the slide ends where and when it would have, the
    /// next one takes the new transition, and the rest under way is
    /// measured with the new interval from when it began.
    @Test func newMotionSettingsApplyFromTheNextSlideWithoutAJump() {
        var schedule = ShowSchedule(at: 0, pictureCount: 5, settings: MotionSettings(), now: 0)
        let slid = schedule.advanceIfDue(at: 8)
        #expect(slid)
        let midSlide = schedule.position(at: 8.2)
        var faster = MotionSettings()
        faster.interval = 2
        faster.transition = 1
        faster.easing = .linear
        schedule.apply(faster)
        #expect(schedule.position(at: 8.2) == midSlide)
        #expect(schedule.position(at: 8.45) == 1)
        #expect(schedule.nextAdvance == 8.45 + 2)
        let slidAgain = schedule.advanceIfDue(at: 10.45)
        #expect(slidAgain)
        // The new curve and length: what a linear one-second slide from rest does.
        var expected = StripMotion(at: 1, easing: .linear, duration: 1)
        expected.retarget(to: 2, at: 10.45)
        for t in [10.6, 10.95, 11.3] { #expect(schedule.position(at: t) == expected.position(at: t)) }
        #expect(schedule.position(at: 11.45) == 2)
    }
}

@Suite struct CountedAndGotoCommandTests {
    /// `next 5` is one movement to the same place five quick `next`s reach.
    @Test func nextFiveEndsWhereFiveQuickNextsEnd() {
        var counted = ShowSchedule(at: 0, pictureCount: 8, settings: MotionSettings(), now: 0)
        counted.apply(.move(by: 5), at: 1)
        var quick = ShowSchedule(at: 0, pictureCount: 8, settings: MotionSettings(), now: 0)
        for t in [1.0, 1.05, 1.1, 1.15, 1.2] { quick.apply(.next, at: t) }
        #expect(counted.target == 5 && quick.target == 5)
        #expect(counted.position(at: 3) == 5)
        counted.apply(.move(by: -7), at: 4)
        #expect(counted.target == -2)
    }

    @Test func gotoTakesTheShortestWayRoundTheLoop() {
        var schedule = ShowSchedule(at: 9, pictureCount: 10, settings: MotionSettings(), now: 0)
        schedule.apply(.goto(item: 0), at: 1)
        #expect(schedule.target == 10)          // forward one, not back nine
        schedule.apply(.goto(item: 7), at: 2)
        #expect(schedule.target == 7)           // back three
        schedule.apply(.goto(item: 2), at: 3)
        #expect(schedule.target == 12)          // a tie (five each way) goes forward
        let before = schedule
        schedule.apply(.goto(item: 2), at: 4)
        schedule.apply(.goto(item: 10), at: 4)  // not in the playlist: ignored
        #expect(schedule == before)
    }

    @Test func theNearestSlotShowsTheItemAndIsNeverMoreThanHalfALoopAway() {
        for count in 1...7 {
            let index = CircularIndex(count: count)
            for slot in -15...15 {
                for item in 0..<count {
                    let found = index.nearestSlot(showing: item, from: slot)
                    #expect(index.item(forSlot: found) == item)
                    #expect(abs(found - slot) * 2 <= count)
                }
            }
        }
    }
}
