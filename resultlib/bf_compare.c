/* SPDX-License-Identifier: MIT */
/* bf_compare.c — baseline vs contender results, matched by cell id. */
#include "bf_compare.h"
#include "bf_findings.h"
#include "bf_matrixfile.h"

#include "bf_es.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_results.h"
#include "bf_trend.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct bf_compare {
    char *base_dir, *contender_dir;
    char base_desc[256], contender_desc[256];
    bf_compare_row_t *rows;
    size_t n;
    char **only_base, **only_contender;
    size_t n_only_base, n_only_contender;
    char base_missing[256], contender_missing[256]; /* row fields a side's file lacks */
    char mismatch[1024]; /* no cell matched: the axes that differ ("" otherwise) */
    /* the campaigns' findings.alpha and findings.noise_band (bf_matrixfile_test_opts: the
     * stricter of the two), and whether the two said different ones */
    double alpha, band;
    int opts_differ;
};

/* the rows of a matrix, decoded through the row codec (bf_results.h); NULL with diag when a
 * row does not decode. *n gets the count; missing (missing_size bytes) the fields some row
 * lacked (an older bulkfleet wrote it), "" when none. Free with free_recs. */
static bf_row_rec_t *decode_rows(const char *dir, json_t *m, size_t *n, char *missing,
                                 size_t missing_size, bf_diag_t *diag)
{
    json_t *rows = json_object_get(m, "rows");
    bf_row_rec_t *recs = bf_calloc(json_array_size(rows) + 1, sizeof *recs);
    missing[0] = '\0';
    for (size_t i = 0; i < json_array_size(rows); i++) {
        bf_diag_t d = {0};
        if (bf_row_rec_decode(json_array_get(rows, i), &recs[i], &d) != BF_OK) {
            bf_diag_set(diag, BF_E_PARSE, "%s/matrix.json: rows[%zu]: %s", dir, i, d.msg);
            for (size_t k = 0; k <= i; k++)
                bf_row_rec_cleanup(&recs[k]);
            free(recs);
            return NULL;
        }
        if (recs[i].nmissing && missing[0] == '\0')
            snprintf(missing, missing_size, "%s", recs[i].missing);
    }
    *n = json_array_size(rows);
    return recs;
}

static void free_recs(bf_row_rec_t *recs, size_t n)
{
    for (size_t i = 0; recs && i < n; i++)
        bf_row_rec_cleanup(&recs[i]);
    free(recs);
}

static const bf_row_t *find_cell(const bf_row_rec_t *recs, size_t n, const char *cell)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(recs[i].cell.id, cell) == 0)
            return &recs[i].row;
    return NULL;
}

static const char *const seed_axes[] = {"indices", "shards", "replicas", "batch_size",
                                        "concurrency"};

/* the value of axis name in rec as text (the seed axes from the cell's numbers, which exist
 * also when the axis is not in the matrix); "" when rec has no such axis */
static void axis_text(const bf_row_rec_t *rec, const char *name, char *out, size_t n)
{
    const uint32_t v[] = {rec->cell.indices, rec->cell.shards, rec->cell.replicas,
                          rec->cell.batch_size, rec->cell.concurrency};
    out[0] = '\0';
    for (size_t i = 0; i < 5; i++)
        if (strcmp(name, seed_axes[i]) == 0) {
            snprintf(out, n, "%u", v[i]);
            return;
        }
    for (size_t i = 0; i < rec->cell.naxes; i++)
        if (strcmp(rec->cell.axes[i].axis, name) == 0) {
            snprintf(out, n, "%s", rec->cell.axes[i].value);
            return;
        }
}

/* the distinct values of axis name over n records, "1000, 2000" (or "none"), into out */
static void axis_values(const bf_row_rec_t *recs, size_t n, const char *name, char *out,
                        size_t out_size)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char v[128], tok[132];
        axis_text(&recs[i], name, v, sizeof v);
        if (v[0] == '\0')
            continue;
        snprintf(tok, sizeof tok, "%s", v);
        int dup = 0;
        for (size_t k = 0; k < i && !dup; k++) {
            char w[128];
            axis_text(&recs[k], name, w, sizeof w);
            dup = strcmp(v, w) == 0;
        }
        if (dup)
            continue;
        int w = snprintf(out + used, out_size - used, "%s%s", used ? ", " : "", tok);
        if (w < 0 || (size_t)w >= out_size - used)
            break;
        used += (size_t)w;
    }
    if (used == 0)
        snprintf(out, out_size, "none");
}

