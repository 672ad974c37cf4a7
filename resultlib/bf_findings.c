/* SPDX-License-Identifier: MIT */
/* bf_findings.c — best cell, knee, shard and batch ratios from the results matrix. */
#include "bf_findings.h"

#include "bf_results.h"
#include "bf_stats.h"

#include "bf_buf.h"
#include "bf_error.h"
#include "bf_mem.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct bf_findings {
    bf_finding_point_t *pts; /* copies; few-requests points are marked excluded here */
    size_t n;
    size_t nfew, nmismatch; /* few-requests and index-mismatch points among the usable */
    size_t nleft;           /* points with a left_out reason (degraded, unverified, ...) */
    int one_run;            /* no usable point folds repetitions: ratios carry no noise estimate */
    bf_findings_opts_t opts;
    uint8_t *excl0; /* each point's excluded as given (a pass marks more) */
    /* every comparison the findings state is a test (bf_stats): pass 1 collects their raw p
     * values in order, the correction adjusts them, pass 2 states each with its verdict */
    int pass;
    double *praw, *padj;
    size_t ntests, ncap, nstated;
    size_t verdicts[4];        /* pass 2: how many of each bf_verdict_t */
    bf_findings_test_t *tests; /* pass 2: each test stated, with its cells (bf_findings_tests) */
    size_t ntested;
    char **lines;
    size_t nlines;
    json_t *items, *best, *knees, *plateaus, *shards, *batch, *axes, *routing;
    char main_axis[128];
};

static void cmp_figures(const struct bf_stats_cmp *c, json_t *fig);

static const char *const seed_axes[] = {"indices", "shards", "replicas", "batch_size", "concurrency"};

static int is_seed_axis(const char *name)
{
    for (size_t i = 0; i < sizeof seed_axes / sizeof seed_axes[0]; i++)
        if (strcmp(name, seed_axes[i]) == 0)
            return 1;
    return 0;
}

void bf_finding_point_from_row(const bf_row_t *row, bf_finding_point_t *p)
{
    memset(p, 0, sizeof *p);
    const bf_cell_t *c = row->cell;
    bf_strlcpy(p->cell, c->id, sizeof p->cell);
    p->indices = c->indices;
    p->shards = c->shards;
    p->replicas = c->replicas;
    p->batch_size = c->batch_size;
    p->concurrency = c->concurrency;
    size_t used = 0;
    for (size_t i = 0; i < c->naxes; i++) {
        if (is_seed_axis(c->axes[i].axis))
            continue;
        int w = snprintf(p->extra + used, sizeof p->extra - used, "%s%s=%s", used ? " " : "",
                         c->axes[i].axis, c->axes[i].value);
        if (w < 0 || (size_t)w >= sizeof p->extra - used)
            break;
        used += (size_t)w;
    }
    p->docs_per_s = row->docs_per_s;
    size_t nr = 0;
    const double *rv = bf_row_reps(row, &nr);
    p->nreps = (uint32_t)(nr < BF_ROW_MAX_REPS ? nr : BF_ROW_MAX_REPS);
    if (p->nreps)
        memcpy(p->reps, rv, p->nreps * sizeof *rv);
    p->ci_low = row->docs_per_s_ci_low;
    p->ci_high = row->docs_per_s_ci_high;
    p->ci_within = row->docs_per_s_ci_within;
    p->service_p50_ms = row->service.p50_ms;
    p->few_requests = row->few_requests;
    p->repeat = row->repeat;
    if (row->index_mismatch && row->index_shards > 0) {
        /* the index the load went to, not the scenario's numbers */
        p->shards = (uint32_t)row->index_shards;
        p->replicas = row->index_replicas >= 0 ? (uint32_t)row->index_replicas : p->replicas;
        p->index_mismatch = 1;
    }
    /* a cell with failed or unknown documents is no candidate for "best" either */
    /* documents accepted on a retry were rejected first: not "without rejections" */
    p->rejections = row->docs_rejected > 0 || row->http_429 > 0 || row->docs_429 > 0 ||
                    row->write_rejected > 0 || row->docs_retried > 0 || bf_row_has_errors(row);
    /* a search-only cell (concurrency 0) indexes nothing: no point for indexing findings */
    /* nor one that missed its target rate: it did not run the load it was asked for */
    p->excluded = row->failed || row->aborted || !isfinite(row->docs_per_s) ||
                  c->concurrency == 0 || row->target_missed || row->stalled;
    if (c->concurrency == 0)
        return; /* search only: no indexing measurement to leave out */
    /* why the findings cannot use it : a lost agent's row misses what
     * it did, an unverified row's documents were not confirmed (or the cluster went away), a
     * row of mostly failed documents measured errors (version conflicts with an earlier run's
     * ids) */
    used = 0;
#define WHY(cond, ...)                                                                             \
    do {                                                                                           \
        if ((cond) && used < sizeof p->left_out) {                                                 \
            int w_ =                                                                               \
                snprintf(p->left_out + used, sizeof p->left_out - used, "%s", used ? ", " : "");   \
            used += w_ > 0 ? (size_t)w_ : 0;                                                       \
            if (used < sizeof p->left_out) {                                                       \
                w_ = snprintf(p->left_out + used, sizeof p->left_out - used, __VA_ARGS__);         \
                used += w_ > 0 ? (size_t)w_ : 0;                                                   \
            }                                                                                      \
        }                                                                                          \
    } while (0)
    WHY(bf_findings_fm_sustain_id(c->id), "%s",
        "find-max sustain step: open loop at a target rate, not compared with the closed-loop "
        "search steps");
    WHY(row->failed, "%s", "failed");
    WHY(row->aborted, "%s", "interrupted");
    WHY(row->stalled && !row->failed, "%s", "stalled");
    WHY(row->target_missed, "%s", "target-missed");
    WHY(row->degraded, "%s", "degraded: an agent was lost");
    WHY(row->unsteady, "%s", "unsteady: its docs/s moved through the window");
    WHY(!row->failed && !row->aborted && !row->verified, "%s",
        row->docs_counted < 0 ? "not verified: the documents could not be counted"
                              : "not verified");
    double bad = row->docs_sent
                     ? (double)(row->docs_failed + row->docs_unknown) / (double)row->docs_sent
                     : 0.0;
    WHY(!row->failed && bad > BF_FINDINGS_MAX_FAILED, "%.1f%% of its documents failed or unknown",
        bad * 100.0);
#undef WHY
}

int bf_findings_fm_sustain_id(const char *id)
{
    /* fm<combination>-<step>-sustain-... (bf_findmax_run.c step_cell) */
    if (id == NULL || strncmp(id, "fm", 2) != 0)
        return 0;
    const char *p = id + 2;
    size_t d = strspn(p, "0123456789");
    if (d == 0 || p[d] != '-')
        return 0;
    p += d + 1;
    d = strspn(p, "0123456789");
    return d > 0 && strncmp(p + d, "-sustain-", 9) == 0;
}

int bf_finding_point_from_json(json_t *row, bf_finding_point_t *p)
{
    /* through the row codec: the same fields, read the same way, as a fresh row's point */
    memset(p, 0, sizeof *p);
    bf_row_rec_t rec;
    int rc = bf_row_rec_decode(row, &rec, NULL);
    if (rc == BF_OK)
        bf_finding_point_from_row(&rec.row, p);
    bf_row_rec_cleanup(&rec);
    return rc;
}

/* ---- axes of a point ---------------------------------------------------------------------- */

/* the value of axis name in extra ("a=1 b=2"), copied to out; 0 when absent */
static int extra_value(const char *extra, const char *name, char *out, size_t out_size)
{
    size_t nl = strlen(name);
    for (const char *t = extra; t && *t;) {
        const char *sp = strchr(t, ' ');
        size_t tl = sp ? (size_t)(sp - t) : strlen(t);
        if (tl > nl && strncmp(t, name, nl) == 0 && t[nl] == '=') {
            snprintf(out, out_size, "%.*s", (int)(tl - nl - 1), t + nl + 1);
            return 1;
        }
        t = sp ? sp + 1 : NULL;
    }
    return 0;
}

/* extra without axis name's token, into out */
static void extra_without(const char *extra, const char *name, char *out, size_t out_size)
{
    size_t nl = strlen(name), used = 0;
    out[0] = '\0';
    for (const char *t = extra; t && *t;) {
        const char *sp = strchr(t, ' ');
        size_t tl = sp ? (size_t)(sp - t) : strlen(t);
        if (!(tl > nl && strncmp(t, name, nl) == 0 && t[nl] == '=') && used < out_size) {
            int w = snprintf(out + used, out_size - used, "%s%.*s", used ? " " : "", (int)tl, t);
            used += w > 0 ? (size_t)w : 0;
        }
        t = sp ? sp + 1 : NULL;
    }
}

static uint32_t seed_value(const bf_finding_point_t *p, const char *name)
{
    if (strcmp(name, "indices") == 0)
        return p->indices;
    if (strcmp(name, "shards") == 0)
        return p->shards;
    if (strcmp(name, "replicas") == 0)
        return p->replicas;
    if (strcmp(name, "batch_size") == 0)
        return p->batch_size;
    return p->concurrency;
}

/* the value of any axis as text ("" when p has none) */
static void axis_text(const bf_finding_point_t *p, const char *name, char *out, size_t out_size)
{
    if (is_seed_axis(name))
        snprintf(out, out_size, "%u", seed_value(p, name));
    else if (!extra_value(p->extra, name, out, out_size))
        out[0] = '\0';
}

double bf_finding_point_axis(const bf_finding_point_t *p, const char *name)
{
    char v[256];
    axis_text(p, name, v, sizeof v);
    if (v[0] == '\0')
        return NAN;
    char *end = NULL;
    double d = strtod(v, &end);
    return end && *end == '\0' && isfinite(d) ? d : NAN;
}

/* a and b equal in every axis but `axis` */
static int same_except(const bf_finding_point_t *a, const bf_finding_point_t *b, const char *axis)
{
    for (size_t i = 0; i < sizeof seed_axes / sizeof seed_axes[0]; i++)
        if (strcmp(axis, seed_axes[i]) != 0 &&
            seed_value(a, seed_axes[i]) != seed_value(b, seed_axes[i]))
            return 0;
    if (is_seed_axis(axis))
        return strcmp(a->extra, b->extra) == 0;
    char ea[sizeof a->extra], eb[sizeof b->extra];
    extra_without(a->extra, axis, ea, sizeof ea);
    extra_without(b->extra, axis, eb, sizeof eb);
    return strcmp(ea, eb) == 0;
}

