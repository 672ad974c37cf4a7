/* SPDX-License-Identifier: MIT */
/* bf_findings_find.c — the findings one by one: the best cell and its knee, where docs/s
 * stops growing along concurrency and batch size, shard and batch ratios, routing gain, the
 * ratios and trends of every other axis. Each states its comparisons through the tests of
 * bf_findings.c.
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
        if (p->excluded || p->rejections || bf__seed_value(p, axis) >= bf__seed_value(pb, axis) ||
            !bf__same_except(p, pb, axis) || !(p->docs_per_s > 0) ||
            pb->docs_per_s >= p->docs_per_s * (1.0 + BF_FINDINGS_BEST_MIN_GAIN))
            continue;
        if (q < 0 || bf__seed_value(p, axis) < bf__seed_value(&f->pts[q], axis))
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
    double gain = t->docs_per_s / p->docs_per_s - 1.0, pr = bf__p50_ratio(p, t);
    if (isfinite(pr))
        snprintf(p50, sizeof p50, " at %.1fx the service p50", pr);
    else
        p50[0] = '\0';
    snprintf(buf, n, "; %s %u reached %s docs/s (%+.1f%%)%s, which is past the %s, not better",
             batch ? "batch" : "concurrency", batch ? t->batch_size : t->concurrency,
             bf__grouped(t->docs_per_s, num, sizeof num), gain * 100.0, p50,
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
            if (q->excluded || !bf__same_except(q, p, "concurrency") ||
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

void bf__find_best(bf_findings_t *f, const uint32_t *shards, size_t ns)
{
    char num[64], num2[64], label[300], group[64], p50[64];
    uint32_t *idx = bf_calloc(f->n + 1, sizeof *idx);
    size_t ni =
        bf__vary_indices(f) ? bf__distinct(f, offsetof(bf_finding_point_t, indices), idx) : 1;
    for (size_t k = 0; k < ns; k++) {
        for (size_t x = 0; x < ni; x++) {
            uint32_t want_idx = bf__vary_indices(f) ? idx[x] : 0;
            long b = bf__best_at(f, shards[k], want_idx, 0);
            int rejected = b < 0;
            if (rejected)
                b = bf__best_at(f, shards[k], want_idx, 1);
            if (b < 0)
                continue; /* no cell with this shard and index count */
            long top = b, q = rejected ? -1 : past_knee(f, b, "concurrency");
            if (q >= 0)
                b = q;
            long topb = b, qb = rejected ? -1 : past_knee(f, b, "batch_size");
            if (qb >= 0)
                b = qb;
            const bf_finding_point_t *p = &f->pts[b];
            json_t *o = bf__point_json(p);
            json_object_set_new(o, "all_rejected", json_boolean(rejected));
            json_array_append_new(f->best, o);
            bf_findings_line_label(f->pts, f->n, p, label, sizeof label);
            if (want_idx)
                snprintf(group, sizeof group, "%u %s, %u %s", p->shards, bf__shards_word(p->shards),
                         p->indices, p->indices == 1 ? "index" : "indices");
            else
                snprintf(group, sizeof group, "%u %s", p->shards, bf__shards_word(p->shards));
            json_t *fig = json_object();
            json_object_set_new(fig, "cell", json_string(p->cell));
            json_object_set_new(fig, "axes", bf__at_json(p, NULL));
            json_object_set_new(fig, "docs_per_s", json_real(p->docs_per_s));
            json_object_set_new(fig, "service_p50_ms",
                                isfinite(p->service_p50_ms) ? json_real(p->service_p50_ms)
                                                            : json_null());
            json_object_set_new(fig, "all_rejected", json_boolean(rejected));
            if (rejected) {
                bf__add_line(
                    f,
                    "%s: every cell saw rejections or errors; the highest was %s docs/s with "
                    "%s at concurrency %u.",
                    group, bf__grouped(p->docs_per_s, num, sizeof num), label, p->concurrency);
            } else if (q >= 0 || qb >= 0) {
                char c1[300] = "", c2[300] = "";
                if (q >= 0)
                    past_clause(&f->pts[q], &f->pts[top], 0, c1, sizeof c1, o, fig);
                if (qb >= 0)
                    past_clause(p, &f->pts[topb], 1, c2, sizeof c2, o, fig);
                bf__add_line(f,
                             "%s: best without rejections or errors is %s docs/s with %s at "
                             "concurrency %u%s%s.",
                             group, bf__grouped(p->docs_per_s, num, sizeof num), label,
                             p->concurrency, c1, c2);
            } else {
                /* beyond its line's knee: say what the last steps cost, so best and knee agree */
                long kn = knee_of(f, p);
                char tail[200] = "";
                if (kn >= 0 && f->pts[kn].concurrency < p->concurrency && !f->pts[kn].rejections) {
                    const bf_finding_point_t *a = &f->pts[kn];
                    double pr = bf__p50_ratio(a, p);
                    if (isfinite(pr))
                        snprintf(p50, sizeof p50, " at %.1fx the service p50", pr);
                    else
                        p50[0] = '\0';
                    snprintf(tail, sizeof tail,
                             ", past its knee at concurrency %u (%s docs/s): "
                             "%+.0f%%%s",
                             a->concurrency, bf__grouped(a->docs_per_s, num2, sizeof num2),
                             (p->docs_per_s / a->docs_per_s - 1.0) * 100.0, p50);
                    json_t *pk = json_object();
                    json_object_set_new(pk, "knee_concurrency", json_integer(a->concurrency));
                    json_object_set_new(pk, "knee_docs_per_s", json_real(a->docs_per_s));
                    json_object_set_new(pk, "gain", json_real(p->docs_per_s / a->docs_per_s - 1.0));
                    json_object_set_new(pk, "p50_ratio",
                                        isfinite(pr) ? json_real(pr) : json_null());
                    json_object_set_new(fig, "beyond_knee", pk);
                }
                bf__add_line(f,
                             "%s: best without rejections or errors is %s docs/s with %s at "
                             "concurrency %u%s.",
                             group, bf__grouped(p->docs_per_s, num, sizeof num), label,
                             p->concurrency, tail);
            }
            json_t *at = json_object();
            json_object_set_new(at, "shards", json_integer(p->shards));
            if (want_idx)
                json_object_set_new(at, "indices", json_integer(p->indices));
            bf__add_item(f, "best", NULL, at, fig);
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
        bf__add_line(f,
                     "%u %s: no %s up to %s %u on %zu lines (%s%s); their last steps still added "
                     "%+.0f%% to %+.0f%% (%zu of %zu higher by the test, the others unclear or "
                     "not).",
                     shards, bf__shards_word(shards), batch ? "plateau" : "knee",
                     batch ? "batch" : "concurrency", upto, ng, labels, ng > 4 ? "; ..." : "",
                     lo * 100.0, hi * 100.0, nh, ng);
        for (size_t i = 0; i < ng; i++) {
            bf__add_item(f, batch ? "plateau" : "knee", axis, g[i].at, g[i].fig);
            bf__item_verdict(f, &g[i].c);
        }
        return;
    }
    for (size_t i = 0; i < ng; i++) {
        char cl[400];
        bf__cmp_clause(&g[i].c, cl, sizeof cl);
        if (batch)
            bf__add_line(f,
                         "%u %s, %s: no plateau up to batch %u; the last step from %u still added "
                         "%+.0f%%: %s.",
                         shards, bf__shards_word(shards), g[i].label, g[i].bv, g[i].av,
                         g[i].gain * 100.0, cl);
        else
            bf__add_line(f,
                         "%u %s, %s: no knee up to concurrency %u; the last step from %u still "
                         "added %+.0f%%: %s.",
                         shards, bf__shards_word(shards), g[i].label, g[i].bv, g[i].av,
                         g[i].gain * 100.0, cl);
        bf__add_item(f, batch ? "plateau" : "knee", axis, g[i].at, g[i].fig);
        bf__item_verdict(f, &g[i].c);
    }
}

