/* SPDX-License-Identifier: MIT */
/* bf_rowcodec.c — the row codec (docs/internals/style.md rule 17): one table of row fields, a row
 * to its JSON object and back.
 *
 * matrix.json rows[] and each cell file's first line are written from the tables here; compare,
 * report and the findings read them back through the same tables. The codec calls nothing
 * above it: the writer of matrix.json (bf_results.c) calls the codec and the findings.
 */
#include "bf_rowcodec.h"
#include "bf_rowcodec_int.h"

#include "bf_errtypes.h"
#include "bf_mem.h"

#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- the row codec, write side: the tables and a row to its JSON object ------------------- */

#define FD(n, m, t, c)                                                                             \
    {                                                                                              \
        n, offsetof(bf_row_t, m), t, c, -1                                                         \
    }
/* a field the human tables show: its rounding, one for matrix.md and report.html (else
 * agent CPU % 0.3 in matrix.md could read 0 in report.html) */
#define FDD(n, m, t, c, d)                                                                         \
    {                                                                                              \
        n, offsetof(bf_row_t, m), t, c, d                                                          \
    }
/* Column order of matrix.csv and key order of matrix.json (docs/internals/measurement.md): the seed
 * report's columns come first (indices, shards, replicas, batch_size, concurrency are written from
 * the cell, then docs_per_s), then the per-second spread, throughput in bytes, service time and
 * latency (empty when too few samples: p90 needs 10, p99 100, p99.9 1000), errors and 429s,
 * what the cluster said, the load generator's health, the flags, and repetitions. */