/* same line: equal in every axis but shards and concurrency (and batch when !with_batch) */
static int same_line(const bf_finding_point_t *a, const bf_finding_point_t *b, int with_batch)
{
    return a->indices == b->indices && a->replicas == b->replicas &&
           (!with_batch || a->batch_size == b->batch_size) && strcmp(a->extra, b->extra) == 0;
}

char *bf_findings_label(const bf_finding_point_t *pts, size_t n, const bf_finding_point_t *p,
                        const char *x, int with_shards, char *buf, size_t buf_size)
{
    int vary_rep = 0, vary_idx = 0, vary_extra = 0, vary_sh = 0, vary_conc = 0;
    for (size_t i = 0; i < n; i++) {
        vary_rep |= pts[i].replicas != pts[0].replicas;
        vary_idx |= pts[i].indices != pts[0].indices;
        vary_sh |= pts[i].shards != pts[0].shards;
        vary_conc |= pts[i].concurrency != pts[0].concurrency;
        vary_extra |= strcmp(pts[i].extra, pts[0].extra) != 0;
    }
    size_t used = 0;
    buf[0] = '\0';
#define PART(...)                                                                                  \
    do {                                                                                           \
        if (used < buf_size) {                                                                     \
            int w_ = snprintf(buf + used, buf_size - used, __VA_ARGS__);                           \
            used += w_ > 0 ? (size_t)w_ : 0;                                                       \
        }                                                                                          \
    } while (0)
    if (with_shards && vary_sh && strcmp(x, "shards") != 0)
        PART("%u %s", p->shards, p->shards == 1 ? "shard" : "shards");
    if (strcmp(x, "batch_size") != 0)
        PART("%sbatch %u", used ? ", " : "", p->batch_size);
    if (strcmp(x, "concurrency") != 0 && (vary_conc || strcmp(x, "batch_size") == 0))
        PART("%sconcurrency %u", used ? ", " : "", p->concurrency);
    if (vary_rep && strcmp(x, "replicas") != 0)
        PART("%sreplicas %u", used ? ", " : "", p->replicas);
    if (vary_idx && strcmp(x, "indices") != 0)
        PART("%sindices %u", used ? ", " : "", p->indices);
    if (vary_extra && p->extra[0]) {
        char ex[sizeof p->extra];
        extra_without(p->extra, x, ex, sizeof ex);
        if (ex[0])
            PART("%s%s", used ? ", " : "", ex);
    }
#undef PART
    return buf;
}

