// Linux-only system headers that Glibc's Swift module does not include:
// the run loop's descriptors (epoll, timers, signals, the decoder's
// hand-off) and malloc tuning. inotify and input come later.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <malloc.h>
// The control socket: accept4 (non-blocking, close-on-exec in one call) is a
// GNU extension that Glibc's module leaves out without _GNU_SOURCE.
#include <sys/socket.h>
int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
// The display loop's scheduling: SCHED_RESET_ON_FORK is a GNU extension too.
#include <sched.h>
#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif
// The decode worker's lower priorities (linux/sched.h's numbers).
#ifndef SCHED_BATCH
#define SCHED_BATCH 3
#endif
#ifndef SCHED_IDLE
#define SCHED_IDLE 5
#endif
// The input devices' folder watch (devices plugged in and out).
#include <sys/inotify.h>
// The DRM card's hotplug events: the kernel's uevents on a netlink socket.
#include <linux/netlink.h>
// Pinning a thread to cores (the benchmark's one-core figure): a GNU
// extension too; `mask` is a cpu_set_t, one bit a core, read as longs.
int sched_setaffinity(pid_t pid, size_t cpusetsize, const unsigned long *mask);
// What C libraries print to stdio's stderr (libde265's bitstream complaints),
// routed into kioskd's log: fopencookie is a GNU extension too. The functions'
// layout is glibc's cookie_io_functions_t; `offset` is an off64_t *. It is
// found by dlsym rather than declared: some toolchains' stdio.h declares it
// (Debian 13's), others do not (Debian 12's), and a second declaration with
// this struct conflicts. A null handle is glibc's RTLD_DEFAULT.
#include <stdio.h>
#include <dlfcn.h>
typedef struct {
    ssize_t (*read)(void *cookie, char *buffer, size_t size);
    ssize_t (*write)(void *cookie, const char *buffer, size_t size);
    int (*seek)(void *cookie, void *offset, int whence);
    int (*close)(void *cookie);
} clinux_cookie_functions;
static inline FILE *clinux_open_cookie_stream(void *cookie, const char *mode, clinux_cookie_functions functions) {
    FILE *(*open)(void *, const char *, clinux_cookie_functions) =
        (FILE *(*)(void *, const char *, clinux_cookie_functions))dlsym((void *)0, "fopencookie");
    return open ? open(cookie, mode, functions) : NULL;
}
// stdio's `stderr` pointed at such a stream (Swift 6 refuses to assign the C global).
static inline void clinux_set_stderr(FILE *stream) { stderr = stream; }
// kioskd-web's uploads are renamed into the picture folder without ever
// replacing a file there (RENAME_NOREPLACE): a GNU extension too. Declared
// as glibc's stdio.h does, which some toolchains' module already includes.
int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
