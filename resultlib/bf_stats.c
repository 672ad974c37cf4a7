/* SPDX-License-Identifier: MIT */
/* bf_stats.c — U test, Hodges-Lehmann ratio, median and batch-means intervals, corrections for
 * many comparisons, verdicts (formulas and sources: bf_stats.h). */
#include "bf_stats.h"

#include "bf_error.h"
#include "bf_mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_dbl(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static int all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

/* ---- the exact U distribution ------------------------------------------------------------- */

/* P(U = u) for u = 0..m n of sizes m, n, into pmf[0..m n] (probabilities, so the recursion
 * adds only positive terms: no cancellation) */
static void mwu_pmf(size_t m, size_t n, double *pmf)
{
    size_t w = m * n + 1;
    double *prev = bf_calloc((n + 1) * w, sizeof *prev);
    double *cur = bf_calloc((n + 1) * w, sizeof *cur);
    for (size_t j = 0; j <= n; j++)
        prev[j * w] = 1.0; /* i = 0: U = 0 */
    for (size_t i = 1; i <= m; i++) {
        memset(cur, 0, (n + 1) * w * sizeof *cur);
        cur[0] = 1.0; /* j = 0 */
        for (size_t j = 1; j <= n; j++) {
            double pi = (double)i / (double)(i + j), pj = (double)j / (double)(i + j);
            double *c = cur + j * w;
            const double *pr = prev + j * w, *cl = cur + (j - 1) * w;
            for (size_t u = 0; u <= i * j; u++)
                c[u] = (u >= j ? pi * pr[u - j] : 0.0) + pj * cl[u];
        }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    memcpy(pmf, prev + n * w, w * sizeof *pmf);
    free(prev);
    free(cur);
}

double bf_stats_mwu_cdf(size_t m, size_t n, double u)
{
    if (m == 0 || n == 0 || m > BF_STATS_EXACT_MAX || n > BF_STATS_EXACT_MAX || isnan(u))
        return NAN;
    if (u < 0)
        return 0.0;
    if (u >= (double)(m * n))
        return 1.0;
    double *pmf = bf_malloc((m * n + 1) * sizeof *pmf);
    mwu_pmf(m, n, pmf);
    double s = 0;
    size_t top = (size_t)floor(u);
    for (size_t k = 0; k <= top; k++)
        s += pmf[k];
    free(pmf);
    return s > 1.0 ? 1.0 : s;
}

double bf_stats_min_p(size_t m, size_t n)
{
    if (m == 0 || n == 0)
        return 1.0;
    /* 2 / C(m+n, m) in logs */
    double lc = lgamma((double)(m + n + 1)) - lgamma((double)(m + 1)) - lgamma((double)(n + 1));
    double p = 2.0 * exp(-lc);
    return p > 1.0 ? 1.0 : p;
}

/* ---- normal and t distributions ------------------------------------------------------------ */

static double pnorm(double z)
{
    return 0.5 * erfc(-z / sqrt(2.0));
}

double bf_stats_z_quantile(double p)
{
    if (!(p > 0 && p < 1))
        return NAN;
    double lo = -40, hi = 40;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (pnorm(mid) < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* continued fraction of the incomplete beta function (Numerical Recipes 6.4, modified Lentz) */
static double betacf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap;
    if (fabs(d) < tiny)
        d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m, aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1 + aa * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1 + aa / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1 / d;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1 + aa * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1 + aa / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-15)
            break;
    }
    return h;
}

/* the regularized incomplete beta function I_x(a, b) */
static double betai(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1) / (a + b + 2))
        return bt * betacf(a, b, x) / a;
    return 1 - bt * betacf(b, a, 1 - x) / b;
}

/* Student's t distribution function */
static double pt(double t, double df)
{
    double tail = 0.5 * betai(df / 2, 0.5, df / (df + t * t));
    return t >= 0 ? 1 - tail : tail;
}

