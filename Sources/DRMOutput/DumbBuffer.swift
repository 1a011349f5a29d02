import CDRM
import KioskCore
import KioskRendering
import SystemCalls

#if canImport(Glibc)
import Glibc
#endif

/// A CPU-drawable scan-out buffer: a dumb buffer, mapped into memory and
/// registered as an XRGB8888 framebuffer. Freed in reverse order of creation.
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

    deinit {
        munmap(memory, byteCount)
        drmModeRmFB(card.fd, framebuffer)
        drmModeDestroyDumbBuffer(card.fd, handle)
    }

    var surface: PixelSurface { PixelSurface(base: memory, size: size, bytesPerRow: pitch) }
}
