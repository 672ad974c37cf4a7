/* SPDX-License-Identifier: MIT */
/* bf_mstore.h — the metrics store writer: documents into an Elasticsearch/OpenSearch cluster
 * with _bulk, from a thread of its own, through a capped buffer, with retries.
 *
 * A store that is down, slow or rejecting never stops or slows the campaign: bf_mstore_add
 * only copies the document into the buffer (or counts it dropped when the buffer holds
 * buffer_docs already); the writer thread sends batches of at most BF_MSTORE_BATCH_DOCS
 * documents / BF_MSTORE_BATCH_BYTES, judges each response with the agent's bulk response
 * judge (bf_bulkresp_parse: the same classes as the load), sends again what was rejected (429)
 * or failed 5xx, the whole batch after a transport error, a 429/5xx status or a response that
 * is not a bulk response (outcome unknown: the ids make a resend idempotent), with back-off
 * (250 ms doubling to 5 s); documents refused for good (mapping, other 4xx) are dropped and
 * counted. Before the first batch it puts the two index templates (bf_mstore_docs_template).
 * bf_mstore_close waits up to flush_wait_ms for the buffer to empty, then counts what is left
 * as dropped. The results directory stays the source of truth (`publish` loads it again).
 * Every request has a 5 s timeout (BF_MSTORE_REQUEST_TIMEOUT_MS), so closing takes at most
 * flush_wait_ms plus one request.
 *
 * Thread-safety: bf_mstore_add, bf_mstore_add_wait and bf_mstore_stats may be called from
 * any thread; new/close from one thread.
 */
#ifndef BF_MSTORE_H
#define BF_MSTORE_H

#include "bf_error.h"
#include "bf_es.h"
#include "bf_scenario.h"

#include <stddef.h>
#include <stdint.h>

#define BF_MSTORE_BATCH_DOCS 1000
#define BF_MSTORE_BATCH_BYTES (4u << 20)
#define BF_MSTORE_REQUEST_TIMEOUT_MS 5000L
#define BF_MSTORE_BACKOFF_MAX_MS 5000u

typedef struct bf_mstore bf_mstore_t;

typedef struct bf_mstore_stats {
    uint64_t queued;          /* documents accepted into the buffer */
    uint64_t indexed;         /* acknowledged by the store (2xx item without error) */
    uint64_t dropped_full;    /* not buffered: the buffer held buffer_docs */
    uint64_t dropped_refused; /* refused for good (mapping, other 4xx item or request) */
    uint64_t dropped_unsent;  /* still buffered when close's flush_wait ran out */
    uint64_t requests;        /* _bulk requests sent */
    uint64_t retries;         /* batches or items sent again */
    char last_error[512];     /* the last failure ("" if none), host named, no secrets */
} bf_mstore_stats_t;

/* bf_mstore_dropped — dropped_full + dropped_refused + dropped_unsent. */
uint64_t bf_mstore_dropped(const bf_mstore_stats_t *s);

/* bf_mstore_new — start the writer thread for store (copied shallowly: its strings and PEM
 * data are borrowed and must outlive the writer; hosts[0] is used). buffer_docs caps the
 * buffer (0 = 50000); flush_wait_ms is what close waits for it to empty. Never touches the
 * network in the caller's thread. Every failure names the store by its URL and by where it
 * was given (store->names: metrics_store.hosts when NULL, --metrics-store URL, ...), with
 * what to do (credentials: store->names->auth; transport: bf_es_transport_hint), and is said
 * at once on stderr the first time of its kind (down, refused, items refused), with what
 * happens to the documents; a recovery after "down" is said too. Caller owns:
 * bf_mstore_close, which says when it waits for a failing store (up to flush_wait_ms). */
bf_mstore_t *bf_mstore_new(const bf_target_t *store, uint64_t buffer_docs, uint64_t flush_wait_ms);

/* bf_mstore_add — queue one document: index name, _id and JSON source (copied). Returns 0,
 * or BF_E_TOOBIG when the buffer is full (the document is counted in dropped_full). Never
 * blocks on the network. */
int bf_mstore_add(bf_mstore_t *mstore, const char *index, const char *id, const char *source);

/* bf_mstore_add_wait — like bf_mstore_add, but waits (up to timeout_ms) for room instead of
 * dropping: for `publish`, which has nothing to keep pace with. Returns 0 or BF_E_TIMEOUT
 * (counted in dropped_full). */
int bf_mstore_add_wait(bf_mstore_t *mstore, const char *index, const char *id, const char *source,
                       uint64_t timeout_ms);

/* bf_mstore_stats — the counters now (a copy). */
void bf_mstore_stats(bf_mstore_t *mstore, bf_mstore_stats_t *out);

/* bf_mstore_set_tick — while bf_mstore_close waits for the writer (the flush: up to
 * flush_wait_ms and a request), call tick(ctx) every interval_ms on the calling thread, so the
 * caller's loop (the coordinator's fleet) goes on. NULL: none (the default). ctx borrowed.
 * Call from the thread that will close. */
void bf_mstore_set_tick(bf_mstore_t *mstore, void (*tick)(void *ctx), void *ctx,
                        unsigned interval_ms);

/* bf_mstore_close — wait up to flush_wait_ms for the buffer to be sent, stop the thread, fill
 * out (may be NULL) with the final counters and free everything. NULL-safe; clears *mstore_p. */
void bf_mstore_close(bf_mstore_t **mstore_p, bf_mstore_stats_t *out);

/* bf_mstore_cluster_uuid — GET / on es: the cluster_uuid (or, when the answer has none, the
 * cluster_name) into buf. Returns 0, or BF_E_TRANSPORT / BF_E_HTTP with diag. For refusing a
 * store that is the target cluster itself. Not thread-safe for one es. */
int bf_mstore_cluster_uuid(bf_es_t *es, char *buf, size_t size, bf_diag_t *diag);

#endif
