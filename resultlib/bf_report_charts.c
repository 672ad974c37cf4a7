/* SPDX-License-Identifier: MIT */
/* bf_report_charts.c — the report's main charts: the layout (x, panels, lines),
 * throughput, service time against the axis, docs/s per second and the latency ladders.
 */
#include "bf_report_int.h"

#include "bf_report.h"

#include "bf_atomic.h"
#include "bf_matrixfile.h"

#include "bf_findings.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_results.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- sections ----------------------------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static const bf_finding_point_t *sort_pts; /* qsort context: single-threaded report */
static const char *sort_x;

static int cmp_by_x(const void *a, const void *b)
{
    double x = bf_finding_point_axis(&sort_pts[*(const size_t *)a], sort_x);
    double y = bf_finding_point_axis(&sort_pts[*(const size_t *)b], sort_x);
    return (x > y) - (x < y);
}

/* Is part (len bytes) one of label's ", "-separated parts? */
static int label_has_part(const char *label, const char *part, size_t len)
{
    for (const char *q = label; q && *q;) {
        const char *e = strstr(q, ", ");
        size_t l = e ? (size_t)(e - q) : strlen(q);
        if (l == len && memcmp(q, part, len) == 0)
            return 1;
        q = e ? e + 2 : NULL;
    }
    return 0;
}

/* bars: each line's label keeps the parts that tell the lines apart ("batch 500, target=direct"
 * -> "target=direct"; the parts every line shares go into L->cat in parentheses), and L->cat
 * names the axis those parts name when it is one ("target (batch 500)"), else "the axes that
 * vary". */
static void bars_category(playout *L)
{
    const char *first = NULL;
    for (size_t k = 0; k < L->np && first == NULL; k++)
        if (L->panels[k].nl)
            first = L->panels[k].lines[0].label;
    char common[300] = "", axis[128] = "";
    int one_axis = 1;
    for (const char *q = first; q && *q;) { /* the parts of the first label in every label */
        const char *e = strstr(q, ", ");
        size_t len = e ? (size_t)(e - q) : strlen(q);
        int all = 1;
        for (size_t k = 0; k < L->np && all; k++)
            for (size_t l = 0; l < L->panels[k].nl && all; l++)
                all = label_has_part(L->panels[k].lines[l].label, q, len);
        if (all && strlen(common) + len + 3 < sizeof common)
            snprintf(common + strlen(common), sizeof common - strlen(common), "%s%.*s",
                     common[0] ? ", " : "", (int)len, q);
        q = e ? e + 2 : NULL;
    }
    for (size_t k = 0; k < L->np; k++)
        for (size_t l = 0; l < L->panels[k].nl; l++) {
            char *lab = L->panels[k].lines[l].label, kept[300] = "";
            for (const char *q = lab; *q;) {
                const char *e = strstr(q, ", ");
                size_t len = e ? (size_t)(e - q) : strlen(q);
                if (!label_has_part(common, q, len) && strlen(kept) + len + 3 < sizeof kept) {
                    const char *eq = memchr(q, '=', len);
                    size_t al = eq ? (size_t)(eq - q) : 0;
                    if (eq == NULL || al >= sizeof axis || kept[0] != '\0')
                        one_axis = 0;
                    else if (axis[0] == '\0')
                        snprintf(axis, sizeof axis, "%.*s", (int)al, q);
                    else if (strlen(axis) != al || strncmp(axis, q, al) != 0)
                        one_axis = 0;
                    snprintf(kept + strlen(kept), sizeof kept - strlen(kept), "%s%.*s",
                             kept[0] ? ", " : "", (int)len, q);
                }
                if (e == NULL)
                    break;
                q = e + 2;
            }
            if (kept[0])
                bf_strlcpy(lab, kept, sizeof L->panels[k].lines[l].label);
        }
    snprintf(L->cat, sizeof L->cat, "%s%s%s%s", one_axis && axis[0] ? axis : "the axes that vary",
             common[0] ? " (" : "", common, common[0] ? ")" : "");
}

