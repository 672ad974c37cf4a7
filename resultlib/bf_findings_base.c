/* SPDX-License-Identifier: MIT */
/* bf_findings_base.c — what the findings are made of: a point from a row and its axes, the
 * labels of lines, the lines and items said, the tests of the comparisons (pass 1 collects p
 * values, pass 2 states each with its verdict) and the ratios of pairs.
 */
#include "bf_findings_int.h"

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

void bf__cmp_figures(const struct bf_stats_cmp *c, json_t *fig);

static const char *const seed_axes[] = {"indices", "shards", "replicas", "batch_size",
                                        "concurrency"};

int bf__is_seed_axis(const char *name)
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
        if (bf__is_seed_axis(c->axes[i].axis))
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
    /* the reasons are joined by ", " and hold no comma of their own: compare's summary splits
     * them there to name the kinds of row it left out */
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
        "find-max sustain step: open loop at a target rate (not compared with the closed-loop "
        "search steps)");
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

uint32_t bf__seed_value(const bf_finding_point_t *p, const char *name)
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
void bf__axis_text(const bf_finding_point_t *p, const char *name, char *out, size_t out_size)
{
    if (bf__is_seed_axis(name))
        snprintf(out, out_size, "%u", bf__seed_value(p, name));
    else if (!extra_value(p->extra, name, out, out_size))
        out[0] = '\0';
}

double bf_finding_point_axis(const bf_finding_point_t *p, const char *name)
{
    char v[256];
    bf__axis_text(p, name, v, sizeof v);
    if (v[0] == '\0')
        return NAN;
    char *end = NULL;
    double d = strtod(v, &end);
    return end && *end == '\0' && isfinite(d) ? d : NAN;
}

/* a and b equal in every axis but `axis` */
int bf__same_except(const bf_finding_point_t *a, const bf_finding_point_t *b, const char *axis)
{
    for (size_t i = 0; i < sizeof seed_axes / sizeof seed_axes[0]; i++)
        if (strcmp(axis, seed_axes[i]) != 0 &&
            bf__seed_value(a, seed_axes[i]) != bf__seed_value(b, seed_axes[i]))
            return 0;
    if (bf__is_seed_axis(axis))
        return strcmp(a->extra, b->extra) == 0;
    char ea[sizeof a->extra], eb[sizeof b->extra];
    extra_without(a->extra, axis, ea, sizeof ea);
    extra_without(b->extra, axis, eb, sizeof eb);
    return strcmp(ea, eb) == 0;
}

/* same line: equal in every axis but shards and concurrency (and batch when !with_batch) */
int bf__same_line(const bf_finding_point_t *a, const bf_finding_point_t *b, int with_batch)
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

int bf__cmp_u32(const void *x, const void *y)
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
size_t bf__distinct(const bf_findings_t *f, size_t off, uint32_t *out)
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
    qsort(out, k, sizeof *out, bf__cmp_u32);
    return k;
}

void bf__add_line(bf_findings_t *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bf__add_line(bf_findings_t *f, const char *fmt, ...)
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
void bf__add_item(bf_findings_t *f, const char *kind, const char *axis, json_t *at, json_t *figures)
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
void bf__item_verdict(bf_findings_t *f, const bf_stats_cmp_t *c)
{
    json_t *o = json_array_get(f->items, json_array_size(f->items) - 1);
    json_object_set_new(o, "verdict", json_string(bf_verdict_name(c->verdict)));
    bf__cmp_figures(c, json_object_get(o, "figures"));
}

/* every axis value of p but skip's (NULL: all): numbers for the five, strings for the others */
json_t *bf__at_json(const bf_finding_point_t *p, const char *skip)
{
    json_t *o = json_object();
    for (size_t i = 0; i < sizeof seed_axes / sizeof seed_axes[0]; i++)
        if (skip == NULL || strcmp(skip, seed_axes[i]) != 0)
            json_object_set_new(o, seed_axes[i], json_integer(bf__seed_value(p, seed_axes[i])));
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
const char *bf__shards_word(uint32_t n)
{
    return n == 1 ? "shard" : "shards";
}

/* 12345.6 -> "12,346" */
const char *bf__grouped(double v, char *buf, size_t n)
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
double bf__p50_ratio(const bf_finding_point_t *a, const bf_finding_point_t *b)
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
int bf__pair_test(bf_findings_t *f, const bf_finding_point_t *a, const bf_finding_point_t *b,
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
char *bf__cmp_clause(const bf_stats_cmp_t *c, char *buf, size_t n)
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
void bf__cmp_figures(const bf_stats_cmp_t *c, json_t *fig)
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

/* the pair a over b: its docs/s ratio and its test */
void bf__ratios_add(bf_findings_t *f, ratios *r, const bf_finding_point_t *a,
                    const bf_finding_point_t *b)
{
    double v = a->docs_per_s / b->docs_per_s;
    if (!isfinite(v))
        return;
    r->v = bf_realloc(r->v, (r->n + 1) * sizeof *r->v);
    r->v[r->n++] = v;
    r->c = bf_realloc(r->c, (r->nc + 1) * sizeof *r->c);
    if (bf__pair_test(f, a, b, &r->c[r->nc]))
        r->nc++;
}

/* a pair whose test was already made (the same two cells stated elsewhere) */
void bf__ratios_add_known(ratios *r, double v, const bf_stats_cmp_t *c)
{
    if (!isfinite(v))
        return;
    r->v = bf_realloc(r->v, (r->n + 1) * sizeof *r->v);
    r->v[r->n++] = v;
    r->c = bf_realloc(r->c, (r->nc + 1) * sizeof *r->c);
    r->c[r->nc++] = *c;
}

void bf__ratios_free(ratios *r)
{
    free(r->v);
    free(r->c);
}

/* the verdict of a set of like-for-like pairs: the pairs' when they all agree, else unclear
 * saying how they split; into *out (the single pair's test when there is one) */
void bf__ratios_verdict(const ratios *r, bf_stats_cmp_t *out)
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

json_t *bf__ratios_json(ratios *r)
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
    bf__ratios_verdict(r, &all);
    bf__cmp_figures(&all, o);
    return o;
}

/* "2.10x (1 matching cell)" or "1.59x to 3.30x, median 2.10x (4 matching cells)"; with
 * "; one run, no noise estimate" inside the parentheses when no cell ran repetitions (as
 * compare says it: a single run's ratio may be run-order or machine noise) */
void bf__ratios_text(const bf_findings_t *f, ratios *r, char *buf, size_t n)
{
    (void)f;
    bf_stats_cmp_t all;
    bf__ratios_verdict(r, &all);
    char cl[400];
    if (r->n == 0) {
        snprintf(buf, n, "no matching cells");
    } else if (r->nc == 1) {
        snprintf(buf, n, "%s", bf__cmp_clause(&r->c[0], cl, sizeof cl));
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

int bf__vary_indices(const bf_findings_t *f)
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
long bf__best_at(const bf_findings_t *f, uint32_t s, uint32_t idx, int allow_rej)
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

json_t *bf__point_json(const bf_finding_point_t *p)
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
