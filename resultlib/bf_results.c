/* SPDX-License-Identifier: MIT */
/* bf_results.c — results directory writers. */
#include "bf_results.h"

#include "bf_atomic.h"
#include "bf_buf.h"
#include "bf_clock.h"
#include "bf_error.h"
#include "bf_findings.h"
#include "bf_qfindings.h"
#include "bf_log.h"
#include "bf_mem.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* a cell file is written in pieces of this size (bytes) */
#define BF_CELL_FILE_CHUNK (1u << 20)

struct bf_results {
    char *dir;
    const bf_scenario_t *sc; /* borrowed: query names of resumed rows */
    bf_cluster_info_t cluster;
    int have_cluster;
    FILE *samples;
    char samples_path[4096];
    bf_diag_t err;  /* the first write that failed */
    char *metrics_store_json; /* matrix.json's "metrics_store" object, or NULL */
    char *lead_md;            /* Markdown matrix.md starts with (find-max's answer), or NULL */
};

/* One table of row fields: the JSON names, CSV columns and resume loading all come from it. */
enum ftype { F_DBL, F_U64, F_I64, F_INT, F_U32 };
typedef struct field {
    const char *name;
    size_t off;
    enum ftype type;
    int csv;      /* also a CSV column */
    int decimals; /* shown with this many decimals in matrix.md and report.html; -1 = as each
                     table says (bf_row_field_decimals) */
} field;

#define FD(n, m, t, c)                                                                             \
    {                                                                                              \
        n, offsetof(bf_row_t, m), t, c, -1                                                         \
    }
/* a field the human tables show: its rounding, one for matrix.md and report.html (nu3 F1.4:
 * agent CPU % 0.3 in matrix.md was 0 in report.html) */
#define FDD(n, m, t, c, d)                                                                         \
    {                                                                                              \
        n, offsetof(bf_row_t, m), t, c, d                                                          \
    }
/* Column order of matrix.csv and key order of matrix.json (DESIGN §6): the seed report's
 * columns come first (indices, shards, replicas, batch_size, concurrency are written from the
 * cell, then docs_per_s), then the per-second spread, throughput in bytes, service time and
 * latency (empty when too few samples: p90 needs 10, p99 100, p99.9 1000), errors and 429s,
 * what the cluster said, the load generator's health, the flags, and repetitions. */
