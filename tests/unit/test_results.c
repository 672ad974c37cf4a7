/* SPDX-License-Identifier: MIT */
/* test_results.c — bf_results and bf_aggregate from fixed sample streams to files.
 *
 * Hand-made Bf__Sample streams (two agents; a steady cell, a cell with an empty second, a cell
 * that loses an agent, a cell repeated three times) go through bf_cellagg into rows and through
 * bf_results into a temporary results directory; matrix.csv, matrix.md, matrix.json and one
 * cells/<cell>.ndjson are compared byte for byte with tests/fixtures/results/golden/. Merged
 * percentiles are checked against the raw values. The same machinery generates the two
 * results directories tests/fixtures/results/shard-study-{base,contender}/ that the report,
 * compare and integration tests read, and checks they are current.
 *
 * BF_UPDATE_GOLDEN=1 rewrites the golden files and fixture directories instead of comparing
 * (review the diff before committing it).
 */
#include "bf_aggregate.h"
#include "bf_buf.h"
#include "bf_error.h"
#include "bf_findings.h"
#include "bf_hist.h"
#include "bf_mem.h"
#include "bf_results.h"
#include "bf_rowcodec.h"
#include "bf_sample.h"
#include "bf_scenario.h"
#include "bf_telemetry.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#define FIXTURES BF_SOURCE_DIR "/tests/fixtures/results"

static int updating(void)
{
    const char *u = getenv("BF_UPDATE_GOLDEN");
    return u && strcmp(u, "1") == 0;
}

static bf_scenario_t *load_scenario(const char *yaml)
{
    bf_scenario_t *sc = NULL;
    bf_diag_t d = {0};
    bf_load_opts_t o;
    memset(&o, 0, sizeof o);
    o.no_env = 1;
    int rc = bf_scenario_load_text(yaml, strlen(yaml), "test.yaml", &o, &sc, &d);
    if (rc != BF_OK)
        fprintf(stderr, "scenario: %s\n", d.msg);
    assert_int_equal(rc, BF_OK);
    return sc;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    bf_buf_t b;
    bf_buf_init(&b, 0);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        bf_buf_append(&b, chunk, n);
    fclose(f);
    bf_buf_append(&b, "", 0);
    if (len)
        *len = b.len;
    return bf_buf_steal(&b);
}

static void write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void mkdirs(const char *path)
{
    char tmp[4096];
    bf_strlcpy(tmp, path, sizeof tmp);
    for (char *p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(tmp, 0755);
            *p = '/';
        }
    }
    mkdir(tmp, 0755);
}

/* every file under dir/sub is in list[0..n) (paths relative to dir) */
static void check_only_listed(const char *dir, const char *sub, const char *const *list, size_t n)
{
    char *pd = bf_asprintf("%s%s%s", dir, sub[0] ? "/" : "", sub);
    DIR *d = opendir(pd);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *rel = bf_asprintf("%s%s%s", sub, sub[0] ? "/" : "", e->d_name);
        char *p = bf_asprintf("%s/%s", dir, rel);
        struct stat st;
        assert_int_equal(stat(p, &st), 0);
        if (S_ISDIR(st.st_mode)) {
            check_only_listed(dir, rel, list, n);
        } else {
            size_t i = 0;
            while (i < n && strcmp(list[i], rel) != 0)
                i++;
            if (i == n) {
                fprintf(stderr,
                        "%s: a golden file no test compares (stale?): delete it, or add "
                        "it to the list in test_golden_files\n",
                        p);
                fail();
            }
        }
        free(p);
        free(rel);
    }
    closedir(d);
    free(pd);
}

/* compare (or, when updating, copy) one produced file with its golden */
static void check_golden(const char *produced, const char *golden)
{
    size_t n = 0, m = 0;
    char *got = read_file(produced, &n);
    if (got == NULL) {
        fprintf(stderr,
                "%s: the code no longer writes this file, but its golden %s exists: if "
                "that is intended, delete the golden (BF_UPDATE_GOLDEN=1 only rewrites)\n",
                produced, golden);
        fail();
    }
    if (updating()) {
        write_file(golden, got, n);
        printf("updated %s\n", golden);
        free(got);
        return;
    }
    char *want = read_file(golden, &m);
    if (want == NULL || n != m || memcmp(got, want, n) != 0) {
        fprintf(stderr, "%s differs from the golden %s\n  diff -u %s %s\n  (BF_UPDATE_GOLDEN=1 "
                "rewrites it)\n", produced, golden, golden, produced);
        fail();
    }
    free(got);
    free(want);
}

static char *make_tmpdir(void)
{
    char *t = bf_asprintf("%s/bf-results-test.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(t));
    return t;
}

static void rm_rf(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char *p = bf_asprintf("%s/%s", path, e->d_name);
            rm_rf(p);
            free(p);
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* ---- sample streams ----------------------------------------------------------------------- */

typedef struct raw {
    uint64_t *v;
    size_t n, cap;
} raw;

static void raw_add(raw *r, uint64_t v)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 1024;
        r->v = bf_realloc(r->v, r->cap * sizeof *r->v);
    }
    r->v[r->n++] = v;
}

/* deterministic pseudo-random in [0, 1) */
static double frac(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*state >> 11) / 9007199254740992.0;
}

/* One agent's second: the counters, `nreq` service times around mean_us (recorded into the
 * sample's histogram and, when raw != NULL, into raw), then through the wire form into agg. */
typedef struct second_spec {
    uint64_t docs_ok, docs_rejected, docs_mapping;
    uint64_t nreq, req_429;
    double mean_us;
    uint64_t cpu_ms;
} second_spec;

