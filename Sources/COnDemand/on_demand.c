// Loading kioskd's optional libraries on first use (see COnDemand.h).
//
// The technique is an import library's, as Implib.so generates for any
// shared library: the program defines each function it calls in the
// library as a two-instruction jump through a pointer, so nothing links
// against the library and ld.so never maps it at start. The pointers start
// at a function that names the mistake (a call before the library was
// opened) and are filled all at once by on_demand_open.
//
// The jumps are hidden symbols: the library's own calls to its exported
// functions still bind to itself, even in a program linked with
// --export-dynamic (the test runner).
#define _GNU_SOURCE
#include "COnDemand.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <avif/avif.h>
#include <curl/curlver.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libheif/heif_version.h>

// The functions kioskd, its tests and its benchmark call, by library.
#define HEIF_FUNCTIONS(F) \
    F(heif_check_filetype) F(heif_context_add_exif_metadata) F(heif_context_alloc) F(heif_context_encode_image) \
    F(heif_context_free) F(heif_context_get_encoder_for_format) F(heif_context_get_number_of_top_level_images) \
    F(heif_context_get_primary_image_handle) F(heif_context_read_from_file) F(heif_context_read_from_memory_without_copy) \
    F(heif_context_write) F(heif_context_write_to_file) F(heif_decode_image) F(heif_encoder_release) \
    F(heif_encoder_set_lossy_quality) F(heif_encoding_options_alloc) F(heif_encoding_options_free) F(heif_image_add_plane) \
    F(heif_image_create) F(heif_image_get_bits_per_pixel_range) F(heif_image_get_chroma_format) F(heif_image_get_colorspace) \
    F(heif_image_get_content_light_level) F(heif_image_get_height) F(heif_image_get_nclx_color_profile) \
    F(heif_image_get_plane) F(heif_image_get_plane_readonly) F(heif_image_get_primary_height) \
    F(heif_image_get_primary_width) F(heif_image_get_width) F(heif_image_handle_get_height) \
    F(heif_image_handle_get_list_of_metadata_block_IDs) F(heif_image_handle_get_metadata) \
    F(heif_image_handle_get_metadata_size) F(heif_image_handle_get_nclx_color_profile) F(heif_image_handle_get_width) \
    F(heif_image_handle_is_premultiplied_alpha) F(heif_image_handle_release) F(heif_image_has_channel) \
    F(heif_image_has_content_light_level) F(heif_image_release) F(heif_init) F(heif_nclx_color_profile_free) \
    F(heif_read_main_brand) HEIF_TILE_FUNCTIONS(F)
// A grid's tiles one at a time: libheif 1.18 and later (CHEIF's shim.h).
#if LIBHEIF_NUMERIC_VERSION >= ((1 << 24) | (18 << 16))
#define HEIF_TILE_FUNCTIONS(F) F(heif_image_handle_get_image_tiling) F(heif_image_handle_decode_image_tile)
#else
#define HEIF_TILE_FUNCTIONS(F)
#endif

#define AVIF_FUNCTIONS(F) \
    F(avifCropRectConvertCleanApertureBox) F(avifDecoderCreate) F(avifDecoderDestroy) F(avifDecoderNextImage) \
    F(avifDecoderParse) F(avifDecoderReadMemory) F(avifDecoderSetIOMemory) F(avifImageCreateEmpty) F(avifImageDestroy) \
    F(avifImageYUVToRGB) F(avifRGBImageAllocatePixels) F(avifRGBImageFreePixels) F(avifRGBImageSetDefaults) \
    F(avifResultToString)

#define MOSQUITTO_FUNCTIONS(F) \
    F(mosquitto_connect) F(mosquitto_connect_async) F(mosquitto_connect_callback_set) F(mosquitto_destroy) \
    F(mosquitto_disconnect) F(mosquitto_disconnect_callback_set) F(mosquitto_int_option) F(mosquitto_lib_init) \
    F(mosquitto_log_callback_set) F(mosquitto_loop_misc) F(mosquitto_loop_read) F(mosquitto_loop_write) \
    F(mosquitto_message_callback_set) F(mosquitto_new) F(mosquitto_publish) F(mosquitto_publish_callback_set) \
    F(mosquitto_socket) F(mosquitto_strerror) F(mosquitto_subscribe) F(mosquitto_tls_insecure_set) \
    F(mosquitto_tls_opts_set) F(mosquitto_tls_set) F(mosquitto_user_data_set) F(mosquitto_username_pw_set) \
    F(mosquitto_want_write) F(mosquitto_will_set)