double bf_stats_t_quantile(double p, double df)
{
    if (!(p > 0 && p < 1) || !(df >= 1))
        return NAN;
    if (p < 0.5)
        return -bf_stats_t_quantile(1 - p, df);
    double lo = 0, hi = 1e7;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (pt(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* ---- U test --------------------------------------------------------------------------------- */

/* U of x and the tie term sum(t^3 - t) over groups of equal values in x and y together */
static double u_and_ties(const double *x, size_t m, const double *y, size_t n, double *ties)
{
    size_t N = m + n;
    double *all = bf_malloc(N * sizeof *all);
    memcpy(all, x, m * sizeof *x);
    memcpy(all + m, y, n * sizeof *y);
    qsort(all, N, sizeof *all, cmp_dbl);
    double t3 = 0;
    for (size_t i = 0; i < N;) {
        size_t j = i;
        while (j < N && all[j] == all[i])
            j++;
        double t = (double)(j - i);
        t3 += t * t * t - t;
        i = j;
    }
    free(all);
    double u = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            u += x[i] > y[j] ? 1.0 : x[i] == y[j] ? 0.5 : 0.0;
    *ties = t3;
    return u;
}

int bf_stats_mwu(const double *x, size_t m, const double *y, size_t n, bf_stats_mwu_t *out)
{
    if (m == 0 || n == 0 || !all_finite(x, m) || !all_finite(y, n))
        return BF_E_INVAL;
    double ties = 0, u = u_and_ties(x, m, y, n, &ties);
    double mn = (double)m * (double)n;
    out->u = u;
    if (m < BF_STATS_EXACT_MAX && n < BF_STATS_EXACT_MAX && ties == 0) {
        double p = u > mn / 2 ? 1.0 - bf_stats_mwu_cdf(m, n, u - 1) : bf_stats_mwu_cdf(m, n, u);
        out->p = fmin(1.0, 2.0 * p);
        out->exact = 1;
        return BF_OK;
    }
    double N = (double)(m + n);
    double z = u - mn / 2;
    double corr = z > 0 ? 0.5 : z < 0 ? -0.5 : 0.0;
    double sigma = sqrt(mn / 12.0 * ((N + 1) - ties / (N * (N - 1))));
    if (!(sigma > 0)) {
        out->p = 1.0;
    } else {
        z = (z - corr) / sigma;
        out->p = fmin(1.0, 2.0 * fmin(pnorm(z), pnorm(-z)));
    }
    out->exact = 0;
    return BF_OK;
}

/* ---- Hodges-Lehmann -------------------------------------------------------------------------- */

double bf_stats_median(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double *s = bf_malloc(n * sizeof *s);
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_dbl);
    double med = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
    free(s);
    return med;
}

int bf_stats_hl_shift(const double *x, size_t m, const double *y, size_t n, double conf,
                      double *est, double *lo, double *hi, double *level)
{
    if (m == 0 || n == 0 || !all_finite(x, m) || !all_finite(y, n) || !(conf >= 0.5) ||
        !(conf <= 0.999))
        return BF_E_INVAL;
    size_t mn = m * n;
    double *d = bf_malloc(mn * sizeof *d);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            d[i * n + j] = x[i] - y[j];
    qsort(d, mn, sizeof *d, cmp_dbl);
    *est = mn % 2 ? d[mn / 2] : (d[mn / 2 - 1] + d[mn / 2]) / 2.0;
    double alpha = 1.0 - conf, ties = 0;
    (void)u_and_ties(x, m, y, n, &ties);
    size_t k; /* 1-based order statistic of the lower bound */
    if (m < BF_STATS_EXACT_MAX && n < BF_STATS_EXACT_MAX && ties == 0) {
        double *pmf = bf_malloc((mn + 1) * sizeof *pmf);
        mwu_pmf(m, n, pmf);
        /* qu = the smallest u with P(U <= u) >= alpha / 2 (R's qwilcox) */
        double c = 0;
        size_t qu = 0;
        for (; qu <= mn; qu++) {
            c += pmf[qu];
            if (c >= alpha / 2 - 1e-12)
                break;
        }
        k = qu == 0 ? 1 : qu;
        double below = 0; /* P(U <= k - 1) */
        for (size_t u = 0; u < k; u++)
            below += pmf[u];
        *level = 1.0 - 2.0 * below;
        free(pmf);
    } else {
        double N = (double)(m + n);
        double sigma = sqrt((double)mn / 12.0 * ((N + 1) - ties / (N * (N - 1))));
        double c = (double)mn / 2.0 - bf_stats_z_quantile(1 - alpha / 2) * sigma;
        long kk = lround(c);
        if (kk < 1) {
            kk = 1;
            *level = sigma > 0 ? 1.0 - 2.0 * pnorm(-((double)mn / 2.0 - 0.5) / sigma) : 0.0;
        } else {
            *level = conf;
        }
        k = (size_t)kk;
    }
    if (k > mn)
        k = mn;
    *lo = d[k - 1];
    *hi = d[mn - k];
    free(d);
    return BF_OK;
}

/* ---- one cell's interval ----------------------------------------------------------------------
 */

/* P(Bin(n, 1/2) <= k) */
static double binom_half_cdf(size_t n, size_t k)
{
    double s = 0;
    for (size_t i = 0; i <= k && i <= n; i++)
        s += exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) -
                 (double)n * log(2.0));
    return s > 1.0 ? 1.0 : s;
}

