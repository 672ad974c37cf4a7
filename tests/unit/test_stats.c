/* SPDX-License-Identifier: MIT */
/* test_stats.c — bf_stats against published values, and a simulation of whole campaigns.
 *
 * Pinned values: computed once with R 4.2.2 (Debian r-base-core, bookworm): pwilcox, qwilcox,
 * wilcox.test(conf.int = TRUE), p.adjust, qt, qnorm, pbinom, with the calls written beside
 * each. The U critical values are the two-sided alpha = 0.05 table values (Mann & Whitney 1947;
 * the table in Siegel & Castellan, "Nonparametric Statistics", 1988, Table J), which R agrees
 * with: max u with pwilcox(u, m, n) <= 0.025.
 *
 * The simulation: campaigns of cells whose repetitions are measured on a simulated cluster
 * with per-second noise (AR(1)), a fresh-index level per repetition and a slow drift over the
 * campaign, repetitions in shuffled rounds. A/A campaigns must give a family-wise false
 * positive rate at or below alpha; A/B campaigns with a true +10 % must be called higher with
 * the true ratio inside the interval in at least 95 %. A negative control (no correction, no
 * band, repetitions back to back under drift) must exceed alpha, so the simulation can tell a
 * broken method from a sound one. Seeded: the same numbers every run.
 */
#include "bf_error.h"
#include "bf_stats.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void test_pwilcox(void **state)
{
    (void)state;
    NEAR(bf_stats_mwu_cdf(4, 5, 3), 0.0555555555555556, 1e-12);        /* pwilcox(3, 4, 5) */
    NEAR(bf_stats_mwu_cdf(6, 7, 10), 0.0687645687645688, 1e-12);       /* pwilcox(10, 6, 7) */
    NEAR(bf_stats_mwu_cdf(3, 3, 0), 0.05, 1e-12);                      /* pwilcox(0, 3, 3) */
    NEAR(bf_stats_mwu_cdf(10, 12, 40), 0.101483655663222, 1e-12);      /* pwilcox(40, 10, 12) */
    NEAR(bf_stats_mwu_cdf(30, 40, 500), 0.119678885177493, 1e-10);     /* pwilcox(500, 30, 40) */
    NEAR(bf_stats_mwu_cdf(49, 49, 1000), 0.0779681620234276, 1e-10);   /* pwilcox(1000,49,49) */
    NEAR(bf_stats_mwu_cdf(5, 4, 3), bf_stats_mwu_cdf(4, 5, 3), 1e-15); /* symmetric in m, n */
    NEAR(bf_stats_mwu_cdf(4, 5, -1), 0.0, 0);
    NEAR(bf_stats_mwu_cdf(4, 5, 20), 1.0, 0);
    assert_true(isnan(bf_stats_mwu_cdf(0, 5, 1)));
    assert_true(isnan(bf_stats_mwu_cdf(51, 5, 1)));
}

/* the two-sided 0.05 critical values of U: P(U <= crit) <= 0.025 < P(U <= crit + 1) */
static void test_u_table(void **state)
{
    (void)state;
    static const struct {
        size_t m, n;
        int crit; /* -1: no U is significant */
    } table[] = {{4, 4, 0},     {5, 5, 2}, {6, 6, 5}, {8, 8, 13},  {10, 10, 23},
                 {20, 20, 127}, {3, 7, 1}, {5, 8, 6}, {7, 12, 18}, {3, 3, -1}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        size_t m = table[i].m, n = table[i].n;
        int crit = table[i].crit;
        if (crit >= 0)
            assert_true(bf_stats_mwu_cdf(m, n, crit) <= 0.025);
        assert_true(bf_stats_mwu_cdf(m, n, crit + 1) > 0.025);
    }
    /* U can never reach p < 0.05 with 3 + 3 runs (2 / C(6, 3) = 0.1); with 4 + 4 it can */
    NEAR(bf_stats_min_p(3, 3), 0.1, 1e-12);
    NEAR(bf_stats_min_p(4, 4), 2.0 / 70.0, 1e-12);
}