void bf__layout_build(playout *L, rowinfo *ri, size_t n, const bf_finding_point_t *pts,
                      const char *x)
{
    memset(L, 0, sizeof *L);
    L->x = x;
    int by_shards = strcmp(x, "shards") == 0;
    uint32_t *shards = bf_calloc(n + 1, sizeof *shards);
    size_t ns = 0;
    double xmin = INFINITY, xmax = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (ri[i].pt.excluded)
            continue;
        double v = bf_finding_point_axis(&ri[i].pt, x);
        xmin = v < xmin ? v : xmin;
        xmax = v > xmax ? v : xmax;
        uint32_t s = by_shards ? 0 : ri[i].pt.shards;
        size_t k = 0;
        while (k < ns && shards[k] != s)
            k++;
        if (k == ns)
            shards[ns++] = s;
    }
    qsort(shards, ns, sizeof *shards, cmp_u32);
    /* doubling axes (concurrency 1, 2, 4, ...) read best on a log2 scale */
    L->xlog2 = strcmp(x, "concurrency") == 0 || strcmp(x, "batch_size") == 0 ||
               strcmp(x, "shards") == 0 || strcmp(x, "indices") == 0;
    L->xlog2 = L->xlog2 && xmin > 0 && xmax / xmin >= 4;
    L->panels = bf_calloc(ns + 1, sizeof *L->panels);
    L->np = ns;
    char label[300];
    for (size_t k = 0; k < ns; k++) {
        ppanel *P = &L->panels[k];
        P->shards = shards[k];
        for (size_t i = 0; i < n; i++) {
            if (ri[i].pt.excluded || (!by_shards && ri[i].pt.shards != shards[k]))
                continue;
            bf_findings_label(pts, n, &ri[i].pt, x, 0, label, sizeof label);
            size_t l = 0;
            while (l < P->nl && strcmp(P->lines[l].label, label) != 0)
                l++;
            if (l == P->nl) {
                P->lines = bf_realloc(P->lines, (P->nl + 1) * sizeof *P->lines);
                memset(&P->lines[l], 0, sizeof P->lines[l]);
                bf_strlcpy(P->lines[l].label, label, sizeof P->lines[l].label);
                P->lines[l].idx = bf_calloc(n + 1, sizeof *P->lines[l].idx);
                P->nl++;
            }
            P->lines[l].idx[P->lines[l].m++] = i;
        }
        /* lines in order of batch size, then label (bars: as the matrix lists them); points
         * in order of x */
        for (size_t a = 1; a < P->nl && xmin != xmax; a++)
            for (size_t c = a; c > 0; c--) {
                const bf_finding_point_t *p = &ri[P->lines[c].idx[0]].pt;
                const bf_finding_point_t *q = &ri[P->lines[c - 1].idx[0]].pt;
                if (p->batch_size > q->batch_size ||
                    (p->batch_size == q->batch_size &&
                     strcmp(P->lines[c].label, P->lines[c - 1].label) >= 0))
                    break;
                pline t = P->lines[c];
                P->lines[c] = P->lines[c - 1];
                P->lines[c - 1] = t;
            }
        for (size_t l = 0; l < P->nl; l++) {
            /* sort_pts indexes ri's points; copy them out once */
            bf_finding_point_t *tmp = bf_calloc(n + 1, sizeof *tmp);
            for (size_t i = 0; i < n; i++)
                tmp[i] = ri[i].pt;
            sort_pts = tmp;
            sort_x = x;
            qsort(P->lines[l].idx, P->lines[l].m, sizeof *P->lines[l].idx, cmp_by_x);
            sort_pts = NULL;
            free(tmp);
        }
        L->bars |= P->nl >= 2;
    }
    free(shards);
    /* a main axis of one value (no numeric axis varies): its line chart would stack every
     * line on one x; the lines' labels ("target=direct") become bars side by side */
    L->bars = L->bars && xmin == xmax;
    if (L->bars)
        bars_category(L);
}

void bf__layout_free(playout *L)
{
    for (size_t k = 0; k < L->np; k++) {
        for (size_t l = 0; l < L->panels[k].nl; l++)
            free(L->panels[k].lines[l].idx);
        free(L->panels[k].lines);
    }
    free(L->panels);
    memset(L, 0, sizeof *L);
}

/* words for an axis on a chart */
static const char *axis_words(const char *x)
{
    if (strcmp(x, "concurrency") == 0)
        return "concurrency (bulk requests in flight)";
    if (strcmp(x, "batch_size") == 0)
        return "batch size (documents per bulk request)";
    if (strcmp(x, "shards") == 0)
        return "shards (primaries per index)";
    if (strcmp(x, "indices") == 0)
        return "indices (written at once)";
    if (strcmp(x, "replicas") == 0)
        return "replicas";
    return x;
}