static const field fields[] = {
    FDD("docs_per_s", docs_per_s, F_DBL, 1, 0),
    FDD("docs_per_s_min", docs_per_s_min, F_DBL, 1, 0),
    FD("docs_per_s_p10", docs_per_s_p10, F_DBL, 0),
    FDD("docs_per_s_median", docs_per_s_median, F_DBL, 1, 0),
    FD("docs_per_s_p90", docs_per_s_p90, F_DBL, 0),
    FDD("docs_per_s_max", docs_per_s_max, F_DBL, 1, 0),
    FD("attempted_docs_per_s", attempted_docs_per_s, F_DBL, 1),
    FDD("mb_per_s_payload", mb_per_s_payload, F_DBL, 1, 1),
    FD("mb_per_s_wire", mb_per_s_wire, F_DBL, 1),
    FD("service_count", service.count, F_U64, 1),
    FDD("service_p50_ms", service.p50_ms, F_DBL, 1, 1),
    FD("service_p90_ms", service.p90_ms, F_DBL, 1),
    FDD("service_p99_ms", service.p99_ms, F_DBL, 1, 1),
    FD("service_p99_9_ms", service.p999_ms, F_DBL, 1),
    FD("service_max_ms", service.max_ms, F_DBL, 1),
    FD("service_mean_ms", service.mean_ms, F_DBL, 0),
    FD("latency_count", latency.count, F_U64, 1),
    FD("latency_p50_ms", latency.p50_ms, F_DBL, 1),
    FD("latency_p90_ms", latency.p90_ms, F_DBL, 1),
    FD("latency_p99_ms", latency.p99_ms, F_DBL, 1),
    FD("latency_p99_9_ms", latency.p999_ms, F_DBL, 1),
    FD("latency_max_ms", latency.max_ms, F_DBL, 1),
    FD("latency_mean_ms", latency.mean_ms, F_DBL, 0),
    FD("doc_error_rate", doc_error_rate, F_DBL, 1),
    FD("request_error_rate", request_error_rate, F_DBL, 1),
    FD("docs_sent", docs_sent, F_U64, 1),
    FD("docs_ok", docs_ok, F_U64, 1),
    FD("docs_rejected", docs_rejected, F_U64, 1),
    FD("docs_failed", docs_failed, F_U64, 1),
    FD("docs_conflict", docs_conflict, F_U64, 0),
    FD("docs_mapping", docs_mapping, F_U64, 0),
    FD("docs_unknown", docs_unknown, F_U64, 1),
    FD("docs_retried", docs_retried, F_U64, 0),
    FD("req_total", req_total, F_U64, 0),
    FD("req_ok", req_ok, F_U64, 0),
    FD("req_partial", req_partial, F_U64, 0),
    FD("req_http_error", req_http_error, F_U64, 1),
    FD("req_transport_error", req_transport_error, F_U64, 1),
    FD("req_bad_response", req_bad_response, F_U64, 1),
    FD("http_429", http_429, F_U64, 1),
    FD("docs_429", docs_429, F_U64, 1),
    FD("write_queue_max", write_queue_max, F_I64, 1),
    FD("write_rejected", write_rejected, F_I64, 1),
    FDD("hot_spot_ratio", hot_spot_ratio, F_DBL, 1, 2),
    FDD("cluster_docs_per_s", cluster_docs_per_s, F_DBL, 1, 0),
    FD("agents", agents, F_U32, 1),
    FDD("agent_cpu_pct", agent_cpu_pct, F_DBL, 1, 1),
    FD("late_seconds", late_seconds, F_U64, 0),
    FD("docs_counted", docs_counted, F_I64, 1),
    FD("docs_ok_all", docs_ok_all, F_U64, 1),
    FD("verified", verified, F_INT, 1),
    FD("degraded", degraded, F_INT, 1),
    FD("client_bound", client_bound, F_INT, 1),
    FD("client_busy_pct", client_busy_pct, F_DBL, 1),
    FD("send_lag_ms", send_lag_ms, F_DBL, 1),
    FDD("stage_render_pct", stage_render_pct, F_DBL, 0, 0),
    FDD("stage_compress_pct", stage_compress_pct, F_DBL, 0, 0),
    FDD("stage_judge_pct", stage_judge_pct, F_DBL, 0, 0),
    FDD("stage_send_wait_pct", stage_send_wait_pct, F_DBL, 0, 0),
    FD("target_docs_per_s", target_docs_per_s, F_DBL, 1),
    FD("target_missed", target_missed, F_INT, 1),
    FD("stalled", stalled, F_INT, 1),
    FD("req_abandoned", req_abandoned, F_U64, 0),
    FD("yellow", yellow, F_INT, 1),
    FD("tls_insecure", tls_insecure, F_INT, 1),
    FD("failed", failed, F_INT, 1),
    FD("aborted", aborted, F_INT, 1),
    FD("repeat", repeat, F_U32, 1),
    FD("cv", cv, F_DBL, 1),
    FD("warmup_s", warmup_s, F_U32, 1),
    FD("duration_s", duration_s, F_U32, 1),
    FD("bytes_payload_ok_all", bytes_payload_ok_all, F_U64, 0),
    FD("store_bytes", store_bytes, F_I64, 1),
    FD("store_bytes_per_payload_byte", store_bytes_per_payload_byte, F_DBL, 1),
    FD("latency_p99_growth", latency_p99_growth, F_DBL, 0),
    FD("subbulk_docs_mean", subbulk_docs_mean, F_DBL, 1),
    FD("subbulks", subbulks, F_U64, 0),
    FD("docs_unrouted", docs_unrouted, F_U64, 1),
    FD("docs_misrouted", docs_misrouted, F_U64, 1),
    FD("transport_rx_bytes", transport_rx_bytes, F_I64, 1),
    FD("transport_tx_bytes", transport_tx_bytes, F_I64, 1),
    /* appended last: scripts reading matrix.csv by position keep working */
    FD("few_requests", few_requests, F_INT, 1),
    FD("index_mismatch", index_mismatch, F_INT, 1),
    FD("index_shards", index_shards, F_I64, 1),
    FD("index_replicas", index_replicas, F_I64, 1),
    /* every document and request sent and its outcome over the whole cell (bf_row_t) */
    FD("docs_sent_all", docs_sent_all, F_U64, 0),
    FD("docs_rejected_all", docs_rejected_all, F_U64, 0),
    FD("docs_failed_all", docs_failed_all, F_U64, 0),
    FD("docs_unknown_all", docs_unknown_all, F_U64, 0),
    FD("docs_unknown_abandoned", docs_unknown_abandoned, F_U64, 0),
    FD("docs_unknown_timeout", docs_unknown_timeout, F_U64, 0),
    FD("docs_unknown_reset", docs_unknown_reset, F_U64, 0),
    FD("docs_unknown_bad_response", docs_unknown_bad_response, F_U64, 0),
    FD("docs_unknown_http", docs_unknown_http, F_U64, 0),
    FD("req_sent_all", req_sent_all, F_U64, 0),
    FD("req_total_all", req_total_all, F_U64, 0),
    FD("req_timeout_all", req_timeout_all, F_U64, 0),
    FD("counts_ok", counts_ok, F_INT, 0),
    /* the cell ended at the end of its corpus, this many seconds after its start */
    FD("corpus_ended", corpus_ended, F_INT, 1),
    FD("corpus_end_s", corpus_end_s, F_DBL, 1),
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static json_t *field_json(const bf_row_t *row, const field *f)
{
    const char *p = (const char *)row + f->off;
    switch (f->type) {
    case F_DBL: {
        double d = *(const double *)p;
        return isfinite(d) ? json_real(d) : json_null();
    }
    case F_U64: return json_integer((json_int_t) * (const uint64_t *)p);
    case F_I64: { /* negative = unknown (count failed, no telemetry) */
        int64_t v = *(const int64_t *)p;
        return v >= 0 ? json_integer((json_int_t)v) : json_null();
    }
    case F_INT: return json_boolean(*(const int *)p);
    case F_U32: return json_integer((json_int_t) * (const uint32_t *)p);
    }
    return json_null();
}

static void field_load(bf_row_t *row, const field *f, json_t *v)
{
    char *p = (char *)row + f->off;
    switch (f->type) {
    case F_DBL: *(double *)p = json_is_number(v) ? json_number_value(v) : NAN; break;
    case F_U64: *(uint64_t *)p = (uint64_t)json_integer_value(v); break;
    case F_I64: *(int64_t *)p = json_is_integer(v) ? (int64_t)json_integer_value(v) : -1; break;
    case F_INT: *(int *)p = json_is_true(v); break;
    case F_U32: *(uint32_t *)p = (uint32_t)json_integer_value(v); break;
    }
}

/* One table of a named query's fields (bf_qrow_t): matrix.json "queries", queries.csv and
 * resume all come from it. */
#define QD(n, m, t, c)                                                                             \
    {                                                                                              \
        n, offsetof(bf_qrow_t, m), t, c, -1                                                        \
    }
static const field qfields[] = {
    QD("ops_per_s", ops_per_s, F_DBL, 1),
    QD("ops_per_s_min", ops_per_s_min, F_DBL, 1),
    QD("ops_per_s_median", ops_per_s_median, F_DBL, 1),
    QD("ops_per_s_max", ops_per_s_max, F_DBL, 1),
    QD("service_count", service.count, F_U64, 1),
    QD("service_p50_ms", service.p50_ms, F_DBL, 1),
    QD("service_p90_ms", service.p90_ms, F_DBL, 1),
    QD("service_p99_ms", service.p99_ms, F_DBL, 1),
    QD("service_p99_9_ms", service.p999_ms, F_DBL, 1),
    QD("service_max_ms", service.max_ms, F_DBL, 1),
    QD("service_mean_ms", service.mean_ms, F_DBL, 1),
    QD("latency_count", latency.count, F_U64, 1),
    QD("latency_p50_ms", latency.p50_ms, F_DBL, 1),
    QD("latency_p90_ms", latency.p90_ms, F_DBL, 1),
    QD("latency_p99_ms", latency.p99_ms, F_DBL, 1),
    QD("latency_p99_9_ms", latency.p999_ms, F_DBL, 1),
    QD("latency_max_ms", latency.max_ms, F_DBL, 1),
    QD("latency_mean_ms", latency.mean_ms, F_DBL, 1),
    QD("took_mean_ms", took_mean_ms, F_DBL, 1),
    QD("ops_sent", ops_sent, F_U64, 1),
    QD("ops_ok", ops_ok, F_U64, 1),
    QD("ops_error", ops_error, F_U64, 1),
    QD("timed_out", timed_out, F_U64, 1),
    QD("shard_failures", shard_failures, F_U64, 1),
    QD("mean_hits", mean_hits, F_DBL, 1),
    QD("ops_ok_all", ops_ok_all, F_U64, 1),
    QD("profile_service_ms", prof_service_ms, F_DBL, 1),
    QD("profile_query_ms", prof_query_ms, F_DBL, 1),
    QD("profile_collectors_ms", prof_collectors_ms, F_DBL, 1),
    QD("profile_rewrite_ms", prof_rewrite_ms, F_DBL, 1),
    QD("profile_fetch_ms", prof_fetch_ms, F_DBL, 1),
    QD("profile_rest_ms", prof_rest_ms, F_DBL, 1),
    QD("profile_rest_pct", prof_rest_pct, F_DBL, 1),
    QD("profile_shards", prof_shards, F_U32, 1),
};
#define NQFIELDS (sizeof qfields / sizeof qfields[0])

static json_t *qrow_json(const bf_qrow_t *q)
{
    json_t *o = json_object();
    json_object_set_new(o, "query", json_string(q->name ? q->name : ""));
    for (size_t i = 0; i < NQFIELDS; i++)
        json_object_set_new(o, qfields[i].name, field_json((const bf_row_t *)(const void *)q,
                                                           &qfields[i]));
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

static json_t *row_json(const bf_row_t *row)
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
        json_object_set_new(o, fields[i].name, field_json(row, &fields[i]));
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

/* ---- files -------------------------------------------------------------------------------- */

static int mkdir_p(const char *path)
{
    char tmp[4096];
    bf_strlcpy(tmp, path, sizeof tmp);
    for (char *p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
                return BF_E_IO;
            *p = '/';
        }
    }
    return mkdir(tmp, 0755) == 0 || errno == EEXIST ? BF_OK : BF_E_IO;
}

/* write data to DIR/name atomically (bf_atomic_write); the first failure is kept in r->err for
 * bf_results_error and logged */
static int write_atomic(bf_results_t *r, const char *name, const char *data, size_t len)
{
    char *path = bf_asprintf("%s/%s", r->dir, name);
    bf_diag_t d = {0};
    int rc = bf_atomic_write(path, data, len, &d);
    if (rc != BF_OK) {
        bf_error("%s", d.msg);
        if (r->err.code == BF_OK)
            r->err = d;
    }
    free(path);
    return rc;
}

bf_results_t *bf_results_open(const char *base, const char *resume_dir, const bf_scenario_t *sc,
                              bf_diag_t *diag)
{
    bf_results_t *r = bf_calloc(1, sizeof *r);
    r->sc = sc;
    if (resume_dir) {
        r->dir = bf_strdup(resume_dir);
    } else {
        char stamp[32];
        bf_clock_utc_stamp(stamp, sizeof stamp);
        r->dir = bf_asprintf("%s/%s-%s", base, bf_scenario_name(sc), stamp);
    }
    char *cells = bf_asprintf("%s/cells", r->dir);
    char *tele = bf_asprintf("%s/telemetry", r->dir);
    int rc = mkdir_p(cells);
    if (rc == BF_OK)
        rc = mkdir_p(tele);
    free(cells);
    free(tele);
    if (rc != BF_OK) {
        bf_diag_set(diag, BF_E_IO, "cannot create the results directory %s: %s; choose another "
                    "place with --results", r->dir, strerror(errno));
        bf_results_close(&r);
        return NULL;
    }
    const char *red = bf_scenario_redacted_text(sc);
    if (write_atomic(r, "scenario.yaml", red, strlen(red)) != BF_OK) {
        bf_diag_set(diag, BF_E_IO, "cannot write %s/scenario.yaml", r->dir);
        bf_results_close(&r);
        return NULL;
    }
    return r;
}

void bf_results_close(bf_results_t **r_p)
{
    if (r_p == NULL || *r_p == NULL)
        return;
    bf_results_t *r = *r_p;
    if (r->samples)
        fclose(r->samples);
    free(r->dir);
    free(r->metrics_store_json);
    free(r->lead_md);
    free(r);
    *r_p = NULL;
}

int bf_results_write_file(bf_results_t *r, const char *relpath, const char *data, size_t len)
{
    return write_atomic(r, relpath, data ? data : "", len);
}

const char *bf_results_error(const bf_results_t *r)
{
    return r->err.code != BF_OK ? r->err.msg : NULL;
}

void bf_results_note_error(bf_results_t *r, const char *msg)
{
    bf_diag_set(&r->err, BF_E_IO, "%s", msg);
}

const char *bf_results_dir(const bf_results_t *r)
{
    return r->dir;
}

void bf_results_set_metrics_store(bf_results_t *r, const char *json_object_text)
{
    free(r->metrics_store_json);
    r->metrics_store_json = json_object_text ? bf_strdup(json_object_text) : NULL;
}

void bf_results_set_lead(bf_results_t *r, const char *markdown)
{
    free(r->lead_md);
    r->lead_md = markdown ? bf_strdup(markdown) : NULL;
}

void bf_results_set_cluster(bf_results_t *r, const bf_cluster_info_t *info)
{
    r->cluster = *info;
    r->have_cluster = 1;
}

void bf_results_cell_name(const bf_cell_t *cell, uint32_t repetition, uint32_t repeat, char *buf,
                          size_t buf_size)
{
    if (repeat > 1)
        snprintf(buf, buf_size, "%s-r%u", cell->id, repetition);
    else
        snprintf(buf, buf_size, "%s", cell->id);
}

FILE *bf_results_samples_open(bf_results_t *r, const char *name)
{
    if (r->samples)
        fclose(r->samples);
    snprintf(r->samples_path, sizeof r->samples_path, "%s/cells/%s.samples.partial", r->dir, name);
    r->samples = fopen(r->samples_path, "w");
    if (r->samples == NULL) {
        bf_error("cannot write %s: %s", r->samples_path, strerror(errno));
        bf_diag_set(&r->err, BF_E_IO, "cannot write %s: %s", r->samples_path, strerror(errno));
    }
    return r->samples;
}

static json_t *counters_json(const bf_counters_t *c)
{
    json_t *o = json_object();
    for (size_t i = 0; i < bf_counter_nfields; i++)
        json_object_set_new(o, bf_counter_fields[i].name,
                            json_integer((json_int_t) *
                                         (const uint64_t *)((const char *)c +
                                                            bf_counter_fields[i].counters_off)));
    json_t *st = json_object();
    for (int i = 0; i < BF_HTTP_STATUS_MAX; i++) {
        if (c->http_status[i]) {
            char k[8];
            snprintf(k, sizeof k, "%d", i);
            json_object_set_new(st, k, json_integer((json_int_t)c->http_status[i]));
        }
    }
    json_object_set_new(o, "http_status", st);
    return o;
}

int bf_results_sample_line(FILE *f, const char *agent_id, const Bf__Sample *s)
{
    if (f == NULL)
        return BF_E_IO;
    bf_counters_t c;
    memset(&c, 0, sizeof c);
    bf_sample_unpack_add(s, &c, NULL, NULL);
    json_t *o = counters_json(&c);
    json_object_set_new(o, "type", json_string("sample"));
    json_object_set_new(o, "agent", json_string(agent_id));
    json_object_set_new(o, "seq", json_integer((json_int_t)s->seq));
    json_object_set_new(o, "second", json_integer(s->second));
    if (s->final)
        json_object_set_new(o, "final", json_true());
    if (s->fatal && s->fatal[0])
        json_object_set_new(o, "fatal", json_string(s->fatal));
    char *line = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    int ok = fputs(line, f) >= 0 && fputc('\n', f) != EOF && fflush(f) == 0 && !ferror(f);
    free(line);
    return ok ? BF_OK : BF_E_IO;
}

int bf_results_cell_done(bf_results_t *r, const char *name, const bf_cellagg_t *agg,
                         const char *const *agent_ids, uint32_t nagents, const bf_row_t *row)
{
    /* streamed to the file in pieces of BF_CELL_FILE_CHUNK bytes: built whole in memory it
     * made the coordinator's peak memory grow with agents x seconds x 2 (buffer doubling) */
    char *file = bf_asprintf("cells/%s.ndjson", name);
    char *path = bf_asprintf("%s/%s", r->dir, file);
    free(file);
    bf_atomic_file_t af;
    bf_diag_t d = {0};
    if (bf_atomic_open(&af, path, &d) != BF_OK) {
        free(path);
        bf_error("%s", d.msg);
        if (r->err.code == BF_OK)
            r->err = d;
        return BF_E_IO;
    }
    free(path);
    bf_buf_t b;
    bf_buf_init(&b, 0);
    json_t *o = row_json(row);
    json_object_set_new(o, "type", json_string("row"));
    json_object_set_new(o, "repetition", json_integer(row->repetition));
    char *line = json_dumps(o, JSON_COMPACT);
    bf_buf_appendf(&b, "%s\n", line);
    free(line);
    json_decref(o);
    for (size_t s = 0; s < bf_cellagg_seconds(agg); s++) {
        o = counters_json(bf_cellagg_second(agg, s));
        json_object_set_new(o, "type", json_string("second"));
        json_object_set_new(o, "second", json_integer((json_int_t)s));
        if (row->nqueries) {
            /* each named query's answered requests this second: the ops/s series */
            json_t *qo = json_object();
            for (uint32_t q = 0; q < row->nqueries; q++)
                json_object_set_new(qo, row->queries[q].name ? row->queries[q].name : "",
                                    json_integer((json_int_t)bf_cellagg_query_ok(agg, q, s)));
            json_object_set_new(o, "query_ops", qo);
        }
        line = json_dumps(o, JSON_COMPACT);
        bf_buf_appendf(&b, "%s\n", line);
        free(line);
        json_decref(o);
        bf_counters_t ac;
        for (uint32_t a = 0; a < nagents; a++) {
            if (bf_cellagg_agent_second(agg, a, s, &ac) != BF_OK)
                continue;
            o = counters_json(&ac);
            json_object_set_new(o, "type", json_string("agent_second"));
            json_object_set_new(o, "agent", json_string(agent_ids[a]));
            json_object_set_new(o, "second", json_integer((json_int_t)s));
            line = json_dumps(o, JSON_COMPACT);
            bf_buf_appendf(&b, "%s\n", line);
            free(line);
            json_decref(o);
            if (b.len >= BF_CELL_FILE_CHUNK) {
                bf_atomic_append(&af, b.data, b.len);
                bf_buf_reset(&b);
            }
        }
    }
    bf_atomic_append(&af, b.data ? b.data : "", b.len);
    bf_buf_cleanup(&b);
    if (r->samples) {
        fclose(r->samples);
        r->samples = NULL;
        FILE *f = fopen(r->samples_path, "r");
        if (f) {
            char chunk[65536];
            size_t n;
            while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
                bf_atomic_append(&af, chunk, n);
            fclose(f);
        }
    }
    int rc = bf_atomic_commit(&af, &d);
    if (rc != BF_OK) {
        bf_error("%s", d.msg);
        if (r->err.code == BF_OK)
            r->err = d;
    }
    /* the Profile API answer of each profiled query's slowest sampled request */
    for (uint32_t q = 0; rc == BF_OK && q < row->nqueries; q++) {
        size_t plen = 0;
        const char *ans = bf_cellagg_query_profile(agg, q, &plen);
        if (ans == NULL)
            continue;
        char *pdir = bf_asprintf("%s/profiles", r->dir);
        rc = mkdir_p(pdir);
        free(pdir);
        char *pf = bf_asprintf("profiles/%s-%s.json", name, row->queries[q].name);
        if (rc == BF_OK)
            rc = write_atomic(r, pf, ans, plen);
        free(pf);
    }
    bf_buf_cleanup(&b);
    if (rc == BF_OK && r->samples_path[0])
        unlink(r->samples_path);
    return rc;
}

/* ---- matrix ------------------------------------------------------------------------------- */

static void fmt_num(char *buf, size_t n, double v, int decimals)
{
    if (!isfinite(v))
        snprintf(buf, n, "%s", "");
    else
        snprintf(buf, n, "%.*f", decimals, v);
}

static const char *flags_text(const bf_row_t *row, char *buf, size_t n)
{
    buf[0] = '\0';
    size_t used = 0;
#define FLAG(cond, text) \
    if (cond) used += (size_t)snprintf(buf + used, used < n ? n - used : 0, "%s%s", used ? " " : "", text)
    FLAG(row->failed, "FAILED");
    FLAG(row->aborted, "aborted");
    FLAG(row->degraded, "degraded");
    FLAG(row->yellow, "yellow");
    FLAG(row->index_mismatch, "index-mismatch");
    FLAG(row->tls_insecure, "tls-insecure");
    FLAG(row->client_bound, "client-bound");
    FLAG(row->target_missed, "target-missed");
    FLAG(row->search_rate_missed, "search-rate-missed");
    FLAG(row->stalled, "stalled");
    FLAG(row->few_requests, "few-requests");
    FLAG(row->corpus_ended, "corpus-end");
    FLAG(bf_row_has_errors(row), "ERRORS");
    /* 429s only, the first ones too: documents accepted on a retry were rejected first */
    FLAG(row->docs_rejected > 0 || row->http_429 > 0 || row->docs_429 > 0 || row->docs_retried > 0,
         "rejections");
    FLAG(!row->verified && !row->failed && !row->aborted, "UNVERIFIED");
#undef FLAG
    return buf;
}

/* one CSV cell (",value"): numbers with 3 decimals, unknown (NaN / null) empty */
static void csv_field(bf_buf_t *csv, const bf_row_t *row, const field *f)
{
    json_t *v = field_json(row, f);
    char num[64] = "";
    if (json_is_real(v))
        fmt_num(num, sizeof num, json_real_value(v), 3);
    else if (json_is_integer(v))
        snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
    else if (json_is_boolean(v))
        snprintf(num, sizeof num, "%s", json_is_true(v) ? "true" : "false");
    json_decref(v);
    bf_buf_appendf(csv, ",%s", num);
}

/* text as a CSV cell, quoted (RFC 4180) when it holds a comma, quote or line break */
static void csv_text(bf_buf_t *csv, const char *s)
{
    if (strpbrk(s, ",\"\r\n") == NULL) {
        bf_buf_appendz(csv, s);
        return;
    }
    bf_buf_append(csv, "\"", 1);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            bf_buf_append(csv, "\"", 1);
        bf_buf_append(csv, p, 1);
    }
    bf_buf_append(csv, "\"", 1);
}

