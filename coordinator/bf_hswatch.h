/* SPDX-License-Identifier: MIT */
/* bf_hswatch.h — watches the fleet ROUTERs' handshakes and logs each refused peer with its
 * address, and peers whose connections libzmq keeps closing unread.
 *
 * A peer without CURVE keys (or with a wrong coordinator key) never reaches ZAP: its handshake
 * fails first, and libzmq's (v1) socket monitor events name only our own endpoint. So a thread
 * of its own takes each ZMQ_EVENT_ACCEPTED at once and asks the kernel for the peer of its file
 * descriptor (getpeername), keeps it by descriptor, and when a HANDSHAKE_FAILED event is
 * followed by that connection's DISCONNECTED (libzmq emits them back to back from the one I/O
 * thread that runs the connection, stream_engine_base_t::error), logs the refusal with the
 * peer's address and port, at most once every 10 s per socket with a count. A thread, because
 * the coordinator's own loop may be blocked in a cluster call for seconds, by which time the
 * descriptor is closed or reused. When the address could not be read (the connection closed
 * before the thread woke) the line says "an address that closed before it could be read".
 *
 * A message larger than the socket's ZMQ_MAXMSGSIZE (an oversize Hello) never
 * reaches the fleet either: libzmq's decoder refuses it by its size header (EMSGSIZE) and
 * closes the connection, and the monitor emits only DISCONNECTED, as for a peer that left by
 * itself (libzmq 4.3 stream_engine_base_t::error: protocol errors get no handshake event; its
 * HANDSHAKE_SUCCEEDED event carries no descriptor). So a connection closed within 1 s of its
 * accept without a failed handshake counts as a quick close of its address; 3 of them within
 * 60 s are logged, once per address (a rejected agent that exits closes once; one whose Hello
 * is dropped unread keeps trying).
 */
#ifndef BF_HSWATCH_H
#define BF_HSWATCH_H

#include <stdint.h>

typedef struct bf_hswatch bf_hswatch_t;

/* bf_hswatch_start — monitor sock (a bound ROUTER of zctx; `what` names it in logs, e.g.
 * "control"; curve: 1 when it is a CURVE server, 0 with --insecure, which words a failed
 * handshake; max_msg_bytes: its ZMQ_MAXMSGSIZE, named in the quick-close line) and start the
 * watching thread. Must be called from the thread that owns sock. Returns NULL when the
 * monitor or the thread cannot be set up (logged; the fleet works without it). Caller owns
 * the watcher: stop it with bf_hswatch_stop. */
bf_hswatch_t *bf_hswatch_start(void *zctx, void *sock, const char *what, int curve,
                               uint64_t max_msg_bytes);

/* bf_hswatch_stop — stop monitoring sock (call before closing it, from its owner thread); the
 * thread ends when zctx is terminated: call bf_hswatch_join after zmq_ctx_term has begun.
 * NULL-safe. */
void bf_hswatch_stop(bf_hswatch_t *w, void *sock);

/* bf_hswatch_join — wait for the thread (zmq_ctx_term of its context must have begun, or be
 * running in another thread) and free. NULL-safe; clears *w_p. */
void bf_hswatch_join(bf_hswatch_t **w_p);

/* bf_hswatch_failed — handshakes that failed so far (thread-safe). */
uint64_t bf_hswatch_failed(const bf_hswatch_t *w);

#endif
