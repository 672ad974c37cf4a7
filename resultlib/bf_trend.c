/* SPDX-License-Identifier: MIT */
/* bf_trend.c — docs/s of every cell across several campaigns, oldest first. */
#include "bf_trend.h"

#include "bf_compare.h"
#include "bf_matrixfile.h"
#include "bf_es.h"
#include "bf_findings.h"
#include "bf_mem.h"
#include "bf_results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct trend_campaign {
    char *label, *desc;
    bf_row_rec_t *recs; /* the rows, decoded through the row codec (bf_results.h) */
    size_t nrecs;
} trend_campaign;

struct bf_trend {
    trend_campaign c[BF_TREND_MAX_CAMPAIGNS];
    size_t nc;
    char **cells; /* union of cell ids, first appearance order */
    size_t ncells, cap;
    /* last against first per cell as a test (bf_stats), when a side has repetitions: Holm
     * (Benjamini-Hochberg beyond BF_STATS_HOLM_MAX) over the tested cells; redone per add */
    bf_stats_cmp_t *tests;
    uint8_t *tested;
    /* the campaigns' findings.alpha and findings.noise_band, the strictest of them
     * (bf_matrixfile_test_opts; defaults for a campaign without them); nopts campaigns folded,
     * differ when they did not all say the same */
    double alpha, band;
    size_t nopts;
    int opts_differ;
};

/* fold one campaign's test options (m NULL: the defaults) into t's */
static void fold_opts(bf_trend_t *t, const json_t *m)
{
    double a = 1, b = 0;
    bf_matrixfile_test_opts(m, &a, &b);
    if (t->nopts && (a != t->alpha || b != t->band))
        t->opts_differ = 1;
    if (t->nopts == 0 || a < t->alpha)
        t->alpha = a;
    if (t->nopts == 0 || b > t->band)
        t->band = b;
    t->nopts++;
}

static void trend_tests(bf_trend_t *t);

bf_trend_t *bf_trend_new(void)
{
    return bf_calloc(1, sizeof(bf_trend_t));
}

void bf_trend_destroy(bf_trend_t **t_p)
{
    if (t_p == NULL || *t_p == NULL)
        return;
    bf_trend_t *t = *t_p;
    for (size_t k = 0; k < t->nc; k++) {
        free(t->c[k].label);
        free(t->c[k].desc);
        for (size_t i = 0; i < t->c[k].nrecs; i++)
            bf_row_rec_cleanup(&t->c[k].recs[i]);
        free(t->c[k].recs);
    }
    for (size_t i = 0; i < t->ncells; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t->tests);
    free(t->tested);
    free(t);
    *t_p = NULL;
}

static const bf_row_t *find_cell(const trend_campaign *c, const char *cell)
{
    for (size_t i = 0; i < c->nrecs; i++)
        if (strcmp(c->recs[i].cell.id, cell) == 0)
            return &c->recs[i].row;
    return NULL;
}

int bf_trend_add(bf_trend_t *t, const char *label, const char *desc, json_t *rows, bf_diag_t *diag)
{
    if (t->nopts < t->nc + 1) /* not folded by bf_trend_add_dir: a campaign of the defaults */
        fold_opts(t, NULL);
    if (t->nc >= BF_TREND_MAX_CAMPAIGNS)
        return bf_diag_set(diag, BF_E_RANGE, "%s: more than %d campaigns", label,
                           BF_TREND_MAX_CAMPAIGNS);
    if (!json_is_array(rows))
        return bf_diag_set(diag, BF_E_PARSE, "%s: no \"rows\" array", label);
    size_t n = json_array_size(rows);
    bf_row_rec_t *recs = bf_calloc(n + 1, sizeof *recs);
    for (size_t i = 0; i < n; i++) {
        bf_diag_t d = {0};
        if (bf_row_rec_decode(json_array_get(rows, i), &recs[i], &d) != BF_OK) {
            for (size_t k = 0; k <= i; k++)
                bf_row_rec_cleanup(&recs[k]);
            free(recs);
            return bf_diag_set(diag, BF_E_PARSE, "%s: rows[%zu]: %s", label, i, d.msg);
        }
    }
    trend_campaign *c = &t->c[t->nc++];
    c->label = bf_strdup(label);
    c->desc = bf_strdup(desc ? desc : "");
    c->recs = recs;
    c->nrecs = n;
    for (size_t i = 0; i < n; i++) {
        const char *id = recs[i].cell.id;
        if (id == NULL || id[0] == '\0')
            continue;
        int known = 0;
        for (size_t j = 0; j < t->ncells && !known; j++)
            known = strcmp(t->cells[j], id) == 0;
        if (known)
            continue;
        if (t->ncells == t->cap) {
            t->cap = t->cap ? 2 * t->cap : 16;
            t->cells = bf_realloc(t->cells, t->cap * sizeof *t->cells);
        }
        t->cells[t->ncells++] = bf_strdup(id);
    }
    trend_tests(t);
    return BF_OK;
}