/* one axis name into c->mismatch when its value sets differ between the two sides; names
 * (nnames of them, at most 64) are the axes looked at so far: each is looked at once */
static void mismatch_axis(bf_compare_t *c, const bf_row_rec_t *rb, size_t nb,
                          const bf_row_rec_t *rk, size_t nk, const char *name, const char **names,
                          size_t *nnames)
{
    char vb[256], vk[256];
    for (size_t i = 0; i < *nnames; i++)
        if (strcmp(names[i], name) == 0)
            return;
    if (*nnames < 64)
        names[(*nnames)++] = name;
    axis_values(rb, nb, name, vb, sizeof vb);
    axis_values(rk, nk, name, vk, sizeof vk);
    if (strcmp(vb, vk) == 0)
        return;
    size_t used = strlen(c->mismatch);
    snprintf(c->mismatch + used, sizeof c->mismatch - used, "%s%s %s (baseline) vs %s (contender)",
             used ? "; " : "", name, vb, vk);
}

/* no cell matched: which axes differ (the seed axes, then every other axis of either side) */
static void find_mismatch(bf_compare_t *c, const bf_row_rec_t *rb, size_t nb,
                          const bf_row_rec_t *rk, size_t nk)
{
    const char *names[64];
    size_t nnames = 0;
    for (size_t i = 0; i < 5; i++)
        mismatch_axis(c, rb, nb, rk, nk, seed_axes[i], names, &nnames);
    const bf_row_rec_t *sides[2] = {rb, rk};
    size_t ns[2] = {nb, nk};
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < ns[s]; i++)
            for (size_t a = 0; a < sides[s][i].cell.naxes; a++)
                mismatch_axis(c, rb, nb, rk, nk, sides[s][i].cell.axes[a].axis, names, &nnames);
}

static int bad(const bf_row_t *row)
{
    return row->failed || row->aborted;
}

/* the noise band of a pair: the larger CV of the rows that ran repetitions, else the default */
static void noise_of(const bf_row_t *b, const bf_row_t *c, double *noise, int *from_cv)
{
    double cvs[2] = {NAN, NAN};
    const bf_row_t *rs[2] = {b, c};
    for (int i = 0; i < 2; i++)
        if (rs[i]->repeat > 1)
            cvs[i] = rs[i]->cv;
    *from_cv = isfinite(cvs[0]) || isfinite(cvs[1]);
    if (!*from_cv) {
        *noise = BF_COMPARE_DEFAULT_NOISE;
        return;
    }
    *noise = isfinite(cvs[0]) ? cvs[0] : 0;
    if (isfinite(cvs[1]) && cvs[1] > *noise)
        *noise = cvs[1];
}

/* the tested pairs' p values corrected over all of them, and their verdicts */
static void decide_tests(bf_compare_t *c)
{
    double *p = bf_calloc(c->n + 1, sizeof *p), *adj = bf_calloc(c->n + 1, sizeof *adj);
    for (size_t i = 0; i < c->n; i++)
        p[i] = c->rows[i].tested ? c->rows[i].test.p_value : NAN;
    bf_stats_adjust(p, c->n, adj);
    for (size_t i = 0; i < c->n; i++)
        if (c->rows[i].tested)
            bf_stats_decide(&c->rows[i].test, adj[i], c->alpha, c->band);
    free(p);
    free(adj);
}

