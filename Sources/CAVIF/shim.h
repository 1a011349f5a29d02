// libavif: AVIF (AV1 in HEIF), through its dav1d (or libaom) decoder.
#include <avif/avif.h>
