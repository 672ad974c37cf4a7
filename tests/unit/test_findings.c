/* SPDX-License-Identifier: MIT */
/* test_findings.c — unit tests for bf_findings on the seed shard study's own table
 * (shared/seeds/000_*: 850 / 425 / 50 shards, batch 50..5000, concurrency 100..800). */
#include "bf_error.h"
#include "bf_findings.h"
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

#include <cmocka.h>

static bf_finding_point_t P(uint32_t shards, uint32_t replicas, uint32_t batch, uint32_t conc,
                            double dps, int rej)
{
    bf_finding_point_t p;
    memset(&p, 0, sizeof p);
    snprintf(p.cell, sizeof p.cell, "i1-s%u-r%u-b%u-c%u", shards, replicas, batch, conc);
    p.indices = 1;
    p.shards = shards;
    p.replicas = replicas;
    p.batch_size = batch;
    p.concurrency = conc;
    p.docs_per_s = dps;
    p.rejections = rej;
    return p;
}

static json_t *item_of(json_t *j, const char *kind, size_t nth);

/* k repetitions of p's docs/s spread evenly over +-spread/2 around it (deterministic) */
static void with_reps(bf_finding_point_t *p, uint32_t k, double spread)
{
    p->nreps = k;
    p->repeat = k;
    for (uint32_t i = 0; i < k; i++)
        p->reps[i] = p->docs_per_s * (1.0 + spread * ((double)i / (double)(k - 1) - 0.5));
}

/* the seed report's result table; the 200-concurrency cells at 850 shards saw rejections */
static size_t seed_points(bf_finding_point_t *p)
{
    size_t n = 0;
    p[n++] = P(850, 1, 50, 100, 10000, 0);
    p[n++] = P(850, 0, 50, 100, 30000, 0);
    p[n++] = P(850, 0, 50, 200, 40000, 1);
    p[n++] = P(850, 1, 50, 200, 18000, 0);
    p[n++] = P(850, 1, 50, 400, 27500, 0);
    p[n++] = P(850, 1, 50, 800, 29700, 0);
    p[n++] = P(850, 1, 500, 100, 30187, 0);
    p[n++] = P(850, 1, 2000, 100, 68000, 0);
    p[n++] = P(850, 1, 5000, 100, 98915, 0);
    p[n++] = P(850, 1, 5000, 200, 78462, 1);
    p[n++] = P(425, 1, 50, 100, 12695, 0);
    p[n++] = P(425, 1, 500, 100, 46818, 0);
    p[n++] = P(425, 1, 2000, 100, 100000, 0);
    p[n++] = P(425, 1, 5000, 100, 130000, 0);
    p[n++] = P(50, 1, 50, 100, 32987, 0);
    p[n++] = P(50, 1, 500, 100, 96207, 0);
    p[n++] = P(50, 1, 1000, 100, 147719, 0);
    p[n++] = P(50, 1, 5000, 100, 156961, 0);
    return n;
}

static json_t *find_obj(json_t *arr, const char *k1, json_int_t v1, const char *k2, json_int_t v2)
{
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o) {
        if (json_integer_value(json_object_get(o, k1)) == v1 &&
            (k2 == NULL || json_integer_value(json_object_get(o, k2)) == v2))
            return o;
    }
    return NULL;
}

static int has_line(const bf_findings_t *f, const char *needle)
{
    for (size_t i = 0; i < bf_findings_count(f); i++)
        if (strstr(bf_findings_line(f, i), needle))
            return 1;
    return 0;
}

static void print_lines(const bf_findings_t *f)
{
    for (size_t i = 0; i < bf_findings_count(f); i++)
        printf("  %s\n", bf_findings_line(f, i));
}

static void test_best_per_shard_count_without_rejections(void **state)
{
    (void)state;
    bf_finding_point_t pts[32];
    size_t n = seed_points(pts);
    bf_findings_t *f = bf_findings_compute(pts, n);
    print_lines(f);
    json_t *j = bf_findings_json(f);
    json_t *best = json_object_get(j, "best");
    assert_int_equal(json_array_size(best), 3);
    /* ascending shard count */
    assert_int_equal(json_integer_value(json_object_get(json_array_get(best, 0), "shards")), 50);
    json_t *b850 = find_obj(best, "shards", 850, NULL, 0);
    assert_int_equal(json_integer_value(json_object_get(b850, "batch_size")), 5000);
    assert_int_equal(json_integer_value(json_object_get(b850, "concurrency")), 100);
    assert_true(json_number_value(json_object_get(b850, "docs_per_s")) == 98915);
    assert_true(json_is_false(json_object_get(b850, "all_rejected")));
    json_t *b50 = find_obj(best, "shards", 50, NULL, 0);
    assert_true(json_number_value(json_object_get(b50, "docs_per_s")) == 156961);
    assert_true(has_line(f, "850 shards: best without rejections or errors is 98,915 docs/s with batch 5000, "
                            "replicas 1 at concurrency 100."));
    json_decref(j);
    bf_findings_destroy(&f);
    assert_null(f);
}

