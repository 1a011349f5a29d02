@testable import KioskApp
import KioskCore
import LinuxPlatform
import Testing

/// A kiosk on its group's beat, on the simulated show: it goes to the
/// group's picture, does not slide by itself, keeps out of the beat while
/// someone is at it, and rejoins after `resume_after`.
@Suite struct GroupBeatFollowerTests {
    /// A beat whose slide `slide` started `ago` seconds before now (the wall clock).
    private func beat(position: Int, slide: Int = 0, ago: Double = 0.1, interval: Double = 8, paused: Bool = false) -> [UInt8] {
        let epoch = WallClockTimer.preciseNow() - ago - Double(slide) * interval
        return MQTTSource.payload(GroupBeat(epoch: epoch, interval: interval, position: position, paused: paused, by: "other").payload.line)
    }

    private func follower(_ run: SimulatedShow, published: @escaping ([UInt8]) -> Void = { _ in }) throws -> (GroupBeatFollower, EventLoop) {
        let loop = try EventLoop()
        let follower = try GroupBeatFollower(
            group: "lobby", name: "me", loop: loop, controller: run.controller, resumeAfter: { 30 },
            publish: { _, payload, _ in published(payload) }, log: { _ in })
        return (follower, loop)
    }

    @Test func itTakesTheGroupsPictureAndLeavesTheSlidesToTheBeat() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder))
        let (follower, loop) = try follower(run)
        defer { follower.stop(); withExtendedLifetime(loop) {} }
        run.run(until: 1)
        // Beat: position 1, its second slide (k = 1) under way: picture 2.
        follower.received(beat(position: 1, slide: 1))
        #expect(run.controller.snapshot.centredItem == 2)
        #expect(run.show.schedule.isTimedByGroup && run.show.schedule.nextAdvance == nil)
        run.run(until: 40)
        #expect(run.controller.snapshot.centredItem == 2, "no slide of its own: the beat's timer sends it on")
        // A paused beat pauses it where the group is.
        follower.received(beat(position: 3, paused: true))
        #expect(run.controller.snapshot.paused && run.controller.snapshot.centredItem == 3)
        follower.stop()
        #expect(!run.show.schedule.isTimedByGroup, "left the group: its own timing again")
    }

    @Test func someoneAtTheKioskKeepsItOutOfTheBeatUntilResumeAfter() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder))
        let (follower, loop) = try follower(run)
        defer { follower.stop(); withExtendedLifetime(loop) {} }
        run.run(until: 1)
        follower.received(beat(position: 1))
        #expect(run.controller.snapshot.centredItem == 1)
        run.command(.personPresent)   // a key or a tap
        run.run(until: 2)
        follower.received(beat(position: 3))
        #expect(run.controller.snapshot.centredItem == 1, "someone is here: the group's move waits")
        run.run(until: 32)   // resume_after (30 s) has passed
        follower.received(beat(position: 3))
        #expect(run.controller.snapshot.centredItem == 3, "back on the group's picture")
    }

    /// Members wake for a slide a little apart (their loops, the machine's
    /// load); each starts it from the beat's instant, so all land on the
    /// same refresh. A kiosk far behind (a beat that crossed a slow broker)
    /// starts from now rather than jump most of the way.
    @Test func aSlideWokenForALittleLateLandsWithTheGroupsBeat() throws {
        for (ago, fromTheBeat) in [(0.05, true), (0.5, false)] {
            let folder = try fourColours()
            let run = try SimulatedShow(showSettings(folder, transition: 0.45))
            let (follower, loop) = try follower(run)
            defer { follower.stop(); withExtendedLifetime(loop) {} }
            run.run(until: 1)
            follower.received(beat(position: 1, ago: ago))
            let arrived = ShowEvent.pictureCentred(item: 1, file: folder.path + "/b.png")
            // From the beat: at rest by 1 - 0.05 + 0.45 and its refresh; from now, 0.05 s (three refreshes) later.
            run.run(until: 1.40 + 1.0 / 60)
            #expect(run.events.map(\.untimed).contains(arrived) == fromTheBeat, "\(ago) s late")
            run.run(until: 1.45 + 1.0 / 60)
            #expect(run.events.map(\.untimed).contains(arrived), "\(ago) s late")
        }
    }

    /// Nobody has a beat: the first member starts one from where it is; a
    /// beat that is not one is ignored and changes nothing.
    @Test func aBeatIsStartedWhenNoneComesAndNonsenseIsIgnored() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder))
        var published: [[UInt8]] = []
        let (follower, loop) = try follower(run) { published.append($0) }
        defer { follower.stop(); withExtendedLifetime(loop) {} }
        run.command(.goto(item: 2))
        run.run(until: 2)
        follower.groupCommandPerformed()
        let started = try #require(published.last.flatMap { try? GroupBeat.read($0).get() })
        #expect(started.position == 2 && started.interval == 8 && started.by == "me" && !started.paused)
        for nonsense in ["{}", "not json", #"{"epoch":-5,"interval":8,"position":0,"paused":false,"by":"x"}"#,
                         #"{"epoch":1795680000,"interval":0,"position":0,"paused":false,"by":"x"}"#] {
            follower.received(Array(nonsense.utf8))
        }
        #expect(follower.beat == nil && !run.show.schedule.isTimedByGroup && run.controller.snapshot.centredItem == 2)
    }
}
