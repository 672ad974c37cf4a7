/* SPDX-License-Identifier: MIT */
/* bf_qfindings.c — the mutual cost of indexing and searching, from matrix.json rows. */
#include "bf_qfindings.h"
#include "bf_stats.h"

#include "bf_mem.h"
#include "bf_results.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usable(const bf_row_rec_t *r)
{
    return r->searches && !r->row.failed && !r->row.aborted;
}

static int in_list(const char *k, const char *const *skip)
{
    for (; *skip; skip++)
        if (strcmp(k, *skip) == 0)
            return 1;
    return 0;
}

/* the value of axis k in a cell, or NULL */
static const char *axis_of(const bf_cell_t *c, const char *k)
{
    for (size_t i = 0; i < c->naxes; i++)
        if (strcmp(c->axes[i].axis, k) == 0)
            return c->axes[i].value;
    return NULL;
}

/* same value on every axis of either row but the skipped ones, and the same cell shape */
static int same_axes(const bf_cell_t *a, const bf_cell_t *b, const char *const *skip)
{
    if ((!in_list("indices", skip) && a->indices != b->indices) ||
        (!in_list("shards", skip) && a->shards != b->shards) ||
        (!in_list("replicas", skip) && a->replicas != b->replicas))
        return 0;
    for (size_t i = 0; i < a->naxes; i++) {
        if (in_list(a->axes[i].axis, skip))
            continue;
        const char *w = axis_of(b, a->axes[i].axis);
        if (w == NULL || strcmp(a->axes[i].value, w) != 0)
            return 0;
    }
    return 1;
}

static void add(json_t *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(json_t *out, const char *fmt, ...)
{
    char buf[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    json_array_append_new(out, json_string(buf));
}

static void fmt_ms(char *buf, size_t n, double v)
{
    if (isfinite(v))
        snprintf(buf, n, "%.1f ms", v);
    else
        snprintf(buf, n, "- (too few samples)");
}

json_t *bf_qfindings_compute(json_t *rows)
{
    static const char *skip_search[] = {"search_clients", "search_rate", NULL};
    static const char *skip_index[] = {"concurrency", "batch_size", "target_rate", "compression",
                                       NULL};
    json_t *out = json_array();
    /* the rows through the row codec (bf_results.h); one that does not decode is left out */
    size_t n = json_array_size(rows);
    bf_row_rec_t *rec = bf_calloc(n + 1, sizeof *rec);
    int *ok = bf_calloc(n + 1, sizeof *ok);
    for (size_t i = 0; i < n; i++)
        ok[i] = bf_row_rec_decode(json_array_get(rows, i), &rec[i], NULL) == BF_OK;
    /* indexing under search against indexing alone: each pair a test on the two cells'
     * repetitions (bf_stats), Holm over these pairs, before the sentences */
    long *solo = bf_calloc(n + 1, sizeof *solo);
    bf_stats_cmp_t *ct = bf_calloc(n + 1, sizeof *ct);
    double *pv = bf_calloc(n + 1, sizeof *pv), *adj = bf_calloc(n + 1, sizeof *adj);
    for (size_t i = 0; i < n; i++) {
        solo[i] = -1;
        pv[i] = NAN;
        const bf_row_rec_t *b = &rec[i];
        if (!ok[i] || !usable(b) || b->cell.concurrency == 0 || b->cell.search_clients == 0)
            continue;
        for (size_t j = 0; j < n && solo[i] < 0; j++) {
            const bf_row_rec_t *o = &rec[j];
            if (!ok[j] || !usable(o) || o->cell.concurrency == 0 || o->cell.search_clients != 0 ||
                !same_axes(&b->cell, &o->cell, skip_search))
                continue;
            solo[i] = (long)j;
            size_t nb = 0, no = 0;
            const double *vb = bf_row_reps(&b->row, &nb), *vo = bf_row_reps(&o->row, &no);
            if (nb && no && bf_stats_compare(vb, nb, vo, no, 1.0 - BF_STATS_ALPHA, &ct[i]) == BF_OK)
                pv[i] = ct[i].p_value;
        }
    }
    bf_stats_adjust(pv, n, adj);
    for (size_t i = 0; i < n; i++) {
        const bf_row_rec_t *b = &rec[i];
        if (!ok[i] || !usable(b) || b->cell.concurrency == 0 || b->cell.search_clients == 0)
            continue;
        const char *bcell = b->cell.id;
        if (solo[i] >= 0) {
            const bf_row_rec_t *o = &rec[solo[i]];
            double x = b->row.docs_per_s, y = o->row.docs_per_s;
            char v[300] = "";
            if (ct[i].n_a) {
                bf_stats_decide(&ct[i], isnan(pv[i]) ? NAN : adj[i], BF_STATS_ALPHA, BF_STATS_BAND);
                if (isfinite(ct[i].ci_low) && !ct[i].within_run)
                    snprintf(v, sizeof v, " (%.2fx, 95 %% CI %.2f-%.2f, p %.2g, %zu+%zu runs: %s)",
                             ct[i].ratio, ct[i].ci_low, ct[i].ci_high, ct[i].p_adj, ct[i].n_a,
                             ct[i].n_b, bf_verdict_name(ct[i].verdict));
                else
                    snprintf(v, sizeof v, " (%zu+%zu runs: %s)", ct[i].n_a, ct[i].n_b,
                             bf_verdict_name(ct[i].verdict));
            }
            if (isfinite(x) && isfinite(y) && y > 0)
                add(out,
                    "indexing under search (%lld search clients, cell %s): %.0f docs/s vs "
                    "%.0f alone, %+.0f %%%s",
                    (long long)b->cell.search_clients, bcell, x, y, 100.0 * (x - y) / y, v);
        }
        for (size_t j = 0; j < n; j++) {
            const bf_row_rec_t *o = &rec[j];
            if (!ok[j] || !usable(o) || o->cell.concurrency != 0 ||
                !same_axes(&b->cell, &o->cell, skip_index))
                continue;
            for (uint32_t k = 0; k < b->row.nqueries; k++) {
                const bf_qrow_t *q = &b->row.queries[k];
                const bf_qrow_t *alone = NULL;
                for (uint32_t m = 0; m < o->row.nqueries; m++)
                    if (strcmp(q->name, o->row.queries[m].name) == 0)
                        alone = &o->row.queries[m];
                if (alone == NULL)
                    continue;
                double a = alone->service.p90_ms, c = q->service.p90_ms;
                char as[40], cs[40], pct[40] = "";
                fmt_ms(as, sizeof as, a);
                fmt_ms(cs, sizeof cs, c);
                if (isfinite(a) && isfinite(c) && a > 0)
                    snprintf(pct, sizeof pct, " (%+.0f %%)", 100.0 * (c - a) / a);
                add(out,
                    "query %s under indexing (concurrency %lld, cell %s): service p90 %s "
                    "alone -> %s%s; %.1f -> %.1f ops/s",
                    q->name, (long long)b->cell.concurrency, bcell, as, cs, pct, alone->ops_per_s,
                    q->ops_per_s);
            }
            break;
        }
    }
    for (size_t i = 0; i < n; i++)
        bf_row_rec_cleanup(&rec[i]);
    free(rec);
    free(ok);
    free(solo);
    free(ct);
    free(pv);
    free(adj);
    return out;
}
