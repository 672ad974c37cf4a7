/* SPDX-License-Identifier: MIT */
/* bf_aggregate.h — one cell's samples from every agent, merged into the per-second series and
 * the cell's results row (metric definitions: docs/internals/measurement.md).
 *
 * docs/s = Σ docs_ok over the measurement window [W, W+D) ÷ D; the per-second series counts an
 * empty second as 0; percentiles come from histograms merged by adding counts and are shown
 * only with enough samples (p99 needs ≥ 100, p99.9 ≥ 1000). Not thread-safe.
 */
#ifndef BF_AGGREGATE_H
#define BF_AGGREGATE_H

#include "bf_errtypes.h"
#include "bf_hist.h"
#include "bf_es.h"
#include "bf_sample.h"
#include "bf_scenario.h"

#include <stddef.h>
#include <stdint.h>

#define BF_MAX_CELL_SECONDS 86400 /* a sample for a later second is refused */
#define BF_ROW_MAX_REPS 100 /* repetitions' docs/s a folded row carries (cells/ has them all) */
#define BF_FEW_REQUESTS 20        /* fewer bulk responses than this in the window: few-requests */
#define BF_CLIENT_BOUND_CPU 0.90  /* agent CPU share of its cores that marks a cell client-bound */
/* client-bound (bf_row_client_bound): the busiest worker thread busy this share of the median
 * second; or a mean send lag of this share of the mean service time, and at least MIN_MS */
#define BF_CLIENT_BOUND_BUSY 0.85
#define BF_CLIENT_BOUND_LAG 0.25
#define BF_CLIENT_BOUND_LAG_MIN_MS 1.0
/* the send lag is the client's limit only while the client works: its busiest worker thread
 * (or its CPU) at least this share. Idle agents with a lag are waiting on something else (a
 * timer, the scheduler), which more agents or threads would not remove */
#define BF_CLIENT_BOUND_LAG_WORK 0.10
/* a stage of the worker threads is named as the client's cost only from this share (%) */
#define BF_CLIENT_COST_MIN_PCT 1.0
#define BF_TARGET_MISS                                                                             \
    0.02 /* target-rate cell: attempted docs/s this far below the target                           \
            marks it target-missed */

typedef struct bf_latency_stats {
    uint64_t count;
    double p50_ms, p90_ms, p99_ms, p999_ms, max_ms, mean_ms; /* NAN when not enough samples */
} bf_latency_stats_t;

/* One named query's part of a row (search clients); over the measurement window
 * like the bulk columns. Percentiles from the agents' histograms merged by adding counts. */
typedef struct bf_qrow {
    const char *name;        /* borrowed from the scenario (search.queries[].name) */
    double ops_per_s;        /* ops_ok in the window / D */
    double ops_per_s_min, ops_per_s_median, ops_per_s_max; /* per-second series, empty = 0 */
    uint64_t ops_sent, ops_ok, ops_error, timed_out, shard_failures;
    uint64_t ops_ok_all;     /* every second (warmup and tail too), for verification */
    double mean_hits;        /* hits / ops_ok; NAN without answers */
    double took_mean_ms;     /* the server's mean "took" beside the client's service time */
    bf_latency_stats_t service, latency;
    char errors[256];        /* "index_not_found_exception 3, timeout 1" ("" = none) */
    /* profile: true: the slowest profiled request of the window on its slowest shard (the
     * phases as the Profile API reports them; rest = service time - those: coordination and
     * transfer); NAN when not profiled */
    double prof_service_ms, prof_query_ms, prof_collectors_ms, prof_rewrite_ms, prof_fetch_ms;
    double prof_rest_ms, prof_rest_pct; /* rest as % of the service time */
    uint32_t prof_shards;
    int skip_may; /* paged, sorted, not on {index} or an _msearch header naming its own index,
                     routing or preference: no exact search verification */
} bf_qrow_t;