/* Along concurrency (the knee) or batch size (the plateau), per shard count and line (equal in
 * every other axis): the first step that gains less than BF_FINDINGS_KNEE_GAIN. Lines that
 * keep growing come after the shard count's knees, in one sentence when there are
 * BF_FINDINGS_MERGE_LINES or more. */
void bf__find_steps(bf_findings_t *f, const uint32_t *shards, size_t ns, int batch)
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
                if (!done[j] && !q->excluded && bf__same_except(head, q, axis)) {
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
            double pr = bf__p50_ratio(a, b);
            if (isfinite(pr))
                snprintf(p50, sizeof p50, " at %.1fx the service p50", pr);
            else
                p50[0] = '\0';
            /* the step from a to b as a test: a knee or plateau is stated only when the step
             * is not higher (same or lower), else the finding says it is unclear */
            bf_stats_cmp_t st;
            char cl[400];
            if (!bf__pair_test(f, b, a, &st)) {
                memset(&st, 0, sizeof st);
                st.ratio = a->docs_per_s > 0 ? b->docs_per_s / a->docs_per_s : NAN;
                st.ci_low = st.ci_high = st.ci_level = st.p_value = st.p_adj = NAN;
            }
            bf__cmp_clause(&st, cl, sizeof cl);
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
                bf__add_line(f,
                             "%u %s, %s: no %s stated: going from %s %u (%s docs/s) to %u changes "
                             "docs/s by %+.0f%%%s, less than %.0f%%, but the step is %s.",
                             shards[k], bf__shards_word(shards[k]), label,
                             batch ? "plateau" : "knee", batch ? "batch" : "concurrency", av,
                             bf__grouped(a->docs_per_s, num, sizeof num), bv, say * 100.0, p50,
                             BF_FINDINGS_KNEE_GAIN * 100.0, cl);
            else if (knee && !stated) /* the cells' medians gain less, the runs' ratio not */
                bf__add_line(f,
                             "%u %s, %s: no %s stated: going from %s %u (%s docs/s) to %u changes "
                             "docs/s by %+.0f%%%s: %s.",
                             shards[k], bf__shards_word(shards[k]), label,
                             batch ? "plateau" : "knee", batch ? "batch" : "concurrency", av,
                             bf__grouped(a->docs_per_s, num, sizeof num), bv, say * 100.0, p50, cl);
            else if (knee && !batch)
                bf__add_line(f,
                             "%u %s, %s: docs/s stops growing at concurrency %u (%s docs/s); "
                             "going to %u changes it by %+.0f%%%s: %s.",
                             shards[k], bf__shards_word(shards[k]), label, av,
                             bf__grouped(a->docs_per_s, num, sizeof num), bv, say * 100.0, p50, cl);
            else if (!knee) { /* said after the shard count's lines: one sentence for many */
                json_array_append_new(batch ? f->plateaus : f->knees, o);
                grow *g = &gr[ng++];
                bf_strlcpy(g->label, label, sizeof g->label);
                g->av = av;
                g->bv = bv;
                g->gain = say; /* the runs' ratio, as the clause after it */
                g->c = st;
                g->at = bf__at_json(head, axis);
                g->fig = fig;
                continue;
            } else if (knee)
                bf__add_line(f,
                             "%u %s, %s: docs/s stops growing with batch size at %u (%s docs/s); "
                             "batch %u changes it by %+.0f%%%s: %s.",
                             shards[k], bf__shards_word(shards[k]), label, av,
                             bf__grouped(a->docs_per_s, num, sizeof num), bv, say * 100.0, p50, cl);
            json_array_append_new(batch ? f->plateaus : f->knees, o);
            bf__add_item(f, batch ? "plateau" : "knee", axis, bf__at_json(head, axis), fig);
            bf__item_verdict(f, &st);
        }
        flush_growing(f, shards[k], batch, gr, ng);
        ng = 0;
    }
    free(gr);
    free(done);
    free(line);
}

