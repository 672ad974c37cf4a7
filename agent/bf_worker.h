/* SPDX-License-Identifier: MIT */
/* bf_worker.h — one load thread: a libcurl multi loop keeping its share of bulk requests in
 * flight, counting every outcome into per-second buckets.
 *
 * Time axis (docs/internals/measurement.md): second = floor((t - start) / 1 s) on this host's
 * monotonic clock. A request's documents (sent, each verdict) and bytes are booked pro rata over
 * the seconds it was in flight, from the send to the response (bf_worker.c spread_docs); its
 * request counters, service time and latency in the second it completed. So a second stays open
 * while a request sent in it is in flight (bf_worker_open_second); the sampler collects a second
 * only once it has ended and is no longer open. Buckets are written under the worker's mutex, the
 * clock taken inside the lock, so once the sampler has collected second s no write for s can
 * follow. The sampler (agent control thread) calls bf_worker_collect.
 *
 * routing_mode node|shard (bf_reshuffle): each of the `connections` bulk requests in flight is
 * a group of sub-bulks. A bulk of batch_size documents is rendered, split by primary node (or
 * shard) and its parts are sent at once, each to its node's HTTP address; the group takes a new
 * bulk when all its parts are answered. So concurrency and batch size mean what they mean in
 * routing_mode none (documents in flight are the same); a sub-bulk is one HTTP request, and
 * service time is per sub-bulk.
 */
#ifndef BF_WORKER_H
#define BF_WORKER_H

#include "bf_errtypes.h"
#include "bf_hist.h"
#include "bf_reshuffle.h"
#include "bf_sample.h"
#include "bf_scenario.h"
#include "bf_template.h"

#include <stdint.h>

typedef struct bf_worker bf_worker_t;

typedef struct bf_worker_cfg {
    const bf_scenario_t *sc;   /* borrowed; outlives the worker */
    const bf_cell_t *cell;     /* borrowed */
    const bf_tmpl_t *tmpl;     /* borrowed */
    uint32_t thread_index;     /* within this agent */
    uint32_t connections;      /* bulk requests in flight, >= 1 */
    uint32_t conn_base;        /* this worker's first connection counted across the agent's
                                  threads (and agents): connection i goes to host
                                  (conn_base + i) mod nhosts */
    size_t body_bytes_est;     /* expected uncompressed body bytes (sizes curl's upload
                                  buffer); 0 = unknown */
    double target_rate;        /* docs/s for this worker, 0 = closed loop */
    bf_partition_t part;       /* ids, sequences and seed */
    uint64_t start_mono_us;    /* t = 0 of the cell */
    uint64_t load_ms;          /* warmup + duration: no request starts after this */
    bf_rt_holder_t *routes;    /* routing_mode node|shard: the run's routing table (borrowed;
                                  current != NULL), else NULL */
    const bf_corpus_t *corpus; /* document.corpus: documents copied from it (borrowed), or NULL
                                  for the template's */
    bf_corpus_cursor_t cursor; /* this worker's slice of the corpus (its keep[] borrowed) */
    int contiguous;            /* corpus interleaved for this cell (bf_corpus_interleave with
                                  bf_tmpl_corpus_bulk_head): bodies are ranges of its text */
} bf_worker_cfg_t;

/* bf_worker_new — build the worker (curl handles, generator, buffers); no thread yet.
 * Returns NULL and fills diag on failure. Caller owns: bf_worker_destroy. */
bf_worker_t *bf_worker_new(const bf_worker_cfg_t *cfg, bf_diag_t *diag);
/* bf_worker_start — start the thread (it sleeps until start_mono_us). 0 or BF_E_IO. */
int bf_worker_start(bf_worker_t *w);
/* bf_worker_abort — ask the thread to stop now; in-flight requests are abandoned and their
 * documents counted as unknown. Thread-safe, async-signal-unsafe. */
void bf_worker_abort(bf_worker_t *w);
/* bf_worker_end_load — the load ends end_load_ms after start_mono_us when that is before its
 * planned end (cfg.load_ms): no request starts after it, in-flight ones finish and count.
 * Thread-safe. */
void bf_worker_end_load(bf_worker_t *w, uint32_t end_load_ms);
/* bf_worker_finished — 1 when the thread has ended (load time over, or its corpus slice read
 * `passes` times, and nothing in flight; or aborted). Thread-safe. */
int bf_worker_finished(bf_worker_t *w);
/* bf_worker_corpus_done — 1 once the worker has read its corpus slice `passes` times (it
 * starts no more requests). Read after the worker finished (bf_worker_finished). */
int bf_worker_corpus_done(const bf_worker_t *w);
/* bf_worker_corpus_end_us — with bf_worker_corpus_done: the monotonic time (us, bf_clock_mono_us)
 * at which the thread's last response of the cell came, nothing left in flight; 0 when the
 * corpus is not done or the thread has not finished. Read after bf_worker_finished. */
uint64_t bf_worker_corpus_end_us(const bf_worker_t *w);
/* bf_worker_inflight — requests in flight now. Thread-safe. */
uint32_t bf_worker_inflight(bf_worker_t *w);
/* bf_worker_collect — add bucket `second` (if any data) into c/svc/lat and clear it.
 * Returns 1 if the bucket had data, else 0. Thread-safe against the worker. */
int bf_worker_collect(bf_worker_t *w, int32_t second, bf_counters_t *c, bf_hist_t *svc,
                      bf_hist_t *lat);
/* bf_worker_collect_errors — add the documents failed by error type since the last call
 * (bf_errtypes.h says what counts) into dst and clear them. Thread-safe against the worker. */
void bf_worker_collect_errors(bf_worker_t *w, bf_errtypes_t *dst);
/* bf_worker_open_second — the lowest second a request still in flight was sent in, or
 * INT32_MAX when none is in flight: seconds from it on may still get documents (pro rata), so
 * the sampler must not collect them yet. Thread-safe. */
int32_t bf_worker_open_second(bf_worker_t *w);
/* bf_worker_last_second — highest second written so far, -1 if none. Thread-safe. */
int32_t bf_worker_last_second(bf_worker_t *w);
/* bf_worker_fatal — non-empty when the cell must fail (401/403, 404, 413, an index block,
 * a body that cannot be built), with the reason and what to do.
 * Borrowed; valid until destroy. Thread-safe once set (set once). */
const char *bf_worker_fatal(bf_worker_t *w);
/* bf__worker_set_start — directory-internal: set t = 0 (start_mono_us) before
 * bf_worker_start, once the Start barrier is known. */
void bf__worker_set_start(bf_worker_t *w, uint64_t start_mono_us);
/* bf_worker_destroy — abort if running, join, free; NULL-safe; clears *w_p. */
void bf_worker_destroy(bf_worker_t **w_p);

#endif