static const bf__field_t fields[] = {
    FDD("docs_per_s", docs_per_s, BF__F_DBL, 1, 0),
    FDD("docs_per_s_min", docs_per_s_min, BF__F_DBL, 1, 0),
    FD("docs_per_s_p10", docs_per_s_p10, BF__F_DBL, 0),
    FDD("docs_per_s_median", docs_per_s_median, BF__F_DBL, 1, 0),
    FD("docs_per_s_p90", docs_per_s_p90, BF__F_DBL, 0),
    FDD("docs_per_s_max", docs_per_s_max, BF__F_DBL, 1, 0),
    FD("attempted_docs_per_s", attempted_docs_per_s, BF__F_DBL, 1),
    FDD("mb_per_s_payload", mb_per_s_payload, BF__F_DBL, 1, 1),
    FD("mb_per_s_wire", mb_per_s_wire, BF__F_DBL, 1),
    FD("service_count", service.count, BF__F_U64, 1),
    FDD("service_p50_ms", service.p50_ms, BF__F_DBL, 1, 1),
    FD("service_p90_ms", service.p90_ms, BF__F_DBL, 1),
    FDD("service_p99_ms", service.p99_ms, BF__F_DBL, 1, 1),
    FD("service_p99_9_ms", service.p999_ms, BF__F_DBL, 1),
    FD("service_max_ms", service.max_ms, BF__F_DBL, 1),
    FD("service_mean_ms", service.mean_ms, BF__F_DBL, 0),
    FD("latency_count", latency.count, BF__F_U64, 1),
    FD("latency_p50_ms", latency.p50_ms, BF__F_DBL, 1),
    FD("latency_p90_ms", latency.p90_ms, BF__F_DBL, 1),
    FD("latency_p99_ms", latency.p99_ms, BF__F_DBL, 1),
    FD("latency_p99_9_ms", latency.p999_ms, BF__F_DBL, 1),
    FD("latency_max_ms", latency.max_ms, BF__F_DBL, 1),
    FD("latency_mean_ms", latency.mean_ms, BF__F_DBL, 0),
    FD("doc_error_rate", doc_error_rate, BF__F_DBL, 1),
    FD("request_error_rate", request_error_rate, BF__F_DBL, 1),
    FD("docs_sent", docs_sent, BF__F_U64, 1),
    FD("docs_ok", docs_ok, BF__F_U64, 1),
    FD("docs_rejected", docs_rejected, BF__F_U64, 1),
    FD("docs_failed", docs_failed, BF__F_U64, 1),
    FD("docs_conflict", docs_conflict, BF__F_U64, 0),
    FD("docs_mapping", docs_mapping, BF__F_U64, 0),
    FD("docs_unknown", docs_unknown, BF__F_U64, 1),
    FD("docs_retried", docs_retried, BF__F_U64, 0),
    FD("req_total", req_total, BF__F_U64, 0),
    FD("req_ok", req_ok, BF__F_U64, 0),
    FD("req_partial", req_partial, BF__F_U64, 0),
    FD("req_http_error", req_http_error, BF__F_U64, 1),
    FD("req_transport_error", req_transport_error, BF__F_U64, 1),
    FD("req_bad_response", req_bad_response, BF__F_U64, 1),
    FD("http_429", http_429, BF__F_U64, 1),
    FD("docs_429", docs_429, BF__F_U64, 1),
    FD("write_queue_max", write_queue_max, BF__F_I64, 1),
    FD("write_rejected", write_rejected, BF__F_I64, 1),
    FDD("hot_spot_ratio", hot_spot_ratio, BF__F_DBL, 1, 2),
    FDD("cluster_docs_per_s", cluster_docs_per_s, BF__F_DBL, 1, 0),
    FD("agents", agents, BF__F_U32, 1),
    FDD("agent_cpu_pct", agent_cpu_pct, BF__F_DBL, 1, 1),
    FD("late_seconds", late_seconds, BF__F_U64, 0),
    FD("docs_counted", docs_counted, BF__F_I64, 1),
    FD("docs_ok_all", docs_ok_all, BF__F_U64, 1),
    FD("verified", verified, BF__F_INT, 1),
    FD("degraded", degraded, BF__F_INT, 1),
    FD("client_bound", client_bound, BF__F_INT, 1),
    FD("client_busy_pct", client_busy_pct, BF__F_DBL, 1),
    FD("send_lag_ms", send_lag_ms, BF__F_DBL, 1),
    FDD("stage_render_pct", stage_render_pct, BF__F_DBL, 0, 0),
    FDD("stage_compress_pct", stage_compress_pct, BF__F_DBL, 0, 0),
    FDD("stage_judge_pct", stage_judge_pct, BF__F_DBL, 0, 0),
    FDD("stage_send_wait_pct", stage_send_wait_pct, BF__F_DBL, 0, 0),
    FD("target_docs_per_s", target_docs_per_s, BF__F_DBL, 1),
    FD("target_missed", target_missed, BF__F_INT, 1),
    FD("stalled", stalled, BF__F_INT, 1),
    FD("req_abandoned", req_abandoned, BF__F_U64, 0),
    FD("yellow", yellow, BF__F_INT, 1),
    FD("tls_insecure", tls_insecure, BF__F_INT, 1),
    FD("failed", failed, BF__F_INT, 1),
    FD("aborted", aborted, BF__F_INT, 1),
    FD("repeat", repeat, BF__F_U32, 1),
    FD("cv", cv, BF__F_DBL, 1),
    FD("warmup_s", warmup_s, BF__F_U32, 1),
    FD("duration_s", duration_s, BF__F_U32, 1),
    FD("bytes_payload_ok_all", bytes_payload_ok_all, BF__F_U64, 0),
    FD("store_bytes", store_bytes, BF__F_I64, 1),
    FD("store_bytes_per_payload_byte", store_bytes_per_payload_byte, BF__F_DBL, 1),
    FD("latency_p99_growth", latency_p99_growth, BF__F_DBL, 0),
    FD("subbulk_docs_mean", subbulk_docs_mean, BF__F_DBL, 1),
    FD("subbulks", subbulks, BF__F_U64, 0),
    FD("docs_unrouted", docs_unrouted, BF__F_U64, 1),
    FD("docs_misrouted", docs_misrouted, BF__F_U64, 1),
    FD("transport_rx_bytes", transport_rx_bytes, BF__F_I64, 1),
    FD("transport_tx_bytes", transport_tx_bytes, BF__F_I64, 1),
    /* appended last: scripts reading matrix.csv by position keep working */
    FD("few_requests", few_requests, BF__F_INT, 1),
    FD("index_mismatch", index_mismatch, BF__F_INT, 1),
    FD("index_shards", index_shards, BF__F_I64, 1),
    FD("index_replicas", index_replicas, BF__F_I64, 1),
    /* every document and request sent and its outcome over the whole cell (bf_row_t) */
    FD("docs_sent_all", docs_sent_all, BF__F_U64, 0),
    FD("docs_rejected_all", docs_rejected_all, BF__F_U64, 0),
    FD("docs_failed_all", docs_failed_all, BF__F_U64, 0),
    FD("docs_unknown_all", docs_unknown_all, BF__F_U64, 0),
    FD("docs_unknown_abandoned", docs_unknown_abandoned, BF__F_U64, 0),
    FD("docs_unknown_timeout", docs_unknown_timeout, BF__F_U64, 0),
    FD("docs_unknown_reset", docs_unknown_reset, BF__F_U64, 0),
    FD("docs_unknown_bad_response", docs_unknown_bad_response, BF__F_U64, 0),
    FD("docs_unknown_http", docs_unknown_http, BF__F_U64, 0),
    FD("req_sent_all", req_sent_all, BF__F_U64, 0),
    FD("req_total_all", req_total_all, BF__F_U64, 0),
    FD("req_timeout_all", req_timeout_all, BF__F_U64, 0),
    FD("counts_ok", counts_ok, BF__F_INT, 0),
    /* the cell ended at the end of its corpus, this many seconds after its start */
    FD("corpus_ended", corpus_ended, BF__F_INT, 1),
    FD("corpus_end_s", corpus_end_s, BF__F_DBL, 1),
    /* the interval of docs_per_s (bf_row_t); each repetition's docs/s follows in matrix.csv
     * ("docs_per_s_reps", ";"-joined) and matrix.json (an array) */
    FDD("docs_per_s_ci_low", docs_per_s_ci_low, BF__F_DBL, 1, 0),
    FDD("docs_per_s_ci_high", docs_per_s_ci_high, BF__F_DBL, 1, 0),
    FD("docs_per_s_ci_level", docs_per_s_ci_level, BF__F_DBL, 1),
    FD("docs_per_s_ci_within", docs_per_s_ci_within, BF__F_INT, 1),
    /* one repetition's place in the campaign's run order (0 / null in a folded row) */
    FD("round", round, BF__F_U32, 0),
    FD("position", position, BF__F_U32, 0),
    FD("started_at_ms", started_at_ms, BF__F_I64, 0),
    /* per-second docs/s not steady over the window (bf_steady.h; the reason says why) */
    FD("unsteady", unsteady, BF__F_INT, 1),
    /* the agents' hosts' load average beside agent_cpu_pct */
    FDD("host_load_avg", host_load_avg, BF__F_DBL, 1, 2),
    /* run.warmup: auto's bound (warmup_s is the warmup it took); 0 = a fixed warmup */
    FD("warmup_max_s", warmup_max_s, BF__F_U32, 0),
    /* payload bytes per acknowledged document; the after-load force merge (index.force_merge) */
    FDD("bytes_per_doc", bytes_per_doc, BF__F_DBL, 1, 0),
    FDD("merge_s", merge_s, BF__F_DBL, 1, 2),
    FD("segments_before", segments_before, BF__F_I64, 1),
    FD("segments_after", segments_after, BF__F_I64, 1),
};
#define NFIELDS (sizeof fields / sizeof fields[0])
const bf__field_t *const bf__row_fields = fields;
const size_t bf__row_nfields = NFIELDS;