void bf__find_shard_ratios(bf_findings_t *f, const uint32_t *shards, size_t ns)
{
    if (ns < 2)
        return;
    uint32_t few = shards[0];
    long bf_ = bf__best_at(f, few, 0, 0);
    if (bf_ < 0)
        bf_ = bf__best_at(f, few, 0, 1);
    char a[64], b[64], text[700];
    for (size_t k = ns - 1; k >= 1; k--) {
        uint32_t many = shards[k];
        long bm = bf__best_at(f, many, 0, 0);
        if (bm < 0)
            bm = bf__best_at(f, many, 0, 1);
        double best_ratio =
            f->pts[bm].docs_per_s > 0 ? f->pts[bf_].docs_per_s / f->pts[bm].docs_per_s : NAN;
        /* the headline: best against best, on their repetitions */
        bf_stats_cmp_t cb;
        char bc[400];
        int tested = bf__pair_test(f, &f->pts[bf_], &f->pts[bm], &cb);
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
                if (q->excluded || q->shards != many || !bf__same_line(p, q, 1) ||
                    q->concurrency != p->concurrency || !(q->docs_per_s > 0))
                    continue;
                if (tested && i == (size_t)bf_ && j == (size_t)bm) { /* the same test once */
                    bf__ratios_add_known(&r, p->docs_per_s / q->docs_per_s, &cb);
                    best_pair = 1;
                } else
                    bf__ratios_add(f, &r, p, q);
            }
        }
        json_t *o = json_object();
        json_object_set_new(o, "fewest", json_integer(few));
        json_object_set_new(o, "other", json_integer(many));
        json_object_set_new(o, "best_ratio",
                            isfinite(best_ratio) ? json_real(best_ratio) : json_null());
        json_object_set_new(o, "like_for_like", bf__ratios_json(&r));
        json_array_append_new(f->shards, o);
        bf__ratios_text(f, &r, text, sizeof text);
        if (best_pair && r.n == 1)
            snprintf(text, sizeof text, "the same two cells");
        bf__add_line(f, "%u %s vs %u %s: best %s vs %s docs/s: %s; like for like %s.", few,
                     bf__shards_word(few), many, bf__shards_word(many),
                     bf__grouped(f->pts[bf_].docs_per_s, a, sizeof a),
                     bf__grouped(f->pts[bm].docs_per_s, b, sizeof b),
                     bf__cmp_clause(&cb, bc, sizeof bc), text);
        json_t *fig = json_deep_copy(o);
        json_t *at = json_object();
        json_object_set_new(at, "shards", json_integer(many));
        bf__add_item(f, "shards", "shards", at, fig);
        bf__item_verdict(f, &cb);
        bf__ratios_free(&r);
    }
}