static void test_knee_first_step_under_ten_percent(void **state)
{
    (void)state;
    bf_finding_point_t pts[32];
    size_t n = seed_points(pts);
    bf_findings_t *f = bf_findings_compute(pts, n);
    json_t *j = bf_findings_json(f);
    json_t *knees = json_object_get(j, "knees");
    int seen_b50 = 0, seen_b5000 = 0, seen_r0 = 0;
    size_t i;
    json_t *k;
    json_array_foreach(knees, i, k) {
        const char *line = json_string_value(json_object_get(k, "line"));
        if (json_integer_value(json_object_get(k, "shards")) != 850)
            continue;
        if (strcmp(line, "batch 50, replicas 1") == 0) {
            /* 10000 -> 18000 (+80%) -> 27500 (+53%) -> 29700 (+8%): knee at 400 */
            assert_int_equal(json_integer_value(json_object_get(k, "knee_concurrency")), 400);
            assert_int_equal(json_integer_value(json_object_get(k, "next_concurrency")), 800);
            assert_true(fabs(json_real_value(json_object_get(k, "gain")) - (29700.0 / 27500 - 1)) < 1e-12);
            seen_b50 = 1;
        } else if (strcmp(line, "batch 5000, replicas 1") == 0) {
            /* 98915 -> 78462: more concurrency made it slower; knee at 100 */
            assert_int_equal(json_integer_value(json_object_get(k, "knee_concurrency")), 100);
            seen_b5000 = 1;
        } else if (strcmp(line, "batch 50, replicas 0") == 0) {
            /* 30000 -> 40000 (+33%): still growing */
            assert_true(json_is_true(json_object_get(k, "growing")));
            assert_true(json_is_null(json_object_get(k, "knee_concurrency")));
            seen_r0 = 1;
        }
    }
    assert_true(seen_b50 && seen_b5000 && seen_r0);
    /* lines of a single concurrency have no knee entry: 425 and 50 shards ran only c=100 */
    assert_null(find_obj(knees, "shards", 425, NULL, 0));
    /* one run: the step under 10 % is not tested as same, so no knee is stated */
    assert_true(has_line(f, "850 shards, batch 50, replicas 1: no knee stated: going from "
                            "concurrency 400 (27,500 docs/s) to 800 changes docs/s by +8%, less "
                            "than 10%, but the step is 1.08x (1+1 runs): unclear."));
    assert_true(has_line(f, "850 shards, batch 50, replicas 0: no knee up to concurrency 200; the "
                            "last step from 100 still added +33%: 1.33x (1+1 runs): unclear."));
    json_decref(j);
    bf_findings_destroy(&f);
}

/* The knee sentence states one figure for the step: the test's ratio, which the clause after
 * it gives ("-36%, ... 0.64x"), not the cells' docs/s (it read "-49%, less than 10%, but the
 * step is 0.64x": the rows' lower-middle runs beside the runs' ratio). */
static void test_knee_text_one_figure(void **state)
{
    (void)state;
    bf_finding_point_t pts[2] = {P(1, 0, 500, 2, 1000, 0), P(1, 0, 500, 4, 510, 0)};
    double ra[4] = {800, 1000, 1300, 1400}, rb[4] = {480, 510, 900, 1000};
    for (int i = 0; i < 4; i++) {
        pts[0].reps[i] = ra[i];
        pts[1].reps[i] = rb[i];
    }
    pts[0].nreps = pts[0].repeat = pts[1].nreps = pts[1].repeat = 4;
    bf_findings_t *f = bf_findings_compute(pts, 2);
    json_t *j = bf_findings_json(f);
    json_t *k = item_of(j, "knee", 0);
    assert_non_null(k);
    json_t *fig = json_object_get(k, "figures");
    double ratio = json_real_value(json_object_get(fig, "ratio"));
    /* the Hodges-Lehmann ratio of the runs: exp(median of the 16 log ratios) */
    assert_true(fabs(ratio - 0.6401729676981281) < 1e-9);
    const char *text = json_string_value(json_object_get(k, "text"));
    print_lines(f);
    char want[64];
    snprintf(want, sizeof want, "by %+.0f%%", (ratio - 1.0) * 100.0); /* "by -36%" */
    assert_non_null(strstr(text, want));
    assert_non_null(strstr(text, "0.64x"));
    assert_null(strstr(text, "-49%"));
    /* the cells' own gain stays in the figures */
    assert_true(fabs(json_real_value(json_object_get(fig, "gain")) - (510.0 / 1000 - 1)) < 1e-12);
    json_decref(j);
    bf_findings_destroy(&f);
}

static void test_shard_ratios_fewest_vs_others(void **state)
{
    (void)state;
    bf_finding_point_t pts[32];
    size_t n = seed_points(pts);
    bf_findings_t *f = bf_findings_compute(pts, n);
    json_t *j = bf_findings_json(f);
    json_t *sh = json_object_get(j, "shards");
    assert_int_equal(json_array_size(sh), 2);
    json_t *vs850 = find_obj(sh, "fewest", 50, "other", 850);
    assert_non_null(vs850);
    assert_true(fabs(json_real_value(json_object_get(vs850, "best_ratio")) - 156961.0 / 98915) < 1e-12);
    json_t *lfl = json_object_get(vs850, "like_for_like");
    /* equal replicas, batch and concurrency: b50 c100, b500 c100, b5000 c100 */
    assert_int_equal(json_integer_value(json_object_get(lfl, "pairs")), 3);
    assert_true(fabs(json_real_value(json_object_get(lfl, "min")) - 156961.0 / 98915) < 1e-12);
    assert_true(fabs(json_real_value(json_object_get(lfl, "median")) - 96207.0 / 30187) < 1e-12);
    assert_true(fabs(json_real_value(json_object_get(lfl, "max")) - 32987.0 / 10000) < 1e-12);
    /* the seed's conclusion: ~2x of 425, ~3x of 850 at small batches */
    json_t *vs425 = find_obj(sh, "fewest", 50, "other", 425);
    assert_true(fabs(json_real_value(json_object_get(json_object_get(vs425, "like_for_like"), "max")) -
                     32987.0 / 12695) < 1e-12);
    assert_true(has_line(f, "50 shards vs 850 shards: best 156,961 vs 98,915 docs/s: 1.59x (1+1 "
                            "runs): unclear; like for like 1.59x to 3.30x, median 3.19x (3 "
                            "matching cells: unclear)."));
    json_decref(j);
    bf_findings_destroy(&f);
}