static void feed(bf_cellagg_t *agg, uint32_t agent, const char *cell_id, int32_t second,
                 const second_spec *sp, uint64_t seed, raw *r)
{
    bf_counters_t c;
    memset(&c, 0, sizeof c);
    c.docs_ok = sp->docs_ok;
    c.docs_rejected = sp->docs_rejected;
    c.docs_mapping = sp->docs_mapping;
    c.docs_sent = sp->docs_ok + sp->docs_rejected + sp->docs_mapping;
    c.req_partial = sp->docs_rejected || sp->docs_mapping ? 1 : 0;
    c.req_ok = sp->nreq - c.req_partial - sp->req_429;
    c.http_status[429] = sp->req_429;
    /* the 429 column counts every rejection: the 40 rejected here, and a whole-request 429 of
     * 100 documents that was retried and accepted */
    c.docs_429 = sp->docs_rejected + 100 * sp->req_429;
    c.bytes_payload = c.docs_sent * 180;
    c.bytes_wire = c.bytes_payload / 5;
    c.inflight = 2;
    c.cpu_user_ms = sp->cpu_ms * 4 / 5;
    c.cpu_sys_ms = sp->cpu_ms / 5;
    c.host_load_milli = 500 + 10 * sp->cpu_ms; /* the host's load average x 1000 */
    c.host_load_agents = 1;
    bf_hist_t *svc = bf_hist_new(), *lat = bf_hist_new();
    uint64_t st = seed;
    for (uint64_t i = 0; i < sp->nreq; i++) {
        uint64_t v = (uint64_t)(sp->mean_us * (0.5 + frac(&st)));
        bf_hist_record(svc, v);
        bf_hist_record(lat, v);
        if (r)
            raw_add(r, v);
    }
    Bf__Sample s;
    Bf__Hist hs, hl;
    bf_sample_pack(&s, &hs, &hl, cell_id, (uint64_t)second + 1, second, &c, svc, lat);
    /* errors by type, as the agent's worker counts them (bf_errtypes.h) */
    bf_errtypes_t et;
    bf_errtypes_reset(&et);
    bf_errtypes_add(&et, "es_rejected_execution_exception",
                    "rejected execution of coordinating operation", sp->docs_rejected);
    bf_errtypes_add(&et, "es_rejected_execution_exception", NULL, 100 * sp->req_429);
    bf_errtypes_add(&et, "mapper_parsing_exception",
                    agent == 0 ? "failed to parse field [n] of type [long], \"x\"" : "later",
                    sp->docs_mapping);
    bf_sample_pack_errtypes(&et, &s.doc_errors, &s.n_doc_errors);
    assert_int_equal(bf_cellagg_add(agg, agent, &s), BF_OK);
    bf_sample_pack_errtypes_cleanup(&s.doc_errors, &s.n_doc_errors);
    bf_sample_pack_cleanup(&s);
    bf_hist_destroy(&svc);
    bf_hist_destroy(&lat);
}

/* ---- the golden campaign ------------------------------------------------------------------ */

static const char golden_yaml[] =
    "name: golden\n"
    "target:\n  hosts: [http://127.0.0.1:9200]\n"
    "index:\n  name: golden-{shards}s\n"
    "variables:\n  - {name: n, type: range, from: 1, to: 9}\n"
    "document:\n  source: '{\"n\": $[[n]]}'\n"
    "run: {warmup: 2s, duration: 5s}\n"
    "matrix:\n  shards: [1, 2]\n  batch_size: [100]\n  concurrency: [2, 4]\n"
    "  settings.refresh_interval: [1s]\n";

#define W 2
#define D 5
static const char *const agent_ids[] = {"agent-a", "agent-b"};
static const uint32_t agent_cores[] = {4, 4};

typedef struct golden_run {
    bf_scenario_t *sc;
    char *dir;
    bf_results_t *res;
    bf_row_t rows[4];
    raw steady_raw;               /* service times of the steady cell's window */
    bf_row_t reps[3];
} golden_run;

/* cell 0: steady, some 429s and rejected docs, telemetry
 * cell 1: second 4 is empty (neither agent sent a sample for it)
 * cell 2: agent-b is lost after second 3
 * cell 3: repeated three times (900, 1000, 1200 docs/s an agent) */
static void run_golden(golden_run *g)
{
    memset(g, 0, sizeof *g);
    g->sc = load_scenario(golden_yaml);
    g->dir = make_tmpdir();
    bf_diag_t d = {0};
    g->res = bf_results_open("unused", g->dir, g->sc, &d);
    assert_non_null(g->res);
    bf_cluster_info_t ci;
    memset(&ci, 0, sizeof ci);
    bf_strlcpy(ci.distribution, "opensearch", sizeof ci.distribution);
    bf_strlcpy(ci.version, "2.19.6", sizeof ci.version);
    ci.nodes = 3;
    bf_results_set_cluster(g->res, &ci);
    assert_int_equal(bf_scenario_cell_count(g->sc), 4);

    for (size_t k = 0; k < 4; k++) {
        const bf_cell_t *cell = bf_scenario_cell(g->sc, k);
        uint32_t nreps = k == 3 ? 3 : 1;
        for (uint32_t rep = 1; rep <= nreps; rep++) {
            bf_cellagg_t *agg = bf_cellagg_new(cell, rep, 2, agent_cores, W, D);
            for (int32_t s = 0; s < W + D + 1; s++) {
                for (uint32_t a = 0; a < 2; a++) {
                    if (k == 1 && s == 4)
                        continue; /* the empty second */
                    if (k == 2 && a == 1 && s > 3)
                        continue; /* agent-b lost */
                    second_spec sp = {.docs_ok = 1000 + 100 * a + 10 * (uint64_t)s, .nreq = 120,
                                      .mean_us = 20000 + 5000.0 * k, .cpu_ms = 400};
                    if (s < W)
                        sp.docs_ok /= 2; /* ramp-up in the warmup */
                    if (s == W + D) {
                        sp.docs_ok = 30; /* tail */
                        sp.nreq = 3;
                    }
                    if (k == 0 && s == 3) {
                        sp.docs_rejected = 40;
                        sp.req_429 = 2;
                        sp.docs_mapping = 1;
                    }
                    if (k == 3)
                        sp.docs_ok = sp.docs_ok * (rep == 1 ? 9 : rep == 2 ? 10 : 12) / 10;
                    int in_window = s >= W && s < W + D;
                    feed(agg, a, cell->id, s, &sp, k * 1000 + s * 10 + a,
                         k == 0 && in_window ? &g->steady_raw : NULL);
                }
            }
            if (k == 2)
                bf_cellagg_mark_lost(agg, 1, "agent-b", 4);
            bf_row_t *row = k == 3 ? &g->reps[rep - 1] : &g->rows[k];
            bf_cellagg_row(agg, row);
            row->docs_counted = (int64_t)row->docs_ok_all;
            row->verified = 1;
            char name[256];
            bf_results_cell_name(cell, rep, nreps, name, sizeof name);
            if (k == 0) {
                /* what the cluster said, recorded answers of three nodes */
                bf_telemetry_t *t = bf_telemetry_new(NULL);
                bf__telemetry_begin(t, "golden-1s", 1000000000ull, W, D);
                for (int s = -1; s <= W + D; s++) {
                    char *nb = bf_asprintf(
                        "{\"nodes\":{\"a\":{\"name\":\"n1\",\"thread_pool\":{\"write\":{\"queue\":%d,"
                        "\"active\":1,\"rejected\":%d}},\"indices\":{\"indexing\":{\"index_total\":%d}}},"
                        "\"b\":{\"name\":\"n2\",\"thread_pool\":{\"write\":{\"queue\":0,\"active\":1,"
                        "\"rejected\":0}},\"indices\":{\"indexing\":{\"index_total\":%d}}}}}",
                        s == 3 ? 57 : 1, s >= 3 ? 40 : 0, 1000 + 1500 * (s + 1), 1000 + 700 * (s + 1));
                    char *pb = bf_asprintf("{\"_all\":{\"primaries\":{\"indexing\":{\"index_total\":%d}}}}",
                                           2200 * (s + 1));
                    bf__telemetry_ingest(t, 1000000000ull + (uint64_t)((int64_t)s * 1000000 + 10000),
                                         nb, pb, NULL);
                    free(nb);
                    free(pb);
                }
                bf_telemetry_summary_t sum;
                bf_buf_t nd;
                bf_buf_init(&nd, 0);
                bf_telemetry_stop(t, &sum, &nd);
                bf_telemetry_destroy(&t);
                row->write_queue_max = sum.write_queue_max;
                row->write_rejected = sum.write_rejected;
                row->hot_spot_ratio = sum.hot_spot_ratio;
                row->cluster_docs_per_s = sum.cluster_docs_per_s;
                char *rel = bf_asprintf("telemetry/%s.ndjson", name);
                assert_int_equal(bf_results_write_file(g->res, rel, nd.data, nd.len), BF_OK);
                free(rel);
                bf_buf_cleanup(&nd);
            }
            assert_int_equal(bf_results_cell_done(g->res, name, agg, agent_ids, 2, row), BF_OK);
            bf_cellagg_destroy(&agg);
        }
        if (k == 3)
            bf_rows_median(g->reps, 3, &g->rows[3]);
        else
            g->rows[k].repeat = 1;
    }
    assert_int_equal(bf_results_write_matrix(g->res, g->sc, g->rows, 4), BF_OK);
}