static void panel_title(const ppanel *P, char *buf, size_t n, const char *what)
{
    if (P->shards)
        snprintf(buf, n, "%s%u shard%s", what, P->shards, P->shards == 1 ? "" : "s");
    else
        snprintf(buf, n, "%severy shard count", what);
}

void bf__section_throughput(bf_buf_t *b, rowinfo *ri, size_t n, const playout *L, json_t *charts)
{
    json_t *panels = json_array();
    json_object_set_new(charts, "throughput", panels);
    double ymax = 0; /* one y scale for every panel: shard counts compare at a glance */
    for (size_t i = 0; i < n; i++) {
        if (!ri[i].pt.excluded && isfinite(ri[i].pt.docs_per_s) && ri[i].pt.docs_per_s > ymax)
            ymax = ri[i].pt.docs_per_s;
        double hi = bf__rnum(&ri[i], "docs_per_s_ci_high"); /* the whiskers share it too */
        if (!ri[i].pt.excluded && isfinite(hi) && hi > ymax)
            ymax = hi;
    }
    if (L->bars) {
        bf_buf_appendz(b, "<h2 id=\"throughput\">docs/s by ");
        bf__html_esc(b, L->cat);
        bf_buf_appendz(b,
                       "</h2>\n<p class=\"note\">No numeric axis varies in this matrix, so "
                       "each cell is a bar, side by side, one panel per shard count. A red "
                       "outline marks a cell with rejections (429s, rejected documents or "
                       "write-pool rejections); a hollow bar a few-requests cell (fewer than "
                       "20 bulk responses in the window: drawn, not ranked); a hollow dashed "
                       "bar labelled &quot;left out&quot; a cell the findings leave out (degraded, "
                       "not verified, mostly failed: not a measurement).</p>\n<div "
                       "class=\"charts\">\n");
    } else {
        bf_buf_appendz(b, "<h2 id=\"throughput\">docs/s against ");
        bf__html_esc(b, strcmp(L->x, "batch_size") == 0 ? "batch size" : L->x);
        bf_buf_appendz(
            b, "</h2>\n<p class=\"note\">x is the axis with the most values in this "
               "matrix. One panel per shard count, one line per combination of the "
               "other axes that vary. Whiskers: each cell's interval of docs/s (of the "
               "median over its repetitions: 95 % from 6 runs, with fewer their range at "
               "the confidence matrix.md's docs/s interval column gives, 87 % for 4 runs; "
               "dashed: within one run, from its seconds by "
               "batch means, without the drift between runs). A red ring marks a cell with "
               "rejections (429s, "
               "rejected documents or write-pool rejections); a hollow marker a "
               "few-requests cell (fewer than 20 bulk responses in the window: drawn, "
               "not ranked); a hollow, dashed, struck marker labelled &quot;left out&quot;, "
               "off the line, a cell the findings leave out (degraded, not verified, "
               "mostly failed: not a measurement, never a gain or a loss).</p>\n<div "
               "class=\"charts\">\n");
    }
    for (size_t k = 0; k < L->np; k++) {
        const ppanel *P = &L->panels[k];
        json_t *panel = json_object();
        json_t *lines = json_array();
        json_object_set_new(panel, "shards", P->shards ? json_integer(P->shards) : json_null());
        json_object_set_new(panel, "x_axis", json_string(L->x));
        json_object_set_new(panel, "bars", json_boolean(L->bars));
        json_object_set_new(panel, "lines", lines);
        json_array_append_new(panels, panel);
        char title[64];
        panel_title(P, title, sizeof title, "");
        plot p = {.w = 430,
                  .h = 300,
                  .title = title,
                  .xlabel = L->bars ? L->cat : axis_words(L->x),
                  .ylabel = "docs/s",
                  .kind = "throughput",
                  .xlog2 = L->xlog2,
                  .xticks_at_data = 1,
                  .bars = L->bars,
                  .ymax = ymax};
        for (size_t l = 0; l < P->nl; l++) {
            pseries *s = bf__plot_add_series(&p, P->lines[l].label, 1);
            json_t *line = json_object();
            json_t *points = json_array();
            json_object_set_new(line, "label", json_string(P->lines[l].label));
            json_object_set_new(line, "points", points);
            json_array_append_new(lines, line);
            for (size_t a = 0; a < P->lines[l].m; a++) {
                const bf_finding_point_t *q = &ri[P->lines[l].idx[a]].pt;
                double xv = bf_finding_point_axis(q, L->x);
                bf__series_add_why(
                    s, xv, q->docs_per_s, q->cell,
                    q->rejections | q->few_requests << 1 | (q->left_out[0] != 0) << 2, q->left_out);
                const rowinfo *rr = &ri[P->lines[l].idx[a]];
                double cl = bf__rnum(rr, "docs_per_s_ci_low"),
                       ch = bf__rnum(rr, "docs_per_s_ci_high");
                bf__series_set_ci(s, cl, ch, bf__rnum(rr, "docs_per_s_ci_within") > 0);
                json_t *pt = json_object();
                json_object_set_new(pt, "cell", json_string(q->cell));
                json_object_set_new(pt, "x", json_real(xv));
                json_object_set_new(pt, "concurrency", json_integer(q->concurrency));
                json_object_set_new(pt, "docs_per_s", json_real(q->docs_per_s));
                json_object_set_new(pt, "ci_low", isfinite(cl) ? json_real(cl) : json_null());
                json_object_set_new(pt, "ci_high", isfinite(ch) ? json_real(ch) : json_null());
                json_object_set_new(pt, "rejections", json_boolean(q->rejections));
                json_object_set_new(pt, "few_requests", json_boolean(q->few_requests));
                json_object_set_new(pt, "left_out",
                                    q->left_out[0] ? json_string(q->left_out) : json_null());
                json_array_append_new(points, pt);
            }
        }
        bf__plot_draw(b, &p);
        bf__plot_free(&p);
    }
    if (L->np == 0)
        bf_buf_appendz(b, "<p class=\"na\">No finished cell.</p>");
    bf_buf_appendz(b, "</div>\n");
}