int bf_stats_median_ci(const double *x, size_t n, double conf, double *lo, double *hi,
                       double *level)
{
    if (n == 0 || !all_finite(x, n) || !(conf >= 0.5) || !(conf <= 0.999))
        return BF_E_INVAL;
    double *s = bf_malloc(n * sizeof *s);
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_dbl);
    size_t best = 0;
    double cov = 0;
    for (size_t k = 1; k <= (n + 1) / 2; k++) {
        double c = 1.0 - 2.0 * binom_half_cdf(n, k - 1);
        if (c >= conf - 1e-12) {
            best = k;
            cov = c;
        } else {
            break;
        }
    }
    if (best == 0) { /* too few values for conf: the whole range, with what it covers */
        *lo = s[0];
        *hi = s[n - 1];
        *level = n == 1 ? 0.0 : 1.0 - 2.0 * binom_half_cdf(n, 0);
    } else {
        *lo = s[best - 1];
        *hi = s[n - best];
        *level = cov;
    }
    free(s);
    return BF_OK;
}

/* the b means of batches of length L over y[0 .. b L), into means; their lag-1 autocorrelation */
static double batch_lag1(const double *y, size_t L, size_t b, double *means)
{
    double mean = 0;
    for (size_t k = 0; k < b; k++) {
        double s = 0;
        for (size_t i = 0; i < L; i++)
            s += y[k * L + i];
        means[k] = s / (double)L;
        mean += means[k];
    }
    mean /= (double)b;
    double num = 0, den = 0;
    for (size_t k = 0; k < b; k++) {
        den += (means[k] - mean) * (means[k] - mean);
        if (k + 1 < b)
            num += (means[k] - mean) * (means[k + 1] - mean);
    }
    return den > 0 ? num / den : 0.0;
}

int bf_stats_batch_means(const double *y, size_t n, double conf, double *mean, double *lo,
                         double *hi, size_t *batches)
{
    if (n < 5 || !all_finite(y, n) || !(conf >= 0.5) || !(conf <= 0.999))
        return BF_E_INVAL;
    double *means = bf_malloc(n * sizeof *means);
    size_t L = 1, b = n;
    int ok = 0;
    while (n / L >= 10) {
        b = n / L;
        if (fabs(batch_lag1(y, L, b, means)) < 0.2) {
            ok = 1;
            break;
        }
        L *= 2;
    }
    if (!ok) { /* still correlated at 10 batches: the longest batches that keep 5 */
        L = n / 5;
        b = 5;
        (void)batch_lag1(y, L, b, means);
    }
    double m = 0, ss = 0;
    for (size_t k = 0; k < b; k++)
        m += means[k];
    m /= (double)b;
    for (size_t k = 0; k < b; k++)
        ss += (means[k] - m) * (means[k] - m);
    double se = sqrt(ss / (double)(b - 1) / (double)b);
    double t = bf_stats_t_quantile(1 - (1 - conf) / 2, (double)(b - 1));
    *mean = m;
    *lo = m - t * se;
    *hi = m + t * se;
    if (batches)
        *batches = b;
    free(means);
    return BF_OK;
}

