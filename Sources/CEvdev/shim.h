// libevdev: input devices (touchscreens, keyboards, remotes) with multitouch
// slots and SYN_DROPPED resync handled by the library, plus its uinput helper
// for making virtual devices in tests.
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <linux/input.h>