char *bf_findings_line_label(const bf_finding_point_t *pts, size_t n, const bf_finding_point_t *p,
                             char *buf, size_t buf_size)
{
    return bf_findings_label(pts, n, p, "concurrency", 0, buf, buf_size);
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

static int cmp_dbl(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* distinct sorted values of a field over the usable points */
static size_t distinct(const bf_findings_t *f, size_t off, uint32_t *out)
{
    size_t k = 0;
    for (size_t i = 0; i < f->n; i++) {
        if (f->pts[i].excluded)
            continue;
        uint32_t v = *(const uint32_t *)((const char *)&f->pts[i] + off);
        size_t j = 0;
        while (j < k && out[j] != v)
            j++;
        if (j == k)
            out[k++] = v;
    }
    qsort(out, k, sizeof *out, cmp_u32);
    return k;
}

static void add_line(bf_findings_t *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_line(bf_findings_t *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = bf_malloc((size_t)(n < 0 ? 0 : n) + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)(n < 0 ? 0 : n) + 1, fmt, ap);
    va_end(ap);
    f->lines = bf_realloc(f->lines, (f->nlines + 1) * sizeof *f->lines);
    f->lines[f->nlines++] = s;
}

/* one item of data: kind, axis, at, figures (stolen) and the sentence just added */
static void add_item(bf_findings_t *f, const char *kind, const char *axis, json_t *at,
                     json_t *figures)
{
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(kind));
    json_object_set_new(o, "axis", axis ? json_string(axis) : json_null());
    json_object_set_new(o, "at", at ? at : json_object());
    json_object_set_new(o, "figures", figures ? figures : json_object());
    json_object_set_new(o, "text", json_string(f->nlines ? f->lines[f->nlines - 1] : ""));
    json_array_append_new(f->items, o);
}

/* the verdict of the item just added, and its figures (ratio, ci_low, ...) into its figures */
static void item_verdict(bf_findings_t *f, const bf_stats_cmp_t *c)
{
    json_t *o = json_array_get(f->items, json_array_size(f->items) - 1);
    json_object_set_new(o, "verdict", json_string(bf_verdict_name(c->verdict)));
    cmp_figures(c, json_object_get(o, "figures"));
}

/* every axis value of p but skip's (NULL: all): numbers for the five, strings for the others */
static json_t *at_json(const bf_finding_point_t *p, const char *skip)
{
    json_t *o = json_object();
    for (size_t i = 0; i < sizeof seed_axes / sizeof seed_axes[0]; i++)
        if (skip == NULL || strcmp(skip, seed_axes[i]) != 0)
            json_object_set_new(o, seed_axes[i], json_integer(seed_value(p, seed_axes[i])));
    for (const char *t = p->extra; *t;) {
        const char *sp = strchr(t, ' ');
        size_t tl = sp ? (size_t)(sp - t) : strlen(t);
        const char *eq = memchr(t, '=', tl);
        if (eq) {
            char k[128];
            snprintf(k, sizeof k, "%.*s", (int)(eq - t), t);
            if (skip == NULL || strcmp(skip, k) != 0)
                json_object_set_new(o, k, json_stringn(eq + 1, tl - (size_t)(eq + 1 - t)));
        }
        if (sp == NULL)
            break;
        t = sp + 1;
    }
    return o;
}

/* "shards" or "shard" for a count of 1 */
static const char *shards_word(uint32_t n)
{
    return n == 1 ? "shard" : "shards";
}

/* 12345.6 -> "12,346" */
static const char *grouped(double v, char *buf, size_t n)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.0f", v);
    const char *digits = tmp[0] == '-' ? tmp + 1 : tmp;
    size_t len = strlen(digits), o = 0;
    if (tmp[0] == '-' && o + 1 < n)
        buf[o++] = '-';
    for (size_t i = 0; i < len && o + 2 < n; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

/* b's service p50 over a's, NAN when either is unknown */
static double p50_ratio(const bf_finding_point_t *a, const bf_finding_point_t *b)
{
    return isfinite(a->service_p50_ms) && isfinite(b->service_p50_ms) && a->service_p50_ms > 0 &&
                   b->service_p50_ms > 0
               ? b->service_p50_ms / a->service_p50_ms
               : NAN;
}

/* ---- tests of the comparisons ------------------------------------------------------------ */

/* p's repetitions' docs/s (its docs/s alone when it has none), count in *n */
static const double *point_reps(const bf_finding_point_t *p, size_t *n)
{
    if (p->nreps > 0) {
        *n = p->nreps;
        return p->reps;
    }
    *n = isfinite(p->docs_per_s) && p->docs_per_s > 0 ? 1 : 0;
    return &p->docs_per_s;
}

/* a against b (ratio a / b) as a test: its raw p is collected in pass 1; in pass 2 it gets its
 * corrected p and verdict. Returns 0 when the two cannot be compared (no positive docs/s). */
static int pair_test(bf_findings_t *f, const bf_finding_point_t *a, const bf_finding_point_t *b,
                     bf_stats_cmp_t *c)
{
    size_t na, nb;
    const double *ra = point_reps(a, &na), *rb = point_reps(b, &nb);
    int rc = BF_E_INVAL;
    if (na == 1 && nb == 1 && a->ci_within && b->ci_within)
        rc = bf_stats_compare_within(ra[0], a->ci_low, a->ci_high, rb[0], b->ci_low, b->ci_high, c);
    if (rc != BF_OK && na && nb)
        rc = bf_stats_compare(ra, na, rb, nb, 1.0 - f->opts.alpha, c);
    if (rc != BF_OK)
        return 0;
    size_t k = f->ntests++;
    if (f->pass == 1) {
        if (k >= f->ncap) {
            f->ncap = f->ncap ? 2 * f->ncap : 32;
            f->praw = bf_realloc(f->praw, f->ncap * sizeof *f->praw);
        }
        f->praw[k] = c->p_value;
        bf_stats_decide(c, c->p_value, f->opts.alpha, f->opts.band);
    } else {
        bf_stats_decide(c, k < f->nstated ? f->padj[k] : c->p_value, f->opts.alpha, f->opts.band);
        f->verdicts[c->verdict]++;
        if (a >= f->pts && a < f->pts + f->n && b >= f->pts && b < f->pts + f->n) {
            f->tests = bf_realloc(f->tests, (f->ntested + 1) * sizeof *f->tests);
            f->tests[f->ntested++] = (bf_findings_test_t){(size_t)(a - f->pts),
                                                          (size_t)(b - f->pts),
                                                          c->verdict,
                                                          c->ratio,
                                                          c->p_adj,
                                                          c->n_a,
                                                          c->n_b};
        }
    }
    return 1;
}

/* "1.10x (95 % CI 1.06-1.14, p 0.008, 5+5 runs): higher", or for unclear "...: unclear (why)" */
static char *cmp_clause(const bf_stats_cmp_t *c, char *buf, size_t n)
{
    char ci[96] = "", pv[40] = "";
    if (c->within_run)
        snprintf(ci, sizeof ci, "within-run CI %.2f-%.2f, ", c->ci_low, c->ci_high);
    else if (isfinite(c->ci_low) && isfinite(c->ci_high))
        snprintf(ci, sizeof ci, "%.0f %% CI %.2f-%.2f, ",
                 c->ci_level >= 0.95 - 1e-9 ? 95.0 : floor(c->ci_level * 100.0), c->ci_low,
                 c->ci_high);
    if (isfinite(c->p_adj))
        snprintf(pv, sizeof pv, "p %.2g, ", c->p_adj);
    int w = snprintf(buf, n, "%.2fx (%s%s%zu+%zu runs): %s", c->ratio, ci, pv, c->n_a, c->n_b,
                     bf_verdict_name(c->verdict));
    /* one run a side: the method sentence says why once, not every sentence */
    int one_run = c->within_run || !(isfinite(c->ci_low) && isfinite(c->ci_high));
    if (c->verdict == BF_VERDICT_UNCLEAR && c->why[0] && !one_run && w > 0 && (size_t)w < n)
        snprintf(buf + w, n - (size_t)w, " (%s)", c->why);
    return buf;
}

/* a comparison's figures: ratio, ci_low, ci_high, p_value (corrected), n_a, n_b and the rest */
static void cmp_figures(const bf_stats_cmp_t *c, json_t *fig)
{
#define NUM(v) (isfinite(v) ? json_real(v) : json_null())
    json_object_set_new(fig, "verdict", json_string(bf_verdict_name(c->verdict)));
    json_object_set_new(fig, "ratio", NUM(c->ratio));
    json_object_set_new(fig, "ci_low", NUM(c->ci_low));
    json_object_set_new(fig, "ci_high", NUM(c->ci_high));
    json_object_set_new(fig, "ci_level", NUM(c->ci_level));
    json_object_set_new(fig, "ci_within_run", json_boolean(c->within_run));
    json_object_set_new(fig, "p_value", NUM(c->p_adj));
    json_object_set_new(fig, "p_value_raw", NUM(c->p_value));
    json_object_set_new(fig, "n_a", json_integer((json_int_t)c->n_a));
    json_object_set_new(fig, "n_b", json_integer((json_int_t)c->n_b));
    json_object_set_new(fig, "need_repeat",
                        c->need_reps ? json_integer(c->need_reps) : json_null());
    json_object_set_new(fig, "why", json_string(c->why));
#undef NUM
}

typedef struct ratios {
    double *v; /* docs/s ratios, sorted by ratios_median */
    size_t n;
    bf_stats_cmp_t *c; /* each pair's test, in the order added */
    size_t nc;
} ratios;

/* the pair a over b: its docs/s ratio and its test */
static void ratios_add(bf_findings_t *f, ratios *r, const bf_finding_point_t *a,
                       const bf_finding_point_t *b)
{
    double v = a->docs_per_s / b->docs_per_s;
    if (!isfinite(v))
        return;
    r->v = bf_realloc(r->v, (r->n + 1) * sizeof *r->v);
    r->v[r->n++] = v;
    r->c = bf_realloc(r->c, (r->nc + 1) * sizeof *r->c);
    if (pair_test(f, a, b, &r->c[r->nc]))
        r->nc++;
}

/* a pair whose test was already made (the same two cells stated elsewhere) */
static void ratios_add_known(ratios *r, double v, const bf_stats_cmp_t *c)
{
    if (!isfinite(v))
        return;
    r->v = bf_realloc(r->v, (r->n + 1) * sizeof *r->v);
    r->v[r->n++] = v;
    r->c = bf_realloc(r->c, (r->nc + 1) * sizeof *r->c);
    r->c[r->nc++] = *c;
}

static void ratios_free(ratios *r)
{
    free(r->v);
    free(r->c);
}

/* the verdict of a set of like-for-like pairs: the pairs' when they all agree, else unclear
 * saying how they split; into *out (the single pair's test when there is one) */
static void ratios_verdict(const ratios *r, bf_stats_cmp_t *out)
{
    memset(out, 0, sizeof *out);
    out->ratio = out->ci_low = out->ci_high = out->ci_level = NAN;
    out->p_value = out->p_adj = out->log_sd = NAN;
    if (r->nc == 1) {
        *out = r->c[0];
        return;
    }
    size_t cnt[4] = {0};
    double *rv = bf_malloc((r->nc + 1) * sizeof *rv);
    for (size_t i = 0; i < r->nc; i++) {
        cnt[r->c[i].verdict]++;
        rv[i] = r->c[i].ratio;
        out->n_a += r->c[i].n_a;
        out->n_b += r->c[i].n_b;
    }
    double gm = NAN, lo = NAN, hi = NAN;
    if (r->nc && bf_stats_geomean_ci(rv, r->nc, 0.95, &gm, &lo, &hi) == BF_OK) {
        out->ratio = gm;
        out->ci_low = lo;
        out->ci_high = hi;
        out->ci_level = isfinite(lo) ? 0.95 : NAN;
    }
    free(rv);
    out->verdict = BF_VERDICT_UNCLEAR;
    for (int v = 0; v < 4; v++)
        if (r->nc && cnt[v] == r->nc)
            out->verdict = (bf_verdict_t)v;
    if (out->verdict == BF_VERDICT_UNCLEAR && r->nc && cnt[BF_VERDICT_UNCLEAR] < r->nc) {
        size_t used = 0;
        static const bf_verdict_t order[] = {BF_VERDICT_HIGHER, BF_VERDICT_LOWER, BF_VERDICT_SAME,
                                             BF_VERDICT_UNCLEAR};
        for (size_t k = 0; k < 4; k++) {
            if (cnt[order[k]] == 0 || used >= sizeof out->why)
                continue;
            int w = snprintf(out->why + used, sizeof out->why - used, "%s%zu %s",
                             used ? ", " : "the cells disagree: ", cnt[order[k]],
                             bf_verdict_name(order[k]));
            used += w > 0 ? (size_t)w : 0;
        }
    }
}

static double ratios_median(ratios *r)
{
    qsort(r->v, r->n, sizeof *r->v, cmp_dbl);
    return r->n % 2 ? r->v[r->n / 2] : (r->v[r->n / 2 - 1] + r->v[r->n / 2]) / 2.0;
}

static json_t *ratios_json(ratios *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "pairs", json_integer((json_int_t)r->n));
    if (r->n) {
        double med = ratios_median(r);
        json_object_set_new(o, "min", json_real(r->v[0]));
        json_object_set_new(o, "median", json_real(med));
        json_object_set_new(o, "max", json_real(r->v[r->n - 1]));
    }
    bf_stats_cmp_t all;
    ratios_verdict(r, &all);
    cmp_figures(&all, o);
    return o;
}

/* "2.10x (1 matching cell)" or "1.59x to 3.30x, median 2.10x (4 matching cells)"; with
 * "; one run, no noise estimate" inside the parentheses when no cell ran repetitions (as
 * compare says it: a single run's ratio may be run-order or machine noise) */
static void ratios_text(const bf_findings_t *f, ratios *r, char *buf, size_t n)
{
    (void)f;
    bf_stats_cmp_t all;
    ratios_verdict(r, &all);
    char cl[400];
    if (r->n == 0) {
        snprintf(buf, n, "no matching cells");
    } else if (r->nc == 1) {
        snprintf(buf, n, "%s", cmp_clause(&r->c[0], cl, sizeof cl));
    } else {
        double med = ratios_median(r);
        char lo[32], hi[32];
        snprintf(lo, sizeof lo, "%.2f", r->v[0]);
        snprintf(hi, sizeof hi, "%.2f", r->v[r->n - 1]);
        snprintf(cl, sizeof cl, "%s%s%s", bf_verdict_name(all.verdict), all.why[0] ? ": " : "",
                 all.why);
        if (strcmp(lo, hi) == 0) /* "0.80x to 0.80x, median 0.80x" says less than this */
            snprintf(buf, n, "%sx in all %zu matching cells (%s)", lo, r->n, cl);
        else
            snprintf(buf, n, "%.2fx to %.2fx, median %.2fx (%zu matching cells: %s)", r->v[0],
                     r->v[r->n - 1], med, r->n, cl);
    }
}

static int vary_indices(const bf_findings_t *f)
{
    long first = -1;
    for (size_t i = 0; i < f->n; i++) {
        if (f->pts[i].excluded)
            continue;
        if (first < 0)
            first = (long)f->pts[i].indices;
        else if ((long)f->pts[i].indices != first)
            return 1;
    }
    return 0;
}

/* index of the best point at shards s (and indices idx unless idx == 0; no rejections unless
 * allow_rej), or -1 */
static long best_at(const bf_findings_t *f, uint32_t s, uint32_t idx, int allow_rej)
{
    long best = -1;
    for (size_t i = 0; i < f->n; i++) {
        const bf_finding_point_t *p = &f->pts[i];
        if (p->excluded || p->shards != s || (idx && p->indices != idx) ||
            (p->rejections && !allow_rej))
            continue;
        if (best < 0 || p->docs_per_s > f->pts[best].docs_per_s)
            best = (long)i;
    }
    return best;
}

static json_t *point_json(const bf_finding_point_t *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "cell", json_string(p->cell));
    json_object_set_new(o, "shards", json_integer(p->shards));
    json_object_set_new(o, "replicas", json_integer(p->replicas));
    json_object_set_new(o, "indices", json_integer(p->indices));
    json_object_set_new(o, "batch_size", json_integer(p->batch_size));
    json_object_set_new(o, "concurrency", json_integer(p->concurrency));
    json_object_set_new(o, "docs_per_s", json_real(p->docs_per_s));
    json_object_set_new(o, "service_p50_ms",
                        isfinite(p->service_p50_ms) ? json_real(p->service_p50_ms) : json_null());
    json_object_set_new(o, "rejections", json_boolean(p->rejections));
    if (p->index_mismatch)
        json_object_set_new(o, "index_mismatch", json_true());
    return o;
}

/* ---- the findings ------------------------------------------------------------------------- */

/* The lowest value of axis (concurrency or batch_size) on b's line (equal in all but that
 * axis), without rejections, that b gains less than BF_FINDINGS_BEST_MIN_GAIN over; -1 when
 * none. More requests in flight or larger bulks for under 1% are past the knee / plateau. */
static long past_knee(const bf_findings_t *f, long b, const char *axis)
{
    const bf_finding_point_t *pb = &f->pts[b];
    long q = -1;
    for (size_t i = 0; i < f->n; i++) {
        const bf_finding_point_t *p = &f->pts[i];
        if (p->excluded || p->rejections || seed_value(p, axis) >= seed_value(pb, axis) ||
            !same_except(p, pb, axis) || !(p->docs_per_s > 0) ||
            pb->docs_per_s >= p->docs_per_s * (1.0 + BF_FINDINGS_BEST_MIN_GAIN))
            continue;
        if (q < 0 || seed_value(p, axis) < seed_value(&f->pts[q], axis))
            q = (long)i;
    }
    return q;
}