/* ---- many comparisons ------------------------------------------------------------------------ */

typedef struct pidx {
    double p;
    size_t i;
} pidx;

static int cmp_pidx(const void *x, const void *y)
{
    const pidx *a = x, *b = y;
    return (a->p > b->p) - (a->p < b->p);
}

/* the non-NAN p values sorted ascending with their positions; returns how many */
static size_t sorted_p(const double *p, size_t n, pidx *o)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(p[i]))
            o[k++] = (pidx){p[i], i};
    qsort(o, k, sizeof *o, cmp_pidx);
    return k;
}

void bf_stats_holm(const double *p, size_t n, double *adj)
{
    pidx *o = bf_malloc((n + 1) * sizeof *o);
    size_t k = sorted_p(p, n, o);
    double run = 0;
    for (size_t j = 0; j < k; j++) {
        double v = fmin(1.0, (double)(k - j) * o[j].p);
        run = v > run ? v : run;
        o[j].p = run;
    }
    for (size_t i = 0; i < n; i++)
        if (isnan(p[i]))
            adj[i] = NAN;
    for (size_t j = 0; j < k; j++)
        adj[o[j].i] = o[j].p;
    free(o);
}

void bf_stats_bh(const double *p, size_t n, double *adj)
{
    pidx *o = bf_malloc((n + 1) * sizeof *o);
    size_t k = sorted_p(p, n, o);
    double run = 1.0;
    for (size_t j = k; j-- > 0;) {
        double v = fmin(1.0, (double)k / (double)(j + 1) * o[j].p);
        run = v < run ? v : run;
        o[j].p = run;
    }
    for (size_t i = 0; i < n; i++)
        if (isnan(p[i]))
            adj[i] = NAN;
    for (size_t j = 0; j < k; j++)
        adj[o[j].i] = o[j].p;
    free(o);
}

const char *bf_stats_correction(size_t n)
{
    return n > BF_STATS_HOLM_MAX ? "Benjamini-Hochberg" : "Holm";
}

void bf_stats_adjust(const double *p, size_t n, double *adj)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += !isnan(p[i]);
    if (k > BF_STATS_HOLM_MAX)
        bf_stats_bh(p, n, adj);
    else
        bf_stats_holm(p, n, adj);
}

/* ---- comparisons and verdicts ------------------------------------------------------------- */

const char *bf_verdict_name(bf_verdict_t v)
{
    switch (v) {
    case BF_VERDICT_UNCLEAR: return "unclear";
    case BF_VERDICT_HIGHER: return "higher";
    case BF_VERDICT_LOWER: return "lower";
    case BF_VERDICT_SAME: return "same";
    }
    return "unclear";
}

static void cmp_reset(bf_stats_cmp_t *out)
{
    memset(out, 0, sizeof *out);
    out->ratio = out->ci_low = out->ci_high = out->ci_level = NAN;
    out->p_value = out->p_adj = out->log_sd = NAN;
    out->verdict = BF_VERDICT_UNCLEAR;
}

static int all_positive(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(isfinite(x[i]) && x[i] > 0))
            return 0;
    return 1;
}