static void test_batch_gain_largest_over_smallest(void **state)
{
    (void)state;
    bf_finding_point_t pts[32];
    size_t n = seed_points(pts);
    bf_findings_t *f = bf_findings_compute(pts, n);
    json_t *j = bf_findings_json(f);
    json_t *bg = json_object_get(j, "batch");
    assert_int_equal(json_array_size(bg), 3);
    json_t *g850 = find_obj(bg, "shards", 850, NULL, 0);
    assert_int_equal(json_integer_value(json_object_get(g850, "smallest_batch")), 50);
    assert_int_equal(json_integer_value(json_object_get(g850, "largest_batch")), 5000);
    json_t *g = json_object_get(g850, "gain");
    /* replicas 1 at c100 and c200; replicas 0 has no batch 5000 */
    assert_int_equal(json_integer_value(json_object_get(g, "pairs")), 2);
    assert_true(fabs(json_real_value(json_object_get(g, "median")) -
                     (98915.0 / 10000 + 78462.0 / 18000) / 2) < 1e-12);
    assert_true(has_line(f, "425 shards: batch 5000 over batch 50: 10.24x (1+1 runs): unclear."));
    assert_true(has_line(f, "No cell has more than one run's docs/s"));
    json_decref(j);
    bf_findings_destroy(&f);
    /* with 5 repetitions a cell the ratio is tested: 5+5 runs, p below 0.05 after the
     * correction (Benjamini-Hochberg: more than 10 comparisons) and the interval above 1.02 */
    for (size_t i = 0; i < n; i++)
        with_reps(&pts[i], 5, 0.02);
    f = bf_findings_compute(pts, n);
    print_lines(f);
    assert_true(has_line(f, "425 shards: batch 5000 over batch 50: 10.24x (95 % CI "));
    assert_true(has_line(f, "5+5 runs): higher."));
    assert_true(has_line(f, "corrected by Benjamini-Hochberg over the "));
    assert_false(has_line(f, "No cell has more than one run's docs/s"));
    j = bf_findings_json(f);
    json_t *it = item_of(j, "batch", 1); /* 425 shards */
    assert_string_equal(json_string_value(json_object_get(it, "verdict")), "higher");
    json_t *fig = json_object_get(it, "figures");
    assert_true(fabs(json_real_value(json_object_get(fig, "ratio")) - 130000.0 / 12695) < 1e-9);
    assert_true(json_real_value(json_object_get(fig, "ci_low")) > 1.02);
    assert_true(json_real_value(json_object_get(fig, "p_value")) < 0.05);
    assert_int_equal(json_integer_value(json_object_get(fig, "n_a")), 5);
    assert_int_equal(json_integer_value(json_object_get(fig, "n_b")), 5);
    json_decref(j);
    bf_findings_destroy(&f);
}

static void test_all_rejected_and_excluded(void **state)
{
    (void)state;
    bf_finding_point_t pts[4];
    pts[0] = P(3, 0, 100, 4, 5000, 1);
    pts[1] = P(3, 0, 100, 8, 6000, 1);
    pts[2] = P(3, 0, 100, 16, 90000, 0);
    pts[2].excluded = 1; /* failed: never the best */
    bf_findings_t *f = bf_findings_compute(pts, 3);
    print_lines(f);
    /* "rejections" means 429s; p.rejections also counts errors, so the line says both */
    assert_true(has_line(f, "3 shards: every cell saw rejections or errors; the highest was 6,000 "
                            "docs/s with batch 100 at concurrency 8."));
    /* one shard count: no shard ratio; one batch size: no batch gain */
    json_t *j = bf_findings_json(f);
    assert_int_equal(json_array_size(json_object_get(j, "shards")), 0);
    assert_int_equal(json_array_size(json_object_get(j, "batch")), 0);
    json_decref(j);
    bf_findings_destroy(&f);
}

static void test_nothing_to_say(void **state)
{
    (void)state;
    bf_findings_t *f = bf_findings_compute(NULL, 0);
    assert_int_equal(bf_findings_count(f), 1);
    assert_string_equal(bf_findings_line(f, 0), "No finished cell to draw findings from.");
    assert_null(bf_findings_line(f, 1));
    bf_findings_destroy(&f);
}

static void test_point_from_json_and_label(void **state)
{
    (void)state;
    json_t *row = json_loads("{\"cell\":\"x\",\"indices\":1,\"shards\":2,\"replicas\":0,"
                             "\"batch_size\":500,\"concurrency\":8,\"axes\":{\"shards\":\"2\","
                             "\"settings.refresh_interval\":\"30s\"},\"docs_per_s\":1234.5,"
                             "\"docs_rejected\":0,\"http_429\":0,\"write_rejected\":3,"
                             "\"failed\":false}", 0, NULL);
    bf_finding_point_t p[2];
    assert_int_equal(bf_finding_point_from_json(row, &p[0]), BF_OK);
    assert_string_equal(p[0].extra, "settings.refresh_interval=30s");
    assert_true(p[0].rejections); /* write-pool rejections count */
    assert_false(p[0].excluded);
    assert_true(p[0].docs_per_s == 1234.5);
    p[1] = p[0];
    bf_strlcpy(p[1].extra, "settings.refresh_interval=1s", sizeof p[1].extra);
    char label[300];
    assert_string_equal(bf_findings_line_label(p, 2, &p[0], label, sizeof label),
                        "batch 500, settings.refresh_interval=30s");
    assert_string_equal(bf_findings_line_label(p, 1, &p[0], label, sizeof label), "batch 500");
    json_decref(row);
    row = json_loads("{\"cell\":\"x\",\"shards\":2}", 0, NULL);
    assert_int_equal(bf_finding_point_from_json(row, &p[0]), BF_E_PARSE);
    json_decref(row);
    /* a cell that missed its target rate did not run the load asked for: never "best" */
    row = json_loads("{\"cell\":\"y\",\"indices\":1,\"shards\":2,\"replicas\":0,"
                     "\"batch_size\":500,\"concurrency\":8,\"docs_per_s\":99999,"
                     "\"target_missed\":true,\"failed\":false}",
                     0, NULL);
    assert_int_equal(bf_finding_point_from_json(row, &p[0]), BF_OK);
    assert_true(p[0].excluded);
    json_decref(row);
    /* a stalled cell's number is not a result; documents accepted on a retry were rejected */
    row = json_loads("{\"cell\":\"z\",\"indices\":1,\"shards\":2,\"replicas\":0,"
                     "\"batch_size\":500,\"concurrency\":8,\"docs_per_s\":5,"
                     "\"stalled\":true,\"docs_retried\":3,\"failed\":false}",
                     0, NULL);
    assert_int_equal(bf_finding_point_from_json(row, &p[0]), BF_OK);
    assert_true(p[0].excluded);
    assert_true(p[0].rejections);
    json_decref(row);
}

