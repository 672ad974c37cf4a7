/* SPDX-License-Identifier: MIT */
/* test_trend.c — unit tests for bf_trend (compare across several campaigns): verdicts with and
 * without repetitions, missing and failed cells, the geometric mean per campaign, both formats,
 * and the fixture directories. */
#include "bf_buf.h"
#include "bf_error.h"
#include "bf_trend.h"

#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define FIX BF_SOURCE_DIR "/tests/fixtures/results"

/* one row: cell, docs/s, repeat, cv (NAN = null), failed */
static json_t *row(const char *cell, double dps, int repeat, double cv, int failed)
{
    json_t *r = json_object();
    json_object_set_new(r, "cell", json_string(cell));
    json_object_set_new(r, "shards", json_integer(1));
    json_object_set_new(r, "batch_size", json_integer(100));
    json_object_set_new(r, "concurrency", json_integer(4));
    json_object_set_new(r, "docs_per_s", json_real(dps));
    json_object_set_new(r, "repeat", json_integer(repeat));
    json_object_set_new(r, "cv", isfinite(cv) ? json_real(cv) : json_null());
    json_object_set_new(r, "failed", json_boolean(failed));
    json_object_set_new(r, "replicas", json_integer(0));
    json_object_set_new(r, "service_p99_ms", json_real(10.0));
    json_object_set_new(r, "verified", json_true()); /* else the findings leave it out */
    return r;
}

/* a degraded row (18000 -> 33000 docs/s: an agent was lost, its row misses
 * what it did) is no point of the trend: "left out", struck, never higher */
static void test_left_out_rows(void **state)
{
    (void)state;
    bf_trend_t *t = bf_trend_new();
    const double v[3] = {18000, 18500, 33000};
    for (int k = 0; k < 3; k++) {
        json_t *c = json_array();
        json_t *r = row("A", v[k], 1, NAN, 0);
        if (k == 2)
            json_object_set_new(r, "degraded", json_true());
        json_array_append_new(c, r);
        json_array_append_new(c, row("B", 1000 + 10 * k, 1, NAN, 0));
        char label[16];
        snprintf(label, sizeof label, "c%d", k + 1);
        assert_int_equal(bf_trend_add(t, label, "s", c, NULL), BF_OK);
        json_decref(c);
    }
    assert_string_equal(bf_trend_verdict(t, 0), "left out");
    assert_string_equal(bf_trend_verdict(t, 1), "within 5% (no noise estimate)");
    size_t n = 0;
    assert_true(fabs(bf_trend_geomean(t, 2, &n) - 1.02) < 1e-9); /* B alone */
    assert_int_equal(n, 1);
    bf_buf_t out;
    bf_buf_init(&out, 0);
    bf_trend_format(t, BF_COMPARE_MARKDOWN, &out);
    assert_non_null(strstr(out.data, "~~33000~~ (left out: degraded: an agent was lost)"));
    assert_non_null(strstr(out.data, "+2.8% left out | ~~+83.3%~~ | left out |"));
    assert_non_null(strstr(out.data, "1 left out"));
    const char *a = strstr(out.data, "| A |");
    assert_non_null(a);
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(a, "\n"), a);
    assert_null(strstr(line, "higher"));
    assert_non_null(strstr(out.data, "0 higher"));
    bf_buf_cleanup(&out);
    bf_trend_destroy(&t);
}

/* a row whose index already existed with other shards or replicas (index_mismatch) is marked
 * in its campaign's column and said with what the index had, as compare says it; the CSV
 * names the campaigns whose row had it */