int bf_compare_dirs(const char *base_dir, const char *contender_dir, bf_compare_t **out,
                    bf_diag_t *diag)
{
    *out = NULL;
    bf_compare_t *c = bf_calloc(1, sizeof *c);
    json_t *mb = bf_matrixfile_load(base_dir, c->base_desc, sizeof c->base_desc, diag);
    json_t *mc =
        mb ? bf_matrixfile_load(contender_dir, c->contender_desc, sizeof c->contender_desc, diag)
           : NULL;
    size_t nb = 0, nc = 0;
    if (mc) { /* the campaigns' own test options; of two different ones the stricter */
        double a1 = 1, b1 = 0, a2 = 1, b2 = 0;
        bf_matrixfile_test_opts(mb, &a1, &b1);
        bf_matrixfile_test_opts(mc, &a2, &b2);
        c->alpha = a1 < a2 ? a1 : a2;
        c->band = b1 > b2 ? b1 : b2;
        c->opts_differ = a1 != a2 || b1 != b2;
    }
    bf_row_rec_t *rb =
        mc ? decode_rows(base_dir, mb, &nb, c->base_missing, sizeof c->base_missing, diag) : NULL;
    bf_row_rec_t *rc_ = rb ? decode_rows(contender_dir, mc, &nc, c->contender_missing,
                                         sizeof c->contender_missing, diag)
                           : NULL;
    json_decref(mb);
    json_decref(mc);
    if (rc_ == NULL) {
        free_recs(rb, nb);
        int rc = diag ? diag->code : BF_E_PARSE;
        bf_compare_destroy(&c);
        return rc ? rc : BF_E_PARSE;
    }
    c->base_dir = bf_strdup(base_dir);
    c->contender_dir = bf_strdup(contender_dir);
    c->rows = bf_calloc(nb + 1, sizeof *c->rows);
    c->only_base = bf_calloc(nb + 1, sizeof *c->only_base);
    c->only_contender = bf_calloc(nc + 1, sizeof *c->only_contender);
    for (size_t i = 0; i < nb; i++) {
        const bf_row_t *b = &rb[i].row;
        const char *cell = rb[i].cell.id;
        if (cell[0] == '\0')
            continue;
        const bf_row_t *k = find_cell(rc_, nc, cell);
        if (k == NULL) {
            c->only_base[c->n_only_base++] = bf_strdup(cell);
            continue;
        }
        bf_compare_row_t *r = &c->rows[c->n++];
        bf_strlcpy(r->cell, cell, sizeof r->cell);
        r->shards = b->cell->shards;
        r->replicas = b->cell->replicas;
        r->batch_size = b->cell->batch_size;
        r->concurrency = b->cell->concurrency;
        r->base = b->docs_per_s;
        r->contender = k->docs_per_s;
        r->diff = r->contender - r->base;
        r->diff_pct = r->base > 0 ? 100.0 * r->diff / r->base : NAN;
        noise_of(b, k, &r->noise, &r->noise_from_cv);
        r->within_noise = isfinite(r->diff_pct) ? fabs(r->diff_pct) <= 100.0 * r->noise + 1e-9
                                                : r->diff == 0;
        r->failed = bad(b) || bad(k);
        r->base_few = b->few_requests;
        r->contender_few = k->few_requests;
        bf_row_index_mismatch_text(b, r->base_mismatch, sizeof r->base_mismatch);
        bf_row_index_mismatch_text(k, r->contender_mismatch, sizeof r->contender_mismatch);
        r->base_p99_ms = b->service.p99_ms;
        r->contender_p99_ms = k->service.p99_ms;
        /* the findings' rule, from the findings' own code: what they leave out is no
         * measurement to call higher or lower either */
        bf_finding_point_t pb, pk;
        bf_finding_point_from_row(b, &pb);
        bf_finding_point_from_row(k, &pk);
        bf_strlcpy(r->base_left_out, pb.left_out, sizeof r->base_left_out);
        bf_strlcpy(r->contender_left_out, pk.left_out, sizeof r->contender_left_out);
        size_t nvb = 0, nvk = 0;
        const double *vb = bf_row_reps(b, &nvb), *vk = bf_row_reps(k, &nvk);
        r->tested = !r->failed && !pb.left_out[0] && !pk.left_out[0] && !r->base_few &&
                    !r->contender_few && nvb >= 1 && nvk >= 1 && (nvb >= 2 || nvk >= 2) &&
                    bf_stats_compare(vk, nvk, vb, nvb, 1.0 - c->alpha, &r->test) == BF_OK;
    }
    decide_tests(c);
    for (size_t i = 0; i < nc; i++) {
        const char *cell = rc_[i].cell.id;
        if (cell[0] && find_cell(rb, nb, cell) == NULL)
            c->only_contender[c->n_only_contender++] = bf_strdup(cell);
    }
    if (c->n == 0)
        find_mismatch(c, rb, nb, rc_, nc);
    free_recs(rb, nb);
    free_recs(rc_, nc);
    *out = c;
    return BF_OK;
}

void bf_compare_destroy(bf_compare_t **c_p)
{
    if (c_p == NULL || *c_p == NULL)
        return;
    bf_compare_t *c = *c_p;
    for (size_t i = 0; i < c->n_only_base; i++)
        free(c->only_base[i]);
    for (size_t i = 0; i < c->n_only_contender; i++)
        free(c->only_contender[i]);
    free(c->only_base);
    free(c->only_contender);
    free(c->rows);
    free(c->base_dir);
    free(c->contender_dir);
    free(c);
    *c_p = NULL;
}

