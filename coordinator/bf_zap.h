/* SPDX-License-Identifier: MIT */
/* bf_zap.h — ZAP handler (ZeroMQ RFC 27) admitting only CURVE clients whose public key is in
 * the allow-list directory. Runs on its own thread with a REP socket on
 * inproc://zeromq.zap.01 in the coordinator's ZeroMQ context; the thread ends when the context
 * is terminated. Every refusal is logged with the key and the peer address.
 *
 * The allow-list is indexed in memory (key -> file name), so a handshake costs one hash lookup
 * and one stat() per directory, whatever the number of keys; the index is rebuilt when a
 * directory's mtime changes (a .pub file added, removed or renamed) and, at most once a second,
 * when an unknown key knocks (a .pub file edited in place). Keys can be added while running.
 */
#ifndef BF_ZAP_H
#define BF_ZAP_H

#include <stdint.h>

#define BF_ZAP_DOMAIN "bulkfleet"

typedef struct bf_zap bf_zap_t;

/* bf_zap_start — bind the handler in zctx and start its thread. allow_dir (one directory, or
 * several separated by ':') is copied.
 * Returns NULL on failure (logged). Must be started before the sockets it guards bind. */
bf_zap_t *bf_zap_start(void *zctx, const char *allow_dir);
/* bf_zap_join — wait for the thread (after zmq_ctx_term has begun) and free. NULL-safe. */
void bf_zap_join(bf_zap_t **z_p);
/* bf_zap_refused — how many handshakes were refused so far (thread-safe). */
uint64_t bf_zap_refused(bf_zap_t *z);

#endif
