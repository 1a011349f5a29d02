import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Gives every picture-sized buffer (a megabyte or more: decodes, scaled
/// pictures, frames) its own `mmap`, returned to the kernel when freed.
///
/// glibc otherwise raises its mmap threshold after the first such buffer is
/// freed and serves later ones from a heap arena (one per thread, so the
/// decode worker has its own), where freed holes stay resident: over months of
/// decoding the daemon's memory would creep above its budget. Call it first
/// thing in `main`.
public func keepPictureBuffersOutOfTheHeap() {
    mallopt(M_MMAP_THRESHOLD, 1 << 20)
}