size_t bf_compare_count(const bf_compare_t *c)
{
    return c->n;
}

const bf_compare_row_t *bf_compare_row(const bf_compare_t *c, size_t i)
{
    return i < c->n ? &c->rows[i] : NULL;
}

size_t bf_compare_only_base_count(const bf_compare_t *c)
{
    return c->n_only_base;
}

const char *bf_compare_only_base(const bf_compare_t *c, size_t i)
{
    return i < c->n_only_base ? c->only_base[i] : NULL;
}

size_t bf_compare_only_contender_count(const bf_compare_t *c)
{
    return c->n_only_contender;
}

const char *bf_compare_only_contender(const bf_compare_t *c, size_t i)
{
    return i < c->n_only_contender ? c->only_contender[i] : NULL;
}

const char *bf_compare_mismatch(const bf_compare_t *c)
{
    return c->mismatch;
}

/* the verdict's few-requests note: "", "; baseline few-requests", "; contender few-requests"
 * or "; both few-requests" */
static const char *few_mark(const bf_compare_row_t *r)
{
    if (r->base_few && r->contender_few)
        return "; both few-requests";
    if (r->base_few)
        return "; baseline few-requests";
    return r->contender_few ? "; contender few-requests" : "";
}

/* "; baseline index-mismatch", "; contender index-mismatch", "; both index-mismatch" or "" */
static const char *mismatch_mark(const bf_compare_row_t *r)
{
    if (r->base_mismatch[0] && r->contender_mismatch[0])
        return "; both index-mismatch";
    if (r->base_mismatch[0])
        return "; baseline index-mismatch";
    return r->contender_mismatch[0] ? "; contender index-mismatch" : "";
}

/* Without repetitions on either side there is no measured noise: a difference is reported as
 * higher/lower with "no noise estimate", never as faster/slower. */
static int left_out(const bf_compare_row_t *r)
{
    return r->base_left_out[0] || r->contender_left_out[0];
}

/* "; baseline: degraded: an agent was lost" for each side the findings leave out, into buf */
static const char *left_mark(const bf_compare_row_t *r, char *buf, size_t size)
{
    buf[0] = '\0';
    if (r->failed || !left_out(r))
        return buf;
    int w = 0;
    if (r->base_left_out[0])
        w = snprintf(buf, size, " (baseline: %s)", r->base_left_out);
    if (r->contender_left_out[0] && w >= 0 && (size_t)w < size)
        snprintf(buf + w, size - (size_t)w, " (contender: %s)", r->contender_left_out);
    return buf;
}

/* Adds to kinds ("degraded, unsteady") each reason of why (the findings' "degraded: an agent
 * was lost, unsteady: its docs/s moved ...") not there yet, by its word before the colon, so
 * the summary names the reasons the rows really had. */
static void add_kinds(char *kinds, size_t size, const char *why)
{
    while (*why) {
        size_t n = strcspn(why, ",:");
        char k[64];
        snprintf(k, sizeof k, "%.*s", (int)(n < sizeof k ? n : sizeof k - 1), why);
        why += n;
        why += strcspn(why, ","); /* skip the explanation after a colon */
        while (*why == ',' || *why == ' ')
            why++;
        if (!k[0] || strstr(kinds, k) != NULL)
            continue;
        size_t used = strlen(kinds);
        snprintf(kinds + used, size - used, "%s%s", used ? ", " : "", k);
    }
}

static const char *verdict(const bf_compare_row_t *r)
{
    if (r->failed)
        return "failed";
    if (left_out(r))
        return "left out";
    if (r->tested)
        switch (r->test.verdict) {
        case BF_VERDICT_HIGHER: return "faster";
        case BF_VERDICT_LOWER: return "slower";
        case BF_VERDICT_SAME: return "same";
        case BF_VERDICT_UNCLEAR: return "~";
        }
    if ((r->base_few || r->contender_few) && r->noise_from_cv)
        return "left out (few-requests)";
    if (!r->noise_from_cv)
        return r->within_noise ? "within 5% (no noise estimate)"
               : r->diff > 0   ? "higher (no noise estimate)"
                               : "lower (no noise estimate)";
    if (r->within_noise)
        return "within noise";
    return r->diff > 0 ? "faster" : "slower";
}