static void test_index_mismatch_marked(void **state)
{
    (void)state;
    bf_trend_t *t = bf_trend_new();
    for (int k = 0; k < 2; k++) {
        json_t *c = json_array();
        json_t *r = row("A", 1000 + 100 * k, 1, NAN, 0);
        if (k == 1) {
            json_object_set_new(r, "index_mismatch", json_true());
            json_object_set_new(r, "index_shards", json_integer(3));
            json_object_set_new(r, "index_replicas", json_integer(0));
        }
        json_array_append_new(c, r);
        char label[16];
        snprintf(label, sizeof label, "c%d", k + 1);
        assert_int_equal(bf_trend_add(t, label, "s", c, NULL), BF_OK);
        json_decref(c);
    }
    bf_buf_t out;
    bf_buf_init(&out, 0);
    bf_trend_format(t, BF_COMPARE_MARKDOWN, &out);
    if (strstr(out.data, "| 1000 | 1100 (index-mismatch) |") == NULL ||
        strstr(out.data, "1 row is index-mismatch") == NULL ||
        strstr(out.data, "A in #2 (the index had 3 shards and 0 replicas, not the cell's 1 and "
                         "0)") == NULL)
        fail_msg("the index-mismatch row is not marked:\n%s", out.data);
    bf_buf_reset(&out);
    bf_trend_format(t, BF_COMPARE_CSV, &out);
    assert_non_null(strstr(out.data, ",last_service_p99_ms,index_mismatch\n"));
    assert_non_null(strstr(out.data, ",10.000,10.000,2\n"));
    bf_buf_cleanup(&out);
    bf_trend_destroy(&t);
}

static bf_trend_t *three(void)
{
    bf_trend_t *t = bf_trend_new();
    json_t *c[3] = {json_array(), json_array(), json_array()};
    const double a[3] = {1000, 950, 800}, b[3] = {1000, 1000, 1020}, cc[3] = {1000, 1050, 1100};
    for (int k = 0; k < 3; k++) {
        json_array_append_new(c[k], row("A", a[k], 1, NAN, 0));
        json_array_append_new(c[k], row("B", b[k], 1, NAN, 0));
        json_array_append_new(c[k], row("C", cc[k], 3, 0.02, 0));
        if (k < 2)
            json_array_append_new(c[k], row("D", 500, 1, NAN, 0));  /* gone in #3 */
        json_array_append_new(c[k], row("E", 700, 1, NAN, k == 2)); /* failed in #3 */
        char label[16];
        snprintf(label, sizeof label, "c%d", k + 1);
        assert_int_equal(bf_trend_add(t, label, "s", c[k], NULL), BF_OK);
        json_decref(c[k]);
    }
    return t;
}

static void test_verdicts(void **state)
{
    (void)state;
    bf_trend_t *t = three();
    assert_int_equal(bf_trend_campaigns(t), 3);
    assert_int_equal(bf_trend_cells(t), 5);
    assert_string_equal(bf_trend_verdict(t, 0), "lower (no noise estimate)");     /* -20% */
    assert_string_equal(bf_trend_verdict(t, 1), "within 5% (no noise estimate)"); /* +2% */
    assert_string_equal(bf_trend_verdict(t, 2), "faster");                        /* +10% > 2% CV */
    assert_string_equal(bf_trend_verdict(t, 3), "-");
    assert_string_equal(bf_trend_verdict(t, 4), "failed");
    assert_true(bf_trend_docs_per_s(t, 0, 2) == 800);
    assert_true(isnan(bf_trend_docs_per_s(t, 3, 2)));
    /* #2 vs #1 over A B C D E: (0.95 * 1 * 1.05 * 1 * 1)^(1/5); #3: A B C only (D gone, E failed)
     */
    size_t n = 0;
    double g2 = bf_trend_geomean(t, 1, &n);
    assert_int_equal(n, 5);
    assert_true(fabs(g2 - pow(0.95 * 1.05, 1.0 / 5)) < 1e-12);
    double g3 = bf_trend_geomean(t, 2, &n);
    assert_int_equal(n, 3);
    assert_true(fabs(g3 - pow(0.8 * 1.02 * 1.1, 1.0 / 3)) < 1e-12);
    bf_trend_destroy(&t);
    assert_null(t);
}

