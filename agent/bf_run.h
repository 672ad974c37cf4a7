/* SPDX-License-Identifier: MIT */
/* bf_run.h — one cell on one agent: its worker threads and the per-second sampler.
 *
 * Used by the agent's control thread (fleet mode) and by `bulkfleet-agent run` (standalone).
 * Not thread-safe: one owner thread calls every function; workers are internal.
 */
#ifndef BF_RUN_H
#define BF_RUN_H

#include "bf_error.h"
#include "bf_hist.h"
#include "bf_sample.h"
#include "bf_scenario.h"

#include <stdint.h>

#define BF_SAMPLE_GRACE_US 150000u /* a second is sealed this long after it ended */
/* routing table re-read this often unless request.routing_refresh says otherwise */
#define BF_ROUTES_REFRESH_MS 5000u

typedef struct bf_run bf_run_t;

typedef struct bf_run_cfg {
    const bf_scenario_t *sc;   /* borrowed; outlives the run */
    const bf_cell_t *cell;     /* borrowed */
    uint32_t threads;          /* worker threads wanted (capped at concurrency) */
    uint32_t concurrency;      /* this agent's share of bulk requests in flight */
    double target_rate;        /* this agent's share of docs/s, 0 = closed loop */
    uint32_t stream_base;      /* global stream number of this agent's first thread */
    uint32_t stream_count;     /* total streams in the fleet */
    uint32_t conn_base;        /* this agent's first bulk connection counted across the fleet
                                  (Prepare.conn_base): fleet connection j goes to
                                  target.hosts[j mod hosts] */
    uint32_t search_base;      /* the same for its search clients (Prepare.search_base) */
    uint64_t seed;
    uint64_t warmup_ms, duration_ms;
    uint32_t search_clients;   /* this agent's share of the search clients (0: none) */
    double search_rate;        /* this agent's share of search ops/s, 0 = closed loop */
    const char *const *allow_targets; /* --allow-target rules (borrowed, NULL = all): with
                                         routing_mode node|shard a node whose address is not on
                                         it is refused (its documents go to target.hosts) */
    struct bf_corpus *corpus_edit;    /* the scenario's corpus (bf_scenario_corpus_edit), which the
                                         run may rearrange for contiguous bodies (bf_corpus_interleave:
                                         only this agent's part stays readable); the caller reads it
                                         no more outside that part. NULL: left as it is */
} bf_run_cfg_t;

/* Called once per second of the cell, in order, with that second's counters (all threads
 * merged). Borrowed arguments, valid during the call. */
typedef void (*bf_run_sample_fn)(void *ctx, int32_t second, const bf_counters_t *c,
                                 const bf_hist_t *svc, const bf_hist_t *lat);

/* bf_run_new — compile the template, build the workers (connections opened lazily by curl).
 * With routing_mode node|shard it first reads the routing table of the cell's indices from
 * target.hosts[0] (bf_routetable_fetch; the indices must exist); a thread of the run refreshes
 * it every request.routing_refresh (5 s), and at once when a worker finds it stale.
 * Returns NULL with diag set on failure. Caller owns: bf_run_destroy. */
bf_run_t *bf_run_new(const bf_run_cfg_t *cfg, bf_diag_t *diag);
/* bf_run_start — t = 0 is start_mono_us (may be in the future: workers wait). 0 or BF_E_IO. */
int bf_run_start(bf_run_t *run, uint64_t start_mono_us);
/* bf_run_poll — emit every sealed second through fn. Returns 1 when the run is over (workers
 * done and every second emitted), else 0. Call at least every 200 ms. */
int bf_run_poll(bf_run_t *run, bf_run_sample_fn fn, void *ctx);
/* bf_run_abort — stop the load now (in-flight documents counted as unknown). */
void bf_run_abort(bf_run_t *run);
/* bf_run_end_load — end the load end_load_ms after the run's t = 0 instead of at its planned
 * end (never later than planned): no request starts after it, the ones in flight finish and
 * are counted as at a planned end. Thread-safe (main thread of the agent). */
void bf_run_end_load(bf_run_t *run, uint32_t end_load_ms);
/* bf_run_fatal — why the cell must fail ("" if it need not). Borrowed. */
const char *bf_run_fatal(bf_run_t *run);
/* bf_run_pack_queries — during a bf_run_sample_fn call: attach that second's named-query
 * stats (search clients, bf_search.h) to s->queries; nothing outside a call or without search
 * clients. Allocates: release with bf_run_pack_queries_cleanup before bf_sample_pack_cleanup. */
void bf_run_pack_queries(const bf_run_t *run, Bf__Sample *s);
void bf_run_pack_queries_cleanup(Bf__Sample *s);
/* bf_run_pack_errors — during a bf_run_sample_fn call: attach the documents failed by error
 * type since the previous second (bf_errtypes.h) to s->doc_errors (strings borrowed from the
 * run, valid during the call). Release with bf_run_pack_errors_cleanup before
 * bf_sample_pack_cleanup. */
void bf_run_pack_errors(const bf_run_t *run, Bf__Sample *s);
void bf_run_pack_errors_cleanup(Bf__Sample *s);
/* bf_run_corpus_done — 1 when the cell reads a corpus and every worker has read its slice
 * `passes` times (the load ended early on purpose), else 0. */
int bf_run_corpus_done(const bf_run_t *run);
/* bf_run_corpus_end_ms — with bf_run_corpus_done: ms from the synchronized start (bf_run_start)
 * to the last response of the last worker thread, rounded up (at least 1); 0 when the corpus
 * is not done. Read after every worker finished. */
uint32_t bf_run_corpus_end_ms(const bf_run_t *run);
/* bf_run_threads — worker threads actually used. */
uint32_t bf_run_threads(const bf_run_t *run);
void bf_run_destroy(bf_run_t **run_p);

#endif