/* service p50 and p99 against the main axis, laid out like the docs/s charts */
void bf__section_service_vs_axis(bf_buf_t *b, rowinfo *ri, const playout *L, json_t *charts)
{
    json_t *panels = json_array();
    json_object_set_new(charts, "service_time", panels);
    static const char *const keys[] = {"service_p50_ms", "service_p99_ms"};
    /* the responses in the window a percentile needs (bf_aggregate's latency_stats) */
    static const int needs[] = {1, 100};
    int have[2] = {0, 0};
    double ymax[2] = {0, 0}; /* one y scale per percentile over every panel */
    for (size_t k = 0; k < L->np; k++)
        for (size_t l = 0; l < L->panels[k].nl; l++)
            for (size_t a = 0; a < L->panels[k].lines[l].m; a++)
                for (int q = 0; q < 2; q++) {
                    double v = bf__rnum(&ri[L->panels[k].lines[l].idx[a]], keys[q]);
                    have[q] |= isfinite(v);
                    if (isfinite(v) && v > ymax[q])
                        ymax[q] = v;
                }
    bf_buf_appendz(b, L->bars ? "<h2 id=\"service-time\">Service time by "
                              : "<h2 id=\"service-time\">Service time against ");
    bf__html_esc(b, L->bars ? L->cat : strcmp(L->x, "batch_size") == 0 ? "batch size" : L->x);
    bf_buf_appendz(b, "</h2>\n<p class=\"note\">Send to response of each bulk request, p50 and "
                      "p99 of every cell (histograms of all agents merged), with the docs/s "
                      "charts' panels and lines: where docs/s stops growing and service time "
                      "keeps rising is the knee. p99 needs 100 requests in the window.</p>\n"
                      "<div class=\"charts\">\n");
    size_t drawn = 0;
    for (size_t k = 0; k < L->np; k++) {
        const ppanel *P = &L->panels[k];
        json_t *panel = json_object();
        json_t *lines = json_array();
        json_object_set_new(panel, "shards", P->shards ? json_integer(P->shards) : json_null());
        json_object_set_new(panel, "x_axis", json_string(L->x));
        json_object_set_new(panel, "lines", lines);
        json_array_append_new(panels, panel);
        for (size_t l = 0; l < P->nl; l++) {
            json_t *line = json_object();
            json_t *points = json_array();
            json_object_set_new(line, "label", json_string(P->lines[l].label));
            json_object_set_new(line, "points", points);
            json_array_append_new(lines, line);
            for (size_t a = 0; a < P->lines[l].m; a++) {
                const rowinfo *r = &ri[P->lines[l].idx[a]];
                json_t *pt = json_object();
                json_object_set_new(pt, "cell", json_string(r->pt.cell));
                json_object_set_new(pt, "x", json_real(bf_finding_point_axis(&r->pt, L->x)));
                for (int q = 0; q < 2; q++)
                    json_object_set_new(pt, keys[q], bf__rval(r, keys[q]));
                json_array_append_new(points, pt);
            }
        }
    }
    /* p50 panels in a row, p99 panels in the next: each percentile's panels side by side on
     * their shared scale */
    for (int q = 0; q < 2; q++) {
        if (!have[q])
            continue;
        if (drawn)
            bf_buf_appendz(b, "<div class=\"brk\"></div>");
        for (size_t k = 0; k < L->np; k++) {
            const ppanel *P = &L->panels[k];
            char title[80];
            panel_title(P, title, sizeof title, q == 0 ? "service p50, " : "service p99, ");
            plot p = {.w = 430,
                      .h = 260,
                      .title = title,
                      .xlabel = L->bars ? L->cat : axis_words(L->x),
                      .ylabel = q == 0 ? "service p50 ms" : "service p99 ms",
                      .kind = q == 0 ? "service_p50" : "service_p99",
                      .xlog2 = L->xlog2,
                      .xticks_at_data = 1,
                      .bars = L->bars,
                      .ymax = ymax[q]};
            for (size_t l = 0; l < P->nl; l++) {
                pseries *s = bf__plot_add_series(&p, P->lines[l].label, 1);
                size_t missing = 0;
                for (size_t a = 0; a < P->lines[l].m; a++) {
                    const rowinfo *r = &ri[P->lines[l].idx[a]];
                    double v = bf__rnum(r, keys[q]);
                    missing += !isfinite(v);
                    bf__series_add_why(s, bf_finding_point_axis(&r->pt, L->x), v, r->pt.cell,
                                       r->pt.rejections | r->pt.few_requests << 1 |
                                           (r->pt.left_out[0] != 0) << 2,
                                       r->pt.left_out);
                }
                /* a line without its percentile says so in the legend, not by vanishing */
                if (missing == P->lines[l].m)
                    snprintf(s->note, sizeof s->note,
                             "too few requests for %s (it needs %d in the window)",
                             q == 0 ? "p50" : "p99", needs[q]);
                else if (missing)
                    snprintf(s->note, sizeof s->note,
                             "too few requests for %s in %zu of %zu cells (it needs %d in the "
                             "window)",
                             q == 0 ? "p50" : "p99", missing, P->lines[l].m, needs[q]);
            }
            bf__plot_draw(b, &p);
            bf__plot_free(&p);
            drawn++;
        }
    }
    if (drawn == 0)
        bf_buf_appendz(b, "<p class=\"na\">No service-time percentiles (too few requests).</p>");
    bf_buf_appendz(b, "</div>\n");
}