/* One results row (a cell, or one repetition of a cell). */
typedef struct bf_row {
    const bf_cell_t *cell;   /* borrowed from the scenario */
    uint32_t repetition;     /* 1-based */
    uint32_t agents;
    double docs_per_s;       /* the headline */
    double docs_per_s_min, docs_per_s_p10, docs_per_s_median, docs_per_s_p90, docs_per_s_max;
    double attempted_docs_per_s;
    double mb_per_s_payload, mb_per_s_wire;
    uint64_t docs_sent, docs_ok, docs_rejected, docs_failed, docs_unknown, docs_retried;
    uint64_t docs_conflict, docs_mapping;
    uint64_t req_total, req_ok, req_partial, req_http_error;
    uint64_t req_transport_error; /* connect errors, timeouts, resets: no answer was read */
    uint64_t req_bad_response;    /* an answer that is not a bulk response (a 2xx that is not
                                     JSON, an unreadable answer): its documents are unknown */
    uint64_t http_429;            /* bulk requests answered 429 as a whole */
    uint64_t docs_429;            /* documents answered 429 on any attempt (first rejections of
                                     documents later accepted on a retry too): the 429 column */
    /* documents failed by error type with the first reason of each, over every second of the
     * cell (warmup and tail too, like docs_ok_all), every attempt (bf_errtypes.h) */
    bf_errtypes_t doc_errors;
    double doc_error_rate;   /* (failed + rejected + unknown) / sent */
    double request_error_rate;
    bf_latency_stats_t service, latency;
    int64_t docs_counted;    /* -1 when the count failed */
    int verified;            /* docs_counted == docs_ok (all documents, warmup and tail too) */
    uint64_t docs_ok_all;    /* docs_ok over every second, for verification */
    uint64_t docs_sent_all, docs_unknown_all; /* the same for docs_sent and docs_unknown: what
                                                 a count beyond docs_ok_all may come from */
    /* every document sent ends in exactly one outcome, over every second of the cell (warmup
     * and tail too): docs_sent_all = docs_ok_all + docs_failed_all + docs_rejected_all +
     * docs_unknown_all; and the unknown ones by where they came from, which add up to
     * docs_unknown_all: abandoned in flight when the load was stopped (Ctrl-C, Stop, a failed
     * cell, the dead-man switch) or hit its hard end; timed out (request.timeout); connection
     * reset after the body was written; an answer that is not a bulk response; an HTTP status
     * that leaves them unknown (502, 504, 1xx, 3xx). A row whose counts do not add up says so
     * in its reason (counts_ok 0). */
    uint64_t docs_rejected_all, docs_failed_all;
    uint64_t docs_unknown_abandoned, docs_unknown_timeout, docs_unknown_reset;
    uint64_t docs_unknown_bad_response, docs_unknown_http;
    /* every bulk request sent (handed to libcurl, connect retries too) ends in one outcome:
     * req_sent_all = req_total_all, the sum over every second of ok, partial, HTTP errors,
     * connect errors, timeouts, resets, bad responses and req_abandoned */
    uint64_t req_sent_all, req_total_all;
    uint64_t req_timeout_all; /* timeouts over every second (req_transport_error is the window's) */
    int counts_ok;            /* the identities above hold */
    double agent_cpu_pct;    /* mean agent CPU over the window, % of the agents' cores */
    double host_load_avg;    /* the agents' hosts' 1-minute load average, mean over the window's
                                samples of every agent (bf_counters_t host_load_*); NAN when no
                                agent measured it */
    uint64_t late_seconds;   /* seconds with no sample from some agent */
    int yellow, degraded, client_bound, failed, aborted;
    /* client-bound, measured in the agents' worker threads: the busiest
     * thread's share of each window second not spent waiting for the network (median over the
     * window, %), and the mean send lag of a request (ms: sent this long after its connection
     * was free and it was due; NAN without requests) */
    double client_busy_pct, send_lag_ms;
    /* where the agents' worker threads' time went in the window, % of their
     * time (worker threads x window seconds, all agents): building bodies, gzip, reading the
     * answers (parse and verdict), and the rest: handing bytes to libcurl and the kernel and
     * waiting for the network (bf_row_stage_shares). NAN when not measured (older agents) */
    double stage_render_pct, stage_compress_pct, stage_judge_pct, stage_send_wait_pct;
    char client_bound_why[448]; /* the figures behind client_bound ("" when not) */
    double target_docs_per_s; /* the cell's target_rate (docs/s, fleet), 0 = closed loop */
    int stalled;              /* no request answered in the window, or requests still pending
                                 when the load ended (req_abandoned > 0): not a result */
    uint64_t req_abandoned;   /* requests abandoned in flight, every second */
    int target_missed;        /* target-rate cell whose attempted docs/s fell short by more than
                                 BF_TARGET_MISS of the target: it measured what was sent, not the
                                 load asked for (the reason gives achieved vs target) */
    int tls_insecure;         /* target.tls.insecure: the cluster's certificate was not verified */
    int index_mismatch;      /* recreate false: an index's shards/replicas differ from the cell's */
    int64_t index_shards, index_replicas; /* with index_mismatch: the index's real number_of_shards
                                             / number_of_replicas; -1 = unknown or no mismatch */
    /* the cell ended at the end of its corpus (document.corpus.passes: every agent read its
     * slices, or was lost, before the configured window's end): the window then ends there,
     * duration_s is the whole seconds it covers and docs/s, MB/s, attempted docs/s, agent CPU
     * and the search rates are divided by the exact seconds (corpus_end_s - warmup_s);
     * docs/scenario.md "End of the corpus" */
    int corpus_ended;
    double corpus_end_s;     /* seconds from the cell's start to its last agent's end; NAN = no */
    int few_requests;        /* an indexing cell with fewer than BF_FEW_REQUESTS bulk responses in
                                the window (service.count): its docs/s rests on too few requests
                                to rank (findings leave it out); lengthen run.duration */
    char reason[2048];       /* every clause that applies (failed, degraded, stalled,
                                target-missed, few-requests, client-bound, unknown documents,
                                not verified, ...), "; "-joined */
    double cv;               /* coefficient of variation over repetitions (aggregate rows) */
    uint32_t repeat;         /* repetitions aggregated (median rows) */
    /* the interval of docs_per_s (docs/results.md "How sure"): with repetitions, of their
     * median by order statistics, ci_level the coverage it really has (below 0.95 with fewer
     * than 6 repetitions: then it spans them all); with one run, within that run from the
     * batch means of its window's seconds (ci_within 1: the drift between runs is not in it);
     * NAN when not known (fewer than 5 seconds, an older file) */
    double docs_per_s_ci_low, docs_per_s_ci_high, docs_per_s_ci_level;
    int docs_per_s_ci_within;
    /* each repetition's docs/s in repetition order: reps_n values (at most BF_ROW_MAX_REPS;
     * one in a row of one run; 0 in a row read from a file written before they were kept) */
    uint32_t reps_n;
    double reps_docs_per_s[BF_ROW_MAX_REPS];
    /* cluster side (bf_telemetry) over the measurement window; -1 / NAN = unknown */
    int64_t write_queue_max; /* highest write-pool queue on any node */
    int64_t write_rejected;  /* write-pool rejected delta summed over nodes */
    double hot_spot_ratio;   /* busiest data node's indexing rate / mean */
    double cluster_docs_per_s; /* primaries' index_total delta / window */
    uint32_t warmup_s, duration_s; /* the row's window is [warmup_s, warmup_s + duration_s) */
    uint32_t warmup_max_s;         /* run.warmup: auto: the most warmup_s could have been (the
                                      warmup ended once steady when warmup_s is less); 0 = a
                                      fixed warmup */
    /* disk cost: uncompressed payload bytes of the acknowledged documents over every second
     * (each second's bytes_payload x docs_ok / docs_sent), and the indices' primary store
     * size after _refresh + _flush (_stats/store, docs/internals/es-api.md); -1 / NAN = not
     * measured (the cell failed, did not verify, or its indices held documents before it) */
    uint64_t bytes_payload_ok_all;
    int64_t store_bytes;
    double store_bytes_per_payload_byte; /* store_bytes / bytes_payload_ok_all */
    uint32_t nqueries;       /* named queries of the search section (0 without search) */
    /* the cluster's count of query phases on the cell's indices during the load against the
     * client's answered searches x shards searched (bf_row_search_verify) */
    int64_t search_shard_queries;          /* -1 = not read */
    int64_t search_shard_queries_expected; /* -1 = not computed */
    int search_verified;                   /* 1 equal, 0 not equal, -1 not checkable */
    double search_started_per_s;           /* queries started in the window / D, all queries */
    int search_rate_missed;                /* search_rate > 0 and search_started_per_s fell
                                              short by more than BF_TARGET_MISS of it: the
                                              search side ran at a lower rate than asked (the
                                              reason gives both; the exit code is the bulk
                                              side's, as before) */
    bf_qrow_t queries[BF_MAX_QUERIES];
    /* the slope test of find-max's sustain phase: bf_series_growth of the per-second latency
     * p99 over the window (the highest of the agents' p99 in each second); NAN = not tracked */
    double latency_p99_growth;
    /* routing_mode node|shard over the window; NAN / 0 when not routed */
    double subbulk_docs_mean;  /* batch_size x bulks split / sub-bulk requests sent */
    uint64_t subbulks;         /* sub-bulk requests sent */
    uint64_t docs_unrouted;    /* sent to target.hosts (no usable primary node) */
    uint64_t docs_misrouted;   /* sent to a node that no longer held their primary */
    /* cluster side: Σ over nodes of the transport rx/tx bytes delta over the window (what the
     * nodes sent each other; routing_mode node saves the forwarded documents); -1 unknown */
    int64_t transport_rx_bytes, transport_tx_bytes;
    /* where this repetition ran in the campaign (bf_rounds.h): its round (1-based; 0 =
     * run.order: sequential, or a cell's folded row) and 1-based position in that round (in
     * sequential order: in the campaign), and when its load started (Unix time, ms; -1 =
     * unknown or a folded row). matrix.json's "schedule" lists every repetition's */
    uint32_t round, position;
    int64_t started_at_ms;
    /* its per-second docs/s was not steady over the window (bf_steady.h): a trend through the
     * window (this repetition's), or a spread far beyond the campaign's other rows (the matrix
     * row's, bf_finish_mark_unsteady); the reason says which. A folded row is unsteady when
     * one of its repetitions is. The findings leave it out */
    int unsteady;
    /* payload bytes per acknowledged document over the whole cell (bytes_payload_ok_all /
     * docs_ok_all: the action line and the source, uncompressed), NAN when none was
     * acknowledged: what a vector encoding (JSON floats or base64) costs on the wire */
    double bytes_per_doc;
    /* the after-load step (index.force_merge): seconds of _forcemerge + _refresh, and the
     * primaries' segments before and after it (_stats/segments); NAN / -1 = not run (no
     * force_merge, or the cell failed, was aborted or did not verify) */
    double merge_s;
    int64_t segments_before, segments_after;
} bf_row_t;

