// libseat: the seat (seatd, logind, or an embedded seatd when root) that
// lends kioskd the DRM card and the input devices.
#include <libseat.h>
#include <stdarg.h>
#include <stdio.h>

// libseat logs through a handler that takes a va_list. Swift 6.0 cannot
// write that handler for aarch64, where a va_list is a structure (its
// compiler crashes), so the handler is here: each line, formatted, goes to
// kioskd_seat_log_line, which SeatAccess defines (@_cdecl).
void kioskd_seat_log_line(const char *line);

static inline void kioskd_seat_log(enum libseat_log_level level, const char *format, va_list arguments) {
    (void)level;
    char line[512];
    vsnprintf(line, sizeof line, format, arguments);
    kioskd_seat_log_line(line);
}

// Installed from C: Swift's view of the handler's va_list differs between
// the header's typedef and the function, on some compilers.
static inline void kioskd_seat_log_to_swift(void) { libseat_set_log_handler(kioskd_seat_log); }
