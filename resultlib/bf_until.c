/* SPDX-License-Identifier: MIT */
/* bf_until.c — the stopping rule of run.repeat: auto (bf_until.h). */
#include "bf_until.h"

#include "bf_stats.h"

#include "bf_mem.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* append ", " (unless first) and the formatted text to buf at *used */
static void put(char *buf, size_t size, size_t *used, const char *text)
{
    if (*used >= size)
        return;
    int w = snprintf(buf + *used, size - *used, "%s%s", *used ? ", " : "", text);
    *used += w > 0 ? (size_t)w : 0;
    if (*used >= size)
        *used = size - 1;
}

/* the value of other axis `name` in an "a=1 b=x" list into out ("" when absent) */
static void extra_of(const char *extra, const char *name, size_t nlen, char *out, size_t size)
{
    out[0] = '\0';
    for (const char *t = extra; t && *t;) {
        const char *sp = strchr(t, ' ');
        size_t tl = sp ? (size_t)(sp - t) : strlen(t);
        if (tl > nlen && strncmp(t, name, nlen) == 0 && t[nlen] == '=') {
            snprintf(out, size, "%.*s", (int)(tl - nlen - 1), t + nlen + 1);
            return;
        }
        t = sp ? sp + 1 : NULL;
    }
}

char *bf_until_label(const bf_finding_point_t *a, const bf_finding_point_t *b, char *buf,
                     size_t size)
{
    char part[320];
    size_t used = 0;
    buf[0] = '\0';
    if (a->shards != b->shards) {
        snprintf(part, sizeof part, "%u %s vs %u %s", a->shards,
                 a->shards == 1 ? "shard" : "shards", b->shards,
                 b->shards == 1 ? "shard" : "shards");
        put(buf, size, &used, part);
    }
    static const struct {
        const char *word;
        size_t off;
    } nums[] = {{"batch", offsetof(bf_finding_point_t, batch_size)},
                {"concurrency", offsetof(bf_finding_point_t, concurrency)},
                {"replicas", offsetof(bf_finding_point_t, replicas)},
                {"indices", offsetof(bf_finding_point_t, indices)}};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        uint32_t va, vb;
        memcpy(&va, (const char *)a + nums[i].off, sizeof va);
        memcpy(&vb, (const char *)b + nums[i].off, sizeof vb);
        if (va != vb) {
            snprintf(part, sizeof part, "%s %u vs %u", nums[i].word, va, vb);
            put(buf, size, &used, part);
        }
    }
    /* other axes: every name in either list whose values differ */
    for (int side = 0; side < 2; side++) {
        const char *extra = side ? b->extra : a->extra;
        for (const char *t = extra; *t;) {
            const char *sp = strchr(t, ' ');
            size_t tl = sp ? (size_t)(sp - t) : strlen(t);
            const char *eq = memchr(t, '=', tl);
            if (eq) {
                size_t nl = (size_t)(eq - t);
                char va[128], vb[128], other[128];
                extra_of(a->extra, t, nl, va, sizeof va);
                extra_of(b->extra, t, nl, vb, sizeof vb);
                extra_of(side ? a->extra : "", t, nl, other, sizeof other);
                /* named once: from a's list, or from b's when a lacks it */
                if (strcmp(va, vb) != 0 && (side == 0 || other[0] == '\0')) {
                    snprintf(part, sizeof part, "%.*s=%s vs %s", (int)nl, t, va[0] ? va : "-",
                             vb[0] ? vb : "-");
                    put(buf, size, &used, part);
                }
            }
            if (sp == NULL)
                break;
            t = sp + 1;
        }
    }
    if (used == 0)
        snprintf(buf, size, "the same cell");
    return buf;
}

size_t bf_until_open(const bf_finding_point_t *pts, size_t n, const bf_findings_opts_t *opts,
                     uint32_t min_reps, bf_until_open_t *out, size_t cap, uint8_t *need,
                     size_t *ntested)
{
    if (need && n)
        memset(need, 0, n);
    if (ntested)
        *ntested = 0;
    if (n == 0)
        return 0;
    bf_findings_t *f = bf_findings_compute_opts(pts, n, opts);
    size_t nt = 0, nopen = 0, distinct = 0;
    const bf_findings_test_t *t = bf_findings_tests(f, &nt);
    /* each pair once: a pair stated by two findings is open when either says unclear (the
     * same two samples give the same test, so they agree but for the orientation) */
    uint8_t *seen = bf_calloc(nt + 1, 1);
    for (size_t i = 0; i < nt; i++) {
        if (seen[i])
            continue;
        int open = 0;
        for (size_t j = i; j < nt; j++) {
            int same =
                (t[j].a == t[i].a && t[j].b == t[i].b) || (t[j].a == t[i].b && t[j].b == t[i].a);
            if (!same)
                continue;
            seen[j] = 1;
            open |=
                t[j].verdict == BF_VERDICT_UNCLEAR || t[j].n_a < min_reps || t[j].n_b < min_reps;
        }
        distinct++;
        if (!open)
            continue;
        if (need) {
            need[t[i].a] = 1;
            need[t[i].b] = 1;
        }
        if (nopen < cap) {
            bf_until_open_t *o = &out[nopen];
            memset(o, 0, sizeof *o);
            o->a = t[i].a;
            o->b = t[i].b;
            o->ratio = t[i].ratio;
            o->p_value = t[i].p_value;
            o->n_a = t[i].n_a;
            o->n_b = t[i].n_b;
            bf_until_label(&pts[o->a], &pts[o->b], o->label, sizeof o->label);
        }
        nopen++;
    }
    free(seen);
    bf_findings_destroy(&f);
    if (ntested)
        *ntested = distinct;
    return nopen;
}

char *bf_until_text(const bf_until_open_t *open, size_t cap, size_t nopen, char *buf, size_t size)
{
    size_t used = 0, shown = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < cap && i < nopen && shown < 3; i++, shown++) {
        char part[300], pv[32] = "";
        if (isfinite(open[i].p_value))
            snprintf(pv, sizeof pv, "p %.2g, ", open[i].p_value);
        snprintf(part, sizeof part, "%s (%s%zu+%zu runs)", open[i].label, pv, open[i].n_a,
                 open[i].n_b);
        put(buf, size, &used, part);
    }
    if (nopen > shown && used < size)
        snprintf(buf + used, size - used, " and %zu more", nopen - shown);
    return buf;
}