typedef struct bf_cellagg bf_cellagg_t;

/* bf_cellagg_new — collector for one cell run by nagents agents (indexes 0..nagents-1) with
 * warmup and duration in seconds. Caller owns: bf_cellagg_destroy. */
bf_cellagg_t *bf_cellagg_new(const bf_cell_t *cell, uint32_t repetition, uint32_t nagents,
                             const uint32_t *agent_cores, uint32_t warmup_s, uint32_t duration_s);
void bf_cellagg_destroy(bf_cellagg_t **a_p);
/* bf_cellagg_add — add one agent's sample for a second (second < 0: final marker, ignored).
 * Returns 0 or BF_E_RANGE (second too large, or a bad histogram). */
int bf_cellagg_add(bf_cellagg_t *a, uint32_t agent, const Bf__Sample *s);
/* bf_cellagg_set_queries — the cell's named queries (search section), so samples' query stats
 * are merged and the row carries one bf_qrow_t per query. Call before the first add; spec is
 * borrowed and must outlive the aggregate. */
void bf_cellagg_set_queries(bf_cellagg_t *a, const bf_search_spec_t *spec);
/* bf_cellagg_query_ok — answered (2xx) requests of named query q in second i across agents;
 * 0 for an unknown query or second. */
uint64_t bf_cellagg_query_ok(const bf_cellagg_t *a, size_t q, size_t i);
/* bf_cellagg_query_profile — the whole Profile API answer of query q's slowest profiled
 * request in the window (borrowed, valid while a lives), or NULL. */