int bf_results_write_matrix(bf_results_t *r, const bf_scenario_t *sc, const bf_row_t *rows,
                            size_t nrows)
{
    /* CSV: the seed report's columns, extra axes, then the measured fields */
    bf_buf_t csv;
    bf_buf_init(&csv, 0);
    bf_buf_appendz(&csv, "indices,shards,replicas,batch_size,concurrency,docs_per_s");
    size_t naxes = bf_scenario_axis_count(sc);
    static const char *seed_axes[] = {"indices", "shards", "replicas", "batch_size", "concurrency"};
    int *extra = bf_calloc(naxes + 1, sizeof *extra);
    for (size_t i = 0; i < naxes; i++) {
        const char *ax = bf_scenario_axis_name(sc, i);
        extra[i] = 1;
        for (size_t k = 0; k < 5; k++)
            if (strcmp(ax, seed_axes[k]) == 0)
                extra[i] = 0;
        if (extra[i]) {
            bf_buf_append(&csv, ",", 1);
            csv_text(&csv, ax);
        }
    }
    for (size_t i = 1; i < NFIELDS; i++) /* fields[0] is docs_per_s, written above */
        if (fields[i].csv)
            bf_buf_appendf(&csv, ",%s", fields[i].name);
    bf_buf_appendz(&csv, ",doc_errors,cell,reason\n");
    for (size_t k = 0; k < nrows; k++) {
        const bf_row_t *row = &rows[k];
        const bf_cell_t *c = row->cell;
        bf_buf_appendf(&csv, "%u,%u,%u,%u,%u", c->indices, c->shards, c->replicas,
                       c->batch_size, c->concurrency);
        csv_field(&csv, row, &fields[0]);
        for (size_t i = 0; i < naxes; i++) {
            if (!extra[i])
                continue;
            const char *v = "";
            for (size_t a = 0; a < c->naxes; a++)
                if (strcmp(c->axes[a].axis, bf_scenario_axis_name(sc, i)) == 0)
                    v = c->axes[a].value;
            bf_buf_append(&csv, ",", 1);
            csv_text(&csv, v);
        }
        for (size_t i = 1; i < NFIELDS; i++)
            if (fields[i].csv)
                csv_field(&csv, row, &fields[i]);
        char types[512];
        bf_buf_append(&csv, ",", 1);
        csv_text(&csv, bf_errtypes_format(&row->doc_errors, types, sizeof types));
        bf_buf_append(&csv, ",", 1);
        csv_text(&csv, c->id);
        bf_buf_append(&csv, ",", 1);
        csv_text(&csv, row->reason);
        bf_buf_append(&csv, "\n", 1);
    }
    free(extra);
    int rc = write_atomic(r, "matrix.csv", csv.data, csv.len);
    bf_buf_cleanup(&csv);
    int any_queries = 0;
    for (size_t k = 0; k < nrows; k++)
        any_queries |= rows[k].nqueries > 0;
    if (any_queries && rc == BF_OK) {
        /* queries.csv: one line per cell and named query, beside the cell's bulk headline */
        bf_buf_init(&csv, 0);
        bf_buf_appendz(&csv, "cell,concurrency,search_clients,search_rate,docs_per_s,query");
        for (size_t i = 0; i < NQFIELDS; i++)
            bf_buf_appendf(&csv, ",%s", qfields[i].name);
        bf_buf_appendz(&csv, ",errors\n");
        for (size_t k = 0; k < nrows; k++) {
            const bf_row_t *row = &rows[k];
            for (uint32_t q = 0; row->cell->search_clients > 0 && q < row->nqueries; q++) {
                const bf_qrow_t *qr = &row->queries[q];
                csv_text(&csv, row->cell->id);
                bf_buf_appendf(&csv, ",%u,%u,%.0f", row->cell->concurrency,
                               row->cell->search_clients, row->cell->search_rate);
                csv_field(&csv, row, &fields[0]);
                bf_buf_append(&csv, ",", 1);
                csv_text(&csv, qr->name ? qr->name : "");
                for (size_t i = 0; i < NQFIELDS; i++)
                    csv_field(&csv, (const bf_row_t *)(const void *)qr, &qfields[i]);
                bf_buf_append(&csv, ",", 1);
                csv_text(&csv, qr->errors);
                bf_buf_append(&csv, "\n", 1);
            }
        }
        rc = write_atomic(r, "queries.csv", csv.data, csv.len);
        bf_buf_cleanup(&csv);
    }

    json_t *root = json_object();
    json_object_set_new(root, "scenario", json_string(bf_scenario_name(sc)));
    /* the seed that makes the generated documents repeatable (run.seed) */
    json_object_set_new(root, "seed", json_integer((json_int_t)bf_scenario_run(sc)->seed));
    if (r->have_cluster) {
        json_t *cl = json_object();
        json_object_set_new(cl, "distribution", json_string(r->cluster.distribution));
        json_object_set_new(cl, "version", json_string(r->cluster.version));
        json_object_set_new(cl, "nodes", json_integer(r->cluster.nodes));
        json_object_set_new(root, "cluster", cl);
    }
    if (r->metrics_store_json) {
        json_t *ms = json_loads(r->metrics_store_json, 0, NULL);
        if (ms)
            json_object_set_new(root, "metrics_store", ms);
    }
    json_t *arr = json_array();
    for (size_t k = 0; k < nrows; k++)
        json_array_append_new(arr, row_json(&rows[k]));
    json_object_set_new(root, "rows", arr);
    /* the findings as data (kind, axis values, figures): a script can chain the next study */
    bf_finding_point_t *pts = bf_calloc(nrows + 1, sizeof *pts);
    for (size_t k = 0; k < nrows; k++)
        bf_finding_point_from_row(&rows[k], &pts[k]);
    bf_findings_t *fd = bf_findings_compute(pts, nrows);
    json_object_set_new(root, "findings", bf_findings_json(fd));
    bf_findings_destroy(&fd);
    free(pts);
    json_t *qf = bf_qfindings_compute(arr);
    if (json_array_size(qf))
        json_object_set_new(root, "search_findings", qf);
    else
        json_decref(qf);
    char *js = json_dumps(root, JSON_INDENT(2));
    json_decref(root);
    if (rc == BF_OK)
        rc = write_atomic(r, "matrix.json", js, strlen(js));
    free(js);

    /* matrix.md: rendered in memory, then written like the others */
    char *md = NULL;
    size_t mdlen = 0;
    FILE *f = open_memstream(&md, &mdlen);
    if (f == NULL)
        return BF_E_NOMEM;
    if (r->lead_md != NULL)
        fputs(r->lead_md, f);
    bf_results_print_md(f, sc, rows, nrows);
    fclose(f);
    if (rc == BF_OK)
        rc = write_atomic(r, "matrix.md", md ? md : "", mdlen);
    free(md);
    return rc;
}

