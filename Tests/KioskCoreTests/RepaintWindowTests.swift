import KioskCore
import Testing

@Suite struct RepaintWindowTests {
    static let refresh = 1.0 / 60

    @Test func theWindowFitsTheSlowestRecentDrawWithAMargin() {
        var window = RepaintWindow()
        #expect(window.window(refreshPeriod: Self.refresh) == RepaintWindow.minimum, "nothing drawn yet")
        window.drew(taking: 0.0002, at: 10)
        #expect(window.window(refreshPeriod: Self.refresh) == RepaintWindow.minimum, "a quick draw gets the narrowest window")
        window.drew(taking: 0.004, at: 10.1)
        window.drew(taking: 0.001, at: 10.11)
        // 10 ms later the 4 ms draw has faded a little: 4 / (1 + 0.01 / fadeTime).
        let faded = 0.004 / (1 + 0.01 / RepaintWindow.fadeTime)
        #expect(abs(window.window(refreshPeriod: Self.refresh) - (faded * 1.25 + RepaintWindow.margin)) < 1e-9,
                "the slowest draw counts, not the last")
        // The slow draw fades: half its weight a fade time later.
        window.drew(taking: 0.0005, at: 10.11 + RepaintWindow.fadeTime)
        #expect(abs(window.slowestDraw - faded / 2) < 1e-9)
        window.drew(taking: 0.0005, at: 100)
        #expect(window.window(refreshPeriod: Self.refresh) == RepaintWindow.minimum, "a minute and a half later it is forgotten")
        window.drew(taking: -.infinity, at: 21)
        window.drew(taking: .nan, at: 22)
        #expect(window.slowestDraw.isFinite && window.slowestDraw >= 0)
    }

    /// A move sensed at any moment of the refresh is drawn one window
    /// before the first refresh it can still make: it reaches the screen
    /// within one refresh plus the window, and never sooner than the window.
    @Test func aMoveAtAnyMomentReachesTheScreenWithinARefreshAndTheWindow() {
        var window = RepaintWindow()
        window.drew(taking: 0.0015, at: 0)
        let width = window.window(refreshPeriod: Self.refresh)
        #expect(width > RepaintWindow.minimum && width < Self.refresh / 2)
        let phase = 3.0  // a refresh at 3 + k / 60
        for step in 0..<1000 {
            let now = phase + Double(step) * 0.0001234
            let k = ((now - phase) / Self.refresh).rounded(.down) + 1
            let nextRefresh = phase + k * Self.refresh
            let drawAt = window.drawTime(at: now, nextRefresh: nextRefresh, refreshPeriod: Self.refresh)
            #expect(drawAt >= now - 1e-12)
            let shown = drawAt + width
            let onGrid = (shown - phase) / Self.refresh
            #expect(abs(onGrid - onGrid.rounded()) < 1e-6, "the frame is drawn for a refresh")
            #expect(shown - now <= Self.refresh + width + 1e-9 && shown - now >= width - 1e-9, "\(now): \(shown - now)")
        }
    }

    @Test func aScreenThatDrawsSlowerThanHalfARefreshDrawsAtOnce() {
        var window = RepaintWindow()
        window.drew(taking: 0.012, at: 0)
        #expect(window.drawTime(at: 5.001, nextRefresh: 5.0 + Self.refresh, refreshPeriod: Self.refresh) == 5.001)
    }

    @Test func anOldRefreshGridStillGivesATimeAheadOnIt() {
        let window = RepaintWindow()
        // The last vblank seen was long ago: the grid is carried forward.
        let drawAt = window.drawTime(at: 1000.0003, nextRefresh: 10 + Self.refresh, refreshPeriod: Self.refresh)
        #expect(drawAt >= 1000.0003 && drawAt < 1000.0003 + Self.refresh)
        let onGrid = (drawAt + RepaintWindow.minimum - 10) / Self.refresh
        #expect(abs(onGrid - onGrid.rounded()) < 1e-4)
        #expect(window.drawTime(at: 7, nextRefresh: .nan, refreshPeriod: Self.refresh) == 7)
    }
}

@Suite struct LatencyHistogramTests {
    @Test func percentilesOfKnownLatencies() throws {
        var histogram = LatencyHistogram()
        #expect(histogram.percentile(0.5) == nil)
        for ms in (1...100).reversed() { histogram.record(Double(ms) / 1000) }
        #expect(histogram.count == 100)
        #expect(try abs(#require(histogram.percentile(0.5)) - 0.050) < 1e-9)
        #expect(try abs(#require(histogram.percentile(0.99)) - 0.099) < 1e-9)
        #expect(try abs(#require(histogram.percentile(1)) - 0.100) < 1e-9)
        #expect(histogram.slowest == 0.1)
    }

    @Test func aPercentileIsNeverBelowTheLatenciesItCounts() throws {
        var histogram = LatencyHistogram()
        let latencies = (0..<500).map { Double($0 * 7919 % 500) * 0.0000371 + 0.0123 }
        latencies.forEach { histogram.record($0) }
        let sorted = latencies.sorted()
        for fraction in [0.1, 0.5, 0.9, 0.99] {
            let value = try #require(histogram.percentile(fraction))
            let exact = sorted[Int((fraction * 500).rounded(.up)) - 1]
            #expect(value >= exact - 1e-12 && value <= exact + LatencyHistogram.defaultStep, "\(fraction)")
        }
    }

    @Test func absurdLatenciesAreCountedNotTrusted() throws {
        var histogram = LatencyHistogram()
        histogram.record(-5)  // two clocks mixed up
        histogram.record(.infinity)
        histogram.record(30)
        #expect(histogram.count == 3)
        #expect(try #require(histogram.percentile(0.3)) == 0)
        #expect(try #require(histogram.percentile(1)) == LatencyHistogram.defaultCeiling)
    }

    @Test func aFinerHistogramTellsApartWhatTheDefaultCannot() throws {
        var coarse = LatencyHistogram(), fine = LatencyHistogram(step: 0.000_01, ceiling: 0.1)
        for latency in [0.001_205, 0.001_215, 0.001_335, 0.2] {
            coarse.record(latency)
            fine.record(latency)
        }
        #expect(try abs(#require(fine.percentile(0.5)) - 0.001_22) < 1e-9)
        #expect(try abs(#require(coarse.percentile(0.5)) - 0.0013) < 1e-9)
        // Past the ceiling: the last step, and the exact slowest.
        #expect(try abs(#require(fine.percentile(1)) - 0.1) < 1e-9)
        #expect(fine.slowest == 0.2)
    }
}
