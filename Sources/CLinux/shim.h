// Linux-only system headers that Glibc's Swift module does not include:
// the run loop's descriptors (epoll, timers, signals, the decoder's
// hand-off) and malloc tuning. inotify and input come later.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <malloc.h>
