/* SPDX-License-Identifier: MIT */
/* bf_telemetry.h — what the cluster itself says during a cell, sampled once a second.
 *
 * The coordinator asks the target cluster, every second of a cell, for the write thread pool
 * and indexing counters of every node (GET /_nodes/stats/indices,thread_pool/indexing with a
 * filter_path), and for the primaries' index_total of the cell's indices
 * (GET /<indices>/_stats/indexing). Per cell it derives (docs/internals/measurement.md, "cluster
 * side"):
 *
 *   write_queue_max     the highest write-pool queue any node showed in the measurement window
 *   write_rejected      Σ over nodes of the write-pool `rejected` delta over the window
 *   hot_spot_ratio      busiest data node's indexing rate ÷ mean over data nodes (1.0 = even;
 *                       3.0 on 3 nodes = one node did all the work)
 *   cluster_docs_per_s  Δ primaries.indexing.index_total ÷ Δt over the window: the cluster's own
 *                       docs/s, a cross-check of the agents' number
 *   transport_rx/tx_bytes  Σ over nodes of Δ transport rx/tx_size_in_bytes over the window: what
 *                       the nodes sent each other (routing_mode node saves the forwarding part)
 *
 * and keeps the whole per-second series for telemetry/<cell>.ndjson (format below).
 * API facts (docs/internals/es-api.md §3): counters are cumulative since node start (deltas only;
 * a counter going down means a restart); the pool is `write` (ES 7/8/9, OS 1/2/3), `bulk` on
 * ES <= 6.2; ES >= 9.1 adds `write_coordination`, whose rejections are added to write_rejected.
 *
 * Threading — why a thread and not a short timeout in the fleet loop: the moments telemetry
 * matters most are when the cluster is saturated, and that is exactly when _nodes/stats gets
 * slow (hundreds of ms to seconds on a busy cluster with many shards). A short timeout in the
 * fleet loop would either drop those samples or stall the loop that writes and acknowledges
 * agent samples and answers heartbeats. So each cell's sampling runs on its own thread that
 * owns its own bf_es_t (its own curl easy handle), with a generous per-request timeout
 * (BF_TELEMETRY_TIMEOUT_MS); ticks that a slow answer overran are skipped, not queued. The
 * thread shares nothing with the fleet loop while it runs except a stop flag under a mutex;
 * its data is read only after bf_telemetry_stop() joined it.
 *
 * Time: t = 0 is the cell's synchronized start (the coordinator's estimate of it on the
 * monotonic clock). Ticks are aligned to whole seconds of t; each tick is stamped with the
 * midpoint of its request. The window [W, W+D) is taken between the ticks nearest to W and to
 * W+D, and rates divide by the actual time between those two ticks.
 *
 * telemetry/<cell>.ndjson, one JSON object a line:
 *   {"type":"info","distribution":..,"version":..,"compat_mode":bool,"indices":"a,b",
 *    "warmup_s":W,"duration_s":D,"planned_duration_s":P,"interval_ms":1000}
 *    (D is the window used: P, or fewer seconds after bf_telemetry_stop_at)
 *   {"type":"tick","t_ms":-980,"second":-1,"primaries_index_total":N|null,"nodes":[{"id","name",
 *    "data":bool,"queue","active","rejected","rejected_delta","index_total","index_time_ms",
 *    "index_docs_per_s","wc_queue","wc_rejected"}]}          (or "error":"..." instead of nodes)
 *   {"type":"node","id","name","data","write_queue_max","write_rejected","index_docs_per_s",
 *    "write_completed","transport_rx_bytes","transport_tx_bytes"}   (deltas over the window;
 *    write_completed: shard-level bulk operations the node executed)
 *   {"type":"summary","write_queue_max","write_rejected","hot_spot_ratio","cluster_docs_per_s",
 *    "transport_rx_bytes","transport_tx_bytes",
 *    "ticks","ticks_failed","window_from_ms","window_to_ms"}
 * t_ms is the tick's time in milliseconds since t = 0; second = floor(t_ms / 1000), the bucket
 * it shares with the agents' per-second samples.
 * Numbers that are unknown are JSON null.
 */
#ifndef BF_TELEMETRY_H
#define BF_TELEMETRY_H

