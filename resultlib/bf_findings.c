/* SPDX-License-Identifier: MIT */
/* bf_findings.c — best cell, knee, shard and batch ratios from the results matrix. */
#include "bf_findings.h"

#include "bf_buf.h"
#include "bf_error.h"
#include "bf_mem.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct bf_findings {
    bf_finding_point_t *pts;
    size_t n;
    char **lines;
    size_t nlines;
    json_t *best, *knees, *shards, *batch, *routing;
};

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
    /* a cell with failed or unknown documents is no candidate for "best" either */
    /* documents accepted on a retry were rejected first: not "without rejections" */
    p->rejections = row->docs_rejected > 0 || row->http_429 > 0 || row->write_rejected > 0 ||
                    row->docs_retried > 0 || bf_row_has_errors(row);
    /* a search-only cell (concurrency 0) indexes nothing: no point for indexing findings */
    /* nor one that missed its target rate: it did not run the load it was asked for */
    p->excluded =
        row->failed || row->aborted || c->concurrency == 0 || row->target_missed || row->stalled;
}

static int64_t jint(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : 0;
}

int bf_finding_point_from_json(json_t *row, bf_finding_point_t *p)
{
    memset(p, 0, sizeof *p);
    if (!json_is_object(row) || !json_is_integer(json_object_get(row, "shards")) ||
        !json_is_integer(json_object_get(row, "batch_size")) ||
        !json_is_integer(json_object_get(row, "concurrency")))
        return BF_E_PARSE;
    const char *cell = json_string_value(json_object_get(row, "cell"));
    bf_strlcpy(p->cell, cell ? cell : "", sizeof p->cell);
    p->indices = (uint32_t)jint(row, "indices");
    p->shards = (uint32_t)jint(row, "shards");
    p->replicas = (uint32_t)jint(row, "replicas");
    p->batch_size = (uint32_t)jint(row, "batch_size");
    p->concurrency = (uint32_t)jint(row, "concurrency");
    size_t used = 0;
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(row, "axes"), k, v) {
        if (is_seed_axis(k) || !json_is_string(v))
            continue;
        int w = snprintf(p->extra + used, sizeof p->extra - used, "%s%s=%s", used ? " " : "", k,
                         json_string_value(v));
        if (w < 0 || (size_t)w >= sizeof p->extra - used)
            break;
        used += (size_t)w;
    }
    json_t *d = json_object_get(row, "docs_per_s");
    p->docs_per_s = json_is_number(d) ? json_number_value(d) : NAN;
    p->rejections = jint(row, "docs_rejected") > 0 || jint(row, "http_429") > 0 ||
                    jint(row, "docs_retried") > 0 || jint(row, "write_rejected") > 0 ||
                    jint(row, "docs_failed") > 0 || jint(row, "docs_unknown") > 0 ||
                    jint(row, "req_transport_error") > 0 ||
                    jint(row, "req_http_error") > jint(row, "http_429");
    p->excluded = json_is_true(json_object_get(row, "failed")) ||
                  json_is_true(json_object_get(row, "aborted")) || !isfinite(p->docs_per_s) ||
                  p->concurrency == 0 || json_is_true(json_object_get(row, "target_missed")) ||
                  json_is_true(json_object_get(row, "stalled"));
    return BF_OK;
}

/* ---- helpers ------------------------------------------------------------------------------ */

/* same line: equal in every axis but shards and concurrency (and batch when !with_batch) */
static int same_line(const bf_finding_point_t *a, const bf_finding_point_t *b, int with_batch)
{
    return a->indices == b->indices && a->replicas == b->replicas &&
           (!with_batch || a->batch_size == b->batch_size) && strcmp(a->extra, b->extra) == 0;
}

