// libyuv: SIMD plane scaling (a decoded AVIF's or HEIF's planes reduced to
// the slot), and SIMD conversion of a clip's frames to XRGB.
#include <libyuv/scale.h>
#include <libyuv/convert_argb.h>
