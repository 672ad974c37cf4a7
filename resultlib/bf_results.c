/* SPDX-License-Identifier: MIT */
/* bf_results.c — results directory writers: cell files, samples, matrix.csv/.md/.json.
 *
 * The rows go through the row codec (bf_rowcodec.c); matrix.json and matrix.md also get the
 * findings (bf_findings.c, bf_qfindings.c), which read rows through the same codec: this file
 * calls both, neither calls back. */
#include "bf_results.h"
#include "bf_rowcodec_int.h"

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
#include <time.h>
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
    /* the failed writes said (the last 8 of them): a file written again at the
     * campaign's end (matrix.csv after each cell and at the end) fails the same way, said once */
    char *said[8];
    size_t nsaid;
    char *metrics_store_json; /* matrix.json's "metrics_store" object, or NULL */
    json_t *schedule;         /* matrix.json's "schedule" array (owned), or NULL */
    json_t *until;            /* matrix.json's "repeat_auto" object (owned), or NULL */
    char *lead_md;            /* Markdown matrix.md starts with (find-max's answer), or NULL */
    /* the runs of this campaign's directory: each coordinator invocation's start (Unix ms),
     * those of a --resume directory's matrix.json "runs", then this one's */
    int64_t *run_starts;
    size_t nrun_starts;
    char *runs_note; /* the findings sentence on the runs, or NULL (bf_results_runs) */
};

static void print_md(FILE *f, const bf_scenario_t *sc, const bf_row_t *rows, size_t nrows,
                     const char *runs_note);

/* ---- files -------------------------------------------------------------------------------- */

/* a failed write d said on stderr unless the same failure was said already, and kept as the
 * first failure (bf_results_error) when it is */
static void write_failed(bf_results_t *r, const bf_diag_t *d)
{
    size_t cap = sizeof r->said / sizeof r->said[0];
    for (size_t i = 0; i < r->nsaid && i < cap; i++)
        if (strcmp(r->said[i], d->msg) == 0)
            return;
    bf_error("%s", d->msg);
    free(r->said[r->nsaid % cap]);
    r->said[r->nsaid++ % cap] = bf_strdup(d->msg);
    if (r->err.code == BF_OK)
        r->err = *d;
}

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
    if (rc != BF_OK)
        write_failed(r, &d);
    free(path);
    return rc;
}

#define MAX_RUNS 1000

/* the runs a --resume directory's matrix.json recorded ("runs": their "started_at_ms"), then
 * this one starting now */
static void read_runs(bf_results_t *r, const char *resume_dir)
{
    json_t *m = NULL;
    if (resume_dir) {
        char *p = bf_asprintf("%s/matrix.json", resume_dir);
        m = json_load_file(p, 0, NULL);
        free(p);
    }
    json_t *runs = json_object_get(m, "runs");
    size_t n = json_array_size(runs) < MAX_RUNS ? json_array_size(runs) : MAX_RUNS;
    r->run_starts = bf_calloc(n + 1, sizeof *r->run_starts);
    for (size_t i = 0; i < n; i++) {
        json_int_t t =
            json_integer_value(json_object_get(json_array_get(runs, i), "started_at_ms"));
        if (t > 0 && (r->nrun_starts == 0 || t > r->run_starts[r->nrun_starts - 1]))
            r->run_starts[r->nrun_starts++] = (int64_t)t;
    }
    r->run_starts[r->nrun_starts++] = (int64_t)(bf_clock_wall_us() / 1000);
    json_decref(m);
}

/* "2026-12-07 19:20:01 UTC" (text 1) or "2026-12-07T19:20:01.123Z" (text 0) of Unix ms */
static void when_text(int64_t ms, int text, char *buf, size_t size)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    size_t l = strftime(buf, size, text ? "%Y-%m-%d %H:%M:%S UTC" : "%Y-%m-%dT%H:%M:%S", &tm);
    if (!text)
        snprintf(buf + l, size - l, ".%03dZ", (int)(ms % 1000));
}

