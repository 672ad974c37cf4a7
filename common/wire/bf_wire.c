/* SPDX-License-Identifier: MIT */
/* bf_wire.c — protobuf-c envelopes over ZeroMQ frames. */
#include "bf_wire.h"

#include "bf_error.h"
#include "bf_mem.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

static atomic_uint_fast64_t next_msg_id = 1;

int bf_wire_endpoint_check(const char *opt, const char *endpoint, int with_next, uint32_t *port_out,
                           bf_diag_t *diag)
{
    const char *ep = endpoint ? endpoint : "";
    unsigned max = with_next ? 65534u : 65535u;
    if (strncmp(ep, "tcp://", 6) != 0)
        return bf_diag_set(diag, BF_E_INVAL,
                           "%s %s: expected tcp://HOST:PORT, such as "
                           "tcp://127.0.0.1:7100 (only tcp:// is supported)",
                           opt, ep);
    const char *host = ep + 6, *colon = strrchr(host, ':');
    if (host[0] == '[') { /* [IPv6]:PORT: the port's colon is after the ']' */
        const char *rb = strchr(host, ']');
        colon = rb && rb[1] == ':' ? rb + 1 : NULL;
    }
    if (colon == NULL || colon == host)
        return bf_diag_set(diag, BF_E_INVAL,
                           "%s %s: expected tcp://HOST:PORT, such as "
                           "tcp://127.0.0.1:7100 (%s)",
                           opt, ep, colon ? "no host before the port" : "no :PORT");
    const char *p = colon + 1;
    size_t digits = strspn(p, "0123456789");
    if (digits == 0 || p[digits] != '\0')
        return bf_diag_set(diag, BF_E_INVAL,
                           "%s %s: the port '%s' is not a number; expected "
                           "tcp://HOST:PORT with PORT from 1 to %u",
                           opt, ep, p, max);
    unsigned long port = digits > 6 ? 999999ul : strtoul(p, NULL, 10);
    if (port < 1 || port > max)
        return bf_diag_set(diag, BF_E_INVAL,
                           "%s %s: port %s is out of range: give one from 1 "
                           "to %u%s",
                           opt, ep, p, max,
                           with_next && port == 65535 ? " (the data port is the next one)" : "");
    if (port_out)
        *port_out = (uint32_t)port;
    return BF_OK;
}

int bf_wire_socket_setup(void *sock, int is_router, int linger_ms)
{
    int64_t maxsize = BF_MAX_WIRE_BYTES;
    int one = 1;
    if (zmq_setsockopt(sock, ZMQ_MAXMSGSIZE, &maxsize, sizeof maxsize) != 0)
        return BF_E_IO;
    if (zmq_setsockopt(sock, ZMQ_LINGER, &linger_ms, sizeof linger_ms) != 0)
        return BF_E_IO;
    if (is_router) {
        if (zmq_setsockopt(sock, ZMQ_ROUTER_MANDATORY, &one, sizeof one) != 0)
            return BF_E_IO;
        if (zmq_setsockopt(sock, ZMQ_ROUTER_HANDOVER, &one, sizeof one) != 0)
            return BF_E_IO;
    }
    return BF_OK;
}

void bf_wire_init(Bf__Envelope *env)
{
    bf__envelope__init(env);
    env->major = BF_PROTO_MAJOR;
    env->minor = BF_PROTO_MINOR;
    env->msg_id = atomic_fetch_add(&next_msg_id, 1);
}

int bf_wire_send(void *sock, const void *route, size_t route_len, const Bf__Envelope *env,
                 int flags)
{
    size_t n = bf__envelope__get_packed_size(env);
    uint8_t stackbuf[4096];
    uint8_t *buf = n <= sizeof stackbuf ? stackbuf : bf_malloc(n);
    bf__envelope__pack(env, buf);
    int rc = BF_OK;
    if (route != NULL && zmq_send(sock, route, route_len, ZMQ_SNDMORE | flags) < 0) {
        rc = BF_E_IO;
        goto done;
    }
    if (zmq_send(sock, buf, n, flags) < 0)
        rc = BF_E_IO;
done:
    if (buf != stackbuf) {
        int saved = errno;
        free(buf);
        errno = saved;
    }
    return rc;
}

