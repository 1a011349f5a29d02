// Linux-only system headers that Glibc's Swift module does not include.
// The run loop's descriptors: signals now; timers, inotify and input later.
#include <sys/signalfd.h>