int bf_stats_compare(const double *a, size_t n_a, const double *b, size_t n_b, double conf,
                     bf_stats_cmp_t *out)
{
    cmp_reset(out);
    if (n_a == 0 || n_b == 0 || !all_positive(a, n_a) || !all_positive(b, n_b) || !(conf >= 0.5) ||
        !(conf <= 0.999))
        return BF_E_INVAL;
    out->n_a = n_a;
    out->n_b = n_b;
    if (n_a == 1 && n_b == 1) {
        out->ratio = a[0] / b[0];
        return BF_OK;
    }
    double *la = bf_malloc(n_a * sizeof *la), *lb = bf_malloc(n_b * sizeof *lb);
    double ma = 0, mb = 0, ss = 0;
    for (size_t i = 0; i < n_a; i++)
        ma += (la[i] = log(a[i])) / (double)n_a;
    for (size_t i = 0; i < n_b; i++)
        mb += (lb[i] = log(b[i])) / (double)n_b;
    for (size_t i = 0; i < n_a; i++)
        ss += (la[i] - ma) * (la[i] - ma);
    for (size_t i = 0; i < n_b; i++)
        ss += (lb[i] - mb) * (lb[i] - mb);
    if (n_a + n_b >= 3)
        out->log_sd = sqrt(ss / (double)(n_a + n_b - 2));
    double est = NAN, lo = NAN, hi = NAN, level = NAN;
    bf_stats_mwu_t u;
    if (bf_stats_hl_shift(la, n_a, lb, n_b, conf, &est, &lo, &hi, &level) == BF_OK &&
        bf_stats_mwu(la, n_a, lb, n_b, &u) == BF_OK) {
        out->ratio = exp(est);
        out->ci_low = exp(lo);
        out->ci_high = exp(hi);
        out->ci_level = level;
        out->p_value = out->p_adj = u.p;
    }
    free(la);
    free(lb);
    return BF_OK;
}

int bf_stats_compare_within(double a, double a_lo, double a_hi, double b, double b_lo, double b_hi,
                            bf_stats_cmp_t *out)
{
    cmp_reset(out);
    if (!(a > 0 && b > 0 && a_lo > 0 && b_lo > 0 && isfinite(a_hi) && isfinite(b_hi) &&
          isfinite(a) && isfinite(b)))
        return BF_E_INVAL;
    out->n_a = out->n_b = 1;
    out->within_run = 1;
    out->ratio = a / b;
    /* half widths on the log scale, the larger side of each, added in quadrature */
    double ha = fmax(log(a_hi / a), log(a / a_lo)), hb = fmax(log(b_hi / b), log(b / b_lo));
    double h = sqrt(ha * ha + hb * hb);
    out->ci_low = out->ratio * exp(-h);
    out->ci_high = out->ratio * exp(h);
    return BF_OK;
}

/* the smallest n a side whose smallest exact two-sided p is below alpha */
static size_t n_for_p(double alpha)
{
    size_t n = 1;
    while (n < 1000 && !(bf_stats_min_p(n, n) < alpha))
        n++;
    return n;
}

/* repetitions a side that would likely decide c (see bf_stats_decide), 0 when unknown or more
 * than BF_STATS_MAX_REPS; *near_edge when the estimate is too large because the difference
 * sits at the band's edge */
static uint32_t reps_needed(const bf_stats_cmp_t *c, double alpha, double alpha_eff, double band,
                            int *near_edge)
{
    *near_edge = 0;
    size_t have = c->n_a < c->n_b ? c->n_a : c->n_b;
    size_t np = n_for_p(alpha_eff);
    double s = c->log_sd;
    if (!isfinite(s) || !isfinite(c->ratio))
        return 0;
    const double eff = 1.023; /* sqrt(pi / 3): the U test's efficiency against t, normal data */
    double d = fabs(log(c->ratio)), bl = log1p(band), z = bf_stats_z_quantile(1 - alpha / 2);
    double need;
    if (s == 0) {
        need = (double)np;
    } else if (d > bl) {
        double nci = 2.0 * pow(z * s * eff / (d - bl), 2.0);
        double zs = bf_stats_z_quantile(1 - alpha_eff / 2);
        double nsig = 2.0 * pow(zs * s * eff / d, 2.0);
        need = fmax(fmax(nci, nsig), (double)np);
    } else {
        need = fmax(2.0 * pow(z * s * eff / (bl - d), 2.0), 2.0);
    }
    need = ceil(need);
    if (need <= (double)have)
        need = (double)have + 1;
    if (need > BF_STATS_MAX_REPS) {
        *near_edge = 1;
        return 0;
    }
    return (uint32_t)need;
}

