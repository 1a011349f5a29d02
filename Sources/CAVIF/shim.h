// libavif: AVIF (AV1 in HEIF), through its dav1d (or libaom) decoder.
#include <avif/avif.h>

// The `imir` box's mirror: 0 exchanges top and bottom, 1 left and right.
// libavif 0.11 (Debian 12) names the field `mode`, 1.0 and later (Debian 13) `axis`.
static inline uint8_t kiosk_avif_mirror(const avifImage *image) {
#if AVIF_VERSION_MAJOR >= 1
    return image->imir.axis;
#else
    return image->imir.mode;
#endif
}