const char *bf_cellagg_query_profile(const bf_cellagg_t *a, size_t q, size_t *len);
/* bf_cellagg_corpus_end — the agent's load ended at the end of its corpus slices, end_ms
 * milliseconds after the cell's start (Sample.corpus_end_ms; 0 = unknown: the end of its last
 * reported second). bf_cellagg_add calls it for a final sample with corpus_done. */
void bf_cellagg_corpus_end(bf_cellagg_t *a, uint32_t agent, uint32_t end_ms);
/* bf_cellagg_corpus_end_ms — when the cell ended at the end of its corpus: ms from the start to
 * the latest end of its agents (a lost agent's at the second it was lost), when every agent
 * ended so, at least one at the corpus, and before the window's configured end; else 0.
 * docs/scenario.md "End of the corpus" defines the rule. */
uint64_t bf_cellagg_corpus_end_ms(const bf_cellagg_t *a);
/* bf_cellagg_mark_lost — agent lost from second `from_second` on: the cell is degraded. */
void bf_cellagg_mark_lost(bf_cellagg_t *a, uint32_t agent, const char *agent_id, int32_t from_second);
/* bf_cellagg_seconds — number of seconds with data (series length). */
size_t bf_cellagg_seconds(const bf_cellagg_t *a);
/* bf_cellagg_second — merged counters of second i (borrowed), or NULL. */
const bf_counters_t *bf_cellagg_second(const bf_cellagg_t *a, size_t i);
/* bf_cellagg_agent_second — agent's counters of second i, written to *out (the aggregate keeps
 * them compact). Returns 0, or BF_E_RANGE (out untouched) for an unknown agent or second. */
