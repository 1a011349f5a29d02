@testable import DRMOutput
import Glibc
import SystemCalls
import Testing

/// A driver's answers on cue: each flip call returns the next queued result
/// (0 when none is left), and every call is recorded.
final class ScriptedKMS: KMSCalls {
    var flipResults: [Int32] = []
    var dirtyResult: Int32 = 0
    private(set) var calls: [String] = []

    func pageFlip(to framebuffer: UInt32) -> Int32 {
        calls.append("flip \(framebuffer)")
        return flipResults.isEmpty ? 0 : flipResults.removeFirst()
    }
    func setCRTC(to framebuffer: UInt32) throws(DRMError) { calls.append("setcrtc \(framebuffer)") }
    func markDirty(_ framebuffer: UInt32) -> Int32 {
        calls.append("dirty \(framebuffer)")
        return dirtyResult
    }
}

@Suite struct PageFlipperTests {
    /// EBUSY (or a lost master's EACCES) fails one frame; the next frame
    /// flips again. Mode-setting every frame from then on would tear.
    @Test(arguments: [EBUSY, EACCES, ENODEV])
    func aPassingFailureFailsOneFrameAndTheNextOneFlips(code: Int32) throws {
        var flipper = PageFlipper()
        let kms = ScriptedKMS()
        kms.flipResults = [-code]
        #expect(throws: DRMError(device: "card", kind: .call("drmModePageFlip", errno: Errno(code)))) {
            try flipper.present(7, through: kms, device: "card")
        }
        #expect(try flipper.present(8, through: kms, device: "card") == .flipQueued)
        #expect(try flipper.present(7, through: kms, device: "card") == .flipQueued)
        #expect(kms.calls == ["flip 7", "flip 8", "flip 7"])
        #expect(flipper.pageFlipWorks)
    }

    /// A driver without page flips (the kernel answers EINVAL; old ones
    /// ENOSYS) gets mode sets plus DirtyFB from then on, without asking again.
    @Test(arguments: [EINVAL, ENOSYS])
    func aDriverWithoutPageFlipGetsModeSetsForGood(code: Int32) throws {
        var flipper = PageFlipper()
        let kms = ScriptedKMS()
        kms.flipResults = [-code]
        #expect(try flipper.present(7, through: kms, device: "card") == .shownAtOnce)
        #expect(try flipper.present(8, through: kms, device: "card") == .shownAtOnce)
        #expect(kms.calls == ["flip 7", "setcrtc 7", "dirty 7", "setcrtc 8", "dirty 8"])
        #expect(!flipper.pageFlipWorks)
    }

    /// DirtyFB is dropped only when the driver does not have it (ENOSYS);
    /// any other answer keeps it.
    @Test func dirtyFBIsDroppedOnlyOnENOSYS() throws {
        var flipper = PageFlipper()
        let kms = ScriptedKMS()
        kms.flipResults = [-EINVAL]
        kms.dirtyResult = -EBUSY
        _ = try flipper.present(1, through: kms, device: "card")
        #expect(flipper.dirtyFBWorks)
        kms.dirtyResult = -ENOSYS
        _ = try flipper.present(2, through: kms, device: "card")
        #expect(!flipper.dirtyFBWorks)
        _ = try flipper.present(3, through: kms, device: "card")
        #expect(kms.calls.suffix(2) == ["dirty 2", "setcrtc 3"])
    }
}
