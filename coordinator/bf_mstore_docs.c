/* SPDX-License-Identifier: MIT */
/* bf_mstore_docs.c — the metrics store's index templates and the documents of a finished cell.
 *
 * The results files are the source of truth; this module only reshapes their lines into
 * documents (bf_mstore_docs.h says which, with which ids and timestamps). JSON through jansson.
 */
#include "bf_mstore_docs.h"

#include "bf_matrixfile.h"
#include "bf_mem.h"
#include "bf_sample.h"
#include "bf_scenario.h"
#include "bf_sha256.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* ---- templates ----------------------------------------------------------------------------- */

static void prop(json_t *props, const char *name, const char *type)
{
    json_t *o = json_object();
    json_object_set_new(o, "type", json_string(type));
    json_object_set_new(props, name, o);
}

/* dimensions every document has */
static void common_props(json_t *props)
{
    prop(props, "@timestamp", "date");
    static const char *kw[] = {"kind",  "campaign", "scenario", "cell",     "cell_name",
                               "phase", "agent",    "node_id",  "node_name"};
    for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
        prop(props, kw[i], "keyword");
    prop(props, "repetition", "integer");
    prop(props, "second", "integer");
    json_t *axes = json_object();
    json_object_set_new(axes, "type", json_string("object"));
    json_object_set_new(props, "axes", axes);
}

static json_t *dyn(const char *name, const char *key, const char *match, const char *type)
{
    json_t *m = json_object();
    json_object_set_new(m, key, json_string(match));
    /* axis names with dots ("settings.refresh_interval") become objects under axes: only
     * their string leaves are keywords */
    if (strcmp(key, "path_match") == 0)
        json_object_set_new(m, "match_mapping_type", json_string("string"));
    json_t *mp = json_object();
    json_object_set_new(mp, "type", json_string(type));
    json_object_set_new(m, "mapping", mp);
    json_t *o = json_object();
    json_object_set_new(o, name, m);
    return o;
}

/* row fields the dashboards and a reader of the index rely on (the rest follow the dynamic
 * templates: numbers stay numbers, strings are keywords) */
static const char *row_doubles[] = {"docs_per_s",           "docs_per_s_min",     "docs_per_s_p10",
                                    "docs_per_s_median",    "docs_per_s_p90",     "docs_per_s_max",
                                    "attempted_docs_per_s", "mb_per_s_payload",   "mb_per_s_wire",
                                    "service_p50_ms",       "service_p90_ms",     "service_p99_ms",
                                    "service_p99_9_ms",     "service_max_ms",     "service_mean_ms",
                                    "latency_p50_ms",       "latency_p90_ms",     "latency_p99_ms",
                                    "latency_p99_9_ms",     "latency_max_ms",     "latency_mean_ms",
                                    "doc_error_rate",       "request_error_rate", "hot_spot_ratio",
                                    "cluster_docs_per_s",   "agent_cpu_pct",      "cv",
                                    "docs_per_s_ci_low",    "docs_per_s_ci_high"};
static const char *row_longs[] = {
    "indices",         "shards",         "replicas",      "batch_size",    "concurrency",
    "docs_sent",       "docs_ok",        "docs_rejected", "docs_failed",   "http_429",
    "write_queue_max", "write_rejected", "docs_counted",  "docs_ok_all",   "agents",
    "warmup_s",        "duration_s",     "cell_index",    "service_count", "latency_count",
    "round",           "position",       "started_at_ms"};
static const char *row_bools[] = {"verified", "degraded", "client_bound", "failed",
                                  "aborted",  "stalled",  "yellow",       "unsteady"};

