/* SPDX-License-Identifier: MIT */
/* test_compare.c — unit tests for bf_compare on the two fixture results directories
 * (shard-study-base: 12 cells, repeat 1; shard-study-contender: 4 of those cells, repeat 3). */
#include "bf_buf.h"
#include "bf_compare.h"
#include "bf_error.h"
#include "bf_mem.h"

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

#define BASE BF_SOURCE_DIR "/tests/fixtures/results/shard-study-base"
#define CONT BF_SOURCE_DIR "/tests/fixtures/results/shard-study-contender"

static json_t *row_of(const char *dir, const char *cell)
{
    char *p = bf_asprintf("%s/matrix.json", dir);
    json_t *m = json_load_file(p, 0, NULL);
    free(p);
    assert_non_null(m);
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(m, "rows"), i, r) {
        if (strcmp(json_string_value(json_object_get(r, "cell")), cell) == 0) {
            json_incref(r);
            json_decref(m);
            return r;
        }
    }
    json_decref(m);
    return NULL;
}

static const bf_compare_row_t *find(const bf_compare_t *c, const char *cell)
{
    for (size_t i = 0; i < bf_compare_count(c); i++)
        if (strcmp(bf_compare_row(c, i)->cell, cell) == 0)
            return bf_compare_row(c, i);
    return NULL;
}

static void test_match_by_cell_id(void **state)
{
    (void)state;
    bf_compare_t *c = NULL;
    bf_diag_t d = {0};
    assert_int_equal(bf_compare_dirs(BASE, CONT, &c, &d), BF_OK);
    assert_int_equal(bf_compare_count(c), 4);
    assert_int_equal(bf_compare_only_base_count(c), 8);
    assert_int_equal(bf_compare_only_contender_count(c), 0);
    assert_string_equal(bf_compare_only_base(c, 0), "i1-s50-r1-b50-c100");
    assert_null(bf_compare_only_base(c, 8));
    /* baseline order */
    assert_string_equal(bf_compare_row(c, 0)->cell, "i1-s50-r1-b5000-c100");
    assert_null(bf_compare_row(c, 4));
    /* values straight from the two matrix.json files */
    const bf_compare_row_t *r = find(c, "i1-s850-r1-b5000-c100");
    json_t *b = row_of(BASE, r->cell), *k = row_of(CONT, r->cell);
    assert_true(r->base == json_real_value(json_object_get(b, "docs_per_s")));
    assert_true(r->contender == json_real_value(json_object_get(k, "docs_per_s")));
    assert_true(r->diff == r->contender - r->base);
    assert_true(fabs(r->diff_pct - 100.0 * (r->contender - r->base) / r->base) < 1e-12);
    assert_int_equal(r->shards, 850);
    assert_int_equal(r->batch_size, 5000);
    assert_int_equal(r->concurrency, 100);
    /* the contender ran 3 repetitions: its CV is the noise band */
    assert_true(r->noise_from_cv);
    assert_true(r->noise == json_real_value(json_object_get(k, "cv")));
    assert_false(r->within_noise); /* +18% */
    assert_true(isnan(r->base_p99_ms)); /* 99 requests: too few for p99 */
    json_decref(b);
    json_decref(k);
    r = find(c, "i1-s50-r1-b5000-c100");
    assert_true(r->within_noise); /* +1.2% against a 2% CV */
    bf_compare_destroy(&c);
    assert_null(c);
}

static void test_markdown(void **state)
{
    (void)state;
    bf_compare_t *c = NULL;
    assert_int_equal(bf_compare_dirs(BASE, CONT, &c, NULL), BF_OK);
    bf_buf_t out;
    bf_buf_init(&out, 0);
    bf_compare_format(c, BF_COMPARE_MARKDOWN, &out);
    printf("%s", out.data);
    assert_non_null(strstr(out.data, "| cell | shards | replicas | batch size | concurrency | "
                                     "baseline docs/s | contender docs/s | diff | diff % |"));
    /* one run against three: the U test cannot reach p < 0.05 (1+3 runs: p >= 0.5), so +43.8 %
     * beyond the contender's CV is "~", no longer "faster" (the CV rule is no test) */
    assert_non_null(strstr(out.data,
                           "| i1-s50-r1-b5000-c100 | 50 | 1 | 5000 | 100 | 156833 | 158737 "
                           "| +1904 | +1.2 | 2.0% (CV) | ~ |"));
    assert_non_null(strstr(out.data, "| i1-s850-r1-b5000-c200 | 850 | 1 | 5000 | 200 | 78979 | "
                                     "113597 | +34618 | +43.8 | 1.4% (CV) | ~ |"));
    assert_non_null(strstr(out.data, " | 1+3 |\n"));
    assert_non_null(strstr(out.data, "4 cells matched: 0 faster, 0 slower, 0 within noise, 0 same, "
                                     "4 ~ (no significant change)"));
    assert_non_null(strstr(out.data, "Only in the baseline: i1-s50-r1-b50-c100 "));
    assert_null(strstr(out.data, "Only in the contender"));
    bf_buf_cleanup(&out);
    bf_compare_destroy(&c);
}