static void test_wilcox(void **state)
{
    (void)state;
    /* x <- c(10.1, 11.3, 12.2, 9.8, 10.9); y <- c(8.7, 9.1, 10.0, 9.5, 8.9, 9.9)
     * wilcox.test(x, y, conf.int = TRUE): W 28, p 0.0173160173160173, estimate 1.4,
     * conf.int 0.2 2.7 (0.95) */
    const double x[] = {10.1, 11.3, 12.2, 9.8, 10.9}, y[] = {8.7, 9.1, 10.0, 9.5, 8.9, 9.9};
    bf_stats_mwu_t u;
    assert_int_equal(bf_stats_mwu(x, 5, y, 6, &u), BF_OK);
    NEAR(u.u, 28, 0);
    assert_int_equal(u.exact, 1);
    NEAR(u.p, 0.0173160173160173, 1e-12);
    double est, lo, hi, level;
    assert_int_equal(bf_stats_hl_shift(x, 5, y, 6, 0.95, &est, &lo, &hi, &level), BF_OK);
    NEAR(est, 1.4, 1e-9);
    NEAR(lo, 0.2, 1e-9);
    NEAR(hi, 2.7, 1e-9);
    assert_true(level >= 0.95);
    /* wilcox.test(1:4, 5:8, conf.int = TRUE): W 0, p 0.0285714285714286, estimate -4,
     * conf.int -7 -1 */
    const double x2[] = {1, 2, 3, 4}, y2[] = {5, 6, 7, 8};
    assert_int_equal(bf_stats_mwu(x2, 4, y2, 4, &u), BF_OK);
    NEAR(u.u, 0, 0);
    NEAR(u.p, 0.0285714285714286, 1e-12);
    assert_int_equal(bf_stats_hl_shift(x2, 4, y2, 4, 0.95, &est, &lo, &hi, &level), BF_OK);
    NEAR(est, -4, 1e-12);
    NEAR(lo, -7, 1e-12);
    NEAR(hi, -1, 1e-12);
    /* with ties: normal approximation with tie and continuity correction
     * x3 <- c(1.5, 2.5, 2.5, 3.0, 4.1, 5.2); y3 <- c(2.5, 3.0, 3.3, 4.8, 5.0, 6.1, 7.2)
     * wilcox.test(x3, y3): W 10.5, p 0.150296406018735 */
    const double x3[] = {1.5, 2.5, 2.5, 3.0, 4.1, 5.2}, y3[] = {2.5, 3.0, 3.3, 4.8, 5.0, 6.1, 7.2};
    assert_int_equal(bf_stats_mwu(x3, 6, y3, 7, &u), BF_OK);
    NEAR(u.u, 10.5, 0);
    assert_int_equal(u.exact, 0);
    NEAR(u.p, 0.150296406018735, 1e-12);
    /* 2 + 2 values: the widest interval covers only 1 - 2 pwilcox(0, 2, 2) = 2/3 */
    const double x5[] = {1, 2}, y5[] = {3, 4};
    assert_int_equal(bf_stats_hl_shift(x5, 2, y5, 2, 0.95, &est, &lo, &hi, &level), BF_OK);
    NEAR(level, 2.0 / 3.0, 1e-12);
    NEAR(lo, -3, 0);
    NEAR(hi, -1, 0);
    assert_int_equal(bf_stats_mwu(x5, 0, y5, 2, &u), BF_E_INVAL);
    const double bad[] = {1, NAN};
    assert_int_equal(bf_stats_mwu(bad, 2, y5, 2, &u), BF_E_INVAL);
}

/* set.seed(1); x4 <- round(rnorm(60, 100, 10), 3); y4 <- round(rnorm(55, 104, 10), 3)
 * wilcox.test(x4, y4): W 1282, p 0.0396280684390107 (normal approximation: 60 > 49) */
static const double x4[] = {
    93.735,  101.836, 91.644,  115.953, 103.295, 91.795,  104.874, 107.383, 105.758, 96.946,
    115.118, 103.898, 93.788,  77.853,  111.249, 99.551,  99.838,  109.438, 108.212, 105.939,
    109.19,  107.821, 100.746, 80.106,  106.198, 99.439,  98.442,  85.292,  95.218,  104.179,
    113.587, 98.972,  103.877, 99.462,  86.229,  95.85,   96.057,  99.407,  111,     107.632,
    98.355,  97.466,  106.97,  105.567, 93.112,  92.925,  103.646, 107.685, 98.877,  108.811,
    103.981, 93.88,   103.411, 88.706,  114.33,  119.804, 96.328,  89.559,  105.697, 98.649};