static void free_golden(golden_run *g)
{
    bf_results_close(&g->res);
    rm_rf(g->dir);
    free(g->dir);
    free(g->steady_raw.v);
    bf_scenario_destroy(&g->sc);
}

static void test_golden_files(void **state)
{
    (void)state;
    golden_run g;
    run_golden(&g);
    static const char *const files[] = {"matrix.csv", "matrix.md", "matrix.json",
                                        "cells/i1-s1-r0-b100-c4-refresh_interval_1s.ndjson",
                                        "telemetry/i1-s1-r0-b100-c2-refresh_interval_1s.ndjson"};
    size_t nfiles = sizeof files / sizeof files[0];
    if (updating()) {
        mkdirs(FIXTURES "/golden/cells");
        mkdirs(FIXTURES "/golden/telemetry");
    }
    /* the other way: every file under golden/ is one of these (a stale golden is noticed) */
    check_only_listed(FIXTURES "/golden", "", files, nfiles);
    for (size_t i = 0; i < nfiles; i++) {
        char *p = bf_asprintf("%s/%s", g.dir, files[i]);
        char *q = bf_asprintf("%s/golden/%s", FIXTURES, files[i]);
        check_golden(p, q);
        free(p);
        free(q);
    }
    free_golden(&g);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* nearest rank, as bf_hist_percentile: the ceil(p/100 * n)-th smallest value */
static uint64_t exact_rank(const raw *r, double p)
{
    size_t k = (size_t)ceil(p / 100.0 * (double)r->n);
    return r->v[(k ? k : 1) - 1];
}

static void test_merged_percentiles_match_raw_values(void **state)
{
    (void)state;
    golden_run g;
    run_golden(&g);
    raw *r = &g.steady_raw;
    assert_int_equal(r->n, 2 * D * 120);
    qsort(r->v, r->n, sizeof *r->v, cmp_u64);
    const bf_latency_stats_t *st = &g.rows[0].service;
    assert_int_equal(st->count, r->n);
    /* merged by adding counts across agents and seconds: each percentile is the histogram
     * bucket (3 significant figures) of the exact value of the raw series */
    struct {
        double p, got_ms;
    } cases[] = {{50, st->p50_ms}, {90, st->p90_ms}, {99, st->p99_ms}, {99.9, st->p999_ms}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t exact = exact_rank(r, cases[i].p);
        double want_ms = (double)bf_hist_highest_equivalent(exact) / 1000.0;
        assert_true(fabs(cases[i].got_ms - want_ms) < 1e-9);
        assert_true(cases[i].got_ms * 1000.0 >= (double)exact);
        assert_true(cases[i].got_ms * 1000.0 - (double)exact <= (double)exact / 1000.0 + 1);
    }
    assert_true(fabs(st->max_ms - (double)bf_hist_highest_equivalent(r->v[r->n - 1]) / 1000.0) < 1e-9);
    /* closed loop: latency is service time */
    assert_true(g.rows[0].latency.p99_ms == st->p99_ms);
    free_golden(&g);
}

static void test_empty_second_counts_as_zero(void **state)
{
    (void)state;
    golden_run g;
    run_golden(&g);
    const bf_row_t *r = &g.rows[1];
    assert_true(r->docs_per_s_min == 0);
    assert_int_equal(r->late_seconds, 2); /* both agents missed second 4 */
    /* window seconds 2,3,(4 empty),5,6: Σ docs_ok / D */
    uint64_t sum = 0;
    for (int s = W; s < W + D; s++)
        if (s != 4)
            sum += (1000 + 10 * (uint64_t)s) + (1100 + 10 * (uint64_t)s);
    assert_true(r->docs_per_s == (double)sum / D);
    assert_false(r->degraded);
    assert_non_null(strstr(r->reason, "2 agent-seconds missing"));
    free_golden(&g);
}

static void test_lost_agent_degrades_the_cell(void **state)
{
    (void)state;
    golden_run g;
    run_golden(&g);
    const bf_row_t *r = &g.rows[2];
    assert_true(r->degraded);
    assert_string_equal(r->reason, "agent agent-b lost from second 4");
    assert_int_equal(r->late_seconds, 0); /* a lost agent's seconds are not "late" */
    free_golden(&g);
}

static void test_repeated_cell_median_and_cv(void **state)
{
    (void)state;
    golden_run g;
    run_golden(&g);
    const bf_row_t *r = &g.rows[3];
    assert_int_equal(r->repeat, 3);
    assert_true(r->docs_per_s == g.reps[1].docs_per_s); /* the 1.0x repetition is the median */
    double m = (g.reps[0].docs_per_s + g.reps[1].docs_per_s + g.reps[2].docs_per_s) / 3;
    double var = 0;
    for (int i = 0; i < 3; i++)
        var += (g.reps[i].docs_per_s - m) * (g.reps[i].docs_per_s - m);
    assert_true(fabs(r->cv - sqrt(var / 2) / m) < 1e-12);
    /* every repetition's docs/s in order, and the median's interval: with 3 runs it spans them
     * all and covers only 1 - 2 (1/2)^3 = 0.75 (order statistics) */
    assert_int_equal(r->reps_n, 3);
    for (int i = 0; i < 3; i++)
        assert_true(r->reps_docs_per_s[i] == g.reps[i].docs_per_s);
    assert_true(r->docs_per_s_ci_low == 1962.0 && r->docs_per_s_ci_high == 2616.0);
    assert_true(fabs(r->docs_per_s_ci_level - 0.75) < 1e-12);
    assert_false(r->docs_per_s_ci_within);
    /* a row of one run: the interval from within the run (batch means of its seconds) */
    const bf_row_t *one = &g.rows[0];
    assert_int_equal(one->reps_n, 1);
    assert_true(one->docs_per_s_ci_within);
    assert_true(one->docs_per_s_ci_low < one->docs_per_s &&
                one->docs_per_s < one->docs_per_s_ci_high);
    /* both read back from matrix.json through the codec */
    char *path = bf_asprintf("%s/matrix.json", g.dir);
    json_t *mj = json_load_file(path, 0, NULL);
    free(path);
    bf_row_rec_t rec;
    assert_int_equal(bf_row_rec_decode(json_array_get(json_object_get(mj, "rows"), 3), &rec, NULL),
                     BF_OK);
    assert_int_equal(rec.row.reps_n, 3);
    assert_true(rec.row.reps_docs_per_s[2] == g.reps[2].docs_per_s);
    assert_true(rec.row.docs_per_s_ci_high == 2616.0);
    bf_row_rec_cleanup(&rec);
    json_decref(mj);
    /* matrix.md shows the interval beside runs and CV, with what it covers */
    path = bf_asprintf("%s/matrix.md", g.dir);
    char *md = read_file(path, NULL);
    free(path);
    assert_non_null(md);
    assert_non_null(strstr(md, "| runs | CV % | docs/s interval |"));
    assert_non_null(strstr(md, "| 3 | 14.8 | 1962-2616 (75 %) |"));
    assert_non_null(strstr(md, "| 1 | - | 2141-2219 (within run, 95 %) |"));
    free(md);
    free_golden(&g);
}

static void test_csv_seed_columns_first_and_unknowns_empty(void **state)
{
    (void)state;
    golden_run g;
    run_golden(&g);
    char *p = bf_asprintf("%s/matrix.csv", g.dir);
    char *csv = read_file(p, NULL);
    free(p);
    assert_non_null(csv);
    static const char head[] = "indices,shards,replicas,batch_size,concurrency,docs_per_s,"
                               "settings.refresh_interval,docs_per_s_min,docs_per_s_median,";
    assert_true(strncmp(csv, head, sizeof head - 1) == 0);
    assert_non_null(strstr(csv, ",write_queue_max,write_rejected,hot_spot_ratio,cluster_docs_per_s,"));
    /* row 2 (no telemetry): write_queue_max and the rest are empty, not -1 */
    assert_null(strstr(csv, ",-1,"));
    free(csv);
    p = bf_asprintf("%s/matrix.md", g.dir);
    char *md = read_file(p, NULL);
    free(p);
    static const char mdhead[] = "| indices | shards | replicas | batch size | concurrency | docs/s |";
    assert_true(strncmp(md, mdhead, sizeof mdhead - 1) == 0);
    /* the degraded row (an agent lost) is named as left out, first, and never ranked */
    assert_non_null(strstr(md, "\n## Findings\n\n- 1 cell is left out of these findings (never "
                               "best, no knee, plateau or ratio): "
                               "i1-s2-r0-b100-c2-refresh_interval_1s (degraded: an agent was "
                               "lost).\n- 1 shard: best without rejections or errors is"));
    free(md);
    free_golden(&g);
}

/* a few-requests row is flagged in matrix.md, explained under the table, named by
 * the findings and not ranked */
static void test_few_requests_in_matrix_md(void **state)
{
    (void)state;
    golden_run g;
    run_golden(&g);
    bf_row_t rows[4];
    memcpy(rows, g.rows, sizeof rows);
    rows[3].few_requests = 1; /* the fastest 2-shard cell */
    char *md = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&md, &len);
    bf_results_print_md(f, g.sc, rows, 4);
    fclose(f);
    printf("%s", md);
    assert_non_null(strstr(md, "| yes | few-requests |"));
    assert_non_null(strstr(md, "\nfew-requests: fewer than 20 bulk responses in the measurement "
                               "window"));
    assert_non_null(strstr(md,
                           "\n- 1 cell measured on fewer than 20 bulk responses in the window "
                           "(few-requests: i1-s2-r0-b100-c4-refresh_interval_1s) is not ranked"));
    assert_null(strstr(md, "2 shards: best without rejections or errors is 2,180"));
    free(md);
    free_golden(&g);
}