void bf__section_per_second(bf_buf_t *b, rowinfo *ri, size_t n, json_t *charts)
{
    json_t *arr = json_array();
    json_object_set_new(charts, "per_second", arr);
    bf_buf_appendz(b, "<h2 id=\"per-second\">docs/s each second, per cell</h2>\n<p class=\"note\">"
                      "Acknowledged documents per second, all agents merged. Grey: warmup (not "
                      "measured); hatched: tail after the measurement window. An empty second is "
                      "0. One y scale for every cell.</p>\n<div class=\"charts\">\n");
    double ymax = 0; /* one y scale for every panel: cells compare at a glance */
    for (size_t i = 0; i < n; i++)
        for (size_t r = 0; r < ri[i].nruns; r++) {
            size_t k;
            json_t *v;
            json_array_foreach(ri[i].runs[r].docs_ok, k,
                               v) if ((double)json_integer_value(v) > ymax) ymax =
                (double)json_integer_value(v);
        }
    for (size_t i = 0; i < n; i++) {
        if (ri[i].nruns == 0)
            continue;
        char title[400];
        snprintf(title, sizeof title, "%s", ri[i].cell);
        uint32_t W = ri[i].runs[0].warmup_s, D = ri[i].runs[0].duration_s;
        size_t nsec = 0;
        for (size_t r = 0; r < ri[i].nruns; r++)
            if (json_array_size(ri[i].runs[r].docs_ok) > nsec)
                nsec = json_array_size(ri[i].runs[r].docs_ok);
        double xmax = (double)nsec > (double)(W + D) ? (double)nsec : (double)(W + D);
        plot p = {.w = 430,
                  .h = 210,
                  .title = title,
                  .xlabel = "second of the cell",
                  .ylabel = "docs/s",
                  .kind = "per_second",
                  .fixed_x = 1,
                  .xmin = 0,
                  .xmax = xmax > 0 ? xmax : 1,
                  .shade_to = W,
                  .tail_from = (double)(W + D),
                  .ymax = ymax};
        for (size_t r = 0; r < ri[i].nruns; r++) {
            run *rn = &ri[i].runs[r];
            char label[64];
            snprintf(label, sizeof label, "run %u", rn->repetition);
            pseries *s = bf__plot_add_series(&p, ri[i].nruns > 1 ? label : "", 0);
            size_t k;
            json_t *v;
            json_array_foreach(rn->docs_ok, k, v)
                bf__series_add(s, (double)k + 0.5, (double)json_integer_value(v), NULL, 0);
            json_t *o = json_object();
            json_object_set_new(o, "cell", json_string(ri[i].cell));
            json_object_set_new(o, "file", json_sprintf("cells/%s.ndjson", rn->stem));
            json_object_set_new(o, "repetition", json_integer(rn->repetition));
            json_object_set_new(o, "warmup_s", json_integer(rn->warmup_s));
            json_object_set_new(o, "duration_s", json_integer(rn->duration_s));
            json_object_set(o, "docs_ok", rn->docs_ok);
            json_array_append_new(arr, o);
        }
        bf__plot_draw(b, &p);
        bf__plot_free(&p);
    }
    bf_buf_appendz(b, "</div>\n");
}