#define RAQM_FUNCTIONS(F) \
    F(raqm_create) F(raqm_destroy) F(raqm_get_glyphs) F(raqm_layout) F(raqm_set_freetype_face_range) \
    F(raqm_set_freetype_load_flags) F(raqm_set_par_direction) F(raqm_set_text)

#define FREETYPE_FUNCTIONS(F) \
    F(FT_Done_Face) F(FT_Done_FreeType) F(FT_Done_Glyph) F(FT_Get_Glyph) F(FT_Glyph_Copy) F(FT_Glyph_StrokeBorder) \
    F(FT_Glyph_To_Bitmap) F(FT_Init_FreeType) F(FT_Load_Glyph) F(FT_New_Face) F(FT_Select_Size) F(FT_Set_Pixel_Sizes) \
    F(FT_Stroker_Done) F(FT_Stroker_New) F(FT_Stroker_Set)

#define FONTCONFIG_FUNCTIONS(F) \
    F(FcCharSetHasChar) F(FcConfigSubstitute) F(FcDefaultSubstitute) F(FcFontSetDestroy) F(FcFontSort) F(FcInit) \
    F(FcNameParse) F(FcPatternDestroy) F(FcPatternGetBool) F(FcPatternGetCharSet) F(FcPatternGetInteger) \
    F(FcPatternGetString)

#define EXEMPI_FUNCTIONS(F) \
    F(xmp_files_free) F(xmp_files_get_new_xmp) F(xmp_files_open_new) F(xmp_free) F(xmp_get_localized_text) \
    F(xmp_get_property) F(xmp_init) F(xmp_namespace_prefix) \
    F(xmp_string_cstr) F(xmp_string_free) F(xmp_string_new)

#define IPTCDATA_FUNCTIONS(F) \
    F(iptc_data_get_dataset) F(iptc_data_new_from_jpeg) F(iptc_data_unref) F(iptc_dataset_get_data) F(iptc_dataset_unref)

#define WEBP_FUNCTIONS(F) \
    F(WebPDecode) F(WebPDecodeRGBA) F(WebPFree) F(WebPFreeDecBuffer) F(WebPGetFeaturesInternal) \
    F(WebPInitDecoderConfigInternal)

#define WEBPDEMUX_FUNCTIONS(F) \
    F(WebPAnimDecoderDelete) F(WebPAnimDecoderGetNext) F(WebPAnimDecoderHasMoreFrames) F(WebPAnimDecoderNewInternal) \
    F(WebPAnimDecoderOptionsInitInternal) F(WebPAnimDecoderReset) F(WebPDemuxDelete) F(WebPDemuxGetChunk) \
    F(WebPDemuxGetFrame) F(WebPDemuxGetI) F(WebPDemuxInternal) F(WebPDemuxNextFrame) F(WebPDemuxReleaseChunkIterator) \
    F(WebPDemuxReleaseIterator)

#define GIF_FUNCTIONS(F) \
    F(DGifCloseFile) F(DGifExtensionToGCB) F(DGifGetCode) F(DGifGetCodeNext) F(DGifGetExtension) \
    F(DGifGetExtensionNext) F(DGifGetImageDesc) F(DGifGetLine) F(DGifGetRecordType) F(DGifOpen) F(EGifCloseFile) \
    F(EGifGCBToExtension) F(EGifOpen) F(EGifPutExtension) F(EGifPutExtensionBlock) F(EGifPutExtensionLeader) \
    F(EGifPutExtensionTrailer) F(EGifPutImageDesc) F(EGifPutLine) F(EGifPutScreenDesc) F(EGifSetGifVersion) \
    F(GifErrorString) F(GifFreeMapObject) F(GifMakeMapObject)

#define SPNG_FUNCTIONS(F) \
    F(spng_ctx_free) F(spng_ctx_new) F(spng_decode_image) F(spng_decode_row) F(spng_encode_image) F(spng_get_ihdr) \
    F(spng_get_png_buffer) F(spng_set_chunk_limits) F(spng_set_ihdr) F(spng_set_image_limits) F(spng_set_option) \
    F(spng_set_plte) F(spng_set_png_buffer) F(spng_set_trns) F(spng_strerror)

#define YUV_FUNCTIONS(F) \
    F(ScalePlane) F(ScalePlane_16) F(I420ToARGB) F(I422ToARGB) F(I444ToARGB) F(J420ToARGB) F(J422ToARGB) F(J444ToARGB) \
    F(H420ToARGB) F(H422ToARGB) F(H444ToARGB) F(U420ToARGB) F(U422ToARGB) F(U444ToARGB)