/* routing_mode node over none, like for like per shard count: only cells equal but for
 * routing_mode are paired (the gzip cells with each other) */
static void test_routing_gain_like_for_like(void **state)
{
    (void)state;
    bf_finding_point_t pts[8];
    size_t n = 0;
    const char *ex[] = {"routing_mode=none", "routing_mode=node", "compression=gzip routing_mode=none",
                        "compression=gzip routing_mode=node"};
    double dps3[] = {1000, 1300, 900, 990}, dps30[] = {2000, 3000, 0, 0};
    for (int k = 0; k < 4; k++) {
        pts[n] = P(3, 0, 5000, 200, dps3[k], 0);
        snprintf(pts[n++].extra, sizeof pts[0].extra, "%s", ex[k]);
    }
    for (int k = 0; k < 2; k++) {
        pts[n] = P(30, 0, 5000, 200, dps30[k], 0);
        snprintf(pts[n++].extra, sizeof pts[0].extra, "%s", ex[k]);
    }
    bf_findings_t *f = bf_findings_compute(pts, n);
    print_lines(f);
    assert_true(has_line(f, "3 shards: routing_mode node over none: 1.10x to 1.30x, median"));
    assert_true(has_line(f, "30 shards: routing_mode node over none: 1.50x"));
    assert_false(has_line(f, "routing_mode shard over none"));
    json_t *j = bf_findings_json(f);
    json_t *r = json_object_get(j, "routing");
    assert_int_equal(json_array_size(r), 2);
    assert_non_null(find_obj(r, "shards", 30, NULL, 0));
    json_decref(j);
    bf_findings_destroy(&f);
    /* no routing axis: no "routing" key at all */
    pts[0] = P(3, 0, 5000, 200, 1000, 0);
    pts[1] = P(6, 0, 5000, 200, 1500, 0);
    f = bf_findings_compute(pts, 2);
    j = bf_findings_json(f);
    assert_null(json_object_get(j, "routing"));
    json_decref(j);
    bf_findings_destroy(&f);
}

static json_t *item_of(json_t *j, const char *kind, size_t nth)
{
    size_t i, seen = 0;
    json_t *o;
    json_array_foreach(json_object_get(j, "items"), i, o)
    {
        const char *k = json_string_value(json_object_get(o, "kind"));
        if (k && strcmp(k, kind) == 0 && seen++ == nth)
            return o;
    }
    return NULL;
}

/* a cell measured on a handful of bulk responses is never "best", and the findings
 * say which cells were left out */
static void test_few_requests_not_ranked(void **state)
{
    (void)state;
    bf_finding_point_t pts[3];
    pts[0] = P(1, 0, 2000, 2, 720, 0);
    pts[0].few_requests = 1; /* 3 responses in the window: noise */
    pts[1] = P(1, 0, 2000, 4, 630, 0);
    pts[1].few_requests = 1;
    pts[2] = P(1, 0, 500, 2, 500, 0);
    bf_findings_t *f = bf_findings_compute(pts, 3);
    print_lines(f);
    assert_string_equal(bf_findings_line(f, 0),
                        "2 cells measured on fewer than 20 bulk responses in the window "
                        "(few-requests: i1-s1-r0-b2000-c2, i1-s1-r0-b2000-c4) are not ranked "
                        "here; lengthen run.duration or use a smaller batch_size to measure them.");
    assert_true(has_line(f, "1 shard: best without rejections or errors is 500 docs/s with "
                            "batch 500 at concurrency 2."));
    /* no knee from the two few-requests cells (-13% "knee" from 3-4 requests is noise) */
    assert_false(has_line(f, "stops growing"));
    json_t *j = bf_findings_json(f);
    json_t *fr = item_of(j, "few_requests", 0);
    assert_non_null(fr);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(fr, "figures"), "cells")),
                     2);
    assert_int_equal(json_array_size(json_object_get(j, "knees")), 0);
    json_decref(j);
    bf_findings_destroy(&f);
    /* every cell few-requests: nothing to rank, and said why */
    pts[2].few_requests = 1;
    f = bf_findings_compute(pts, 3);
    assert_true(has_line(f, "3 cells measured on fewer than 20"));
    assert_true(has_line(f, "No cell with 20+ bulk responses in the window to draw findings "
                            "from; lengthen run.duration or use a smaller batch_size."));
    assert_false(has_line(f, "finished cell"));
    bf_findings_destroy(&f);
}

/* a "best" gaining < 1% over a lower concurrency of its line at 4x the p50 is not
 * best: the knee is, and the best and knee sentences agree */