json_t *bf__row_field_json(const bf_row_t *row, const bf__field_t *f)
{
    const char *p = (const char *)row + f->off;
    switch (f->type) {
    case BF__F_DBL: {
        double d = *(const double *)p;
        return isfinite(d) ? json_real(d) : json_null();
    }
    case BF__F_U64: return json_integer((json_int_t) * (const uint64_t *)p);
    case BF__F_I64: { /* negative = unknown (count failed, no telemetry) */
        int64_t v = *(const int64_t *)p;
        return v >= 0 ? json_integer((json_int_t)v) : json_null();
    }
    case BF__F_INT: return json_boolean(*(const int *)p);
    case BF__F_U32: return json_integer((json_int_t) * (const uint32_t *)p);
    }
    return json_null();
}

static void field_load(bf_row_t *row, const bf__field_t *f, json_t *v)
{
    char *p = (char *)row + f->off;
    switch (f->type) {
    case BF__F_DBL: *(double *)p = json_is_number(v) ? json_number_value(v) : NAN; break;
    case BF__F_U64: *(uint64_t *)p = (uint64_t)json_integer_value(v); break;
    case BF__F_I64: *(int64_t *)p = json_is_integer(v) ? (int64_t)json_integer_value(v) : -1; break;
    case BF__F_INT: *(int *)p = json_is_true(v); break;
    case BF__F_U32: *(uint32_t *)p = (uint32_t)json_integer_value(v); break;
    }
}