static const double y4[] = {128.016, 103.608, 110.897, 104.28,  96.567,  105.888, 85.95,   118.656,
                            105.533, 125.726, 108.755, 96.901,  110.107, 94.659,  91.464,  106.914,
                            99.567,  104.011, 104.743, 98.105,  98.313,  102.648, 115.781, 88.764,
                            109.939, 107.33,  114.631, 100.958, 107.7,   106.671, 98.575,  116.079,
                            115.604, 111.002, 119.868, 109.585, 91.234,  98.267,  91.754,  99.266,
                            97.796,  104.421, 94.891,  105.58,  97.454,  121.673, 111.167, 113.102,
                            107.842, 120.822, 97.643,  99.384,  118.323, 97.493,  101.926};

static void test_wilcox_large(void **state)
{
    (void)state;
    bf_stats_mwu_t u;
    assert_int_equal(bf_stats_mwu(x4, 60, y4, 55, &u), BF_OK);
    NEAR(u.u, 1282, 0);
    assert_int_equal(u.exact, 0);
    NEAR(u.p, 0.0396280684390107, 1e-12);
    double est, lo, hi, level;
    assert_int_equal(bf_stats_hl_shift(x4, 60, y4, 55, 0.95, &est, &lo, &hi, &level), BF_OK);
    assert_true(lo < est && est < hi && hi < 0); /* p < 0.05: the interval excludes 0 */
    NEAR(level, 0.95, 0);
}

static void test_adjust(void **state)
{
    (void)state;
    /* p <- c(0.01, 0.04, 0.03, 0.005, 0.2, NA); p.adjust(p, "holm"), p.adjust(p, "BH") */
    const double p[] = {0.01, 0.04, 0.03, 0.005, 0.2, NAN};
    const double holm[] = {0.04, 0.09, 0.09, 0.025, 0.2}, bh[] = {0.025, 0.05, 0.05, 0.025, 0.2};
    double adj[6];
    bf_stats_holm(p, 6, adj);
    for (int i = 0; i < 5; i++)
        NEAR(adj[i], holm[i], 1e-12);
    assert_true(isnan(adj[5]));
    bf_stats_bh(p, 6, adj);
    for (int i = 0; i < 5; i++)
        NEAR(adj[i], bh[i], 1e-12);
    assert_true(isnan(adj[5]));
    assert_string_equal(bf_stats_correction(BF_STATS_HOLM_MAX), "Holm");
    assert_string_equal(bf_stats_correction(BF_STATS_HOLM_MAX + 1), "Benjamini-Hochberg");
}

static void test_quantiles(void **state)
{
    (void)state;
    /* qt(0.975, 1), qt(0.975, 4), qt(0.975, 9), qt(0.995, 30); qnorm(0.975), qnorm(0.999) */
    NEAR(bf_stats_t_quantile(0.975, 1), 12.7062047361747, 1e-9);
    NEAR(bf_stats_t_quantile(0.975, 4), 2.77644510519779, 1e-9);
    NEAR(bf_stats_t_quantile(0.975, 9), 2.2621571627982, 1e-9);
    NEAR(bf_stats_t_quantile(0.995, 30), 2.74999565356723, 1e-9);
    NEAR(bf_stats_t_quantile(0.025, 9), -2.2621571627982, 1e-9);
    NEAR(bf_stats_z_quantile(0.975), 1.95996398454005, 1e-9);
    NEAR(bf_stats_z_quantile(0.999), 3.09023230616781, 1e-9);
}