int bf_trend_add_dir(bf_trend_t *t, const char *dir, bf_diag_t *diag)
{
    char desc[256];
    json_t *m = bf_matrixfile_load(dir, desc, sizeof desc, diag);
    if (m == NULL)
        return diag->code;
    json_t *rows = json_object_get(m, "rows");
    if (t->nc < BF_TREND_MAX_CAMPAIGNS)
        fold_opts(t, m);
    int rc = bf_trend_add(t, dir, desc, rows, diag);
    json_decref(m);
    return rc;
}

#define BF_TREND_MAX_STORE_ROWS 10000 /* matrix rows read from a store per campaign */

int bf_trend_add_store(bf_trend_t *t, struct bf_es *es, const char *campaign, bf_diag_t *diag)
{
    json_t *q = json_pack("{s:i, s:{s:{s:[{s:{s:s}}, {s:{s:s}}]}}, s:[{s:s}]}", "size",
                          BF_TREND_MAX_STORE_ROWS, "query", "bool", "filter", "term", "campaign",
                          campaign, "term", "kind", "matrix_row", "sort", "cell_index", "asc");
    char *body = json_dumps(q, JSON_COMPACT);
    json_decref(q);
    long status = 0;
    const char *resp = NULL;
    int rc = bf_es_request(es, "POST", "/bulkfleet-results/_search", body, &status, &resp, diag);
    free(body);
    if (rc != BF_OK)
        return rc;
    if (status == 404)
        return bf_diag_set(diag, BF_E_NOTFOUND,
                           "%s has no bulkfleet-results index: nothing was "
                           "stored there (run --metrics-store, or publish a results directory)",
                           bf_es_host(es));
    if (status != 200)
        return bf_diag_set(diag, BF_E_HTTP, "POST %s/bulkfleet-results/_search: HTTP %ld: %.200s",
                           bf_es_host(es), status, resp ? resp : "");
    json_t *j = json_loads(resp, 0, NULL);
    json_t *hits = json_object_get(json_object_get(j, "hits"), "hits");
    if (!json_is_array(hits)) {
        json_decref(j);
        return bf_diag_set(diag, BF_E_PARSE, "%s/bulkfleet-results/_search: not a search answer",
                           bf_es_host(es));
    }
    if (json_array_size(hits) == 0) {
        json_decref(j);
        return bf_diag_set(diag, BF_E_NOTFOUND,
                           "campaign '%s' is not in the metrics store %s "
                           "(no matrix rows of it in bulkfleet-results); give its results "
                           "directory, or publish it first",
                           campaign, bf_es_host(es));
    }
    json_t *rows = json_array();
    size_t i;
    json_t *h;
    json_array_foreach(hits, i, h)
    {
        json_t *src = json_object_get(h, "_source");
        if (json_is_object(src))
            json_array_append(rows, src);
    }
    json_t *first = json_array_get(rows, 0);
    const char *sn = json_string_value(json_object_get(first, "scenario"));
    const char *dist = json_string_value(json_object_get(first, "cluster_distribution"));
    const char *ver = json_string_value(json_object_get(first, "cluster_version"));
    long long nn = (long long)json_integer_value(json_object_get(first, "cluster_nodes"));
    char desc[256];
    if (dist)
        snprintf(desc, sizeof desc, "%s on %s %s, %lld node%s", sn ? sn : "?", dist,
                 ver ? ver : "?", nn, nn == 1 ? "" : "s");
    else
        snprintf(desc, sizeof desc, "%s", sn ? sn : "?");
    char label[512];
    snprintf(label, sizeof label, "%s (metrics store)", campaign);
    rc = bf_trend_add(t, label, desc, rows, diag);
    json_decref(rows);
    json_decref(j);
    return rc;
}