static void test_csv(void **state)
{
    (void)state;
    bf_compare_t *c = NULL;
    assert_int_equal(bf_compare_dirs(BASE, CONT, &c, NULL), BF_OK);
    bf_buf_t out;
    bf_buf_init(&out, 0);
    bf_compare_format(c, BF_COMPARE_CSV, &out);
    const char *head = "cell,shards,replicas,batch_size,concurrency,base_docs_per_s,"
                       "contender_docs_per_s,diff_docs_per_s,diff_pct,noise_pct,noise_source,"
                       "within_noise,verdict,base_service_p99_ms,contender_service_p99_ms,"
                       "base_few_requests,contender_few_requests,base_left_out,"
                       "contender_left_out,ratio,ci_low,ci_high,p_value,n_base,n_contender,"
                       "base_index_mismatch,contender_index_mismatch\n";
    assert_true(strncmp(out.data, head, strlen(head)) == 0);
    size_t lines = 0;
    for (const char *p = out.data; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 5);
    /* unknown p99 is an empty field */
    const char *l = strstr(out.data, "\ni1-s850-r1-b5000-c100,850,1,5000,100,");
    assert_non_null(l);
    assert_non_null(strstr(l, ",cv,false,~,,"));
    bf_buf_cleanup(&out);
    bf_compare_destroy(&c);
}

static void test_same_dir_without_repeats_uses_five_percent(void **state)
{
    (void)state;
    bf_compare_t *c = NULL;
    assert_int_equal(bf_compare_dirs(BASE, BASE, &c, NULL), BF_OK);
    assert_int_equal(bf_compare_count(c), 12);
    for (size_t i = 0; i < 12; i++) {
        const bf_compare_row_t *r = bf_compare_row(c, i);
        assert_false(r->noise_from_cv);
        assert_true(r->noise == 0.05);
        assert_true(r->within_noise);
        assert_true(r->diff == 0);
    }
    bf_compare_destroy(&c);
}

/* two single runs have no noise estimate; a 30% difference is "higher", never
 * "faster", and the summary says how many cells had no estimate */
static void test_single_runs_no_noise_estimate(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/bf-cmp-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    assert_non_null(mkdtemp(dir));
    json_t *m = json_load_file(BASE "/matrix.json", 0, NULL);
    assert_non_null(m);
    json_t *r0 = json_array_get(json_object_get(m, "rows"), 0);
    double d0 = json_number_value(json_object_get(r0, "docs_per_s"));
    json_object_set_new(r0, "docs_per_s", json_real(d0 * 1.3));
    char *mp = bf_asprintf("%s/matrix.json", dir);
    assert_int_equal(json_dump_file(m, mp, 0), 0);
    json_decref(m);
    bf_compare_t *c = NULL;
    assert_int_equal(bf_compare_dirs(BASE, dir, &c, NULL), BF_OK);
    bf_buf_t out;
    bf_buf_init(&out, 0);
    bf_compare_format(c, BF_COMPARE_MARKDOWN, &out);
    printf("%s", out.data);
    assert_non_null(strstr(out.data, "| +30.0 | 5.0% | higher (no noise estimate) |"));
    assert_non_null(strstr(out.data, "| 0.0 | 5.0% | within 5% (no noise estimate) |"));
    assert_null(strstr(out.data, "| faster |"));
    assert_null(strstr(out.data, "| within noise |"));
    assert_non_null(strstr(out.data, "12 cells matched: 0 faster, 0 slower, 0 within noise, 12 "
                                     "with no noise estimate (one run on both sides)"));
    bf_buf_reset(&out);
    bf_compare_format(c, BF_COMPARE_CSV, &out);
    assert_non_null(strstr(out.data, ",default,false,higher (no noise estimate),"));
    bf_buf_cleanup(&out);
    bf_compare_destroy(&c);
    unlink(mp);
    free(mp);
    rmdir(dir);
}