/* number or empty (CSV) / "-" (Markdown) */
static const char *fmt(char *buf, size_t n, double v, int decimals, const char *unknown)
{
    if (isfinite(v))
        snprintf(buf, n, "%.*f", decimals, v);
    else
        snprintf(buf, n, "%s", unknown);
    return buf;
}

/* the matched rows with an index-mismatch side, each with what its index really had */
static void mismatch_note(const bf_compare_t *c, bf_buf_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n; i++)
        n += c->rows[i].base_mismatch[0] || c->rows[i].contender_mismatch[0];
    if (n == 0)
        return;
    bf_buf_appendf(out,
                   "%zu matched %s index-mismatch on a side (recreate: false wrote into an "
                   "index that already existed with other shards or replicas): matched by cell "
                   "id all the same, the pair compares those indices, not the cell's numbers:",
                   n, n == 1 ? "row is" : "rows are");
    for (size_t i = 0, shown = 0; i < c->n && shown < 10; i++) {
        const bf_compare_row_t *r = &c->rows[i];
        if (!r->base_mismatch[0] && !r->contender_mismatch[0])
            continue;
        bf_buf_appendf(out, "%s %s (", shown ? ";" : "", r->cell);
        if (r->base_mismatch[0])
            bf_buf_appendf(out, "baseline: %s", r->base_mismatch);
        if (r->contender_mismatch[0])
            bf_buf_appendf(out, "%scontender: %s", r->base_mismatch[0] ? "; " : "",
                           r->contender_mismatch);
        bf_buf_appendz(out, ")");
        shown++;
    }
    bf_buf_appendf(out, "%s.\n", n > 10 ? "; ..." : "");
}