size_t bf_trend_campaigns(const bf_trend_t *t)
{
    return t->nc;
}

size_t bf_trend_cells(const bf_trend_t *t)
{
    return t->ncells;
}

static const bf_row_t *row_of(const bf_trend_t *t, size_t cell, size_t k)
{
    return cell < t->ncells && k < t->nc ? find_cell(&t->c[k], t->cells[cell]) : NULL;
}

static int bad(const bf_row_t *row)
{
    return row == NULL || row->failed || row->aborted;
}

/* why the findings leave row out ("" = a measurement; bf_finding_point_t.left_out), into buf:
 * such a row is no point of a trend */
static const char *left_why(const bf_row_t *row, char *buf, size_t size)
{
    buf[0] = '\0';
    if (row == NULL || bad(row))
        return buf;
    bf_finding_point_t p;
    bf_finding_point_from_row(row, &p);
    bf_strlcpy(buf, p.left_out, size);
    return buf;
}

static int left(const bf_row_t *row)
{
    char w[200];
    return left_why(row, w, sizeof w)[0] != '\0';
}

static void trend_tests(bf_trend_t *t)
{
    free(t->tests);
    free(t->tested);
    t->tests = bf_calloc(t->ncells + 1, sizeof *t->tests);
    t->tested = bf_calloc(t->ncells + 1, 1);
    double *p = bf_calloc(t->ncells + 1, sizeof *p), *adj = bf_calloc(t->ncells + 1, sizeof *adj);
    for (size_t i = 0; i < t->ncells; i++) {
        p[i] = NAN;
        const bf_row_t *f = t->nc >= 2 ? row_of(t, i, 0) : NULL, *l = row_of(t, i, t->nc - 1);
        if (f == NULL || l == NULL || bad(f) || bad(l) || left(f) || left(l) || f->few_requests ||
            l->few_requests)
            continue;
        size_t nf = 0, nl = 0;
        const double *vf = bf_row_reps(f, &nf), *vl = bf_row_reps(l, &nl);
        if (nf && nl && (nf >= 2 || nl >= 2) &&
            bf_stats_compare(vl, nl, vf, nf, 1.0 - t->alpha, &t->tests[i]) == BF_OK) {
            t->tested[i] = 1;
            p[i] = t->tests[i].p_value;
        }
    }
    bf_stats_adjust(p, t->ncells, adj);
    for (size_t i = 0; i < t->ncells; i++)
        if (t->tested[i])
            bf_stats_decide(&t->tests[i], adj[i], t->alpha, t->band);
    free(p);
    free(adj);
}

const bf_stats_cmp_t *bf_trend_test(const bf_trend_t *t, size_t cell)
{
    return cell < t->ncells && t->tested && t->tested[cell] ? &t->tests[cell] : NULL;
}

double bf_trend_docs_per_s(const bf_trend_t *t, size_t cell, size_t campaign)
{
    const bf_row_t *r = row_of(t, cell, campaign);
    return r ? r->docs_per_s : NAN;
}