int bf_cellagg_agent_second(const bf_cellagg_t *a, uint32_t agent, size_t i, bf_counters_t *out);
/* bf_row_reps — the repetitions' docs/s of row (borrowed, valid while row lives) and their
 * count into *n: reps_docs_per_s, or &row->docs_per_s alone for a row without them (one run,
 * or an older file); *n = 0 when docs_per_s is not finite. Thread-safe. */
const double *bf_row_reps(const bf_row_t *row, size_t *n);

/* bf_row_add_reason — append text to row->reason ("; " between reasons; truncated to fit). */
void bf_row_add_reason(bf_row_t *row, const char *text);

#define BF_SERVERLESS_COUNT_WAIT_MS 120000u /* the most bf_row_verify waits for a lagging count */

/* bf_row_verify — after the load: _refresh + _count over the cell's indices; docs_counted =
 * that count minus baseline (the documents this cell added); verified when it equals the
 * agents' acknowledged documents (docs_ok_all) and no document's outcome is unknown
 * (bf_row_unknown_unverified). A failed row is not counted. When the count
 * cannot be read or does not match, row->reason says so (appended to a reason already there)
 * and a warning is logged. Update and delete cells (cell->action) are checked against bounds:
 * update adds 0..docs_ok_all documents (upserts of new ids; an update without upsert adds
 * none and is held to the same bound), delete removes 0..docs_ok_all; for delete docs_counted is
 * the documents removed. */
void bf_row_verify(bf_row_t *row, bf_es_t *es, const bf_cell_t *cell, int64_t baseline);
/* bf_row_verify_counted — bf_row_verify's judgement once the cluster counted n documents in the
 * cell's indices (baseline >= 0 before the cell; index/create actions): docs_counted = n -
 * baseline, verified when it equals the acknowledged documents, but never for a cell that was to
 * index (concurrency > 0) and had nothing acknowledged (0 = 0 confirms nothing); the reason
 * says why a row is not verified. Pure but for the warning it logs; thread-safe. */
void bf_row_verify_counted(bf_row_t *row, const bf_cell_t *cell, int64_t n, int64_t baseline);

/* bf_row_unknown_unverified — a row the count would verify (row->verified) while
 * docs_unknown_all > 0 is not verified: documents of unknown outcome (timed out, reset, a bad
 * answer, an HTTP status that leaves them unknown, abandoned in flight) may still be indexed
 * after the count (a cluster keeps working on a request whose client gave up; a stopped one
 * works off its backlog when it goes on), so the count is a snapshot that cannot vouch for the
 * row (chaos seed 8). Sets row->verified = 0, appends the reason (the count, the
 * unknown documents by cause) and logs it as a warning for cell_id (borrowed; NULL = "?").
 * Returns 1 when it unverified the row, 0 when it left it as it was. bf_row_verify calls it;
 * not thread-safe (row). */
int bf_row_unknown_unverified(bf_row_t *row, const char *cell_id);

/* bf_cellagg_track_p99 — also keep each window second's latency p99 (ms; the highest of the
 * agents' own p99 for that second, never an average), for row->latency_p99_growth. Costs one
 * scratch histogram and one percentile per sample; call before the first sample. */
void bf_cellagg_track_p99(bf_cellagg_t *a);

/* bf_series_growth — a slope test: the least-squares slope of y (one value per second, < 0 =
 * not measured and skipped) times the span between the first and last measured second,
 * divided by the median of y. 0.5 means the fitted line rose by half the median across the
 * window. Returns 0 with fewer than 3 measured seconds or a zero median. Pure; thread-safe. */
double bf_series_growth(const double *y, size_t n);