/* Drains the rest of a multipart message so the next recv starts at a message boundary. */
static void drain_more(void *sock)
{
    int more = 0;
    size_t sz = sizeof more;
    while (zmq_getsockopt(sock, ZMQ_RCVMORE, &more, &sz) == 0 && more) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        zmq_msg_recv(&m, sock, 0);
        zmq_msg_close(&m);
        sz = sizeof more;
    }
}

int bf_wire_recv(void *sock, void *route, size_t *route_len, Bf__Envelope **out, int flags)
{
    return bf_wire_recv_user(sock, route, route_len, NULL, 0, out, flags);
}

static int read_varint(const uint8_t *p, size_t n, size_t *pos, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64 && *pos < n; shift += 7) {
        uint8_t b = p[(*pos)++];
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return 0;
    }
    return -1;
}

/* 1 when the envelope's Hello (field 10) is longer than BF_MAX_HELLO_BYTES; walks only the
 * top-level fields (a handful), skipping each value by its length */
static int hello_too_big(const uint8_t *p, size_t n)
{
    size_t pos = 0;
    while (pos < n) {
        uint64_t key, len;
        if (read_varint(p, n, &pos, &key) != 0)
            return 0;
        switch (key & 7) {
        case 0:
            if (read_varint(p, n, &pos, &len) != 0)
                return 0;
            break;
        case 1: pos += 8; break;
        case 5: pos += 4; break;
        case 2:
            if (read_varint(p, n, &pos, &len) != 0 || len > n - pos)
                return 0; /* malformed: unpacking says so */
            if ((key >> 3) == 10 && len > BF_MAX_HELLO_BYTES)
                return 1;
            pos += (size_t)len;
            break;
        default: return 0;
        }
    }
    return 0;
}

/* the property `name` of msg into out (out_size bytes, "" when absent) */
static void copy_prop(zmq_msg_t *msg, const char *name, char *out, size_t out_size)
{
    const char *v = zmq_msg_gets(msg, name);
    snprintf(out, out_size, "%s", v ? v : "");
}

int bf_wire_recv_peer(void *sock, void *route, size_t *route_len, bf_wire_peer_t *peer,
                      Bf__Envelope **out, int flags)
{
    *out = NULL;
    if (peer)
        memset(peer, 0, sizeof *peer);
    if (route != NULL) {
        int n = zmq_recv(sock, route, BF_MAX_ROUTE_BYTES, flags);
        if (n < 0)
            return BF_E_IO;
        *route_len = (size_t)n > BF_MAX_ROUTE_BYTES ? BF_MAX_ROUTE_BYTES : (size_t)n;
        int more = 0;
        size_t sz = sizeof more;
        zmq_getsockopt(sock, ZMQ_RCVMORE, &more, &sz);
        if (!more)
            return BF_E_PROTO;
        flags = 0; /* the rest of a multipart message is already here */
    }
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, sock, flags) < 0) {
        zmq_msg_close(&msg);
        return BF_E_IO;
    }
    drain_more(sock);
    if (peer)
        copy_prop(&msg, "User-Id", peer->user_id, sizeof peer->user_id);
    int too_big = hello_too_big(zmq_msg_data(&msg), zmq_msg_size(&msg));
    if (!too_big)
        *out = bf__envelope__unpack(NULL, zmq_msg_size(&msg), zmq_msg_data(&msg));
    /* the address for what may be refused and logged: a Hello, an unreadable message, one of
     * another protocol major (it was "refused a peer from ?") */
    if (peer && (*out == NULL || (*out)->body_case == BF__ENVELOPE__BODY_HELLO ||
                 (*out)->major != BF_PROTO_MAJOR)) {
        copy_prop(&msg, "Key-Fingerprint", peer->key_fp, sizeof peer->key_fp);
        copy_prop(&msg, "Peer-Address", peer->address, sizeof peer->address);
    }
    if (too_big) {
        zmq_msg_close(&msg);
        return BF_E_RANGE;
    }
    zmq_msg_close(&msg);
    return *out ? BF_OK : BF_E_PROTO;
}