static void test_median_ci(void **state)
{
    (void)state;
    const double x[] = {10, 3, 7, 1, 9, 2, 8, 4, 6, 5};
    double lo, hi, level;
    /* n 10: [x(2), x(9)], 1 - 2 pbinom(1, 10, .5) = 0.978515625 */
    assert_int_equal(bf_stats_median_ci(x, 10, 0.95, &lo, &hi, &level), BF_OK);
    NEAR(lo, 2, 0);
    NEAR(hi, 9, 0);
    NEAR(level, 0.978515625, 1e-12);
    /* n 6: [min, max] covers 1 - 2 pbinom(0, 6, .5) = 0.96875 >= 0.95 */
    assert_int_equal(bf_stats_median_ci(x, 6, 0.95, &lo, &hi, &level), BF_OK);
    NEAR(lo, 1, 0);
    NEAR(hi, 10, 0);
    NEAR(level, 0.96875, 1e-12);
    /* n 5: too few for 0.95; the range covers 1 - 2 pbinom(0, 5, .5) = 0.9375 */
    assert_int_equal(bf_stats_median_ci(x, 5, 0.95, &lo, &hi, &level), BF_OK);
    NEAR(lo, 1, 0);
    NEAR(hi, 10, 0);
    NEAR(level, 0.9375, 1e-12);
    NEAR(bf_stats_median(x, 10), 5.5, 0);
    NEAR(bf_stats_median(x, 5), 7, 0);
    assert_int_equal(bf_stats_median_ci(x, 0, 0.95, &lo, &hi, &level), BF_E_INVAL);
}

/* ---- a seeded simulated cluster ------------------------------------------------------------ */