static void test_best_under_one_percent_is_the_knee(void **state)
{
    (void)state;
    bf_finding_point_t pts[4];
    double dps[] = {1000, 1800, 2000, 2010}, p50[] = {10, 12, 20, 80};
    for (int i = 0; i < 4; i++) {
        pts[i] = P(1, 0, 1000, 2u << i, dps[i], 0);
        pts[i].service_p50_ms = p50[i];
        with_reps(&pts[i], 8, 0.004); /* tight repetitions: the last step tests same */
    }
    bf_findings_t *f = bf_findings_compute(pts, 4);
    print_lines(f);
    assert_true(has_line(f,
                         "1 shard: best without rejections or errors is 2,000 docs/s with "
                         "batch 1000 at concurrency 8; concurrency 16 reached 2,010 docs/s "
                         "(+0.5%) at 4.0x the service p50, which is past the knee, not better."));
    assert_true(has_line(f, "1 shard, batch 1000: docs/s stops growing at concurrency 8 (2,000 "
                            "docs/s); going to 16 changes it by +0% at 4.0x the service p50: "
                            "1.00x (95 % CI "));
    assert_true(has_line(f, "8+8 runs): same."));
    json_t *j = bf_findings_json(f);
    json_t *b = item_of(j, "best", 0);
    json_t *fig = json_object_get(b, "figures");
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(fig, "axes"), "concurrency")), 8);
    json_t *pk = json_object_get(fig, "past_knee");
    assert_int_equal(json_integer_value(json_object_get(pk, "concurrency")), 16);
    assert_true(fabs(json_real_value(json_object_get(pk, "gain")) - 0.005) < 1e-12);
    assert_true(fabs(json_real_value(json_object_get(pk, "p50_ratio")) - 4.0) < 1e-12);
    json_t *k = item_of(j, "knee", 0);
    assert_string_equal(json_string_value(json_object_get(k, "axis")), "concurrency");
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(k, "figures"), "knee_concurrency")), 8);
    /* the line's other axis values, as numbers, without the axis it runs along */
    json_t *at = json_object_get(k, "at");
    assert_int_equal(json_integer_value(json_object_get(at, "batch_size")), 1000);
    assert_null(json_object_get(at, "concurrency"));
    json_decref(j);
    bf_findings_destroy(&f);
    /* +5% at 1.8x the p50 is still best, and says it is past the knee (2 -> 4 gained 80%) */
    pts[3].docs_per_s = 2100;
    pts[2].docs_per_s = 2000;
    pts[1].docs_per_s = 1950; /* 1950 -> 2000: +2.6%: the knee is at 4 */
    f = bf_findings_compute(pts, 4);
    print_lines(f);
    assert_true(has_line(f, "1 shard: best without rejections or errors is 2,100 docs/s with "
                            "batch 1000 at concurrency 16, past its knee at concurrency 4 (1,950 "
                            "docs/s): +8% at 6.7x the service p50."));
    bf_findings_destroy(&f);
}

/* the batch-size plateau, per line of equal concurrency; batch varies most, so it is
 * the main axis */
static void test_batch_plateau(void **state)
{
    (void)state;
    bf_finding_point_t pts[6];
    uint32_t b[] = {100, 500, 1000, 5000};
    double dps[] = {1000, 3000, 4000, 4200};
    for (int i = 0; i < 4; i++)
        pts[i] = P(1, 0, b[i], 4, dps[i], 0);
    pts[4] = P(1, 0, 100, 8, 1500, 0);
    pts[5] = P(1, 0, 5000, 8, 7000, 0); /* two batch sizes, still growing: no plateau line */
    for (int i = 0; i < 6; i++)
        with_reps(&pts[i], 8, 0.01);
    bf_findings_t *f = bf_findings_compute(pts, 6);
    print_lines(f);
    /* +5 % with tight repetitions is a real gain: under the 10 % of a plateau, but higher by
     * the test, so no plateau is stated */
    assert_true(has_line(f, "1 shard, concurrency 4: no plateau stated: going from batch 1000 "
                            "(4,000 docs/s) to 5000 changes docs/s by +5%, less than 10%, but the "
                            "step is 1.05x (95 % CI "));
    assert_true(has_line(f, "8+8 runs): higher."));
    assert_false(has_line(f, "1 shard, concurrency 8: "));
    json_t *j = bf_findings_json(f);
    assert_string_equal(json_string_value(json_object_get(j, "main_axis")), "batch_size");
    assert_string_equal(bf_findings_main_axis(f), "batch_size");
    json_t *pl = item_of(j, "plateau", 0);
    assert_string_equal(json_string_value(json_object_get(pl, "axis")), "batch_size");
    json_t *fig = json_object_get(pl, "figures");
    assert_int_equal(json_integer_value(json_object_get(fig, "plateau_batch_size")), 1000);
    assert_int_equal(json_integer_value(json_object_get(fig, "next_batch_size")), 5000);
    assert_int_equal(json_array_size(json_object_get(fig, "points")), 4);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(pl, "at"), "concurrency")),
                     4);
    assert_int_equal(json_array_size(json_object_get(j, "plateaus")), 1);
    json_decref(j);
    bf_findings_destroy(&f);
    /* a larger batch gaining < 1% is past the plateau, not best: the smaller batch is */
    pts[3].docs_per_s = 4020;
    pts[2].service_p50_ms = 50;
    pts[3].service_p50_ms = 250;
    f = bf_findings_compute(pts, 4);
    print_lines(f);
    assert_true(has_line(f, "1 shard: best without rejections or errors is 4,000 docs/s with "
                            "batch 1000 at concurrency 4; batch 5000 reached 4,020 docs/s (+0.5%) "
                            "at 5.0x the service p50, which is past the plateau, not better."));
    j = bf_findings_json(f);
    json_t *bi = item_of(j, "best", 0);
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(json_object_get(bi, "figures"), "axes"), "batch_size")),
                     1000);
    assert_int_equal(
        json_integer_value(json_object_get(
            json_object_get(json_object_get(bi, "figures"), "past_plateau"), "batch_size")),
        5000);
    json_decref(j);
    bf_findings_destroy(&f);
}

