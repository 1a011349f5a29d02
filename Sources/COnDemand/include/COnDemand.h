// The libraries kioskd loads on first use, not at start: a show of JPEGs
// never maps libheif, libavif, libmosquitto (with OpenSSL), the text stack
// (libraqm, FreeType, fontconfig, with HarfBuzz, FriBidi and GLib), Exempi,
// libiptcdata, libwebp, giflib, libspng (with zlib) or libyuv, which
// together cost about 8 MB of resident memory; a show without video clips
// never maps FFmpeg's libraries (with the codecs' own: dav1d, libvpx, x265);
// a show without a server's library never maps libcurl (with its TLS), Expat
// or Jansson.
//
// Each function kioskd calls in them is a jump through a pointer
// (on_demand.c); opening the library fills its pointers by dlsym. The
// Swift module that wraps a library opens it before its first call
// (SystemCalls' OnDemandLibrary); a call before that stops the daemon
// with a message saying so (the jump cannot tell which function was called:
// the backtrace names it).
#pragma once
#include <stddef.h>

enum on_demand_library {
    on_demand_heif,
    on_demand_avif,
    on_demand_mosquitto,
    on_demand_raqm,
    on_demand_freetype,
    on_demand_fontconfig,
    on_demand_exempi,
    on_demand_iptcdata,
    on_demand_webp,
    on_demand_webpdemux,
    on_demand_gif,
    on_demand_spng,
    on_demand_yuv,
    on_demand_avutil,
    on_demand_avcodec,
    on_demand_avformat,
    on_demand_curl,
    on_demand_expat,
    on_demand_jansson,
    on_demand_library_count
};

// The soname dlopen asks for: the one the headers kioskd was compiled
// against belong to (libavif.so.15 on Debian 12, .16 on Debian 13).
const char *on_demand_soname(enum on_demand_library library);

// The Debian package that installs it, where the soname's rule does not
// name it (a package renamed for 64-bit time_t); NULL where it does.
const char *on_demand_package(enum on_demand_library library);

// Opens the library and fills its functions' pointers, once; safe from any
// thread. 0 when it is open; otherwise -1, with dlopen's or dlsym's words
// in `error` (at most `size` bytes, with the terminating zero).
int on_demand_open(enum on_demand_library library, char *error, size_t size);