/* a Markdown cell: the number with `decimals`, or "-" when unknown */
static const char *md_num(char *buf, size_t n, double v, int decimals)
{
    fmt_num(buf, n, v, decimals);
    if (buf[0] == '\0')
        snprintf(buf, n, "-");
    return buf;
}

static const char *md_i64(char *buf, size_t n, int64_t v)
{
    if (v < 0)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%lld", (long long)v);
    return buf;
}

/* The search rows (issue #15): one line per cell and named query, beside the cell's bulk
 * headline, then the mutual-cost findings (bf_qfindings). Nothing without queries. */
static void print_md_queries(FILE *f, const bf_row_t *rows, size_t nrows)
{
    json_t *arr = json_array();
    for (size_t k = 0; k < nrows; k++)
        if (rows[k].nqueries)
            json_array_append_new(arr, row_json(&rows[k]));
    if (json_array_size(arr) == 0) {
        json_decref(arr);
        return;
    }
    fprintf(f, "\n## Search\n\n| cell | concurrency | search clients | search rate | docs/s | "
               "query | ops/s | service p50 ms | p90 | p99 | p99.9 | max | latency p90 ms | "
               "took mean ms | errors | timed out | shard failures | mean hits |\n|---|");
    for (int i = 0; i < 17; i++)
        fprintf(f, "---:|");
    fprintf(f, "\n");
    for (size_t k = 0; k < nrows; k++) {
        const bf_row_t *r = &rows[k];
        for (uint32_t q = 0; r->cell->search_clients > 0 && q < r->nqueries; q++) {
            const bf_qrow_t *qr = &r->queries[q];
            char b[10][32];
            fprintf(f, "| %s | %u | %u | %s | %.0f | %s | %.1f | %s | %s | %s | %s | %s | %s | %s "
                       "| %s | %llu | %llu | %s |\n",
                    r->cell->id, r->cell->concurrency, r->cell->search_clients,
                    r->cell->search_rate > 0 ? md_num(b[0], 32, r->cell->search_rate, 0) : "closed",
                    r->docs_per_s, qr->name ? qr->name : "", qr->ops_per_s,
                    md_num(b[1], 32, qr->service.p50_ms, 1), md_num(b[2], 32, qr->service.p90_ms, 1),
                    md_num(b[3], 32, qr->service.p99_ms, 1), md_num(b[4], 32, qr->service.p999_ms, 1),
                    md_num(b[5], 32, qr->service.max_ms, 1), md_num(b[6], 32, qr->latency.p90_ms, 1),
                    md_num(b[7], 32, qr->took_mean_ms, 1), qr->errors[0] ? qr->errors : "0",
                    (unsigned long long)qr->timed_out, (unsigned long long)qr->shard_failures,
                    md_num(b[8], 32, qr->mean_hits, 1));
        }
    }
    int profiled = 0;
    for (size_t k = 0; k < nrows; k++)
        for (uint32_t q = 0; q < rows[k].nqueries; q++)
            profiled |= isfinite(rows[k].queries[q].prof_service_ms);
    if (profiled) {
        fprintf(
            f,
            "\n### Profile of the slowest sampled request\n\n| cell | query | service ms | "
            "query ms | collectors ms | rewrite ms | fetch ms | rest ms (coordination, "
            "transfer) | rest %% | shards |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (size_t k = 0; k < nrows; k++) {
            for (uint32_t q = 0; q < rows[k].nqueries; q++) {
                const bf_qrow_t *qr = &rows[k].queries[q];
                if (!isfinite(qr->prof_service_ms))
                    continue;
                char b[8][32];
                fprintf(
                    f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %u |\n", rows[k].cell->id,
                    qr->name ? qr->name : "", md_num(b[0], 32, qr->prof_service_ms, 1),
                    md_num(b[1], 32, qr->prof_query_ms, 2),
                    md_num(b[2], 32, qr->prof_collectors_ms, 2),
                    md_num(b[3], 32, qr->prof_rewrite_ms, 2),
                    md_num(b[4], 32, qr->prof_fetch_ms, 2), md_num(b[5], 32, qr->prof_rest_ms, 1),
                    md_num(b[6], 32, qr->prof_rest_pct, 1), qr->prof_shards);
            }
        }
        fprintf(f, "\nPhases of the slowest shard as the Profile API reports them; the whole "
                   "answer is in profiles/<cell>-<query>.json.\n");
    }
    json_t *lines = bf_qfindings_compute(arr);
    if (json_array_size(lines)) {
        fprintf(f, "\n### What indexing and searching cost each other\n\n");
        size_t i;
        json_t *l;
        json_array_foreach(lines, i, l)
            fprintf(f, "- %s\n", json_string_value(l));
    }
    json_decref(lines);
    json_decref(arr);
}