// libcurl, for the photo libraries on servers (HTTPClient): the multi
// interface, one transfer at a time on a library's own thread.
#define CURL_FUNCTIONS(F) \
    F(curl_easy_cleanup) F(curl_easy_getinfo) F(curl_easy_init) F(curl_easy_setopt) F(curl_easy_strerror) \
    F(curl_easy_escape) F(curl_easy_unescape) F(curl_free) F(curl_url) F(curl_url_cleanup) F(curl_url_get) F(curl_url_set) \
    F(curl_global_init) F(curl_multi_add_handle) F(curl_multi_cleanup) F(curl_multi_info_read) F(curl_multi_init) \
    F(curl_multi_perform) F(curl_multi_poll) F(curl_multi_remove_handle) F(curl_multi_strerror) F(curl_multi_wakeup) \
    F(curl_slist_append) F(curl_slist_free_all) F(curl_version_info)

// Expat, for a WebDAV server's PROPFIND answers (DAVListing).
#define EXPAT_FUNCTIONS(F) \
    F(XML_ErrorString) F(XML_GetCurrentLineNumber) F(XML_GetErrorCode) F(XML_Parse) F(XML_ParserCreateNS) \
    F(XML_ParserFree) F(XML_SetCharacterDataHandler) F(XML_SetElementHandler) F(XML_SetEntityDeclHandler) \
    F(XML_SetUserData) F(XML_StopParser)

// Jansson, for an Immich server's answers (JSONDocument). json_decref is
// an inline function of its header that calls json_delete.
#define JANSSON_FUNCTIONS(F) \
    F(json_array_get) F(json_array_size) F(json_delete) F(json_integer_value) F(json_loadb) F(json_object_iter) \
    F(json_object_iter_key) F(json_object_iter_key_len) F(json_object_iter_next) F(json_object_iter_value) \
    F(json_real_value) F(json_string_length) F(json_string_value)

// FFmpeg, for video clips (CFFmpeg's shim.h calls only these too).
#define AVUTIL_FUNCTIONS(F) \
    F(av_dict_free) F(av_dict_get) F(av_dict_set) F(av_display_rotation_get) F(av_frame_alloc) F(av_frame_free) \
    F(av_frame_unref) F(av_free) F(av_get_pix_fmt_name) F(av_log_set_level) F(av_malloc) F(av_pix_fmt_desc_get) \
    F(av_strerror)
#define AVCODEC_FUNCTIONS(F) \
    F(av_packet_alloc) F(av_packet_free) F(av_packet_unref) F(avcodec_alloc_context3) F(avcodec_find_decoder) \
    F(avcodec_flush_buffers) F(avcodec_free_context) F(avcodec_get_name) F(avcodec_open2) \
    F(avcodec_parameters_to_context) F(avcodec_receive_frame) F(avcodec_send_packet) AVCODEC_SIDE_DATA_FUNCTIONS(F)
#define AVFORMAT_FUNCTIONS(F) \
    F(av_find_best_stream) F(av_read_frame) F(av_seek_frame) F(avformat_alloc_context) F(avformat_close_input) \
    F(avformat_find_stream_info) F(avformat_free_context) F(avformat_open_input) F(avio_alloc_context) \
    F(avio_context_free) AVFORMAT_SIDE_DATA_FUNCTIONS(F)
// A stream's display matrix: the stream's side data before FFmpeg 6.1,
// the codec parameters' from 6.1 (libavcodec 60.31) on.
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 31, 100)
#define AVCODEC_SIDE_DATA_FUNCTIONS(F) F(av_packet_side_data_get)
#define AVFORMAT_SIDE_DATA_FUNCTIONS(F)
#else
#define AVCODEC_SIDE_DATA_FUNCTIONS(F)
#define AVFORMAT_SIDE_DATA_FUNCTIONS(F) F(av_stream_get_side_data)
#endif

// Where every pointer starts: a call into a library that was never opened.
// The jump has left the caller's arguments untouched, so this cannot tell
// which function was called; the backtrace can.
__attribute__((noreturn, used)) static void on_demand_unopened(void) {
    fputs("kioskd: a function of a library loaded on demand was called before the library was opened\n", stderr);
    abort();
}

// The jump for one function: `name` (hidden, global) jumps to wherever
// on_demand_pointer_name points. Each in its own section, so that a
// program calling none of a library's functions links none of the jumps.
#if defined(__x86_64__)
#define JUMP(name) "jmp *on_demand_pointer_" #name "(%rip)\n"
#elif defined(__aarch64__)
#define JUMP(name) \
    "adrp x16, on_demand_pointer_" #name "\n" \
    "ldr x16, [x16, :lo12:on_demand_pointer_" #name "]\n" \
    "br x16\n"