static void test_format(void **state)
{
    (void)state;
    bf_trend_t *t = three();
    bf_buf_t b;
    bf_buf_init(&b, 0);
    bf_trend_format(t, BF_COMPARE_MARKDOWN, &b);
    assert_non_null(strstr(b.data, "## Trend across 3 campaigns"));
    assert_non_null(strstr(b.data,
                           "| A | 1 | 0 | 100 | 4 | 1000 | 950 | 800 | -5.0% -15.8% | -20.0% | "
                           "lower (no noise estimate) | 10.0 → 10.0 |"));
    assert_non_null(strstr(b.data, "| E | 1 | 0 | 100 | 4 | 700 | 700 | 700 (failed) |"));
    assert_non_null(
        strstr(b.data, "1 cells lower, 1 higher, 1 within the band, 1 failed, 1 not in both"));
    assert_non_null(strstr(b.data, "#3 0.965x (3 cells)"));
    bf_buf_reset(&b);
    bf_trend_format(t, BF_COMPARE_CSV, &b);
    static const char head[] = "cell,shards,replicas,batch_size,concurrency,docs_per_s_1,"
                               "docs_per_s_2,docs_per_s_3,last_vs_first_pct,verdict,";
    assert_true(strncmp(b.data, head, sizeof head - 1) == 0);
    assert_non_null(strstr(b.data, "\nD,1,0,100,4,500.000,500.000,,,-,10.000,,\n"));
    bf_buf_cleanup(&b);
    bf_trend_destroy(&t);
}

static void test_bad_row(void **state)
{
    (void)state;
    bf_trend_t *t = bf_trend_new();
    json_t *rows = json_array();
    json_t *r = row("A", 1000, 1, NAN, 0);
    json_object_set_new(r, "docs_per_s", json_string("fast")); /* the wrong JSON type */
    json_array_append_new(rows, r);
    bf_diag_t d = {0};
    assert_int_equal(bf_trend_add(t, "c1", "", rows, &d), BF_E_PARSE);
    assert_non_null(strstr(d.msg, "c1: rows[0]"));
    assert_non_null(strstr(d.msg, "docs_per_s"));
    assert_int_equal(bf_trend_campaigns(t), 0);
    json_decref(rows);
    bf_trend_destroy(&t);
}

static void test_dirs(void **state)
{
    (void)state;
    bf_trend_t *t = bf_trend_new();
    bf_diag_t d = {0};
    assert_int_equal(bf_trend_add_dir(t, FIX "/shard-study-base", &d), BF_OK);
    assert_int_equal(bf_trend_add_dir(t, FIX "/shard-study-contender", &d), BF_OK);
    assert_int_equal(bf_trend_add_dir(t, FIX "/shard-study-contender", &d), BF_OK);
    assert_int_equal(bf_trend_cells(t), 12); /* the contender's 4 cells are among the base's 12 */
    size_t n = 0;
    assert_true(isfinite(bf_trend_geomean(t, 2, &n)));
    assert_int_equal(n, 4);
    assert_int_equal(bf_trend_add_dir(t, FIX "/no-such-dir", &d), BF_E_NOTFOUND);
    assert_non_null(strstr(d.msg, "no-such-dir/matrix.json"));
    bf_trend_destroy(&t);
}

/* rows with each repetition's docs/s are tested last against first (U test, Holm
 * across the cells): +10 % with a 2 % spread is faster, an unchanged cell never faster or
 * slower, and 1 run against 1 run keeps the old wording */
static void with_reps(json_t *r, double dps, int n)
{
    json_t *a = json_array();
    for (int k = 0; k < n; k++)
        json_array_append_new(a, json_real(dps * (1.0 + 0.02 * ((double)k / (n - 1) - 0.5))));
    json_object_set_new(r, "docs_per_s_reps", a);
}