const char *const bf__pct_keys[] = {"service_p50_ms", "service_p90_ms", "service_p99_ms",
                                    "service_p99_9_ms", "service_max_ms"};
static const char *const pct_names[] = {"p50", "p90", "p99", "p99.9", "max"};

/* A percentile ladder: one line per entry (label, its five bf__pct_keys values in ms, NAN = not
 * measured), log scale. */
void bf__ladder(bf_buf_t *b, const char *const *labels, const double (*vals)[5], size_t n,
                const char *chart, const char *what, const char *xlabel)
{
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < 5; k++) {
            double d = vals[i][k];
            if (isfinite(d) && d > 0) {
                lo = d < lo ? d : lo;
                hi = d > hi ? d : hi;
            }
        }
    }
    /* the row labels (cell ids, long with many axes) get the room they need, up to half the
     * width: 7 px a character is above the 11 px font's widest common glyphs' mean */
    size_t longest = 0;
    for (size_t i = 0; i < n; i++)
        longest = strlen(labels[i]) > longest ? strlen(labels[i]) : longest;
    int W = 1330, R = 30, T = 16, rowh = 18;
    int L = 16 + 7 * (int)(longest < 200 ? longest : 200);
    L = L < 230 ? 230 : L > W / 2 ? W / 2 : L;
    int H = T + rowh * (int)(n ? n : 1) + 40;
    /* the legend, above: each percentile, and in how many entries it is missing for too few
     * requests (a percentile drawn nowhere says so here instead of vanishing) */
    static const int needs[] = {1, 10, 100, 1000, 1};
    size_t measured = 0, missing[5] = {0};
    for (size_t i = 0; i < n; i++) {
        int any = 0;
        for (size_t k = 0; k < 5; k++)
            any |= isfinite(vals[i][k]) && vals[i][k] > 0;
        if (!any)
            continue;
        measured++;
        for (size_t k = 0; k < 5; k++)
            missing[k] += !isfinite(vals[i][k]);
    }
    bf_buf_appendf(b, "<ul class=\"legend ladder\" data-legend=\"%s\">", chart);
    for (size_t k = 0; k < 5; k++) {
        bf_buf_appendf(b,
                       "<li><span class=\"sw dot\" style=\"background:%s\"></span><span "
                       "class=\"lt\">%s",
                       bf__palette[k], pct_names[k]);
        if (missing[k])
            bf_buf_appendf(b,
                           ": <span class=\"few-note\">too few requests in %zu of %zu (it "
                           "needs %d)</span>",
                           missing[k], measured, needs[k]);
        bf_buf_appendz(b, "</span></li>");
    }
    bf_buf_appendz(b, "</ul>\n");
    bf_buf_appendf(b,
                   "<svg class=\"chart\" data-chart=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" "
                   "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\"><title>%s "
                   "percentiles</title>",
                   chart, W, H, W, H, what);
    if (!(hi > 0)) {
        bf_buf_appendf(b, "<text class=\"na\" x=\"20\" y=\"40\">no %s data</text></svg>\n", what);
        return;
    }
    double l0 = floor(log10(lo)), l1 = ceil(log10(hi));
    if (l1 <= l0)
        l1 = l0 + 1;
    double pw = W - L - R;
