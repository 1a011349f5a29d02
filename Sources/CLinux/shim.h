// Linux-only system headers that Glibc's Swift module does not include.
// The run loop's descriptors: signals and the decoder's hand-off now; timers,
// inotify and input later.
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <malloc.h>
