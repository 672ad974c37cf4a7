/* SPDX-License-Identifier: MIT */
/* bf_wire.h — fleet protocol framing: bf.Envelope (protobuf-c) over ZeroMQ.
 *
 * A message on a ROUTER socket is [routing id][envelope]; on a DEALER it is [envelope].
 * Every envelope carries the protocol major/minor; the receiver checks the major
 * (bf_wire_check_version). Buffers from the network are capped by ZMQ_MAXMSGSIZE
 * (BF_MAX_WIRE_BYTES) set in bf_wire_socket_setup. A frame that fails to unpack is returned as
 * BF_E_PROTO: callers count it and answer, never crash.
 * Not thread-safe per socket (a ZeroMQ socket is never shared between threads).
 */
#ifndef BF_WIRE_H
#define BF_WIRE_H

#include "bf_error.h"
#include "bulkfleet.pb-c.h"

#include <stddef.h>
#include <stdint.h>

#define BF_PROTO_MAJOR 1u
#define BF_PROTO_MINOR 0u
#define BF_MAX_WIRE_BYTES (256 << 20) /* Prepare carries dictionaries; cap them */
/* Files larger than the chunk size go to agents in chunks (FileBlob.chunk_sha256, FetchChunk,
 * FileChunk): the default, and the range --file-chunk-size accepts (one chunk must fit in a
 * message with room to spare). */
#define BF_FILE_CHUNK_BYTES (16u << 20)
#define BF_FILE_CHUNK_MIN 4096u
#define BF_FILE_CHUNK_MAX (128u << 20)
#define BF_MAX_ROUTE_BYTES 256
#define BF_MAX_HELLO_BYTES (64 << 10) /* an agent's Hello (it lists at most 64 cached files) */
#define BF_DEFAULT_CONTROL_PORT 7100
#define BF_DEFAULT_DATA_PORT 7101

/* bf_wire_endpoint_check — check a fleet endpoint given on the command line (`opt`, e.g.
 * "--bind", names it in the message) before anything is bound, connected or contacted:
 * "tcp://HOST:PORT" with a non-empty HOST ("*", a name, IPv4, or [IPv6]) and PORT a decimal
 * number from 1 to 65535, or to 65534 when with_next is set (the data port is PORT + 1).
 * *port_out (may be NULL) gets PORT. Pure, thread-safe. Returns BF_OK, or BF_E_INVAL with
 * diag saying what is wrong and an example ("--bind tcp://127.0.0.1:99999: port 99999 is out
 * of range ..."). */
int bf_wire_endpoint_check(const char *opt, const char *endpoint, int with_next, uint32_t *port_out,
                           bf_diag_t *diag);

/* bf_wire_socket_setup — set ZMQ_MAXMSGSIZE, ZMQ_LINGER (linger_ms) and, on ROUTER sockets,
 * ROUTER_MANDATORY and ROUTER_HANDOVER. Returns 0 or BF_E_IO. */
int bf_wire_socket_setup(void *sock, int is_router, int linger_ms);

/* bf_wire_init — initialise an envelope on the stack with this build's major/minor and a
 * fresh message id (process-wide counter, thread-safe). The body is set by the caller:
 *   Bf__Envelope env; bf_wire_init(&env); env.body_case = BF__ENVELOPE__BODY_PING; env.ping = &p;
 */
void bf_wire_init(Bf__Envelope *env);

/* bf_wire_send — pack and send. route (route_len bytes) is sent first when not NULL (ROUTER).
 * flags: 0 or ZMQ_DONTWAIT. Returns 0, BF_E_IO (errno set: EHOSTUNREACH for an unknown
 * route with ROUTER_MANDATORY, EAGAIN when the pipe is full with ZMQ_DONTWAIT). */
int bf_wire_send(void *sock, const void *route, size_t route_len, const Bf__Envelope *env,
                 int flags);

/* bf_wire_recv — receive one message. On a ROUTER (route != NULL) the routing id is copied into
 * route (cap BF_MAX_ROUTE_BYTES) and its length into *route_len. *out is the unpacked envelope
 * (caller frees with bf__envelope__free_unpacked(*out, NULL)).
 * Returns 0; BF_E_IO (errno EAGAIN when nothing with ZMQ_DONTWAIT); BF_E_PROTO when the frame
 * is not an envelope (frames consumed, *out NULL); BF_E_RANGE when it carries a Hello larger
 * than BF_MAX_HELLO_BYTES: judged from the envelope's top-level fields before anything is
 * unpacked (protobuf wire format: each field a varint key, then its value; a Hello is one
 * length-delimited field), so an oversized Hello costs no parsing. */
int bf_wire_recv(void *sock, void *route, size_t *route_len, Bf__Envelope **out, int flags);

/* bf_wire_send_pong — answer a Ping: a Pong with this host's wall clock that echoes
 * ping->wall_us (for the round trip and clock offset), sent like bf_wire_send. */
int bf_wire_send_pong(void *sock, const void *route, size_t route_len, const Bf__Ping *ping,
                      int flags);

/* bf_wire_recv_user — bf_wire_recv that also copies the ZAP User-Id of the message (the name
 * of the allow-listed key file that admitted the peer; "" without CURVE) into user_id
 * (user_id_size bytes, NUL-terminated). */
int bf_wire_recv_user(void *sock, void *route, size_t *route_len, char *user_id,
                      size_t user_id_size, Bf__Envelope **out, int flags);

/* Who sent a message, from libzmq's message properties (zmq_msg_gets). */
typedef struct bf_wire_peer {
    char user_id[128]; /* ZAP User-Id: the allow-list key file's name; "" without CURVE */
    char key_fp[32];   /* ZAP metadata "Key-Fingerprint" (bf_keys_fingerprint); "" without */
    char address[64];  /* "Peer-Address": the peer's IP address (libzmq gives no port) */
} bf_wire_peer_t;

/* bf_wire_recv_peer — bf_wire_recv that also fills *peer (NULL: not wanted). User-Id is read
 * for every message; the key fingerprint and the peer address only for a Hello, a frame that
 * is refused or a message of another protocol major (they are what a refusal names, and each
 * property lookup costs a map search on the per-sample path). Returns as bf_wire_recv. */
int bf_wire_recv_peer(void *sock, void *route, size_t *route_len, bf_wire_peer_t *peer,
                      Bf__Envelope **out, int flags);

/* bf_wire_check_version — 0 if env's major equals BF_PROTO_MAJOR, else BF_E_PROTO with the
 * reason ("protocol major 2, but this peer speaks 1.0; install the same ...") in diag (may be
 * NULL), which is also what a Reject carries. Pure; thread-safe with a diag per thread. */
int bf_wire_check_version(const Bf__Envelope *env, bf_diag_t *diag);

/* bf_wire_body_name — "Hello", "Sample", ... for logs. Static string. */
const char *bf_wire_body_name(const Bf__Envelope *env);

/* bf_wire_channel_ok — whether a message of this body may arrive on this socket: Sample and
 * SampleAck travel on the data socket, every other message on control, Hello on both (the
 * channel table of docs/internals/fleet-protocol.md). is_data: 1 for the data socket, 0 for
 * control. Returns 1 or 0; a pure function, thread-safe. */
int bf_wire_channel_ok(Bf__Envelope__BodyCase body, int is_data);

#endif
