@testable import KioskApp
import KioskCore
import Testing

/// The frames that follow a finger, on the daemon's show with simulated
/// time (drawing takes no time here, so the repaint window is its minimum).
@Suite struct FingerFrameTests {
    static let refresh = 1.0 / 60

    /// A finger drags the strip while its panel reports at 117 Hz, so the
    /// moves fall at every moment of the 60 Hz refresh. Each move reaches
    /// the screen within one refresh plus the window (drawing straight
    /// after each flip would take up to two refreshes), and each frame
    /// shows the newest move sensed before it was drawn.
    @Test func aFingersMovesReachTheScreenWithinARefreshAndTheWindow() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder, interval: 600))
        run.run(until: 1)
        run.command(.touch(.caught), sensedAt: 1)
        var moves: [(time: Double, pictures: Double)] = []
        var time = 1.0
        for step in 1...240 {
            time = 1 + Double(step) / 117
            run.run(until: time)
            let pictures = Double(step) * 0.004
            run.command(.touch(.dragged(pictures: pictures)), sensedAt: time)
            moves.append((time, pictures))
        }
        let framesBefore = run.frames.filter { $0.shownAt <= 1 }.count
        run.run(until: time + 0.1)
        let window = run.show.repaintWindow.window(refreshPeriod: Self.refresh)
        #expect(window == RepaintWindow.minimum)

        let latency = run.show.statistics.inputToPhoton
        #expect(latency.count == 240, "every move reached the screen")
        #expect(latency.slowest <= Self.refresh + window + 1e-9, "\(latency.slowest)")
        let median = try #require(latency.percentile(0.5))
        // Spread evenly over (window, refresh + window]: about half a refresh plus the window.
        #expect(median > window && median < 0.6 * Self.refresh + window, "\(median)")

        let held = run.frames.dropFirst(framesBefore)
        let refreshes = Int(((time - 1) / Self.refresh).rounded())
        #expect(abs(held.count - refreshes) <= 2, "one frame a refresh while the finger moves: \(held.count) in \(refreshes)")
        for frame in held {
            let drawnAt = frame.shownAt - window
            let newest = try #require(moves.last { $0.time < drawnAt })
            #expect(try frame.pixels.pixels == (run.snapshot(at: newest.pictures)).pixels, "\(frame.shownAt)")
        }
    }

    /// Moves the strip does not follow (no finger holding it) count for
    /// nothing, and a slide is still drawn as soon as the screen can take it.
    @Test func slidesAreNotHeldBackForAFinger() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder, interval: 600))
        run.run(until: 1)
        run.command(.touch(.dragged(pictures: 0.3)), sensedAt: 1)
        run.command(.next)
        run.run(until: 1.2)
        #expect(run.show.statistics.inputToPhoton.count == 0)
        let shown = run.frames.map(\.shownAt).filter { $0 > 1 }
        // The first slide frame makes the very next refresh.
        #expect(abs((shown.first ?? 0) - run.screen.nextRefresh(after: 1)) < 1e-9)
    }
}

@Suite struct FingerLogTests {
    /// The exit line says how long the finger's moves took to reach the
    /// screen, and only when there were any; past the histogram's ceiling
    /// it says so rather than a number it cannot know.
    @Test func theExitLineSaysHowLongMovesTookToShow() {
        var stats = ShowStatistics()
        stats.slides = 2
        stats.framesShown = 40
        #expect(ShowEvent.stopped(reason: "SIGTERM", statistics: stats).logLine(verbose: false)?.text
                == "stopping on SIGTERM after 2 slide(s), 40 frame(s) (0 panned), 0 refresh(es) missed during slides")
        for ms in [8.0, 9, 10, 12, 19.31] { stats.inputToPhoton.record(ms / 1000) }
        #expect(ShowEvent.stopped(reason: "SIGTERM", statistics: stats).logLine(verbose: false)?.text
                == "stopping on SIGTERM after 2 slide(s), 40 frame(s) (0 panned), 0 refresh(es) missed during slides; "
                + "finger to screen: median 10.0 ms, 99% within 19.3 ms, slowest 19.3 ms over 5 move(s)")
        var slow = ShowStatistics()
        for seconds in [0.3, 0.4, 0.5] { slow.inputToPhoton.record(seconds) }
        #expect(ShowEvent.stopped(reason: nil, statistics: slow).logLine(verbose: false)?.text.hasSuffix(
            "finger to screen: median 250+ ms, 99% within 250+ ms, slowest 500.0 ms over 3 move(s)") == true)
    }
}