void bf_results_print_md(FILE *f, const bf_scenario_t *sc, const bf_row_t *rows, size_t nrows)
{
    static const char *seed_axes[] = {"indices", "shards", "replicas", "batch_size", "concurrency"};
    size_t naxes = bf_scenario_axis_count(sc);
    int *extra = bf_calloc(naxes + 1, sizeof *extra);
    int target_rate = 0, repeats = 0, routed = 0;
    for (size_t k = 0; k < nrows; k++) {
        target_rate |= rows[k].cell->target_rate > 0;
        routed |= rows[k].cell->routing_mode != BF_ROUTE_NONE;
        repeats |= rows[k].repeat > 1;
    }
    /* the seed report's columns first (DESIGN §6), then the other axes, then the rest */
    fprintf(f, "| indices | shards | replicas | batch size | concurrency | docs/s |");
    for (size_t i = 0; i < naxes; i++) {
        const char *ax = bf_scenario_axis_name(sc, i);
        extra[i] = 1;
        for (size_t k = 0; k < 5; k++)
            if (strcmp(ax, seed_axes[k]) == 0)
                extra[i] = 0;
        if (extra[i])
            fprintf(f, " %s |", ax);
    }
    fprintf(f, " min | median | max | MB/s | service p50 ms | p90 | p99 | p99.9 | max |");
    if (target_rate)
        fprintf(f, " latency p50 ms | p90 | p99 | p99.9 | max |");
    fprintf(f, " doc errors %% | rejected (429) | write queue max | write rejected | hot spot | cluster docs/s |"
               " agent CPU %% |");
    /* routing_mode node|shard in some cell: what splitting did and what it saved */
    if (routed)
        fprintf(f, " sub-bulk docs | unrouted | misrouted | transport rx MB |");
    if (repeats)
        fprintf(f, " runs | CV %% |");
    fprintf(f, " verified | flags |\n|");
    size_t ncols = 6 + 5 + 5 + (target_rate ? 5 : 0) + 7 + (routed ? 4 : 0) + (repeats ? 2 : 0);
    for (size_t i = 0; i < naxes; i++)
        ncols += (size_t)extra[i];
    for (size_t i = 0; i < ncols; i++)
        fprintf(f, "---:|");
    fprintf(f, ":---:|---|\n");
    for (size_t k = 0; k < nrows; k++) {
        const bf_row_t *r = &rows[k];
        const bf_cell_t *c = r->cell;
        char b[17][32], flags[128];
        fprintf(f, "| %u | %u | %u | %u | %u | %.0f |", c->indices, c->shards, c->replicas,
                c->batch_size, c->concurrency, r->docs_per_s);
        for (size_t i = 0; i < naxes; i++) {
            if (!extra[i])
                continue;
            const char *v = "";
            for (size_t a = 0; a < c->naxes; a++)
                if (strcmp(c->axes[a].axis, bf_scenario_axis_name(sc, i)) == 0)
                    v = c->axes[a].value;
            fprintf(f, " %s |", v);
        }
        fprintf(f, " %.0f | %.0f | %.0f | %.1f | %s | %s | %s | %s | %s |", r->docs_per_s_min,
                r->docs_per_s_median, r->docs_per_s_max, r->mb_per_s_payload,
                md_num(b[0], 32, r->service.p50_ms, 1), md_num(b[1], 32, r->service.p90_ms, 1),
                md_num(b[2], 32, r->service.p99_ms, 1), md_num(b[3], 32, r->service.p999_ms, 1),
                md_num(b[4], 32, r->service.max_ms, 1));
        if (target_rate)
            fprintf(f, " %s | %s | %s | %s | %s |", md_num(b[5], 32, r->latency.p50_ms, 1),
                    md_num(b[6], 32, r->latency.p90_ms, 1), md_num(b[7], 32, r->latency.p99_ms, 1),
                    md_num(b[8], 32, r->latency.p999_ms, 1), md_num(b[9], 32, r->latency.max_ms, 1));
        fprintf(f, " %.2f | %llu | %s | %s | %s | %s | %s |", r->doc_error_rate * 100.0,
                (unsigned long long)r->docs_rejected, md_i64(b[10], 32, r->write_queue_max),
                md_i64(b[11], 32, r->write_rejected), md_num(b[12], 32, r->hot_spot_ratio, 2),
                md_num(b[13], 32, r->cluster_docs_per_s, 0),
                md_num(b[16], 32, r->agent_cpu_pct, bf_row_field_decimals("agent_cpu_pct")));
        if (routed)
            fprintf(f, " %s | %llu | %llu | %s |", md_num(b[15], 32, r->subbulk_docs_mean, 1),
                    (unsigned long long)r->docs_unrouted, (unsigned long long)r->docs_misrouted,
                    md_num(b[14], 32,
                           r->transport_rx_bytes >= 0 ? r->transport_rx_bytes / 1e6 : NAN, 2));
        if (repeats)
            fprintf(f, " %u | %s |", r->repeat,
                    r->repeat > 1 ? md_num(b[14], 32, r->cv * 100.0, 1) : "-");
        fprintf(f, " %s | %s |\n", r->verified ? "yes" : "NO", flags_text(r, flags, sizeof flags));
    }
    free(extra);
    fprintf(f, "\n- = not measured: too few samples for the percentile (p90 needs 10, p99 100, "
               "p99.9 1000) or no cluster telemetry.%s\n",
            target_rate ? "" : " Latency equals service time in closed-loop cells (see matrix.csv).");
    int few = 0;
    for (size_t k = 0; k < nrows; k++)
        few |= rows[k].few_requests;
    if (few)
        fprintf(f,
                "few-requests: fewer than %d bulk responses in the measurement window, too few "
                "to rank the cell's docs/s (the findings leave it out); lengthen run.duration.\n",
                BF_FEW_REQUESTS);
    bf_finding_point_t *pts = bf_calloc(nrows + 1, sizeof *pts);
    for (size_t k = 0; k < nrows; k++)
        bf_finding_point_from_row(&rows[k], &pts[k]);
    bf_findings_t *fd = bf_findings_compute(pts, nrows);
    bf_findings_print_md(fd, f);
    bf_findings_destroy(&fd);
    free(pts);
    print_md_queries(f, rows, nrows);
}

