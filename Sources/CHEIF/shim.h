// libheif: HEIF containers (HEIC through its libde265 decoder plugin).
#include <libheif/heif.h>

// A grid's tiles, decoded one at a time: libheif 1.18 and later (Debian 13)
// have the API; with 1.15 (Debian 12) these report no tiling and kioskd
// decodes the image whole.
#if LIBHEIF_NUMERIC_VERSION >= ((1 << 24) | (18 << 16))
#define KIOSK_HEIF_HAS_TILES 1
#endif

// 1 when this libheif decodes a grid's tiles one at a time for kioskd.
static inline int kiosk_heif_decodes_tiles(void) {
#ifdef KIOSK_HEIF_HAS_TILES
    return 1;
#else
    return 0;
#endif
}

// The primary image's tiling with the container's turn and crop applied:
// 1 and the layout when its tiles can be decoded one by one, else 0.
static inline int kiosk_heif_tiling(const struct heif_image_handle *handle, uint32_t layout[8]) {
#ifdef KIOSK_HEIF_HAS_TILES
    struct heif_image_tiling tiling;
    if (heif_image_handle_get_image_tiling(handle, 1, &tiling).code != heif_error_Ok) return 0;
    if (tiling.number_of_extra_dimensions != 0) return 0;
    layout[0] = tiling.num_columns;
    layout[1] = tiling.num_rows;
    layout[2] = tiling.tile_width;
    layout[3] = tiling.tile_height;
    layout[4] = tiling.image_width;
    layout[5] = tiling.image_height;
    layout[6] = tiling.left_offset;
    layout[7] = tiling.top_offset;
    return 1;
#else
    (void)handle;
    (void)layout;
    return 0;
#endif
}

// The tile at (column, row) of that tiling, turned as the image is, in the
// planes its decoder makes.
static inline struct heif_error kiosk_heif_decode_tile(const struct heif_image_handle *handle, struct heif_image **image, uint32_t column, uint32_t row) {
#ifdef KIOSK_HEIF_HAS_TILES
    return heif_image_handle_decode_image_tile(handle, image, heif_colorspace_undefined, heif_chroma_undefined, NULL, column, row);
#else
    (void)handle;
    (void)image;
    (void)column;
    (void)row;
    struct heif_error unsupported = { heif_error_Unsupported_feature, heif_suberror_Unspecified, "this libheif decodes no tiles" };
    return unsupported;
#endif
}