/* A terminal gets a compact matrix that fits 120 columns: docs/s with its
 * interval, service p50/p99, 429s, verified, flags, and where the other columns are */
static void test_compact_matrix_fits_a_terminal(void **state)
{
    (void)state;
    golden_run g;
    run_golden(&g);
    bf_row_t rows[4];
    memcpy(rows, g.rows, sizeof rows);
    rows[0].docs_per_s_ci_low = 2100;
    rows[0].docs_per_s_ci_high = 2260;
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    bf_results_print_compact(f, g.sc, rows, 4, "results/x");
    fclose(f);
    printf("%s", out);
    size_t lines = 0;
    for (char *l = out, *nl; *l; l = nl + 1) {
        nl = strchr(l, '\n');
        assert_non_null(nl);
        if (nl - l > 120)
            fail_msg("a line of %td columns: %.*s", nl - l, (int)(nl - l), l);
        lines++;
    }
    assert_int_equal(lines, 1 + 4 + 3);
    assert_non_null(strstr(out, "cell"));
    assert_non_null(strstr(out, "(2100-2260)"));
    assert_non_null(strstr(out, "svc p50"));
    assert_non_null(strstr(out, "results/x/matrix.md"));
    assert_non_null(strstr(out, rows[2].cell->id));
    free(out);
    free_golden(&g);
}

/* write queue max is tasks on one node: 470 at 8 requests in flight over 60
 * shards is said as tasks that the requests in flight explain, not 470 waiting requests */