char *bf_mstore_docs_template(int results)
{
    json_t *props = json_object();
    common_props(props);
    if (results) {
        for (size_t i = 0; i < sizeof row_doubles / sizeof row_doubles[0]; i++)
            prop(props, row_doubles[i], "double");
        for (size_t i = 0; i < sizeof row_longs / sizeof row_longs[0]; i++)
            prop(props, row_longs[i], "long");
        for (size_t i = 0; i < sizeof row_bools / sizeof row_bools[0]; i++)
            prop(props, row_bools[i], "boolean");
        prop(props, "reason", "keyword");
        prop(props, "cluster_distribution", "keyword");
        prop(props, "cluster_version", "keyword");
        prop(props, "cluster_nodes", "integer");
    } else {
        for (size_t i = 0; i < bf_counter_nfields; i++)
            prop(props, bf_counter_fields[i].name, "long");
        prop(props, "docs_per_s", "double");
        /* telemetry (coordinator/bf_telemetry.c's tick lines, one document per node) */
        static const char *node_longs[] = {
            "t_ms",           "queue",       "active",        "rejected",
            "rejected_delta", "index_total", "index_time_ms", "primaries_index_total"};
        for (size_t i = 0; i < sizeof node_longs / sizeof node_longs[0]; i++)
            prop(props, node_longs[i], "long");
        prop(props, "index_docs_per_s", "double");
        prop(props, "data", "boolean");
    }
    json_t *dt = json_array();
    json_array_append_new(dt, dyn("axes_as_keywords", "path_match", "axes.*", "keyword"));
    json_array_append_new(dt,
                          dyn("strings_as_keywords", "match_mapping_type", "string", "keyword"));
    json_array_append_new(dt, dyn("integers_as_long", "match_mapping_type", "long", "long"));
    json_array_append_new(dt, dyn("reals_as_double", "match_mapping_type", "double", "double"));
    json_t *mappings = json_object();
    json_object_set_new(mappings, "dynamic_templates", dt);
    json_object_set_new(mappings, "properties", props);
    json_t *meta = json_object();
    json_object_set_new(meta, "created_by", json_string("bulkfleet"));
    json_object_set_new(mappings, "_meta", meta);
    json_t *settings = json_object();
    json_object_set_new(settings, "number_of_shards", json_integer(1));
    json_object_set_new(settings, "auto_expand_replicas", json_string("0-1"));
    json_t *tmpl = json_object();
    json_object_set_new(tmpl, "settings", settings);
    json_object_set_new(tmpl, "mappings", mappings);
    json_t *root = json_object();
    json_t *pat = json_array();
    json_array_append_new(
        pat, json_string(results ? BF_MSTORE_RESULTS_INDEX : BF_MSTORE_SAMPLES_PREFIX "*"));
    json_object_set_new(root, "index_patterns", pat);
    json_object_set_new(root, "priority", json_integer(200));
    json_object_set_new(root, "template", tmpl);
    json_t *m2 = json_object();
    json_object_set_new(m2, "created_by", json_string("bulkfleet"));
    json_object_set_new(root, "_meta", m2);
    char *s = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(root);
    return s;
}

/* ---- names --------------------------------------------------------------------------------- */

void bf_mstore_docs_campaign(const char *results_dir, char *buf, size_t size)
{
    size_t len = strlen(results_dir);
    while (len > 1 && results_dir[len - 1] == '/')
        len--;
    size_t start = len;
    while (start > 0 && results_dir[start - 1] != '/')
        start--;
    size_t n = len - start;
    if (n >= size)
        n = size ? size - 1 : 0;
    if (size) {
        memcpy(buf, results_dir + start, n);
        buf[n] = '\0';
    }
}