/* bf_row_store_cost — fill store_bytes and store_bytes_per_payload_byte from the primary store
 * size the cluster reported (bytes, < 0 = not read). Only a clean row is measured: not failed,
 * verified, baseline 0 (nothing in the indices before the cell) and payload acknowledged;
 * otherwise both stay unknown. Pure. */
void bf_row_store_cost(bf_row_t *row, int64_t store_bytes, int64_t baseline);

/* bf_cellagg_row — compute the row (cell flags like yellow/failed are set by the caller
 * afterwards). */
void bf_cellagg_row(const bf_cellagg_t *a, bf_row_t *row);
/* bf_cellagg_fail — the cell failed (a fatal answer such as 401/406/413 or every document
 * rejected by the mapping, or the coordinator failed it; bf_cellagg_add also sets it for a
 * sample with a fatal reason). When no bulk request completed in the window but some did
 * before (the cell failed in warmup), bf_cellagg_row reports the error rates over the whole
 * cell (the *_all outcome), not over the empty window, and flags neither stalled nor
 * few-requests; a failed row is never few-requests. Not thread-safe (like the aggregate). */
void bf_cellagg_fail(bf_cellagg_t *a);
/* bf_cellagg_stop_at — the load stopped early (Ctrl-C) during `second` (counted from the
 * cell's start): the measurement window ends where that second starts, so the row is over the
 * seconds that were measured in full ([warmup_s, second)) instead of diluting them over the
 * planned duration; an interruption during warmup leaves an empty window. Samples of later
 * seconds still count for verification (docs_ok_all) but not in the window. Call before the
 * samples of `second` are added. Requests abandoned in flight by the interruption do not flag
 * the row stalled (their documents are still unknown). Not thread-safe (like the aggregate). */
void bf_cellagg_stop_at(bf_cellagg_t *a, int32_t second);
/* bf_cellagg_set_warmup — run.warmup: auto decided the warmup: the window becomes
 * [warmup_s, warmup_s + duration_s) (duration unchanged) and the row records warmup_max_s,
 * the bound it had (docs/results.md). Only seconds no sample has arrived for may move into
 * the window: warmup_s must be >= bf_cellagg_seconds_seen. Returns BF_OK, or BF_E_STATE
 * (nothing changed) when a sample of second warmup_s or later was already added. Not
 * thread-safe (like the aggregate). */
int bf_cellagg_set_warmup(bf_cellagg_t *a, uint32_t warmup_s, uint32_t warmup_max_s);
/* bf_cellagg_seconds_seen — 1 + the latest second any agent's sample was added for (0 when
 * none yet). Not thread-safe. */
uint32_t bf_cellagg_seconds_seen(const bf_cellagg_t *a);
/* bf_cellagg_phase — what a progress line says about `second` (counted from the cell's start,
 * 1-second buckets, docs/internals/measurement.md): "warmup 3/5s" (the 3rd of 5 warmup seconds),
 * "measure 4/10s" (the 4th second of the measurement window), "tail +1s" (after the window:
 * requests still being answered, not measured). Writes into buf (len bytes) and returns it.
 * Thread-safe. */
const char *bf_cellagg_phase(int32_t second, uint32_t warmup_s, uint32_t duration_s, char *buf,
                             size_t len);
/* bf_row_count_why — when a row's count (docs_counted, >= 0) differs from docs_ok_all, why it
 * may: on a degraded row (an agent lost) more than acknowledged and unknown is what the lost
 * agent sent after its last sample (in no sample); else more than this run sent is another
 * writer; more than acknowledged but within the
 * documents of unknown outcome is those being indexed unseen; fewer is an id sent twice, a
 * deletion, or acknowledged writes the cluster lost (a primary cancelled or failed under load:
 * seen on OpenSearch 2.19, items 201 with _shards.successful 1 the promoted replica never got;
 * docs/scenario.md, routing). Writes "; <reason>" into buf (len bytes; "" when
 * docs_counted < 0). Thread-safe. */
void bf_row_count_why(const bf_row_t *row, char *buf, size_t len);
/* bf_cellagg_live — docs/s, errors and 429s of the latest complete second, for progress. */
void bf_cellagg_live(const bf_cellagg_t *a, int32_t second, uint64_t *docs_ok, uint64_t *errors,
                     uint64_t *rejected);