static void test_write_queue_in_requests(void **state)
{
    (void)state;
    golden_run g;
    run_golden(&g);
    bf_row_t rows[4];
    memcpy(rows, g.rows, sizeof rows);
    bf_cell_t wide = *rows[1].cell;
    wide.shards = 60;
    wide.replicas = 0;
    wide.concurrency = 8;
    wide.batch_size = 5000;
    rows[1].cell = &wide;
    rows[1].write_queue_max = 470;
    rows[0].write_queue_max = 1; /* below the requests in flight: nothing said */
    rows[2].write_queue_max = rows[3].write_queue_max = -1;
    char *md = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&md, &len);
    bf_results_print_md(f, g.sc, rows, 4);
    fclose(f);
    assert_non_null(strstr(md, "write queue max counts write tasks queued on one node, not "
                               "requests"));
    char want[300];
    snprintf(want, sizeof want,
             "- %s: 470 tasks queued at 8 requests in flight, each request up to 60 tasks (60 "
             "shards x 1 copy): the requests in flight explain it.",
             wide.id);
    if (strstr(md, want) == NULL)
        fail_msg("no '%s' in:\n%s", want, md);
    if (strstr(strstr(md, want) + 1, want) != NULL) /* once: make demo printed it twice */
        fail_msg("'%s' said twice in:\n%s", want, md);
    char first[200];
    snprintf(first, sizeof first, "- %s: ", rows[0].cell->id);
    assert_null(strstr(md, first));
    free(md);
    free_golden(&g);
}

static void test_load_row_roundtrip(void **state)
{
    (void)state;
    golden_run g;
    run_golden(&g);
    for (size_t k = 0; k < 2; k++) {
        const bf_cell_t *cell = bf_scenario_cell(g.sc, k);
        bf_row_t back;
        assert_int_equal(bf_results_load_row(g.res, cell->id, cell, &back), BF_OK);
        const bf_row_t *r = &g.rows[k];
        assert_true(back.docs_per_s == r->docs_per_s);
        assert_int_equal(back.write_queue_max, r->write_queue_max);
        assert_int_equal(back.write_rejected, r->write_rejected);
        assert_int_equal(back.warmup_s, W);
        assert_int_equal(back.duration_s, D);
        assert_int_equal(back.service.count, r->service.count);
        /* errors by type come back as they were written */
        assert_int_equal(back.doc_errors.n, r->doc_errors.n);
        for (uint32_t i = 0; i < r->doc_errors.n; i++) {
            assert_string_equal(back.doc_errors.e[i].type, r->doc_errors.e[i].type);
            assert_string_equal(back.doc_errors.e[i].reason, r->doc_errors.e[i].reason);
            assert_int_equal(back.doc_errors.e[i].docs, r->doc_errors.e[i].docs);
        }
        assert_int_equal(back.docs_429, r->docs_429);
        if (k == 0) {
            /* 2 agents: 40 rejected + 2 x 100 in a whole 429 each, 1 mapping failure each */
            assert_int_equal(back.docs_429, 2 * (40 + 200));
            assert_int_equal(back.doc_errors.n, 2);
            assert_string_equal(back.doc_errors.e[0].type, "es_rejected_execution_exception");
            assert_int_equal(back.doc_errors.e[0].docs, 2 * (40 + 200));
            assert_string_equal(back.doc_errors.e[1].type, "mapper_parsing_exception");
            assert_int_equal(back.doc_errors.e[1].docs, 2);
            assert_string_equal(back.doc_errors.e[1].reason,
                                "failed to parse field [n] of type [long], \"x\"");
            assert_int_equal(back.write_queue_max, 57);
            assert_int_equal(back.write_rejected, 40);
            assert_true(fabs(back.cluster_docs_per_s - 2200.0) < 1e-9);
            assert_true(back.hot_spot_ratio == r->hot_spot_ratio);
        } else {
            assert_int_equal(back.write_queue_max, -1);
            assert_true(isnan(back.hot_spot_ratio));
        }
    }
    free_golden(&g);
}

