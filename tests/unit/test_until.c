/* SPDX-License-Identifier: MIT */
/* test_until.c — unit tests for bf_until: the stopping rule of run.repeat: auto (which
 * comparisons the findings state are still open after the repetitions so far). */
#include "bf_findings.h"
#include "bf_until.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

/* one cell of 1 index, replicas 0, batch 500, concurrency 2 with shards s and the given
 * repetitions' docs/s (its docs/s their median's stand-in: the middle one) */
static bf_finding_point_t P(uint32_t shards, const double *reps, uint32_t k)
{
    bf_finding_point_t p;
    memset(&p, 0, sizeof p);
    snprintf(p.cell, sizeof p.cell, "i1-s%u-r0-b500-c2", shards);
    p.indices = 1;
    p.shards = shards;
    p.batch_size = 500;
    p.concurrency = 2;
    p.service_p50_ms = NAN;
    p.nreps = k;
    p.repeat = k;
    for (uint32_t i = 0; i < k; i++)
        p.reps[i] = reps[i];
    p.docs_per_s = reps[k / 2];
    p.ci_low = p.ci_high = NAN;
    return p;
}

/* an A/A pair: the same configuration's noise on both sides, interleaved: open (unclear), both
 * cells needed, named "1 shard vs 2 shards" with its p and runs */
static void test_aa_open(void **state)
{
    (void)state;
    static const double a[] = {1000, 1040, 980, 1020, 1010, 990};
    static const double b[] = {1010, 990, 1030, 970, 1005, 1025};
    bf_finding_point_t pts[2] = {P(1, a, 6), P(2, b, 6)};
    bf_until_open_t open[4];
    uint8_t need[2] = {9, 9};
    size_t tested = 0;
    size_t n = bf_until_open(pts, 2, NULL, 4, open, 4, need, &tested);
    assert_int_equal(n, 1);
    assert_int_equal(tested, 1);
    assert_int_equal(need[0], 1);
    assert_int_equal(need[1], 1);
    assert_int_equal(open[0].n_a, 6);
    assert_int_equal(open[0].n_b, 6);
    assert_true(open[0].p_value > 0.05);
    assert_true((open[0].a == 0 && open[0].b == 1) || (open[0].a == 1 && open[0].b == 0));
    assert_string_equal(open[0].label,
                        open[0].a == 0 ? "1 shard vs 2 shards" : "2 shards vs 1 shard");
    char text[300];
    bf_until_text(open, 4, n, text, sizeof text);
    assert_non_null(strstr(text, "shard"));
    assert_non_null(strstr(text, "6+6 runs)"));
    assert_non_null(strstr(text, "(p "));
}

/* 1.5x apart with 6 + 6 repetitions, every one of one cell above every one of the other: the
 * findings say higher/lower, nothing is open, no cell is needed */
static void test_decided(void **state)
{
    (void)state;
    static const double a[] = {1000, 1010, 990, 1005, 995, 1002};
    static const double b[] = {1500, 1510, 1490, 1505, 1495, 1502};
    bf_finding_point_t pts[2] = {P(1, a, 6), P(2, b, 6)};
    uint8_t need[2] = {9, 9};
    size_t tested = 0;
    assert_int_equal(bf_until_open(pts, 2, NULL, 4, NULL, 0, need, &tested), 0);
    assert_int_equal(tested, 1);
    assert_int_equal(need[0], 0);
    assert_int_equal(need[1], 0);
    /* the same difference but "same" is impossible and the level too strict for 6 + 6
     * (alpha 0.001: 2/924 = 0.0022 is the smallest p): open again */
    bf_findings_opts_t strict = {0.001, 0.0};
    assert_int_equal(bf_until_open(pts, 2, &strict, 4, NULL, 0, need, NULL), 1);
    assert_int_equal(need[0] + need[1], 2);
}

/* below min_reps a side a comparison stays open whatever its verdict; with 3 + 3 U cannot reach
 * p < 0.05 anyway (2/20 = 0.1) */