char *bf_findings_line_label(const bf_finding_point_t *pts, size_t n, const bf_finding_point_t *p,
                             char *buf, size_t buf_size)
{
    int vary_rep = 0, vary_idx = 0, vary_extra = 0;
    for (size_t i = 0; i < n; i++) {
        vary_rep |= pts[i].replicas != pts[0].replicas;
        vary_idx |= pts[i].indices != pts[0].indices;
        vary_extra |= strcmp(pts[i].extra, pts[0].extra) != 0;
    }
    size_t used = (size_t)snprintf(buf, buf_size, "batch %u", p->batch_size);
    if (vary_rep && used < buf_size)
        used += (size_t)snprintf(buf + used, buf_size - used, ", replicas %u", p->replicas);
    if (vary_idx && used < buf_size)
        used += (size_t)snprintf(buf + used, buf_size - used, ", indices %u", p->indices);
    if (vary_extra && p->extra[0] && used < buf_size)
        snprintf(buf + used, buf_size - used, ", %s", p->extra);
    return buf;
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

typedef struct ratios {
    double *v;
    size_t n;
} ratios;

static void ratios_add(ratios *r, double v)
{
    if (!isfinite(v))
        return;
    r->v = bf_realloc(r->v, (r->n + 1) * sizeof *r->v);
    r->v[r->n++] = v;
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
    return o;
}

/* "2.10x (1 matching cell)" or "1.59x to 3.30x, median 2.10x (4 matching cells)" */
static void ratios_text(ratios *r, char *buf, size_t n)
{
    if (r->n == 0) {
        snprintf(buf, n, "no matching cells");
    } else if (r->n == 1) {
        snprintf(buf, n, "%.2fx (1 matching cell)", r->v[0]);
    } else {
        double med = ratios_median(r);
        snprintf(buf, n, "%.2fx to %.2fx, median %.2fx (%zu matching cells)", r->v[0],
                 r->v[r->n - 1], med, r->n);
    }
}

/* index of the best point at shards s (no rejections unless allow_rej), or -1 */
static long best_at(const bf_findings_t *f, uint32_t s, int allow_rej)
{
    long best = -1;
    for (size_t i = 0; i < f->n; i++) {
        const bf_finding_point_t *p = &f->pts[i];
        if (p->excluded || p->shards != s || (p->rejections && !allow_rej))
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
    json_object_set_new(o, "rejections", json_boolean(p->rejections));
    return o;
}

/* ---- the findings ------------------------------------------------------------------------- */

static void find_best(bf_findings_t *f, const uint32_t *shards, size_t ns)
{
    char num[64], label[300];
    for (size_t k = 0; k < ns; k++) {
        long b = best_at(f, shards[k], 0);
        int rejected = b < 0;
        if (rejected)
            b = best_at(f, shards[k], 1);
        const bf_finding_point_t *p = &f->pts[b];
        json_t *o = point_json(p);
        json_object_set_new(o, "all_rejected", json_boolean(rejected));
        json_array_append_new(f->best, o);
        bf_findings_line_label(f->pts, f->n, p, label, sizeof label);
        if (rejected)
            add_line(
                f,
                "%u %s: every cell saw rejections or errors; the highest was %s docs/s with %s "
                "at concurrency %u.",
                p->shards, shards_word(p->shards), grouped(p->docs_per_s, num, sizeof num), label,
                p->concurrency);
        else
            add_line(f, "%u %s: best without rejections or errors is %s docs/s with %s at concurrency %u.",
                     p->shards, shards_word(p->shards), grouped(p->docs_per_s, num, sizeof num), label, p->concurrency);
    }
}

static int cmp_conc(const void *x, const void *y)
{
    const bf_finding_point_t *a = *(const bf_finding_point_t *const *)x;
    const bf_finding_point_t *b = *(const bf_finding_point_t *const *)y;
    return (a->concurrency > b->concurrency) - (a->concurrency < b->concurrency);
}

static void find_knees(bf_findings_t *f, const uint32_t *shards, size_t ns)
{
    const bf_finding_point_t **line = bf_calloc(f->n + 1, sizeof *line);
    uint8_t *done = bf_calloc(f->n + 1, 1);
    char label[300], num[64];
    for (size_t k = 0; k < ns; k++) {
        memset(done, 0, f->n);
        for (size_t i = 0; i < f->n; i++) {
            const bf_finding_point_t *head = &f->pts[i];
            if (done[i] || head->excluded || head->shards != shards[k])
                continue;
            size_t m = 0;
            for (size_t j = i; j < f->n; j++) {
                const bf_finding_point_t *q = &f->pts[j];
                if (!done[j] && !q->excluded && q->shards == shards[k] && same_line(head, q, 1)) {
                    done[j] = 1;
                    line[m++] = q;
                }
            }
            if (m < 2)
                continue;
            qsort(line, m, sizeof *line, cmp_conc);
            bf_findings_line_label(f->pts, f->n, head, label, sizeof label);
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
            if (knee) {
                const bf_finding_point_t *a = line[knee - 1], *b = line[knee];
                json_object_set_new(o, "knee_concurrency", json_integer(a->concurrency));
                json_object_set_new(o, "next_concurrency", json_integer(b->concurrency));
                json_object_set_new(o, "gain", json_real(gain));
                json_object_set_new(o, "growing", json_false());
                add_line(f, "%u %s, %s: docs/s stops growing at concurrency %u (%s docs/s); "
                         "going to %u changes it by %+.0f%%.", shards[k], shards_word(shards[k]), label, a->concurrency,
                         grouped(a->docs_per_s, num, sizeof num), b->concurrency, gain * 100.0);
            } else {
                const bf_finding_point_t *a = line[m - 2], *b = line[m - 1];
                json_object_set_new(o, "knee_concurrency", json_null());
                json_object_set_new(o, "next_concurrency", json_null());
                json_object_set_new(o, "gain", json_real(gain));
                json_object_set_new(o, "growing", json_true());
                add_line(f, "%u %s, %s: no knee up to concurrency %u; the last step from %u "
                         "still added %+.0f%%.", shards[k], shards_word(shards[k]), label, b->concurrency, a->concurrency,
                         gain * 100.0);
            }
            json_array_append_new(f->knees, o);
        }
    }
    free(done);
    free(line);
}

static void find_shard_ratios(bf_findings_t *f, const uint32_t *shards, size_t ns)
{
    if (ns < 2)
        return;
    uint32_t few = shards[0];
    long bf_ = best_at(f, few, 0);
    if (bf_ < 0)
        bf_ = best_at(f, few, 1);
    char a[64], b[64], text[200];
    for (size_t k = ns - 1; k >= 1; k--) {
        uint32_t many = shards[k];
        long bm = best_at(f, many, 0);
        if (bm < 0)
            bm = best_at(f, many, 1);
        ratios r = {0};
        for (size_t i = 0; i < f->n; i++) {
            const bf_finding_point_t *p = &f->pts[i];
            if (p->excluded || p->shards != few)
                continue;
            for (size_t j = 0; j < f->n; j++) {
                const bf_finding_point_t *q = &f->pts[j];
                if (!q->excluded && q->shards == many && same_line(p, q, 1) &&
                    q->concurrency == p->concurrency && q->docs_per_s > 0)
                    ratios_add(&r, p->docs_per_s / q->docs_per_s);
            }
        }
        double best_ratio = f->pts[bm].docs_per_s > 0 ? f->pts[bf_].docs_per_s / f->pts[bm].docs_per_s : NAN;
        json_t *o = json_object();
        json_object_set_new(o, "fewest", json_integer(few));
        json_object_set_new(o, "other", json_integer(many));
        json_object_set_new(o, "best_ratio", isfinite(best_ratio) ? json_real(best_ratio) : json_null());
        json_object_set_new(o, "like_for_like", ratios_json(&r));
        json_array_append_new(f->shards, o);
        ratios_text(&r, text, sizeof text);
        add_line(f, "%u %s vs %u %s: best %s vs %s docs/s (%.2fx); like for like %s.",
                 few, shards_word(few), many, shards_word(many), grouped(f->pts[bf_].docs_per_s, a, sizeof a),
                 grouped(f->pts[bm].docs_per_s, b, sizeof b), best_ratio, text);
        free(r.v);
    }
}

static void find_batch_gain(bf_findings_t *f, const uint32_t *shards, size_t ns)
{
    uint32_t *batches = bf_calloc(f->n + 1, sizeof *batches);
    char text[200];
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
                    ratios_add(&r, q->docs_per_s / p->docs_per_s);
            }
        }
        json_t *o = json_object();
        json_object_set_new(o, "shards", json_integer(shards[k]));
        json_object_set_new(o, "smallest_batch", json_integer(small));
        json_object_set_new(o, "largest_batch", json_integer(large));
        json_object_set_new(o, "gain", ratios_json(&r));
        json_array_append_new(f->batch, o);
        ratios_text(&r, text, sizeof text);
        add_line(f, "%u %s: batch %u over batch %u: %s.", shards[k], shards_word(shards[k]), large,
                 small, text);
        free(r.v);
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
 * shard count (issue #16: what direct delivery to the primaries' nodes gained). */
static void find_routing_gain(bf_findings_t *f, const uint32_t *shards, size_t ns)
{
    static const char *const modes[] = {"node", "shard"};
    char text[200], other[sizeof f->pts[0].extra];
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
                        ratios_add(&r, q->docs_per_s / p->docs_per_s);
                }
            }
            if (r.n == 0) {
                free(r.v);
                continue;
            }
            json_t *o = json_object();
            json_object_set_new(o, "shards", json_integer(shards[k]));
            json_object_set_new(o, "routing_mode", json_string(modes[m]));
            json_object_set_new(o, "over_none", ratios_json(&r));
            json_array_append_new(f->routing, o);
            ratios_text(&r, text, sizeof text);
            add_line(f, "%u %s: routing_mode %s over none: %s.", shards[k], shards_word(shards[k]),
                     modes[m], text);
            free(r.v);
        }
    }
}

