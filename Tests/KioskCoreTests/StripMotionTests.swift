import KioskCore
#if canImport(PropertyBased)
import PropertyBased
#endif
import Testing

@Suite struct EasingTests {
    @Test(arguments: Easing.allCases)
    func startsAtZeroEndsAtOneNeverGoesBack(_ easing: Easing) {
        #expect(easing.progress(0) == 0 && easing.progress(1) == 1)
        let samples = (0...100).map { easing.progress(Double($0) / 100) }
        #expect(samples == samples.sorted())
        // The slope is the derivative: compare with a finite difference.
        for s in stride(from: 0.05, to: 0.95, by: 0.1) {
            let numeric = (easing.progress(s + 1e-6) - easing.progress(s - 1e-6)) / 2e-6
            #expect(abs(numeric - easing.slope(s)) < 1e-4, "\(easing) at \(s)")
        }
    }

    @Test func easeInOutIsSymmetricAndStartsAndEndsStill() {
        #expect(Easing.easeInOut.progress(0.5) == 0.5)
        #expect(abs(Easing.easeInOut.progress(0.2) + Easing.easeInOut.progress(0.8) - 1) < 1e-12)
        #expect(Easing.easeInOut.slope(0) == 0 && Easing.easeInOut.slope(1) == 0)
        #expect(Easing.easeOut.slope(0) == 3 && Easing.easeOut.slope(1) == 0)
    }
}

@Suite struct StripMotionTests {
    let T = 0.45

    @Test func oneSlideFollowsTheEasingAndThenRests() {
        var motion = StripMotion(at: 0, easing: .easeInOut, duration: T)
        #expect(motion.isAtRest(at: 0))
        motion.retarget(to: 1, at: 10)
        #expect(motion.position(at: 10) == 0)
        #expect(abs(motion.position(at: 10 + T / 2) - 0.5) < 1e-12)
        #expect(abs(motion.position(at: 10 + T * 0.25) - Easing.easeInOut.progress(0.25)) < 1e-12)
        #expect(motion.position(at: 10 + T) == 1 && motion.isAtRest(at: 10 + T))
        #expect(motion.position(at: 99) == 1)
    }

    /// `next` mid-slide: no jump in position or speed, and the strip goes on
    /// to the picture after.
    @Test func aSecondNextMidSlideCarriesOnWithoutAJolt() {
        var motion = StripMotion(at: 0, easing: .easeInOut, duration: T)
        motion.retarget(to: 1, at: 0)
        let t = T / 2
        let (p, v) = (motion.position(at: t), motion.velocity(at: t))
        motion.retarget(to: 2, at: t)
        #expect(abs(motion.position(at: t) - p) < 1e-12)
        #expect(abs(motion.velocity(at: t) - v) < 1e-9)
        #expect(v > 0)
        #expect(motion.position(at: t + T) == 2)
        let path = stride(from: t, through: t + T, by: 0.001).map { motion.position(at: $0) }
        #expect(path == path.sorted() && path.allSatisfy { $0 <= 2 })
    }

    /// Five quick `next`s: five pictures on, always forwards, never past the fifth.
    @Test(arguments: Easing.allCases)
    func fiveQuickNextsMoveFivePictures(_ easing: Easing) {
        var motion = StripMotion(at: 0, easing: easing, duration: T)
        var path: [Double] = []
        for press in 0..<5 {
            let at = Double(press) * 0.06
            if press > 0 { path += stride(from: at - 0.06, to: at, by: 0.001).map { motion.position(at: $0) } }
            motion.retarget(to: Double(press + 1), at: at)
        }
        let last = 4 * 0.06
        path += stride(from: last, through: last + T, by: 0.001).map { motion.position(at: $0) }
        #expect(motion.position(at: last + T) == 5)
        #expect(path == path.sorted(), "went backwards")
        #expect(path.allSatisfy { $0 <= 5 + 1e-12 }, "passed the fifth picture")
    }

    /// `next` then `prev`: the strip turns round smoothly and comes back,
    /// without passing where it started.
    @Test func nextThenPrevReversesSmoothly() {
        var motion = StripMotion(at: 3, easing: .easeInOut, duration: T)
        motion.retarget(to: 4, at: 0)
        let t = T / 3
        let v = motion.velocity(at: t)
        motion.retarget(to: 3, at: t)
        #expect(abs(motion.velocity(at: t) - v) < 1e-9 && v > 0)
        let path = stride(from: t, through: t + T, by: 0.001).map { motion.position(at: $0) }
        #expect(path.allSatisfy { $0 >= 3 - 1e-12 })
        #expect(path.max()! > motion.position(at: t))   // it coasts on a little before turning
        #expect(motion.position(at: t + T) == 3)
    }

    /// Any sequence of `next`s and `prev`s at any times, any easing: the
    /// position and speed never jump at a retarget, and the last slide never
    /// passes its target.
    @Test func neverAJumpNeverPastTheTarget() async {
        let steps = Gen.int(in: -1...1).array(of: 1...12)
        let gaps = Gen.int(in: 1...500).array(of: 12)
        await propertyCheck(count: 300, input: steps, gaps, Gen.int(in: 0...2)) { steps, gaps, e in
            let easing = Easing.allCases[e]
            var motion = StripMotion(at: 0, easing: easing, duration: 0.45)
            var time = 0.0, target = 0.0
            for (i, step) in steps.enumerated() {
                time += Double(gaps[i]) / 1000
                let (p, v) = (motion.position(at: time), motion.velocity(at: time))
                target += Double(step == 0 ? 1 : step)
                motion.retarget(to: target, at: time)
                #expect(abs(motion.position(at: time) - p) < 1e-9)
                #expect(abs(motion.velocity(at: time) - v) < 1e-6 * max(1, abs(v)))
            }
            let p0 = motion.position(at: time)
            for k in 0...200 {
                let p = motion.position(at: time + Double(k) * 0.45 / 200)
                #expect((target - p) * (target - p0) >= -1e-9, "passed \(target) going from \(p0): at \(p)")
            }
            #expect(motion.position(at: time + 0.45) == target, "steps \(steps) gaps \(gaps) \(easing)")
        }
    }
}