/* findings per index count and per setting (any other axis), like for like */
static void test_axis_ratios_indices_and_settings(void **state)
{
    (void)state;
    bf_finding_point_t pts[8];
    size_t n = 0;
    const char *ri[] = {"settings.refresh_interval=1s", "settings.refresh_interval=30s"};
    for (uint32_t idx = 1; idx <= 2; idx++)
        for (int s = 0; s < 2; s++)
            for (uint32_t c = 2; c <= 4; c += 2) {
                pts[n] = P(1, 0, 500, c, 1000.0 * c * (s ? 1.25 : 1.0) / idx, 0);
                pts[n].indices = idx;
                bf_strlcpy(pts[n].extra, ri[s], sizeof pts[n].extra);
                snprintf(pts[n].cell, sizeof pts[n].cell, "i%u-c%u-%d", idx, c, s);
                n++;
            }
    bf_findings_t *f = bf_findings_compute(pts, n);
    print_lines(f);
    assert_true(has_line(f, "indices 2 over indices 1: 0.50x in all 4 matching cells (unclear)."));
    assert_true(has_line(f, "settings.refresh_interval=30s over settings.refresh_interval=1s: "
                            "1.25x in all 4 matching cells (unclear)."));
    /* 4 lines that keep growing: one sentence, one item of data each */
    assert_true(has_line(f,
                         "1 shard: no knee up to concurrency 4 on 4 lines (batch 500, indices 1, "
                         "settings.refresh_interval=1s; batch 500, indices 1, "
                         "settings.refresh_interval=30s; "));
    assert_true(
        has_line(f, "); their last steps still added +100% to +100% (0 of 4 higher by the test, "
                    "the others unclear or not)."));
    assert_false(
        has_line(f, "1 shard, batch 500, indices 1, settings.refresh_interval=1s: no knee"));
    /* best per index count when indices vary */
    assert_true(has_line(f, "1 shard, 2 indices: best without rejections or errors is 2,500 "
                            "docs/s with batch 500, indices 2, settings.refresh_interval=30s at "
                            "concurrency 4."));
    json_t *j = bf_findings_json(f);
    json_t *ax = item_of(j, "axis", 1);
    assert_string_equal(json_string_value(json_object_get(ax, "axis")),
                        "settings.refresh_interval");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(ax, "at"), "settings.refresh_interval")),
        "30s");
    json_t *fig = json_object_get(ax, "figures");
    assert_string_equal(json_string_value(json_object_get(fig, "reference")), "1s");
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(fig, "like_for_like"), "pairs")), 4);
    assert_non_null(item_of(j, "knee", 3));
    assert_null(item_of(j, "knee", 4));
    assert_non_null(
        strstr(json_string_value(json_object_get(item_of(j, "knee", 3), "text")), "on 4 lines"));
    /* indices: numbers in "at" */
    ax = item_of(j, "axis", 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(ax, "at"), "indices")), 2);
    json_decref(j);
    bf_findings_destroy(&f);
}

/* seed 003's question in one scenario: the same cells through two named targets (a target
 * axis) compare like for like, the first target written as the reference */
static void test_target_axis_direct_vs_gateway(void **state)
{
    (void)state;
    bf_finding_point_t pts[8];
    size_t n = 0;
    for (int t = 0; t < 2; t++)
        for (uint32_t s = 3; s <= 30; s *= 10)
            for (uint32_t c = 4; c <= 8; c += 4) {
                pts[n] = P(s, 0, 1000, c, (t ? 800.0 : 1000.0) * c, 0);
                snprintf(pts[n].extra, sizeof pts[n].extra, "target=%s", t ? "gateway" : "direct");
                n++;
            }
    bf_findings_t *f = bf_findings_compute(pts, n);
    print_lines(f);
    assert_true(
        has_line(f, "target=gateway over target=direct: 0.80x in all 4 matching cells (unclear)."));
    json_t *j = bf_findings_json(f);
    json_t *ax = item_of(j, "axis", 0);
    assert_string_equal(json_string_value(json_object_get(ax, "axis")), "target");
    json_decref(j);
    bf_findings_destroy(&f);
}

/* a degraded row (an agent killed), an unverified one whose cluster died
 * mid-cell, and one of mostly version conflicts (a fixed seed into an earlier run's index) are
 * never best, never in a knee or a ratio, and one sentence names them with why */
static void row_point(bf_finding_point_t *p, bf_cell_t *cell, uint32_t shards, uint32_t conc,
                      double dps, void (*tweak)(bf_row_t *))
{
    static char ids[8][64];
    static int next;
    char *id = ids[next++ % 8];
    snprintf(id, 64, "i1-s%u-r0-b500-c%u", shards, conc);
    memset(cell, 0, sizeof *cell);
    cell->id = id;
    cell->indices = 1;
    cell->shards = shards;
    cell->batch_size = 500;
    cell->concurrency = conc;
    bf_row_t r;
    memset(&r, 0, sizeof r);
    r.cell = cell;
    r.docs_per_s = dps;
    r.service.p50_ms = NAN;
    r.verified = 1;
    r.docs_sent = r.docs_ok = 10000;
    r.docs_counted = 10000;
    if (tweak)
        tweak(&r);
    bf_finding_point_from_row(&r, p);
}

static void lost_agent(bf_row_t *r)
{
    r->degraded = 1;
    r->verified = 0;
    r->docs_counted = 11659; /* what the killed agent acknowledged unreported */
}

static void cluster_died(bf_row_t *r)
{
    r->verified = 0;
    r->docs_counted = -1;
    r->docs_unknown = 4000;
}

static void conflicts(bf_row_t *r)
{
    r->docs_failed = r->docs_conflict = 8642; /* 86.42 % version conflicts, verified */
    r->docs_ok = 1358;
}

static void few_conflicts(bf_row_t *r)
{
    r->docs_failed = r->docs_conflict = 100; /* 1 %: not more than BF_FINDINGS_MAX_FAILED */
}