bf_findings_t *bf_findings_compute(const bf_finding_point_t *pts, size_t n)
{
    bf_findings_t *f = bf_calloc(1, sizeof *f);
    f->pts = bf_calloc(n + 1, sizeof *f->pts);
    if (n)
        memcpy(f->pts, pts, n * sizeof *pts);
    f->n = n;
    f->best = json_array();
    f->knees = json_array();
    f->shards = json_array();
    f->batch = json_array();
    f->routing = json_array();
    uint32_t *shards = bf_calloc(n + 1, sizeof *shards);
    size_t ns = distinct(f, offsetof(bf_finding_point_t, shards), shards);
    if (ns == 0) {
        add_line(f, "No finished cell to draw findings from.");
    } else {
        find_best(f, shards, ns);
        find_knees(f, shards, ns);
        find_shard_ratios(f, shards, ns);
        find_batch_gain(f, shards, ns);
        find_routing_gain(f, shards, ns);
    }
    free(shards);
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
    json_decref(f->best);
    json_decref(f->knees);
    json_decref(f->shards);
    json_decref(f->batch);
    json_decref(f->routing);
    free(f);
    *f_p = NULL;
}

size_t bf_findings_count(const bf_findings_t *f)
{
    return f->nlines;
}

const char *bf_findings_line(const bf_findings_t *f, size_t i)
{
    return i < f->nlines ? f->lines[i] : NULL;
}

json_t *bf_findings_json(const bf_findings_t *f)
{
    json_t *o = json_object();
    json_object_set(o, "best", f->best);
    json_object_set(o, "knees", f->knees);
    json_object_set(o, "shards", f->shards);
    json_object_set(o, "batch", f->batch);
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
