/* SPDX-License-Identifier: MIT */
/* bf_steady.c — the unsteady rules (bf_steady.h): Mann-Kendall with Theil-Sen, and the spread
 * against the campaign's rows. */
#include "bf_steady.h"

#include "bf_error.h"
#include "bf_mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the median of v[0..n), sorting v */
static double median_sorting(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

int bf_steady_trend(const double *y, size_t n, double *p, double *change)
{
    if (n < BF_STEADY_MIN_POINTS)
        return BF_E_INVAL;
    /* blocks of b seconds (the last block may be shorter): at most BF_STEADY_MAX_POINTS */
    size_t b = (n + BF_STEADY_MAX_POINTS - 1) / BF_STEADY_MAX_POINTS, m = (n + b - 1) / b;
    double *x = bf_calloc(m, sizeof *x);
    for (size_t i = 0; i < m; i++) {
        size_t lo = i * b, hi = lo + b < n ? lo + b : n;
        for (size_t j = lo; j < hi; j++)
            x[i] += y[j];
        x[i] /= (double)(hi - lo);
    }
    /* Mann-Kendall: S = sum of sign(x_j - x_i), i < j; var with ties (Kendall 1975) */
    double s = 0;
    size_t npairs = m * (m - 1) / 2, k = 0;
    double *slopes = bf_calloc(npairs + 1, sizeof *slopes);
    for (size_t i = 0; i < m; i++)
        for (size_t j = i + 1; j < m; j++) {
            double d = x[j] - x[i];
            s += (d > 0) - (d < 0);
            slopes[k++] = d / (double)(j - i);
        }
    double *sorted = bf_calloc(m, sizeof *sorted);
    memcpy(sorted, x, m * sizeof *x);
    double med = median_sorting(sorted, m);
    double var = (double)m * (m - 1) * (2.0 * m + 5);
    for (size_t i = 0; i < m;) { /* runs of equal values in the sorted copy: tie groups */
        size_t t = 1;
        while (i + t < m && sorted[i + t] == sorted[i])
            t++;
        var -= (double)t * (t - 1) * (2.0 * t + 5);
        i += t;
    }
    var /= 18.0;
    double z = 0;
    if (var > 0)
        z = s > 0 ? (s - 1) / sqrt(var) : s < 0 ? (s + 1) / sqrt(var) : 0;
    *p = var > 0 ? erfc(fabs(z) / sqrt(2.0)) : 1.0;
    double slope = median_sorting(slopes, k); /* per block */
    *change = med > 0 ? slope * (double)(m - 1) / med : NAN;
    free(sorted);
    free(slopes);
    free(x);
    return BF_OK;
}

int bf_steady_check_trend(const double *y, size_t n, char *why, size_t why_size)
{
    double p, change;
    if (bf_steady_trend(y, n, &p, &change) != BF_OK || !isfinite(change))
        return 0;
    if (p >= BF_STEADY_TREND_P || fabs(change) < BF_STEADY_TREND_CHANGE)
        return 0;
    snprintf(why, why_size,
             "unsteady: docs/s %s %.0f%% through the window (Mann-Kendall p %.2g, Theil-Sen "
             "slope; the mean of a moving rate describes neither end)",
             change > 0 ? "rises" : "falls", fabs(change) * 100.0, p);
    return 1;
}

double bf_steady_spread(double p10, double median, double p90)
{
    if (!isfinite(median) || median <= 0 || !isfinite(p10) || !isfinite(p90))
        return NAN;
    return (p90 - p10) / median;
}

size_t bf_steady_spread_outliers(const double *spread, size_t n, uint8_t *flag, double *ref)
{
    double *s = bf_calloc(n + 1, sizeof *s);
    size_t m = 0, flagged = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(spread[i]))
            s[m++] = spread[i];
    *ref = m >= BF_STEADY_MIN_NEIGHBOURS ? median_sorting(s, m) : NAN;
    for (size_t i = 0; i < n; i++) {
        flag[i] = isfinite(*ref) && isfinite(spread[i]) && spread[i] > BF_STEADY_SPREAD_MIN &&
                  spread[i] > BF_STEADY_SPREAD_FACTOR * *ref;
        flagged += flag[i];
    }
    free(s);
    return flagged;
}

int bf_steady_warmup_over(const double *y, size_t n)
{
    const size_t b = BF_WARMUP_BLOCK_S;
    if (y == NULL || n < 2 * b + 1)
        return 0;
    double early = 0, late = 0;
    for (size_t i = 0; i < b; i++) {
        double e = y[n - 2 * b + i], l = y[n - b + i];
        if (!isfinite(e) || !isfinite(l))
            return 0;
        early += e;
        late += l;
    }
    early /= (double)b;
    late /= (double)b;
    if (!(early > 0) || !(late > 0))
        return 0;
    return fabs(late / early - 1.0) <= BF_WARMUP_CHANGE;
}
