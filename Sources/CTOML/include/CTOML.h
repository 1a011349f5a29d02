// A C face for toml++ (Debian's libtomlplusplus), which Swift cannot call
// directly: parse a document and walk its values. The only C++ in kioskd.
#ifndef CTOML_H
#define CTOML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What one item of a walk is.
typedef enum {
    ctoml_string,
    ctoml_integer,
    ctoml_float,
    ctoml_boolean,
    /// A date, a time or a date-time: TOML has them, kioskd's settings do not.
    ctoml_other,
    /// The start of an array or table: its elements follow, then `ctoml_end`.
    ctoml_array,
    ctoml_table,
    ctoml_end,
} ctoml_kind;

/// One value met on the walk, valid only during the call that hands it over.
typedef struct {
    ctoml_kind kind;
    /// Its key in the enclosing table (NULL in an array, and for `ctoml_end`).
    const char *key;
    size_t key_length;
    /// `ctoml_string`: the text (UTF-8, may hold NUL bytes).
    const char *text;
    size_t text_length;
    int64_t integer;
    double number;
    bool boolean;
    /// Where the value starts in the document, from 1.
    uint32_t line;
    uint32_t column;
} ctoml_item;

/// Why a document could not be read.
typedef struct {
    uint32_t line;
    uint32_t column;
    /// toml++'s description, cut to fit, NUL-terminated.
    char message[256];
} ctoml_error;

/// Parses `length` bytes of TOML and walks the root table depth-first,
/// calling `visit` for each value in document order. Returns true; on a
/// malformed document (or no memory) returns false with `error` filled in,
/// having visited nothing. Never throws, never aborts.
bool ctoml_walk(const char *text, size_t length, void (*visit)(void *context, const ctoml_item *item), void *context,
                ctoml_error *error);

#ifdef __cplusplus
}
#endif

#endif