/* a copy of BASE/matrix.json in a new temporary folder (path into dir, dir_size bytes), with
 * every row passed through edit(row, i); returns the matrix.json path (caller frees, unlinks) */
static char *edited_copy(char *dir, size_t dir_size, void (*edit)(json_t *row, size_t i))
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, dir_size, "%s/bf-cmp-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    assert_non_null(mkdtemp(dir));
    json_t *m = json_load_file(BASE "/matrix.json", 0, NULL);
    assert_non_null(m);
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(m, "rows"), i, r) edit(r, i);
    char *mp = bf_asprintf("%s/matrix.json", dir);
    assert_int_equal(json_dump_file(m, mp, 0), 0);
    json_decref(m);
    return mp;
}

/* batch_size 50 -> 200 (and the cell id with it), as a campaign of another batch size */
static void to_batch_200(json_t *row, size_t i)
{
    (void)i;
    if (json_integer_value(json_object_get(row, "batch_size")) != 50)
        return;
    json_object_set_new(row, "batch_size", json_integer(200));
    json_object_set_new(json_object_get(row, "axes"), "batch_size", json_string("200"));
    char id[256];
    snprintf(id, sizeof id, "%s", json_string_value(json_object_get(row, "cell")));
    char *b = strstr(id, "-b50-");
    assert_non_null(b);
    memmove(b + 5, b + 4, strlen(b + 4) + 1);
    memcpy(b, "-b200", 5);
    json_object_set_new(row, "cell", json_string(id));
}

static void first_few(json_t *row, size_t i)
{
    if (i == 0)
        json_object_set_new(row, "few_requests", json_true());
}

/* newuser2: campaigns with no cell in common are no comparison: say which axes differ and
 * exit 2 (an empty table with exit 0 looked like a result) */
static void test_no_cell_matched(void **state)
{
    (void)state;
    char dir[4096];
    char *mp = edited_copy(dir, sizeof dir, to_batch_200);
    /* keep only the batch-200 rows: then no cell id is common */
    json_t *m = json_load_file(mp, 0, NULL);
    json_t *rows = json_object_get(m, "rows"), *keep = json_array();
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) if (json_integer_value(json_object_get(r, "batch_size")) == 200)
        json_array_append(keep, r);
    assert_true(json_array_size(keep) > 0);
    json_object_set_new(m, "rows", keep);
    assert_int_equal(json_dump_file(m, mp, 0), 0);
    json_decref(m);
    bf_compare_t *c = NULL;
    assert_int_equal(bf_compare_dirs(BASE, dir, &c, NULL), BF_OK);
    assert_int_equal(bf_compare_count(c), 0);
    assert_string_equal(bf_compare_mismatch(c),
                        "batch_size 50, 5000 (baseline) vs 200 (contender)");
    bf_buf_t out;
    bf_buf_init(&out, 0);
    bf_compare_format(c, BF_COMPARE_MARKDOWN, &out);
    assert_non_null(strstr(out.data, "No cell matched: the two campaigns have no cell id in "
                                     "common; their axes differ: batch_size 50, 5000 "
                                     "(baseline) vs 200 (contender)."));
    bf_buf_cleanup(&out);
    bf_compare_destroy(&c);
    char *a[] = {"compare", BASE, dir, NULL};
    assert_int_equal(bf_compare_cmd(3, a), 2);
    /* some cells matched: no mismatch text, exit 0 */
    assert_int_equal(bf_compare_dirs(BASE, CONT, &c, NULL), BF_OK);
    assert_string_equal(bf_compare_mismatch(c), "");
    bf_compare_destroy(&c);
    unlink(mp);
    free(mp);
    rmdir(dir);
}

/* newuser2: a compared row whose baseline was few-requests is marked so */
static void test_few_requests_marked(void **state)
{
    (void)state;
    char dir[4096];
    char *mp = edited_copy(dir, sizeof dir, first_few);
    bf_compare_t *c = NULL;
    assert_int_equal(bf_compare_dirs(dir, BASE, &c, NULL), BF_OK);
    assert_true(bf_compare_row(c, 0)->base_few);
    assert_false(bf_compare_row(c, 0)->contender_few);
    assert_false(bf_compare_row(c, 1)->base_few);
    bf_buf_t out;
    bf_buf_init(&out, 0);
    bf_compare_format(c, BF_COMPARE_MARKDOWN, &out);
    assert_non_null(strstr(out.data, "within 5% (no noise estimate); baseline few-requests |"));
    assert_non_null(strstr(out.data, "1 row is few-requests on a side"));
    bf_buf_reset(&out);
    bf_compare_format(c, BF_COMPARE_CSV, &out);
    assert_non_null(strstr(out.data, ",true,false,\"\",\"\",,,,,,,\"\",\"\"\n"));
    bf_buf_cleanup(&out);
    bf_compare_destroy(&c);
    unlink(mp);
    free(mp);
    rmdir(dir);
}