void bf__find_batch_gain(bf_findings_t *f, const uint32_t *shards, size_t ns)
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
        qsort(batches, nb, sizeof *batches, bf__cmp_u32);
        uint32_t small = batches[0], large = batches[nb - 1];
        ratios r = {0};
        for (size_t i = 0; i < f->n; i++) {
            const bf_finding_point_t *p = &f->pts[i];
            if (p->excluded || p->shards != shards[k] || p->batch_size != small)
                continue;
            for (size_t j = 0; j < f->n; j++) {
                const bf_finding_point_t *q = &f->pts[j];
                if (!q->excluded && q->shards == shards[k] && q->batch_size == large &&
                    bf__same_line(p, q, 0) && q->concurrency == p->concurrency && p->docs_per_s > 0)
                    bf__ratios_add(f, &r, q, p);
            }
        }
        json_t *o = json_object();
        json_object_set_new(o, "shards", json_integer(shards[k]));
        json_object_set_new(o, "smallest_batch", json_integer(small));
        json_object_set_new(o, "largest_batch", json_integer(large));
        json_object_set_new(o, "gain", bf__ratios_json(&r));
        json_array_append_new(f->batch, o);
        bf__ratios_text(f, &r, text, sizeof text);
        bf__add_line(f, "%u %s: batch %u over batch %u: %s.", shards[k], bf__shards_word(shards[k]),
                     large, small, text);
        json_t *at = json_object();
        json_object_set_new(at, "shards", json_integer(shards[k]));
        bf__add_item(f, "batch", "batch_size", at, json_deep_copy(o));
        bf_stats_cmp_t all;
        bf__ratios_verdict(&r, &all);
        bf__item_verdict(f, &all);
        bf__ratios_free(&r);
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
void bf__find_routing_gain(bf_findings_t *f, const uint32_t *shards, size_t ns)
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
                        bf__ratios_add(f, &r, q, p);
                }
            }
            if (r.n == 0) {
                bf__ratios_free(&r);
                continue;
            }
            json_t *o = json_object();
            json_object_set_new(o, "shards", json_integer(shards[k]));
            json_object_set_new(o, "routing_mode", json_string(modes[m]));
            json_object_set_new(o, "over_none", bf__ratios_json(&r));
            json_array_append_new(f->routing, o);
            bf__ratios_text(f, &r, text, sizeof text);
            bf__add_line(f, "%u %s: routing_mode %s over none: %s.", shards[k],
                         bf__shards_word(shards[k]), modes[m], text);
            json_t *at = json_object();
            json_object_set_new(at, "shards", json_integer(shards[k]));
            json_object_set_new(at, "routing_mode", json_string(modes[m]));
            bf__add_item(f, "routing", "routing_mode", at, json_deep_copy(o));
            bf_stats_cmp_t all;
            bf__ratios_verdict(&r, &all);
            bf__item_verdict(f, &all);
            bf__ratios_free(&r);
        }
    }
}

