import KioskCore
import Testing

@Suite struct ServiceNotificationsTests {
    @Test func readyIsSentOnceWithThePictureInTheCentreThenStatusFollowsEachPicture() {
        var service = ServiceNotifications(watchdogInterval: nil)
        func tell(_ event: ShowEvent) -> String? { service.message(for: event) }
        func ping(_ now: Double, showIsStuck: Bool) -> Bool { service.ping(at: now, showIsStuck: showIsStuck) }
        #expect(tell(.pictureCentred(item: 0, file: "/p/01.jpg")) == nil, "nothing before the show is up")
        #expect(tell(.ready(pictureCount: 8, centred: 0, file: "/p/2024/01.jpg"))
            == "READY=1\nSTATUS=showing 01.jpg (8 pictures)")
        #expect(service.isReady)
        #expect(tell(.pictureCentred(item: 1, file: "/p/02.jpg")) == "STATUS=showing 02.jpg (8 pictures)")
        #expect(tell(.pictureCentred(item: 2, file: "/p/03.jpg", pairedWith: "/p/04.jpg"))
            == "STATUS=showing 03.jpg and 04.jpg (8 pictures)", "a pair of portraits is named whole")
        #expect(tell(.ready(pictureCount: 8, centred: 1, file: "/p/02.jpg")) == "STATUS=showing 02.jpg (8 pictures)",
                "a second ready (a reload) only updates the status")
        #expect(tell(.paused) == nil)
        #expect(tell(.stopped(reason: "SIGTERM", statistics: ShowStatistics()))
            == "STOPPING=1\nSTATUS=stopping on SIGTERM")
    }

    @Test func anEmptyFolderIsReadyWithTheBackground() {
        var service = ServiceNotifications(watchdogInterval: nil)
        func tell(_ event: ShowEvent) -> String? { service.message(for: event) }
        func ping(_ now: Double, showIsStuck: Bool) -> Bool { service.ping(at: now, showIsStuck: showIsStuck) }
        #expect(tell(.ready(pictureCount: 0, centred: nil, file: nil))
            == "READY=1\nSTATUS=showing the background: no pictures")
        #expect(tell(.ready(pictureCount: 1, centred: 0, file: "a.png")) == "STATUS=showing a.png (1 picture)")
        #expect(tell(.playlistChanged(count: 0, added: 0, removed: 1))
            == "STATUS=showing the background: no pictures")
    }

    @Test func aProblemShowsInTheStatusUntilItEnds() {
        var service = ServiceNotifications(watchdogInterval: nil)
        func tell(_ event: ShowEvent) -> String? { service.message(for: event) }
        func ping(_ now: Double, showIsStuck: Bool) -> Bool { service.ping(at: now, showIsStuck: showIsStuck) }
        _ = tell(.ready(pictureCount: 3, centred: 2, file: "/p/c.jpg"))
        #expect(tell(.folderGone(folder: "/media/usb")) == "STATUS=waiting for the picture folder /media/usb to come back")
        #expect(tell(.folderBack(folder: "/media/usb", count: 3)) == "STATUS=showing c.jpg (3 pictures)")
        #expect(tell(.displayLost(reason: "card0: gone")) == "STATUS=waiting for the display: card0: gone")
        #expect(tell(.displayBack) == "STATUS=showing c.jpg (3 pictures)")
    }

    @Test func pingsComeEveryHalfIntervalAndNeverWhileTheShowIsStuck() {
        var service = ServiceNotifications(watchdogInterval: 20)
        func tell(_ event: ShowEvent) -> String? { service.message(for: event) }
        func ping(_ now: Double, showIsStuck: Bool) -> Bool { service.ping(at: now, showIsStuck: showIsStuck) }
        #expect(service.nextPing(at: 100) == 100, "the first ping at once")
        #expect(ping(100, showIsStuck: false))
        #expect(service.nextPing(at: 100) == 110)
        #expect(!ping(105, showIsStuck: false), "not due yet")
        #expect(ping(110.5, showIsStuck: false))
        #expect(service.nextPing(at: 110.5) == 120.5)
        // Stuck: no ping, checked again an eighth of an interval later, so
        // the loop is not woken at every turn; after 20 s systemd restarts it.
        #expect(!ping(120.5, showIsStuck: true))
        #expect(service.nextPing(at: 120.5) == 123)
        #expect(!ping(123, showIsStuck: true))
        #expect(ping(125.5, showIsStuck: false), "unstuck in time: pinged again")
        #expect(service.lastPing == 125.5)
    }

    @Test func withoutAWatchdogNothingIsPinged() {
        var service = ServiceNotifications(watchdogInterval: nil)
        func tell(_ event: ShowEvent) -> String? { service.message(for: event) }
        func ping(_ now: Double, showIsStuck: Bool) -> Bool { service.ping(at: now, showIsStuck: showIsStuck) }
        #expect(service.nextPing(at: 5) == nil)
        #expect(!ping(5, showIsStuck: false))
        #expect(ServiceNotifications(watchdogInterval: 0).watchdogInterval == nil)
    }

    @Test func logLinesCarryTheirPriorityForTheJournalOnly() {
        let problem: LogLine = .warning("skipping a.jpg: not a JPEG")
        #expect(problem.formatted(forJournal: true) == "<4>kioskd: skipping a.jpg: not a JPEG\n")
        #expect(problem.formatted(forJournal: false) == "kioskd: skipping a.jpg: not a JPEG\n")
        let plain: LogLine = "control socket: off"
        #expect(plain.priority == .notice)
        #expect(LogLine("two\nlines", priority: .info).formatted(forJournal: true) == "<6>kioskd: two lines\n")
        #expect(LogPriority.error < .warning && LogPriority.warning < .notice)
    }
}