static void test_degraded_unverified_conflicts_left_out(void **state)
{
    (void)state;
    bf_cell_t cells[7];
    bf_finding_point_t pts[7];
    row_point(&pts[0], &cells[0], 1, 2, 5000, NULL);
    row_point(&pts[1], &cells[1], 1, 4, 7530, lost_agent);
    row_point(&pts[2], &cells[2], 2, 2, 3000, NULL);
    row_point(&pts[3], &cells[3], 2, 4, 2196, cluster_died);
    row_point(&pts[4], &cells[4], 3, 2, 9000, conflicts);
    row_point(&pts[5], &cells[5], 3, 4, 2500, few_conflicts);
    assert_string_equal(pts[0].left_out, "");
    assert_string_equal(pts[1].left_out, "degraded: an agent was lost, not verified");
    assert_string_equal(pts[3].left_out, "not verified: the documents could not be counted, "
                                         "40.0% of its documents failed or unknown");
    assert_string_equal(pts[4].left_out, "86.4% of its documents failed or unknown");
    assert_string_equal(pts[5].left_out, "");
    bf_findings_t *f = bf_findings_compute(pts, 6);
    print_lines(f);
    assert_string_equal(bf_findings_line(f, 0),
                        "3 cells are left out of these findings (never best, no knee, plateau or "
                        "ratio): i1-s1-r0-b500-c4 (degraded: an agent was lost, not verified); "
                        "i1-s2-r0-b500-c4 (not verified: the documents could not be counted, "
                        "40.0% of its documents failed or unknown); i1-s3-r0-b500-c2 (86.4% of "
                        "its documents failed or unknown).");
    assert_true(has_line(f, "1 shard: best without rejections or errors is 5,000 docs/s"));
    assert_true(has_line(f, "2 shards: best without rejections or errors is 3,000 docs/s"));
    assert_true(
        has_line(f, "3 shards: every cell saw rejections or errors; the highest was 2,500"));
    /* no figure of a left-out row anywhere: not best, no knee from 2 to 4, no ratio */
    for (size_t i = 0; i < bf_findings_count(f); i++) {
        const char *l = bf_findings_line(f, i);
        if (i == 0)
            continue;
        assert_null(strstr(l, "7,530"));
        assert_null(strstr(l, "2,196"));
        assert_null(strstr(l, "9,000"));
        assert_null(strstr(l, "no knee up to concurrency 4"));
    }
    /* 1 vs 2 shards: like for like only at concurrency 2 (5000 / 3000) */
    assert_true(has_line(f, "1 shard vs 2 shards: best 5,000 vs 3,000 docs/s: 1.67x (1+1 runs): "
                            "unclear; like for like the same two cells."));
    json_t *j = bf_findings_json(f);
    json_t *it = json_array_get(json_object_get(j, "items"), 0);
    assert_string_equal(json_string_value(json_object_get(it, "kind")), "left_out");
    json_t *lc = json_object_get(json_object_get(it, "figures"), "cells");
    assert_int_equal(json_array_size(lc), 3);
    assert_string_equal(json_string_value(json_object_get(json_array_get(lc, 2), "why")),
                        "86.4% of its documents failed or unknown");
    json_decref(j);
    bf_findings_destroy(&f);
    /* nothing else left: said so, not "no finished cell" */
    f = bf_findings_compute(&pts[1], 1);
    assert_int_equal(bf_findings_count(f), 2);
    assert_string_equal(bf_findings_line(f, 1), "No other cell to draw findings from.");
    bf_findings_destroy(&f);
}

/* with index-mismatch the findings use the index's real shards */
static void test_index_mismatch_uses_real_shards(void **state)
{
    (void)state;
    json_t *row =
        json_loads("{\"cell\":\"i1-s1-r0-b500-c2\",\"indices\":1,\"shards\":1,"
                   "\"replicas\":0,\"batch_size\":500,\"concurrency\":2,\"docs_per_s\":900,"
                   "\"index_mismatch\":true,\"index_shards\":3,\"index_replicas\":1,"
                   "\"verified\":true,\"docs_counted\":9000,\"failed\":false}",
                   0, NULL);
    bf_finding_point_t p[2];
    assert_int_equal(bf_finding_point_from_json(row, &p[0]), BF_OK);
    assert_int_equal(p[0].shards, 3);
    assert_int_equal(p[0].replicas, 1);
    assert_true(p[0].index_mismatch);
    json_decref(row);
    /* the row path too */
    bf_cell_t cell;
    memset(&cell, 0, sizeof cell);
    cell.id = "i1-s1-r0-b500-c4";
    cell.indices = 1;
    cell.shards = 1;
    cell.batch_size = 500;
    cell.concurrency = 4;
    bf_row_t r;
    memset(&r, 0, sizeof r);
    r.cell = &cell;
    r.docs_per_s = 1000;
    r.service.p50_ms = NAN;
    r.index_mismatch = 1;
    r.index_shards = 3;
    r.index_replicas = 1;
    r.verified = 1; /* an unverified row would be left out of the findings */
    bf_finding_point_from_row(&r, &p[1]);
    assert_int_equal(p[1].shards, 3);
    assert_true(p[1].index_mismatch);
    bf_findings_t *f = bf_findings_compute(p, 2);
    print_lines(f);
    assert_true(has_line(f, "2 cells wrote into indices that already existed with other shards or "
                            "replicas (index-mismatch): these findings use the indices' real "
                            "numbers, not the scenario's."));
    assert_true(has_line(f, "3 shards: best without rejections or errors is 1,000 docs/s"));
    assert_false(has_line(f, "1 shard:"));
    bf_findings_destroy(&f);
}

/* a find-max sustain step (open loop at a target rate) is left out, so it is
 * never compared with the closed-loop search steps; search steps and other ids are not */
static void test_findmax_sustain_left_out(void **state)
{
    (void)state;
    assert_true(bf_findings_fm_sustain_id("fm1-07-sustain-b800-c4-r1850"));
    assert_true(bf_findings_fm_sustain_id("fm12-105-sustain-b1-c1-r1"));
    assert_false(bf_findings_fm_sustain_id("fm1-03-concurrency-b800-c4"));
    assert_false(bf_findings_fm_sustain_id("fm-07-sustain-b800"));
    assert_false(bf_findings_fm_sustain_id("i1-s1-r0-b500-c4"));
    assert_false(bf_findings_fm_sustain_id("sustain"));
    assert_false(bf_findings_fm_sustain_id(NULL));
}