#include "bf_buf.h"
#include "bf_error.h"
#include "bf_scenario.h"

#include <stddef.h>
#include <stdint.h>

#define BF_TELEMETRY_TIMEOUT_MS 3000L  /* one REST call; a slower answer skips ticks */
#define BF_TELEMETRY_INTERVAL_MS 1000u
#define BF_MAX_TELEMETRY_NODES 1000u   /* nodes kept per tick; more are ignored (and counted) */
#define BF_MAX_TELEMETRY_TICKS 100000u /* ticks kept per cell (> a day of seconds) */
#define BF_MAX_TELEMETRY_URL 3500u     /* longer index lists skip the primaries request */

/* Who the cluster is, from GET / (docs/internals/es-api.md §3.1). */
typedef struct bf_product {
    char distribution[32]; /* "elasticsearch" or "opensearch" */
    char version[32];      /* "8.12.2"; for OpenSearch in compatibility mode the real version
                              when it could be read from _nodes, else "7.10.2" */
    int major, minor;      /* from version; 0 when unknown */
    int compat_mode;       /* OpenSearch answering GET / as Elasticsearch 7.10.2 */
    char flavor[32];       /* ES build_flavor ("default", "oss", "serverless") or "" */
} bf_product_t;

/* One node in one _nodes/stats answer. -1 = the field was absent. */
typedef struct bf_node_stats {
    char id[64];
    char name[128];
    int data;              /* has a data role (or roles were not reported) */
    int64_t ts_ms;         /* the node's own timestamp */
    int64_t queue, active, rejected;   /* write pool ("bulk" on old versions) */
    int64_t wc_queue, wc_rejected;     /* write_coordination pool (ES >= 9.1) */
    int64_t index_total, index_time_ms;
    int64_t write_completed;            /* write pool tasks done (shard-level bulk operations) */
    int64_t transport_rx, transport_tx; /* transport bytes received / sent (inter-node) */
} bf_node_stats_t;

/* The cell summary that goes into the results row. */
typedef struct bf_telemetry_summary {
    int64_t write_queue_max;   /* -1 when no tick in the window answered */
    int64_t write_rejected;    /* -1 when unknown */
    double hot_spot_ratio;     /* NAN when unknown (no indexing, or < 1 data node) */
    double cluster_docs_per_s; /* NAN when unknown */
    int64_t transport_rx_bytes; /* Σ over nodes of the transport rx_size_in_bytes delta over the
                                   window: inter-node traffic (documents forwarded to their
                                   primaries, replication, cluster chatter); -1 when unknown */
    int64_t transport_tx_bytes;
    uint32_t ticks, ticks_failed;
} bf_telemetry_summary_t;

typedef struct bf_telemetry bf_telemetry_t;

/* bf_telemetry_parse_product — read a GET / body. Detection as in docs/internals/es-api.md §3.1:
 * version.distribution == "opensearch" → OpenSearch; else a tagline mentioning OpenSearch, or
 * number 7.10.2 without build_flavor → OpenSearch in compatibility mode; else Elasticsearch.
 * Returns 0 or BF_E_PARSE (not JSON, or no version.number). Pure; thread-safe. */
int bf_telemetry_parse_product(const char *body, bf_product_t *out);

/* bf_telemetry_parse_nodes — read a _nodes/stats body into *nodes (caller frees with free()),
 * sorted by node name, at most BF_MAX_TELEMETRY_NODES. Returns 0 or BF_E_PARSE. Pure. */
int bf_telemetry_parse_nodes(const char *body, bf_node_stats_t **nodes, size_t *nnodes);

/* bf_telemetry_new — a sampler for target (borrowed; must outlive it). target may be NULL for
 * a sampler that is only fed by bf__telemetry_ingest (tests, offline). Caller owns:
 * bf_telemetry_destroy (stops a running cell first). Never NULL. */
bf_telemetry_t *bf_telemetry_new(const bf_target_t *target);
void bf_telemetry_destroy(bf_telemetry_t **t_p);