/* "2 h 13 min", "4 min 29 s", "12 s" */
static void span_text(int64_t ms, char *buf, size_t size)
{
    int64_t s = ms > 0 ? (ms + 500) / 1000 : 0;
    if (s >= 3600)
        snprintf(buf, size, "%lld h %lld min", (long long)(s / 3600), (long long)(s % 3600 / 60));
    else if (s >= 60)
        snprintf(buf, size, "%lld min %lld s", (long long)(s / 60), (long long)(s % 60));
    else
        snprintf(buf, size, "%lld s", (long long)s);
}

#define RUNS_NAMES 12

char *bf_results_runs(const int64_t *starts, size_t nstarts, const bf_run_rep_t *reps, size_t n,
                      json_t **runs_out)
{
    int64_t early = INT64_MAX; /* the first repetition of an unrecorded earlier run */
    size_t *ord = bf_calloc(n + 1, sizeof *ord), m = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t t = reps[i].started_at_ms;
        if (t <= 0)
            continue;
        ord[m++] = i;
        if ((nstarts == 0 || t < starts[0]) && t < early)
            early = t;
    }
    for (size_t a = 1; a < m; a++) /* by start: insertion sort, a campaign's few hundred */
        for (size_t b = a; b > 0 && reps[ord[b]].started_at_ms < reps[ord[b - 1]].started_at_ms;
             b--) {
            size_t t = ord[b];
            ord[b] = ord[b - 1];
            ord[b - 1] = t;
        }
    int64_t *st = bf_calloc(nstarts + 2, sizeof *st);
    size_t ns = 0;
    if (early != INT64_MAX)
        st[ns++] = early;
    for (size_t i = 0; i < nstarts; i++)
        st[ns++] = starts[i];
    json_t *runs = json_array();
    bf_buf_t text;
    bf_buf_init(&text, 0);
    size_t nmeasured = 0, j = 0;
    int64_t prev_last = 0;
    for (size_t r = 0; r < ns; r++) {
        int64_t end = r + 1 < ns ? st[r + 1] : INT64_MAX;
        size_t first = j;
        while (j < m && reps[ord[j]].started_at_ms < end)
            j++;
        if (j == first)
            continue;
        nmeasured++;
        char when[48], iso[48], gap[48];
        when_text(st[r], 1, when, sizeof when);
        when_text(st[r], 0, iso, sizeof iso);
        json_t *names = json_array();
        bf_buf_appendf(&text, "%srun %zu from %s", nmeasured > 1 ? "; " : "", nmeasured, when);
        if (nmeasured > 1) {
            span_text(reps[ord[first]].started_at_ms - prev_last, gap, sizeof gap);
            bf_buf_appendf(&text, ", %s after run %zu's last repetition started", gap,
                           nmeasured - 1);
        }
        bf_buf_appendz(&text, ":");
        for (size_t q = first; q < j; q++) {
            json_array_append_new(names, json_string(reps[ord[q]].name));
            if (q - first < RUNS_NAMES)
                bf_buf_appendf(&text, "%s %s", q > first ? "," : "", reps[ord[q]].name);
        }
        if (j - first > RUNS_NAMES)
            bf_buf_appendf(&text, " and %zu more", j - first - RUNS_NAMES);
        prev_last = reps[ord[j - 1]].started_at_ms;
        json_array_append_new(runs, json_pack("{s:i, s:s, s:I, s:o}", "run", (int)nmeasured,
                                              "started_at", iso, "started_at_ms", (json_int_t)st[r],
                                              "repetitions", names));
    }
    char *note = NULL;
    if (nmeasured > 1)
        note = bf_asprintf("Measured in %zu runs (the campaign was resumed): %s. Cells of "
                           "different runs are compared across that gap: what changed on the "
                           "cluster in between (a restart, its caches, other load) is part of "
                           "their difference.",
                           nmeasured, text.data);
    bf_buf_cleanup(&text);
    free(st);
    free(ord);
    if (runs_out)
        *runs_out = runs;
    else
        json_decref(runs);
    return note;
}