static uint64_t rng_s;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_s += 0x9e3779b97f4a7c15ULL); /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double rng_unif(void)
{
    return ((double)(rng_next() >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_norm(void)
{
    return sqrt(-2.0 * log(rng_unif())) * cos(2.0 * 3.14159265358979323846 * rng_unif());
}

/* one run of SECONDS seconds at true rate `rate` at time t0 (seconds from the campaign's start;
 * the campaign lasts len seconds): a decline of `drift` over the campaign (merges, a filling
 * disk) and a slow wave of 2 % (20 minutes), a fresh-index level of 2 % per run, per-second
 * AR(1) noise of 6 % (phi 0.6); its docs/s returned */
#define SECONDS 30
static double run_once(double rate, double t0, double len, double drift)
{
    double level = 1.0 + 0.02 * rng_norm(), e = 0, sum = 0;
    for (int s = 0; s < SECONDS; s++) {
        double t = t0 + s;
        double d = 1.0 - drift * t / len + 0.02 * sin(2 * 3.14159265 * t / 1200.0);
        e = 0.6 * e + 0.06 * sqrt(1 - 0.36) * rng_norm();
        sum += rate * level * d * (1.0 + e);
    }
    return sum / SECONDS;
}

/* a campaign of ncell cells at rates[], reps repetitions each, in shuffled rounds (rounds = 1)
 * or back to back (rounds = 0); docs/s of cell c's repetition r into out[c * reps + r] */
static void campaign(const double *rates, size_t ncell, size_t reps, int rounds, double drift,
                     double *out)
{
    size_t order[16];
    double t = 0, len = (double)(ncell * reps) * (SECONDS + 15);
    if (rounds) {
        for (size_t r = 0; r < reps; r++) {
            for (size_t c = 0; c < ncell; c++)
                order[c] = c;
            for (size_t c = ncell; c > 1; c--) { /* Fisher-Yates */
                size_t j = (size_t)(rng_next() % c), tmp = order[c - 1];
                order[c - 1] = order[j];
                order[j] = tmp;
            }
            for (size_t k = 0; k < ncell; k++, t += SECONDS + 15)
                out[order[k] * reps + r] = run_once(rates[order[k]], t, len, drift);
        }
    } else {
        for (size_t c = 0; c < ncell; c++)
            for (size_t r = 0; r < reps; r++, t += SECONDS + 15)
                out[c * reps + r] = run_once(rates[c], t, len, drift);
    }
}

/* the campaign's comparisons (cell 0 against each other cell), corrected as the findings do
 * (correct = 0: raw p, band 0: the negative control); how many were called higher or lower;
 * the first comparison's result in *first */
static int campaign_calls(const double *v, size_t ncell, size_t reps, int correct, double band,
                          bf_stats_cmp_t *first)
{
    bf_stats_cmp_t c[16];
    double p[16], adj[16];
    for (size_t k = 1; k < ncell; k++) {
        assert_int_equal(bf_stats_compare(v + k * reps, reps, v, reps, 0.95, &c[k - 1]), BF_OK);
        p[k - 1] = c[k - 1].p_value;
    }
    if (correct)
        bf_stats_adjust(p, ncell - 1, adj);
    else
        memcpy(adj, p, sizeof adj);
    int calls = 0;
    for (size_t k = 0; k + 1 < ncell; k++) {
        bf_stats_decide(&c[k], adj[k], 0.05, band);
        calls += c[k].verdict == BF_VERDICT_HIGHER || c[k].verdict == BF_VERDICT_LOWER;
    }
    *first = c[0];
    return calls;
}

#define CAMPAIGNS 2000

static void test_simulated_aa(void **state)
{
    (void)state;
    rng_s = 37;
    double v[4 * 6];
    const double rates[4] = {20000, 20000, 20000, 20000};
    int fp = 0, same = 0, covered = 0;
    bf_stats_cmp_t c;
    for (int k = 0; k < CAMPAIGNS; k++) {
        campaign(rates, 4, 6, 1, 0.08, v);
        fp += campaign_calls(v, 4, 6, 1, BF_STATS_BAND, &c) > 0;
        same += c.verdict == BF_VERDICT_SAME;
        covered += c.ci_low <= 1.0 && 1.0 <= c.ci_high;
    }
    double rate = (double)fp / CAMPAIGNS;
    printf("A/A: %d of %d campaigns (3 comparisons each, Holm) called a difference: %.4f; "
           "first comparison same in %d, interval holds 1.0 in %d\n",
           fp, CAMPAIGNS, rate, same, covered);
    assert_true(rate <= 0.05);
    assert_true(covered >= CAMPAIGNS * 0.95);
    /* the negative control: back to back under the same drift, raw p, no band: the drift falls
     * on one side and the simulation must see it */
    int bad = 0;
    for (int k = 0; k < CAMPAIGNS / 4; k++) {
        campaign(rates, 2, 6, 0, 0.08, v);
        bad += campaign_calls(v, 2, 6, 0, 0.0, &c) > 0;
    }
    printf("negative control (sequential, drift 8 %%, no correction, no band): %d of %d\n", bad,
           CAMPAIGNS / 4);
    assert_true(bad > CAMPAIGNS / 4 * 0.05 * 3);
}

static void test_simulated_ab(void **state)
{
    (void)state;
    rng_s = 4242;
    double v[2 * 10];
    const double rates[2] = {20000, 22000};
    int higher = 0, covered = 0, both = 0;
    double sd_sum = 0;
    bf_stats_cmp_t c;
    for (int k = 0; k < CAMPAIGNS; k++) {
        campaign(rates, 2, 10, 1, 0.08, v);
        (void)campaign_calls(v, 2, 10, 1, BF_STATS_BAND, &c);
        sd_sum += c.log_sd;
        int h = c.verdict == BF_VERDICT_HIGHER, in = c.ci_low <= 1.1 && 1.1 <= c.ci_high;
        higher += h;
        covered += in;
        both += h && in;
    }
    printf("A/B +10 %%, 10+10 runs (spread of a run's docs/s %.1f %%): higher in %d of %d, 1.10 "
           "inside the interval in %d, both in %d\n",
           sd_sum / CAMPAIGNS * 100, higher, CAMPAIGNS, covered, both);
    assert_true(both >= CAMPAIGNS * 0.95);
}

/* unclear verdicts say why and how many repetitions would likely decide */
static void test_verdicts(void **state)
{
    (void)state;
    bf_stats_cmp_t c;
    const double a3[] = {110, 112, 108}, b3[] = {100, 101, 99};
    assert_int_equal(bf_stats_compare(a3, 3, b3, 3, 0.95, &c), BF_OK);
    bf_stats_decide(&c, c.p_value, 0.05, 0.02);
    assert_int_equal(c.verdict, BF_VERDICT_UNCLEAR);
    assert_non_null(strstr(c.why, "with 3+3 runs U can never reach p < 0.05"));
    assert_true(c.need_reps >= 4);
    const double a5[] = {110, 112, 108, 111, 109}, b5[] = {100, 101, 99, 100.5, 99.5};
    assert_int_equal(bf_stats_compare(a5, 5, b5, 5, 0.95, &c), BF_OK);
    bf_stats_decide(&c, c.p_value, 0.05, 0.02);
    assert_int_equal(c.verdict, BF_VERDICT_HIGHER);
    NEAR(c.ratio, 1.10, 0.01);
    assert_true(c.ci_low > 1.02 && c.ci_high < 1.15);
    bf_stats_decide(&c, c.p_value, 0.05, 0.2); /* a 20 % band: inside it */
    assert_int_equal(c.verdict, BF_VERDICT_SAME);
    bf_stats_decide(&c, 0.08, 0.05, 0.02); /* as if the correction raised p */
    assert_int_equal(c.verdict, BF_VERDICT_UNCLEAR);
    assert_non_null(strstr(c.why, "after the correction"));
    assert_int_equal(bf_stats_compare(b5, 5, a5, 5, 0.95, &c), BF_OK);
    bf_stats_decide(&c, c.p_value, 0.05, 0.02);
    assert_int_equal(c.verdict, BF_VERDICT_LOWER);
    const double one_a[] = {105}, one_b[] = {100};
    assert_int_equal(bf_stats_compare(one_a, 1, one_b, 1, 0.95, &c), BF_OK);
    NEAR(c.ratio, 1.05, 1e-12);
    bf_stats_decide(&c, c.p_value, 0.05, 0.02);
    assert_int_equal(c.verdict, BF_VERDICT_UNCLEAR);
    assert_non_null(strstr(c.why, "one run a side"));
    assert_int_equal(bf_stats_compare_within(105, 104, 106, 100, 99, 101, &c), BF_OK);
    assert_true(c.ci_low < 1.05 && c.ci_high > 1.05 && c.ci_low > 1.0);
    bf_stats_decide(&c, NAN, 0.05, 0.02);
    assert_int_equal(c.verdict, BF_VERDICT_UNCLEAR);
    assert_non_null(strstr(c.why, "within each run"));
    const double zero[] = {0, 100};
    assert_int_equal(bf_stats_compare(zero, 2, b5, 5, 0.95, &c), BF_E_INVAL);
}

/* the within-run interval of iid seconds holds the true mean about as often as it says, and an
 * autocorrelated series gets longer batches */
static void test_batch_means(void **state)
{
    (void)state;
    rng_s = 99;
    double y[120], mean, lo, hi;
    size_t b, held = 0, nb_ar = 0;
    for (int k = 0; k < 1000; k++) {
        for (int s = 0; s < 120; s++)
            y[s] = 100 + 5 * rng_norm();
        assert_int_equal(bf_stats_batch_means(y, 120, 0.95, &mean, &lo, &hi, &b), BF_OK);
        held += lo <= 100 && 100 <= hi;
    }
    printf("batch means, iid: 100 inside the interval in %zu of 1000\n", held);
    assert_true(held >= 920 && held <= 980);
    double e = 0;
    for (int s = 0; s < 120; s++)
        y[s] = 100 + (e = 0.9 * e + rng_norm());
    assert_int_equal(bf_stats_batch_means(y, 120, 0.95, &mean, &lo, &hi, &nb_ar), BF_OK);
    assert_true(nb_ar < 60); /* batches longer than 2 s */
    assert_int_equal(bf_stats_batch_means(y, 4, 0.95, &mean, &lo, &hi, &b), BF_E_INVAL);
    double gm, glo, ghi;
    const double r[] = {1.1, 1.2, 1.0};
    assert_int_equal(bf_stats_geomean_ci(r, 3, 0.95, &gm, &glo, &ghi), BF_OK);
    NEAR(gm, cbrt(1.1 * 1.2), 1e-12);
    assert_true(glo < gm && gm < ghi);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pwilcox),      cmocka_unit_test(test_u_table),
        cmocka_unit_test(test_wilcox),       cmocka_unit_test(test_wilcox_large),
        cmocka_unit_test(test_adjust),       cmocka_unit_test(test_quantiles),
        cmocka_unit_test(test_median_ci),    cmocka_unit_test(test_verdicts),
        cmocka_unit_test(test_batch_means),  cmocka_unit_test(test_simulated_aa),
        cmocka_unit_test(test_simulated_ab),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
