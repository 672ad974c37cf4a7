/* SPDX-License-Identifier: MIT */
/* bf_search.h — the search clients of one cell on one agent: named queries sent beside the
 * bulk load, counted per query into per-second buckets.
 *
 * One thread runs a libcurl multi loop over `clients` connections (each client has at most
 * one request in flight). Closed loop (target_rate 0): a client sends its next query as soon
 * as the last one answered. Open loop: queries are due every 1/target_rate s from t = 0; a
 * due query waits for a free client and its latency is measured from when it was due, so a
 * slow cluster is not hidden (coordinated omission, as wrk2 and the bulk workers do). The
 * query of each request is drawn by weight (search.queries[].weight / sum) from this stream's
 * RNG, except a client's first, which is query (client index mod queries) so that with as many
 * clients as queries each is measured from the start; bodies are rendered from their templates
 * with their own generator. A paged query (paging.by from | search_after) is a sequence of
 * pages sent back to back by one client, each page one request in the query's counts: with
 * search_after each page starts after the previous page's last sort values, inside a point in
 * time (POST /<index>/_search/point_in_time, then /_search with "pit", DELETE at the end; not
 * counted) when paging.pit is true and the cluster has the API (else without one).
 * With profile: true, request 0, 8, 16, ... of a query (pages included) carry "profile": true
 * and are counted like the others (their service time includes the profiling overhead); the
 * slowest profiled answer of each second is summarised (bf_qstats_profile_parse) and sent with
 * that second's query stats, so the coordinator keeps the slowest of the cell.
 *
 * Time axis as bf_worker.h: second = floor((response completion - start) / 1 s), written
 * under the module's lock with the clock read inside it; the sampler calls
 * bf_search_collect once a second has been sealed. No request starts after load_ms.
 * An _msearch query (bf_query_spec_t.msearch) is one request of several searches: its body
 * (bf_tmpl_compile_ndjson_body, header/body line pairs) goes as application/x-ndjson, ops_sent
 * grows by the number of pairs, each item of the answer's responses[] is judged on its own
 * (bf_qstats_parse_msearch: answered, or an error of its own type) and each search records the
 * request's service time and latency; a whole request that fails counts every search in it as
 * failed. An item answered 400/401/403/404/405 fails the cell like a bad single search.
 * An answer that says the query itself is wrong (HTTP 400, 401, 403, 404, 405: a syntax error,
 * a missing index, no permission) makes the cell fail at once: bf_search_fatal names the
 * query, the request and the cluster's error type and reason.
 */
#ifndef BF_SEARCH_H
#define BF_SEARCH_H

#include "bf_error.h"
#include "bf_qstats.h"
#include "bf_scenario.h"
#include "bf_template.h"

#include <stdint.h>

#define BF_MAX_SEARCH_RESPONSE_BYTES (16u << 20) /* a longer answer counts as an error */
#define BF_PROFILE_EVERY                                                                           \
    8u /* profile: true on 1 request in this many of a query (the first                            \
          included); the slowest profiled answer per cell is kept */

typedef struct bf_search bf_search_t;

typedef struct bf_search_cfg {
    const bf_scenario_t *sc;   /* borrowed; outlives the search clients */
    const bf_cell_t *cell;     /* borrowed */
    uint32_t clients;          /* connections (requests in flight at most), >= 1 */
    uint32_t host_base;        /* client i talks to host (host_base + i) mod nhosts */
    double target_rate;        /* ops/s for this agent, 0 = closed loop */
    bf_partition_t part;       /* RNG seed and stream of this agent's search thread */
    uint64_t start_mono_us;    /* t = 0 of the cell (bf_search_start may set it) */
    uint64_t load_ms;          /* warmup + duration: no request starts after this */
} bf_search_cfg_t;

/* bf_search_new — compile the query bodies, build the curl handles; no thread yet. Returns
 * NULL and fills diag (BF_E_INVAL: a body that does not compile) on failure. The scenario must
 * have a search section with at least one query. Caller owns: bf_search_destroy. */
bf_search_t *bf_search_new(const bf_search_cfg_t *cfg, bf_diag_t *diag);
/* bf_search_start — start the thread with t = 0 at start_mono_us (it sleeps until then).
 * 0 or BF_E_IO. */
int bf_search_start(bf_search_t *s, uint64_t start_mono_us);
/* bf_search_abort — stop now; requests in flight are abandoned (counted as errors of type
 * "aborted"). Thread-safe. */
void bf_search_abort(bf_search_t *s);
/* bf_search_end_load — no query starts from now on, as if the load time had ended: a cell
 * whose bulk load has read its whole corpus (passes) ends there, and the searches beside it
 * with it (as a parallel block of Rally's ends with its bulk task, docs/scenario.md "End of
 * the corpus"); a page sequence ends after its page in flight, and what is in flight is
 * answered and counted. Thread-safe, idempotent. */
void bf_search_end_load(bf_search_t *s);
/* bf_search_end_load_at — the load ends end_load_ms after the start when that is before its
 * planned end: no query starts after it, the ones in flight finish and count. Thread-safe. */
void bf_search_end_load_at(bf_search_t *s, uint32_t end_load_ms);
/* bf_search_finished — 1 when the thread has ended (or never started). Thread-safe. */
int bf_search_finished(bf_search_t *s);
/* bf_search_query_count — number of named queries (the length of the arrays below). */
size_t bf_search_query_count(const bf_search_t *s);
/* bf_search_collect — add bucket `second` of every query into q[0 .. query_count) (each
 * bf_qstats_init'ed by the caller) and clear it. Returns 1 if the bucket had data, else 0.
 * Thread-safe against the search thread. */
int bf_search_collect(bf_search_t *s, int32_t second, bf_qstats_t *q);
/* bf_search_last_second — highest second written so far, -1 if none. Thread-safe. */
int32_t bf_search_last_second(bf_search_t *s);
/* bf_search_inflight — requests in flight now. Thread-safe. */
uint32_t bf_search_inflight(bf_search_t *s);
/* bf_search_fatal — non-empty when the cell must fail, with the query's name, the request
 * and the cluster's reason. Borrowed; valid until destroy. Thread-safe once set (set once). */
const char *bf_search_fatal(bf_search_t *s);
/* bf_search_destroy — abort if running, join, free; NULL-safe; clears *s_p. */
void bf_search_destroy(bf_search_t **s_p);

#endif
