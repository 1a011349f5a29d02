#ifndef CLIBJPEG_H
#define CLIBJPEG_H

#include <stddef.h>

/// libjpeg's own API (libjpeg-turbo's libjpeg.so) for what TurboJPEG 2.1
/// does not offer: a part of a JPEG, and a whole one a row at a time.
/// libjpeg reports errors by calling `error_exit`, which must not return:
/// this wrapper catches them with `setjmp`, which Swift cannot do.

/// A part of a JPEG: at 1/`scale_denom`
/// through the DCT, only the columns asked for through the inverse DCT
/// (`jpeg_crop_scanline`), the rows above skipped without it
/// (`jpeg_skip_scanlines`), and nothing read past the last row wanted.
struct kiosk_jpeg_region {
    /// 4 bytes a pixel, `width` by `height`: XRGB8888 in memory order B, G,
    /// R, X; or inverted CMYK when `cmyk` (the caller converts it).
    unsigned char *pixels;
    unsigned int width, height;
    /// Where the buffer's first pixel is in the whole picture at this scale
    /// (the columns start on an iMCU boundary at or before the one asked for).
    unsigned int x, y;
    /// The whole picture's size at this scale.
    unsigned int scaled_width, scaled_height;
    int cmyk;
    /// The first warning libjpeg gave (corrupt data it went past), or empty.
    char warning[200];
};

/// Decodes the stored pixels `left`, `top`, `width` x `height` of the
/// JPEG in `data` at 1/`scale_denom` (1, 2, 4 or 8). Returns 0 and fills
/// `region` (free its pixels with `kiosk_jpeg_region_free`), or -1 with
/// libjpeg's message in `message`. Refuses a part over `maximum_pixels`
/// at that scale before allocating it.
int kiosk_jpeg_decode_region(
    const unsigned char *data, unsigned long size, unsigned int left, unsigned int top, unsigned int width,
    unsigned int height, unsigned int scale_denom, unsigned long maximum_pixels, struct kiosk_jpeg_region *region,
    char *message, size_t message_size);

void kiosk_jpeg_region_free(struct kiosk_jpeg_region *region);

/// A whole JPEG decoded a row at a time at `scale_num`/`scale_denom`
/// through the DCT, so a caller can resample each row as it comes and the
/// decoded picture is never in memory whole.
struct kiosk_jpeg_rows;

struct kiosk_jpeg_rows_info {
    /// The picture's size: stored, after opening; at the DCT scale, after starting.
    unsigned int width, height;
    /// Rows come as inverted CMYK (the caller converts them), else as
    /// XRGB8888 in memory order B, G, R, X.
    int cmyk;
};

/// Reads the header of the JPEG in `data` (which must outlive the
/// reader). Returns 0 with `*rows` and `info` (the stored size), or -1
/// with libjpeg's message in `message`.
int kiosk_jpeg_rows_open(
    const unsigned char *data, unsigned long size, struct kiosk_jpeg_rows **rows, struct kiosk_jpeg_rows_info *info,
    char *message, size_t message_size);

/// The same, reading the file `descriptor` as the decode goes (libjpeg's
/// stdio source, 4 KiB at a time), so the file is never in memory whole.
/// The reader owns the descriptor, and closes it even when opening fails.
int kiosk_jpeg_rows_open_file(
    int descriptor, struct kiosk_jpeg_rows **rows, struct kiosk_jpeg_rows_info *info, char *message,
    size_t message_size);

/// Starts the decode at `scale_num`/`scale_denom` through the DCT; `info`
/// then gives the size at that scale. Refuses a picture over
/// `maximum_pixels` at that scale before decoding anything. Returns 0, or
/// -1 with the message (the reader can then only be closed).
int kiosk_jpeg_rows_start(
    struct kiosk_jpeg_rows *rows, unsigned int scale_num, unsigned int scale_denom, unsigned long maximum_pixels,
    struct kiosk_jpeg_rows_info *info, char *message, size_t message_size);

/// Decodes the next row into `row` (`width` * 4 bytes). Returns 0, or -1
/// with libjpeg's message (the reader can then only be closed).
int kiosk_jpeg_rows_read(struct kiosk_jpeg_rows *rows, unsigned char *row, char *message, size_t message_size);

/// The first warning libjpeg gave (corrupt data it went past), or an empty string.
void kiosk_jpeg_rows_warning(const struct kiosk_jpeg_rows *rows, char *warning, size_t warning_size);

/// Ends the decode (rows never read are not decoded) and frees the reader,
/// closing its file.
void kiosk_jpeg_rows_close(struct kiosk_jpeg_rows *rows);

#endif