/* "; concurrency 16 reached 2,010 docs/s (+0.5%) at 4.0x the service p50, which is past the
 * knee, not better" into buf, and its figures into fig[key] */
static void past_clause(const bf_finding_point_t *p, const bf_finding_point_t *t, int batch,
                        char *buf, size_t n, json_t *o, json_t *fig)
{
    char num[64], p50[64];
    double gain = t->docs_per_s / p->docs_per_s - 1.0, pr = p50_ratio(p, t);
    if (isfinite(pr))
        snprintf(p50, sizeof p50, " at %.1fx the service p50", pr);
    else
        p50[0] = '\0';
    snprintf(buf, n, "; %s %u reached %s docs/s (%+.1f%%)%s, which is past the %s, not better",
             batch ? "batch" : "concurrency", batch ? t->batch_size : t->concurrency,
             grouped(t->docs_per_s, num, sizeof num), gain * 100.0, p50,
             batch ? "plateau" : "knee");
    json_t *pk = json_object();
    json_object_set_new(pk, "cell", json_string(t->cell));
    json_object_set_new(pk, batch ? "batch_size" : "concurrency",
                        json_integer(batch ? t->batch_size : t->concurrency));
    json_object_set_new(pk, "docs_per_s", json_real(t->docs_per_s));
    json_object_set_new(pk, "gain", json_real(gain));
    json_object_set_new(pk, "p50_ratio", isfinite(pr) ? json_real(pr) : json_null());
    const char *key = batch ? "past_plateau" : "past_knee";
    json_object_set(o, key, pk);
    json_object_set_new(fig, key, pk);
}

/* The knee of p's line (equal in all but concurrency): the point before the first step that
 * gains less than BF_FINDINGS_KNEE_GAIN, or -1 when the line keeps growing (as find_steps). */
static long knee_of(const bf_findings_t *f, const bf_finding_point_t *p)
{
    long prev = -1;
    for (;;) { /* walk the line in order of concurrency without sorting a copy */
        long next = -1;
        for (size_t i = 0; i < f->n; i++) {
            const bf_finding_point_t *q = &f->pts[i];
            if (q->excluded || !same_except(q, p, "concurrency") ||
                (prev >= 0 && q->concurrency <= f->pts[prev].concurrency))
                continue;
            if (next < 0 || q->concurrency < f->pts[next].concurrency)
                next = (long)i;
        }
        if (next < 0)
            return -1;
        if (prev >= 0) {
            double a = f->pts[prev].docs_per_s, b = f->pts[next].docs_per_s;
            if (!(a > 0 ? b / a - 1.0 >= BF_FINDINGS_KNEE_GAIN : 1))
                return prev;
        }
        prev = next;
    }
}

static void find_best(bf_findings_t *f, const uint32_t *shards, size_t ns)
{
    char num[64], num2[64], label[300], group[64], p50[64];
    uint32_t *idx = bf_calloc(f->n + 1, sizeof *idx);
    size_t ni = vary_indices(f) ? distinct(f, offsetof(bf_finding_point_t, indices), idx) : 1;
    for (size_t k = 0; k < ns; k++) {
        for (size_t x = 0; x < ni; x++) {
            uint32_t want_idx = vary_indices(f) ? idx[x] : 0;
            long b = best_at(f, shards[k], want_idx, 0);
            int rejected = b < 0;
            if (rejected)
                b = best_at(f, shards[k], want_idx, 1);
            if (b < 0)
                continue; /* no cell with this shard and index count */
            long top = b, q = rejected ? -1 : past_knee(f, b, "concurrency");
            if (q >= 0)
                b = q;
            long topb = b, qb = rejected ? -1 : past_knee(f, b, "batch_size");
            if (qb >= 0)
                b = qb;
            const bf_finding_point_t *p = &f->pts[b];
            json_t *o = point_json(p);
            json_object_set_new(o, "all_rejected", json_boolean(rejected));
            json_array_append_new(f->best, o);
            bf_findings_line_label(f->pts, f->n, p, label, sizeof label);
            if (want_idx)
                snprintf(group, sizeof group, "%u %s, %u %s", p->shards, shards_word(p->shards),
                         p->indices, p->indices == 1 ? "index" : "indices");
            else
                snprintf(group, sizeof group, "%u %s", p->shards, shards_word(p->shards));
            json_t *fig = json_object();
            json_object_set_new(fig, "cell", json_string(p->cell));
            json_object_set_new(fig, "axes", at_json(p, NULL));
            json_object_set_new(fig, "docs_per_s", json_real(p->docs_per_s));
            json_object_set_new(fig, "service_p50_ms",
                                isfinite(p->service_p50_ms) ? json_real(p->service_p50_ms)
                                                            : json_null());
            json_object_set_new(fig, "all_rejected", json_boolean(rejected));
            if (rejected) {
                add_line(f,
                         "%s: every cell saw rejections or errors; the highest was %s docs/s with "
                         "%s at concurrency %u.",
                         group, grouped(p->docs_per_s, num, sizeof num), label, p->concurrency);
            } else if (q >= 0 || qb >= 0) {
                char c1[300] = "", c2[300] = "";
                if (q >= 0)
                    past_clause(&f->pts[q], &f->pts[top], 0, c1, sizeof c1, o, fig);
                if (qb >= 0)
                    past_clause(p, &f->pts[topb], 1, c2, sizeof c2, o, fig);
                add_line(f,
                         "%s: best without rejections or errors is %s docs/s with %s at "
                         "concurrency %u%s%s.",
                         group, grouped(p->docs_per_s, num, sizeof num), label, p->concurrency, c1,
                         c2);
            } else {
                /* beyond its line's knee: say what the last steps cost, so best and knee agree */
                long kn = knee_of(f, p);
                char tail[200] = "";
                if (kn >= 0 && f->pts[kn].concurrency < p->concurrency && !f->pts[kn].rejections) {
                    const bf_finding_point_t *a = &f->pts[kn];
                    double pr = p50_ratio(a, p);
                    if (isfinite(pr))
                        snprintf(p50, sizeof p50, " at %.1fx the service p50", pr);
                    else
                        p50[0] = '\0';
                    snprintf(tail, sizeof tail,
                             ", past its knee at concurrency %u (%s docs/s): "
                             "%+.0f%%%s",
                             a->concurrency, grouped(a->docs_per_s, num2, sizeof num2),
                             (p->docs_per_s / a->docs_per_s - 1.0) * 100.0, p50);
                    json_t *pk = json_object();
                    json_object_set_new(pk, "knee_concurrency", json_integer(a->concurrency));
                    json_object_set_new(pk, "knee_docs_per_s", json_real(a->docs_per_s));
                    json_object_set_new(pk, "gain", json_real(p->docs_per_s / a->docs_per_s - 1.0));
                    json_object_set_new(pk, "p50_ratio",
                                        isfinite(pr) ? json_real(pr) : json_null());
                    json_object_set_new(fig, "beyond_knee", pk);
                }
                add_line(f,
                         "%s: best without rejections or errors is %s docs/s with %s at "
                         "concurrency %u%s.",
                         group, grouped(p->docs_per_s, num, sizeof num), label, p->concurrency,
                         tail);
            }
            json_t *at = json_object();
            json_object_set_new(at, "shards", json_integer(p->shards));
            if (want_idx)
                json_object_set_new(at, "indices", json_integer(p->indices));
            add_item(f, "best", NULL, at, fig);
        }
    }
    free(idx);
}

static int cmp_along_conc(const void *x, const void *y)
{
    const bf_finding_point_t *a = *(const bf_finding_point_t *const *)x;
    const bf_finding_point_t *b = *(const bf_finding_point_t *const *)y;
    return (a->concurrency > b->concurrency) - (a->concurrency < b->concurrency);
}

static int cmp_along_batch(const void *x, const void *y)
{
    const bf_finding_point_t *a = *(const bf_finding_point_t *const *)x;
    const bf_finding_point_t *b = *(const bf_finding_point_t *const *)y;
    return (a->batch_size > b->batch_size) - (a->batch_size < b->batch_size);
}

/* a line that kept growing (no knee / plateau), said after its shard count's other lines */
typedef struct grow {
    char label[300];
    uint32_t av, bv; /* the last step: from av to bv */
    double gain;
    bf_stats_cmp_t c; /* the last step's test */
    json_t *at, *fig; /* owned until flushed into an item */
} grow;

#define BF_FINDINGS_MERGE_LINES 3 /* this many growing lines of a shard count: one sentence */

static void flush_growing(bf_findings_t *f, uint32_t shards, int batch, grow *g, size_t ng)
{
    const char *axis = batch ? "batch_size" : "concurrency";
    if (ng >= BF_FINDINGS_MERGE_LINES) {
        char labels[700] = "";
        size_t used = 0;
        uint32_t upto = 0;
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < ng; i++) {
            upto = g[i].bv > upto ? g[i].bv : upto;
            lo = g[i].gain < lo ? g[i].gain : lo;
            hi = g[i].gain > hi ? g[i].gain : hi;
            if (i < 4 && used < sizeof labels) {
                int w = snprintf(labels + used, sizeof labels - used, "%s%s", i ? "; " : "",
                                 g[i].label);
                used += w > 0 ? (size_t)w : 0;
            }
        }
        size_t nh = 0;
        for (size_t i = 0; i < ng; i++)
            nh += g[i].c.verdict == BF_VERDICT_HIGHER;
        add_line(f,
                 "%u %s: no %s up to %s %u on %zu lines (%s%s); their last steps still added "
                 "%+.0f%% to %+.0f%% (%zu of %zu higher by the test, the others unclear or "
                 "not).",
                 shards, shards_word(shards), batch ? "plateau" : "knee",
                 batch ? "batch" : "concurrency", upto, ng, labels, ng > 4 ? "; ..." : "",
                 lo * 100.0, hi * 100.0, nh, ng);
        for (size_t i = 0; i < ng; i++) {
            add_item(f, batch ? "plateau" : "knee", axis, g[i].at, g[i].fig);
            item_verdict(f, &g[i].c);
        }
        return;
    }
    for (size_t i = 0; i < ng; i++) {
        char cl[400];
        cmp_clause(&g[i].c, cl, sizeof cl);
        if (batch)
            add_line(f,
                     "%u %s, %s: no plateau up to batch %u; the last step from %u still added "
                     "%+.0f%%: %s.",
                     shards, shards_word(shards), g[i].label, g[i].bv, g[i].av, g[i].gain * 100.0,
                     cl);
        else
            add_line(f,
                     "%u %s, %s: no knee up to concurrency %u; the last step from %u still "
                     "added %+.0f%%: %s.",
                     shards, shards_word(shards), g[i].label, g[i].bv, g[i].av, g[i].gain * 100.0,
                     cl);
        add_item(f, batch ? "plateau" : "knee", axis, g[i].at, g[i].fig);
        item_verdict(f, &g[i].c);
    }
}

