#include "CLibJPEG.h"

#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jpeglib.h>

struct error_manager {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char warning[200];
};

static void exit_with_error(j_common_ptr cinfo) {
    struct error_manager *manager = (struct error_manager *)cinfo->err;
    longjmp(manager->jump, 1);
}

/// Warnings (level -1) are kept, the first one only; trace messages dropped.
static void keep_warning(j_common_ptr cinfo, int level) {
    struct error_manager *manager = (struct error_manager *)cinfo->err;
    if (level < 0 && manager->warning[0] == 0) {
        char text[JMSG_LENGTH_MAX];
        (*cinfo->err->format_message)(cinfo, text);
        snprintf(manager->warning, sizeof manager->warning, "%s", text);
    }
}

int kiosk_jpeg_decode_region(
    const unsigned char *data, unsigned long size, unsigned int left, unsigned int top, unsigned int width,
    unsigned int height, unsigned int scale_denom, unsigned long maximum_pixels, struct kiosk_jpeg_region *region,
    char *message, size_t message_size) {
    struct jpeg_decompress_struct cinfo;
    struct error_manager manager;
    /* volatile: changed between setjmp and a longjmp back to it. */
    unsigned char *volatile pixels = NULL;
    memset(region, 0, sizeof *region);
    memset(&manager, 0, sizeof manager);
    cinfo.err = jpeg_std_error(&manager.pub);
    manager.pub.error_exit = exit_with_error;
    manager.pub.emit_message = keep_warning;
    if (setjmp(manager.jump)) {
        char text[JMSG_LENGTH_MAX];
        (*cinfo.err->format_message)((j_common_ptr)&cinfo, text);
        snprintf(message, message_size, "%s", text);
        free(pixels);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, size);
    jpeg_read_header(&cinfo, TRUE);
    if (width == 0 || height == 0 || left + width > cinfo.image_width || top + height > cinfo.image_height) {
        snprintf(message, message_size, "the part %ux%u at %u,%u is not inside the %ux%u picture", width, height, left, top,
                 cinfo.image_width, cinfo.image_height);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_BGRX;
    cinfo.scale_num = 1;
    cinfo.scale_denom = scale_denom;
    jpeg_start_decompress(&cinfo);
    unsigned int scaled_width = cinfo.output_width, scaled_height = cinfo.output_height;
    /* The part at this scale, rounded outward. */
    unsigned int first_row = top / scale_denom;
    unsigned int end_row = (top + height + scale_denom - 1) / scale_denom;
    if (end_row > scaled_height) end_row = scaled_height;
    JDIMENSION x = left / scale_denom;
    JDIMENSION end_column = (left + width + scale_denom - 1) / scale_denom;
    if (end_column > scaled_width) end_column = scaled_width;
    JDIMENSION columns = end_column - x;
    jpeg_crop_scanline(&cinfo, &x, &columns);
    unsigned int rows = end_row - first_row;
    if ((unsigned long)columns * rows > maximum_pixels) {
        snprintf(message, message_size, "the part would be %ux%u pixels", (unsigned)columns, rows);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    pixels = malloc((size_t)columns * rows * 4);
    if (pixels == NULL) {
        snprintf(message, message_size, "out of memory for %ux%u pixels", (unsigned)columns, rows);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    if (first_row > 0) jpeg_skip_scanlines(&cinfo, first_row);
    while (cinfo.output_scanline < end_row) {
        JSAMPROW row = pixels + (size_t)(cinfo.output_scanline - first_row) * columns * 4;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    /* The rows below are never read. */
    jpeg_abort_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    region->pixels = pixels;
    region->width = columns;
    region->height = rows;
    region->x = x;
    region->y = first_row;
    region->scaled_width = scaled_width;
    region->scaled_height = scaled_height;
    region->cmyk = cmyk;
    memcpy(region->warning, manager.warning, sizeof region->warning);
    return 0;
}

void kiosk_jpeg_region_free(struct kiosk_jpeg_region *region) {
    free(region->pixels);
    region->pixels = NULL;
}

/* Rows one at a time: the whole picture at a DCT scale, never all in memory. */

struct kiosk_jpeg_rows {
    struct jpeg_decompress_struct cinfo;
    struct error_manager manager;
    /* The file read from (kiosk_jpeg_rows_open_file), or NULL. */
    FILE *file;
};

static void fail_with_message(struct kiosk_jpeg_rows *rows, char *message, size_t message_size) {
    char text[JMSG_LENGTH_MAX];
    (*rows->cinfo.err->format_message)((j_common_ptr)&rows->cinfo, text);
    snprintf(message, message_size, "%s", text);
}

static void free_rows(struct kiosk_jpeg_rows *rows) {
    jpeg_destroy_decompress(&rows->cinfo);
    if (rows->file != NULL) fclose(rows->file);
    free(rows);
}

/* Reads the header from `data` or, when it is NULL, from `file`. */
static int open_rows(
    const unsigned char *data, unsigned long size, FILE *file, struct kiosk_jpeg_rows **opened,
    struct kiosk_jpeg_rows_info *info, char *message, size_t message_size) {
    *opened = NULL;
    memset(info, 0, sizeof *info);
    struct kiosk_jpeg_rows *rows = calloc(1, sizeof *rows);
    if (rows == NULL) {
        if (file != NULL) fclose(file);
        snprintf(message, message_size, "out of memory");
        return -1;
    }
    rows->file = file;
    rows->cinfo.err = jpeg_std_error(&rows->manager.pub);
    rows->manager.pub.error_exit = exit_with_error;
    rows->manager.pub.emit_message = keep_warning;
    if (setjmp(rows->manager.jump)) {
        fail_with_message(rows, message, message_size);
        free_rows(rows);
        return -1;
    }
    jpeg_create_decompress(&rows->cinfo);
    if (file != NULL) {
        jpeg_stdio_src(&rows->cinfo, file);
    } else {
        jpeg_mem_src(&rows->cinfo, data, size);
    }
    jpeg_read_header(&rows->cinfo, TRUE);
    info->width = rows->cinfo.image_width;
    info->height = rows->cinfo.image_height;
    info->cmyk = rows->cinfo.jpeg_color_space == JCS_CMYK || rows->cinfo.jpeg_color_space == JCS_YCCK;
    *opened = rows;
    return 0;
}

int kiosk_jpeg_rows_open(
    const unsigned char *data, unsigned long size, struct kiosk_jpeg_rows **rows, struct kiosk_jpeg_rows_info *info,
    char *message, size_t message_size) {
    return open_rows(data, size, NULL, rows, info, message, message_size);
}

int kiosk_jpeg_rows_open_file(
    int descriptor, struct kiosk_jpeg_rows **rows, struct kiosk_jpeg_rows_info *info, char *message,
    size_t message_size) {
    FILE *file = fdopen(descriptor, "rb");
    if (file == NULL) {
        close(descriptor);
        snprintf(message, message_size, "fdopen: %s", strerror(errno));
        *rows = NULL;
        return -1;
    }
    return open_rows(NULL, 0, file, rows, info, message, message_size);
}

int kiosk_jpeg_rows_start(
    struct kiosk_jpeg_rows *rows, unsigned int scale_num, unsigned int scale_denom, unsigned long maximum_pixels,
    struct kiosk_jpeg_rows_info *info, char *message, size_t message_size) {
    if (setjmp(rows->manager.jump)) {
        fail_with_message(rows, message, message_size);
        return -1;
    }
    rows->cinfo.out_color_space = info->cmyk ? JCS_CMYK : JCS_EXT_BGRX;
    rows->cinfo.scale_num = scale_num;
    rows->cinfo.scale_denom = scale_denom;
    jpeg_calc_output_dimensions(&rows->cinfo);
    if ((unsigned long)rows->cinfo.output_width * rows->cinfo.output_height > maximum_pixels) {
        snprintf(message, message_size, "the picture would be %ux%u pixels", (unsigned)rows->cinfo.output_width,
                 (unsigned)rows->cinfo.output_height);
        return -1;
    }
    jpeg_start_decompress(&rows->cinfo);
    info->width = rows->cinfo.output_width;
    info->height = rows->cinfo.output_height;
    return 0;
}

int kiosk_jpeg_rows_read(struct kiosk_jpeg_rows *rows, unsigned char *row, char *message, size_t message_size) {
    if (setjmp(rows->manager.jump)) {
        fail_with_message(rows, message, message_size);
        return -1;
    }
    if (rows->cinfo.output_scanline >= rows->cinfo.output_height) {
        snprintf(message, message_size, "no row after the last (%u)", (unsigned)rows->cinfo.output_height);
        return -1;
    }
    JSAMPROW pointer = row;
    jpeg_read_scanlines(&rows->cinfo, &pointer, 1);
    return 0;
}

void kiosk_jpeg_rows_warning(const struct kiosk_jpeg_rows *rows, char *warning, size_t warning_size) {
    snprintf(warning, warning_size, "%s", rows->manager.warning);
}

void kiosk_jpeg_rows_close(struct kiosk_jpeg_rows *rows) {
    if (rows == NULL) return;
    /* Rows never read (a decode abandoned) are not decoded. */
    jpeg_abort_decompress(&rows->cinfo);
    free_rows(rows);
}
