import KioskCore
import Testing

/// An animated picture's frames in time: the file's delays, looping.
@Suite struct FrameScheduleTests {
    /// Three frames of 0.1, 0.5 and 0.2 s: 0.8 s a play, for ever.
    let schedule = FrameSchedule(delays: [0.1, 0.5, 0.2])

    @Test func eachFrameShowsForItsOwnDelayAndTheLoopGoesRound() {
        #expect(schedule.period == 0.8)
        let frames = [0, 0.05, 0.1, 0.3, 0.599, 0.6, 0.79, 0.8, 0.95, 8.05].map { schedule.frame(at: $0) }
        #expect(frames == [0, 0, 1, 1, 1, 2, 2, 0, 1, 0])
        #expect(schedule.frame(at: -3) == 0)
    }

    /// The loop wakes only when the frame changes.
    @Test func theNextChangeIsTheEndOfTheFrameShown() {
        #expect(schedule.nextChange(after: 0) == 0.1)
        #expect(schedule.nextChange(after: 0.1) == 0.6)
        #expect(schedule.nextChange(after: 0.7) == 0.8)
        #expect(abs(schedule.nextChange(after: 1.0)! - 1.4) < 1e-9)   // second play: 0.8 + 0.1 + 0.5
        // Following the changes visits every frame in turn, for several plays.
        var time = 0.0, seen: [Int] = []
        for _ in 0..<9 {
            seen.append(schedule.frame(at: time))
            time = schedule.nextChange(after: time)!
        }
        #expect(seen == [0, 1, 2, 0, 1, 2, 0, 1, 2])
    }

    /// A GIF that plays twice then rests on its last frame: no more wake-ups.
    @Test func aCountedLoopEndsOnTheLastFrame() {
        let twice = FrameSchedule(delays: [0.1, 0.5, 0.2], plays: 2)
        #expect(twice.frame(at: 1.0) == 1)
        #expect(twice.frame(at: 1.6) == 2 && twice.frame(at: 99) == 2)
        #expect(twice.nextChange(after: 1.5) == 1.6)
        #expect(twice.nextChange(after: 1.6) == nil)
    }

    /// Delays of 0 and 10 ms play at 10 frames a second, as in browsers; a still picture never changes.
    @Test func tooShortDelaysAreATenthOfASecondAndOneFrameIsStill() {
        let fast = FrameSchedule(delays: [0, 0.01, 0.02])
        #expect(fast.delays == [0.1, 0.1, 0.02])
        let still = FrameSchedule(delays: [0.5])
        #expect(!still.isAnimated && still.frame(at: 10) == 0 && still.nextChange(after: 0) == nil)
    }
}