static void test_tested_with_repetitions(void **state)
{
    (void)state;
    bf_trend_t *t = bf_trend_new();
    for (int k = 0; k < 3; k++) {
        json_t *c = json_array();
        double a = k == 2 ? 22000 : 20000;
        json_t *ra = row("A", a, 6, 0.01, 0), *rb = row("B", 5000, 6, 0.01, 0);
        with_reps(ra, a, 6);
        with_reps(rb, 5000, 6);
        json_array_append_new(c, ra);
        json_array_append_new(c, rb);
        json_array_append_new(c, row("C", 1000 + 300 * k, 1, NAN, 0));
        char label[16];
        snprintf(label, sizeof label, "c%d", k + 1);
        assert_int_equal(bf_trend_add(t, label, "s", c, NULL), BF_OK);
        json_decref(c);
    }
    assert_string_equal(bf_trend_verdict(t, 0), "faster");
    const bf_stats_cmp_t *ts = bf_trend_test(t, 0);
    assert_non_null(ts);
    assert_true(fabs(ts->ratio - 1.1) < 1e-9 && ts->ci_low > 1.02 && ts->n_a == 6);
    assert_true(strcmp(bf_trend_verdict(t, 1), "faster") != 0 &&
                strcmp(bf_trend_verdict(t, 1), "slower") != 0);
    assert_null(bf_trend_test(t, 2));
    assert_string_equal(bf_trend_verdict(t, 2), "higher (no noise estimate)");
    bf_trend_destroy(&t);
}

/* a campaign's findings_options (findings.alpha, findings.noise_band) in its matrix.json
 * decide the trend's tests too: the +10 % that is "faster" under the defaults is inside the
 * last campaign's ±15 % band */
static void test_campaign_test_options(void **state)
{
    (void)state;
    bf_trend_t *t = bf_trend_new();
    const char *tmp = getenv("TMPDIR");
    char dirs[2][4096];
    for (int k = 0; k < 2; k++) {
        snprintf(dirs[k], sizeof dirs[k], "%s/bf-trend-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
        assert_non_null(mkdtemp(dirs[k]));
        json_t *rows = json_array();
        double a = k == 1 ? 22000 : 20000;
        json_t *ra = row("A", a, 6, 0.01, 0);
        with_reps(ra, a, 6);
        json_array_append_new(rows, ra);
        json_t *m = json_pack("{s:o}", "rows", rows);
        if (k == 1)
            json_object_set_new(m, "findings_options",
                                json_pack("{s:f, s:f}", "alpha", 0.05, "noise_band", 0.15));
        char path[4200];
        snprintf(path, sizeof path, "%s/matrix.json", dirs[k]);
        assert_int_equal(json_dump_file(m, path, 0), 0);
        json_decref(m);
        assert_int_equal(bf_trend_add_dir(t, dirs[k], NULL), BF_OK);
    }
    const bf_stats_cmp_t *ts = bf_trend_test(t, 0);
    assert_non_null(ts);
    assert_true(fabs(ts->ratio - 1.1) < 1e-9);
    assert_int_equal(ts->verdict, BF_VERDICT_SAME);
    assert_true(strcmp(bf_trend_verdict(t, 0), "faster") != 0);
    bf_buf_t out;
    bf_buf_init(&out, 0);
    bf_trend_format(t, BF_COMPARE_MARKDOWN, &out);
    assert_non_null(strstr(out.data, "p < 0.05 and the interval outside ±15 %"));
    assert_non_null(strstr(out.data, "differ between the campaigns"));
    bf_buf_cleanup(&out);
    bf_trend_destroy(&t);
    for (int k = 0; k < 2; k++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/matrix.json", dirs[k]);
        unlink(path);
        rmdir(dirs[k]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdicts),
        cmocka_unit_test(test_left_out_rows),
        cmocka_unit_test(test_index_mismatch_marked),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_bad_row),
        cmocka_unit_test(test_dirs),
        cmocka_unit_test(test_tested_with_repetitions),
        cmocka_unit_test(test_campaign_test_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
