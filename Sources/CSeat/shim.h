// libseat: the seat (seatd, logind, or an embedded seatd when root) that
// lends kioskd the DRM card and the input devices.
#include <libseat.h>