/* Along concurrency (the knee) or batch size (the plateau), per shard count and line (equal in
 * every other axis): the first step that gains less than BF_FINDINGS_KNEE_GAIN. Lines that
 * keep growing come after the shard count's knees, in one sentence when there are
 * BF_FINDINGS_MERGE_LINES or more. */
static void find_steps(bf_findings_t *f, const uint32_t *shards, size_t ns, int batch)
{
    const char *axis = batch ? "batch_size" : "concurrency";
    const bf_finding_point_t **line = bf_calloc(f->n + 1, sizeof *line);
    uint8_t *done = bf_calloc(f->n + 1, 1);
    grow *gr = bf_calloc(f->n + 1, sizeof *gr);
    size_t ng = 0;
    char label[300], num[64], p50[64];
    for (size_t k = 0; k < ns; k++) {
        memset(done, 0, f->n);
        for (size_t i = 0; i < f->n; i++) {
            const bf_finding_point_t *head = &f->pts[i];
            if (done[i] || head->excluded || head->shards != shards[k])
                continue;
            size_t m = 0;
            for (size_t j = i; j < f->n; j++) {
                const bf_finding_point_t *q = &f->pts[j];
                if (!done[j] && !q->excluded && same_except(head, q, axis)) {
                    done[j] = 1;
                    line[m++] = q;
                }
            }
            if (m < 2)
                continue;
            qsort(line, m, sizeof *line, batch ? cmp_along_batch : cmp_along_conc);
            /* two batch sizes that still grow: the batch gain line says it already */
            if (batch && m == 2 &&
                !(line[0]->docs_per_s > 0 &&
                  line[1]->docs_per_s / line[0]->docs_per_s - 1.0 < BF_FINDINGS_KNEE_GAIN))
                continue;
            bf_findings_label(f->pts, f->n, head, axis, 0, label, sizeof label);
            json_t *o = json_object();
            json_object_set_new(o, "shards", json_integer(shards[k]));
            json_object_set_new(o, "line", json_string(label));
            size_t knee = 0;
            double gain = NAN;
            for (size_t s = 1; s < m; s++) {
                double prev = line[s - 1]->docs_per_s;
                gain = prev > 0 ? line[s]->docs_per_s / prev - 1.0 : INFINITY;
                if (gain < BF_FINDINGS_KNEE_GAIN) {
                    knee = s;
                    break;
                }
            }
            const char *kk = batch ? "plateau_batch_size" : "knee_concurrency";
            const char *nk = batch ? "next_batch_size" : "next_concurrency";
            const bf_finding_point_t *a = knee ? line[knee - 1] : line[m - 2];
            const bf_finding_point_t *b = knee ? line[knee] : line[m - 1];
            uint32_t av = batch ? a->batch_size : a->concurrency;
            uint32_t bv = batch ? b->batch_size : b->concurrency;
            double pr = p50_ratio(a, b);
            if (isfinite(pr))
                snprintf(p50, sizeof p50, " at %.1fx the service p50", pr);
            else
                p50[0] = '\0';
            /* the step from a to b as a test: a knee or plateau is stated only when the step
             * is not higher (same or lower), else the finding says it is unclear */
            bf_stats_cmp_t st;
            char cl[400];
            if (!pair_test(f, b, a, &st)) {
                memset(&st, 0, sizeof st);
                st.ratio = a->docs_per_s > 0 ? b->docs_per_s / a->docs_per_s : NAN;
                st.ci_low = st.ci_high = st.ci_level = st.p_value = st.p_adj = NAN;
            }
            cmp_clause(&st, cl, sizeof cl);
            /* the change the sentence states is the test's ratio, the figure of the clause
             * after it ("-25%: 0.75x (...)"), not the cells' docs/s beside it (a row's median
             * and the runs' ratio differ: "-49 %, ... but the step is 0.75x" read as two
             * answers); the cells' own gain stays in the figures */
            double say = isfinite(st.ratio) ? st.ratio - 1.0 : gain;
            int stated = knee && (st.verdict == BF_VERDICT_SAME || st.verdict == BF_VERDICT_LOWER);
            json_t *fig = json_object();
            json_object_set_new(o, kk, knee ? json_integer(av) : json_null());
            json_object_set_new(o, nk, knee ? json_integer(bv) : json_null());
            json_object_set_new(o, "gain", json_real(gain));
            json_object_set_new(o, "growing", json_boolean(!knee));
            json_object_set_new(fig, kk, knee ? json_integer(av) : json_null());
            json_object_set_new(fig, nk, knee ? json_integer(bv) : json_null());
            json_object_set_new(fig, "docs_per_s", json_real(a->docs_per_s));
            json_object_set_new(fig, "next_docs_per_s", json_real(b->docs_per_s));
            json_object_set_new(fig, "gain", json_real(gain));
            json_object_set_new(fig, "p50_ratio", isfinite(pr) ? json_real(pr) : json_null());
            json_object_set_new(fig, "growing", json_boolean(!knee));
            json_object_set_new(fig, "stated", json_boolean(stated));
            json_object_set_new(o, "stated", json_boolean(stated));
            json_t *pts = json_array();
            for (size_t s = 0; s < m; s++) {
                json_t *pt = json_object();
                json_object_set_new(
                    pt, axis, json_integer(batch ? line[s]->batch_size : line[s]->concurrency));
                json_object_set_new(pt, "docs_per_s", json_real(line[s]->docs_per_s));
                json_array_append_new(pts, pt);
            }
            json_object_set_new(fig, "points", pts);
            if (knee && !stated && say < BF_FINDINGS_KNEE_GAIN)
                add_line(f,
                         "%u %s, %s: no %s stated: going from %s %u (%s docs/s) to %u changes "
                         "docs/s by %+.0f%%%s, less than %.0f%%, but the step is %s.",
                         shards[k], shards_word(shards[k]), label, batch ? "plateau" : "knee",
                         batch ? "batch" : "concurrency", av,
                         grouped(a->docs_per_s, num, sizeof num), bv, say * 100.0, p50,
                         BF_FINDINGS_KNEE_GAIN * 100.0, cl);
            else if (knee && !stated) /* the cells' medians gain less, the runs' ratio not */
                add_line(f,
                         "%u %s, %s: no %s stated: going from %s %u (%s docs/s) to %u changes "
                         "docs/s by %+.0f%%%s: %s.",
                         shards[k], shards_word(shards[k]), label, batch ? "plateau" : "knee",
                         batch ? "batch" : "concurrency", av,
                         grouped(a->docs_per_s, num, sizeof num), bv, say * 100.0, p50, cl);
            else if (knee && !batch)
                add_line(f,
                         "%u %s, %s: docs/s stops growing at concurrency %u (%s docs/s); "
                         "going to %u changes it by %+.0f%%%s: %s.",
                         shards[k], shards_word(shards[k]), label, av,
                         grouped(a->docs_per_s, num, sizeof num), bv, say * 100.0, p50, cl);
            else if (!knee) { /* said after the shard count's lines: one sentence for many */
                json_array_append_new(batch ? f->plateaus : f->knees, o);
                grow *g = &gr[ng++];
                bf_strlcpy(g->label, label, sizeof g->label);
                g->av = av;
                g->bv = bv;
                g->gain = say; /* the runs' ratio, as the clause after it */
                g->c = st;
                g->at = at_json(head, axis);
                g->fig = fig;
                continue;
            } else if (knee)
                add_line(f,
                         "%u %s, %s: docs/s stops growing with batch size at %u (%s docs/s); "
                         "batch %u changes it by %+.0f%%%s: %s.",
                         shards[k], shards_word(shards[k]), label, av,
                         grouped(a->docs_per_s, num, sizeof num), bv, say * 100.0, p50, cl);
            json_array_append_new(batch ? f->plateaus : f->knees, o);
            add_item(f, batch ? "plateau" : "knee", axis, at_json(head, axis), fig);
            item_verdict(f, &st);
        }
        flush_growing(f, shards[k], batch, gr, ng);
        ng = 0;
    }
    free(gr);
    free(done);
    free(line);
}

