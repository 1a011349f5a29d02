// libsystemd: socket activation (sd_listen_fds) today; sd_notify and the
// watchdog come with the service.
#include <systemd/sd-daemon.h>