/* the contender's first row degraded (an agent was lost) and 1.526 x the
 * baseline's docs/s: compare follows the findings' rule, marks it, strikes its figures and
 * calls it neither higher nor lower */
static void first_degraded(json_t *row, size_t i)
{
    if (i != 0)
        return;
    json_object_set_new(row, "degraded", json_true());
    double v = json_number_value(json_object_get(row, "docs_per_s"));
    json_object_set_new(row, "docs_per_s", json_real(v * 1.526));
}

/* both sides' first row unsteady: the summary names that reason, not a fixed list */
static void first_unsteady(json_t *row, size_t i)
{
    if (i == 0)
        json_object_set_new(row, "unsteady", json_true());
}

static void test_left_out_reason_named(void **state)
{
    (void)state;
    char dir[4096];
    char *mp = edited_copy(dir, sizeof dir, first_unsteady);
    bf_compare_t *c = NULL;
    assert_int_equal(bf_compare_dirs(BASE, dir, &c, NULL), BF_OK);
    bf_buf_t out;
    bf_buf_init(&out, 0);
    bf_compare_format(c, BF_COMPARE_MARKDOWN, &out);
    if (strstr(out.data, ", 1 left out (unsteady on a side,") == NULL ||
        strstr(out.data, "left out (degraded") != NULL)
        fail_msg("the summary does not name the row's reason: %s", out.data);
    bf_buf_cleanup(&out);
    bf_compare_destroy(&c);
    unlink(mp);
    free(mp);
    rmdir(dir);
}

static void test_left_out_marked(void **state)
{
    (void)state;
    char dir[4096];
    char *mp = edited_copy(dir, sizeof dir, first_degraded);
    bf_compare_t *c = NULL;
    assert_int_equal(bf_compare_dirs(BASE, dir, &c, NULL), BF_OK);
    const bf_compare_row_t *r = bf_compare_row(c, 0);
    assert_string_equal(r->contender_left_out, "degraded: an agent was lost");
    assert_string_equal(r->base_left_out, "");
    assert_string_equal(bf_compare_row(c, 1)->contender_left_out, "");
    bf_buf_t out;
    bf_buf_init(&out, 0);
    bf_compare_format(c, BF_COMPARE_MARKDOWN, &out);
    char line[1024];
    const char *l = strstr(out.data, r->cell);
    assert_non_null(l);
    snprintf(line, sizeof line, "%.*s", (int)strcspn(l, "\n"), l);
    if (strstr(line, "| left out (contender: degraded: an agent was lost) |") == NULL ||
        strstr(line, "higher") != NULL || strstr(line, "~~+52.6~~") == NULL)
        fail_msg("the degraded row is not marked and struck: %s", line);
    assert_non_null(strstr(out.data, ", 1 left out (degraded on a side, as the findings"));
    bf_buf_reset(&out);
    bf_compare_format(c, BF_COMPARE_CSV, &out);
    assert_non_null(strstr(out.data, ",base_left_out,contender_left_out,ratio,"));
    assert_non_null(strstr(out.data, ",left out,"));
    assert_non_null(strstr(out.data, ",\"\",\"degraded: an agent was lost\",,,,,,,\"\",\"\"\n"));
    bf_buf_cleanup(&out);
    bf_compare_destroy(&c);
    unlink(mp);
    free(mp);
    rmdir(dir);
}

/* the contender's first row wrote into an index that already had 3 shards and 0 replicas
 * (index-mismatch, recreate: false): compare still matches it by cell id, and says so in the
 * verdict column, in a line under the table with the index's real numbers, and in CSV */
static void first_mismatch(json_t *row, size_t i)
{
    if (i != 0)
        return;
    json_object_set_new(row, "index_mismatch", json_true());
    json_object_set_new(row, "index_shards", json_integer(3));
    json_object_set_new(row, "index_replicas", json_integer(0));
}

