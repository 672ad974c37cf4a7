/* SPDX-License-Identifier: MIT */
/* bf_stats.h — the statistics behind every conclusion bulkfleet states: is a difference of
 * docs/s between two cells (or two campaigns) real, how large is it, and how sure are we.
 *
 * The unit of replication is a repetition (one run of a cell on a fresh index), never a second:
 * seconds within one run are autocorrelated. Two cells are compared on their repetitions'
 * docs/s with
 *
 *   - the Mann-Whitney U test (Wilcoxon rank-sum), two-sided: exact distribution when both
 *     samples have fewer than BF_STATS_EXACT_MAX values and no ties, else the normal
 *     approximation with tie and continuity correction (as R's wilcox.test; Hollander & Wolfe,
 *     "Nonparametric Statistical Methods", 2nd ed., 1999, ch. 4);
 *   - the Hodges-Lehmann estimate of the ratio: exp of the median of the m x n differences
 *     log a_i - log b_j, with its distribution-free confidence interval: the k-th smallest and
 *     k-th largest of those differences, k from the U distribution (Bauer 1972, "Constructing
 *     confidence sets using rank statistics", JASA 67; R's wilcox.test conf.int);
 *   - a verdict against a noise band after a correction for the number of comparisons
 *     (Holm 1979; Benjamini & Hochberg 1995), as benchstat (golang.org/x/perf) does for
 *     benchmarks and Kalibera & Jones 2013 recommend for repeated runs.
 *
 * One cell alone gets the median of its repetitions with an interval from order statistics
 * (the binomial method benchstat uses), or, with one repetition, a within-run interval from
 * the batch means of its per-second docs/s (Law & Kelton, "Simulation Modeling and Analysis",
 * batch means; blocks grown until their means are nearly uncorrelated).
 *
 * docs/results.md ("How sure") explains the method to users. Pure functions: no global state,
 * thread-safe; inputs are borrowed for the call and never modified.
 */
#ifndef BF_STATS_H
#define BF_STATS_H

#include <stddef.h>
#include <stdint.h>

#define BF_STATS_EXACT_MAX 50 /* exact U distribution when both samples are smaller (R's rule) */
#define BF_STATS_ALPHA 0.05   /* default significance level (findings.alpha) */
#define BF_STATS_BAND 0.02    /* default noise band: +-2 % (findings.noise_band) */
#define BF_STATS_HOLM_MAX 10  /* up to this many comparisons Holm, more: Benjamini-Hochberg */
#define BF_STATS_MAX_REPS 100 /* repetitions a side named as "would likely decide", at most */

/* bf_stats_mwu_cdf — P(U <= u) for the Mann-Whitney U of samples of m and n values without
 * ties under the null hypothesis (U = the pairs x_i > y_j), by the recursion
 * p(m,n,u) = m/(m+n) p(m-1,n,u-n) + n/(m+n) p(m,n-1,u) (Mann & Whitney 1947), which is R's
 * pwilcox(u, m, n). m, n in 1..BF_STATS_EXACT_MAX; returns NAN outside. Cost O(m n (m n)). */
double bf_stats_mwu_cdf(size_t m, size_t n, double u);

/* The result of bf_stats_mwu. */
typedef struct bf_stats_mwu {
    double u;  /* U of x: pairs x_i > y_j, ties counted 1/2 (R's W) */
    double p;  /* two-sided p value */
    int exact; /* 1: exact distribution; 0: normal approximation */
} bf_stats_mwu_t;

/* bf_stats_mwu — two-sided Mann-Whitney U test of x (m values) against y (n values), as R's
 * wilcox.test(x, y) with its defaults (exact below BF_STATS_EXACT_MAX without ties, else normal
 * with tie correction and continuity correction 0.5). Returns 0, or BF_E_INVAL (m or n is 0,
 * or a value is not finite: out untouched). */
int bf_stats_mwu(const double *x, size_t m, const double *y, size_t n, bf_stats_mwu_t *out);

