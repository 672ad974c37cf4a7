/* SPDX-License-Identifier: MIT */
/* bf_hswatch.c — handshake watcher thread: failed CURVE handshakes logged with the peer. */
#include "bf_hswatch.h"

#include "bf_clock.h"
#include "bf_log.h"
#include "bf_mem.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <zmq.h>

#define BF_HSWATCH_LOG_EVERY_US 10000000u /* one refusal line per 10 s per socket */
#define BF_HSWATCH_MAX_FD 65536           /* descriptors past this are not remembered */

struct bf_hswatch {
    void *pair; /* our end of the monitor (owned by the thread once it runs) */
    char what[16];
    pthread_t thread;
    atomic_uint_fast64_t failed;
    char (*peer)[64]; /* by descriptor: "ip:port" of the connection accepted on it, or "" */
    size_t npeer;
};

/* "ip:port" of the peer of fd, or "" when the kernel cannot say (closed already) */
static void peer_of(int fd, char *out, size_t out_size)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    out[0] = '\0';
    if (getpeername(fd, (struct sockaddr *)&ss, &sl) != 0)
        return;
    char ip[INET6_ADDRSTRLEN] = "";
    if (ss.ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
        snprintf(out, out_size, "%s:%u", ip, (unsigned)ntohs(in->sin_port));
    } else if (ss.ss_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&ss;
        inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip);
        snprintf(out, out_size, "[%s]:%u", ip, (unsigned)ntohs(in6->sin6_port));
    }
}

static char *slot(bf_hswatch_t *w, uint32_t fd)
{
    if (fd >= BF_HSWATCH_MAX_FD)
        return NULL;
    if (fd >= w->npeer) {
        size_t n = w->npeer ? w->npeer : 64;
        while (n <= fd)
            n *= 2;
        w->peer = bf_realloc(w->peer, n * sizeof *w->peer);
        memset(w->peer + w->npeer, 0, (n - w->npeer) * sizeof *w->peer);
        w->npeer = n;
    }
    return w->peer[fd];
}

static void *run(void *arg)
{
    bf_hswatch_t *w = arg;
    uint64_t logged_us = 0, unknown_us = 0, since_log = 0;
    uint16_t failed_event = 0; /* a HANDSHAKE_FAILED waiting for its DISCONNECTED */
    for (;;) {
        zmq_msg_t ev, addr;
        zmq_msg_init(&ev);
        if (zmq_msg_recv(&ev, w->pair, 0) < 0) {
            zmq_msg_close(&ev);
            if (errno == ETERM)
                break;
            continue;
        }
        uint16_t event = 0;
        uint32_t value = 0;
        if (zmq_msg_size(&ev) >= 6) {
            memcpy(&event, zmq_msg_data(&ev), 2);
            memcpy(&value, (const char *)zmq_msg_data(&ev) + 2, 4);
        }
        zmq_msg_close(&ev);
        zmq_msg_init(&addr); /* our endpoint: not needed */
        zmq_msg_recv(&addr, w->pair, 0);
        zmq_msg_close(&addr);
        char *p;
        switch (event) {
        case ZMQ_EVENT_ACCEPTED:
            p = slot(w, value);
            if (p)
                peer_of((int)value, p, 64);
            break;
        case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
        case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
        case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH: failed_event = event; break;
        case ZMQ_EVENT_DISCONNECTED:
            p = slot(w, value);
            if (failed_event) {
                uint64_t n = atomic_fetch_add(&w->failed, 1) + 1;
                since_log++;
                uint64_t now = bf_clock_mono_us();
                int known = p && p[0];
                /* a line naming the peer at most every 10 s; one without (the connection
                 * closed before the thread woke) only when no named line was due either, so
                 * a lost race does not hide the next attempt's address for 10 s */
                int due = known
                              ? logged_us == 0 || now - logged_us > BF_HSWATCH_LOG_EVERY_US
                              : (logged_us == 0 || now - logged_us > BF_HSWATCH_LOG_EVERY_US) &&
                                    (unknown_us == 0 || now - unknown_us > BF_HSWATCH_LOG_EVERY_US);
                if (due) {
                    bf_warn("refused a connection to the %s socket from %s: its CURVE handshake "
                            "failed (%s); an agent needs --keys DIR with coordinator.pub and "
                            "its key in the allow-list (%llu refused so far, %llu since the "
                            "last line)",
                            w->what, known ? p : "an address that closed before it could be read",
                            failed_event == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH
                                ? "key not admitted"
                                : "no CURVE keys, or a wrong coordinator key",
                            (unsigned long long)n, (unsigned long long)since_log);
                    if (known)
                        logged_us = now;
                    else
                        unknown_us = now;
                    since_log = 0;
                }
            }
            failed_event = 0;
            if (p)
                p[0] = '\0';
            break;
        default: break;
        }
    }
    zmq_close(w->pair);
    return NULL;
}

bf_hswatch_t *bf_hswatch_start(void *zctx, void *sock, const char *what)
{
    static atomic_uint n_watch;
    bf_hswatch_t *w = bf_calloc(1, sizeof *w);
    snprintf(w->what, sizeof w->what, "%s", what);
    char ep[64];
    snprintf(ep, sizeof ep, "inproc://bf-hswatch-%u", atomic_fetch_add(&n_watch, 1));
    if (zmq_socket_monitor(
            sock, ep,
            ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) != 0)
        goto error;
    w->pair = zmq_socket(zctx, ZMQ_PAIR);
    int linger = 0;
    if (w->pair == NULL)
        goto error_monitor;
    zmq_setsockopt(w->pair, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_connect(w->pair, ep) != 0)
        goto error_pair;
    /* the socket moves to the thread: pthread_create is the full barrier libzmq asks for */
    if (pthread_create(&w->thread, NULL, run, w) != 0)
        goto error_pair;
    return w;
error_pair:
    zmq_close(w->pair);
error_monitor:
    zmq_socket_monitor(sock, NULL, 0);
error:
    bf_warn("cannot watch the %s socket's handshakes (%s): refused peers are not logged", what,
            zmq_strerror(errno));
    free(w);
    return NULL;
}

void bf_hswatch_stop(bf_hswatch_t *w, void *sock)
{
    if (w && sock)
        zmq_socket_monitor(sock, NULL, 0);
}

void bf_hswatch_join(bf_hswatch_t **w_p)
{
    if (w_p == NULL || *w_p == NULL)
        return;
    bf_hswatch_t *w = *w_p;
    pthread_join(w->thread, NULL);
    free(w->peer);
    free(w);
    *w_p = NULL;
}

uint64_t bf_hswatch_failed(const bf_hswatch_t *w)
{
    return w ? atomic_load(&((bf_hswatch_t *)w)->failed) : 0;
}