static void test_index_mismatch_said(void **state)
{
    (void)state;
    char dir[4096];
    char *mp = edited_copy(dir, sizeof dir, first_mismatch);
    bf_compare_t *c = NULL;
    assert_int_equal(bf_compare_dirs(BASE, dir, &c, NULL), BF_OK);
    const bf_compare_row_t *r = bf_compare_row(c, 0);
    char want[160];
    snprintf(want, sizeof want, "the index had 3 shards and 0 replicas, not the cell's %u and %u",
             r->shards, r->replicas);
    assert_string_equal(r->contender_mismatch, want);
    assert_string_equal(r->base_mismatch, "");
    assert_string_equal(bf_compare_row(c, 1)->contender_mismatch, "");
    bf_buf_t out;
    bf_buf_init(&out, 0);
    bf_compare_format(c, BF_COMPARE_MARKDOWN, &out);
    const char *l = strstr(out.data, r->cell);
    assert_non_null(l);
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(l, "\n"), l);
    if (strstr(line, "; contender index-mismatch |") == NULL)
        fail_msg("the row is not marked index-mismatch: %s", line);
    char note[512];
    snprintf(note, sizeof note, "1 matched row is index-mismatch on a side");
    assert_non_null(strstr(out.data, note));
    snprintf(note, sizeof note, " %s (contender: %s).", r->cell, want);
    if (strstr(out.data, note) == NULL)
        fail_msg("the note does not name the cell and its index: %s", out.data);
    bf_buf_reset(&out);
    bf_compare_format(c, BF_COMPARE_CSV, &out);
    snprintf(note, sizeof note, ",\"\",\"%s\"\n", want);
    assert_non_null(strstr(out.data, note));
    bf_buf_cleanup(&out);
    bf_compare_destroy(&c);
    /* the same directories without the flag: no note */
    assert_int_equal(bf_compare_dirs(BASE, CONT, &c, NULL), BF_OK);
    bf_buf_init(&out, 0);
    bf_compare_format(c, BF_COMPARE_MARKDOWN, &out);
    assert_null(strstr(out.data, "index-mismatch"));
    bf_buf_cleanup(&out);
    bf_compare_destroy(&c);
    unlink(mp);
    free(mp);
    rmdir(dir);
}

/* six repetitions a row around its docs/s (+-1 %, the same spread every row), times `scale`
 * for row 0 */
static double rep_scale;
static void six_reps(json_t *row, size_t i)
{
    double v = json_number_value(json_object_get(row, "docs_per_s")) * (i == 0 ? rep_scale : 1);
    json_t *a = json_array();
    for (int k = 0; k < 6; k++)
        json_array_append_new(a, json_real(v * (1.0 + 0.02 * ((double)k / 5.0 - 0.5))));
    json_object_set_new(row, "docs_per_s", json_real(v));
    json_object_set_new(row, "docs_per_s_reps", a);
    json_object_set_new(row, "repeat", json_integer(6));
}

/* with repetitions on both sides each cell is a U test, Holm across the cells: a
 * true +10 % in one cell is faster with its interval, the identical cells are never faster or
 * slower */
static void test_tested_with_repetitions(void **state)
{
    (void)state;
    char d1[4096], d2[4096];
    rep_scale = 1.0;
    char *m1 = edited_copy(d1, sizeof d1, six_reps);
    rep_scale = 1.10;
    char *m2 = edited_copy(d2, sizeof d2, six_reps);
    bf_compare_t *c = NULL;
    assert_int_equal(bf_compare_dirs(d1, d2, &c, NULL), BF_OK);
    assert_int_equal(bf_compare_count(c), 12);
    const bf_compare_row_t *r = bf_compare_row(c, 0);
    assert_true(r->tested);
    assert_int_equal(r->test.verdict, BF_VERDICT_HIGHER);
    assert_true(fabs(r->test.ratio - 1.10) < 1e-9);
    assert_true(r->test.ci_low > 1.02 && r->test.ci_low <= 1.10 && r->test.ci_high >= 1.10);
    for (size_t i = 1; i < bf_compare_count(c); i++) {
        assert_true(bf_compare_row(c, i)->tested);
        assert_true(bf_compare_row(c, i)->test.verdict != BF_VERDICT_HIGHER &&
                    bf_compare_row(c, i)->test.verdict != BF_VERDICT_LOWER);
    }
    bf_buf_t out;
    bf_buf_init(&out, 0);
    bf_compare_format(c, BF_COMPARE_MARKDOWN, &out);
    printf("%s\n", out.data);
    assert_non_null(strstr(out.data, "| faster | "));
    assert_non_null(strstr(out.data, " 1.100x ("));
    assert_non_null(strstr(out.data,
                           "12 cells matched: 1 faster, 0 slower, 0 within noise, 11 same, "
                           "0 ~ (no significant change)"));
    assert_non_null(strstr(out.data, "p corrected by Benjamini-Hochberg over the 12 cells"));
    assert_non_null(strstr(out.data, "geometric mean of their ratios 1.008x (95 % CI "));
    bf_buf_cleanup(&out);
    bf_compare_destroy(&c);
    unlink(m1);
    unlink(m2);
    free(m1);
    free(m2);
    rmdir(d1);
    rmdir(d2);
}

