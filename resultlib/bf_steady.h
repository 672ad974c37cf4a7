/* SPDX-License-Identifier: MIT */
/* bf_steady.h — is a cell's per-second docs/s steady over its measurement window?
 *
 * A cell's docs/s is the mean of its window; it stands for the configuration only when the
 * seconds it averages are steady. Two rules flag a row `unsteady` (its reason says which and
 * the figures), and the findings leave it out like other flagged rows (docs/results.md,
 * "Unsteady cells"):
 *
 *  - a trend: the per-second series rises or falls through the window. The Mann-Kendall test
 *    (Mann 1945; Kendall, "Rank Correlation Methods", 1975; normal approximation with the tie
 *    correction, as R's Kendall::MannKendall) gives p < BF_STEADY_TREND_P, and the Theil-Sen
 *    slope (Sen, JASA 63, 1968: the median of the pairwise slopes) changes the rate by at least
 *    BF_STEADY_TREND_CHANGE of its median over the window. Both are needed: seconds of one
 *    cell are autocorrelated, which makes the test alone too ready to call a small drift;
 *    the size of the change is what matters for a mean. Series longer than
 *    BF_STEADY_MAX_POINTS seconds are first averaged in equal blocks (fewer, less correlated
 *    points; bounded work).
 *  - a spread far beyond its neighbours': the relative spread (p90 - p10) / median of the
 *    per-second docs/s exceeds BF_STEADY_SPREAD_FACTOR times the median relative spread of
 *    the campaign's rows and BF_STEADY_SPREAD_MIN (a quiet campaign's small spreads are not
 *    flagged). Needs at least BF_STEADY_MIN_NEIGHBOURS rows with a spread.
 *
 * Pure functions over plain values: thread-safe.
 */
#ifndef BF_STEADY_H
#define BF_STEADY_H

#include <stddef.h>
#include <stdint.h>

#define BF_STEADY_MIN_POINTS 10     /* seconds a window needs for the trend test */
#define BF_STEADY_MAX_POINTS 600    /* longer series are averaged in blocks down to this */
#define BF_STEADY_TREND_P 0.01      /* Mann-Kendall two-sided p below this ... */
#define BF_STEADY_TREND_CHANGE 0.20 /* ... and a Theil-Sen change of at least 20 % */
#define BF_STEADY_SPREAD_FACTOR 3.0 /* spread beyond 3x the campaign's median spread ... */
#define BF_STEADY_SPREAD_MIN 0.30   /* ... and beyond 30 % of the cell's median */
#define BF_STEADY_MIN_NEIGHBOURS 3  /* rows with a spread needed to judge one against them */
#define BF_WARMUP_BLOCK_S 5         /* run.warmup: auto compares two blocks of this many s ... */
#define BF_WARMUP_CHANGE 0.05       /* ... whose mean docs/s differ by at most 5 % */

/* bf_steady_trend — the trend of y[0..n) (per-second values, in time order): *p the
 * Mann-Kendall two-sided p value, *change the Theil-Sen slope x (n - 1) / median(y) (the
 * relative change over the series; NAN when the median is 0). Returns 0, or BF_E_INVAL when
 * n < BF_STEADY_MIN_POINTS (nothing computed). y is not changed. */
int bf_steady_trend(const double *y, size_t n, double *p, double *change);

/* bf_steady_check_trend — 1 when y[0..n) has a trend by the rule above, with the reason into
 * why ("unsteady: docs/s falls 34% through the window (Mann-Kendall p 0.0002)"); 0 otherwise
 * (why untouched). */
int bf_steady_check_trend(const double *y, size_t n, char *why, size_t why_size);

/* bf_steady_spread — the relative per-second spread of a cell, (p90 - p10) / median of its
 * per-second docs/s; NAN when median <= 0 or a value is not finite. */
double bf_steady_spread(double p10, double median, double p90);

/* bf_steady_spread_outliers — which of spread[0..n) (NAN = no spread, never flagged) lie beyond
 * their neighbours by the rule above: flag[i] = 1 for those, 0 else; *ref gets the median of
 * the finite spreads (NAN when fewer than BF_STEADY_MIN_NEIGHBOURS). Returns how many it
 * flagged. */
size_t bf_steady_spread_outliers(const double *spread, size_t n, uint8_t *flag, double *ref);

/* bf_steady_warmup_over — run.warmup: auto's rule (docs/scenario.md, run.warmup): given the
 * per-second docs/s y[0..n) of a cell's load so far (second 0 first, every second complete),
 * 1 when the warmup may end after second n - 1: the mean of the last BF_WARMUP_BLOCK_S seconds
 * and the mean of the BF_WARMUP_BLOCK_S before them are both above 0 and differ by at most
 * BF_WARMUP_CHANGE of the earlier one; second 0 (the load ramping up within it) never counts,
 * so the earliest answer 1 is at n = 2 x BF_WARMUP_BLOCK_S + 1. 0 otherwise (a non-finite
 * value: 0). It is a steady-state rule in the spirit of Georges et al., OOPSLA 2007,
 * "Statistically rigorous Java performance evaluation" (§4.2: measure once the last
 * iterations vary little), on block means, which smooth the per-second noise of refreshes
 * and merges. Thread-safe. */
int bf_steady_warmup_over(const double *y, size_t n);

#endif