/* every comparison stated is a test with a verdict: the trend along an
 * axis of three values ("docs/s falls as shards grow: 1 > 6 > 60") with each step tested */
static void test_verdicts_and_axis_trend(void **state)
{
    (void)state;
    bf_finding_point_t pts[6];
    /* 1 shard 10 % above 6 shards, 6 shards 2x 60 shards; 6 runs each, 2 % spread */
    pts[0] = P(1, 0, 500, 4, 22000, 0);
    pts[1] = P(6, 0, 500, 4, 20000, 0);
    pts[2] = P(60, 0, 500, 4, 10000, 0);
    for (int i = 0; i < 3; i++)
        with_reps(&pts[i], 6, 0.02);
    bf_findings_t *f = bf_findings_compute(pts, 3);
    print_lines(f);
    assert_true(has_line(f, "1 shard vs 6 shards: best 22,000 vs 20,000 docs/s: 1.10x (95 % CI "));
    assert_true(has_line(f, "docs/s falls as shards grow: 1 > 6 > 60 by the best cell of each (2 "
                            "of 2 steps higher by the test); shards 1 vs 6: 1.10x (95 % CI "));
    assert_true(has_line(f, "corrected by Holm over the 4 comparisons stated"));
    json_t *j = bf_findings_json(f);
    json_t *it = item_of(j, "shards", 1); /* 1 vs 6 (the farthest first) */
    assert_int_equal(json_integer_value(json_object_get(json_object_get(it, "at"), "shards")), 6);
    assert_string_equal(json_string_value(json_object_get(it, "verdict")), "higher");
    json_t *fig = json_object_get(it, "figures");
    assert_true(fabs(json_real_value(json_object_get(fig, "ratio")) - 1.1) < 1e-9);
    assert_true(json_real_value(json_object_get(fig, "ci_low")) > 1.02);
    assert_true(json_real_value(json_object_get(fig, "ci_high")) < 1.2);
    assert_true(json_real_value(json_object_get(fig, "p_value")) < 0.05);
    assert_int_equal(json_integer_value(json_object_get(fig, "n_a")), 6);
    json_t *tr = item_of(j, "axis_trend", 0);
    assert_string_equal(json_string_value(json_object_get(tr, "axis")), "shards");
    assert_string_equal(json_string_value(json_object_get(tr, "verdict")), "higher");
    fig = json_object_get(tr, "figures");
    assert_string_equal(json_string_value(json_object_get(fig, "direction")), "falls");
    assert_int_equal(json_array_size(json_object_get(fig, "steps")), 2);
    json_t *m = item_of(j, "method", 0);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(m, "figures"), "comparisons")), 4);
    json_decref(j);
    bf_findings_destroy(&f);
    /* not monotonic: 6 > 1 > 60 */
    pts[1].docs_per_s = 26000;
    with_reps(&pts[1], 6, 0.02);
    f = bf_findings_compute(pts, 3);
    assert_true(has_line(f, "docs/s by shards: 6 > 1 > 60 by the best cell of each"));
    bf_findings_destroy(&f);
    /* A/A: two shard counts with the same runs: no higher or lower, and 3 runs a side say why */
    pts[0] = P(1, 0, 500, 4, 20000, 0);
    pts[1] = P(2, 0, 500, 4, 20000, 0);
    with_reps(&pts[0], 3, 0.04);
    with_reps(&pts[1], 3, 0.04);
    f = bf_findings_compute(pts, 2);
    print_lines(f);
    assert_true(has_line(f, "1 shard vs 2 shards: best 20,000 vs 20,000 docs/s: 1.00x ("));
    assert_true(
        has_line(f, "3+3 runs): unclear (with 3+3 runs U can never reach p < 0.05; about "));
    j = bf_findings_json(f);
    fig = json_object_get(item_of(j, "shards", 0), "figures");
    assert_true(json_integer_value(json_object_get(fig, "need_repeat")) >= 4);
    json_decref(j);
    bf_findings_destroy(&f);
    /* a one-run campaign with within-run intervals: the interval is shown, the verdict unclear */
    pts[0] = P(1, 0, 500, 4, 20000, 0);
    pts[1] = P(2, 0, 500, 4, 10000, 0);
    pts[0].ci_within = pts[1].ci_within = 1;
    pts[0].ci_low = 19800, pts[0].ci_high = 20200;
    pts[1].ci_low = 9900, pts[1].ci_high = 10100;
    f = bf_findings_compute(pts, 2);
    assert_true(has_line(f, "1 shard vs 2 shards: best 20,000 vs 10,000 docs/s: 2.00x (within-run "
                            "CI 1.97-2.03, 1+1 runs): unclear;"));
    bf_findings_destroy(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_findmax_sustain_left_out),
        cmocka_unit_test(test_verdicts_and_axis_trend),
        cmocka_unit_test(test_best_per_shard_count_without_rejections),
        cmocka_unit_test(test_knee_first_step_under_ten_percent),
        cmocka_unit_test(test_knee_text_one_figure),
        cmocka_unit_test(test_shard_ratios_fewest_vs_others),
        cmocka_unit_test(test_batch_gain_largest_over_smallest),
        cmocka_unit_test(test_all_rejected_and_excluded),
        cmocka_unit_test(test_nothing_to_say),
        cmocka_unit_test(test_point_from_json_and_label),
        cmocka_unit_test(test_routing_gain_like_for_like),
        cmocka_unit_test(test_few_requests_not_ranked),
        cmocka_unit_test(test_degraded_unverified_conflicts_left_out),
        cmocka_unit_test(test_best_under_one_percent_is_the_knee),
        cmocka_unit_test(test_batch_plateau),
        cmocka_unit_test(test_axis_ratios_indices_and_settings),
        cmocka_unit_test(test_index_mismatch_uses_real_shards),
        cmocka_unit_test(test_target_axis_direct_vs_gateway),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
