import Foundation
import KioskCore
import Testing

/// HDR light on an SDR screen: reference white at three quarters, the
/// peak at white, highlights apart, black black.
@Suite struct HDRToneMappingTests {
    /// The signal step (of 4096) that carries `nits` under PQ.
    func pqStep(_ nits: Float) -> Int {
        let m1: Float = 2610 / 16384, m2: Float = 2523 / 4096 * 128
        let c1: Float = 3424 / 4096, c2: Float = 2413 / 4096 * 32, c3: Float = 2392 / 4096 * 32
        let y = powf(nits / 10000, m1)
        return Int((powf((c1 + c2 * y) / (1 + c3 * y), m2) * 4095).rounded())
    }

    func grey(_ mapping: HDRToneMapping, _ step: Int) -> Int { Int(mapping.map(step, step, step).1) }

    @Test func pqsCurveIsST2084s() {
        #expect(HDRToneMapping.pqNits(0) == 0)
        #expect(abs(HDRToneMapping.pqNits(1) - 10000) < 1)
        #expect(abs(HDRToneMapping.pqNits(Float(pqStep(203)) / 4095) - 203) < 2)
    }

    @Test func referenceWhiteIsThreeQuartersAndThePeakIsWhite() {
        let pq = HDRToneMapping(transfer: .pq, wideGamut: true)
        #expect((186...196).contains(grey(pq, pqStep(203))), "\(grey(pq, pqStep(203)))")
        #expect(grey(pq, pqStep(1000)) == 255)
        #expect(grey(pq, 0) == 0, "black stays black: not washed out")
        // HLG's reference white is 75% of its signal (BT.2408): the same place.
        let hlg = HDRToneMapping(transfer: .hlg, wideGamut: true)
        #expect(abs(grey(hlg, Int(0.75 * 4095)) - grey(pq, pqStep(203))) <= 2)
        #expect(grey(hlg, 4095) == 255 && grey(hlg, 0) == 0)
    }

    /// Not clipped: every highlight between reference white and the peak has a level of its own.
    @Test func highlightsKeepTheirOrder() {
        let pq = HDRToneMapping(transfer: .pq, wideGamut: true)
        let levels = [5, 50, 100, 203, 300, 450, 600, 800, 1000].map { grey(pq, pqStep(Float($0))) }
        #expect(zip(levels, levels.dropFirst()).allSatisfy { $0 < $1 }, "\(levels)")
        // A file that says its peak is 4,000 nits keeps 1,000 below white.
        let bright = HDRToneMapping(transfer: .pq, wideGamut: true, peakNits: 4000)
        #expect(grey(bright, pqStep(1000)) < 250 && grey(bright, pqStep(4000)) == 255)
    }

    /// A BT.2020 red is still red on BT.709 primaries, not pink or orange.
    @Test func wideGamutColoursKeepTheirHue() {
        let pq = HDRToneMapping(transfer: .pq, wideGamut: true)
        let (r, g, b) = pq.map(pqStep(203), pqStep(5), pqStep(5))
        #expect(r > 150 && g < 60 && b < 60, "\(r) \(g) \(b)")
    }
}