static int same_number(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

static int same_point(const bf_finding_point_t *a, const bf_finding_point_t *b)
{
    return strcmp(a->cell, b->cell) == 0 && a->shards == b->shards && a->replicas == b->replicas &&
           a->batch_size == b->batch_size && a->concurrency == b->concurrency &&
           strcmp(a->extra, b->extra) == 0 && same_number(a->docs_per_s, b->docs_per_s) &&
           same_number(a->service_p50_ms, b->service_p50_ms) && a->rejections == b->rejections &&
           a->excluded == b->excluded && a->few_requests == b->few_requests &&
           a->index_mismatch == b->index_mismatch;
}

/* The row codec: what the writers put in matrix.json comes back field for
 * field through the same table, and compare, report and findings read it that way. */
static void test_row_codec_decodes_what_the_writers_write(void **state)
{
    (void)state;
    golden_run g;
    run_golden(&g);
    assert_true(bf_row_field_count() > 50);
    for (size_t k = 0; k < 2; k++) {
        const bf_row_t *r = &g.rows[k];
        json_t *o = bf_row_encode(r);
        bf_row_rec_t rec;
        bf_diag_t d = {0};
        assert_int_equal(bf_row_rec_decode(o, &rec, &d), BF_OK);
        assert_int_equal(rec.nmissing, 0);
        for (size_t i = 0; i < bf_row_field_count(); i++) {
            double a, b;
            assert_int_equal(bf_row_field_number(r, bf_row_field_name(i), &a), BF_OK);
            assert_int_equal(bf_row_field_number(&rec.row, bf_row_field_name(i), &b), BF_OK);
            if (!same_number(a, b))
                fail_msg("field %s: wrote %g, read %g", bf_row_field_name(i), a, b);
        }
        assert_string_equal(rec.cell.id, r->cell->id);
        assert_int_equal(rec.cell.shards, r->cell->shards);
        assert_int_equal(rec.cell.batch_size, r->cell->batch_size);
        assert_int_equal(rec.cell.naxes, r->cell->naxes);
        assert_string_equal(rec.row.reason, r->reason);
        assert_int_equal(rec.row.doc_errors.n, r->doc_errors.n);
        bf_row_rec_cleanup(&rec);
        json_decref(o);
    }
    free_golden(&g);
}

/* Regression class: findings read matrix.json rows by their own list of keys (a second reader
 * beside the fresh-row one, and it had drifted: no bf_row_has_errors, its own exclusions). Each
 * row field that decides a finding is set alone on a clean row; the point read from the
 * written JSON must equal the point of the row itself. A key misspelt in a JSON reader makes
 * its case read 0 and fail here. */
static void test_findings_read_rows_through_the_codec(void **state)
{
    (void)state;
    golden_run g;
    run_golden(&g);
    bf_row_t clean = g.rows[1];
    clean.docs_rejected = clean.http_429 = clean.docs_429 = clean.docs_retried = 0;
    clean.docs_failed = clean.docs_unknown = clean.req_transport_error = 0;
    clean.req_bad_response = clean.req_http_error = 0;
    clean.write_rejected = 0;
    clean.failed = clean.aborted = clean.target_missed = clean.stalled = 0;
    clean.index_mismatch = 0;
    for (int c = 0; c < 16; c++) {
        bf_row_t r = clean;
        switch (c) {
        case 0: break;
        case 1: r.docs_rejected = 3; break;
        case 2:
            r.http_429 = 1;
            r.req_http_error = 1;
            break;
        case 3: r.docs_429 = 5; break;
        case 4: r.docs_retried = 2; break;
        case 5: r.write_rejected = 7; break;
        case 6: r.docs_failed = 1; break;
        case 7: r.docs_unknown = 4; break;
        case 8: r.req_transport_error = 1; break;
        case 9: r.req_bad_response = 1; break;
        case 10: r.req_http_error = 2; break;
        case 11: r.failed = 1; break;
        case 12: r.aborted = 1; break;
        case 13: r.target_missed = 1; break;
        case 14: r.stalled = 1; break;
        case 15:
            r.index_mismatch = 1;
            r.index_shards = 9;
            r.index_replicas = 2;
            break;
        }
        bf_finding_point_t want, got;
        bf_finding_point_from_row(&r, &want);
        json_t *o = bf_row_encode(&r);
        assert_int_equal(bf_finding_point_from_json(o, &got), BF_OK);
        json_decref(o);
        if (!same_point(&want, &got))
            fail_msg("case %d: the point from matrix.json differs from the row's (rejections "
                     "%d/%d, excluded %d/%d, shards %u/%u)",
                     c, want.rejections, got.rejections, want.excluded, got.excluded, want.shards,
                     got.shards);
        assert_int_equal(want.rejections, c >= 1 && c <= 10);
        assert_int_equal(want.excluded, c >= 11 && c <= 14);
    }
    free_golden(&g);
}

/* A field renamed or missing in a file is reported by the codec, never silently read as 0;
 * a wrong type is an error naming the field; a reader asking for a name the table does not
 * have gets an error, not 0. */
static void test_row_codec_names_missing_and_bad_fields(void **state)
{
    (void)state;
    golden_run g;
    run_golden(&g);
    json_t *o = bf_row_encode(&g.rows[0]);
    json_t *v = json_object_get(o, "docs_429");
    assert_true(json_integer_value(v) > 0);
    json_object_set(o, "docs_429_total", v); /* as if the writer had renamed it */
    json_object_del(o, "docs_429");
    bf_row_rec_t rec;
    bf_diag_t d = {0};
    assert_int_equal(bf_row_rec_decode(o, &rec, &d), BF_OK);
    assert_int_equal(rec.nmissing, 1);
    assert_string_equal(rec.missing, "docs_429");
    bf_row_rec_cleanup(&rec);
    json_object_set_new(o, "docs_per_s", json_string("fast"));
    assert_int_equal(bf_row_rec_decode(o, &rec, &d), BF_E_PARSE);
    assert_non_null(strstr(d.msg, "\"docs_per_s\" is not a number"));
    bf_row_rec_cleanup(&rec);
    json_decref(o);
    double x = 0;
    assert_int_equal(bf_row_field_number(&g.rows[0], "docs_per_sec", &x), BF_E_NOTFOUND);
    assert_true(isnan(x));
    assert_int_equal(bf_row_field_number(&g.rows[0], "docs_per_s", &x), BF_OK);
    assert_true(x == g.rows[0].docs_per_s);
    free_golden(&g);
}

/* ---- fixture results directories ---------------------------------------------------------- */

/* The seed shard study in miniature: 50 and 850 shards, batch 50 and 5000, concurrency 100,
 * 200, 400, replicas 1; two agents; a 3-node cluster. docs/s follow the seed's table
 * (shared/seeds/000_*), service time follows Little's law (concurrency x batch / docs/s). */
static const char study_base_yaml[] =
    "name: shard-study\n"
    "target:\n  hosts: [http://127.0.0.1:9200]\n"
    "index:\n  name: idx-{shards}s\n"
    "variables:\n  - {name: uuid, type: uuid}\n"
    "document:\n  action: create\n  id: $[[uuid]]\n  source: '{\"owner\": \"$[[uuid]]\"}'\n"
    "run: {warmup: 2s, duration: 5s}\n"
    "matrix:\n  shards: [50, 850]\n  replicas: [1]\n  batch_size: [50, 5000]\n"
    "  concurrency: [100, 200, 400]\n";

static const char study_contender_yaml[] =
    "name: shard-study\n"
    "target:\n  hosts: [http://127.0.0.1:9200]\n"
    "index:\n  name: idx-{shards}s\n"
    "variables:\n  - {name: uuid, type: uuid}\n"
    "document:\n  action: create\n  id: $[[uuid]]\n  source: '{\"owner\": \"$[[uuid]]\"}'\n"
    "run: {warmup: 2s, duration: 5s, repeat: 3}\n"
    "matrix:\n  shards: [50, 850]\n  replicas: [1]\n  batch_size: [5000]\n"
    "  concurrency: [100, 200]\n";

/* docs/s of the seed-like model, and whether the cell sees rejections */
static double study_rate(uint32_t shards, uint32_t batch, uint32_t conc, int contender, int *rej)
{
    double r;
    *rej = 0;
    if (shards == 850) {
        if (batch == 50)
            r = conc == 100 ? 10000 : conc == 200 ? 18000 : 27500;
        else
            r = conc == 100 ? 98915 : conc == 200 ? 78462 : 70100;
        *rej = (batch == 5000 && conc >= 200) || (batch == 50 && conc == 400);
        if (contender && batch == 5000) {
            r *= conc == 100 ? 1.18 : 1.45; /* the tuned cluster: no more rejections */
            *rej = 0;
        }
    } else {
        if (batch == 50)
            r = conc == 100 ? 32987 : conc == 200 ? 51500 : 60200;
        else
            r = conc == 100 ? 156961 : conc == 200 ? 163000 : 158800;
        if (contender)
            r *= 1.01;
    }
    return r;
}

static void gen_study(const char *yaml, const char *dir, int contender)
{
    bf_scenario_t *sc = load_scenario(yaml);
    bf_diag_t d = {0};
    mkdirs(dir);
    bf_results_t *res = bf_results_open("unused", dir, sc, &d);
    assert_non_null(res);
    bf_cluster_info_t ci;
    memset(&ci, 0, sizeof ci);
    bf_strlcpy(ci.distribution, "opensearch", sizeof ci.distribution);
    bf_strlcpy(ci.version, "2.19.6", sizeof ci.version);
    ci.nodes = 3;
    bf_results_set_cluster(res, &ci);
    size_t ncells = bf_scenario_cell_count(sc);
    uint32_t repeat = bf_scenario_run(sc)->repeat;
    bf_row_t *rows = bf_calloc(ncells, sizeof *rows);
    bf_row_t reps[3];
    static const double rep_factor[] = {0.985, 1.0, 1.02};
    for (size_t k = 0; k < ncells; k++) {
        const bf_cell_t *cell = bf_scenario_cell(sc, k);
        int rej = 0;
        double rate = study_rate(cell->shards, cell->batch_size, cell->concurrency, contender, &rej);
        for (uint32_t rep = 1; rep <= repeat; rep++) {
            double rr = rate * (repeat > 1 ? rep_factor[rep - 1] : 1.0);
            bf_cellagg_t *agg = bf_cellagg_new(cell, rep, 2, agent_cores, W, D);
            uint64_t st = k * 7 + rep;
            for (int32_t s = 0; s < W + D + 1; s++) {
                for (uint32_t a = 0; a < 2; a++) {
                    double jitter = 0.97 + 0.06 * frac(&st);
                    double per_agent = rr / 2 * jitter * (s == 0 ? 0.4 : s == 1 ? 0.8 : 1.0);
                    second_spec sp;
                    memset(&sp, 0, sizeof sp);
                    sp.docs_ok = (uint64_t)per_agent;
                    sp.nreq = sp.docs_ok / cell->batch_size ? sp.docs_ok / cell->batch_size : 1;
                    sp.mean_us = 1e6 * cell->concurrency * cell->batch_size / rr;
                    sp.cpu_ms = 250 + (uint64_t)(per_agent / 1000);
                    if (rej) {
                        sp.docs_rejected = sp.docs_ok / 50;
                        sp.req_429 = 1;
                        sp.nreq += 1;
                    }
                    if (s == W + D) { /* the tail: requests that completed after the window */
                        sp.docs_ok = cell->batch_size * 2;
                        sp.docs_rejected = 0;
                        sp.req_429 = 0;
                        sp.nreq = 2;
                    }
                    feed(agg, a, cell->id, s, &sp, st, NULL);
                }
            }
            bf_row_t *row = repeat > 1 ? &reps[rep - 1] : &rows[k];
            bf_cellagg_row(agg, row);
            row->docs_counted = (int64_t)row->docs_ok_all;
            row->verified = 1;
            char name[256];
            bf_results_cell_name(cell, rep, repeat, name, sizeof name);
            /* telemetry: three nodes; 850 shards spread evenly, 50 shards a bit hot on node-0 */
            bf_telemetry_t *t = bf_telemetry_new(NULL);
            bf_product_t prod;
            bf_telemetry_parse_product("{\"version\":{\"distribution\":\"opensearch\",\"number\":\"2.19.6\"}}", &prod);
            bf__telemetry_set_product(t, &prod);
            bf__telemetry_begin(t, cell->index_names[0], 1000000000ull, W, D);
            double share[3] = {1, 1, 1};
            if (cell->shards == 50) {
                share[0] = 1.3;
                share[2] = 0.8;
            }
            int64_t itot[3] = {5000, 5000, 5000}, rejd[3] = {0, 0, 0}, prim = 0;
            for (int s = -1; s <= W + D; s++) {
                /* the tick at the start of second s has seen seconds 0 .. s-1 */
                int done = s - 1;
                double f = done < 0 ? 0 : done == 0 ? 0.4 : done == 1 ? 0.8 : done >= W + D ? 0.05 : 1.0;
                int64_t q[3];
                for (int n = 0; n < 3; n++) {
                    itot[n] += (int64_t)(rr * f * 2 / 3 * share[n]); /* primaries + replicas */
                    q[n] = rej ? 150 + 37 * n + 11 * s : (int64_t)(cell->concurrency / 40) + n;
                    if (rej && s >= 1 && s < W + D)
                        rejd[n] += 3 + n;
                }
                prim += (int64_t)(rr * f);
                char *nb = bf_asprintf(
                    "{\"nodes\":{"
                    "\"id0\":{\"name\":\"node-0\",\"roles\":[\"data\"],\"indices\":{\"indexing\":{\"index_total\":%lld}},"
                    "\"thread_pool\":{\"write\":{\"queue\":%lld,\"active\":4,\"rejected\":%lld}}},"
                    "\"id1\":{\"name\":\"node-1\",\"roles\":[\"data\"],\"indices\":{\"indexing\":{\"index_total\":%lld}},"
                    "\"thread_pool\":{\"write\":{\"queue\":%lld,\"active\":4,\"rejected\":%lld}}},"
                    "\"id2\":{\"name\":\"node-2\",\"roles\":[\"data\"],\"indices\":{\"indexing\":{\"index_total\":%lld}},"
                    "\"thread_pool\":{\"write\":{\"queue\":%lld,\"active\":4,\"rejected\":%lld}}}}}",
                    (long long)itot[0], (long long)q[0], (long long)rejd[0], (long long)itot[1],
                    (long long)q[1], (long long)rejd[1], (long long)itot[2], (long long)q[2],
                    (long long)rejd[2]);
                char *pb = bf_asprintf("{\"_all\":{\"primaries\":{\"indexing\":{\"index_total\":%lld}}}}",
                                       (long long)prim);
                uint64_t at = 1000000000ull + (uint64_t)((int64_t)s * 1000000 + 15000 + 2000 * (s & 3));
                bf__telemetry_ingest(t, at, nb, pb, NULL);
                free(nb);
                free(pb);
            }
            bf_telemetry_summary_t sum;
            bf_buf_t nd;
            bf_buf_init(&nd, 0);
            bf_telemetry_stop(t, &sum, &nd);
            bf_telemetry_destroy(&t);
            row->write_queue_max = sum.write_queue_max;
            row->write_rejected = sum.write_rejected;
            row->hot_spot_ratio = sum.hot_spot_ratio;
            row->cluster_docs_per_s = sum.cluster_docs_per_s;
            char *rel = bf_asprintf("telemetry/%s.ndjson", name);
            assert_int_equal(bf_results_write_file(res, rel, nd.data, nd.len), BF_OK);
            free(rel);
            bf_buf_cleanup(&nd);
            assert_int_equal(bf_results_cell_done(res, name, agg, agent_ids, 2, row), BF_OK);
            bf_cellagg_destroy(&agg);
        }
        if (repeat > 1)
            bf_rows_median(reps, repeat, &rows[k]);
        else
            rows[k].repeat = 1;
    }
    assert_int_equal(bf_results_write_matrix(res, sc, rows, ncells), BF_OK);
    bf_results_close(&res);
    free(rows);
    bf_scenario_destroy(&sc);
}

/* the other way round: every file of the fixture under `sub` is still produced; when updating,
 * a fixture file the code stopped writing is deleted */
static void check_no_stale(const char *produced, const char *fixture, const char *sub)
{
    char *fd = bf_asprintf("%s%s%s", fixture, sub[0] ? "/" : "", sub);
    DIR *d = opendir(fd);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *rel = bf_asprintf("%s%s%s", sub, sub[0] ? "/" : "", e->d_name);
        char *q = bf_asprintf("%s/%s", fixture, rel);
        char *p = bf_asprintf("%s/%s", produced, rel);
        struct stat st, sp;
        assert_int_equal(stat(q, &st), 0);
        if (stat(p, &sp) != 0) {
            if (updating()) {
                rm_rf(q);
                printf("removed %s (no longer produced)\n", q);
            } else {
                fprintf(stderr,
                        "%s: in the fixture but the code no longer produces %s: if that "
                        "is intended, BF_UPDATE_GOLDEN=1 removes it\n",
                        q, rel);
                fail();
            }
        } else if (S_ISDIR(st.st_mode)) {
            check_no_stale(produced, fixture, rel);
        }
        free(p);
        free(q);
        free(rel);
    }
    closedir(d);
    free(fd);
}