void bf_mstore_docs_samples_index(const char *campaign, int64_t fallback_unix_s, char *buf,
                                  size_t size)
{
    /* "...-YYYYMMDDTHHMMSSZ" (bf_clock_utc_stamp) */
    size_t len = strlen(campaign);
    const char *st = len >= 16 ? campaign + len - 16 : NULL;
    int ok = st != NULL && st[8] == 'T' && st[15] == 'Z';
    for (int i = 0; ok && i < 8; i++)
        ok = st[i] >= '0' && st[i] <= '9';
    if (ok) {
        snprintf(buf, size, BF_MSTORE_SAMPLES_PREFIX "%.4s.%.2s", st, st + 4);
        return;
    }
    time_t t = (time_t)fallback_unix_s;
    struct tm tm;
    gmtime_r(&t, &tm);
    snprintf(buf, size, BF_MSTORE_SAMPLES_PREFIX "%04d.%02d", tm.tm_year + 1900, tm.tm_mon + 1);
}

void bf_mstore_docs_id(char *buf, size_t size, const char *campaign, const char *cell_name,
                       const char *kind, const char *rest)
{
    char *id = bf_asprintf("%s/%s/%s%s%s", campaign, cell_name, kind, rest[0] ? "/" : "", rest);
    if (strlen(id) > BF_MSTORE_MAX_ID_BYTES) {
        char hex[65];
        bf_sha256_hex(id, strlen(id), hex);
        bf_strlcpy(buf, hex, size);
    } else {
        bf_strlcpy(buf, id, size);
    }
    free(id);
}

/* ---- documents ----------------------------------------------------------------------------- */

