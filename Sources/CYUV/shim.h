// libyuv: SIMD plane scaling (a decoded AVIF's or HEIF's planes reduced to the slot).
#include <libyuv/scale.h>