void bf_compare_format(const bf_compare_t *c, enum bf_compare_format format, bf_buf_t *out)
{
    char a[8][48];
    if (format == BF_COMPARE_CSV) {
        bf_buf_appendz(out, "cell,shards,replicas,batch_size,concurrency,base_docs_per_s,"
                            "contender_docs_per_s,diff_docs_per_s,diff_pct,noise_pct,noise_source,"
                            "within_noise,verdict,base_service_p99_ms,contender_service_p99_ms,"
                            "base_few_requests,contender_few_requests,base_left_out,"
                            "contender_left_out,ratio,ci_low,ci_high,p_value,n_base,"
                            "n_contender,base_index_mismatch,contender_index_mismatch\n");
        for (size_t i = 0; i < c->n; i++) {
            const bf_compare_row_t *r = &c->rows[i];
            bf_buf_appendf(out, "%s,%u,%u,%u,%u,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,\"%s\",\"%s\",",
                           r->cell, r->shards, r->replicas, r->batch_size, r->concurrency,
                           fmt(a[0], 48, r->base, 3, ""), fmt(a[1], 48, r->contender, 3, ""),
                           fmt(a[2], 48, r->diff, 3, ""), fmt(a[3], 48, r->diff_pct, 2, ""),
                           fmt(a[4], 48, r->noise * 100.0, 2, ""),
                           r->noise_from_cv ? "cv" : "default", r->within_noise ? "true" : "false",
                           verdict(r), fmt(a[5], 48, r->base_p99_ms, 3, ""),
                           fmt(a[6], 48, r->contender_p99_ms, 3, ""),
                           r->base_few ? "true" : "false", r->contender_few ? "true" : "false",
                           r->base_left_out, r->contender_left_out); /* the reasons hold no '"' */
            const bf_stats_cmp_t *t = &r->test;
            if (r->tested)
                bf_buf_appendf(out, "%s,%s,%s,%s,%zu,%zu,", fmt(a[0], 48, t->ratio, 4, ""),
                               fmt(a[1], 48, t->ci_low, 4, ""), fmt(a[2], 48, t->ci_high, 4, ""),
                               fmt(a[3], 48, t->p_adj, 4, ""), t->n_b, t->n_a);
            else
                bf_buf_appendz(out, ",,,,,,");
            /* the texts hold no '"' */
            bf_buf_appendf(out, "\"%s\",\"%s\"\n", r->base_mismatch, r->contender_mismatch);
        }
        return;
    }
    bf_buf_appendf(out, "## Comparison\n\n- baseline: `%s` (%s)\n- contender: `%s` (%s)\n\n",
                   c->base_dir, c->base_desc, c->contender_dir, c->contender_desc);
    bf_buf_appendz(out, "| cell | shards | replicas | batch size | concurrency | baseline docs/s | "
                        "contender docs/s | diff | diff % | noise ± | verdict | p99 ms baseline | "
                        "p99 ms contender | contender / baseline (95 % CI) | p | runs |\n"
                        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|---:|"
                        "---|\n");
    size_t faster = 0, slower = 0, same = 0, failed = 0, single = 0, nleft = 0;
    char kinds[256] = "";
    size_t ntested = 0, tsame = 0, tilde = 0, nfewleft = 0, nratios = 0;
    double *ratios = bf_calloc(c->n + 1, sizeof *ratios);
    double logsum = 0;
    size_t nlog = 0;
    for (size_t i = 0; i < c->n; i++) {
        const bf_compare_row_t *r = &c->rows[i];
        /* a left-out side's docs/s and the difference are struck: not a measurement */
        int lo = !r->failed && left_out(r);
        const char *sb = lo && r->base_left_out[0] ? "~~" : "";
        const char *sc = lo && r->contender_left_out[0] ? "~~" : "";
        const char *sd = lo ? "~~" : "";
        char why[460];
        bf_buf_appendf(out,
                       "| %s | %u | %u | %u | %u | %s%s%s | %s%s%s | %s%s%s%s | %s%s%s%s | %s%%%s "
                       "| %s%s%s%s | %s | %s |",
                       r->cell, r->shards, r->replicas, r->batch_size, r->concurrency, sb,
                       fmt(a[0], 48, r->base, 0, "-"), sb, sc, fmt(a[1], 48, r->contender, 0, "-"),
                       sc, sd, r->diff > 0 ? "+" : "", fmt(a[2], 48, r->diff, 0, "-"), sd, sd,
                       r->diff_pct > 0 ? "+" : "", fmt(a[3], 48, r->diff_pct, 1, "-"), sd,
                       fmt(a[4], 48, r->noise * 100.0, 1, "-"), r->noise_from_cv ? " (CV)" : "",
                       verdict(r), left_mark(r, why, sizeof why), few_mark(r), mismatch_mark(r),
                       fmt(a[5], 48, r->base_p99_ms, 1, "-"),
                       fmt(a[6], 48, r->contender_p99_ms, 1, "-"));
        if (r->tested)
            bf_buf_appendf(out, " %.3fx (%.3f-%.3f) | %.2g | %zu+%zu |\n", r->test.ratio,
                           r->test.ci_low, r->test.ci_high, r->test.p_adj, r->test.n_b,
                           r->test.n_a);
        else
            bf_buf_appendz(out, " - | - | - |\n");
        if (r->failed) {
            failed++;
            continue;
        }
        if (lo) {
            nleft++;
            add_kinds(kinds, sizeof kinds, r->base_left_out);
            add_kinds(kinds, sizeof kinds, r->contender_left_out);
            continue;
        }
        if (r->tested) {
            ntested++;
            faster += r->test.verdict == BF_VERDICT_HIGHER;
            slower += r->test.verdict == BF_VERDICT_LOWER;
            tsame += r->test.verdict == BF_VERDICT_SAME;
            tilde += r->test.verdict == BF_VERDICT_UNCLEAR;
            if (isfinite(r->test.ratio) && r->test.ratio > 0)
                ratios[nratios++] = r->test.ratio;
        } else if (r->base_few || r->contender_few) {
            nfewleft++;
        } else if (!r->noise_from_cv)
            single++;
        else if (r->within_noise)
            same++;
        else if (r->diff > 0)
            faster++;
        else
            slower++;
        if (r->base > 0 && r->contender > 0) {
            logsum += log(r->contender / r->base);
            nlog++;
        }
    }
    bf_buf_appendf(out, "\n%zu cells matched: %zu faster, %zu slower, %zu within noise", c->n,
                   faster, slower, same);
    if (ntested)
        bf_buf_appendf(out, ", %zu same, %zu ~ (no significant change)", tsame, tilde);
    if (nfewleft)
        bf_buf_appendf(out, ", %zu left out of the tests (few-requests on a side)", nfewleft);
    if (single)
        bf_buf_appendf(out, ", %zu with no noise estimate (one run on both sides)", single);
    if (failed)
        bf_buf_appendf(out, ", %zu failed", failed);
    if (nleft)
        bf_buf_appendf(out,
                       ", %zu left out (%s on a side, as the findings leave them out: struck, "
                       "neither higher nor lower)",
                       nleft, kinds);
    if (nlog)
        bf_buf_appendf(out, "; contender / baseline docs/s, geometric mean %.3fx", exp(logsum / (double)nlog));
    bf_buf_appendz(out, ".\n");
    if (ntested) {
        double gm, glo, ghi;
        bf_buf_appendf(out,
                       "Tested: %zu cells with repetitions on a side, each a Mann-Whitney U "
                       "test with the Hodges-Lehmann ratio and its %g %% interval, p corrected by "
                       "%s over the %zu cells; faster or slower needs p < %.2g and the interval "
                       "outside ±%g %%, same needs it inside, ~ is neither (findings.alpha and "
                       "findings.noise_band %s)",
                       ntested, 100.0 * (1.0 - c->alpha), bf_stats_correction(ntested), ntested,
                       c->alpha, c->band * 100.0,
                       c->opts_differ ? "of the two campaigns differ: the stricter of each"
                                      : "of the campaigns");
        if (nratios && bf_stats_geomean_ci(ratios, nratios, 0.95, &gm, &glo, &ghi) == BF_OK)
            bf_buf_appendf(out, "; geometric mean of their ratios %.3fx%s", gm, "");
        if (nratios >= 2 && isfinite(glo))
            bf_buf_appendf(out, " (95 %% CI %.3f-%.3f over the cells)", glo, ghi);
        bf_buf_appendz(out, ".\n");
    }
    if (ntested < c->n)
        bf_buf_appendz(out, "Noise of the untested cells: the larger CV of the two cells when "
                            "either ran repetitions, else ±5%.\n");
    free(ratios);
    size_t nfew = 0;
    for (size_t i = 0; i < c->n; i++)
        nfew += c->rows[i].base_few || c->rows[i].contender_few;
    if (nfew)
        bf_buf_appendf(out,
                       "%zu %s few-requests on a side (fewer than %d bulk responses in its "
                       "window): that docs/s rests on a handful of requests, and the findings "
                       "did not rank it; its difference says little.\n",
                       nfew, nfew == 1 ? "row is" : "rows are", BF_FEW_REQUESTS);
    mismatch_note(c, out);
    if (c->n == 0)
        bf_buf_appendf(out,
                       "No cell matched: the two campaigns have no cell id in common%s%s. "
                       "compare matches cells by id (every axis value); compare two runs of "
                       "the same scenario, or make the axes agree.\n",
                       c->mismatch[0] ? "; their axes differ: " : "", c->mismatch);
    int assumed = 0;
    for (size_t i = 0; i < c->n; i++)
        assumed |= !c->rows[i].noise_from_cv;
    if (assumed)
        bf_buf_appendz(out,
                       "No noise estimate: cells run once on both sides are not called faster "
                       "or slower, only higher or lower (±5% is shown as a guide, not a "
                       "measurement: on a busy or shared machine the noise can be far larger). "
                       "Run both campaigns with `run: {repeat: 3}` or more for a measured band.\n");
    if (c->base_missing[0] || c->contender_missing[0])
        bf_buf_appendf(out,
                       "\nNot in the %s's matrix.json (written by an older bulkfleet?): %s; "
                       "shown as -.\n",
                       c->base_missing[0] ? "baseline" : "contender",
                       c->base_missing[0] ? c->base_missing : c->contender_missing);
    if (c->n_only_base) {
        bf_buf_appendz(out, "\nOnly in the baseline:");
        for (size_t i = 0; i < c->n_only_base; i++)
            bf_buf_appendf(out, " %s", c->only_base[i]);
        bf_buf_appendz(out, "\n");
    }
    if (c->n_only_contender) {
        bf_buf_appendz(out, "\nOnly in the contender:");
        for (size_t i = 0; i < c->n_only_contender; i++)
            bf_buf_appendf(out, " %s", c->only_contender[i]);
        bf_buf_appendz(out, "\n");
    }
}

