// GNU libmicrohttpd (0.9.75 in Debian 12, 1.0.1 in Debian 13): an HTTP
// server that kioskd-web drives from its own epoll loop, one thread.
// Swift cannot call C's `...` functions, nor its function-like macros, so
// the few kioskd-web needs are wrapped here; the version differences too.
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// The daemon on the bound, listening socket `listen_fd` (MHD_stop_daemon
/// closes it), in external epoll mode with
/// suspend and resume (the live event stream); TLS when cert and key are
/// given (PEM text, read only during the call). NULL when MHD refuses.
static inline struct MHD_Daemon *kd_mhd_start(int listen_fd, int tls, const char *cert_pem, const char *key_pem,
                                              MHD_AccessHandlerCallback handler, void *handler_cls,
                                              MHD_RequestCompletedCallback completed, void *completed_cls,
                                              unsigned int connection_limit, unsigned int connection_timeout,
                                              size_t connection_memory) {
    unsigned int flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
#if MHD_VERSION >= 0x00097707
    flags |= MHD_USE_NO_THREAD_SAFETY;
#endif
    if (tls) flags |= MHD_USE_TLS;
    struct MHD_OptionItem options[] = {
        { MHD_OPTION_LISTEN_SOCKET, listen_fd, NULL },
        { MHD_OPTION_NOTIFY_COMPLETED, (intptr_t) completed, completed_cls },
        { MHD_OPTION_CONNECTION_LIMIT, connection_limit, NULL },
        { MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout, NULL },
        { MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t) connection_memory, NULL },
        { MHD_OPTION_PER_IP_CONNECTION_LIMIT, 16, NULL },
        { tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, (void *) cert_pem },
        { MHD_OPTION_HTTPS_MEM_KEY, 0, (void *) key_pem },
        { MHD_OPTION_END, 0, NULL },
    };
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// The epoll descriptor MHD keeps its sockets in: readable when it has work.
static inline int kd_mhd_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info ? info->epoll_fd : -1;
}

/// How long the loop may wait before MHD_run is due again, in ms; -1: no limit.
static inline int kd_mhd_timeout_ms(struct MHD_Daemon *daemon) {
    MHD_UNSIGNED_LONG_LONG ms;
    if (MHD_get_timeout(daemon, &ms) != MHD_YES) return -1;
    return ms > INT_MAX ? INT_MAX : (int) ms;
}

/// The client's address as text (IPv4 or IPv6), into `out`; empty when unknown.
static inline void kd_mhd_client_address(struct MHD_Connection *connection, char *out, size_t size) {
    out[0] = 0;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr) return;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        const unsigned char *b = (const unsigned char *) &((const struct sockaddr_in *) address)->sin_addr;
        snprintf(out, size, "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
    } else if (address->sa_family == AF_INET6) {
        const unsigned char *b = ((const struct sockaddr_in6 *) address)->sin6_addr.s6_addr;
        // An IPv4 client of a dual-stack socket ([::]): its own address,
        // so it is counted as itself, not as the block every one shares.
        static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
        if (memcmp(b, mapped, 12) == 0) {
            snprintf(out, size, "%u.%u.%u.%u", b[12], b[13], b[14], b[15]);
            return;
        }
        snprintf(out, size, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
                 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    }
}

/// A connection that streams for ever (the live events) never times out.
static inline void kd_mhd_never_time_out(struct MHD_Connection *connection) {
    MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, 0U);
}

/// ...until it is let go: idle this many seconds, it is dropped.
static inline void kd_mhd_time_out(struct MHD_Connection *connection, unsigned int seconds) {
    MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}

static const uint64_t kd_mhd_size_unknown = MHD_SIZE_UNKNOWN;
static const ssize_t kd_mhd_end_of_stream = MHD_CONTENT_READER_END_OF_STREAM;
static const ssize_t kd_mhd_end_with_error = MHD_CONTENT_READER_END_WITH_ERROR;

// The enums' values under one name on every version: MHD marks some enums
// closed (enum_extensibility), which Swift imports with renamed cases.
static const enum MHD_Result kd_mhd_yes = MHD_YES;
static const enum MHD_Result kd_mhd_no = MHD_NO;
static const enum MHD_ValueKind kd_mhd_header_kind = MHD_HEADER_KIND;
static const enum MHD_ValueKind kd_mhd_cookie_kind = MHD_COOKIE_KIND;
static const enum MHD_ValueKind kd_mhd_get_argument_kind = MHD_GET_ARGUMENT_KIND;
static const enum MHD_ResponseMemoryMode kd_mhd_must_copy = MHD_RESPMEM_MUST_COPY;
