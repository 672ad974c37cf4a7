/* SPDX-License-Identifier: MIT */
/* bf_findings.c — best cell, knee, shard and batch ratios from the results matrix. */
#include "bf_findings.h"
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

static void choose_main_axis(bf_findings_t *f)
{
    char names[37][128];
    for (size_t i = 0; i < 5; i++)
        bf_strlcpy(
            names[i],
            (const char *[]){"concurrency", "batch_size", "shards", "indices", "replicas"}[i],
            sizeof names[0]);
    size_t nn = 5 + bf__extra_axes(f, names + 5, 32);
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
    bf__add_line(f,
                 "%zu %s left out of these findings (never best, no knee, plateau or ratio): %s%s.",
                 nleft, nleft == 1 ? "cell is" : "cells are", text,
                 nleft > BF_FINDINGS_NAMED_LEFT_OUT ? "; ..." : "");
    json_t *fig = json_object();
    json_object_set_new(fig, "cells", cells);
    bf__add_item(f, "left_out", NULL, NULL, fig);
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
    bf__add_line(
        f,
        "Verdicts: each comparison is a Mann-Whitney U test on the cells' repetitions with a "
        "%.0f %% interval of the ratio (Hodges-Lehmann); p values corrected by %s over the "
        "%zu comparison%s stated%s; higher or lower needs p < %.2g and the interval outside "
        "the +-%.0f%% noise band, same needs it inside: %zu higher, %zu lower, %zu same, "
        "%zu unclear%s.",
        (1.0 - f->opts.alpha) * 100.0, corr, f->ntests, f->ntests == 1 ? "" : "s",
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
    bf__add_item(f, "method", NULL, NULL, fig);
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
        bf__add_line(
            f,
            "%zu %s measured on fewer than %d bulk responses in the window (few-requests: "
            "%s%s) %s not ranked here; lengthen run.duration or use a smaller batch_size to "
            "measure %s.",
            f->nfew, f->nfew == 1 ? "cell" : "cells", BF_FEW_REQUESTS, few_cells,
            f->nfew > 5 ? ", ..." : "", f->nfew == 1 ? "is" : "are", f->nfew == 1 ? "it" : "them");
        json_t *fig = json_object();
        json_object_set_new(fig, "cells", json_integer((json_int_t)f->nfew));
        json_object_set_new(fig, "min_responses", json_integer(BF_FEW_REQUESTS));
        bf__add_item(f, "few_requests", NULL, NULL, fig);
    }
    left_out_line(f);
    if (f->nmismatch) {
        bf__add_line(f,
                     "%zu %s wrote into indices that already existed with other shards or replicas "
                     "(index-mismatch): these findings use the indices' real numbers, not the "
                     "scenario's.",
                     f->nmismatch, f->nmismatch == 1 ? "cell" : "cells");
        json_t *fig = json_object();
        json_object_set_new(fig, "cells", json_integer((json_int_t)f->nmismatch));
        bf__add_item(f, "index_mismatch", NULL, NULL, fig);
    }
    uint32_t *shards = bf_calloc(n + 1, sizeof *shards);
    size_t ns = bf__distinct(f, offsetof(bf_finding_point_t, shards), shards);
    choose_main_axis(f);
    if (ns == 0) {
        if (f->nfew) /* the cells finished; none had enough bulk responses to rank */
            bf__add_line(f,
                         "No cell with %d+ bulk responses in the window to draw findings from; "
                         "lengthen run.duration or use a smaller batch_size.",
                         BF_FEW_REQUESTS);
        else if (f->nleft)
            bf__add_line(f, "No other cell to draw findings from.");
        else
            bf__add_line(f, "No finished cell to draw findings from.");
    } else {
        bf__find_best(f, shards, ns);
        bf__find_steps(f, shards, ns, 0);
        bf__find_steps(f, shards, ns, 1);
        bf__find_shard_ratios(f, shards, ns);
        bf__find_batch_gain(f, shards, ns);
        bf__find_axis_ratios(f);
        bf__find_routing_gain(f, shards, ns);
        bf__find_axis_trends(f);
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