static void find_shard_ratios(bf_findings_t *f, const uint32_t *shards, size_t ns)
{
    if (ns < 2)
        return;
    uint32_t few = shards[0];
    long bf_ = best_at(f, few, 0, 0);
    if (bf_ < 0)
        bf_ = best_at(f, few, 0, 1);
    char a[64], b[64], text[700];
    for (size_t k = ns - 1; k >= 1; k--) {
        uint32_t many = shards[k];
        long bm = best_at(f, many, 0, 0);
        if (bm < 0)
            bm = best_at(f, many, 0, 1);
        double best_ratio =
            f->pts[bm].docs_per_s > 0 ? f->pts[bf_].docs_per_s / f->pts[bm].docs_per_s : NAN;
        /* the headline: best against best, on their repetitions */
        bf_stats_cmp_t cb;
        char bc[400];
        int tested = pair_test(f, &f->pts[bf_], &f->pts[bm], &cb);
        if (!tested) {
            memset(&cb, 0, sizeof cb);
            cb.ratio = best_ratio;
            cb.ci_low = cb.ci_high = cb.ci_level = cb.p_value = cb.p_adj = NAN;
        }
        ratios r = {0};
        int best_pair = 0;
        for (size_t i = 0; i < f->n; i++) {
            const bf_finding_point_t *p = &f->pts[i];
            if (p->excluded || p->shards != few)
                continue;
            for (size_t j = 0; j < f->n; j++) {
                const bf_finding_point_t *q = &f->pts[j];
                if (q->excluded || q->shards != many || !same_line(p, q, 1) ||
                    q->concurrency != p->concurrency || !(q->docs_per_s > 0))
                    continue;
                if (tested && i == (size_t)bf_ && j == (size_t)bm) { /* the same test once */
                    ratios_add_known(&r, p->docs_per_s / q->docs_per_s, &cb);
                    best_pair = 1;
                } else
                    ratios_add(f, &r, p, q);
            }
        }
        json_t *o = json_object();
        json_object_set_new(o, "fewest", json_integer(few));
        json_object_set_new(o, "other", json_integer(many));
        json_object_set_new(o, "best_ratio",
                            isfinite(best_ratio) ? json_real(best_ratio) : json_null());
        json_object_set_new(o, "like_for_like", ratios_json(&r));
        json_array_append_new(f->shards, o);
        ratios_text(f, &r, text, sizeof text);
        if (best_pair && r.n == 1)
            snprintf(text, sizeof text, "the same two cells");
        add_line(f, "%u %s vs %u %s: best %s vs %s docs/s: %s; like for like %s.", few,
                 shards_word(few), many, shards_word(many),
                 grouped(f->pts[bf_].docs_per_s, a, sizeof a),
                 grouped(f->pts[bm].docs_per_s, b, sizeof b), cmp_clause(&cb, bc, sizeof bc), text);
        json_t *fig = json_deep_copy(o);
        json_t *at = json_object();
        json_object_set_new(at, "shards", json_integer(many));
        add_item(f, "shards", "shards", at, fig);
        item_verdict(f, &cb);
        ratios_free(&r);
    }
}

static void find_batch_gain(bf_findings_t *f, const uint32_t *shards, size_t ns)
{
    uint32_t *batches = bf_calloc(f->n + 1, sizeof *batches);
    char text[700];
    for (size_t k = 0; k < ns; k++) {
        size_t nb = 0;
        for (size_t i = 0; i < f->n; i++) {
            const bf_finding_point_t *p = &f->pts[i];
            if (p->excluded || p->shards != shards[k])
                continue;
            size_t j = 0;
            while (j < nb && batches[j] != p->batch_size)
                j++;
            if (j == nb)
                batches[nb++] = p->batch_size;
        }
        if (nb < 2)
            continue;
        qsort(batches, nb, sizeof *batches, cmp_u32);
        uint32_t small = batches[0], large = batches[nb - 1];
        ratios r = {0};
        for (size_t i = 0; i < f->n; i++) {
            const bf_finding_point_t *p = &f->pts[i];
            if (p->excluded || p->shards != shards[k] || p->batch_size != small)
                continue;
            for (size_t j = 0; j < f->n; j++) {
                const bf_finding_point_t *q = &f->pts[j];
                if (!q->excluded && q->shards == shards[k] && q->batch_size == large &&
                    same_line(p, q, 0) && q->concurrency == p->concurrency && p->docs_per_s > 0)
                    ratios_add(f, &r, q, p);
            }
        }
        json_t *o = json_object();
        json_object_set_new(o, "shards", json_integer(shards[k]));
        json_object_set_new(o, "smallest_batch", json_integer(small));
        json_object_set_new(o, "largest_batch", json_integer(large));
        json_object_set_new(o, "gain", ratios_json(&r));
        json_array_append_new(f->batch, o);
        ratios_text(f, &r, text, sizeof text);
        add_line(f, "%u %s: batch %u over batch %u: %s.", shards[k], shards_word(shards[k]), large,
                 small, text);
        json_t *at = json_object();
        json_object_set_new(at, "shards", json_integer(shards[k]));
        add_item(f, "batch", "batch_size", at, json_deep_copy(o));
        bf_stats_cmp_t all;
        ratios_verdict(&r, &all);
        item_verdict(f, &all);
        ratios_free(&r);
    }
    free(batches);
}

/* "routing_mode=<mode>" replaced by "routing_mode=<to>" in extra (the other axes kept), into
 * out; 0 if extra has no routing_mode=<mode>. */
static int swap_routing(const char *extra, const char *mode, const char *to, char *out,
                        size_t out_size)
{
    char key[48];
    snprintf(key, sizeof key, "routing_mode=%s", mode);
    const char *at = strstr(extra, key);
    size_t kl = strlen(key);
    if (at == NULL || (at[kl] != '\0' && at[kl] != ' ') || (at != extra && at[-1] != ' '))
        return 0;
    snprintf(out, out_size, "%.*srouting_mode=%s%s", (int)(at - extra), extra, to, at + kl);
    return 1;
}

/* routing_mode node (and shard) over none, like for like: same cell but for routing_mode, per
 * shard count (what direct delivery to the primaries' nodes gained). */
static void find_routing_gain(bf_findings_t *f, const uint32_t *shards, size_t ns)
{
    static const char *const modes[] = {"node", "shard"};
    char text[700], other[sizeof f->pts[0].extra];
    for (size_t m = 0; m < 2; m++) {
        for (size_t k = 0; k < ns; k++) {
            ratios r = {0};
            for (size_t i = 0; i < f->n; i++) {
                const bf_finding_point_t *p = &f->pts[i];
                if (p->excluded || p->shards != shards[k] || p->docs_per_s <= 0 ||
                    !swap_routing(p->extra, "none", modes[m], other, sizeof other))
                    continue;
                for (size_t j = 0; j < f->n; j++) {
                    const bf_finding_point_t *q = &f->pts[j];
                    if (!q->excluded && q->shards == p->shards && q->indices == p->indices &&
                        q->replicas == p->replicas && q->batch_size == p->batch_size &&
                        q->concurrency == p->concurrency && strcmp(q->extra, other) == 0)
                        ratios_add(f, &r, q, p);
                }
            }
            if (r.n == 0) {
                ratios_free(&r);
                continue;
            }
            json_t *o = json_object();
            json_object_set_new(o, "shards", json_integer(shards[k]));
            json_object_set_new(o, "routing_mode", json_string(modes[m]));
            json_object_set_new(o, "over_none", ratios_json(&r));
            json_array_append_new(f->routing, o);
            ratios_text(f, &r, text, sizeof text);
            add_line(f, "%u %s: routing_mode %s over none: %s.", shards[k], shards_word(shards[k]),
                     modes[m], text);
            json_t *at = json_object();
            json_object_set_new(at, "shards", json_integer(shards[k]));
            json_object_set_new(at, "routing_mode", json_string(modes[m]));
            add_item(f, "routing", "routing_mode", at, json_deep_copy(o));
            bf_stats_cmp_t all;
            ratios_verdict(&r, &all);
            item_verdict(f, &all);
            ratios_free(&r);
        }
    }
}

/* the names of the other axes (extra) of the usable points, in order of first appearance */
static size_t extra_axes(const bf_findings_t *f, char names[][128], size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < f->n; i++) {
        if (f->pts[i].excluded)
            continue;
        for (const char *t = f->pts[i].extra; *t;) {
            const char *sp = strchr(t, ' ');
            size_t tl = sp ? (size_t)(sp - t) : strlen(t);
            const char *eq = memchr(t, '=', tl);
            if (eq) {
                char nm[128];
                snprintf(nm, sizeof nm, "%.*s", (int)(eq - t), t);
                size_t j = 0;
                while (j < k && strcmp(names[j], nm) != 0)
                    j++;
                if (j == k && k < cap)
                    bf_strlcpy(names[k++], nm, sizeof names[0]);
            }
            if (sp == NULL)
                break;
            t = sp + 1;
        }
    }
    return k;
}

#define BF_FINDINGS_MAX_VALUES 64 /* values of one axis compared (more are left out) */

/* For indices, replicas and every other axis but routing_mode: each value over the first
 * (smallest when all are numbers, else the first seen), like for like (equal in every other
 * axis), over every shard count. */
static void find_axis_ratios(bf_findings_t *f)
{
    char names[34][128];
    bf_strlcpy(names[0], "indices", sizeof names[0]);
    bf_strlcpy(names[1], "replicas", sizeof names[1]);
    size_t nn = 2 + extra_axes(f, names + 2, 32);
    char(*vals)[128] = bf_calloc(BF_FINDINGS_MAX_VALUES, sizeof *vals);
    char text[700], va[256], vb[256];
    for (size_t a = 0; a < nn; a++) {
        const char *axis = names[a];
        if (strcmp(axis, "routing_mode") == 0)
            continue; /* find_routing_gain */
        size_t nv = 0;
        int numeric = 1;
        for (size_t i = 0; i < f->n; i++) {
            if (f->pts[i].excluded)
                continue;
            axis_text(&f->pts[i], axis, va, sizeof va);
            if (va[0] == '\0')
                continue;
            size_t j = 0;
            while (j < nv && strcmp(vals[j], va) != 0)
                j++;
            if (j == nv && nv < BF_FINDINGS_MAX_VALUES) {
                bf_strlcpy(vals[nv++], va, sizeof vals[0]);
                numeric &= isfinite(bf_finding_point_axis(&f->pts[i], axis));
            }
        }
        if (nv < 2)
            continue;
        if (numeric) /* insertion sort by value */
            for (size_t x = 1; x < nv; x++)
                for (size_t y = x; y > 0 && strtod(vals[y], NULL) < strtod(vals[y - 1], NULL);
                     y--) {
                    char tmp[128];
                    memcpy(tmp, vals[y], sizeof tmp);
                    memcpy(vals[y], vals[y - 1], sizeof tmp);
                    memcpy(vals[y - 1], tmp, sizeof tmp);
                }
        int seed = is_seed_axis(axis);
        for (size_t v = 1; v < nv; v++) {
            ratios r = {0};
            for (size_t i = 0; i < f->n; i++) {
                const bf_finding_point_t *p = &f->pts[i];
                axis_text(p, axis, va, sizeof va);
                if (p->excluded || strcmp(va, vals[0]) != 0 || !(p->docs_per_s > 0))
                    continue;
                for (size_t j = 0; j < f->n; j++) {
                    const bf_finding_point_t *q = &f->pts[j];
                    axis_text(q, axis, vb, sizeof vb);
                    if (!q->excluded && strcmp(vb, vals[v]) == 0 && same_except(p, q, axis))
                        ratios_add(f, &r, q, p);
                }
            }
            if (r.n == 0) {
                ratios_free(&r);
                continue;
            }
            ratios_text(f, &r, text, sizeof text);
            if (seed)
                add_line(f, "%s %s over %s %s: %s.", axis, vals[v], axis, vals[0], text);
            else
                add_line(f, "%s=%s over %s=%s: %s.", axis, vals[v], axis, vals[0], text);
            json_t *o = json_object();
            json_object_set_new(o, "axis", json_string(axis));
            json_object_set_new(o, "value", json_string(vals[v]));
            json_object_set_new(o, "reference", json_string(vals[0]));
            json_object_set_new(o, "like_for_like", ratios_json(&r));
            json_array_append_new(f->axes, o);
            json_t *at = json_object();
            json_object_set_new(
                at, axis, seed ? json_integer(strtol(vals[v], NULL, 10)) : json_string(vals[v]));
            json_t *fig = json_object();
            json_object_set_new(fig, "reference",
                                seed ? json_integer(strtol(vals[0], NULL, 10))
                                     : json_string(vals[0]));
            json_object_set_new(fig, "like_for_like", ratios_json(&r));
            add_item(f, "axis", axis, at, fig);
            bf_stats_cmp_t all;
            ratios_verdict(&r, &all);
            item_verdict(f, &all);
            ratios_free(&r);
        }
    }
    free(vals);
}