/* bf_stats_hl_shift — the Hodges-Lehmann estimate of the shift x - y (median of the m n pairwise
 * differences) and its confidence interval at level conf (0.5..0.999): exact order statistics of
 * the differences from the U distribution (as R's wilcox.test(conf.int = TRUE) in its exact
 * case), or with ties / large samples the normal approximation of the same order statistic
 * (Hollander & Wolfe 4.3). When the samples are too small for the level, the interval is the
 * widest one (smallest to largest difference) and *level gets the confidence it really has
 * (e.g. 0.667 for 2 + 2 values); else *level = conf (exact: the achieved level, >= conf).
 * Returns 0 or BF_E_INVAL (empty sample, a value not finite, conf outside). */
int bf_stats_hl_shift(const double *x, size_t m, const double *y, size_t n, double conf,
                      double *est, double *lo, double *hi, double *level);

/* bf_stats_median — the median of n values (mean of the middle two for even n); NAN for 0. */
double bf_stats_median(const double *x, size_t n);

/* bf_stats_median_ci — a distribution-free interval of the median of n values at level conf:
 * [x_(k), x_(n+1-k)] for the largest k with 1 - 2 P(Bin(n, 1/2) <= k-1) >= conf (the order
 * statistics method benchstat uses). With too few values for conf (n < 6 at 0.95) the interval
 * is the smallest to the largest value and *level is what it really covers (1 - 2^(1-n));
 * else *level is the achieved coverage (>= conf). Returns 0 or BF_E_INVAL (n = 0, conf
 * outside 0.5..0.999, a value not finite). */
int bf_stats_median_ci(const double *x, size_t n, double conf, double *lo, double *hi,
                       double *level);

/* bf_stats_batch_means — a within-run interval of the mean of a per-second series y[0..n)
 * (docs/s of each second of one run's window): batch means with the batch length doubled from
 * 1 until the lag-1 autocorrelation of the batch means is below 0.2 while at least 10 batches
 * remain (else the longest length that keeps 5 batches), then mean +- t(b-1) s / sqrt(b) over
 * the b batches. It holds only what happened within that run (drift between runs is not in
 * it). *batches gets b (may be NULL). Returns 0, or BF_E_INVAL with fewer than 5 seconds, a
 * value not finite or conf outside 0.5..0.999. */
int bf_stats_batch_means(const double *y, size_t n, double conf, double *mean, double *lo,
                         double *hi, size_t *batches);

/* bf_stats_t_quantile — the conf quantile of Student's t with df degrees of freedom (df >= 1),
 * by bisection of its distribution function (the regularized incomplete beta function,
 * Numerical Recipes 6.4). bf_stats_z_quantile: the standard normal's. p in (0, 1). */
double bf_stats_t_quantile(double p, double df);
double bf_stats_z_quantile(double p);

/* bf_stats_holm / bf_stats_bh — adjusted p values of n tests (as R's p.adjust "holm" and
 * "BH"): Holm's step-down family-wise correction (Holm 1979) and Benjamini-Hochberg's
 * false-discovery-rate step-up (1995). adj may equal p. NAN p values are kept NAN and not
 * counted in n. */
void bf_stats_holm(const double *p, size_t n, double *adj);
void bf_stats_bh(const double *p, size_t n, double *adj);

/* bf_stats_correction — the correction used for a family of n comparisons: "Holm" up to
 * BF_STATS_HOLM_MAX, "Benjamini-Hochberg" beyond (Holm's family-wise control leaves almost no
 * power when the comparisons are many; BH controls the share of false calls among the calls,
 * and under the A/A null that is the family-wise rate too). Static string. */
const char *bf_stats_correction(size_t n);

/* bf_stats_adjust — bf_stats_holm or bf_stats_bh as bf_stats_correction(n) says. */
void bf_stats_adjust(const double *p, size_t n, double *adj);

typedef enum bf_verdict {
    BF_VERDICT_UNCLEAR = 0, /* neither: too few repetitions, or too noisy */
    BF_VERDICT_HIGHER,      /* a is higher than b: p_adj < alpha, interval above the band */
    BF_VERDICT_LOWER,       /* a is lower than b */
    BF_VERDICT_SAME,        /* the interval is wholly inside the band */
} bf_verdict_t;