/* the campaigns' own findings.alpha and findings.noise_band (matrix.json's findings_options)
 * decide, not the defaults: the same true +10 % that is faster under the defaults is "same"
 * inside a ±15 % band, and the text says whose options and that the two differ */
static void test_campaign_test_options(void **state)
{
    (void)state;
    char d1[4096], d2[4096];
    rep_scale = 1.0;
    char *m1 = edited_copy(d1, sizeof d1, six_reps);
    rep_scale = 1.10;
    char *m2 = edited_copy(d2, sizeof d2, six_reps);
    json_t *m = json_load_file(m2, 0, NULL);
    assert_non_null(m);
    json_object_set_new(m, "findings_options",
                        json_pack("{s:f, s:f}", "alpha", 0.01, "noise_band", 0.15));
    assert_int_equal(json_dump_file(m, m2, 0), 0);
    json_decref(m);
    bf_compare_t *c = NULL;
    assert_int_equal(bf_compare_dirs(d1, d2, &c, NULL), BF_OK);
    const bf_compare_row_t *r = bf_compare_row(c, 0);
    assert_true(r->tested);
    assert_true(fabs(r->test.ratio - 1.10) < 1e-9);
    assert_int_equal(r->test.verdict, BF_VERDICT_SAME); /* 1.10x inside +-15 % */
    assert_true(r->test.ci_level >= 0.99 - 1e-9);       /* 1 - alpha */
    bf_buf_t out;
    bf_buf_init(&out, 0);
    bf_compare_format(c, BF_COMPARE_MARKDOWN, &out);
    assert_null(strstr(out.data, "| faster | "));
    assert_non_null(strstr(out.data, "p < 0.01 and the interval outside ±15 %"));
    assert_non_null(strstr(out.data, "of the two campaigns differ: the stricter of each"));
    bf_buf_cleanup(&out);
    bf_compare_destroy(&c);
    unlink(m1);
    unlink(m2);
    free(m1);
    free(m2);
    rmdir(d1);
    rmdir(d2);
}

static void test_errors(void **state)
{
    (void)state;
    bf_compare_t *c = NULL;
    bf_diag_t d = {0};
    assert_int_equal(bf_compare_dirs("/nonexistent", BASE, &c, &d), BF_E_NOTFOUND);
    assert_null(c);
    assert_non_null(strstr(d.msg, "/nonexistent/matrix.json"));
    bf_diag_t d2 = {0};
    assert_int_equal(bf_compare_dirs(BASE, "/nonexistent2", &c, &d2), BF_E_NOTFOUND);
    assert_non_null(strstr(d2.msg, "/nonexistent2/matrix.json"));
    /* the command: usage errors are exit code 2 */
    char *a1[] = {"compare", BASE, NULL};
    assert_int_equal(bf_compare_cmd(2, a1), 2);
    char *a2[] = {"compare", BASE, "/nonexistent", NULL};
    assert_int_equal(bf_compare_cmd(3, a2), 2);
    char *a3[] = {"compare", BASE, BASE, "--bogus", NULL};
    assert_int_equal(bf_compare_cmd(4, a3), 2);
    char *a4[] = {"compare", BASE, CONT, "--csv", NULL};
    assert_int_equal(bf_compare_cmd(4, a4), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match_by_cell_id),
        cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_same_dir_without_repeats_uses_five_percent),
        cmocka_unit_test(test_single_runs_no_noise_estimate),
        cmocka_unit_test(test_no_cell_matched),
        cmocka_unit_test(test_few_requests_marked),
        cmocka_unit_test(test_left_out_marked),
        cmocka_unit_test(test_left_out_reason_named),
        cmocka_unit_test(test_index_mismatch_said),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_campaign_test_options),
        cmocka_unit_test(test_tested_with_repetitions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