static void test_min_reps(void **state)
{
    (void)state;
    static const double a[] = {1000, 1010, 990};
    static const double b[] = {1500, 1510, 1490};
    bf_finding_point_t pts[2] = {P(1, a, 3), P(2, b, 3)};
    bf_until_open_t open[1];
    assert_int_equal(bf_until_open(pts, 2, NULL, 4, open, 1, NULL, NULL), 1);
    assert_int_equal(open[0].n_a, 3);
    static const double a6[] = {1000, 1010, 990, 1005, 995, 1002};
    static const double b6[] = {1500, 1510, 1490, 1505, 1495, 1502};
    bf_finding_point_t six[2] = {P(1, a6, 6), P(2, b6, 6)};
    /* decided at 6 + 6, but min_reps 8 keeps it open */
    assert_int_equal(bf_until_open(six, 2, NULL, 8, NULL, 0, NULL, NULL), 1);
}

/* three shard counts: 1 vs 2 decided (1.5x), 1 vs 3 an A/A pair: only the cells of the open
 * comparison are needed, the decided cell is not run again */
static void test_only_open_cells(void **state)
{
    (void)state;
    static const double a[] = {1000, 1040, 980, 1020, 1010, 990};
    static const double b[] = {1500, 1510, 1490, 1505, 1495, 1502};
    static const double c[] = {1010, 990, 1030, 970, 1005, 1025};
    bf_finding_point_t pts[3] = {P(1, a, 6), P(2, b, 6), P(3, c, 6)};
    bf_until_open_t open[8];
    uint8_t need[3];
    size_t tested = 0;
    size_t n = bf_until_open(pts, 3, NULL, 4, open, 8, need, &tested);
    assert_true(tested >= 2);
    assert_int_equal(n, 1);
    assert_int_equal(need[0], 1);
    assert_int_equal(need[1], 0);
    assert_int_equal(need[2], 1);
    assert_true((open[0].a == 0 && open[0].b == 2) || (open[0].a == 2 && open[0].b == 0));
}

/* nothing compared: nothing open (one cell; no point at all) */
static void test_nothing_stated(void **state)
{
    (void)state;
    static const double a[] = {1000, 1040, 980, 1020};
    bf_finding_point_t pts[1] = {P(1, a, 4)};
    uint8_t need[1] = {9};
    size_t tested = 9;
    assert_int_equal(bf_until_open(pts, 1, NULL, 4, NULL, 0, need, &tested), 0);
    assert_int_equal(tested, 0);
    assert_int_equal(need[0], 0);
    assert_int_equal(bf_until_open(NULL, 0, NULL, 4, NULL, 0, NULL, &tested), 0);
}

/* the label names what differs, a's value first, other axes by name */
static void test_label(void **state)
{
    (void)state;
    static const double a[] = {1000};
    bf_finding_point_t x = P(1, a, 1), y = P(1, a, 1);
    char buf[160];
    assert_string_equal(bf_until_label(&x, &y, buf, sizeof buf), "the same cell");
    y.batch_size = 2000;
    y.concurrency = 4;
    assert_string_equal(bf_until_label(&x, &y, buf, sizeof buf),
                        "batch 500 vs 2000, concurrency 2 vs 4");
    y = P(2, a, 1);
    snprintf(x.extra, sizeof x.extra, "settings.refresh_interval=1s routing_mode=none");
    snprintf(y.extra, sizeof y.extra, "settings.refresh_interval=30s routing_mode=none tier=hot");
    assert_string_equal(bf_until_label(&x, &y, buf, sizeof buf),
                        "1 shard vs 2 shards, settings.refresh_interval=1s vs 30s, tier=- vs hot");
}

/* the progress text names at most three and counts the rest */
static void test_text(void **state)
{
    (void)state;
    bf_until_open_t o[5];
    memset(o, 0, sizeof o);
    for (size_t i = 0; i < 5; i++) {
        snprintf(o[i].label, sizeof o[i].label, "batch %zu vs %zu", i, i + 1);
        o[i].p_value = 0.25;
        o[i].n_a = o[i].n_b = 4;
    }
    o[1].p_value = NAN;
    char buf[400];
    bf_until_text(o, 5, 7, buf, sizeof buf);
    assert_string_equal(buf, "batch 0 vs 1 (p 0.25, 4+4 runs), batch 1 vs 2 (4+4 runs), "
                             "batch 2 vs 3 (p 0.25, 4+4 runs) and 4 more");
    bf_until_text(o, 5, 0, buf, sizeof buf);
    assert_string_equal(buf, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aa_open),        cmocka_unit_test(test_decided),
        cmocka_unit_test(test_min_reps),       cmocka_unit_test(test_only_open_cells),
        cmocka_unit_test(test_nothing_stated), cmocka_unit_test(test_label),
        cmocka_unit_test(test_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