/* bf_verdict_name — "unclear", "higher", "lower", "same". */
const char *bf_verdict_name(bf_verdict_t v);

/* One comparison of a against b (ratio = a / b). */
typedef struct bf_stats_cmp {
    size_t n_a, n_b;
    double ratio;           /* Hodges-Lehmann estimate of a / b (one value a side: a / b) */
    double ci_low, ci_high; /* its interval; NAN when none (one value a side, no within-run) */
    double ci_level;        /* the interval's real confidence (< conf when samples are small) */
    double p_value;         /* two-sided U test p, uncorrected; NAN with one value a side */
    double p_adj;           /* after the correction (bf_stats_decide's p_adj argument) */
    double log_sd;          /* pooled standard deviation of log docs/s, NAN with n_a+n_b < 3 */
    int within_run;         /* the interval is from within-run intervals (one run a side) */
    bf_verdict_t verdict;
    uint32_t need_reps; /* repetitions a side that would likely decide (unclear), 0 = unknown
                           or more than BF_STATS_MAX_REPS */
    char why[240];      /* for unclear: why, and what would decide; "" otherwise */
} bf_stats_cmp_t;

/* bf_stats_compare — compare a (n_a values) with b (n_b values, docs/s > 0) at level conf:
 * ratio, interval, p (uncorrected; p_adj = p_value until bf_stats_decide). With one value a
 * side the ratio is a / b and the interval and p are NAN. Values <= 0 or not finite are
 * refused. Returns 0 or BF_E_INVAL (out zeroed, verdict unclear). */
int bf_stats_compare(const double *a, size_t n_a, const double *b, size_t n_b, double conf,
                     bf_stats_cmp_t *out);

/* bf_stats_compare_within — a comparison of two cells of one run each from their docs/s and
 * within-run intervals (bf_stats_batch_means at the same conf): ratio a / b, an interval from
 * the two on the log scale (half widths added in quadrature), within_run = 1, p NAN. The
 * verdict bf_stats_decide gives it is always unclear: drift between runs is not in it. Returns
 * 0 or BF_E_INVAL (a value not finite or <= 0). */
int bf_stats_compare_within(double a, double a_lo, double a_hi, double b, double b_lo, double b_hi,
                            bf_stats_cmp_t *out);

/* bf_stats_decide — the verdict of c with its corrected p (p_adj, from bf_stats_adjust over the
 * family of comparisons stated), alpha (e.g. 0.05) and band (e.g. 0.02 for +-2 %): higher /
 * lower when p_adj < alpha and the interval lies wholly outside [1/(1+band), 1+band]; same when
 * it lies wholly inside; else unclear, with c->why saying why (with n + n repetitions U can
 * never reach p < alpha after the correction; the interval straddles the band; one run a side)
 * and c->need_reps the repetitions a side that would likely decide: from the observed ratio and
 * spread of log docs/s, the n at which the normal approximation's interval half width
 * z s sqrt(2/n) x 1.023 (the U test's efficiency against the t test, 3/pi) clears the band's
 * edge and U can reach the corrected alpha. A rough guide (it assumes the observed difference
 * is the true one), said as "about N". */
void bf_stats_decide(bf_stats_cmp_t *c, double p_adj, double alpha, double band);

/* bf_stats_geomean_ci — the geometric mean of n ratios (> 0) and its t interval on the log
 * scale at level conf (NAN bounds with n < 2). Returns 0 or BF_E_INVAL (n = 0 or a ratio not
 * > 0). */
int bf_stats_geomean_ci(const double *r, size_t n, double conf, double *gm, double *lo, double *hi);

/* bf_stats_min_p — the smallest two-sided exact p the U test can give with m and n values
 * without ties: 2 / C(m+n, m) (capped at 1). */
double bf_stats_min_p(size_t m, size_t n);

#endif