/* One table of a named query's fields (bf_qrow_t): matrix.json "queries", queries.csv and
 * resume all come from it. */
#define QD(n, m, t, c)                                                                             \
    {                                                                                              \
        n, offsetof(bf_qrow_t, m), t, c, -1                                                        \
    }
static const bf__field_t qfields[] = {
    QD("ops_per_s", ops_per_s, BF__F_DBL, 1),
    QD("ops_per_s_min", ops_per_s_min, BF__F_DBL, 1),
    QD("ops_per_s_median", ops_per_s_median, BF__F_DBL, 1),
    QD("ops_per_s_max", ops_per_s_max, BF__F_DBL, 1),
    QD("service_count", service.count, BF__F_U64, 1),
    QD("service_p50_ms", service.p50_ms, BF__F_DBL, 1),
    QD("service_p90_ms", service.p90_ms, BF__F_DBL, 1),
    QD("service_p99_ms", service.p99_ms, BF__F_DBL, 1),
    QD("service_p99_9_ms", service.p999_ms, BF__F_DBL, 1),
    QD("service_max_ms", service.max_ms, BF__F_DBL, 1),
    QD("service_mean_ms", service.mean_ms, BF__F_DBL, 1),
    QD("latency_count", latency.count, BF__F_U64, 1),
    QD("latency_p50_ms", latency.p50_ms, BF__F_DBL, 1),
    QD("latency_p90_ms", latency.p90_ms, BF__F_DBL, 1),
    QD("latency_p99_ms", latency.p99_ms, BF__F_DBL, 1),
    QD("latency_p99_9_ms", latency.p999_ms, BF__F_DBL, 1),
    QD("latency_max_ms", latency.max_ms, BF__F_DBL, 1),
    QD("latency_mean_ms", latency.mean_ms, BF__F_DBL, 1),
    QD("took_mean_ms", took_mean_ms, BF__F_DBL, 1),
    QD("ops_sent", ops_sent, BF__F_U64, 1),
    QD("ops_ok", ops_ok, BF__F_U64, 1),
    QD("ops_error", ops_error, BF__F_U64, 1),
    QD("timed_out", timed_out, BF__F_U64, 1),
    QD("shard_failures", shard_failures, BF__F_U64, 1),
    QD("mean_hits", mean_hits, BF__F_DBL, 1),
    QD("ops_ok_all", ops_ok_all, BF__F_U64, 1),
    QD("profile_service_ms", prof_service_ms, BF__F_DBL, 1),
    QD("profile_query_ms", prof_query_ms, BF__F_DBL, 1),
    QD("profile_collectors_ms", prof_collectors_ms, BF__F_DBL, 1),
    QD("profile_rewrite_ms", prof_rewrite_ms, BF__F_DBL, 1),
    QD("profile_fetch_ms", prof_fetch_ms, BF__F_DBL, 1),
    QD("profile_rest_ms", prof_rest_ms, BF__F_DBL, 1),
    QD("profile_rest_pct", prof_rest_pct, BF__F_DBL, 1),
    QD("profile_shards", prof_shards, BF__F_U32, 1),
};
#define NQFIELDS (sizeof qfields / sizeof qfields[0])
const bf__field_t *const bf__qrow_fields = qfields;
const size_t bf__qrow_nfields = NQFIELDS;

static json_t *qrow_json(const bf_qrow_t *q)
{
    json_t *o = json_object();
    json_object_set_new(o, "query", json_string(q->name ? q->name : ""));
    for (size_t i = 0; i < NQFIELDS; i++)
        json_object_set_new(o, qfields[i].name,
                            bf__row_field_json((const bf_row_t *)(const void *)q, &qfields[i]));
    json_object_set_new(o, "errors", json_string(q->errors));
    return o;
}

/* the row's failed documents by error type, most first: [{"type","docs","reason"}] */
static json_t *doc_errors_json(const bf_errtypes_t *t)
{
    json_t *a = json_array();
    uint32_t order[BF_ERRTYPES_MAX];
    uint32_t n = bf_errtypes_sorted(t, order);
    for (uint32_t k = 0; k < n; k++) {
        const bf_errtype_t *e = &t->e[order[k]];
        json_t *o = json_object();
        json_object_set_new(o, "type", json_string(e->type));
        json_object_set_new(o, "docs", json_integer((json_int_t)e->docs));
        json_object_set_new(o, "reason", json_string(e->reason));
        json_array_append_new(a, o);
    }
    return a;
}