/* "2026-12-07T19:20:01.123Z" (the schedule's started_at) to Unix ms; 0 when not one */
static int64_t iso_ms(const char *s)
{
    struct tm tm;
    int ms = 0;
    memset(&tm, 0, sizeof tm);
    if (s == NULL || sscanf(s, "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                            &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms) != 7)
        return 0;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (int64_t)timegm(&tm) * 1000 + ms;
}

/* matrix.json's "runs" and the findings sentence from the schedule and the run starts */
static json_t *schedule_runs(bf_results_t *r)
{
    free(r->runs_note);
    r->runs_note = NULL;
    size_t n = json_array_size(r->schedule);
    bf_run_rep_t *reps = bf_calloc(n + 1, sizeof *reps);
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(r->schedule, i);
        reps[i].name = json_string_value(json_object_get(e, "name"));
        reps[i].started_at_ms = iso_ms(json_string_value(json_object_get(e, "started_at")));
        if (reps[i].name == NULL)
            reps[i].started_at_ms = 0;
    }
    json_t *runs = NULL;
    r->runs_note = bf_results_runs(r->run_starts, r->nrun_starts, reps, n, &runs);
    free(reps);
    return runs;
}

const char *bf_results_runs_note(const bf_results_t *r)
{
    return r->runs_note;
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
    read_runs(r, resume_dir);
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
    json_decref(r->schedule);
    json_decref(r->until);
    free(r->lead_md);
    free(r->run_starts);
    free(r->runs_note);
    for (size_t i = 0; i < r->nsaid && i < sizeof r->said / sizeof r->said[0]; i++)
        free(r->said[i]);
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

void bf_results_set_schedule(bf_results_t *r, json_t *schedule)
{
    json_decref(r->schedule);
    r->schedule = json_is_array(schedule) ? schedule : NULL;
    if (r->schedule == NULL)
        json_decref(schedule);
}

void bf_results_set_until(bf_results_t *r, json_t *until)
{
    json_decref(r->until);
    r->until = json_is_object(until) ? until : NULL;
    if (r->until == NULL)
        json_decref(until);
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
        bf_diag_t d = {0};
        bf_diag_set(&d, BF_E_IO, "cannot write %s: %s", r->samples_path, strerror(errno));
        write_failed(r, &d);
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

char *bf_results_sample_json(const char *agent_id, const Bf__Sample *s)
{
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
    return line;
}

int bf_results_sample_line(FILE *f, const char *agent_id, const Bf__Sample *s)
{
    if (f == NULL)
        return BF_E_IO;
    char *line = bf_results_sample_json(agent_id, s);
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
        write_failed(r, &d);
        return BF_E_IO;
    }
    free(path);
    bf_buf_t b;
    bf_buf_init(&b, 0);
    json_t *o = bf_row_encode(row);
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
    if (rc != BF_OK)
        write_failed(r, &d);
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
    FLAG(row->unsteady, "unsteady");
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
static void csv_field(bf_buf_t *csv, const bf_row_t *row, const bf__field_t *f)
{
    json_t *v = bf__row_field_json(row, f);
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
    for (size_t i = 1; i < bf__row_nfields;
         i++) /* bf__row_fields[0] is docs_per_s, written above */
        if (bf__row_fields[i].csv)
            bf_buf_appendf(&csv, ",%s", bf__row_fields[i].name);
    bf_buf_appendz(&csv, ",docs_per_s_reps,doc_errors,cell,reason\n");
    for (size_t k = 0; k < nrows; k++) {
        const bf_row_t *row = &rows[k];
        const bf_cell_t *c = row->cell;
        bf_buf_appendf(&csv, "%u,%u,%u,%u,%u", c->indices, c->shards, c->replicas,
                       c->batch_size, c->concurrency);
        csv_field(&csv, row, &bf__row_fields[0]);
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
        for (size_t i = 1; i < bf__row_nfields; i++)
            if (bf__row_fields[i].csv)
                csv_field(&csv, row, &bf__row_fields[i]);
        bf_buf_append(&csv, ",", 1);
        for (uint32_t i = 0; i < row->reps_n && i < BF_ROW_MAX_REPS; i++) {
            char num[64];
            fmt_num(num, sizeof num, row->reps_docs_per_s[i], 3);
            bf_buf_appendf(&csv, "%s%s", i ? ";" : "", num);
        }
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
        for (size_t i = 0; i < bf__qrow_nfields; i++)
            bf_buf_appendf(&csv, ",%s", bf__qrow_fields[i].name);
        bf_buf_appendz(&csv, ",errors\n");
        for (size_t k = 0; k < nrows; k++) {
            const bf_row_t *row = &rows[k];
            for (uint32_t q = 0; row->cell->search_clients > 0 && q < row->nqueries; q++) {
                const bf_qrow_t *qr = &row->queries[q];
                csv_text(&csv, row->cell->id);
                bf_buf_appendf(&csv, ",%u,%u,%.0f", row->cell->concurrency,
                               row->cell->search_clients, row->cell->search_rate);
                csv_field(&csv, row, &bf__row_fields[0]);
                bf_buf_append(&csv, ",", 1);
                csv_text(&csv, qr->name ? qr->name : "");
                for (size_t i = 0; i < bf__qrow_nfields; i++)
                    csv_field(&csv, (const bf_row_t *)(const void *)qr, &bf__qrow_fields[i]);
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
        json_array_append_new(arr, bf_row_encode(&rows[k]));
    json_object_set_new(root, "rows", arr);
    if (r->schedule) {
        json_object_set(root, "schedule", r->schedule);
        json_object_set_new(root, "runs", schedule_runs(r));
    }
    if (r->until)
        json_object_set(root, "repeat_auto", r->until);
    /* the findings as data (kind, axis values, figures): a script can chain the next study */
    bf_finding_point_t *pts = bf_calloc(nrows + 1, sizeof *pts);
    for (size_t k = 0; k < nrows; k++)
        bf_finding_point_from_row(&rows[k], &pts[k]);
    const bf_findings_spec_t *fs = bf_scenario_findings(sc);
    bf_findings_opts_t fo = {fs->alpha, fs->noise_band};
    bf_findings_t *fd = bf_findings_compute_opts(pts, nrows, &fo);
    /* how the findings test (findings.alpha, findings.noise_band): report reads them back */
    json_t *fopts = json_object();
    json_object_set_new(fopts, "alpha", json_real(fo.alpha));
    json_object_set_new(fopts, "noise_band", json_real(fo.band));
    json_object_set_new(root, "findings_options", fopts);
    json_t *fj = bf_findings_json(fd);
    if (r->runs_note) { /* which run measured which cells: a resumed campaign's */
        json_array_append_new(json_object_get(fj, "lines"), json_string(r->runs_note));
        json_t *it = json_pack(
            "{s:s, s:n, s:{}, s:{s:I}, s:s}", "kind", "runs", "axis", "at", "figures", "runs",
            (json_int_t)json_array_size(json_object_get(root, "runs")), "text", r->runs_note);
        json_t *items = json_copy(json_object_get(fj, "items"));
        json_array_append_new(items, it);
        json_object_set_new(fj, "items", items);
    }
    json_object_set_new(root, "findings", fj);
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
    print_md(f, sc, rows, nrows, r->runs_note);
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

/* The search rows: one line per cell and named query, beside the cell's bulk
 * headline, then the mutual-cost findings (bf_qfindings). Nothing without queries. */
static void print_md_queries(FILE *f, const bf_row_t *rows, size_t nrows)
{
    json_t *arr = json_array();
    for (size_t k = 0; k < nrows; k++)
        if (rows[k].nqueries)
            json_array_append_new(arr, bf_row_encode(&rows[k]));
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

/* write queue max counts tasks on one node, not requests: a bulk request becomes one write task
 * per shard copy it touches on a node (its primaries, then each replica's), so a queue longer
 * than the requests in flight is said with the requests it is at least worth: at most
 * min(batch_size, shards) x (1 + replicas) tasks a request (docs/results.md). */
static void print_md_write_queue(FILE *f, const bf_row_t *rows, size_t nrows)
{
    int said = 0;
    for (size_t k = 0; k < nrows; k++) {
        const bf_row_t *r = &rows[k];
        const bf_cell_t *c = r->cell;
        if (r->write_queue_max < 0 || c->concurrency == 0 ||
            r->write_queue_max <= (int64_t)c->concurrency)
            continue;
        uint64_t shards = c->batch_size < c->shards ? c->batch_size : c->shards;
        uint64_t per = shards * (1u + c->replicas) * (c->indices ? c->indices : 1);
        if (per == 0)
            per = 1;
        if (!said)
            fprintf(f, "write queue max counts write tasks queued on one node, not requests: a "
                       "bulk request becomes one task per shard copy it touches there.\n");
        said = 1;
        double least = (double)r->write_queue_max / (double)per;
        char worth[96];
        if (least <= (double)c->concurrency)
            snprintf(worth, sizeof worth, "the requests in flight explain it");
        else
            snprintf(worth, sizeof worth, "at least %.1f requests' worth: requests wait", least);
        fprintf(f,
                "- %s: %lld tasks queued at %u requests in flight, each request up to %llu "
                "tasks (%u shard%s x %u cop%s%s): %s.\n",
                c->id, (long long)r->write_queue_max, c->concurrency, (unsigned long long)per,
                (unsigned)shards, shards == 1 ? "" : "s", 1u + c->replicas,
                c->replicas ? "ies" : "y", c->indices > 1 ? " x indices" : "", worth);
    }
}

void bf_results_print_md(FILE *f, const bf_scenario_t *sc, const bf_row_t *rows, size_t nrows)
{
    print_md(f, sc, rows, nrows, NULL);
}

/* the Markdown matrix; runs_note (may be NULL): the findings sentence on a resumed campaign's
 * runs */
static void print_md(FILE *f, const bf_scenario_t *sc, const bf_row_t *rows, size_t nrows,
                     const char *runs_note)
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
    /* the seed report's columns first (docs/internals/measurement.md), then the other axes, then
     * the rest */
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
    fprintf(f, " doc errors %% | rejected (429) | write queue max | write rejected | hot spot | "
               "cluster docs/s |"
               " agent CPU %% | agent host load |");
    /* routing_mode node|shard in some cell: what splitting did and what it saved */
    if (routed)
        fprintf(f, " sub-bulk docs | unrouted | misrouted | transport rx MB |");
    if (repeats)
        fprintf(f, " runs | CV %% | docs/s interval |");
    fprintf(f, " verified | flags |\n|");
    size_t ncols = 6 + 5 + 5 + (target_rate ? 5 : 0) + 8 + (routed ? 4 : 0) + (repeats ? 3 : 0);
    for (size_t i = 0; i < naxes; i++)
        ncols += (size_t)extra[i];
    for (size_t i = 0; i < ncols; i++)
        fprintf(f, "---:|");
    fprintf(f, ":---:|---|\n");
    for (size_t k = 0; k < nrows; k++) {
        const bf_row_t *r = &rows[k];
        const bf_cell_t *c = r->cell;
        char b[18][32], flags[128];
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
        fprintf(f, " %.2f | %llu | %s | %s | %s | %s | %s | %s |", r->doc_error_rate * 100.0,
                (unsigned long long)r->docs_rejected, md_i64(b[10], 32, r->write_queue_max),
                md_i64(b[11], 32, r->write_rejected), md_num(b[12], 32, r->hot_spot_ratio, 2),
                md_num(b[13], 32, r->cluster_docs_per_s, 0),
                md_num(b[16], 32, r->agent_cpu_pct, bf_row_field_decimals("agent_cpu_pct")),
                md_num(b[17], 32, r->host_load_avg, bf_row_field_decimals("host_load_avg")));
        if (routed)
            fprintf(f, " %s | %llu | %llu | %s |", md_num(b[15], 32, r->subbulk_docs_mean, 1),
                    (unsigned long long)r->docs_unrouted, (unsigned long long)r->docs_misrouted,
                    md_num(b[14], 32,
                           r->transport_rx_bytes >= 0 ? r->transport_rx_bytes / 1e6 : NAN, 2));
        if (repeats) {
            /* the median's interval and what it covers, or one run's within-run interval */
            char ci[96] = "-";
            if (isfinite(r->docs_per_s_ci_low) && isfinite(r->docs_per_s_ci_high))
                snprintf(ci, sizeof ci, "%.0f-%.0f (%s%.0f %%)", r->docs_per_s_ci_low,
                         r->docs_per_s_ci_high, r->docs_per_s_ci_within ? "within run, " : "",
                         floor(r->docs_per_s_ci_level * 100.0));
            fprintf(f, " %u | %s | %s |", r->repeat,
                    r->repeat > 1 ? md_num(b[14], 32, r->cv * 100.0, 1) : "-", ci);
        }
        fprintf(f, " %s | %s |\n", r->verified ? "yes" : "NO", flags_text(r, flags, sizeof flags));
    }
    free(extra);
    fprintf(f, "\n- = not measured: too few samples for the percentile (p90 needs 10, p99 100, "
               "p99.9 1000) or no cluster telemetry.%s\n",
            target_rate ? "" : " Latency equals service time in closed-loop cells (see matrix.csv).");
    if (repeats)
        fprintf(f, "docs/s interval: of the median of the runs, from order statistics, with the "
                   "confidence it really has (fewer than 6 runs: their range, below 95 %%); "
                   "\"within run\": one run's seconds, not the drift between runs "
                   "(docs/results.md, How sure).\n");
    int few = 0;
    for (size_t k = 0; k < nrows; k++)
        few |= rows[k].few_requests;
    if (few)
        fprintf(f,
                "few-requests: fewer than %d bulk responses in the measurement window, too few "
                "to rank the cell's docs/s (the findings leave it out); lengthen run.duration.\n",
                BF_FEW_REQUESTS);
    int unsteady = 0;
    for (size_t k = 0; k < nrows; k++)
        unsteady |= rows[k].unsteady;
    if (unsteady)
        fprintf(f, "unsteady: the cell's per-second docs/s rose or fell through its window, or "
                   "spread far beyond the other cells' (its reason in matrix.json says which); "
                   "the findings leave it out.\n");
    print_md_write_queue(f, rows, nrows);
    bf_finding_point_t *pts = bf_calloc(nrows + 1, sizeof *pts);
    for (size_t k = 0; k < nrows; k++)
        bf_finding_point_from_row(&rows[k], &pts[k]);
    const bf_findings_spec_t *fs = bf_scenario_findings(sc);
    bf_findings_opts_t fo = {fs->alpha, fs->noise_band};
    bf_findings_t *fd = bf_findings_compute_opts(pts, nrows, &fo);
    bf_findings_print_md(fd, f);
    if (runs_note)
        fprintf(f, "- %s\n", runs_note);
    bf_findings_destroy(&fd);
    free(pts);
    print_md_queries(f, rows, nrows);
}

void bf_results_print_compact(FILE *f, const bf_scenario_t *sc, const bf_row_t *rows, size_t nrows,
                              const char *dir)
{
    int idw = 4;
    for (size_t k = 0; k < nrows; k++) {
        int l = (int)strlen(rows[k].cell->id);
        idw = l > idw ? (l < 40 ? l : 40) : idw;
    }
    fprintf(f, "%-*s  %7s %-15s  %7s  %7s  %7s  %-8s  %s\n", idw, "cell", "docs/s", "(interval)",
            "svc p50", "svc p99", "429s", "verified", "flags");
    for (size_t k = 0; k < nrows; k++) {
        const bf_row_t *r = &rows[k];
        char ci[48] = "", b[2][32], flags[128];
        if (isfinite(r->docs_per_s_ci_low) && isfinite(r->docs_per_s_ci_high))
            snprintf(ci, sizeof ci, "(%.0f-%.0f)", r->docs_per_s_ci_low, r->docs_per_s_ci_high);
        fprintf(f, "%-*.*s  %7.0f %-15s  %7s  %7s  %7llu  %-8s  %s\n", idw, idw, r->cell->id,
                r->docs_per_s, ci, md_num(b[0], 32, r->service.p50_ms, 1),
                md_num(b[1], 32, r->service.p99_ms, 1), (unsigned long long)r->docs_rejected,
                r->verified ? "yes" : "NO", flags_text(r, flags, sizeof flags));
    }
    fprintf(f,
            "\nservice times in ms (- = too few requests for the percentile). Every column (MB/s,\n"
            "latency, errors, write queue, agent CPU, each axis), the findings and the queries: "
            "%s/matrix.md\n",
            dir);
    (void)sc;
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
    bf__row_load(o, r->sc ? bf_scenario_search(r->sc) : NULL, row, NULL, NULL);
    json_decref(o);
    return BF_OK;
}