/* bf_search_rate_missed — 1 when a cell with search clients and a search_rate (queries/s across
 * the fleet) started fewer than (1 - BF_TARGET_MISS) x search_rate queries/s in the window
 * (started_per_s: bf_qstats_t.started summed over queries and agents / window seconds), as
 * target-missed is for the bulk target_rate. Pure. */
int bf_search_rate_missed(const bf_cell_t *cell, double started_per_s);
/* bf_row_search_verify — compare the cluster's query phases during the load (counted, from
 * _stats/search query_total; -1 unknown) with what the clients counted: every answered (2xx)
 * search of every second runs one query phase per shard of the cell's indices
 * (shards x indices; a _count too). Exact only when no query can be answered without a query
 * phase on every shard: a query with paging or a "sort" may have shards skipped by the
 * cluster's pre-filter (can_match) and a query whose path does not name {index} searches other
 * indices; errors may or may not have run one. Then search_verified is -1 and the reason says
 * why; else 1 when equal, 0 (with both numbers in the reason) when not. */
void bf_row_search_verify(bf_row_t *row, const bf_cell_t *cell, int64_t counted);

/* bf_row_client_bound — 1 when the load generator limited the cell's number: agent CPU (% of
 * the agents' cores) ≥ BF_CLIENT_BOUND_CPU, the busiest worker thread busy (%, median second)
 * ≥ BF_CLIENT_BOUND_BUSY, or the mean send lag (ms) ≥ BF_CLIENT_BOUND_LAG × the mean service
 * time and ≥ BF_CLIENT_BOUND_LAG_MIN_MS (connections stood idle that long per request waiting
 * for this host) while the client works (busiest thread or CPU ≥ BF_CLIENT_BOUND_LAG_WORK).
 * why (why_size bytes) gets the figures ("" when 0). Pure; thread-safe. */
int bf_row_client_bound(double cpu_pct, double busy_pct, double lag_ms, double service_mean_ms,
                        char *why, size_t why_size);

/* bf_row_client_cost — the client's cost among its worker threads' stages (render, compress,
 * judge: % of the threads' time, as bf_row_stage_shares gives them; send_wait_pct the rest):
 * "; the cost is <the largest>: worker threads' time render R %, ..." into why (why_size
 * bytes, always terminated). Returns 0 with why "" when no stage reaches
 * BF_CLIENT_COST_MIN_PCT or a share is not finite (nothing the client did is a cost to name).
 * Pure; thread-safe. */
int bf_row_client_cost(double render_pct, double compress_pct, double judge_pct,
                       double send_wait_pct, char *why, size_t why_size);

/* bf_row_stage_shares — where worker threads' time went over counters c (a window's sum over
 * seconds and agents): render, compress, judge as % of c->worker_threads x 1 s (the threads'
 * time; c->render_us, compress_us, judge_us are µs), send/wait what is left of it. When the
 * measured stages add up to more (a stage is booked in the second it ended, so one that ran
 * over a window edge counts whole), they are scaled to 100 % and send/wait is 0: the four
 * always add up to 100. All NAN when worker_threads is 0 (older agents: not measured). Pure;
 * thread-safe. */
void bf_row_stage_shares(const bf_counters_t *c, double *render_pct, double *compress_pct,
                         double *judge_pct, double *send_wait_pct);

/* bf_row_has_errors — 1 when documents failed or their outcome is unknown, or requests failed
 * (HTTP or transport) other than with 429: the number is not a clean measurement. */
int bf_row_has_errors(const bf_row_t *row);

/* bf_rows_median — a row summarising repetitions: the repetition whose docs/s is the median
 * (lower median for even n) gives every figure but docs/s, which is the median of the
 * repetitions' docs/s (bf_stats_median: the mean of the middle two for even n), the point the
 * interval docs_per_s_ci_low..high is about; cv = stddev/mean of docs/s (sample stddev,
 * n - 1); cv is NAN (written blank / null) for n < 2: one repetition has no spread to
 * estimate. */
void bf_rows_median(const bf_row_t *reps, size_t n, bf_row_t *out);

/* bf_row_index_mismatch_text — for a row flagged index_mismatch (recreate: false wrote into
 * an index that already existed with other shards or replicas), what the index had against its
 * cell ("the index had 3 shards and 0 replicas, not the cell's 1 and 0") into buf (size bytes,
 * always terminated); "" for a row without the flag. row->cell must be set. Thread-safe. */
void bf_row_index_mismatch_text(const bf_row_t *row, char *buf, size_t size);

#endif
