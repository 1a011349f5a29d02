import CDRM
import KioskCore
import SystemCalls

#if canImport(Glibc)
import Glibc
#endif

/// A CRTC's primary plane, driven by atomic commits: which framebuffer it
/// scans out and which part of it (`SRC_X`, `SRC_Y`, `SRC_W`, `SRC_H`, in
/// 16.16 fixed point). Its properties are looked up by name once, here.
///
/// Each frame is one commit of the plane's `FB_ID` and source rectangle,
/// non-blocking with a flip event, as a page flip is: the event reaches
/// ``KMSOutput/handleEvents()`` through the same handler.
final class PrimaryPlane {
    let card: DRMCard
    let id: UInt32
    private let framebufferProperty: UInt32
    private let sourceProperties: (x: UInt32, y: UInt32, width: UInt32, height: UInt32)

    /// The primary plane of `crtc`, or nil where the driver speaks no
    /// atomic KMS or shows no such plane. Asking for atomic KMS also shows
    /// this client every plane (`DRM_CLIENT_CAP_UNIVERSAL_PLANES`).
    init?(card: DRMCard, crtc: UInt32) {
        guard card.enableAtomic(), let resources = drmModeGetResources(card.fd) else { return nil }
        let crtcs = (0..<Int(resources.pointee.count_crtcs)).map { resources.pointee.crtcs[$0] }
        drmModeFreeResources(resources)
        guard let index = crtcs.firstIndex(of: crtc), let planes = drmModeGetPlaneResources(card.fd) else { return nil }
        defer { drmModeFreePlaneResources(planes) }
        for i in 0..<Int(planes.pointee.count_planes) {
            let planeID = planes.pointee.planes[i]
            guard let plane = drmModeGetPlane(card.fd, planeID) else { continue }
            let possible = plane.pointee.possible_crtcs
            drmModeFreePlane(plane)
            guard possible & (1 << UInt32(index)) != 0 else { continue }
            let properties = card.properties(of: planeID, type: UInt32(DRM_MODE_OBJECT_PLANE))
            guard properties["type"]?.value == UInt64(DRM_PLANE_TYPE_PRIMARY),
                  let fb = properties["FB_ID"]?.id, let x = properties["SRC_X"]?.id, let y = properties["SRC_Y"]?.id,
                  let w = properties["SRC_W"]?.id, let h = properties["SRC_H"]?.id else { continue }
            self.card = card
            self.id = planeID
            framebufferProperty = fb
            sourceProperties = (x, y, w, h)
            return
        }
        return nil
    }

    /// Commits `framebuffer`, scanned out from `source` (whole pixels):
    /// with `testOnly`, only asks whether the driver would take it. 0, or `-errno`.
    func commit(framebuffer: UInt32, source: PixelRect, testOnly: Bool, userData: UnsafeMutableRawPointer?) -> Int32 {
        guard let request = drmModeAtomicAlloc() else { return -Errno.noMemory.rawValue }
        defer { drmModeAtomicFree(request) }
        drmModeAtomicAddProperty(request, id, framebufferProperty, UInt64(framebuffer))
        drmModeAtomicAddProperty(request, id, sourceProperties.x, UInt64(source.x) << 16)
        drmModeAtomicAddProperty(request, id, sourceProperties.y, UInt64(source.y) << 16)
        drmModeAtomicAddProperty(request, id, sourceProperties.width, UInt64(source.width) << 16)
        drmModeAtomicAddProperty(request, id, sourceProperties.height, UInt64(source.height) << 16)
        let flags = testOnly ? UInt32(DRM_MODE_ATOMIC_TEST_ONLY) : UInt32(DRM_MODE_ATOMIC_NONBLOCK) | UInt32(DRM_MODE_PAGE_FLIP_EVENT)
        let result = drmModeAtomicCommit(card.fd, request, flags, testOnly ? nil : userData)
        return result == 0 ? 0 : -errnoOf(result).rawValue
    }
}