#else
#error "on_demand.c has jumps for x86_64 and aarch64 only"
#endif

#define DEFINE_JUMP(name) \
    __attribute__((visibility("hidden"))) void *on_demand_pointer_##name = (void *)on_demand_unopened; \
    __asm__(".pushsection .text.on_demand." #name ",\"ax\",%progbits\n" \
            ".globl " #name "\n" \
            ".hidden " #name "\n" \
            ".type " #name ", %function\n" \
            ".p2align 4\n" \
            #name ":\n" JUMP(name) \
            ".size " #name ", . - " #name "\n" \
            ".popsection\n");

HEIF_FUNCTIONS(DEFINE_JUMP)
AVIF_FUNCTIONS(DEFINE_JUMP)
MOSQUITTO_FUNCTIONS(DEFINE_JUMP)
RAQM_FUNCTIONS(DEFINE_JUMP)
FREETYPE_FUNCTIONS(DEFINE_JUMP)
FONTCONFIG_FUNCTIONS(DEFINE_JUMP)
EXEMPI_FUNCTIONS(DEFINE_JUMP)
IPTCDATA_FUNCTIONS(DEFINE_JUMP)
WEBP_FUNCTIONS(DEFINE_JUMP)
WEBPDEMUX_FUNCTIONS(DEFINE_JUMP)
GIF_FUNCTIONS(DEFINE_JUMP)
SPNG_FUNCTIONS(DEFINE_JUMP)
YUV_FUNCTIONS(DEFINE_JUMP)
AVUTIL_FUNCTIONS(DEFINE_JUMP)
AVCODEC_FUNCTIONS(DEFINE_JUMP)
AVFORMAT_FUNCTIONS(DEFINE_JUMP)
CURL_FUNCTIONS(DEFINE_JUMP)
EXPAT_FUNCTIONS(DEFINE_JUMP)
JANSSON_FUNCTIONS(DEFINE_JUMP)

struct on_demand_function {
    const char *name;
    void **pointer;
};

#define ENTRY(name) {#name, &on_demand_pointer_##name},
static const struct on_demand_function heif_functions[] = {HEIF_FUNCTIONS(ENTRY)};
static const struct on_demand_function avif_functions[] = {AVIF_FUNCTIONS(ENTRY)};
static const struct on_demand_function mosquitto_functions[] = {MOSQUITTO_FUNCTIONS(ENTRY)};
static const struct on_demand_function raqm_functions[] = {RAQM_FUNCTIONS(ENTRY)};
static const struct on_demand_function freetype_functions[] = {FREETYPE_FUNCTIONS(ENTRY)};
static const struct on_demand_function fontconfig_functions[] = {FONTCONFIG_FUNCTIONS(ENTRY)};
static const struct on_demand_function exempi_functions[] = {EXEMPI_FUNCTIONS(ENTRY)};
static const struct on_demand_function iptcdata_functions[] = {IPTCDATA_FUNCTIONS(ENTRY)};
static const struct on_demand_function webp_functions[] = {WEBP_FUNCTIONS(ENTRY)};
static const struct on_demand_function webpdemux_functions[] = {WEBPDEMUX_FUNCTIONS(ENTRY)};
static const struct on_demand_function gif_functions[] = {GIF_FUNCTIONS(ENTRY)};
static const struct on_demand_function spng_functions[] = {SPNG_FUNCTIONS(ENTRY)};
static const struct on_demand_function yuv_functions[] = {YUV_FUNCTIONS(ENTRY)};
static const struct on_demand_function avutil_functions[] = {AVUTIL_FUNCTIONS(ENTRY)};
static const struct on_demand_function avcodec_functions[] = {AVCODEC_FUNCTIONS(ENTRY)};
static const struct on_demand_function avformat_functions[] = {AVFORMAT_FUNCTIONS(ENTRY)};
static const struct on_demand_function curl_functions[] = {CURL_FUNCTIONS(ENTRY)};
static const struct on_demand_function expat_functions[] = {EXPAT_FUNCTIONS(ENTRY)};
static const struct on_demand_function jansson_functions[] = {JANSSON_FUNCTIONS(ENTRY)};

// libavif's soname follows its ABI: 0.11 is libavif.so.15, every 1.x so
// far libavif.so.16. A test compares each soname here with the one the
// development package's libX.so names.
#if AVIF_VERSION_MAJOR == 0 && AVIF_VERSION_MINOR == 11
#define AVIF_SONAME "libavif.so.15"
#elif AVIF_VERSION_MAJOR == 1
#define AVIF_SONAME "libavif.so.16"
#else
#error "which soname belongs to this libavif? (on_demand.c)"
#endif