/* the names of the other axes (extra) of the usable points, in order of first appearance */
size_t bf__extra_axes(const bf_findings_t *f, char names[][128], size_t cap)
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
void bf__find_axis_ratios(bf_findings_t *f)
{
    char names[34][128];
    bf_strlcpy(names[0], "indices", sizeof names[0]);
    bf_strlcpy(names[1], "replicas", sizeof names[1]);
    size_t nn = 2 + bf__extra_axes(f, names + 2, 32);
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
            bf__axis_text(&f->pts[i], axis, va, sizeof va);
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
        int seed = bf__is_seed_axis(axis);
        for (size_t v = 1; v < nv; v++) {
            ratios r = {0};
            for (size_t i = 0; i < f->n; i++) {
                const bf_finding_point_t *p = &f->pts[i];
                bf__axis_text(p, axis, va, sizeof va);
                if (p->excluded || strcmp(va, vals[0]) != 0 || !(p->docs_per_s > 0))
                    continue;
                for (size_t j = 0; j < f->n; j++) {
                    const bf_finding_point_t *q = &f->pts[j];
                    bf__axis_text(q, axis, vb, sizeof vb);
                    if (!q->excluded && strcmp(vb, vals[v]) == 0 && bf__same_except(p, q, axis))
                        bf__ratios_add(f, &r, q, p);
                }
            }
            if (r.n == 0) {
                bf__ratios_free(&r);
                continue;
            }
            bf__ratios_text(f, &r, text, sizeof text);
            if (seed)
                bf__add_line(f, "%s %s over %s %s: %s.", axis, vals[v], axis, vals[0], text);
            else
                bf__add_line(f, "%s=%s over %s=%s: %s.", axis, vals[v], axis, vals[0], text);
            json_t *o = json_object();
            json_object_set_new(o, "axis", json_string(axis));
            json_object_set_new(o, "value", json_string(vals[v]));
            json_object_set_new(o, "reference", json_string(vals[0]));
            json_object_set_new(o, "like_for_like", bf__ratios_json(&r));
            json_array_append_new(f->axes, o);
            json_t *at = json_object();
            json_object_set_new(
                at, axis, seed ? json_integer(strtol(vals[v], NULL, 10)) : json_string(vals[v]));
            json_t *fig = json_object();
            json_object_set_new(fig, "reference",
                                seed ? json_integer(strtol(vals[0], NULL, 10))
                                     : json_string(vals[0]));
            json_object_set_new(fig, "like_for_like", bf__ratios_json(&r));
            bf__add_item(f, "axis", axis, at, fig);
            bf_stats_cmp_t all;
            bf__ratios_verdict(&r, &all);
            bf__item_verdict(f, &all);
            bf__ratios_free(&r);
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
            bf__axis_text(p, axis, t, sizeof t);
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
void bf__find_axis_trends(bf_findings_t *f)
{
    char names[35][128];
    bf_strlcpy(names[0], "shards", sizeof names[0]);
    bf_strlcpy(names[1], "replicas", sizeof names[1]);
    bf_strlcpy(names[2], "indices", sizeof names[2]);
    size_t nn = 3 + bf__extra_axes(f, names + 3, 32);
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
            bf__axis_text(&f->pts[i], axis, t, sizeof t);
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
            if (!bf__pair_test(f, hi, lo, &c))
                continue;
            nhigher += c.verdict == BF_VERDICT_HIGHER;
            w = snprintf(steps + su, sizeof steps - su, "; %s %s vs %s: %s", axis, vals[ord[j - 1]],
                         vals[ord[j]], bf__cmp_clause(&c, cl, sizeof cl));
            su += w > 0 && (size_t)w < sizeof steps - su ? (size_t)w : 0;
            json_t *st = json_object();
            json_object_set_new(st, "a", json_string(vals[ord[j - 1]]));
            json_object_set_new(st, "b", json_string(vals[ord[j]]));
            json_object_set_new(st, "cell_a", json_string(hi->cell));
            json_object_set_new(st, "cell_b", json_string(lo->cell));
            bf__cmp_figures(&c, st);
            json_array_append_new(sj, st);
        }
        char head[300];
        if (falls)
            snprintf(head, sizeof head, "docs/s falls as %s grow", axis);
        else if (grows)
            snprintf(head, sizeof head, "docs/s grows with %s", axis);
        else
            snprintf(head, sizeof head, "docs/s by %s", axis);
        bf__add_line(f, "%s: %s by the best cell of each (%zu of %zu steps higher by the test)%s.",
                     head, chain, nhigher, nv - 1, steps);
        json_object_set_new(fig, "order", order);
        json_object_set_new(fig, "direction",
                            json_string(falls   ? "falls"
                                        : grows ? "grows"
                                                : "neither"));
        json_object_set_new(fig, "steps", sj);
        bf__add_item(f, "axis_trend", axis, NULL, fig);
        json_object_set_new(json_array_get(f->items, json_array_size(f->items) - 1), "verdict",
                            json_string(nhigher == nv - 1 ? "higher" : "unclear"));
    }
}