#define LX(v) (L + (log10(v) - l0) / (l1 - l0) * pw)
    for (double e = l0; e <= l1; e += 1) {
        double v = pow(10, e);
        char t[32];
        snprintf(t, sizeof t, v < 1 ? "%.3g ms" : "%.0f ms", v);
        bf_buf_appendf(b,
                       "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                       "<text class=\"xt\" x=\"%.1f\" y=\"%d\">%s</text>",
                       LX(v), T - 6, LX(v), H - 34, LX(v), H - 20, t);
    }
    for (size_t i = 0; i < n; i++) {
        int y = T + rowh * (int)i + rowh / 2;
        bf_buf_appendf(b, "<text class=\"rl\" x=\"%d\" y=\"%d\"><title>", L - 8, y + 4);
        bf__html_esc(b, labels[i]);
        bf_buf_appendz(b, "</title>");
        /* longer than the room: its start and end, "..." between (the whole in the title) */
        size_t room = (size_t)(L - 16) / 7, len = strlen(labels[i]);
        if (len > room && room > 8) {
            char cut[512];
            size_t head = (room - 3) / 2, tail = room - 3 - head;
            snprintf(cut, sizeof cut, "%.*s...%s", (int)head, labels[i], labels[i] + len - tail);
            bf__html_esc(b, cut);
        } else {
            bf__html_esc(b, labels[i]);
        }
        bf_buf_appendz(b, "</text>");
        double first = NAN, last = NAN;
        for (size_t k = 0; k < 5; k++) {
            double d = vals[i][k];
            if (isfinite(d) && d > 0) {
                if (!isfinite(first))
                    first = d;
                last = d;
            }
        }
        if (isfinite(first) && last > first)
            bf_buf_appendf(b, "<line class=\"range\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>",
                           LX(first), y, LX(last), y);
        for (size_t k = 0; k < 5; k++) {
            double d = vals[i][k];
            if (!(isfinite(d) && d > 0))
                continue;
            bf_buf_appendf(b,
                           "<circle class=\"pt\" cx=\"%.1f\" cy=\"%d\" r=\"4.5\" fill=\"%s\" "
                           "data-cell=\"",
                           LX(d), y, bf__palette[k]);
            bf__html_esc(b, labels[i]);
            bf_buf_appendf(b, "\" data-pct=\"%s\" data-y=\"%.17g\"><title>", bf__pct_keys[k], d);
            bf__html_esc(b, labels[i]);
            bf_buf_appendf(b, ": %s %.2f ms</title></circle>", pct_names[k], d);
        }
    }
#undef LX
    bf_buf_appendf(b, "<text class=\"xl\" x=\"%.1f\" y=\"%d\">%s</text></svg>\n", L + pw / 2, H - 4,
                   xlabel);
}

void bf__section_latency(bf_buf_t *b, rowinfo *ri, size_t n, json_t *charts)
{
    json_t *arr = json_array();
    json_object_set_new(charts, "latency", arr);
    bf_buf_appendz(b,
                   "<h2 id=\"latency\">Service time per cell</h2>\n<p class=\"note\">Send to "
                   "response of each bulk request, histograms of all agents merged; log scale. A "
                   "percentile is drawn only with enough requests (p90 needs 10, p99 100, p99.9 "
                   "1000).</p>\n");
    const char **labels = bf_calloc(n + 1, sizeof *labels);
    double(*vals)[5] = bf_calloc(n + 1, sizeof *vals);
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "cell", json_string(ri[i].cell));
        for (size_t k = 0; k < 5; k++) {
            json_object_set_new(o, bf__pct_keys[k], bf__rval(&ri[i], bf__pct_keys[k]));
            vals[i][k] = bf__rnum(&ri[i], bf__pct_keys[k]);
        }
        json_array_append_new(arr, o);
        labels[i] = ri[i].cell;
    }
    bf__ladder(b, labels, (const double(*)[5])vals, n, "latency", "service-time",
               "service time (ms, log scale)");
    free(labels);
    free(vals);
}