// FFmpeg's sonames carry each library's major version, which its headers
// say: libavcodec.so.59 with FFmpeg 5.1 (Debian 12), .61 with 7.1 (Debian 13).
#define STRINGIFY(x) #x
#define SONAME(name, major) "lib" name ".so." STRINGIFY(major)

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))
static const struct {
    const char *soname;
    const struct on_demand_function *functions;
    size_t count;
} libraries[on_demand_library_count] = {
    [on_demand_heif] = {"libheif.so.1", heif_functions, COUNT(heif_functions)},
    [on_demand_avif] = {AVIF_SONAME, avif_functions, COUNT(avif_functions)},
    [on_demand_mosquitto] = {"libmosquitto.so.1", mosquitto_functions, COUNT(mosquitto_functions)},
    [on_demand_raqm] = {"libraqm.so.0", raqm_functions, COUNT(raqm_functions)},
    [on_demand_freetype] = {"libfreetype.so.6", freetype_functions, COUNT(freetype_functions)},
    [on_demand_fontconfig] = {"libfontconfig.so.1", fontconfig_functions, COUNT(fontconfig_functions)},
    [on_demand_exempi] = {"libexempi.so.8", exempi_functions, COUNT(exempi_functions)},
    [on_demand_iptcdata] = {"libiptcdata.so.0", iptcdata_functions, COUNT(iptcdata_functions)},
    [on_demand_webp] = {"libwebp.so.7", webp_functions, COUNT(webp_functions)},
    [on_demand_webpdemux] = {"libwebpdemux.so.2", webpdemux_functions, COUNT(webpdemux_functions)},
    [on_demand_gif] = {"libgif.so.7", gif_functions, COUNT(gif_functions)},
    [on_demand_spng] = {"libspng.so.0", spng_functions, COUNT(spng_functions)},
    [on_demand_yuv] = {"libyuv.so.0", yuv_functions, COUNT(yuv_functions)},
    [on_demand_avutil] = {SONAME("avutil", LIBAVUTIL_VERSION_MAJOR), avutil_functions, COUNT(avutil_functions)},
    [on_demand_avcodec] = {SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR), avcodec_functions, COUNT(avcodec_functions)},
    [on_demand_avformat] = {SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR), avformat_functions, COUNT(avformat_functions)},
    [on_demand_curl] = {"libcurl.so.4", curl_functions, COUNT(curl_functions)},
    [on_demand_expat] = {"libexpat.so.1", expat_functions, COUNT(expat_functions)},
    [on_demand_jansson] = {"libjansson.so.4", jansson_functions, COUNT(jansson_functions)},
};

// Recursive: a library's constructor may call one of its own functions.
static pthread_mutex_t opening = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static int opened[on_demand_library_count];

const char *on_demand_soname(enum on_demand_library library) {
    return library < on_demand_library_count ? libraries[library].soname : "";
}

// libcurl's package took Debian's 64-bit time_t suffix with curl 8.5
// (libcurl4t64 in Debian 13 and Ubuntu 24.04; libcurl4 in Debian 12).
const char *on_demand_package(enum on_demand_library library) {
#if LIBCURL_VERSION_NUM >= 0x080500
    if (library == on_demand_curl) return "libcurl4t64";
#endif
    return NULL;
}

int on_demand_open(enum on_demand_library library, char *error, size_t size) {
    if (library >= on_demand_library_count) {
        snprintf(error, size, "no library %d", (int)library);
        return -1;
    }
    if (__atomic_load_n(&opened[library], __ATOMIC_ACQUIRE)) return 0;
    pthread_mutex_lock(&opening);
    int result = 0;
    if (!opened[library]) {
        void *handle = dlopen(libraries[library].soname, RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            snprintf(error, size, "%s", dlerror());
            result = -1;
        }
        for (size_t n = 0; handle && n < libraries[library].count; n++) {
            void *function = dlsym(handle, libraries[library].functions[n].name);
            if (!function) {
                snprintf(error, size, "%s has no function %s", libraries[library].soname, libraries[library].functions[n].name);
                result = -1;
                break;
            }
            __atomic_store_n(libraries[library].functions[n].pointer, function, __ATOMIC_RELEASE);
        }
        if (result == 0) __atomic_store_n(&opened[library], 1, __ATOMIC_RELEASE);
        // A library missing a function stays mapped (dlclose of a library
        // whose constructors ran is not always safe) but is never called.
    }
    pthread_mutex_unlock(&opening);
    return result;
}