static void doc_errors_load(bf_errtypes_t *t, json_t *a)
{
    bf_errtypes_reset(t);
    for (size_t i = 0; json_is_array(a) && i < json_array_size(a); i++) {
        json_t *o = json_array_get(a, i);
        json_t *d = json_object_get(o, "docs");
        bf_errtypes_add(
            t, json_string_value(json_object_get(o, "type")),
            json_string_value(json_object_get(o, "reason")),
            json_is_integer(d) && json_integer_value(d) > 0 ? (uint64_t)json_integer_value(d) : 0);
    }
}

json_t *bf_row_encode(const bf_row_t *row)
{
    json_t *o = json_object();
    json_object_set_new(o, "cell", json_string(row->cell->id));
    json_object_set_new(o, "cell_index", json_integer((json_int_t)row->cell->index));
    json_object_set_new(o, "indices", json_integer(row->cell->indices));
    json_object_set_new(o, "shards", json_integer(row->cell->shards));
    json_object_set_new(o, "replicas", json_integer(row->cell->replicas));
    json_object_set_new(o, "batch_size", json_integer(row->cell->batch_size));
    json_object_set_new(o, "concurrency", json_integer(row->cell->concurrency));
    json_t *axes = json_object();
    for (size_t i = 0; i < row->cell->naxes; i++)
        json_object_set_new(axes, row->cell->axes[i].axis, json_string(row->cell->axes[i].value));
    json_object_set_new(o, "axes", axes);
    for (size_t i = 0; i < NFIELDS; i++)
        json_object_set_new(o, fields[i].name, bf__row_field_json(row, &fields[i]));
    json_t *reps = json_array();
    for (uint32_t i = 0; i < row->reps_n && i < BF_ROW_MAX_REPS; i++)
        json_array_append_new(reps, json_real(row->reps_docs_per_s[i]));
    json_object_set_new(o, "docs_per_s_reps", reps);
    json_object_set_new(o, "reason", json_string(row->reason));
    json_object_set_new(o, "doc_errors", doc_errors_json(&row->doc_errors));
    if (row->nqueries) {
        json_object_set_new(o, "search_clients", json_integer(row->cell->search_clients));
        json_object_set_new(o, "search_rate", json_real(row->cell->search_rate));
        json_object_set_new(o, "search_shard_queries",
                            row->search_shard_queries >= 0 ? json_integer(row->search_shard_queries)
                                                           : json_null());
        json_object_set_new(o, "search_shard_queries_expected",
                            row->search_shard_queries_expected >= 0
                                ? json_integer(row->search_shard_queries_expected)
                                : json_null());
        json_object_set_new(o, "search_verified",
                            row->search_verified < 0 ? json_null()
                                                     : json_boolean(row->search_verified));
        json_object_set_new(o, "search_started_per_s", json_real(row->search_started_per_s));
        json_object_set_new(o, "search_rate_missed", json_boolean(row->search_rate_missed));
        json_t *qa = json_array(); /* empty in a cell without search clients */
        for (uint32_t q = 0; row->cell->search_clients > 0 && q < row->nqueries; q++)
            json_array_append_new(qa, qrow_json(&row->queries[q]));
        json_object_set_new(o, "queries", qa);
    }
    return o;
}

