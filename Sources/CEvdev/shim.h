// libevdev: input devices (touchscreens, keyboards, remotes) with multitouch
// slots and SYN_DROPPED resync handled by the library, plus its uinput helper
// for making virtual devices in tests.
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <linux/input.h>
#include <stdarg.h>
#include <stdio.h>

// libevdev logs through a handler that takes a va_list. Swift 6.0 cannot
// write that handler for aarch64, where a va_list is a structure (its
// compiler crashes), so the handler is here: each line, formatted, goes to
// kioskd_evdev_log_line with the device's data, which InputDevices defines
// (@_cdecl).
void kioskd_evdev_log_line(void *data, const char *line);

static inline void kioskd_evdev_log(const struct libevdev *device, enum libevdev_log_priority priority, void *data,
                                    const char *file, int line_number, const char *function, const char *format,
                                    va_list arguments) {
    (void)device, (void)priority, (void)file, (void)line_number, (void)function;
    char line[512];
    vsnprintf(line, sizeof line, format, arguments);
    kioskd_evdev_log_line(data, line);
}

// Installed from C: Swift's view of the handler's va_list differs between
// the header's typedef and the function, on some compilers.
static inline void kioskd_evdev_log_to_swift(struct libevdev *device, void *data) {
    libevdev_set_device_log_function(device, kioskd_evdev_log, LIBEVDEV_LOG_ERROR, data);
}
