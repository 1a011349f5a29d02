// libwebp: the decoder (with its own scaling and cropping) and the demuxer
// (the EXIF chunk, the canvas and its flags).
#include <webp/decode.h>
#include <webp/demux.h>