/* bf__row_load (bf_rowcodec_int.h): a row object into *row through the field tables */
void bf__row_load(json_t *o, const bf_search_spec_t *ss, bf_row_t *row, bf__row_missing_fn missing,
                  void *ctx)
{
    for (size_t i = 0; i < NFIELDS; i++) {
        json_t *v = json_object_get(o, fields[i].name);
        if (v == NULL && missing)
            missing(ctx, fields[i].name);
        field_load(row, &fields[i], v);
    }
    row->repetition = (uint32_t)json_integer_value(json_object_get(o, "repetition"));
    json_t *reps = json_object_get(o, "docs_per_s_reps"); /* absent in older files: 0 values */
    row->reps_n = 0;
    for (size_t i = 0; json_is_array(reps) && i < json_array_size(reps) && i < BF_ROW_MAX_REPS;
         i++) {
        json_t *v = json_array_get(reps, i);
        if (json_is_number(v) && isfinite(json_number_value(v)))
            row->reps_docs_per_s[row->reps_n++] = json_number_value(v);
    }
    bf_strlcpy(row->reason, json_string_value(json_object_get(o, "reason")) ?: "",
               sizeof row->reason);
    doc_errors_load(&row->doc_errors, json_object_get(o, "doc_errors"));
    json_t *qa = json_object_get(o, "queries");
    json_t *sv = json_object_get(o, "search_verified");
    row->search_verified = json_is_boolean(sv) ? json_is_true(sv) : -1;
    row->search_started_per_s =
        json_number_value(json_object_get(o, "search_started_per_s")); /* 0 when absent */
    row->search_rate_missed = json_is_true(json_object_get(o, "search_rate_missed"));
    sv = json_object_get(o, "search_shard_queries");
    row->search_shard_queries = json_is_integer(sv) ? (int64_t)json_integer_value(sv) : -1;
    sv = json_object_get(o, "search_shard_queries_expected");
    row->search_shard_queries_expected = json_is_integer(sv) ? (int64_t)json_integer_value(sv) : -1;
    for (size_t q = 0; json_is_array(qa) && q < json_array_size(qa) && q < BF_MAX_QUERIES; q++) {
        json_t *qo = json_array_get(qa, q);
        bf_qrow_t *qr = &row->queries[q];
        for (size_t i = 0; i < NQFIELDS; i++)
            field_load((bf_row_t *)(void *)qr, &qfields[i], json_object_get(qo, qfields[i].name));
        bf_strlcpy(qr->errors, json_string_value(json_object_get(qo, "errors")) ?: "",
                   sizeof qr->errors);
        /* names are borrowed from the scenario, as in a fresh row */
        const char *nm = json_string_value(json_object_get(qo, "query"));
        for (size_t k = 0; ss && nm && k < ss->nqueries; k++)
            if (strcmp(ss->queries[k].name, nm) == 0)
                qr->name = ss->queries[k].name;
        row->nqueries = (uint32_t)(q + 1);
    }
    if (json_is_array(qa) && ss && ss->enabled && row->nqueries == 0) {
        /* a cell without search clients: the queries are there, with nothing counted */
        row->nqueries = (uint32_t)(ss->nqueries < BF_MAX_QUERIES ? ss->nqueries : BF_MAX_QUERIES);
        for (uint32_t q = 0; q < row->nqueries; q++)
            row->queries[q].name = ss->queries[q].name;
    }
}

/* ---- the row codec, read side: a row object back into a typed row ------------------------- */

static char *rec_own(bf_row_rec_t *rec, const char *str)
{
    rec->strs = bf_realloc(rec->strs, (rec->nstrs + 1) * sizeof *rec->strs);
    return rec->strs[rec->nstrs++] = bf_strdup(str ? str : "");
}

static void rec_missing(void *ctx, const char *name)
{
    bf_row_rec_t *rec = ctx;
    size_t used = strlen(rec->missing);
    if (used + strlen(name) + 3 < sizeof rec->missing)
        snprintf(rec->missing + used, sizeof rec->missing - used, "%s%s", used ? ", " : "", name);
    rec->nmissing++;
}

/* 1 when v (present, not null) has the JSON type a field of type t is written with */
static int type_ok(enum bf__ftype t, json_t *v)
{
    if (v == NULL || json_is_null(v))
        return 1;
    switch (t) {
    case BF__F_DBL: return json_is_number(v);
    case BF__F_U64:
    case BF__F_I64:
    case BF__F_U32: return json_is_integer(v);
    case BF__F_INT: return json_is_boolean(v);
    }
    return 0;
}

