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
    assert_true(has_line(f, "850 shards, batch 50, replicas 1: docs/s stops growing at concurrency "
                            "400 (27,500 docs/s); going to 800 changes it by +8%."));
    assert_true(has_line(f, "850 shards, batch 50, replicas 0: no knee up to concurrency 200; the "
                            "last step from 100 still added +33%."));
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
    assert_true(has_line(f, "50 shards vs 850 shards: best 156,961 vs 98,915 docs/s (1.59x); like "
                            "for like 1.59x to 3.30x, median 3.19x (3 matching cells)."));
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
    assert_true(has_line(f, "425 shards: batch 5000 over batch 50: 10.24x (1 matching cell)."));
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_best_per_shard_count_without_rejections),
        cmocka_unit_test(test_knee_first_step_under_ten_percent),
        cmocka_unit_test(test_shard_ratios_fewest_vs_others),
        cmocka_unit_test(test_batch_gain_largest_over_smallest),
        cmocka_unit_test(test_all_rejected_and_excluded),
        cmocka_unit_test(test_nothing_to_say),
        cmocka_unit_test(test_point_from_json_and_label),
        cmocka_unit_test(test_routing_gain_like_for_like),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
