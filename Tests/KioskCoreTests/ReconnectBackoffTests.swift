import KioskCore
import Testing
import TestSupport

/// When a kiosk tries its broker again (issue 35: backoff with jitter, capped at a minute).
@Suite struct ReconnectBackoffTests {
    @Test func waitsDoubleFromHalfASecondToAMinuteEachBetweenHalfAndAllOfItsStep() {
        var random = SplitMix(seed: 35)
        var backoff = ReconnectBackoff()
        var steps: [Double] = []
        for failure in 0..<12 {
            let step = min(60, 0.5 * Double(1 << failure))
            let wait = backoff.nextDelay(using: &random)
            #expect(wait >= step / 2 && wait <= step, "try \(failure + 1): \(wait) s for a step of \(step)")
            steps.append(step)
        }
        #expect(steps.suffix(5).allSatisfy { $0 == 60 }, "capped at a minute")
        #expect(backoff.failures == 12)
    }

    /// A broker restarted: the kiosk that had been connected tries again within a second, and twice within 3 s.
    @Test func anAcceptedConnectionStartsTheCountAgain() {
        var random = SplitMix(seed: 7)
        var backoff = ReconnectBackoff()
        for _ in 0..<8 { _ = backoff.nextDelay(using: &random) }
        backoff.connected()
        let first = backoff.nextDelay(using: &random), second = backoff.nextDelay(using: &random)
        #expect(first <= 0.5 && first + second <= 1.5)
    }

    /// Kiosks that lost the broker together spread their tries: a thousand first waits are not one.
    @Test func kiosksLosingTheBrokerTogetherDoNotKnockAtOnce() {
        var random = SplitMix(seed: 1)
        let waits = (0..<1000).map { _ in
            var backoff = ReconnectBackoff()
            for _ in 0..<4 { _ = backoff.nextDelay(using: &random) }
            return backoff.nextDelay(using: &random)   // the fifth: a step of 8 s
        }
        #expect(waits.allSatisfy { (4...8).contains($0) })
        // Spread over the whole span: each of its four 1-second bands holds at least a sixth of them.
        for band in 0..<4 {
            #expect(waits.filter { $0 >= 4 + Double(band) && $0 < 5 + Double(band) }.count > 1000 / 6, "band \(band)")
        }
    }
}