int bf_results_cell_finished(const bf_results_t *r, const char *name)
{
    char *path = bf_asprintf("%s/cells/%s.ndjson", r->dir, name);
    int ok = access(path, R_OK) == 0;
    free(path);
    return ok;
}

long bf_results_cell_partial(const bf_results_t *r, const char *name)
{
    char *path = bf_asprintf("%s/cells/%s.samples.partial", r->dir, name);
    FILE *f = fopen(path, "r");
    free(path);
    if (f == NULL)
        return -1;
    long lines = 0;
    int ch;
    while ((ch = getc(f)) != EOF)
        lines += ch == '\n';
    fclose(f);
    return lines;
}

/* A row object (matrix.json rows[], a cell file's first line) into *row through the field
 * tables; the cell is the caller's. Query names are borrowed from ss when it names them (a
 * fresh row's are), else left NULL. missing(ctx, name) is called for each table field the
 * object lacks (may be NULL). */
typedef void (*missing_fn)(void *ctx, const char *name);
static void row_load(json_t *o, const bf_search_spec_t *ss, bf_row_t *row, missing_fn missing,
                     void *ctx)
{
    for (size_t i = 0; i < NFIELDS; i++) {
        json_t *v = json_object_get(o, fields[i].name);
        if (v == NULL && missing)
            missing(ctx, fields[i].name);
        field_load(row, &fields[i], v);
    }
    row->repetition = (uint32_t)json_integer_value(json_object_get(o, "repetition"));
    bf_strlcpy(row->reason, json_string_value(json_object_get(o, "reason")) ?: "", sizeof row->reason);
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

int bf_results_load_row(const bf_results_t *r, const char *name, const bf_cell_t *cell,
                        bf_row_t *row)
{
    char *path = bf_asprintf("%s/cells/%s.ndjson", r->dir, name);
    FILE *f = fopen(path, "r");
    free(path);
    if (f == NULL)
        return BF_E_NOTFOUND;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, f);
    fclose(f);
    if (n <= 0) {
        free(line);
        return BF_E_PARSE;
    }
    json_t *o = json_loads(line, 0, NULL);
    free(line);
    if (!json_is_object(o)) {
        json_decref(o);
        return BF_E_PARSE;
    }
    memset(row, 0, sizeof *row);
    row->cell = cell;
    row_load(o, r->sc ? bf_scenario_search(r->sc) : NULL, row, NULL, NULL);
    json_decref(o);
    return BF_OK;
}

/* ---- the row codec, read side: a row object back into a typed row ------------------------- */

json_t *bf_row_encode(const bf_row_t *row)
{
    return row_json(row);
}

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
static int type_ok(enum ftype t, json_t *v)
{
    if (v == NULL || json_is_null(v))
        return 1;
    switch (t) {
    case F_DBL: return json_is_number(v);
    case F_U64:
    case F_I64:
    case F_U32: return json_is_integer(v);
    case F_INT: return json_is_boolean(v);
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
                        fields[i].type == F_DBL   ? "a number"
                        : fields[i].type == F_INT ? "true or false"
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
    row_load(o, NULL, &rec->row, rec_missing, rec);
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
            return field_json(row, &fields[i]);
    return NULL;
}

json_t *bf_qrow_field_value(const bf_qrow_t *q, const char *name)
{
    for (size_t i = 0; i < NQFIELDS; i++)
        if (strcmp(qfields[i].name, name) == 0)
            return field_json((const bf_row_t *)(const void *)q, &qfields[i]);
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
        json_t *v = field_json(row, &fields[i]);
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