/* the best usable point with axis value v (without rejections when there is one), or -1 */
static long best_with(const bf_findings_t *f, const char *axis, const char *v)
{
    long best = -1;
    char t[256];
    for (int allow_rej = 0; allow_rej < 2 && best < 0; allow_rej++)
        for (size_t i = 0; i < f->n; i++) {
            const bf_finding_point_t *p = &f->pts[i];
            if (p->excluded || (p->rejections && !allow_rej) || !(p->docs_per_s > 0))
                continue;
            axis_text(p, axis, t, sizeof t);
            if (strcmp(t, v) == 0 && (best < 0 || p->docs_per_s > f->pts[best].docs_per_s))
                best = (long)i;
        }
    return best;
}

#define BF_FINDINGS_TREND_VALUES 16 /* values of one axis ordered by the trend finding */

/* The trend along a numeric axis of three or more values (shards, replicas, indices, a numeric
 * setting): its values ordered by their best cell's docs/s ("docs/s falls as shards grow:
 * 1 > 6 > 60"), each step of that order tested. Concurrency and batch size have their knees
 * and plateaus instead. */
static void find_axis_trends(bf_findings_t *f)
{
    char names[35][128];
    bf_strlcpy(names[0], "shards", sizeof names[0]);
    bf_strlcpy(names[1], "replicas", sizeof names[1]);
    bf_strlcpy(names[2], "indices", sizeof names[2]);
    size_t nn = 3 + extra_axes(f, names + 3, 32);
    for (size_t a = 0; a < nn; a++) {
        const char *axis = names[a];
        char vals[BF_FINDINGS_TREND_VALUES][64], t[256];
        double num[BF_FINDINGS_TREND_VALUES];
        long best[BF_FINDINGS_TREND_VALUES];
        size_t nv = 0;
        int numeric = 1;
        for (size_t i = 0; i < f->n && numeric; i++) {
            if (f->pts[i].excluded)
                continue;
            axis_text(&f->pts[i], axis, t, sizeof t);
            double d = bf_finding_point_axis(&f->pts[i], axis);
            if (t[0] == '\0' || !isfinite(d)) {
                numeric = 0;
                break;
            }
            size_t j = 0;
            while (j < nv && strcmp(vals[j], t) != 0)
                j++;
            if (j == nv && nv < BF_FINDINGS_TREND_VALUES) {
                bf_strlcpy(vals[nv], t, sizeof vals[0]);
                num[nv++] = d;
            }
        }
        if (!numeric || nv < 3)
            continue;
        /* order by best docs/s, highest first (insertion sort of indices) */
        size_t ord[BF_FINDINGS_TREND_VALUES];
        for (size_t j = 0; j < nv; j++) {
            best[j] = best_with(f, axis, vals[j]);
            ord[j] = j;
        }
        int all = 1;
        for (size_t j = 0; j < nv; j++)
            all &= best[j] >= 0;
        if (!all)
            continue;
        for (size_t x = 1; x < nv; x++)
            for (size_t y = x;
                 y > 0 && f->pts[best[ord[y]]].docs_per_s > f->pts[best[ord[y - 1]]].docs_per_s;
                 y--) {
                size_t tmp = ord[y];
                ord[y] = ord[y - 1];
                ord[y - 1] = tmp;
            }
        int falls = 1, grows = 1;
        for (size_t j = 1; j < nv; j++) {
            falls &= num[ord[j]] > num[ord[j - 1]];
            grows &= num[ord[j]] < num[ord[j - 1]];
        }
        char chain[400] = "", steps[2400] = "";
        size_t cu = 0, su = 0, nhigher = 0;
        json_t *fig = json_object(), *order = json_array(), *sj = json_array();
        for (size_t j = 0; j < nv; j++) {
            int w = snprintf(chain + cu, sizeof chain - cu, "%s%s", j ? " > " : "", vals[ord[j]]);
            cu += w > 0 && (size_t)w < sizeof chain - cu ? (size_t)w : 0;
            json_array_append_new(order, json_string(vals[ord[j]]));
            if (j == 0)
                continue;
            const bf_finding_point_t *hi = &f->pts[best[ord[j - 1]]], *lo = &f->pts[best[ord[j]]];
            bf_stats_cmp_t c;
            char cl[400];
            if (!pair_test(f, hi, lo, &c))
                continue;
            nhigher += c.verdict == BF_VERDICT_HIGHER;
            w = snprintf(steps + su, sizeof steps - su, "; %s %s vs %s: %s", axis, vals[ord[j - 1]],
                         vals[ord[j]], cmp_clause(&c, cl, sizeof cl));
            su += w > 0 && (size_t)w < sizeof steps - su ? (size_t)w : 0;
            json_t *st = json_object();
            json_object_set_new(st, "a", json_string(vals[ord[j - 1]]));
            json_object_set_new(st, "b", json_string(vals[ord[j]]));
            json_object_set_new(st, "cell_a", json_string(hi->cell));
            json_object_set_new(st, "cell_b", json_string(lo->cell));
            cmp_figures(&c, st);
            json_array_append_new(sj, st);
        }
        char head[300];
        if (falls)
            snprintf(head, sizeof head, "docs/s falls as %s grow", axis);
        else if (grows)
            snprintf(head, sizeof head, "docs/s grows with %s", axis);
        else
            snprintf(head, sizeof head, "docs/s by %s", axis);
        add_line(f, "%s: %s by the best cell of each (%zu of %zu steps higher by the test)%s.",
                 head, chain, nhigher, nv - 1, steps);
        json_object_set_new(fig, "order", order);
        json_object_set_new(fig, "direction",
                            json_string(falls   ? "falls"
                                        : grows ? "grows"
                                                : "neither"));
        json_object_set_new(fig, "steps", sj);
        add_item(f, "axis_trend", axis, NULL, fig);
        json_object_set_new(json_array_get(f->items, json_array_size(f->items) - 1), "verdict",
                            json_string(nhigher == nv - 1 ? "higher" : "unclear"));
    }
}

static void choose_main_axis(bf_findings_t *f)
{
    char names[37][128];
    for (size_t i = 0; i < 5; i++)
        bf_strlcpy(
            names[i],
            (const char *[]){"concurrency", "batch_size", "shards", "indices", "replicas"}[i],
            sizeof names[0]);
    size_t nn = 5 + extra_axes(f, names + 5, 32);
    size_t best_n = 0;
    bf_strlcpy(f->main_axis, "concurrency", sizeof f->main_axis);
    double *seen = bf_calloc(f->n + 1, sizeof *seen);
    for (size_t a = 0; a < nn; a++) {
        size_t k = 0;
        int numeric = 1;
        for (size_t i = 0; i < f->n && numeric; i++) {
            if (f->pts[i].excluded)
                continue;
            double v = bf_finding_point_axis(&f->pts[i], names[a]);
            if (!isfinite(v)) {
                numeric = 0;
                break;
            }
            size_t j = 0;
            while (j < k && seen[j] != v)
                j++;
            if (j == k)
                seen[k++] = v;
        }
        if (numeric && k > best_n && k > 1) {
            best_n = k;
            bf_strlcpy(f->main_axis, names[a], sizeof f->main_axis);
        }
    }
    free(seen);
}

#define BF_FINDINGS_NAMED_LEFT_OUT 8 /* cells named in the left-out sentence (then "...") */

/* "Left out of these findings (not a measurement to rank or compare): i1-s2-... (degraded: an
 * agent was lost, not verified); i1-s3-... (failed)." and its item with every cell's why */
static void left_out_line(bf_findings_t *f)
{
    char text[2400] = "";
    size_t used = 0, nleft = 0;
    json_t *cells = json_array();
    for (size_t i = 0; i < f->n; i++) {
        const bf_finding_point_t *p = &f->pts[i];
        if (!p->left_out[0])
            continue;
        if (nleft < BF_FINDINGS_NAMED_LEFT_OUT && used < sizeof text) {
            int w = snprintf(text + used, sizeof text - used, "%s%s (%s)", nleft ? "; " : "",
                             p->cell, p->left_out);
            used += w > 0 ? (size_t)w : 0;
        }
        json_t *c = json_object();
        json_object_set_new(c, "cell", json_string(p->cell));
        json_object_set_new(c, "why", json_string(p->left_out));
        json_array_append_new(cells, c);
        nleft++;
    }
    f->nleft = nleft;
    if (nleft == 0) {
        json_decref(cells);
        return;
    }
    add_line(f, "%zu %s left out of these findings (never best, no knee, plateau or ratio): %s%s.",
             nleft, nleft == 1 ? "cell is" : "cells are", text,
             nleft > BF_FINDINGS_NAMED_LEFT_OUT ? "; ..." : "");
    json_t *fig = json_object();
    json_object_set_new(fig, "cells", cells);
    add_item(f, "left_out", NULL, NULL, fig);
}

