import CDRM
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The kernel calls a frame goes through once the mode is set. ``KMSOutput``
/// makes them with libdrm; tests pass calls that fail on cue.
protocol KMSCalls {
    /// `drmModePageFlip` with `DRM_MODE_PAGE_FLIP_EVENT`: 0, or `-errno`.
    func pageFlip(to framebuffer: UInt32) -> Int32
    /// `drmModeSetCrtc` with the output's connector and mode.
    func setCRTC(to framebuffer: UInt32) throws(DRMError)
    /// `drmModeDirtyFB` over the whole buffer: 0, or `-errno`.
    func markDirty(_ framebuffer: UInt32) -> Int32
}

/// How each frame after the first reaches the screen: by page flip, tear
/// free and paced by the flip event; or, where the driver has no page flip,
/// by a mode set plus `drmModeDirtyFB` (for drivers that only copy damaged
/// areas to the screen).
///
/// Like Plymouth, a flip call is given up for good only when the driver says
/// it has none: `EINVAL` (the kernel's answer when a CRTC has no
/// `page_flip`) or `ENOSYS`; and DirtyFB only on `ENOSYS`. Any other failure
/// (`EBUSY`, `EACCES` after losing DRM master, `ENODEV` for an unplugged
/// card) fails that frame alone: the caller retries, and frames flip again
/// once the display is back, rather than tearing through mode sets forever.
struct PageFlipper {
    private(set) var pageFlipWorks = true
    private(set) var dirtyFBWorks = true

    enum Outcome: Equatable {
        /// The flip is queued: the frame shows at the next vblank, and an event says when.
        case flipQueued
        /// Set at once by a mode set; no event follows.
        case shownAtOnce
    }

    mutating func present(_ framebuffer: UInt32, through kernel: some KMSCalls, device: String) throws(DRMError) -> Outcome {
        if pageFlipWorks {
            let result = kernel.pageFlip(to: framebuffer)
            if result == 0 { return .flipQueued }
            let code = Errno(-result)
            guard code == .invalidArgument || code == .notImplemented else {
                throw DRMError(device: device, kind: .call("drmModePageFlip", errno: code))
            }
            pageFlipWorks = false
        }
        try kernel.setCRTC(to: framebuffer)
        if dirtyFBWorks, Errno(-kernel.markDirty(framebuffer)) == .notImplemented { dirtyFBWorks = false }
        return .shownAtOnce
    }
}