const char *bf_trend_verdict(const bf_trend_t *t, size_t cell)
{
    if (t->nc < 2)
        return "-";
    const bf_row_t *f = row_of(t, cell, 0), *l = row_of(t, cell, t->nc - 1);
    if (f == NULL || l == NULL)
        return "-";
    if (bad(f) || bad(l))
        return "failed";
    if (left(f) || left(l))
        return "left out";
    const bf_stats_cmp_t *ts = bf_trend_test(t, cell);
    if (ts)
        switch (ts->verdict) {
        case BF_VERDICT_HIGHER: return "faster";
        case BF_VERDICT_LOWER: return "slower";
        case BF_VERDICT_SAME: return "same";
        case BF_VERDICT_UNCLEAR: return "~";
        }
    double a = f->docs_per_s, b = l->docs_per_s;
    if (!isfinite(a) || !isfinite(b))
        return "-";
    /* the noise band as in bf_compare: the larger CV of the rows that ran repetitions */
    double noise = -1;
    const bf_row_t *rs[2] = {f, l};
    for (int i = 0; i < 2; i++)
        if (rs[i]->repeat > 1 && isfinite(rs[i]->cv) && rs[i]->cv > noise)
            noise = rs[i]->cv;
    int from_cv = noise >= 0;
    if (!from_cv)
        noise = BF_COMPARE_DEFAULT_NOISE;
    double pct = a > 0 ? (b - a) / a : (b == a ? 0 : INFINITY);
    int within = fabs(pct) <= noise + 1e-12;
    if (!from_cv)
        return within  ? "within 5% (no noise estimate)"
               : b > a ? "higher (no noise estimate)"
                       : "lower (no noise estimate)";
    return within ? "within noise" : b > a ? "faster" : "slower";
}

double bf_trend_geomean(const bf_trend_t *t, size_t campaign, size_t *ncells)
{
    double logsum = 0;
    size_t n = 0;
    for (size_t i = 0; i < t->ncells && campaign < t->nc; i++) {
        const bf_row_t *f = row_of(t, i, 0), *r = row_of(t, i, campaign);
        if (bad(f) || bad(r) || left(f) || left(r))
            continue;
        double a = f->docs_per_s, b = r->docs_per_s;
        if (!(a > 0) || !(b > 0))
            continue;
        logsum += log(b / a);
        n++;
    }
    if (ncells)
        *ncells = n;
    return n ? exp(logsum / (double)n) : NAN;
}

static const char *fmtd(char *buf, size_t n, double v, int decimals, const char *unknown)
{
    if (isfinite(v))
        snprintf(buf, n, "%.*f", decimals, v);
    else
        snprintf(buf, n, "%s", unknown);
    return buf;
}

/* a change in % from a to b, signed ("+4.2%"), or "-" */
static const char *pct(char *buf, size_t n, double a, double b)
{
    if (!(a > 0) || !isfinite(b)) {
        snprintf(buf, n, "-");
        return buf;
    }
    double p = 100.0 * (b - a) / a;
    snprintf(buf, n, "%s%.1f%%", p > 0 ? "+" : "", p);
    return buf;
}

/* the rows flagged index-mismatch, each with what its index had, as compare says them */
static void mismatch_note(const bf_trend_t *t, bf_buf_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < t->ncells; i++)
        for (size_t k = 0; k < t->nc; k++)
            n += row_of(t, i, k) && row_of(t, i, k)->index_mismatch;
    if (n == 0)
        return;
    bf_buf_appendf(out,
                   "%zu %s index-mismatch (recreate: false wrote into an index that already "
                   "existed with other shards or replicas): %s those indices', not the cell's "
                   "numbers:",
                   n, n == 1 ? "row is" : "rows are",
                   n == 1 ? "its docs/s is" : "their docs/s are");
    size_t shown = 0;
    for (size_t i = 0; i < t->ncells; i++)
        for (size_t k = 0; k < t->nc; k++) {
            const bf_row_t *r = row_of(t, i, k);
            if (r == NULL || !r->index_mismatch || shown >= 10)
                continue;
            char what[256];
            bf_row_index_mismatch_text(r, what, sizeof what);
            bf_buf_appendf(out, "%s %s in #%zu (%s)", shown++ ? ";" : "", t->cells[i], k + 1, what);
        }
    bf_buf_appendf(out, "%s.\n", n > 10 ? "; ..." : "");
}