/* every file under `sub` of the produced dir equals the fixture's (and no file is missing) */
static void compare_tree(const char *produced, const char *fixture, const char *sub)
{
    char *pd = bf_asprintf("%s%s%s", produced, sub[0] ? "/" : "", sub);
    DIR *d = opendir(pd);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *rel = bf_asprintf("%s%s%s", sub, sub[0] ? "/" : "", e->d_name);
        char *p = bf_asprintf("%s/%s", produced, rel);
        struct stat st;
        assert_int_equal(stat(p, &st), 0);
        if (S_ISDIR(st.st_mode)) {
            if (updating()) {
                char *q = bf_asprintf("%s/%s", fixture, rel);
                mkdirs(q);
                free(q);
            }
            compare_tree(produced, fixture, rel);
        } else {
            char *q = bf_asprintf("%s/%s", fixture, rel);
            check_golden(p, q);
            free(q);
        }
        free(p);
        free(rel);
    }
    closedir(d);
    free(pd);
}

static void test_fixture_dirs_are_current(void **state)
{
    (void)state;
    static const struct {
        const char *name, *yaml;
        int contender;
    } dirs[] = {{"shard-study-base", study_base_yaml, 0},
                {"shard-study-contender", study_contender_yaml, 1}};
    for (size_t i = 0; i < 2; i++) {
        char *tmp = make_tmpdir();
        char *out = bf_asprintf("%s/%s", tmp, dirs[i].name);
        gen_study(dirs[i].yaml, out, dirs[i].contender);
        char *fix = bf_asprintf("%s/%s", FIXTURES, dirs[i].name);
        if (updating())
            mkdirs(fix);
        compare_tree(out, fix, "");
        check_no_stale(out, fix, "");
        free(fix);
        rm_rf(tmp);
        free(out);
        free(tmp);
    }
}