/* bf_telemetry_probe — GET / (and, in OpenSearch compatibility mode, the real version from
 * _nodes/_local). Synchronous; call between cells only. Fills *out (may be NULL) and keeps it
 * for the info line. Returns 0, BF_E_TRANSPORT / BF_E_HTTP / BF_E_PARSE with diag. */
int bf_telemetry_probe(bf_telemetry_t *t, bf_product_t *out, bf_diag_t *diag);

/* bf_telemetry_start — begin sampling one cell on a new thread: the cell's indices (borrowed
 * until stop), t = 0 at start_mono_us (bf_clock_mono_us clock), warmup and duration in
 * seconds. The first tick is taken at once (baseline). Returns 0, BF_E_STATE (already
 * running) or BF_E_IO (thread could not be created; the cell runs without telemetry). */
int bf_telemetry_start(bf_telemetry_t *t, const bf_cell_t *cell, uint64_t start_mono_us,
                       uint32_t warmup_s, uint32_t duration_s);

/* bf_telemetry_stop_at — the load was interrupted (Ctrl-C) during `second` (counted from the
 * cell's start): the summary's window ends where that second starts, [W, second), the same
 * seconds as the row's (bf_cellagg_stop_at), instead of the planned [W, W+D), so the cluster's
 * figures cover the seconds that ran; an interruption during warmup leaves no window (the
 * figures are unknown). The info line of the ndjson gives the window used (duration_s) and the
 * planned one (planned_duration_s). Call from the thread that calls start and stop, before
 * stop; the sampling thread never reads the window. */
void bf_telemetry_stop_at(bf_telemetry_t *t, int32_t second);

/* bf_telemetry_set_warmup — run.warmup: auto ended the warmup after warmup_s seconds: the
 * summary's window becomes [warmup_s, warmup_s + D), the row's (bf_cellagg_set_warmup). Same
 * thread rule as bf_telemetry_stop_at. */
void bf_telemetry_set_warmup(bf_telemetry_t *t, uint32_t warmup_s);

/* bf_telemetry_disable — no telemetry from now on (a service without a public _nodes/stats:
 * OpenSearch Serverless, Elastic Serverless): start returns BF_E_STATE and stop gives a summary
 * of unknowns (-1, NaN), which rows show as not measured. Call before any start. */
void bf_telemetry_disable(bf_telemetry_t *t);

/* bf_telemetry_set_tick — while bf_telemetry_stop waits for the thread's request in flight
 * (up to BF_TELEMETRY_TIMEOUT_MS), call tick(ctx) every interval_ms on the calling thread, so
 * the caller's loop (the coordinator's fleet) goes on. NULL: none (the default). ctx borrowed. */
void bf_telemetry_set_tick(bf_telemetry_t *t, void (*fn)(void *ctx), void *ctx,
                           unsigned interval_ms);

/* bf_telemetry_stop — stop the thread (waits for the request in flight, at most
 * BF_TELEMETRY_TIMEOUT_MS; a stop between the two requests of a tick skips the second), compute the summary into *sum and append the ndjson file content
 * to *ndjson (may be NULL). Safe to call when nothing runs: *sum then says unknown and nothing
 * is appended. Resets the sampler for the next cell. */
void bf_telemetry_stop(bf_telemetry_t *t, bf_telemetry_summary_t *sum, bf_buf_t *ndjson);

/* Directory-internal, for the sampling thread and for tests that feed recorded answers:
 * bf__telemetry_begin — as start without a thread; index_list is "a,b" (copied).
 * bf__telemetry_ingest — one tick taken at mono_us with the answers' bodies (nodes_body NULL
 * = the request failed, with `error` saying why; index_body NULL = primaries unknown).
 * Returns 0, BF_E_PARSE (nodes body unreadable: recorded as a failed tick) or BF_E_RANGE
 * (too many ticks: dropped). */
void bf__telemetry_begin(bf_telemetry_t *t, const char *index_list, uint64_t start_mono_us,
                         uint32_t warmup_s, uint32_t duration_s);
int bf__telemetry_ingest(bf_telemetry_t *t, uint64_t mono_us, const char *nodes_body,
                         const char *index_body, const char *error);
/* bf__telemetry_set_product — the product written in the info line (copied). */
void bf__telemetry_set_product(bf_telemetry_t *t, const bf_product_t *p);

#endif