#define COMPARE_USAGE                                                                              \
    "usage: bulkfleet-coordinator compare BASE_DIR CONTENDER_DIR [--csv]\n"                        \
    "       bulkfleet-coordinator compare DIR1 DIR2 DIR3 ... [--csv]   (trend, oldest first)\n"

/* three or more campaigns, or any from a metrics store: the trend per cell (bf_trend.h). An
 * argument with a matrix.json is a results directory, any other a campaign id in the store. */
static int trend_cmd(const char *const *dirs, int nd, enum bf_compare_format f, const char *store)
{
    bf_trend_t *t = bf_trend_new();
    bf_target_t tg;
    memset(&tg, 0, sizeof tg);
    char *host = NULL;
    bf_es_t *es = NULL;
    if (store) {
        size_t len = strlen(store);
        while (len > 0 && store[len - 1] == '/')
            len--;
        host = bf_strndup(store, len);
        tg.hosts = &host;
        tg.nhosts = 1;
        tg.names = &bf_conn_names_compare; /* its errors name the store, not target.* */
        es = bf_es_new(&tg, 0, 30000);
    }
    int code = BF_EXIT_OK;
    for (int i = 0; i < nd && code == BF_EXIT_OK; i++) {
        bf_diag_t d = {0};
        char *mp = bf_asprintf("%s/matrix.json", dirs[i]);
        struct stat st;
        int is_dir = stat(mp, &st) == 0;
        free(mp);
        int rc = is_dir || es == NULL ? bf_trend_add_dir(t, dirs[i], &d)
                                      : bf_trend_add_store(t, es, dirs[i], &d);
        if (rc != BF_OK) {
            bf_error("%s", d.msg);
            code = rc == BF_E_TRANSPORT || rc == BF_E_HTTP ? BF_EXIT_ENV : BF_EXIT_INPUT;
        }
    }
    bf_es_destroy(&es);
    free(host);
    if (code != BF_EXIT_OK) {
        bf_trend_destroy(&t);
        return code;
    }
    bf_buf_t out;
    bf_buf_init(&out, 0);
    bf_trend_format(t, f, &out);
    fwrite(out.data ? out.data : "", 1, out.len, stdout);
    bf_buf_cleanup(&out);
    bf_trend_destroy(&t);
    return BF_EXIT_OK;
}