/* which run measured which repetition: a campaign started 2026-12-07 19:20:00 UTC ran a and b,
 * was resumed at 21:35:00 and ran c; one repetition (x) started before any recorded run: an
 * earlier run of its own. One run alone: no sentence, and "runs" still lists it */
static void test_runs_of_a_resumed_campaign(void **state)
{
    (void)state;
    const int64_t t0 = 1796671200000LL; /* 2026-12-07 19:20:00 UTC */
    const int64_t starts[] = {t0, t0 + 8100000};
    const bf_run_rep_t reps[] = {
        {"c", t0 + 8110000},
        {"a", t0 + 1000},
        {"b", t0 + 61000},
        {"u", 0},
    };
    json_t *runs = NULL;
    char *note = bf_results_runs(starts, 2, reps, 4, &runs);
    assert_non_null(note);
    assert_string_equal(note,
                        "Measured in 2 runs (the campaign was resumed): run 1 from 2026-12-07 "
                        "19:20:00 UTC: a, b; run 2 from 2026-12-07 21:35:00 UTC, 2 h 14 min after "
                        "run 1's last repetition started: c. Cells of different runs are compared "
                        "across that gap: what changed on the cluster in between (a restart, its "
                        "caches, other load) is part of their difference.");
    assert_int_equal(json_array_size(runs), 2);
    json_t *r2 = json_array_get(runs, 1);
    assert_int_equal(json_integer_value(json_object_get(r2, "run")), 2);
    assert_string_equal(json_string_value(json_object_get(r2, "started_at")),
                        "2026-12-07T21:35:00.000Z");
    assert_int_equal(json_integer_value(json_object_get(r2, "started_at_ms")), t0 + 8100000);
    assert_string_equal(json_string_value(json_array_get(json_object_get(r2, "repetitions"), 0)),
                        "c");
    free(note);
    json_decref(runs);
    /* the earlier run not recorded (a directory from before runs were kept): x ran at 19:00 */
    const bf_run_rep_t early[] = {{"x", t0 - 1200000}, {"c", t0 + 8110000}};
    note = bf_results_runs(&starts[1], 1, early, 2, &runs);
    assert_non_null(note);
    assert_non_null(strstr(note, "run 1 from 2026-12-07 19:00:00 UTC: x; run 2 from 2026-12-07 "
                                 "21:35:00 UTC, 2 h 35 min after"));
    free(note);
    json_decref(runs);
    /* all in one run */
    note = bf_results_runs(starts, 1, reps, 3, &runs);
    assert_null(note);
    assert_int_equal(json_array_size(runs), 1);
    assert_int_equal(json_array_size(json_object_get(json_array_get(runs, 0), "repetitions")), 3);
    json_decref(runs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_files),
        cmocka_unit_test(test_merged_percentiles_match_raw_values),
        cmocka_unit_test(test_empty_second_counts_as_zero),
        cmocka_unit_test(test_lost_agent_degrades_the_cell),
        cmocka_unit_test(test_repeated_cell_median_and_cv),
        cmocka_unit_test(test_csv_seed_columns_first_and_unknowns_empty),
        cmocka_unit_test(test_few_requests_in_matrix_md),
        cmocka_unit_test(test_compact_matrix_fits_a_terminal),
        cmocka_unit_test(test_write_queue_in_requests),
        cmocka_unit_test(test_load_row_roundtrip),
        cmocka_unit_test(test_row_codec_decodes_what_the_writers_write),
        cmocka_unit_test(test_findings_read_rows_through_the_codec),
        cmocka_unit_test(test_row_codec_names_missing_and_bad_fields),
        cmocka_unit_test(test_fixture_dirs_are_current),
        cmocka_unit_test(test_runs_of_a_resumed_campaign),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
