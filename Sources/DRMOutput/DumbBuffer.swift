import CDRM
import KioskCore
import KioskRendering
import SystemCalls

#if canImport(Glibc)
import Glibc
#endif

/// A CPU-drawable scan-out buffer: a dumb buffer, mapped into memory and
/// registered as an XRGB8888 framebuffer. Freed in reverse order of creation.
///
/// A buffer longer than the screen (panning, ``KMSOutput``) may also be
/// shown through framebuffers made at offsets into it, one per window
/// (``framebuffer(showing:)``), for drivers that scan out from a
/// framebuffer's offset but ignore the plane's source rectangle.
final class DumbBuffer {
    let card: DRMCard
    let size: PixelSize
    let handle: UInt32
    let pitch: Int
    let byteCount: Int
    let framebuffer: UInt32
    let memory: UnsafeMutableRawPointer

    init(card: DRMCard, size: PixelSize) throws(DRMError) {
        var handle: UInt32 = 0, pitch: UInt32 = 0, byteCount: UInt64 = 0
        var result = drmModeCreateDumbBuffer(card.fd, UInt32(size.width), UInt32(size.height), 32, 0, &handle, &pitch, &byteCount)
        guard result == 0 else { throw DRMError(device: card.path, kind: .call("drmModeCreateDumbBuffer", errno: errnoOf(result))) }
        var framebuffer: UInt32 = 0
        // depth 24, 32 bits per pixel: XRGB8888, the format every KMS driver scans out.
        result = drmModeAddFB(card.fd, UInt32(size.width), UInt32(size.height), 24, 32, pitch, handle, &framebuffer)
        guard result == 0 else {
            drmModeDestroyDumbBuffer(card.fd, handle)
            throw DRMError(device: card.path, kind: .call("drmModeAddFB", errno: errnoOf(result)))
        }
        var offset: UInt64 = 0
        result = drmModeMapDumbBuffer(card.fd, handle, &offset)
        let mapped = result == 0
            ? mmap(nil, Int(byteCount), PROT_READ | PROT_WRITE, MAP_SHARED, card.fd, off_t(offset)) : MAP_FAILED
        guard let mapped, mapped != MAP_FAILED else {
            let code = result == 0 ? Errno.current : errnoOf(result)
            drmModeRmFB(card.fd, framebuffer)
            drmModeDestroyDumbBuffer(card.fd, handle)
            throw DRMError(device: card.path, kind: .call(result == 0 ? "mmap" : "drmModeMapDumbBuffer", errno: code))
        }
        self.card = card
        self.size = size
        self.handle = handle
        self.pitch = Int(pitch)
        self.byteCount = Int(byteCount)
        self.framebuffer = framebuffer
        self.memory = mapped
    }

    /// Framebuffers made at offsets into this buffer, by the window each shows.
    private var windows: [PixelRect: UInt32] = [:]

    /// DRM_FORMAT_XRGB8888, `fourcc_code('X', 'R', '2', '4')` (a macro Swift cannot import).
    static let xrgb8888: UInt32 = 0x3432_5258

    /// A framebuffer whose first pixel is `window`'s top-left corner and
    /// whose rows are this buffer's (`drmModeAddFB2` with `offsets[0]`):
    /// scanned out whole, it shows `window`. Made once per window, kept
    /// until ``forgetWindows()``.
    func framebuffer(showing window: PixelRect) throws(DRMError) -> UInt32 {
        if window.x == 0 && window.y == 0 && window.size == size { return framebuffer }
        if let made = windows[window] { return made }
        precondition(window.x >= 0 && window.y >= 0 && window.x + window.width <= size.width && window.y + window.height <= size.height,
                     "window \(window) is not inside the buffer \(size)")
        var handles: (UInt32, UInt32, UInt32, UInt32) = (handle, 0, 0, 0)
        var pitches: (UInt32, UInt32, UInt32, UInt32) = (UInt32(pitch), 0, 0, 0)
        var offsets: (UInt32, UInt32, UInt32, UInt32) = (UInt32(window.y * pitch + window.x * 4), 0, 0, 0)
        var made: UInt32 = 0
        let result = withUnsafeMutablePointer(to: &handles) { handles in
            withUnsafeMutablePointer(to: &pitches) { pitches in
                withUnsafeMutablePointer(to: &offsets) { offsets in
                    drmModeAddFB2(
                        card.fd, UInt32(window.width), UInt32(window.height), Self.xrgb8888,
                        UnsafeRawPointer(handles).assumingMemoryBound(to: UInt32.self), UnsafeRawPointer(pitches).assumingMemoryBound(to: UInt32.self),
                        UnsafeRawPointer(offsets).assumingMemoryBound(to: UInt32.self), &made, 0)
                }
            }
        }
        guard result == 0 else { throw DRMError(device: card.path, kind: .call("drmModeAddFB2 (a window at an offset)", errno: errnoOf(result))) }
        windows[window] = made
        return made
    }

    /// Removes the framebuffers made at offsets. Only for a buffer not on
    /// screen: removing a framebuffer being scanned out switches the CRTC off.
    func forgetWindows() {
        for made in windows.values { drmModeRmFB(card.fd, made) }
        windows = [:]
    }

    deinit {
        forgetWindows()
        munmap(memory, byteCount)
        drmModeRmFB(card.fd, framebuffer)
        drmModeDestroyDumbBuffer(card.fd, handle)
    }

    var surface: PixelSurface { PixelSurface(base: memory, size: size, bytesPerRow: pitch) }

    /// The buffer's top-left `part`, to draw a screen-sized frame into a longer buffer.
    func surface(_ part: PixelSize) -> PixelSurface {
        precondition(part.width <= size.width && part.height <= size.height, "\(part) is larger than the buffer \(size)")
        return PixelSurface(base: memory, size: part, bytesPerRow: pitch)
    }
}