void bf_trend_format(const bf_trend_t *t, enum bf_compare_format format, bf_buf_t *out)
{
    char a[64], b[64], c[64];
    if (format == BF_COMPARE_CSV) {
        bf_buf_appendz(out, "cell,shards,replicas,batch_size,concurrency");
        for (size_t k = 0; k < t->nc; k++)
            bf_buf_appendf(out, ",docs_per_s_%zu", k + 1);
        bf_buf_appendz(out, ",last_vs_first_pct,verdict,first_service_p99_ms,last_service_p99_ms,"
                            "index_mismatch\n");
    } else {
        bf_buf_appendf(out,
                       "## Trend across %zu campaigns\n\n| # | campaign | scenario and cluster |\n"
                       "|---:|---|---|\n",
                       t->nc);
        for (size_t k = 0; k < t->nc; k++)
            bf_buf_appendf(out, "| %zu | `%s` | %s |\n", k + 1, t->c[k].label, t->c[k].desc);
        bf_buf_appendz(out, "\n| cell | shards | replicas | batch size | concurrency |");
        for (size_t k = 0; k < t->nc; k++)
            bf_buf_appendf(out, " #%zu docs/s |", k + 1);
        bf_buf_appendz(out, " step by step | last vs first | verdict | p99 ms first → last |\n"
                            "|---|---:|---:|---:|---:|");
        for (size_t k = 0; k < t->nc; k++)
            bf_buf_appendz(out, "---:|");
        bf_buf_appendz(out, "---|---:|---|---|\n");
    }
    for (size_t i = 0; i < t->ncells; i++) {
        const bf_row_t *any = NULL, *first = row_of(t, i, 0), *last = row_of(t, i, t->nc - 1);
        for (size_t k = 0; k < t->nc && any == NULL; k++)
            any = row_of(t, i, k);
        unsigned sh = any->cell->shards, rp = any->cell->replicas;
        unsigned bs = any->cell->batch_size, cc = any->cell->concurrency;
        double f = bf_trend_docs_per_s(t, i, 0), l = bf_trend_docs_per_s(t, i, t->nc - 1);
        if (format == BF_COMPARE_CSV) {
            bf_buf_appendf(out, "%s,%u,%u,%u,%u", t->cells[i], sh, rp, bs, cc);
            for (size_t k = 0; k < t->nc; k++)
                bf_buf_appendf(out, ",%s", fmtd(a, sizeof a, bf_trend_docs_per_s(t, i, k), 3, ""));
            double p = f > 0 && isfinite(l) ? 100.0 * (l - f) / f : NAN;
            bf_buf_appendf(out, ",%s,%s", fmtd(a, sizeof a, p, 2, ""), bf_trend_verdict(t, i));
            bf_buf_appendf(out, ",%s",
                           fmtd(a, sizeof a, first ? first->service.p99_ms : NAN, 3, ""));
            bf_buf_appendf(out, ",%s,",
                           fmtd(a, sizeof a, last ? last->service.p99_ms : NAN, 3, ""));
            /* the campaigns (1-based, ';'-separated) whose row was index-mismatch */
            for (size_t k = 0, said = 0; k < t->nc; k++)
                if (row_of(t, i, k) && row_of(t, i, k)->index_mismatch)
                    bf_buf_appendf(out, "%s%zu", said++ ? ";" : "", k + 1);
            bf_buf_appendz(out, "\n");
            continue;
        }
        bf_buf_appendf(out, "| %s | %u | %u | %u | %u |", t->cells[i], sh, rp, bs, cc);
        for (size_t k = 0; k < t->nc; k++) {
            const bf_row_t *r = row_of(t, i, k);
            char why[200];
            left_why(r, why, sizeof why);
            /* a left-out row is struck and says why: not a point of the trend */
            bf_buf_appendf(out, " %s%s%s%s%s%s%s |", why[0] ? "~~" : "",
                           fmtd(a, sizeof a, bf_trend_docs_per_s(t, i, k), 0, "-"),
                           why[0] ? "~~ (left out: " : "", why, why[0] ? ")" : "",
                           r && bad(r) ? " (failed)" : "",
                           r && r->index_mismatch ? " (index-mismatch)" : "");
        }
        bf_buf_appendz(out, " ");
        for (size_t k = 1; k < t->nc; k++) {
            int lo = left(row_of(t, i, k - 1)) || left(row_of(t, i, k));
            bf_buf_appendf(out, "%s%s", k > 1 ? " " : "",
                           lo ? "left out"
                              : pct(a, sizeof a, bf_trend_docs_per_s(t, i, k - 1),
                                    bf_trend_docs_per_s(t, i, k)));
        }
        int lo_fl = left(first) || left(last);
        if (lo_fl)
            snprintf(c, sizeof c, "~~%s~~", pct(b, sizeof b, f, l));
        bf_buf_appendf(out, " | %s | %s | %s → %s |\n", lo_fl ? c : pct(c, sizeof c, f, l),
                       bf_trend_verdict(t, i),
                       fmtd(b, sizeof b, first ? first->service.p99_ms : NAN, 1, "-"),
                       fmtd(a, sizeof a, last ? last->service.p99_ms : NAN, 1, "-"));
    }
    if (format == BF_COMPARE_CSV)
        return;
    size_t lower = 0, higher = 0, same = 0, failed = 0, missing = 0, nleft = 0;
    for (size_t i = 0; i < t->ncells; i++) {
        const char *v = bf_trend_verdict(t, i);
        if (strcmp(v, "-") == 0)
            missing++;
        else if (strcmp(v, "left out") == 0)
            nleft++;
        else if (strcmp(v, "failed") == 0)
            failed++;
        else if (strncmp(v, "slower", 6) == 0 || strncmp(v, "lower", 5) == 0)
            lower++;
        else if (strncmp(v, "faster", 6) == 0 || strncmp(v, "higher", 6) == 0)
            higher++;
        else
            same++;
    }
    bf_buf_appendf(out,
                   "\nLast (#%zu) against first (#1): %zu cells lower, %zu higher, %zu within "
                   "the band",
                   t->nc, lower, higher, same);
    if (failed)
        bf_buf_appendf(out, ", %zu failed", failed);
    if (missing)
        bf_buf_appendf(out, ", %zu not in both", missing);
    if (nleft)
        bf_buf_appendf(out,
                       ", %zu left out (degraded, not verified or mostly failed in the "
                       "first or last, as the findings leave them out: neither higher nor lower)",
                       nleft);
    bf_buf_appendz(out, ".\n");
    mismatch_note(t, out);
    bf_buf_appendz(out, "docs/s relative to #1 (geometric mean over the cells measured in both):");
    for (size_t k = 1; k < t->nc; k++) {
        size_t n = 0;
        double g = bf_trend_geomean(t, k, &n);
        bf_buf_appendf(out, "%s #%zu %s (%zu cells)", k > 1 ? "," : "", k + 1,
                       isfinite(g) ? (snprintf(a, sizeof a, "%.3fx", g), a) : "-", n);
    }
    bf_buf_appendz(out,
                   ".\nBand: the larger CV of the first and last row when either ran repetitions, "
                   "else ±5% with no noise estimate (higher/lower, never faster/slower).\n");
    bf_buf_appendf(out,
                   "Tested (last against first, a side with repetitions): faster or slower needs "
                   "p < %.2g and the interval outside ±%g %%, same needs it inside (findings.alpha "
                   "and findings.noise_band %s).\n",
                   t->alpha, t->band * 100.0,
                   t->opts_differ ? "differ between the campaigns: the strictest of each"
                                  : "of the campaigns");
}