/* the outputs of one pass, empty */
static void outputs_reset(bf_findings_t *f)
{
    for (size_t i = 0; i < f->nlines; i++)
        free(f->lines[i]);
    free(f->lines);
    f->lines = NULL;
    f->nlines = 0;
    json_t **arrs[] = {&f->items,  &f->best,  &f->knees, &f->plateaus,
                       &f->shards, &f->batch, &f->axes,  &f->routing};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) {
        json_decref(*arrs[i]);
        *arrs[i] = json_array();
    }
    f->nfew = f->nmismatch = f->nleft = 0;
    f->ntests = 0;
    memset(f->verdicts, 0, sizeof f->verdicts);
}

/* "Verdicts: ..." — how the comparisons above were tested, and what they found */
static void method_line(bf_findings_t *f)
{
    if (f->ntests == 0)
        return;
    const char *corr = bf_stats_correction(f->ntests);
    add_line(
        f,
        "Verdicts: each comparison is a Mann-Whitney U test on the cells' repetitions with a "
        "%.0f %% interval of the ratio (Hodges-Lehmann); p values corrected by %s over the "
        "%zu comparisons stated%s; higher or lower needs p < %.2g and the interval outside "
        "the +-%.0f%% noise band, same needs it inside: %zu higher, %zu lower, %zu same, "
        "%zu unclear%s.",
        (1.0 - f->opts.alpha) * 100.0, corr, f->ntests,
        f->ntests > BF_STATS_HOLM_MAX ? " (many: Benjamini-Hochberg keeps the share of false "
                                        "calls at alpha, where Holm would decide almost none)"
                                      : "",
        f->opts.alpha, f->opts.band * 100.0, f->verdicts[BF_VERDICT_HIGHER],
        f->verdicts[BF_VERDICT_LOWER], f->verdicts[BF_VERDICT_SAME],
        f->verdicts[BF_VERDICT_UNCLEAR],
        f->one_run
            ? ". No cell has more than one run's docs/s: one run a side has no noise estimate (a "
              "within-run interval holds that run's seconds, not the drift between "
              "runs), so every verdict is unclear; run.repeat: 5 or more decides"
            : "");
    json_t *fig = json_object();
    json_object_set_new(fig, "test", json_string("mann-whitney-u"));
    json_object_set_new(fig, "interval", json_string("hodges-lehmann"));
    json_object_set_new(fig, "correction", json_string(corr));
    json_object_set_new(fig, "comparisons", json_integer((json_int_t)f->ntests));
    json_object_set_new(fig, "alpha", json_real(f->opts.alpha));
    json_object_set_new(fig, "noise_band", json_real(f->opts.band));
    json_t *cnt = json_object();
    for (int v = 0; v < 4; v++)
        json_object_set_new(cnt, bf_verdict_name((bf_verdict_t)v),
                            json_integer((json_int_t)f->verdicts[v]));
    json_object_set_new(fig, "verdicts", cnt);
    add_item(f, "method", NULL, NULL, fig);
}

/* one pass over the points: every sentence and item */
static void compute_pass(bf_findings_t *f)
{
    outputs_reset(f);
    size_t n = f->n;
    /* few-requests cells are not ranked: left out like a failed one, and said so */
    char few_cells[600] = "";
    size_t used = 0;
    f->one_run = 1;
    for (size_t i = 0; i < n; i++) {
        bf_finding_point_t *p = &f->pts[i];
        p->excluded = f->excl0[i]; /* as given: pass 1 marks more below */
        if (p->excluded)
            continue;
        if (p->nreps > 1)
            f->one_run = 0;
        if (p->left_out[0]) {
            p->excluded = 1; /* degraded, unverified, mostly errors: said below */
        } else if (p->few_requests) {
            p->excluded = 1;
            if (f->nfew < 5 && used < sizeof few_cells) {
                int w = snprintf(few_cells + used, sizeof few_cells - used, "%s%s",
                                 used ? ", " : "", p->cell);
                used += w > 0 ? (size_t)w : 0;
            }
            f->nfew++;
        } else if (p->index_mismatch) {
            f->nmismatch++;
        }
    }
    if (f->nfew) {
        add_line(f,
                 "%zu %s measured on fewer than %d bulk responses in the window (few-requests: "
                 "%s%s) %s not ranked here; lengthen run.duration or use a smaller batch_size to "
                 "measure %s.",
                 f->nfew, f->nfew == 1 ? "cell" : "cells", BF_FEW_REQUESTS, few_cells,
                 f->nfew > 5 ? ", ..." : "", f->nfew == 1 ? "is" : "are",
                 f->nfew == 1 ? "it" : "them");
        json_t *fig = json_object();
        json_object_set_new(fig, "cells", json_integer((json_int_t)f->nfew));
        json_object_set_new(fig, "min_responses", json_integer(BF_FEW_REQUESTS));
        add_item(f, "few_requests", NULL, NULL, fig);
    }
    left_out_line(f);
    if (f->nmismatch) {
        add_line(f,
                 "%zu %s wrote into indices that already existed with other shards or replicas "
                 "(index-mismatch): these findings use the indices' real numbers, not the "
                 "scenario's.",
                 f->nmismatch, f->nmismatch == 1 ? "cell" : "cells");
        json_t *fig = json_object();
        json_object_set_new(fig, "cells", json_integer((json_int_t)f->nmismatch));
        add_item(f, "index_mismatch", NULL, NULL, fig);
    }
    uint32_t *shards = bf_calloc(n + 1, sizeof *shards);
    size_t ns = distinct(f, offsetof(bf_finding_point_t, shards), shards);
    choose_main_axis(f);
    if (ns == 0) {
        if (f->nfew) /* the cells finished; none had enough bulk responses to rank */
            add_line(f,
                     "No cell with %d+ bulk responses in the window to draw findings from; "
                     "lengthen run.duration or use a smaller batch_size.",
                     BF_FEW_REQUESTS);
        else if (f->nleft)
            add_line(f, "No other cell to draw findings from.");
        else
            add_line(f, "No finished cell to draw findings from.");
    } else {
        find_best(f, shards, ns);
        find_steps(f, shards, ns, 0);
        find_steps(f, shards, ns, 1);
        find_shard_ratios(f, shards, ns);
        find_batch_gain(f, shards, ns);
        find_axis_ratios(f);
        find_routing_gain(f, shards, ns);
        find_axis_trends(f);
    }
    free(shards);
    method_line(f);
}

bf_findings_t *bf_findings_compute(const bf_finding_point_t *pts, size_t n)
{
    return bf_findings_compute_opts(pts, n, NULL);
}

bf_findings_t *bf_findings_compute_opts(const bf_finding_point_t *pts, size_t n,
                                        const bf_findings_opts_t *opts)
{
    bf_findings_t *f = bf_calloc(1, sizeof *f);
    f->pts = bf_calloc(n + 1, sizeof *f->pts);
    if (n)
        memcpy(f->pts, pts, n * sizeof *pts);
    f->n = n;
    f->excl0 = bf_calloc(n + 1, 1);
    for (size_t i = 0; i < n; i++)
        f->excl0[i] = (uint8_t)(pts[i].excluded != 0);
    f->opts.alpha = opts && opts->alpha > 0 && opts->alpha < 1 ? opts->alpha : BF_STATS_ALPHA;
    f->opts.band = opts && opts->band >= 0 && opts->band < 1 ? opts->band : BF_STATS_BAND;
    /* pass 1 collects every test's p; the correction over all of them; pass 2 states them */
    f->pass = 1;
    compute_pass(f);
    f->nstated = f->ntests;
    f->padj = bf_calloc(f->nstated + 1, sizeof *f->padj);
    if (f->nstated)
        bf_stats_adjust(f->praw, f->nstated, f->padj);
    f->pass = 2;
    compute_pass(f);
    return f;
}

void bf_findings_destroy(bf_findings_t **f_p)
{
    if (f_p == NULL || *f_p == NULL)
        return;
    bf_findings_t *f = *f_p;
    for (size_t i = 0; i < f->nlines; i++)
        free(f->lines[i]);
    free(f->lines);
    free(f->pts);
    free(f->praw);
    free(f->excl0);
    free(f->padj);
    free(f->tests);
    json_decref(f->items);
    json_decref(f->best);
    json_decref(f->knees);
    json_decref(f->plateaus);
    json_decref(f->shards);
    json_decref(f->batch);
    json_decref(f->axes);
    json_decref(f->routing);
    free(f);
    *f_p = NULL;
}

const bf_findings_test_t *bf_findings_tests(const bf_findings_t *f, size_t *n)
{
    *n = f->ntested;
    return f->tests;
}

size_t bf_findings_count(const bf_findings_t *f)
{
    return f->nlines;
}

const char *bf_findings_line(const bf_findings_t *f, size_t i)
{
    return i < f->nlines ? f->lines[i] : NULL;
}

const char *bf_findings_main_axis(const bf_findings_t *f)
{
    return f->main_axis;
}

json_t *bf_findings_json(const bf_findings_t *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "main_axis", json_string(f->main_axis));
    json_object_set(o, "items", f->items);
    json_object_set(o, "best", f->best);
    json_object_set(o, "knees", f->knees);
    json_object_set(o, "plateaus", f->plateaus);
    json_object_set(o, "shards", f->shards);
    json_object_set(o, "batch", f->batch);
    json_object_set(o, "axes", f->axes);
    if (json_array_size(f->routing) > 0) /* only campaigns with a routing_mode axis */
        json_object_set(o, "routing", f->routing);
    json_t *lines = json_array();
    for (size_t i = 0; i < f->nlines; i++)
        json_array_append_new(lines, json_string(f->lines[i]));
    json_object_set_new(o, "lines", lines);
    return o;
}

void bf_findings_print_md(const bf_findings_t *f, FILE *out)
{
    fputs("\n## Findings\n\n", out);
    for (size_t i = 0; i < f->nlines; i++)
        fprintf(out, "- %s\n", f->lines[i]);
}
