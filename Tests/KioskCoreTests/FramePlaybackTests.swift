import KioskCore
import Testing

/// An animated picture in its slot: frames at the file's delays, waiting for late decodes, stopping after counted plays.
@Suite struct FramePlaybackTests {
    @Test func framesFollowTheDelaysWhenDecodedInTime() {
        var playback = FramePlayback(schedule: FrameSchedule(delays: [0.1, 0.3, 0.2]), startedAt: 10)
        #expect(playback.nextDue == 10.1)
        let early = playback.advance(at: 10.05, ready: true)
        #expect(!early)
        // Woken 10 ms late: the cadence stays the file's.
        let late = playback.advance(at: 10.11, ready: true)
        #expect(late && playback.shown == 1 && playback.shownAt == 10.1)
        #expect(abs(playback.nextDue! - 10.4) < 1e-9)
        let second = playback.advance(at: 10.4, ready: true), third = playback.advance(at: 10.6, ready: true)
        #expect(second && third)
        // Frame 3 is the file's first again, for ever.
        #expect(playback.shown == 3 && abs(playback.nextDue! - 10.7) < 1e-9)
        #expect(playback.wanted(ahead: 2) == 4...5)
    }

    /// A frame not yet decoded is waited for, then keeps its whole delay.
    @Test func aLateFrameShowsWhenItArrivesAndKeepsItsDelay() {
        var playback = FramePlayback(schedule: FrameSchedule(delays: [0.1, 0.1]), startedAt: 0)
        let notReady = playback.advance(at: 0.1, ready: false)
        #expect(!notReady && playback.shown == 0)
        let arrived = playback.advance(at: 0.5, ready: true)
        #expect(arrived && playback.shownAt == 0.5 && playback.nextDue == 0.6)
    }

    /// Two plays of three frames: frame 5 is the last, and it stays.
    @Test func countedPlaysEndOnTheLastFrame() {
        var playback = FramePlayback(schedule: FrameSchedule(delays: [0.1, 0.1, 0.1], plays: 2), startedAt: 0)
        #expect(playback.lastFrame == 5)
        var time = 0.0
        while let due = playback.nextDue {
            time = due
            #expect(playback.wanted(ahead: 2).upperBound <= 5)
            let moved = playback.advance(at: time, ready: true)
            #expect(moved)
        }
        #expect(playback.shown == 5 && abs(time - 0.5) < 1e-9)
    }

    /// After a pause the frame on screen gets its whole delay again.
    @Test func resumingRestartsTheFramesDelay() {
        var playback = FramePlayback(schedule: FrameSchedule(delays: [1, 1]), startedAt: 0)
        playback.resume(at: 5)
        #expect(playback.nextDue == 6)
    }
}