/* "2026-12-01T20:52:45.123Z" */
static void iso_ms(int64_t unix_ms, char *buf, size_t size)
{
    time_t t = (time_t)(unix_ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    char s[32];
    strftime(s, sizeof s, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, size, "%s.%03dZ", s, (int)(unix_ms % 1000));
}

typedef struct cellctx {
    const char *campaign, *scenario, *name;
    char samples_index[64];
    json_t *dims;     /* campaign, scenario, cell, cell_name, repetition, axes */
    int64_t start_ms; /* wall time of second 0 */
    int64_t warmup_s, duration_s;
    bf_mstore_docs_emit_fn emit;
    void *ctx;
} cellctx;

static int emit_doc(cellctx *cx, const char *index, json_t *o, const char *kind, const char *rest)
{
    json_object_update(o, cx->dims);
    json_object_set_new(o, "kind", json_string(kind));
    char id[BF_MSTORE_MAX_ID_BYTES + 1];
    bf_mstore_docs_id(id, sizeof id, cx->campaign, cx->name, kind, rest);
    char *src = json_dumps(o, JSON_COMPACT);
    int rc = cx->emit(cx->ctx, index, id, src);
    free(src);
    return rc;
}

static void set_time(json_t *o, int64_t unix_ms)
{
    char ts[40];
    iso_ms(unix_ms, ts, sizeof ts);
    json_object_set_new(o, "@timestamp", json_string(ts));
}

static const char *phase_of(const cellctx *cx, int64_t second)
{
    if (second < 0)
        return "before";
    if (second < cx->warmup_s)
        return "warmup";
    if (second < cx->warmup_s + cx->duration_s)
        return "measure";
    return "tail";
}

/* a "second" or "agent_second" line */
static int second_doc(cellctx *cx, json_t *o, const char *kind)
{
    int64_t s = json_integer_value(json_object_get(o, "second"));
    json_t *ag = json_object_get(o, "agent");
    const char *agent = json_is_string(ag) ? json_string_value(ag) : "";
    json_object_del(o, "type");
    set_time(o, cx->start_ms + s * 1000);
    json_object_set_new(o, "phase", json_string(phase_of(cx, s)));
    /* one-second buckets: the docs_ok of a second is its docs/s */
    json_object_set_new(o, "docs_per_s",
                        json_real((double)json_integer_value(json_object_get(o, "docs_ok"))));
    char rest[BF_MSTORE_MAX_ID_BYTES + 1];
    if (agent[0])
        snprintf(rest, sizeof rest, "%s/%lld", agent, (long long)s);
    else
        snprintf(rest, sizeof rest, "%lld", (long long)s);
    return emit_doc(cx, cx->samples_index, o, kind, rest);
}

/* a telemetry "tick": one document per node */
static int tick_docs(cellctx *cx, json_t *tick, bf_mstore_docs_counts_t *counts)
{
    int64_t t_ms = json_integer_value(json_object_get(tick, "t_ms"));
    json_t *sec = json_object_get(tick, "second");
    json_t *nodes = json_object_get(tick, "nodes");
    size_t i;
    json_t *n;
    json_array_foreach(nodes, i, n)
    {
        if (!json_is_object(n))
            continue;
        json_t *o = json_deep_copy(n);
        json_t *id = json_object_get(o, "id");
        char node_id[128];
        snprintf(node_id, sizeof node_id, "%s", json_is_string(id) ? json_string_value(id) : "");
        if (!node_id[0])
            snprintf(node_id, sizeof node_id, "%zu", i);
        json_object_set_new(o, "node_id", json_string(node_id));
        json_t *nm = json_object_get(o, "name");
        if (json_is_string(nm))
            json_object_set(o, "node_name", nm);
        json_object_del(o, "id");
        json_object_del(o, "name");
        json_object_set_new(o, "t_ms", json_integer((json_int_t)t_ms));
        if (json_is_integer(sec)) {
            json_object_set(o, "second", sec);
            json_object_set_new(o, "phase", json_string(phase_of(cx, json_integer_value(sec))));
        }
        json_t *pit = json_object_get(tick, "primaries_index_total");
        if (pit)
            json_object_set(o, "primaries_index_total", pit);
        set_time(o, cx->start_ms + t_ms);
        char rest[BF_MSTORE_MAX_ID_BYTES + 1];
        snprintf(rest, sizeof rest, "%lld/%s", (long long)t_ms, node_id);
        int rc = emit_doc(cx, cx->samples_index, o, "node", rest);
        json_decref(o);
        if (rc != 0)
            return rc;
        if (counts)
            counts->nodes++;
    }
    return 0;
}

/* next line of f into *line (getline buffer); 1 = a line (newline stripped), 0 = end; lines
 * over BF_MSTORE_MAX_LINE_BYTES are returned with *too_long set */
static int next_line(FILE *f, char **line, size_t *cap, int *too_long)
{
    ssize_t n = getline(line, cap, f);
    if (n < 0)
        return 0;
    if (n > 0 && (*line)[n - 1] == '\n')
        (*line)[--n] = '\0';
    *too_long = (size_t)n > BF_MSTORE_MAX_LINE_BYTES;
    return 1;
}

int bf_mstore_docs_cell(const char *results_dir, const char *campaign, const char *scenario,
                        const char *name, bf_mstore_docs_emit_fn emit, void *ctx,
                        bf_mstore_docs_counts_t *counts, bf_diag_t *diag)
{
    char *path = bf_asprintf("%s/cells/%s.ndjson", results_dir, name);
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    int rc = BF_OK, too_long = 0;
    json_t *row = NULL;
    cellctx cx;
    memset(&cx, 0, sizeof cx);
    if (f == NULL) {
        rc = bf_diag_set(diag, errno == ENOENT ? BF_E_NOTFOUND : BF_E_IO, "%s: %s", path,
                         strerror(errno));
        goto out;
    }
    struct stat st;
    int64_t end_ms = 0;
    if (fstat(fileno(f), &st) == 0)
        end_ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
    if (next_line(f, &line, &cap, &too_long) && !too_long)
        row = json_loads(line, 0, NULL);
    if (!json_is_object(row) || !json_is_string(json_object_get(row, "type")) ||
        strcmp(json_string_value(json_object_get(row, "type")), "row") != 0) {
        rc = bf_diag_set(diag, BF_E_PARSE,
                         "%s:1: not a cell's results file (its first line is not a "
                         "\"type\":\"row\" object); give a bulkfleet results directory",
                         path);
        goto out;
    }
    cx.campaign = campaign;
    cx.scenario = scenario;
    cx.name = name;
    cx.emit = emit;
    cx.ctx = ctx;
    cx.warmup_s = json_integer_value(json_object_get(row, "warmup_s"));
    cx.duration_s = json_integer_value(json_object_get(row, "duration_s"));
    cx.start_ms = end_ms - (cx.warmup_s + cx.duration_s) * 1000;
    bf_mstore_docs_samples_index(campaign, end_ms / 1000, cx.samples_index,
                                 sizeof cx.samples_index);
    cx.dims = json_object();
    json_object_set_new(cx.dims, "campaign", json_string(campaign));
    json_object_set_new(cx.dims, "scenario", json_string(scenario));
    json_object_set_new(cx.dims, "cell_name", json_string(name));
    json_t *cid = json_object_get(row, "cell");
    json_object_set_new(cx.dims, "cell",
                        json_string(json_is_string(cid) ? json_string_value(cid) : name));
    json_t *rep = json_object_get(row, "repetition");
    json_object_set_new(cx.dims, "repetition",
                        json_integer(json_is_integer(rep) ? json_integer_value(rep) : 1));
    json_t *axes = json_object_get(row, "axes");
    if (json_is_object(axes))
        json_object_set(cx.dims, "axes", axes);

    /* the row: bulkfleet-results, @timestamp = the cell's end */
    json_object_del(row, "type");
    set_time(row, end_ms);
    rc = emit_doc(&cx, BF_MSTORE_RESULTS_INDEX, row, "row", "");
    if (rc != 0)
        goto out;
    if (counts)
        counts->rows++;
    while (next_line(f, &line, &cap, &too_long)) {
        if (too_long) {
            if (counts)
                counts->skipped++;
            continue;
        }
        /* raw "sample" lines repeat what the agent seconds hold: not stored */
        if (strstr(line, "\"type\":\"second\"") == NULL &&
            strstr(line, "\"type\":\"agent_second\"") == NULL)
            continue;
        json_t *o = json_loads(line, 0, NULL);
        const char *type = json_string_value(json_object_get(o, "type"));
        if (type == NULL) {
            if (counts)
                counts->skipped++;
        } else if (strcmp(type, "second") == 0) {
            rc = second_doc(&cx, o, "second");
            if (rc == 0 && counts)
                counts->seconds++;
        } else if (strcmp(type, "agent_second") == 0) {
            rc = second_doc(&cx, o, "agent_second");
            if (rc == 0 && counts)
                counts->agent_seconds++;
        }
        json_decref(o);
        if (rc != 0)
            goto out;
    }
    fclose(f);
    free(path);
    path = bf_asprintf("%s/telemetry/%s.ndjson", results_dir, name);
    f = fopen(path, "r");
    while (f && next_line(f, &line, &cap, &too_long)) {
        if (too_long || strstr(line, "\"type\":\"tick\"") == NULL)
            continue;
        json_t *o = json_loads(line, 0, NULL);
        if (o == NULL) {
            if (counts)
                counts->skipped++;
            continue;
        }
        rc = tick_docs(&cx, o, counts);
        json_decref(o);
        if (rc != 0)
            goto out;
    }
out:
    if (f)
        fclose(f);
    json_decref(row);
    json_decref(cx.dims);
    free(line);
    free(path);
    return rc;
}

int bf_mstore_docs_matrix(const char *results_dir, const char *campaign, const char *scenario,
                          bf_mstore_docs_emit_fn emit, void *ctx, uint64_t *n, bf_diag_t *diag)
{
    json_t *m = NULL;
    int rc = bf_matrixfile_read(results_dir, &m, diag); /* the one reader of matrix.json */
    if (rc != BF_OK)
        return rc;
    json_t *rows = json_object_get(m, "rows");
    /* @timestamp: when matrix.json was written (the results files keep no wall times) */
    char *path = bf_asprintf("%s/matrix.json", results_dir);
    struct stat st;
    int64_t ms =
        stat(path, &st) == 0 ? (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000 : 0;
    free(path);
    json_t *cl = json_object_get(m, "cluster");
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row)
    {
        const char *cell = json_string_value(json_object_get(row, "cell"));
        if (cell == NULL)
            continue;
        json_t *o = json_deep_copy(row);
        json_object_set_new(o, "campaign", json_string(campaign));
        json_object_set_new(o, "scenario", json_string(scenario));
        json_object_set_new(o, "cell_name", json_string(cell));
        json_object_set_new(o, "kind", json_string("matrix_row"));
        if (json_is_object(cl)) {
            json_object_set(o, "cluster_distribution", json_object_get(cl, "distribution"));
            json_object_set(o, "cluster_version", json_object_get(cl, "version"));
            json_object_set(o, "cluster_nodes", json_object_get(cl, "nodes"));
        }
        set_time(o, ms);
        char id[BF_MSTORE_MAX_ID_BYTES + 1];
        bf_mstore_docs_id(id, sizeof id, campaign, cell, "matrix_row", "");
        char *src = json_dumps(o, JSON_COMPACT);
        json_decref(o);
        rc = emit(ctx, BF_MSTORE_RESULTS_INDEX, id, src);
        free(src);
        if (rc != 0)
            break;
        if (n)
            (*n)++;
    }
    json_decref(m);
    return rc;
}

int bf_mstore_docs_live_second(const char *campaign, const char *scenario,
                               const struct bf_cell *cell, const char *cell_name,
                               uint32_t repetition, int64_t second, const struct bf_counters *ctr,
                               int64_t unix_ms, int64_t warmup_s, int64_t duration_s,
                               bf_mstore_docs_emit_fn emit, void *ctx)
{
    cellctx cx;
    memset(&cx, 0, sizeof cx);
    cx.campaign = campaign;
    cx.scenario = scenario;
    cx.name = cell_name;
    cx.emit = emit;
    cx.ctx = ctx;
    cx.warmup_s = warmup_s;
    cx.duration_s = duration_s;
    cx.start_ms = unix_ms - second * 1000;
    bf_mstore_docs_samples_index(campaign, unix_ms / 1000, cx.samples_index,
                                 sizeof cx.samples_index);
    cx.dims = json_object();
    json_object_set_new(cx.dims, "campaign", json_string(campaign));
    json_object_set_new(cx.dims, "scenario", json_string(scenario));
    json_object_set_new(cx.dims, "cell_name", json_string(cell_name));
    json_object_set_new(cx.dims, "cell", json_string(cell->id));
    json_object_set_new(cx.dims, "repetition", json_integer(repetition));
    json_t *axes = json_object();
    for (size_t a = 0; a < cell->naxes; a++)
        json_object_set_new(axes, cell->axes[a].axis, json_string(cell->axes[a].value));
    json_object_set_new(cx.dims, "axes", axes);
    /* the counters as resultlib writes a "second" line (bf_counter_fields, http_status) */
    json_t *o = json_object();
    for (size_t i = 0; i < bf_counter_nfields; i++)
        json_object_set_new(
            o, bf_counter_fields[i].name,
            json_integer((json_int_t) * (const uint64_t *)((const char *)ctr +
                                                           bf_counter_fields[i].counters_off)));
    json_t *st = json_object();
    for (int i = 0; i < BF_HTTP_STATUS_MAX; i++) {
        if (ctr->http_status[i]) {
            char k[8];
            snprintf(k, sizeof k, "%d", i);
            json_object_set_new(st, k, json_integer((json_int_t)ctr->http_status[i]));
        }
    }
    json_object_set_new(o, "http_status", st);
    json_object_set_new(o, "second", json_integer((json_int_t)second));
    int rc = second_doc(&cx, o, "second");
    json_decref(o);
    json_decref(cx.dims);
    return rc;
}