int bf_row_rec_decode(json_t *o, bf_row_rec_t *rec, bf_diag_t *diag)
{
    memset(rec, 0, sizeof *rec);
    if (!json_is_object(o)) {
        bf_diag_set(diag, BF_E_PARSE, "a row is not a JSON object");
        return BF_E_PARSE;
    }
    static const char *const required[] = {"shards", "batch_size", "concurrency"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!json_is_integer(json_object_get(o, required[i]))) {
            bf_diag_set(diag, BF_E_PARSE, "row %s: \"%s\" is missing or not an integer",
                        json_string_value(json_object_get(o, "cell")) ?: "?", required[i]);
            return BF_E_PARSE;
        }
    for (size_t i = 0; i < NFIELDS; i++)
        if (!type_ok(fields[i].type, json_object_get(o, fields[i].name))) {
            bf_diag_set(diag, BF_E_PARSE, "row %s: \"%s\" is not %s",
                        json_string_value(json_object_get(o, "cell")) ?: "?", fields[i].name,
                        fields[i].type == BF__F_DBL   ? "a number"
                        : fields[i].type == BF__F_INT ? "true or false"
                                                      : "an integer");
            return BF_E_PARSE;
        }
    bf_cell_t *c = &rec->cell;
    json_t *id = json_object_get(o, "cell");
    if (!json_is_string(id))
        rec_missing(rec, "cell");
    c->id = rec_own(rec, json_string_value(id));
    c->index = (size_t)json_integer_value(json_object_get(o, "cell_index"));
    c->indices = (uint32_t)json_integer_value(json_object_get(o, "indices"));
    if (c->indices == 0)
        c->indices = 1;
    c->shards = (uint32_t)json_integer_value(json_object_get(o, "shards"));
    c->replicas = (uint32_t)json_integer_value(json_object_get(o, "replicas"));
    c->batch_size = (uint32_t)json_integer_value(json_object_get(o, "batch_size"));
    c->concurrency = (uint32_t)json_integer_value(json_object_get(o, "concurrency"));
    c->search_clients = (uint32_t)json_integer_value(json_object_get(o, "search_clients"));
    c->search_rate = json_number_value(json_object_get(o, "search_rate"));
    json_t *axes = json_object_get(o, "axes");
    if (json_object_size(axes) > 0) {
        rec->axes = bf_calloc(json_object_size(axes), sizeof *rec->axes);
        const char *k;
        json_t *v;
        json_object_foreach(axes, k, v)
        {
            if (!json_is_string(v))
                continue;
            rec->axes[c->naxes].axis = rec_own(rec, k);
            rec->axes[c->naxes].value = rec_own(rec, json_string_value(v));
            c->naxes++;
        }
        c->axes = rec->axes;
    }
    rec->row.cell = c;
    bf__row_load(o, NULL, &rec->row, rec_missing, rec);
    /* query names: owned copies (no scenario to borrow them from) */
    json_t *qa = json_object_get(o, "queries");
    rec->searches = json_is_array(qa);
    for (uint32_t q = 0; q < rec->row.nqueries; q++)
        rec->row.queries[q].name =
            rec_own(rec, json_string_value(json_object_get(json_array_get(qa, q), "query")));
    return BF_OK;
}

void bf_row_rec_cleanup(bf_row_rec_t *rec)
{
    if (rec == NULL)
        return;
    for (size_t i = 0; i < rec->nstrs; i++)
        free(rec->strs[i]);
    free(rec->strs);
    free(rec->axes);
    memset(rec, 0, sizeof *rec);
}

json_t *bf_row_field_value(const bf_row_t *row, const char *name)
{
    for (size_t i = 0; i < NFIELDS; i++)
        if (strcmp(fields[i].name, name) == 0)
            return bf__row_field_json(row, &fields[i]);
    return NULL;
}

json_t *bf_qrow_field_value(const bf_qrow_t *q, const char *name)
{
    for (size_t i = 0; i < NQFIELDS; i++)
        if (strcmp(qfields[i].name, name) == 0)
            return bf__row_field_json((const bf_row_t *)(const void *)q, &qfields[i]);
    return NULL;
}

int bf_row_field_decimals(const char *name)
{
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (strcmp(fields[i].name, name) == 0)
            return fields[i].decimals;
    return -1;
}

int bf_row_field_number(const bf_row_t *row, const char *name, double *out)
{
    for (size_t i = 0; i < NFIELDS; i++) {
        if (strcmp(fields[i].name, name) != 0)
            continue;
        json_t *v = bf__row_field_json(row, &fields[i]);
        *out = json_is_number(v)  ? json_number_value(v)
               : json_is_true(v)  ? 1.0
               : json_is_false(v) ? 0.0
                                  : NAN;
        json_decref(v);
        return BF_OK;
    }
    *out = NAN;
    return BF_E_NOTFOUND;
}

size_t bf_row_field_count(void)
{
    return NFIELDS;
}

const char *bf_row_field_name(size_t i)
{
    return i < NFIELDS ? fields[i].name : NULL;
}
