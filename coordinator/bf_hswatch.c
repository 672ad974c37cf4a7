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
/* a connection closed this soon after its accept, with no failed handshake, is a quick close;
 * QUICK_N of them from one address within QUICK_WINDOW_US are logged, once per address */
#define BF_HSWATCH_QUICK_US 1000000u
#define BF_HSWATCH_QUICK_N 3u
#define BF_HSWATCH_QUICK_WINDOW_US 60000000u
#define BF_HSWATCH_QUICK_PEERS 256 /* addresses remembered for that (the oldest unlogged goes) */

typedef struct conn {
    char addr[64];        /* "ip:port" of the connection accepted on this descriptor, or "" */
    uint64_t accepted_us; /* when the thread saw it accepted (0: not seen) */
} conn;

typedef struct quick_peer {
    char ip[48];       /* "" = free */
    uint32_t n;        /* quick closes since first_us */
    uint64_t first_us; /* the first of them */
    int logged;        /* logged once: never again */
} quick_peer;

struct bf_hswatch {
    void *pair; /* our end of the monitor (owned by the thread once it runs) */
    char what[16];
    int curve;              /* the socket is a CURVE server (else plain ZMTP, --insecure) */
    uint64_t max_msg_bytes; /* its ZMQ_MAXMSGSIZE, for the quick-close line */
    pthread_t thread;
    atomic_uint_fast64_t failed;
    conn *peer; /* by descriptor */
    size_t npeer;
    quick_peer quick[BF_HSWATCH_QUICK_PEERS];
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

static conn *slot(bf_hswatch_t *w, uint32_t fd)
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
    return &w->peer[fd];
}

/* A connection from addr ("ip:port") closed quickly: counted for its address, and logged
 * once per address when BF_HSWATCH_QUICK_N came within BF_HSWATCH_QUICK_WINDOW_US. libzmq
 * closes a connection whose message exceeds ZMQ_MAXMSGSIZE in its decoder (v2_decoder_t::
 * size_ready, EMSGSIZE) before anything reaches the socket, and its monitor then emits only
 * DISCONNECTED, the event of a peer that went away by itself: the repetition is what tells. */
static void quick_close(bf_hswatch_t *w, const char *addr, uint64_t now, uint64_t lived_us)
{
    char ip[48];
    const char *colon = strrchr(addr, ':');
    size_t n = colon ? (size_t)(colon - addr) : strlen(addr);
    if (n >= sizeof ip)
        n = sizeof ip - 1;
    memcpy(ip, addr, n);
    ip[n] = '\0';
    quick_peer *q = NULL, *victim = NULL;
    for (size_t i = 0; i < BF_HSWATCH_QUICK_PEERS && q == NULL; i++) {
        quick_peer *c = &w->quick[i];
        if (strcmp(c->ip, ip) == 0)
            q = c;
        else if (!c->logged && (victim == NULL || c->ip[0] == '\0' ||
                                (victim->ip[0] && c->first_us < victim->first_us)))
            victim = c;
    }
    if (q == NULL) {
        if (victim == NULL)
            return; /* every slot holds a logged address: no room to count a new one */
        q = victim;
        memset(q, 0, sizeof *q);
        snprintf(q->ip, sizeof q->ip, "%s", ip);
    }
    if (q->logged)
        return;
    if (q->n == 0 || now - q->first_us > BF_HSWATCH_QUICK_WINDOW_US) {
        q->n = 0;
        q->first_us = now;
    }
    if (++q->n < BF_HSWATCH_QUICK_N)
        return;
    q->logged = 1;
    bf_warn("connections to the %s socket from %s keep closing right after they open (%u in "
            "%.1f s, the last %.0f ms after its accept, none with a failed handshake): libzmq "
            "closes a connection whose message is larger than the %llu MiB cap without telling "
            "the coordinator (a bulkfleet agent's Hello is at most 64 KiB: a peer of another "
            "kind, or a broken one), or the peer exits at once each time (refused and restarted "
            "in a loop?); logged once per address",
            w->what, addr, q->n, (double)(now - q->first_us) / 1e6, (double)lived_us / 1e3,
            (unsigned long long)(w->max_msg_bytes >> 20));
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
        conn *cn;
        char *p;
        uint64_t now = bf_clock_mono_us();
        switch (event) {
        case ZMQ_EVENT_ACCEPTED:
            cn = slot(w, value);
            if (cn) {
                peer_of((int)value, cn->addr, sizeof cn->addr);
                cn->accepted_us = now;
            }
            break;
        case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
        case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
        case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH: failed_event = event; break;
        case ZMQ_EVENT_DISCONNECTED:
            cn = slot(w, value);
            p = cn ? cn->addr : NULL;
            if (!failed_event && p && p[0] && cn->accepted_us &&
                now - cn->accepted_us < BF_HSWATCH_QUICK_US)
                quick_close(w, p, now, now - cn->accepted_us);
            if (failed_event) {
                uint64_t n = atomic_fetch_add(&w->failed, 1) + 1;
                since_log++;
                int known = p && p[0];
                /* a line naming the peer at most every 10 s; one without (the connection
                 * closed before the thread woke) only when no named line was due either, so
                 * a lost race does not hide the next attempt's address for 10 s */
                int due = known
                              ? logged_us == 0 || now - logged_us > BF_HSWATCH_LOG_EVERY_US
                              : (logged_us == 0 || now - logged_us > BF_HSWATCH_LOG_EVERY_US) &&
                                    (unknown_us == 0 || now - unknown_us > BF_HSWATCH_LOG_EVERY_US);
                if (due && w->curve) {
                    bf_warn("refused a connection to the %s socket from %s: its CURVE handshake "
                            "failed (%s); an agent needs --keys DIR with coordinator.pub and "
                            "its key in the allow-list (%llu refused so far, %llu since the "
                            "last line)",
                            w->what, known ? p : "an address that closed before it could be read",
                            failed_event == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH
                                ? "key not admitted"
                                : "no CURVE keys, or a wrong coordinator key",
                            (unsigned long long)n, (unsigned long long)since_log);
                } else if (due) {
                    bf_warn("refused a connection to the %s socket from %s: its ZMTP handshake "
                            "failed (not a ZeroMQ peer, e.g. a port scanner or an HTTP client; "
                            "or an agent with CURVE keys: this coordinator runs --insecure) "
                            "(%llu refused so far, %llu since the last line)",
                            w->what, known ? p : "an address that closed before it could be read",
                            (unsigned long long)n, (unsigned long long)since_log);
                }
                if (due) {
                    if (known)
                        logged_us = now;
                    else
                        unknown_us = now;
                    since_log = 0;
                }
            }
            failed_event = 0;
            if (cn) {
                cn->addr[0] = '\0';
                cn->accepted_us = 0;
            }
            break;
        default: break;
        }
    }
    zmq_close(w->pair);
    return NULL;
}

bf_hswatch_t *bf_hswatch_start(void *zctx, void *sock, const char *what, int curve,
                               uint64_t max_msg_bytes)
{
    static atomic_uint n_watch;
    bf_hswatch_t *w = bf_calloc(1, sizeof *w);
    snprintf(w->what, sizeof w->what, "%s", what);
    w->curve = curve;
    w->max_msg_bytes = max_msg_bytes;
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