int bf_compare_cmd(int argc, char **argv)
{
    const char *dirs[BF_TREND_MAX_CAMPAIGNS];
    const char *store = NULL;
    int nd = 0;
    enum bf_compare_format f = BF_COMPARE_MARKDOWN;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--csv") == 0) {
            f = BF_COMPARE_CSV;
        } else if (strcmp(argv[i], "--markdown") == 0 || strcmp(argv[i], "--md") == 0) {
            f = BF_COMPARE_MARKDOWN;
        } else if (strcmp(argv[i], "--metrics-store") == 0 && i + 1 < argc) {
            store = argv[++i];
            if (strncmp(store, "http://", 7) != 0 && strncmp(store, "https://", 8) != 0) {
                bf_error("--metrics-store %s: expected an http:// or https:// URL", store);
                return BF_EXIT_INPUT;
            }
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf(COMPARE_USAGE);
            return BF_EXIT_OK;
        } else if (argv[i][0] == '-') {
            bf_error("unexpected '%s'", argv[i]);
            fputs(COMPARE_USAGE, stderr);
            return BF_EXIT_INPUT;
        } else if (nd == BF_TREND_MAX_CAMPAIGNS) {
            bf_error("at most %d results directories", BF_TREND_MAX_CAMPAIGNS);
            return BF_EXIT_INPUT;
        } else {
            dirs[nd++] = argv[i];
        }
    }
    if (nd < 2) {
        fputs(COMPARE_USAGE, stderr);
        return BF_EXIT_INPUT;
    }
    if (nd > 2 || store)
        return trend_cmd(dirs, nd, f, store);
    bf_diag_t d = {0};
    bf_compare_t *c = NULL;
    if (bf_compare_dirs(dirs[0], dirs[1], &c, &d) != BF_OK) {
        bf_error("%s", d.msg);
        return BF_EXIT_INPUT;
    }
    bf_buf_t out;
    bf_buf_init(&out, 0);
    bf_compare_format(c, f, &out);
    fwrite(out.data ? out.data : "", 1, out.len, stdout);
    bf_buf_cleanup(&out);
    int code = BF_EXIT_OK;
    if (bf_compare_count(c) == 0) { /* an empty table is no comparison: say so, exit 2 */
        const char *mm = bf_compare_mismatch(c);
        bf_error("no cell matched between %s and %s%s%s; compare two runs of the same "
                 "scenario, or make their axes agree",
                 dirs[0], dirs[1], mm[0] ? ": the axes differ: " : "", mm);
        code = BF_EXIT_INPUT;
    }
    bf_compare_destroy(&c);
    return code;
}