int bf_wire_recv_user(void *sock, void *route, size_t *route_len, char *user_id,
                      size_t user_id_size, Bf__Envelope **out, int flags)
{
    if (user_id == NULL || user_id_size == 0)
        return bf_wire_recv_peer(sock, route, route_len, NULL, out, flags);
    bf_wire_peer_t peer;
    int rc = bf_wire_recv_peer(sock, route, route_len, &peer, out, flags);
    snprintf(user_id, user_id_size, "%s", peer.user_id);
    return rc;
}

int bf_wire_send_pong(void *sock, const void *route, size_t route_len, const Bf__Ping *ping,
                      int flags)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    Bf__Pong pong = BF__PONG__INIT;
    pong.wall_us = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
    pong.echo_wall_us = ping ? ping->wall_us : 0;
    Bf__Envelope env;
    bf_wire_init(&env);
    env.body_case = BF__ENVELOPE__BODY_PONG;
    env.pong = &pong;
    return bf_wire_send(sock, route, route_len, &env, flags);
}

int bf_wire_check_version(const Bf__Envelope *env, bf_diag_t *diag)
{
    if (env->major == BF_PROTO_MAJOR)
        return BF_OK;
    return bf_diag_set(diag, BF_E_PROTO,
                       "protocol major %u, but this peer speaks %u.%u; install the same bulkfleet "
                       "major version on the coordinator and every agent",
                       env->major, BF_PROTO_MAJOR, BF_PROTO_MINOR);
}

const char *bf_wire_body_name(const Bf__Envelope *env)
{
    switch (env->body_case) {
    case BF__ENVELOPE__BODY_HELLO: return "Hello";
    case BF__ENVELOPE__BODY_WELCOME: return "Welcome";
    case BF__ENVELOPE__BODY_REJECT: return "Reject";
    case BF__ENVELOPE__BODY_PREPARE: return "Prepare";
    case BF__ENVELOPE__BODY_READY: return "Ready";
    case BF__ENVELOPE__BODY_FAILED: return "Failed";
    case BF__ENVELOPE__BODY_START: return "Start";
    case BF__ENVELOPE__BODY_SAMPLE: return "Sample";
    case BF__ENVELOPE__BODY_SAMPLE_ACK: return "SampleAck";
    case BF__ENVELOPE__BODY_STOP: return "Stop";
    case BF__ENVELOPE__BODY_DONE: return "Done";
    case BF__ENVELOPE__BODY_PING: return "Ping";
    case BF__ENVELOPE__BODY_PONG: return "Pong";
    case BF__ENVELOPE__BODY_ACK: return "Ack";
    case BF__ENVELOPE__BODY_FETCH_CHUNK: return "FetchChunk";
    case BF__ENVELOPE__BODY_FILE_CHUNK: return "FileChunk";
    case BF__ENVELOPE__BODY__NOT_SET: return "(empty)";
    case _BF__ENVELOPE__BODY__CASE_IS_INT_SIZE: break;
    }
    return "(unknown)";
}

int bf_wire_channel_ok(Bf__Envelope__BodyCase body, int is_data)
{
    switch (body) {
    case BF__ENVELOPE__BODY_HELLO: return 1;
    case BF__ENVELOPE__BODY_SAMPLE:
    case BF__ENVELOPE__BODY_SAMPLE_ACK: return is_data != 0;
    case BF__ENVELOPE__BODY_WELCOME:
    case BF__ENVELOPE__BODY_REJECT:
    case BF__ENVELOPE__BODY_PREPARE:
    case BF__ENVELOPE__BODY_READY:
    case BF__ENVELOPE__BODY_FAILED:
    case BF__ENVELOPE__BODY_START:
    case BF__ENVELOPE__BODY_STOP:
    case BF__ENVELOPE__BODY_DONE:
    case BF__ENVELOPE__BODY_PING:
    case BF__ENVELOPE__BODY_PONG:
    case BF__ENVELOPE__BODY_ACK:
    case BF__ENVELOPE__BODY_FETCH_CHUNK:
    case BF__ENVELOPE__BODY_FILE_CHUNK: return is_data == 0;
    case BF__ENVELOPE__BODY__NOT_SET:
    case _BF__ENVELOPE__BODY__CASE_IS_INT_SIZE: break;
    }
    return 0;
}