void bf_stats_decide(bf_stats_cmp_t *c, double p_adj, double alpha, double band)
{
    c->p_adj = p_adj;
    c->why[0] = '\0';
    c->need_reps = 0;
    double up = 1.0 + band, down = 1.0 / (1.0 + band);
    if (c->within_run) {
        c->verdict = BF_VERDICT_UNCLEAR;
        snprintf(c->why, sizeof c->why,
                 "one run a side: the interval holds only the noise within each run, not the "
                 "drift between runs; run.repeat: 5 or more to decide");
        return;
    }
    if (!isfinite(c->ci_low) || !isfinite(c->ci_high)) {
        c->verdict = BF_VERDICT_UNCLEAR;
        snprintf(c->why, sizeof c->why,
                 "one run a side: no noise estimate; run.repeat: 5 or more to decide");
        return;
    }
    int sig = isfinite(p_adj) && p_adj < alpha;
    if (sig && c->ci_low > up) {
        c->verdict = BF_VERDICT_HIGHER;
        return;
    }
    if (sig && c->ci_high < down) {
        c->verdict = BF_VERDICT_LOWER;
        return;
    }
    if (c->ci_low >= down && c->ci_high <= up && c->ci_level >= 1.0 - alpha - 1e-9) {
        c->verdict = BF_VERDICT_SAME;
        return;
    }
    c->verdict = BF_VERDICT_UNCLEAR;
    /* the correction's factor on this p: the alpha the raw p had to beat */
    double mult = isfinite(c->p_value) && c->p_value > 0 && isfinite(p_adj) && p_adj > c->p_value
                      ? p_adj / c->p_value
                      : 1.0;
    double alpha_eff = alpha / mult;
    char first[160];
    if (bf_stats_min_p(c->n_a, c->n_b) >= alpha_eff)
        snprintf(first, sizeof first, "with %zu+%zu runs U can never reach p < %.2g%s", c->n_a,
                 c->n_b, alpha, mult > 1.0 ? " after the correction" : "");
    else if (c->ci_level < 1.0 - alpha - 1e-9 && !sig)
        snprintf(first, sizeof first, "too few runs for a %.0f %% interval", (1 - alpha) * 100);
    else if (!sig)
        snprintf(first, sizeof first, "p %.2g%s is not below %.2g", p_adj,
                 mult > 1.0 ? " (corrected)" : "", alpha);
    else
        snprintf(first, sizeof first, "the interval crosses the +-%.0f %% noise band's edge",
                 band * 100);
    int edge = 0;
    c->need_reps = reps_needed(c, alpha, alpha_eff, band, &edge);
    if (c->need_reps)
        snprintf(c->why, sizeof c->why, "%s; about %u runs a side would likely decide", first,
                 c->need_reps);
    else if (edge)
        snprintf(c->why, sizeof c->why,
                 "%s; more than %d runs a side would be needed: the difference is about the "
                 "size of the noise band",
                 first, BF_STATS_MAX_REPS);
    else
        snprintf(c->why, sizeof c->why, "%s", first);
}

int bf_stats_geomean_ci(const double *r, size_t n, double conf, double *gm, double *lo, double *hi)
{
    if (n == 0 || !all_positive(r, n) || !(conf >= 0.5) || !(conf <= 0.999))
        return BF_E_INVAL;
    double m = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        m += log(r[i]) / (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (log(r[i]) - m) * (log(r[i]) - m);
    *gm = exp(m);
    if (n < 2) {
        *lo = *hi = NAN;
        return BF_OK;
    }
    double se = sqrt(ss / (double)(n - 1) / (double)n);
    double t = bf_stats_t_quantile(1 - (1 - conf) / 2, (double)(n - 1));
    *lo = exp(m - t * se);
    *hi = exp(m + t * se);
    return BF_OK;
}
