/* SPDX-License-Identifier: MIT */
/* test_steady.c — the unsteady rules (bf_steady.h) on synthetic per-second series: the
 * Mann-Kendall p against the textbook formula's values (Kendall 1975: S, its variance with the
 * tie correction, z with the continuity correction), the Theil-Sen change, what is flagged (a
 * ramp, a drop, a warming start) and what is not (noise, a small drift, a short window), and the
 * spread against the other cells. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bf_error.h"
#include "bf_steady.h"

/* deterministic noise in [-1, 1) (an LCG: the same series on every machine) */
static double noise(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*s >> 11) / (double)(1ull << 53) * 2.0 - 1.0;
}

static void test_mann_kendall_values(void **state)
{
    (void)state;
    double p, change;
    /* strictly rising, n = 10: S = 45, var = 125, z = 44 / sqrt(125) = 3.9355, p = 8.303e-05 */
    double up[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    assert_int_equal(bf_steady_trend(up, 10, &p, &change), 0);
    assert_true(fabs(p - 8.303070e-05) < 1e-9);
    assert_true(fabs(change - 9.0 / 5.5) < 1e-12); /* slope 1 x 9 over the median 5.5 */
    /* ties: S = 41, var = (10*9*25 - 2*1*9 - 3*2*11) / 18 = 120.33, p = 2.659e-04 */
    double tied[10] = {1, 2, 2, 3, 4, 5, 5, 5, 6, 7};
    assert_int_equal(bf_steady_trend(tied, 10, &p, &change), 0);
    assert_true(fabs(p - 2.659164e-04) < 1e-9);
    /* flat: no trend at all */
    double flat[12] = {5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5};
    assert_int_equal(bf_steady_trend(flat, 12, &p, &change), 0);
    assert_true(p == 1.0 && change == 0.0);
    assert_int_equal(bf_steady_trend(up, 9, &p, &change), BF_E_INVAL);
}

static void test_trend_rule(void **state)
{
    (void)state;
    enum { N = 60 };
    double y[N];
    char why[300];
    uint64_t s = 42;
    /* noise of +-15 % around 10,000 docs/s: steady */
    for (size_t i = 0; i < N; i++)
        y[i] = 10000 * (1 + 0.15 * noise(&s));
    assert_int_equal(bf_steady_check_trend(y, N, why, sizeof why), 0);
    /* a ramp from 1,000 to 1,500 with +-10 % noise: rises about 40 % of its median */
    for (size_t i = 0; i < N; i++)
        y[i] = (1000 + 500.0 * (double)i / (N - 1)) * (1 + 0.1 * noise(&s));
    assert_int_equal(bf_steady_check_trend(y, N, why, sizeof why), 1);
    assert_non_null(strstr(why, "unsteady: docs/s rises"));
    /* a cold JVM: 30 % of the rate for the first 20 s, then full: flagged, "rises" */
    for (size_t i = 0; i < N; i++)
        y[i] = (i < 20 ? 3000 : 10000) * (1 + 0.05 * noise(&s));
    assert_int_equal(bf_steady_check_trend(y, N, why, sizeof why), 1);
    /* a slow fall of 8 % (merges): significant, but too small to matter for the mean */
    for (size_t i = 0; i < N; i++)
        y[i] = (10000 - 800.0 * (double)i / (N - 1)) * (1 + 0.01 * noise(&s));
    double p, change;
    assert_int_equal(bf_steady_trend(y, N, &p, &change), 0);
    assert_true(p < 0.01 && change < 0 && change > -0.2);
    assert_int_equal(bf_steady_check_trend(y, N, why, sizeof why), 0);
    /* a drop to half: falls */
    for (size_t i = 0; i < N; i++)
        y[i] = (i < 30 ? 2000 : 1000) * (1 + 0.05 * noise(&s));
    assert_int_equal(bf_steady_check_trend(y, N, why, sizeof why), 1);
    assert_non_null(strstr(why, "falls"));
    /* a window too short for the test: never flagged */
    assert_int_equal(bf_steady_check_trend(y, 9, why, sizeof why), 0);
}

/* an hour of seconds is averaged in blocks (bounded work), and still seen */
static void test_long_series(void **state)
{
    (void)state;
    enum { N = 3600 };
    double *y = malloc(N * sizeof *y);
    uint64_t s = 7;
    for (size_t i = 0; i < N; i++)
        y[i] = (5000 + 2000.0 * (double)i / N) * (1 + 0.2 * noise(&s));
    char why[300];
    assert_int_equal(bf_steady_check_trend(y, N, why, sizeof why), 1);
    for (size_t i = 0; i < N; i++)
        y[i] = 5000 * (1 + 0.2 * noise(&s));
    assert_int_equal(bf_steady_check_trend(y, N, why, sizeof why), 0);
    free(y);
}

static void test_spread_rule(void **state)
{
    (void)state;
    uint8_t flag[8];
    double ref;
    /* one cell spreads 8x its seconds' median (the 1,590-12,765 docs/s) */
    double s1[5] = {0.10, 0.12, 0.09, 0.11, bf_steady_spread(1590, 6000, 12765)};
    assert_int_equal(bf_steady_spread_outliers(s1, 5, flag, &ref), 1);
    assert_true(flag[4] && !flag[0] && !flag[1] && !flag[2] && !flag[3]);
    assert_true(fabs(ref - 0.11) < 1e-12);
    /* a quiet campaign: 3x its neighbours but under 30 %: not flagged */
    double s2[4] = {0.02, 0.03, 0.02, 0.09};
    assert_int_equal(bf_steady_spread_outliers(s2, 4, flag, &ref), 0);
    /* too few neighbours to judge, and rows without a spread */
    double s3[2] = {0.1, 2.0};
    assert_int_equal(bf_steady_spread_outliers(s3, 2, flag, &ref), 0);
    assert_true(isnan(ref));
    double s4[4] = {0.1, NAN, 0.1, 0.1};
    assert_int_equal(bf_steady_spread_outliers(s4, 4, flag, &ref), 0);
    assert_true(isnan(bf_steady_spread(0, 0, 10)));
}

/* run.warmup: auto's rule: two 5-s blocks within 5 %, second 0 never counted */
static void test_warmup_over(void **state)
{
    (void)state;
    double y[40];
    for (int i = 0; i < 40; i++) /* a cold start: 600 docs/s for 10 s, then 3000 */
        y[i] = i < 10 ? 600 : 3000;
    assert_false(bf_steady_warmup_over(y, 10)); /* too few seconds */
    assert_false(bf_steady_warmup_over(y, 11)); /* 600 vs 600 would be steady: second 0 is
                                                   skipped, but seconds 1-10 are 600 | 3000 */
    assert_false(bf_steady_warmup_over(y, 15)); /* 600 then 3000 */
    assert_false(bf_steady_warmup_over(y, 19));
    assert_true(bf_steady_warmup_over(y, 20)); /* seconds 10-14 and 15-19 */
    /* within 5 % either way; beyond it not */
    double z[11] = {0, 100, 100, 100, 100, 100, 104, 104, 104, 104, 104};
    assert_true(bf_steady_warmup_over(z, 11));
    z[10] = 110; /* mean 105.2 vs 100 */
    assert_false(bf_steady_warmup_over(z, 11));
    double f[11] = {0, 100, 100, 100, 100, 100, 96, 96, 96, 96, 96};
    assert_true(bf_steady_warmup_over(f, 11));
    f[10] = 90; /* mean 94.8 */
    assert_false(bf_steady_warmup_over(f, 11));
    /* nothing indexed, or a value that is not a number: never steady */
    double n0[11] = {0};
    assert_false(bf_steady_warmup_over(n0, 11));
    z[10] = NAN;
    assert_false(bf_steady_warmup_over(z, 11));
    assert_false(bf_steady_warmup_over(NULL, 11));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mann_kendall_values), cmocka_unit_test(test_trend_rule),
        cmocka_unit_test(test_long_series),         cmocka_unit_test(test_spread_rule),
        cmocka_unit_test(test_warmup_over),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
