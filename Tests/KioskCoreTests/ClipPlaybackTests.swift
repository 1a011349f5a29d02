import KioskCore
import Testing

/// A clip's frames on a display's refresh grid: each at the refresh
/// nearest its time, late ones let go and counted, the clock stopped by a
/// pause, and the clip over at its end or at `video_max`.
@Suite struct ClipPlaybackTests {
    /// What a run of refreshes showed: each frame's number and the refresh it first went on screen.
    struct Played {
        var firstShown: [Int: Double] = [:]
        var playback: ClipPlayback
    }

    /// Plays a clip of `fps` on a `hz` display from `start` for `seconds`:
    /// frame n is decoded at `decodedAt(n)` (wall clock), the decoder
    /// holding at most `pool` frames not yet shown.
    func play(fps: Double, hz: Double, seconds: Double, start: Double = 10, pool: Int = 4,
              pauses: [(at: Double, for: Double)] = [], decodedAt: (Int) -> Double = { _ in 0 }) -> Played {
        var played = Played(playback: ClipPlayback(repeats: .once, maximum: 60, startedAt: start))
        played.firstShown[0] = start
        var next = 1, ready: [(number: Int, time: Double)] = []
        let period = 1 / hz
        var refresh = start + period
        while refresh < start + seconds {
            for pause in pauses {
                if abs(refresh - pause.at) < period / 2 { played.playback.pause(at: refresh) }
                if abs(refresh - pause.at - pause.for) < period / 2 { played.playback.resume(at: refresh) }
            }
            while ready.count < pool && decodedAt(next) <= refresh {
                ready.append((next, Double(next) / fps))
                next += 1
            }
            let choice = played.playback.frame(for: refresh, period: period, ready: ready.map(\.time))
            if let index = choice.show { played.firstShown[ready[index].number] = refresh }
            ready.removeFirst(choice.release)
            refresh += period
        }
        return played
    }

    @Test(arguments: [(25.0, 60.0), (30.0, 60.0), (24.0, 60.0), (30.0, 75.0), (10.0, 60.0), (60.0, 60.0)])
    func eachFrameShowsAtTheRefreshNearestItsTime(fps: Double, hz: Double) {
        let played = play(fps: fps, hz: hz, seconds: 3)
        #expect(played.playback.dropped == 0)
        let frames = Int((3 * fps).rounded(.down)) - 1
        for n in 0..<frames {
            let due = 10 + Double(n) / fps
            guard let shown = played.firstShown[n] else {
                Issue.record("frame \(n) of \(fps) fps on \(hz) Hz never shown")
                continue
            }
            #expect(abs(shown - due) <= 0.5 / hz + 1e-9, "frame \(n): due \(due), shown \(shown)")
        }
    }

    /// The decoder stalls for half a second (frames 30 to 45 of a 30 fps
    /// clip come at once, 1.5 s in): the display keeps its pace, the frames
    /// whose moment passed are let go and counted, the clip is on time again
    /// at once, and no frame is ever shown before its time.
    @Test func aDecoderFallingBehindDropsFramesNotThePace() {
        let played = play(fps: 30, hz: 60, seconds: 3, pool: 8) { n in (30...45).contains(n) ? 11.5 : 0 }
        #expect(played.playback.dropped == 14, "\(played.playback.dropped) dropped")
        let shown = played.firstShown.keys.sorted()
        #expect(shown.count + played.playback.dropped == shown.last! + 1, "every frame is shown or counted")
        for n in shown { #expect(played.firstShown[n]! + 1.0 / 120 + 1e-9 >= 10 + Double(n) / 30, "frame \(n) early") }
        // From frame 46 on, each at the refresh nearest its time again.
        for n in 46..<88 { #expect(abs(played.firstShown[n]! - (10 + Double(n) / 30)) <= 1.0 / 120 + 1e-9, "frame \(n)") }
    }

    /// A pause stops the clip's clock: nothing is dropped for it, and the
    /// frames after it keep their spacing from the resume.
    @Test func aPauseStopsTheClockAndDropsNothing() {
        // Paused on a refresh, 1.0167 s into the clip, for 2 s.
        let pausedAt = 10 + 61.0 / 60
        let played = play(fps: 25, hz: 60, seconds: 5, pauses: [(at: pausedAt, for: 2)])
        #expect(played.playback.dropped == 0)
        let before = played.firstShown.filter { $0.value < pausedAt }.count
        let during = played.firstShown.filter { $0.value > pausedAt + 0.001 && $0.value < pausedAt + 1.999 }
        #expect(during.isEmpty, "frames shown while paused: \(during)")
        // Frames 0 to 25 before it; 26 is the first after; frame n shows 2 s later than it would have.
        #expect(before == 26)
        let after = played.firstShown.filter { $0.value >= pausedAt + 2 }.keys.min()
        #expect(after == before, "the first frame after the pause is the next one")
        for n in [26, 31, 60] { #expect(abs(played.firstShown[n]! - (10 + Double(n) / 25 + 2)) <= 0.5 / 60 + 1e-9, "frame \(n)") }
    }

    @Test func aClipPlayedOnceEndsAtItsEndOrAtVideoMax() {
        var playback = ClipPlayback(repeats: .once, maximum: 60, startedAt: 100)
        #expect(playback.endsAt == 160, "until the stream's end is read, video_max bounds it")
        playback.streamEnded(at: 3)
        #expect(playback.endsAt == 103)
        #expect(!playback.isOver(at: 102.9) && playback.isOver(at: 103))
        var short = ClipPlayback(repeats: .once, maximum: 2, startedAt: 100)
        short.streamEnded(at: 3)
        #expect(short.endsAt == 102)
        // A pause pushes the end back by its length.
        playback.pause(at: 101)
        #expect(playback.endsAt == nil && !playback.isOver(at: 200))
        playback.resume(at: 106)
        #expect(playback.endsAt == 108)
        #expect(playback.clipTime(at: 107) == 2)
    }

    @Test func aLoopingClipEndsOnlyAtVideoMax() {
        var playback = ClipPlayback(repeats: .loop, maximum: 60, startedAt: 0)
        playback.streamEnded(at: 3)
        #expect(playback.length == nil)
        #expect(playback.endsAt == 60)
        #expect(!playback.isOver(at: 59) && playback.isOver(at: 60))
        #expect(ClipPlayback.Repeat(rawValue: "loop") == .loop && ClipPlayback.Repeat(rawValue: "twice") == nil)
    }

    @Test func theNextFrameIsDueHalfARefreshBeforeItsTime() {
        var playback = ClipPlayback(repeats: .once, maximum: 60, startedAt: 10)
        #expect(playback.nextDue(ready: [0.04, 0.08], period: 1.0 / 60) == 10 + 0.04 - 1.0 / 120)
        #expect(playback.nextDue(ready: [], period: 1.0 / 60) == nil)
        playback.pause(at: 10.5)
        #expect(playback.nextDue(ready: [0.6], period: 1.0 / 60) == nil)
    }
}
