/* SPDX-License-Identifier: MIT */
/* bf_report.c — report.html from a results directory: inline SVG charts, embedded data.
 *
 * Reading: matrix.json (the rows), cells/<cell>[-r<rep>].ndjson ("row" and "second" lines),
 * telemetry/<cell>[-r<rep>].ndjson ("info" and "tick" lines). Drawing: a small generic line
 * plot (linear or log2 x, linear y from 0, shaded warmup, hatched tail, legend) and a dot
 * plot for percentiles. Every number drawn is also put into the bf-data JSON block.
 */
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

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
#define NPALETTE (sizeof palette / sizeof palette[0])

/* ---- text helpers ------------------------------------------------------------------------- */

static void html_esc(bf_buf_t *b, const char *s)
{
    for (const char *p = s ? s : ""; *p; p++) {
        switch (*p) {
        case '&': bf_buf_appendz(b, "&amp;"); break;
        case '<': bf_buf_appendz(b, "&lt;"); break;
        case '>': bf_buf_appendz(b, "&gt;"); break;
        case '"': bf_buf_appendz(b, "&quot;"); break;
        case '\'': bf_buf_appendz(b, "&#39;"); break;
        default: bf_buf_append(b, p, 1); break;
        }
    }
}

/* 1234 -> "1.23k", 1500000 -> "1.5M" (axis ticks) */
static const char *si(double v, char *buf, size_t n)
{
    double a = fabs(v);
    if (a < 1e-9)
        v = 0; /* never "-0" */
    if (a >= 1e6)
        snprintf(buf, n, "%.3gM", v / 1e6);
    else if (a >= 1e3)
        snprintf(buf, n, "%.3gk", v / 1e3);
    else
        snprintf(buf, n, "%.3g", v);
    return buf;
}

static const char *num_or_dash(json_t *v, int decimals, char *buf, size_t n)
{
    if (json_is_integer(v))
        snprintf(buf, n, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, n, "%.*f", decimals, json_real_value(v));
    else
        snprintf(buf, n, "-");
    return buf;
}

static double jnum(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void unknown_field(const char *key);

static json_t *qval(const bf_qrow_t *q, const char *key)
{
    json_t *v = bf_qrow_field_value(q, key);
    if (v == NULL)
        unknown_field(key);
    return v ? v : json_null();
}

static double qnum(const bf_qrow_t *q, const char *key)
{
    json_t *v = qval(q, key);
    double d = json_is_number(v) ? json_number_value(v) : NAN;
    json_decref(v);
    return d;
}

/* ---- the generic line plot ---------------------------------------------------------------- */

typedef struct pseries {
    char label[300];
    double *x, *y;
    char **cell;     /* data-cell per point (owned strings) or NULL */
    uint8_t *flag;   /* 1 = rejections: red ring; 2 = few requests: hollow; 4 = left out of
                      * the findings (degraded, unverified, ...): hollow, dashed, struck,
                      * labelled, and off the line */
    char **why;      /* with flag 4: why the findings leave the point out (owned) or NULL */
    /* the interval of y (docs/s: the median's across repetitions, or within one run), drawn
     * as whiskers; NAN = none. within[k] = 1: within one run (drift between runs not in it) */
    double *lo, *hi;
    uint8_t *within;
    size_t n, cap;
    int markers;
    char note[200]; /* said in the legend after the label: why the line lacks points ("too few
                       requests for p99 ...") */
} pseries;

typedef struct plot {
    int w, h;                /* plot area + axes; the legend adds below */
    const char *title, *xlabel, *ylabel, *kind;
    int xlog2;               /* log2 x axis (concurrency) */
    int xticks_at_data;      /* ticks at the distinct x values of the data */
    int fixed_x;             /* use xmin/xmax as given */
    double ymax;             /* > 0: the y axis reaches at least this (panels share a scale) */
    double xmin, xmax;
    double shade_to;         /* warmup [xmin, shade_to) shaded when > xmin */
    double tail_from;        /* hatched [tail_from, xmax] when < xmax */
    int bars;                /* side by side: each series is one bar (its label under it, its
                                first point's y), for an axis of text values (target=direct,
                                target=gateway) where a line over one x value shows nothing */
    pseries *s;
    size_t ns;
} plot;

static pseries *plot_add_series(plot *p, const char *label, int markers)
{
    p->s = bf_realloc(p->s, (p->ns + 1) * sizeof *p->s);
    pseries *s = &p->s[p->ns++];
    memset(s, 0, sizeof *s);
    bf_strlcpy(s->label, label ? label : "", sizeof s->label);
    s->markers = markers;
    return s;
}

static void series_add_why(pseries *s, double x, double y, const char *cell, int flag,
                           const char *why)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->x = bf_realloc(s->x, s->cap * sizeof *s->x);
        s->y = bf_realloc(s->y, s->cap * sizeof *s->y);
        s->cell = bf_realloc(s->cell, s->cap * sizeof *s->cell);
        s->flag = bf_realloc(s->flag, s->cap);
        s->why = bf_realloc(s->why, s->cap * sizeof *s->why);
        s->lo = bf_realloc(s->lo, s->cap * sizeof *s->lo);
        s->hi = bf_realloc(s->hi, s->cap * sizeof *s->hi);
        s->within = bf_realloc(s->within, s->cap);
    }
    s->lo[s->n] = NAN;
    s->hi[s->n] = NAN;
    s->within[s->n] = 0;
    s->why[s->n] = why && why[0] ? bf_strdup(why) : NULL;
    s->x[s->n] = x;
    s->y[s->n] = y;
    s->cell[s->n] = cell ? bf_strdup(cell) : NULL;
    s->flag[s->n] = (uint8_t)flag;
    s->n++;
}

static void series_add(pseries *s, double x, double y, const char *cell, int flag)
{
    series_add_why(s, x, y, cell, flag, NULL);
}

/* the interval [lo, hi] of the point just added (whiskers); within = 1: within one run */
static void series_set_ci(pseries *s, double lo, double hi, int within)
{
    if (s->n == 0 || !isfinite(lo) || !isfinite(hi) || hi < lo)
        return;
    s->lo[s->n - 1] = lo;
    s->hi[s->n - 1] = hi;
    s->within[s->n - 1] = (uint8_t)within;
}

static void plot_free(plot *p)
{
    for (size_t i = 0; i < p->ns; i++) {
        for (size_t k = 0; k < p->s[i].n; k++) {
            free(p->s[i].cell[k]);
            free(p->s[i].why[k]);
        }
        free(p->s[i].cell);
        free(p->s[i].why);
        free(p->s[i].x);
        free(p->s[i].y);
        free(p->s[i].flag);
        free(p->s[i].lo);
        free(p->s[i].hi);
        free(p->s[i].within);
    }
    free(p->s);
    p->s = NULL;
    p->ns = 0;
}

static double nice_step(double range, int nticks)
{
    if (!(range > 0))
        return 1;
    double raw = range / nticks;
    double mag = pow(10.0, floor(log10(raw)));
    double f = raw / mag;
    double m = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
    return m * mag;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The width in px a label of len characters takes in the charts' sans-serif at font_px: 0.6
 * em a character is above the mean advance of common glyphs in DejaVu Sans and Helvetica, so
 * a label placed by it stays inside its panel. */
static double text_w(size_t len, double font_px)
{
    return (double)len * font_px * 0.6;
}

/* Where a label of width tw centred on x goes so that it stays within [lo, hi]: *x_out and
 * the text-anchor to write (middle; start at lo; end at hi). */
static const char *fit_x(double x, double tw, double lo, double hi, double *x_out)
{
    *x_out = x;
    if (x - tw / 2 < lo) {
        *x_out = lo;
        return "start";
    }
    if (x + tw / 2 > hi) {
        *x_out = hi;
        return "end";
    }
    return "middle";
}

#define PL 70 /* plot margins in px */
#define PR 18
#define PT 14
#define PB 44

/* A chart is a <figure>: the SVG plot, then its legend as an HTML list that wraps within the
 * figure's width, so legend entries never overlap however long the line labels (axis values)
 * are; the page's layout engine places them, not a guess at text widths. */
static void plot_legend(bf_buf_t *b, const plot *p)
{
    int named = 0, noted = 0;
    for (size_t i = 0; i < p->ns; i++) {
        named |= p->s[i].label[0] != '\0';
        noted |= p->s[i].note[0] != '\0';
    }
    if ((p->ns < 2 || !named) && !noted)
        return;
    bf_buf_appendz(b, "<ul class=\"legend\">");
    for (size_t i = 0; i < p->ns; i++) {
        bf_buf_appendf(b,
                       "<li><span class=\"sw\" style=\"background:%s\"></span><span "
                       "class=\"lt\">",
                       palette[i % NPALETTE]);
        html_esc(b, p->s[i].label);
        if (p->s[i].note[0]) {
            bf_buf_appendz(b, p->s[i].label[0] ? ": <span class=\"few-note\">"
                                               : "<span class=\"few-note\">");
            html_esc(b, p->s[i].note);
            bf_buf_appendz(b, "</span>");
        }
        bf_buf_appendz(b, "</span></li>");
    }
    bf_buf_appendz(b, "</ul>");
}

static void plot_draw_svg(bf_buf_t *b, const plot *p);

static void plot_draw(bf_buf_t *b, const plot *p)
{
    bf_buf_appendf(b, "<figure class=\"cf\" style=\"width:%dpx\"><figcaption class=\"ct\">", p->w);
    html_esc(b, p->title);
    bf_buf_appendz(b, "</figcaption>");
    plot_draw_svg(b, p);
    plot_legend(b, p);
    bf_buf_appendz(b, "</figure>\n");
}

/* The bars of a plot with .bars: one per series, in order, on a y axis from 0 to ytop; each
 * bar's value above it, its label (the series') under it, shortened in the middle when the
 * slot is narrow (the whole label in the tooltip and the legend). Flags as the markers': red
 * outline = rejections, hollow = few requests. */
static void bars_svg(bf_buf_t *b, const plot *p, double pw, double ph, double ytop)
{
    double slot = pw / (double)(p->ns ? p->ns : 1), bw = slot * 0.7;
    size_t fit = (size_t)(slot / 6.5); /* characters of an 11 px label that fit its slot */
    char t[64];
    for (size_t i = 0; i < p->ns; i++) {
        const pseries *s = &p->s[i];
        const char *col = palette[i % NPALETTE];
        double y = s->n ? s->y[0] : NAN;
        int flag = s->n ? s->flag[0] : 0, rej = flag & 1, few = flag & 2, lo = flag & 4;
        double x = PL + slot * (double)i + (slot - bw) / 2, cx = PL + slot * ((double)i + 0.5);
        bf_buf_appendz(b, "<g class=\"series bar\" data-label=\"");
        html_esc(b, s->label);
        bf_buf_appendz(b, "\">");
        if (isfinite(y)) {
            double top = PT + ph - y / ytop * ph;
            bf_buf_appendf(b,
                           "<rect class=\"bar%s%s%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                           "height=\"%.1f\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\" "
                           "%sdata-cell=\"",
                           rej ? " rej" : "", few ? " few" : "", lo ? " left" : "", x, top, bw,
                           PT + ph - top, few || lo ? "#fff" : col, rej ? "#d62728" : col,
                           rej ? "2.5" : "1", lo ? "stroke-dasharray=\"4 3\" " : "");
            html_esc(b, s->n ? s->cell[0] : "");
            bf_buf_appendf(b, "\" data-y=\"%.17g\"><title>", y);
            html_esc(b, s->label);
            bf_buf_appendz(b, " (");
            html_esc(b, s->n ? s->cell[0] : "");
            bf_buf_appendf(b, "): %s %.0f%s%s", p->ylabel, y, rej ? " (rejections)" : "",
                           few ? " (few requests: fewer than 20 bulk responses, not ranked)" : "");
            if (lo) {
                bf_buf_appendz(b, " (left out of the findings: ");
                html_esc(b, s->why && s->why[0] ? s->why[0] : "not a measurement");
                bf_buf_appendz(b, ")");
            }
            bf_buf_appendz(b, "</title></rect>");
            if (s->n && isfinite(s->lo[0])) {
                double y0 = PT + ph - s->lo[0] / ytop * ph, y1 = PT + ph - s->hi[0] / ytop * ph;
                bf_buf_appendf(b,
                               "<path class=\"ci%s\" d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f "
                               "%.1fH%.1f\" stroke=\"#333\" fill=\"none\"><title>95%% CI "
                               "%.0f-%.0f docs/s</title></path>",
                               s->within[0] ? " within" : "", cx, y0, y1, cx - 5, y0, cx + 5,
                               cx - 5, y1, cx + 5, s->lo[0], s->hi[0]);
                if (y1 < top)
                    top = y1;
            }
            /* inside the panel whatever the bar's place: "left out: 1.2k" is wider than a
             * narrow slot at either end */
            si(y, t, sizeof t);
            double tx;
            const char *anchor = fit_x(cx, text_w(strlen(t) + (lo ? 10 : 0), 11), 2, p->w - 2, &tx);
            bf_buf_appendf(b,
                           "<text class=\"bv%s\" x=\"%.1f\" y=\"%.1f\" "
                           "style=\"text-anchor:%s\">%s%s</text>",
                           lo ? " lo" : "", tx, top - 4 < 12 ? 12 : top - 4, anchor,
                           lo ? "left out: " : "", t);
        } else {
            bf_buf_appendf(b, "<text class=\"na\" x=\"%.1f\" y=\"%.1f\">-</text>", cx, PT + ph - 4);
        }
        /* the label under the bar: the value alone when it names one axis (the x label
         * names the axis), "a...z" when it does not fit */
        const char *eq = strchr(s->label, '=');
        const char *shown = eq && strstr(s->label, ", ") == NULL ? eq + 1 : s->label;
        char lab[300];
        size_t ll = strlen(shown);
        if (fit >= 5 && ll > fit)
            snprintf(lab, sizeof lab, "%.*s...%s", (int)((fit - 3) / 2), shown,
                     shown + ll - (fit - 3 - (fit - 3) / 2));
        else
            bf_strlcpy(lab, shown, sizeof lab);
        bf_buf_appendf(b, "<text class=\"xt\" x=\"%.1f\" y=\"%.1f\">", cx, PT + ph + 19);
        html_esc(b, lab);
        bf_buf_appendz(b, "</text></g>");
    }
}

static void plot_draw_svg(bf_buf_t *b, const plot *p)
{
    int H = p->h;
    double xmin = INFINITY, xmax = -INFINITY, ymax = 0;
    size_t npts = 0;
    for (size_t i = 0; i < p->ns; i++) {
        for (size_t k = 0; k < p->s[i].n; k++) {
            double x = p->s[i].x[k], y = p->s[i].y[k];
            if (!isfinite(x) || (p->xlog2 && x <= 0))
                continue;
            npts++;
            if (x < xmin)
                xmin = x;
            if (x > xmax)
                xmax = x;
            if (isfinite(y) && y > ymax)
                ymax = y;
            if (isfinite(p->s[i].hi[k]) && p->s[i].hi[k] > ymax)
                ymax = p->s[i].hi[k];
        }
    }
    if (p->ymax > ymax)
        ymax = p->ymax;
    if (p->fixed_x) {
        xmin = p->xmin;
        xmax = p->xmax;
    }
    bf_buf_appendf(b, "<svg class=\"chart\" data-chart=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" "
                   "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">",
                   p->kind, p->w, H, p->w, H);
    bf_buf_appendz(b, "<title>");
    html_esc(b, p->title);
    bf_buf_appendz(b, "</title>"); /* the visible title is the figure's caption: it wraps */
    double pw = p->w - PL - PR, ph = p->h - PT - PB;
    if (npts == 0 && !p->fixed_x) {
        bf_buf_appendf(b, "<text class=\"na\" x=\"%d\" y=\"%d\">no data</text></svg>", p->w / 2 - 24,
                       p->h / 2);
        return;
    }
    double lx0 = p->xlog2 ? log2(xmin) : xmin, lx1 = p->xlog2 ? log2(xmax) : xmax;
    double step = nice_step(ymax > 0 ? ymax : 1, 5);
    double ytop = ceil((ymax > 0 ? ymax : 1) / step) * step;
    if (p->bars && ytop < ymax * 1.08) /* room for the values above the bars */
        ytop += step;
#define XP(x) (lx1 > lx0 ? PL + ((p->xlog2 ? log2(x) : (x)) - lx0) / (lx1 - lx0) * pw : PL + pw / 2)
#define YP(y) (PT + ph - (y) / ytop * ph)
    /* warmup shading and tail hatching first, under everything */
    if (p->shade_to > xmin) {
        double x1 = p->shade_to < xmax ? p->shade_to : xmax;
        bf_buf_appendf(b, "<rect class=\"warmup\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%.1f\">"
                       "<title>warmup: not measured</title></rect>"
                       "<text class=\"sl\" x=\"%.1f\" y=\"%d\">warmup</text>",
                       XP(xmin), PT, XP(x1) - XP(xmin), ph, XP(xmin) + 3, PT + 11);
    }
    if (p->tail_from < xmax && p->tail_from > xmin) {
        bf_buf_appendf(b, "<rect class=\"tail\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%.1f\">"
                       "<title>tail: completed after the window, not measured</title></rect>",
                       XP(p->tail_from), PT, XP(xmax) - XP(p->tail_from), ph);
    }
    /* axes, grid and ticks */
    char t[64];
    for (int k = 0; k < 64 && k * step <= ytop + step / 2; k++) {
        double y = k * step;
        bf_buf_appendf(b, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                       "<text class=\"yt\" x=\"%d\" y=\"%.1f\">%s</text>",
                       PL, YP(y), PL + pw, YP(y), PL - 5, YP(y) + 4, si(y, t, sizeof t));
    }
    if (p->bars) {
        /* the categories are the bars' labels, drawn with them */
    } else if (p->xticks_at_data) {
        double *xs = bf_calloc(npts + 1, sizeof *xs);
        size_t nx = 0;
        for (size_t i = 0; i < p->ns; i++)
            for (size_t k = 0; k < p->s[i].n; k++)
                if (isfinite(p->s[i].x[k]))
                    xs[nx++] = p->s[i].x[k];
        qsort(xs, nx, sizeof *xs, cmp_dbl);
        for (size_t i = 0; i < nx; i++) {
            if (i > 0 && xs[i] == xs[i - 1])
                continue;
            bf_buf_appendf(b,
                           "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                           "<text class=\"xt\" x=\"%.1f\" y=\"%.1f\">%s</text>",
                           XP(xs[i]), PT + ph, XP(xs[i]), PT + ph + 4, XP(xs[i]), PT + ph + 19,
                           si(xs[i], t, sizeof t));
        }
        free(xs);
    } else {
        /* a range lost in rounding (xmin 19.999999999999996, xmax 20: a search-only cell's
         * seconds) gave a step of 1e-15 that x += xs never moved past 20: an endless loop
         * appending ticks until memory ran out. Such a range counts as none, and the ticks are
         * counted, never more than 64. */
        double span = xmax - xmin, scale = fmax(fmax(fabs(xmin), fabs(xmax)), 1.0);
        double xs = nice_step(span > scale * 1e-9 ? span : 0, 6);
        double x0 = ceil(xmin / xs) * xs;
        for (int k = 0; k < 64; k++) {
            double x = x0 + k * xs;
            if (x > xmax + xs / 1000)
                break;
            bf_buf_appendf(b,
                           "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                           "<text class=\"xt\" x=\"%.1f\" y=\"%.1f\">%s</text>",
                           XP(x), PT + ph, XP(x), PT + ph + 4, XP(x), PT + ph + 19,
                           si(x, t, sizeof t));
        }
    }
    bf_buf_appendf(b, "<line class=\"axis\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                   "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%.1f\"/>",
                   PL, PT + ph, PL + pw, PT + ph, PL, PT, PL, PT + ph);
    /* an axis label wider than the panel (the bars' "the axes that vary (...)") is squeezed
     * to the panel's width, never cut by its edge */
    double xlw = text_w(strlen(p->xlabel), 12);
    if (xlw > p->w - 8)
        bf_buf_appendf(b,
                       "<text class=\"xl\" x=\"%.1f\" y=\"%.1f\" textLength=\"%d\" "
                       "lengthAdjust=\"spacingAndGlyphs\">",
                       p->w / 2.0, PT + ph + 37, p->w - 8);
    else
        bf_buf_appendf(b, "<text class=\"xl\" x=\"%.1f\" y=\"%.1f\">", PL + pw / 2, PT + ph + 37);
    html_esc(b, p->xlabel);
    bf_buf_appendf(b, "</text><text class=\"yl\" transform=\"translate(14 %.1f) rotate(-90)\">",
                   PT + ph / 2);
    html_esc(b, p->ylabel);
    bf_buf_appendz(b, "</text>");
    if (p->bars) {
        bars_svg(b, p, pw, ph, ytop);
        bf_buf_appendz(b, "</svg>");
        return;
    }
    /* the series */
    for (size_t i = 0; i < p->ns; i++) {
        const pseries *s = &p->s[i];
        const char *col = palette[i % NPALETTE];
        bf_buf_appendz(b, "<g class=\"series\" data-label=\"");
        html_esc(b, s->label);
        bf_buf_appendf(b, "\"><polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" points=\"", col,
                       s->markers ? "2" : "1.5");
        for (size_t k = 0; k < s->n; k++) /* a left-out point is no step of the line */
            if (isfinite(s->x[k]) && isfinite(s->y[k]) && !(p->xlog2 && s->x[k] <= 0) &&
                !(s->flag[k] & 4))
                bf_buf_appendf(b, "%.1f,%.1f ", XP(s->x[k]), YP(s->y[k]));
        bf_buf_appendz(b, "\"/>");
        for (size_t k = 0; s->markers && k < s->n; k++) {
            if (!isfinite(s->x[k]) || !isfinite(s->y[k]) || (p->xlog2 && s->x[k] <= 0))
                continue;
            /* flag bit 1: rejections (red ring); bit 2: few-requests (hollow: not ranked) */
            int rej = s->flag[k] & 1, few = s->flag[k] & 2, lo = s->flag[k] & 4;
            if (isfinite(s->lo[k])) /* the interval: a whisker with caps, under the marker */
                bf_buf_appendf(b,
                               "<path class=\"ci%s\" d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f "
                               "%.1fH%.1f\" stroke=\"%s\" fill=\"none\"><title>95%% CI "
                               "%.0f-%.0f docs/s (%s)</title></path>",
                               s->within[k] ? " within" : "", XP(s->x[k]), YP(s->lo[k]),
                               YP(s->hi[k]), XP(s->x[k]) - 4, YP(s->lo[k]), XP(s->x[k]) + 4,
                               XP(s->x[k]) - 4, YP(s->hi[k]), XP(s->x[k]) + 4, col, s->lo[k],
                               s->hi[k],
                               s->within[k] ? "within one run: drift between runs is not in it"
                                            : "of the median over the repetitions");
            if (lo) { /* struck through and labelled, under its hollow marker; the label on
                       * the side of the marker with room, so the panel's edge never cuts it
                       * (a point at the last x: "le") */
                double px = XP(s->x[k]), py = YP(s->y[k]), lw = text_w(8, 11);
                int left = px + 7 + lw > p->w - 2;
                double ly = py - 6 < 12 ? py + 16 : py - 6;
                bf_buf_appendf(b,
                               "<line class=\"strike\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                               "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\"/><text "
                               "class=\"lo\" x=\"%.1f\" y=\"%.1f\" "
                               "style=\"text-anchor:%s\">left out</text>",
                               px - 6, py + 6, px + 6, py - 6, col, left ? px - 7 : px + 7, ly,
                               left ? "end" : "start");
            }
            bf_buf_appendf(b,
                           "<circle class=\"pt%s%s%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
                           "fill=\"%s\" ",
                           rej ? " rej" : "", few ? " few" : "", lo ? " left" : "", XP(s->x[k]),
                           YP(s->y[k]), few || lo ? "#fff" : col);
            if (few || lo)
                bf_buf_appendf(b, "stroke=\"%s\" %s", col, lo ? "stroke-dasharray=\"2 2\" " : "");
            bf_buf_appendz(b, "data-cell=\"");
            html_esc(b, s->cell[k]);
            bf_buf_appendf(b, "\" data-x=\"%.17g\" data-y=\"%.17g\"><title>", s->x[k], s->y[k]);
            html_esc(b, s->cell[k]);
            bf_buf_appendf(b, ": %s %.0f%s%s", p->ylabel, s->y[k], rej ? " (rejections)" : "",
                           few ? " (few requests: fewer than 20 bulk responses, not ranked)" : "");
            if (lo) {
                bf_buf_appendz(b, " (left out of the findings: ");
                html_esc(b, s->why[k] ? s->why[k] : "not a measurement");
                bf_buf_appendz(b, ")");
            }
            bf_buf_appendz(b, "</title></circle>");
        }
        bf_buf_appendz(b, "</g>");
    }
    bf_buf_appendz(b, "</svg>");
#undef XP
#undef YP
}

/* ---- reading the directory ---------------------------------------------------------------- */

typedef struct run {
    char stem[300];          /* cells/<stem>.ndjson */
    uint32_t repetition;
    uint32_t warmup_s, duration_s;
    json_t *docs_ok;         /* array of integers, one per second */
    json_t *query_ops;       /* {query name: array of answered queries per second} */
    json_t *tele;            /* {"file","nodes":{name:{t_ms,queue,rejected_delta}},"summary"} or NULL */
    char note[200];
} run;

typedef struct rowinfo {
    json_t *row;      /* borrowed from matrix.json (its queries; the row's own fields are
                         read from rec) */
    bf_row_rec_t rec; /* the row decoded through the row codec (bf_results.h) */
    const char *cell;
    bf_finding_point_t pt;
    run *runs;
    size_t nruns;
} rowinfo;

/* A row field by its matrix.json name, through the row codec: the value as the writers wrote
 * it (a new reference). A name the row table does not have is a programmer error (the report
 * drifted from the table), not a silent "-". */
/* field names the report asked for that the row or query table does not have (a report that
 * drifted from the table): counted and said, never shown as a quiet "-" (test_report checks
 * it stays 0) */
static unsigned unknown_fields;

static void unknown_field(const char *key)
{
    if (unknown_fields++ == 0)
        bf_error("report: no field \"%s\" in the results row table (bf_results.c): the report "
                 "reads a name the writers do not write",
                 key);
}

static json_t *rval(const rowinfo *r, const char *key)
{
    json_t *v = bf_row_field_value(&r->rec.row, key);
    if (v == NULL)
        unknown_field(key);
    return v ? v : json_null();
}

static double rnum(const rowinfo *r, const char *key)
{
    double d = NAN;
    if (bf_row_field_number(&r->rec.row, key, &d) != BF_OK)
        unknown_field(key);
    return d;
}

unsigned bf_report_unknown_fields(void)
{
    return unknown_fields;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static FILE *open_capped(const char *path, char *note, size_t note_size)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL;
    if ((uint64_t)st.st_size > BF_MAX_REPORT_FILE_BYTES) {
        snprintf(note, note_size, "%s is larger than %u MiB; not drawn", path,
                 BF_MAX_REPORT_FILE_BYTES >> 20);
        return NULL;
    }
    return fopen(path, "r");
}

static void load_cell_file(const char *dir, run *r)
{
    char *path = bf_asprintf("%s/cells/%s.ndjson", dir, r->stem);
    FILE *f = open_capped(path, r->note, sizeof r->note);
    free(path);
    r->docs_ok = json_array();
    r->query_ops = json_object();
    if (f == NULL)
        return;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int first = 1;
    while ((n = getline(&line, &cap, f)) > 0) {
        int is_row = first && strstr(line, "\"type\":\"row\"") != NULL;
        first = 0;
        if (!is_row && strstr(line, "\"type\":\"second\"") == NULL)
            continue; /* agent_second and raw sample lines */
        json_t *o = json_loads(line, 0, NULL);
        if (!json_is_object(o)) {
            json_decref(o);
            continue;
        }
        if (is_row) {
            r->warmup_s = (uint32_t)json_integer_value(json_object_get(o, "warmup_s"));
            r->duration_s = (uint32_t)json_integer_value(json_object_get(o, "duration_s"));
            r->repetition = (uint32_t)json_integer_value(json_object_get(o, "repetition"));
        } else {
            json_int_t s = json_integer_value(json_object_get(o, "second"));
            if (s >= 0 && s < 1000000) {
                while ((json_int_t)json_array_size(r->docs_ok) <= s)
                    json_array_append_new(r->docs_ok, json_integer(0));
                json_array_set(r->docs_ok, (size_t)s, json_object_get(o, "docs_ok"));
                const char *qn;
                json_t *qv;
                json_object_foreach(json_object_get(o, "query_ops"), qn, qv) {
                    json_t *a = json_object_get(r->query_ops, qn);
                    if (a == NULL) {
                        a = json_array();
                        json_object_set_new(r->query_ops, qn, a);
                    }
                    while ((json_int_t)json_array_size(a) <= s)
                        json_array_append_new(a, json_integer(0));
                    json_array_set(a, (size_t)s, qv);
                }
            }
        }
        json_decref(o);
    }
    free(line);
    fclose(f);
}

static void load_tele_file(const char *dir, run *r)
{
    char *path = bf_asprintf("%s/telemetry/%s.ndjson", dir, r->stem);
    FILE *f = open_capped(path, r->note, sizeof r->note);
    free(path);
    if (f == NULL)
        return;
    r->tele = json_object();
    json_t *nodes = json_object();
    json_object_set_new(r->tele, "file", json_sprintf("telemetry/%s.ndjson", r->stem));
    json_object_set_new(r->tele, "nodes", nodes);
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        json_t *o = json_loads(line, 0, NULL);
        const char *type = json_string_value(json_object_get(o, "type"));
        if (type && strcmp(type, "tick") == 0) {
            json_t *t = json_object_get(o, "t_ms");
            size_t i;
            json_t *nd;
            json_array_foreach(json_object_get(o, "nodes"), i, nd) {
                const char *name = json_string_value(json_object_get(nd, "name"));
                if (name == NULL)
                    continue;
                json_t *ns = json_object_get(nodes, name);
                if (ns == NULL) {
                    ns = json_pack("{s:[],s:[],s:[]}", "t_ms", "queue", "rejected_delta");
                    json_object_set_new(nodes, name, ns);
                }
                json_array_append(json_object_get(ns, "t_ms"), t ? t : json_null());
                json_array_append(json_object_get(ns, "queue"), json_object_get(nd, "queue") ?: json_null());
                json_array_append(json_object_get(ns, "rejected_delta"),
                                  json_object_get(nd, "rejected_delta") ?: json_null());
            }
        } else if (type && strcmp(type, "summary") == 0) {
            json_object_del(o, "type");
            json_object_set(r->tele, "summary", o);
        }
        json_decref(o);
    }
    free(line);
    fclose(f);
}

static void find_runs(const char *dir, rowinfo *ri)
{
    char *path = bf_asprintf("%s/cells/%s.ndjson", dir, ri->cell);
    int single = file_exists(path);
    free(path);
    size_t want = single ? 1 : BF_MAX_REPORT_REPS;
    for (size_t k = 0; k < want; k++) {
        char stem[300];
        if (single)
            snprintf(stem, sizeof stem, "%s", ri->cell);
        else
            snprintf(stem, sizeof stem, "%s-r%zu", ri->cell, k + 1);
        if (!single) {
            char *p = bf_asprintf("%s/cells/%s.ndjson", dir, stem);
            int ok = file_exists(p);
            free(p);
            if (!ok)
                break;
        }
        ri->runs = bf_realloc(ri->runs, (ri->nruns + 1) * sizeof *ri->runs);
        run *r = &ri->runs[ri->nruns++];
        memset(r, 0, sizeof *r);
        bf_strlcpy(r->stem, stem, sizeof r->stem);
        r->repetition = single ? 1 : (uint32_t)(k + 1);
        r->warmup_s = ri->rec.row.warmup_s;
        r->duration_s = ri->rec.row.duration_s;
        load_cell_file(dir, r);
        load_tele_file(dir, r);
    }
}

/* ---- sections ----------------------------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The main charts' layout: x = the axis that varies most (bf_findings_main_axis), one panel per
 * shard count (one panel when x is shards), one line per combination of the other axes that
 * vary (the findings' label), points in order of x. */
typedef struct pline {
    char label[300];
    size_t *idx; /* into ri */
    size_t m;
} pline;

typedef struct ppanel {
    uint32_t shards; /* 0: every shard count (x is shards) */
    pline *lines;
    size_t nl;
} ppanel;

typedef struct playout {
    const char *x; /* borrowed from the findings */
    int xlog2;
    int bars;      /* x has one value and other axes vary (only text axes such as target:
                      direct, gateway): bars side by side, one per line, not lines */
    char cat[128]; /* bars: what the bars are ("target"; "the axes that vary") */
    ppanel *panels;
    size_t np;
} playout;

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

static void layout_build(playout *L, rowinfo *ri, size_t n, const bf_finding_point_t *pts,
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

static void layout_free(playout *L)
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

static void section_throughput(bf_buf_t *b, rowinfo *ri, size_t n, const playout *L, json_t *charts)
{
    json_t *panels = json_array();
    json_object_set_new(charts, "throughput", panels);
    double ymax = 0; /* one y scale for every panel: shard counts compare at a glance */
    for (size_t i = 0; i < n; i++) {
        if (!ri[i].pt.excluded && isfinite(ri[i].pt.docs_per_s) && ri[i].pt.docs_per_s > ymax)
            ymax = ri[i].pt.docs_per_s;
        double hi = rnum(&ri[i], "docs_per_s_ci_high"); /* the whiskers share it too */
        if (!ri[i].pt.excluded && isfinite(hi) && hi > ymax)
            ymax = hi;
    }
    if (L->bars) {
        bf_buf_appendz(b, "<h2 id=\"throughput\">docs/s by ");
        html_esc(b, L->cat);
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
        html_esc(b, strcmp(L->x, "batch_size") == 0 ? "batch size" : L->x);
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
            pseries *s = plot_add_series(&p, P->lines[l].label, 1);
            json_t *line = json_object();
            json_t *points = json_array();
            json_object_set_new(line, "label", json_string(P->lines[l].label));
            json_object_set_new(line, "points", points);
            json_array_append_new(lines, line);
            for (size_t a = 0; a < P->lines[l].m; a++) {
                const bf_finding_point_t *q = &ri[P->lines[l].idx[a]].pt;
                double xv = bf_finding_point_axis(q, L->x);
                series_add_why(s, xv, q->docs_per_s, q->cell,
                               q->rejections | q->few_requests << 1 | (q->left_out[0] != 0) << 2,
                               q->left_out);
                const rowinfo *rr = &ri[P->lines[l].idx[a]];
                double cl = rnum(rr, "docs_per_s_ci_low"), ch = rnum(rr, "docs_per_s_ci_high");
                series_set_ci(s, cl, ch, rnum(rr, "docs_per_s_ci_within") > 0);
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
        plot_draw(b, &p);
        plot_free(&p);
    }
    if (L->np == 0)
        bf_buf_appendz(b, "<p class=\"na\">No finished cell.</p>");
    bf_buf_appendz(b, "</div>\n");
}

/* service p50 and p99 against the main axis, laid out like the docs/s charts */
static void section_service_vs_axis(bf_buf_t *b, rowinfo *ri, const playout *L, json_t *charts)
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
                    double v = rnum(&ri[L->panels[k].lines[l].idx[a]], keys[q]);
                    have[q] |= isfinite(v);
                    if (isfinite(v) && v > ymax[q])
                        ymax[q] = v;
                }
    bf_buf_appendz(b, L->bars ? "<h2 id=\"service-time\">Service time by "
                              : "<h2 id=\"service-time\">Service time against ");
    html_esc(b, L->bars ? L->cat : strcmp(L->x, "batch_size") == 0 ? "batch size" : L->x);
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
                    json_object_set_new(pt, keys[q], rval(r, keys[q]));
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
                pseries *s = plot_add_series(&p, P->lines[l].label, 1);
                size_t missing = 0;
                for (size_t a = 0; a < P->lines[l].m; a++) {
                    const rowinfo *r = &ri[P->lines[l].idx[a]];
                    double v = rnum(r, keys[q]);
                    missing += !isfinite(v);
                    series_add_why(s, bf_finding_point_axis(&r->pt, L->x), v, r->pt.cell,
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
            plot_draw(b, &p);
            plot_free(&p);
            drawn++;
        }
    }
    if (drawn == 0)
        bf_buf_appendz(b, "<p class=\"na\">No service-time percentiles (too few requests).</p>");
    bf_buf_appendz(b, "</div>\n");
}

static void section_per_second(bf_buf_t *b, rowinfo *ri, size_t n, json_t *charts)
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
            pseries *s = plot_add_series(&p, ri[i].nruns > 1 ? label : "", 0);
            size_t k;
            json_t *v;
            json_array_foreach(rn->docs_ok, k, v)
                series_add(s, (double)k + 0.5, (double)json_integer_value(v), NULL, 0);
            json_t *o = json_object();
            json_object_set_new(o, "cell", json_string(ri[i].cell));
            json_object_set_new(o, "file", json_sprintf("cells/%s.ndjson", rn->stem));
            json_object_set_new(o, "repetition", json_integer(rn->repetition));
            json_object_set_new(o, "warmup_s", json_integer(rn->warmup_s));
            json_object_set_new(o, "duration_s", json_integer(rn->duration_s));
            json_object_set(o, "docs_ok", rn->docs_ok);
            json_array_append_new(arr, o);
        }
        plot_draw(b, &p);
        plot_free(&p);
    }
    bf_buf_appendz(b, "</div>\n");
}

static const char *const pct_keys[] = {"service_p50_ms", "service_p90_ms", "service_p99_ms",
                                       "service_p99_9_ms", "service_max_ms"};
static const char *const pct_names[] = {"p50", "p90", "p99", "p99.9", "max"};

/* A percentile ladder: one line per entry (label, its five pct_keys values in ms, NAN = not
 * measured), log scale. */
static void ladder(bf_buf_t *b, const char *const *labels, const double (*vals)[5], size_t n,
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
                       palette[k], pct_names[k]);
        if (missing[k])
            bf_buf_appendf(b,
                           ": <span class=\"few-note\">too few requests in %zu of %zu (it "
                           "needs %d)</span>",
                           missing[k], measured, needs[k]);
        bf_buf_appendz(b, "</span></li>");
    }
    bf_buf_appendz(b, "</ul>\n");
    bf_buf_appendf(b, "<svg class=\"chart\" data-chart=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" "
                   "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\"><title>%s "
                   "percentiles</title>", chart, W, H, W, H, what);
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
        bf_buf_appendf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                       "<text class=\"xt\" x=\"%.1f\" y=\"%d\">%s</text>",
                       LX(v), T - 6, LX(v), H - 34, LX(v), H - 20, t);
    }
    for (size_t i = 0; i < n; i++) {
        int y = T + rowh * (int)i + rowh / 2;
        bf_buf_appendf(b, "<text class=\"rl\" x=\"%d\" y=\"%d\"><title>", L - 8, y + 4);
        html_esc(b, labels[i]);
        bf_buf_appendz(b, "</title>");
        /* longer than the room: its start and end, "..." between (the whole in the title) */
        size_t room = (size_t)(L - 16) / 7, len = strlen(labels[i]);
        if (len > room && room > 8) {
            char cut[512];
            size_t head = (room - 3) / 2, tail = room - 3 - head;
            snprintf(cut, sizeof cut, "%.*s...%s", (int)head, labels[i], labels[i] + len - tail);
            html_esc(b, cut);
        } else {
            html_esc(b, labels[i]);
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
            bf_buf_appendf(b, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%d\" r=\"4.5\" fill=\"%s\" "
                           "data-cell=\"", LX(d), y, palette[k]);
            html_esc(b, labels[i]);
            bf_buf_appendf(b, "\" data-pct=\"%s\" data-y=\"%.17g\"><title>", pct_keys[k], d);
            html_esc(b, labels[i]);
            bf_buf_appendf(b, ": %s %.2f ms</title></circle>", pct_names[k], d);
        }
    }
#undef LX
    bf_buf_appendf(b, "<text class=\"xl\" x=\"%.1f\" y=\"%d\">%s</text></svg>\n", L + pw / 2,
                   H - 4, xlabel);
}

static void section_latency(bf_buf_t *b, rowinfo *ri, size_t n, json_t *charts)
{
    json_t *arr = json_array();
    json_object_set_new(charts, "latency", arr);
    bf_buf_appendz(b, "<h2 id=\"latency\">Service time per cell</h2>\n<p class=\"note\">Send to "
                      "response of each bulk request, histograms of all agents merged; log scale. A "
                      "percentile is drawn only with enough requests (p90 needs 10, p99 100, p99.9 "
                      "1000).</p>\n");
    const char **labels = bf_calloc(n + 1, sizeof *labels);
    double(*vals)[5] = bf_calloc(n + 1, sizeof *vals);
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "cell", json_string(ri[i].cell));
        for (size_t k = 0; k < 5; k++) {
            json_object_set_new(o, pct_keys[k], rval(&ri[i], pct_keys[k]));
            vals[i][k] = rnum(&ri[i], pct_keys[k]);
        }
        json_array_append_new(arr, o);
        labels[i] = ri[i].cell;
    }
    ladder(b, labels, (const double(*)[5])vals, n, "latency", "service-time",
           "service time (ms, log scale)");
    free(labels);
    free(vals);
}

/* ---- search ------------------------------------------------------------------------------- */

static int has_queries(const rowinfo *r)
{
    return r->rec.row.nqueries > 0;
}

/* Queries answered per second, latency per query, and the mixed-workload charts. */
static void section_search(bf_buf_t *b, rowinfo *ri, size_t n, json_t *charts)
{
    size_t nq = 0;
    for (size_t i = 0; i < n; i++)
        nq += ri[i].rec.row.nqueries;
    if (nq == 0)
        return;
    json_t *lat = json_array(), *per = json_array();
    json_object_set_new(charts, "query_latency", lat);
    json_object_set_new(charts, "query_per_second", per);
    /* the ladder: one line per cell and query */
    bf_buf_appendz(b, "<h2 id=\"query-latency\">Query service time per cell</h2>\n<p class=\"note\">"
                      "Send to answer of each named query, histograms of all agents merged; log "
                      "scale (latency from the intended time is in matrix.json).</p>\n");
    char **labels = bf_calloc(nq + 1, sizeof *labels);
    double(*vals)[5] = bf_calloc(nq + 1, sizeof *vals);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        for (uint32_t j = 0; j < ri[i].rec.row.nqueries; j++) {
            const bf_qrow_t *q = &ri[i].rec.row.queries[j];
            const char *qn = q->name ? q->name : "";
            labels[k] = bf_asprintf("%s %s", ri[i].cell, qn);
            json_t *o = json_object();
            json_object_set_new(o, "cell", json_string(ri[i].cell));
            json_object_set_new(o, "query", json_string(qn));
            for (size_t p = 0; p < 5; p++) {
                json_object_set_new(o, pct_keys[p], qval(q, pct_keys[p]));
                vals[k][p] = qnum(q, pct_keys[p]);
            }
            json_array_append_new(lat, o);
            k++;
        }
    }
    ladder(b, (const char *const *)labels, (const double(*)[5])vals, k, "query_latency",
           "query service-time", "query service time (ms, log scale)");
    for (size_t i = 0; i < k; i++)
        free(labels[i]);
    free(labels);
    free(vals);
    /* answered queries each second, one line per query */
    bf_buf_appendz(b, "<h2 id=\"query-per-second\">Queries answered each second, per cell</h2>\n"
                      "<p class=\"note\">2xx answers per second of each named query, all agents "
                      "merged. Grey: warmup; hatched: tail. One y scale for every cell.</p>\n"
                      "<div class=\"charts\">\n");
    double qmax = 0; /* one y scale for every panel */
    for (size_t i = 0; i < n; i++) {
        if (ri[i].nruns == 0 || !has_queries(&ri[i]))
            continue;
        const char *qn0;
        json_t *arr0;
        json_object_foreach(ri[i].runs[0].query_ops, qn0, arr0)
        {
            size_t t;
            json_t *v;
            json_array_foreach(arr0, t, v) if ((double)json_integer_value(v) > qmax) qmax =
                (double)json_integer_value(v);
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (ri[i].nruns == 0 || !has_queries(&ri[i]))
            continue;
        run *rn = &ri[i].runs[0];
        uint32_t W = rn->warmup_s, D = rn->duration_s;
        size_t nsec = json_array_size(rn->docs_ok);
        double xmax = (double)nsec > (double)(W + D) ? (double)nsec : (double)(W + D);
        plot p = {.w = 430,
                  .h = 210,
                  .title = ri[i].cell,
                  .xlabel = "second of the cell",
                  .ylabel = "queries/s",
                  .kind = "query_per_second",
                  .fixed_x = 1,
                  .xmin = 0,
                  .xmax = xmax > 0 ? xmax : 1,
                  .shade_to = W,
                  .tail_from = (double)(W + D),
                  .ymax = qmax};
        const char *qn;
        json_t *arr;
        json_object_foreach(rn->query_ops, qn, arr) {
            pseries *sr = plot_add_series(&p, qn, 0);
            size_t t;
            json_t *v;
            json_array_foreach(arr, t, v)
                series_add(sr, (double)t + 0.5, (double)json_integer_value(v), NULL, 0);
        }
        json_t *o = json_object();
        json_object_set_new(o, "cell", json_string(ri[i].cell));
        json_object_set(o, "query_ops", rn->query_ops);
        json_array_append_new(per, o);
        plot_draw(b, &p);
        plot_free(&p);
    }
    bf_buf_appendz(b, "</div>\n");
    /* the Profile API summary of each profiled query (seed 002's table) */
    int profiled = 0;
    for (size_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < ri[i].rec.row.nqueries; j++)
            profiled |= isfinite(qnum(&ri[i].rec.row.queries[j], "profile_service_ms"));
    if (profiled) {
        static const char *const pk[] = {
            "profile_service_ms", "profile_query_ms", "profile_collectors_ms", "profile_rewrite_ms",
            "profile_fetch_ms",   "profile_rest_ms",  "profile_rest_pct"};
        bf_buf_appendz(
            b, "<h2 id=\"profile\">Profile of the slowest sampled request</h2>\n<p "
               "class=\"note\">Per query with profile: true, the slowest of the requests "
               "sent with \"profile\": true (1 in 8), on its slowest shard; rest = service "
               "time minus that shard's phases: the coordinating node's work and the "
               "transfer. The whole answer: profiles/&lt;cell&gt;-&lt;query&gt;.json.</p>\n"
               "<div class=\"tscroll\"><table><thead><tr><th>cell</th><th>query</th><th>service "
               "ms</th><th>query "
               "ms</th><th>collectors ms</th><th>rewrite ms</th><th>fetch ms</th><th>rest ms"
               "</th><th>rest %</th></tr></thead><tbody>\n");
        for (size_t i = 0; i < n; i++) {
            for (uint32_t j = 0; j < ri[i].rec.row.nqueries; j++) {
                const bf_qrow_t *q = &ri[i].rec.row.queries[j];
                if (!isfinite(qnum(q, "profile_service_ms")))
                    continue;
                bf_buf_appendz(b, "<tr><td>");
                html_esc(b, ri[i].cell);
                bf_buf_appendz(b, "</td><td>");
                html_esc(b, q->name);
                bf_buf_appendz(b, "</td>");
                for (size_t k2 = 0; k2 < 7; k2++) {
                    char t[32];
                    json_t *v = qval(q, pk[k2]);
                    bf_buf_appendf(b, "<td class=\"n\">%s</td>",
                                   num_or_dash(v, k2 == 0 || k2 >= 5 ? 1 : 2, t, sizeof t));
                    json_decref(v);
                }
                bf_buf_appendz(b, "</tr>\n");
            }
        }
        bf_buf_appendz(b, "</tbody></table></div>\n");
    }
    /* mixed workload: indexing docs/s and query p90 against the measured query rate */
    json_t *mix = json_array();
    json_object_set_new(charts, "mixed", mix);
    bf_buf_appendz(b, "<h2 id=\"mixed\">Indexing and searching together</h2>\n<p class=\"note\">"
                      "x: queries answered per second in the cell (all named queries, measured); "
                      "left: docs/s of the cells that index, one line per concurrency; right: "
                      "service p90 of each query, alone (concurrency 0) and beside indexing.</p>\n"
                      "<div class=\"charts\">\n");
    plot pd = {.w = 430, .h = 240, .title = "docs/s against search load", .xlabel = "queries/s",
               .ylabel = "docs/s", .kind = "mixed_docs"};
    plot pq = {.w = 430, .h = 240, .title = "query p90 against search load", .xlabel = "queries/s",
               .ylabel = "service p90 ms", .kind = "mixed_p90"};
    for (size_t i = 0; i < n; i++) {
        const bf_row_t *row = &ri[i].rec.row;
        if (!ri[i].rec.searches || row->failed)
            continue;
        double qps = 0;
        for (uint32_t j = 0; j < row->nqueries; j++) {
            double v = qnum(&row->queries[j], "ops_per_s");
            qps += isfinite(v) ? v : 0;
        }
        long long conc = (long long)row->cell->concurrency;
        char label[300];
        json_t *o = json_object();
        json_object_set_new(o, "cell", json_string(ri[i].cell));
        json_object_set_new(o, "queries_per_s", json_real(qps));
        json_object_set_new(o, "concurrency", json_integer(conc));
        json_object_set_new(o, "docs_per_s", rval(&ri[i], "docs_per_s"));
        json_array_append_new(mix, o);
        if (conc > 0) {
            snprintf(label, sizeof label, "concurrency %lld", conc);
            pseries *sr = NULL;
            for (size_t s2 = 0; s2 < pd.ns; s2++)
                if (strcmp(pd.s[s2].label, label) == 0)
                    sr = &pd.s[s2];
            if (sr == NULL)
                sr = plot_add_series(&pd, label, 1);
            series_add(sr, qps, rnum(&ri[i], "docs_per_s"), ri[i].cell, 0);
        }
        for (uint32_t j = 0; j < row->nqueries; j++) {
            const bf_qrow_t *q = &row->queries[j];
            const char *qn = q->name;
            snprintf(label, sizeof label, "%s %s", qn ? qn : "", conc > 0 ? "with indexing"
                                                                          : "alone");
            pseries *sr = NULL;
            for (size_t s2 = 0; s2 < pq.ns; s2++)
                if (strcmp(pq.s[s2].label, label) == 0)
                    sr = &pq.s[s2];
            if (sr == NULL)
                sr = plot_add_series(&pq, label, 1);
            series_add(sr, qps, qnum(q, "service_p90_ms"), ri[i].cell, 0);
        }
    }
    plot_draw(b, &pd);
    plot_draw(b, &pq);
    plot_free(&pd);
    plot_free(&pq);
    bf_buf_appendz(b, "</div>\n");
}

static void section_telemetry(bf_buf_t *b, rowinfo *ri, size_t n, json_t *charts)
{
    json_t *arr = json_array();
    json_object_set_new(charts, "telemetry", arr);
    bf_buf_appendz(b,
                   "<h2 id=\"telemetry\">Write thread pool per node</h2>\n<p class=\"note\">What "
                   "the cluster reported every second (_nodes/stats): the write pool's queue, "
                   "and rejections since the previous sample, per node. Grey: warmup. One y "
                   "scale for every queue chart, one for every rejections chart.</p>\n"
                   "<div class=\"charts\">\n");
    size_t shown = 0;
    double ytops[2] = {0, 0}; /* queue, rejected: one y scale each over every panel */
    for (size_t i = 0; i < n; i++)
        for (size_t r = 0; r < ri[i].nruns; r++) {
            const char *name;
            json_t *ns;
            json_object_foreach(json_object_get(ri[i].runs[r].tele, "nodes"), name, ns)
            {
                for (int which = 0; which < 2; which++) {
                    size_t k;
                    json_t *y;
                    json_array_foreach(json_object_get(ns, which == 0 ? "queue" : "rejected_delta"),
                                       k, y) if (json_is_number(y) &&
                                                 json_number_value(y) > ytops[which]) ytops[which] =
                        json_number_value(y);
                }
            }
        }
    for (size_t i = 0; i < n; i++) {
        for (size_t r = 0; r < ri[i].nruns; r++) {
            run *rn = &ri[i].runs[r];
            if (rn->tele == NULL)
                continue;
            shown++;
            json_t *o = json_object();
            json_object_set_new(o, "cell", json_string(ri[i].cell));
            json_object_set_new(o, "repetition", json_integer(rn->repetition));
            json_object_update(o, rn->tele);
            json_array_append_new(arr, o);
            json_t *nodes = json_object_get(rn->tele, "nodes");
            bf_buf_appendz(b, "<div class=\"pair\">");
            for (int which = 0; which < 2; which++) {
                char title[400];
                snprintf(title, sizeof title, "%s%s: %s", ri[i].cell, ri[i].nruns > 1 ? " run" : "",
                         which == 0 ? "write queue" : "write rejections");
                if (ri[i].nruns > 1)
                    snprintf(title, sizeof title, "%s run %u: %s", ri[i].cell, rn->repetition,
                             which == 0 ? "write queue" : "write rejections");
                plot p = {.w = 430,
                          .h = 190,
                          .title = title,
                          .xlabel = "second of the cell",
                          .ylabel = which == 0 ? "queued" : "rejected/s",
                          .kind = which == 0 ? "write_queue" : "write_rejected",
                          .shade_to = rn->warmup_s,
                          .tail_from = INFINITY,
                          .ymax = ytops[which]};
                const char *name;
                json_t *ns;
                double tmin = INFINITY, tmax = -INFINITY;
                json_object_foreach(nodes, name, ns) {
                    pseries *s = plot_add_series(&p, name, 0);
                    json_t *ts = json_object_get(ns, "t_ms");
                    json_t *ys = json_object_get(ns, which == 0 ? "queue" : "rejected_delta");
                    for (size_t k = 0; k < json_array_size(ts); k++) {
                        double t = json_number_value(json_array_get(ts, k)) / 1000.0;
                        json_t *y = json_array_get(ys, k);
                        series_add(s, t, json_is_number(y) ? json_number_value(y) : NAN, NULL, 0);
                        tmin = t < tmin ? t : tmin;
                        tmax = t > tmax ? t : tmax;
                    }
                }
                if (isfinite(tmin)) {
                    p.fixed_x = 1;
                    p.xmin = tmin;
                    p.xmax = tmax > tmin ? tmax : tmin + 1;
                }
                plot_draw(b, &p);
                plot_free(&p);
            }
            bf_buf_appendz(b, "</div>\n");
        }
    }
    if (shown == 0)
        bf_buf_appendz(b, "<p class=\"na\">No telemetry in this results directory.</p>");
    bf_buf_appendz(b, "</div>\n");
}

static void section_table(bf_buf_t *b, rowinfo *ri, size_t n)
{
    static const struct {
        const char *key, *head;
        int decimals;
    } cols[] = {
        {"indices", "indices", 0},
        {"shards", "shards", 0},
        {"replicas", "replicas", 0},
        {"batch_size", "batch size", 0},
        {"concurrency", "concurrency", 0},
        {"docs_per_s", "docs/s", 0},
        {"docs_per_s_min", "min", 0},
        {"docs_per_s_median", "median", 0},
        {"docs_per_s_max", "max", 0},
        {"mb_per_s_payload", "MB/s", 1},
        {"service_p50_ms", "p50 ms", 1},
        {"service_p99_ms", "p99 ms", 1},
        {"http_429", "429 requests", 0},
        {"docs_429", "429 docs", 0},
        {"docs_rejected", "rejected docs", 0},
        {"write_queue_max", "write queue max", 0},
        {"write_rejected", "write rejected", 0},
        {"hot_spot_ratio", "hot spot", 2},
        {"cluster_docs_per_s", "cluster docs/s", 0},
        {"agent_cpu_pct", "agent CPU %", 1},
        {"host_load_avg", "agent host load", 2},
        /* where the worker threads' time went: one cell, four shares */
        {"stage_shares", "worker time % render / gzip / judge / send-wait", 0},
        {"cv", "CV", 3},
    };
    bf_buf_appendz(b,
                   "<h2 id=\"matrix\">The matrix</h2>\n<div class=\"tscroll\"><table><thead><tr>");
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
        bf_buf_appendf(b, "<th>%s</th>", cols[c].head);
    bf_buf_appendz(b, "<th>errors by type</th><th>flags</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < n; i++) {
        bf_buf_appendz(b, "<tr>");
        const bf_row_t *row = &ri[i].rec.row;
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
            char t[64];
            if (strcmp(cols[c].key, "stage_shares") == 0) {
                if (isfinite(row->stage_render_pct))
                    bf_buf_appendf(b, "<td>%.0f / %.0f / %.0f / %.0f</td>", row->stage_render_pct,
                                   row->stage_compress_pct, row->stage_judge_pct,
                                   row->stage_send_wait_pct);
                else
                    bf_buf_appendz(b, "<td>-</td>");
                continue;
            }
            /* the cell's own numbers, then the row table's fields (the codec) */
            const bf_cell_t *cl = row->cell;
            static const char *const cell_keys[] = {"indices", "shards", "replicas", "batch_size",
                                                    "concurrency"};
            const uint32_t cell_vals[] = {cl->indices, cl->shards, cl->replicas, cl->batch_size,
                                          cl->concurrency};
            json_t *v = NULL;
            for (size_t k = 0; k < 5 && v == NULL; k++)
                if (strcmp(cols[c].key, cell_keys[k]) == 0)
                    v = json_integer(cell_vals[k]);
            if (v == NULL)
                v = rval(&ri[i], cols[c].key);
            /* the row table's rounding where it has one, so matrix.md and this agree */
            int dec = bf_row_field_decimals(cols[c].key);
            bf_buf_appendf(b, "<td>%s</td>",
                           num_or_dash(v, dec >= 0 ? dec : cols[c].decimals, t, sizeof t));
            json_decref(v);
        }
        /* failed documents by error type, most first, with the first reason of each */
        bf_buf_appendz(b, "<td class=\"types\">");
        uint32_t order[BF_ERRTYPES_MAX];
        uint32_t ne = bf_errtypes_sorted(&row->doc_errors, order);
        for (uint32_t ei = 0; ei < ne; ei++) {
            const bf_errtype_t *e = &row->doc_errors.e[order[ei]];
            const char *reason = e->reason;
            bf_buf_appendz(b, ei ? "<br>" : "");
            html_esc(b, e->type[0] ? e->type : "?");
            bf_buf_appendf(b, " %lld", (long long)e->docs);
            if (reason && reason[0]) {
                bf_buf_appendz(b, ": <span class=\"reason\">");
                html_esc(b, reason);
                bf_buf_appendz(b, "</span>");
            }
        }
        bf_buf_appendz(b, "</td><td>");
        static const char *const flags[] = {
            "failed",       "aborted",       "degraded",       "yellow",
            "client_bound", "target_missed", "stalled",        "search_rate_missed",
            "tls_insecure", "few_requests",  "index_mismatch", "unsteady"};
        for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
            /* search_rate_missed is written beside the table (search rows only) */
            int on = strcmp(flags[k], "search_rate_missed") == 0 ? row->search_rate_missed
                                                                 : rnum(&ri[i], flags[k]) > 0;
            if (on)
                bf_buf_appendf(b, "<span class=\"flag\">%s</span> ", flags[k]);
        }
        if (!row->verified)
            bf_buf_appendz(b, "<span class=\"flag\">unverified</span>");
        bf_buf_appendz(b, "</td></tr>\n");
    }
    bf_buf_appendz(b, "</tbody></table></div>\n");
    /* what a first-time reader asks about these columns (docs/results.md) */
    bf_buf_appendz(
        b,
        "<h3 id=\"columns\">What the columns mean</h3>\n<dl class=\"cols\">"
        "<dt>docs/s, min, median, max</dt><dd>Documents acknowledged in the measurement window "
        "÷ its length (warmup and tail excluded); min, median and max of the per-second series, "
        "an empty second counting as 0.</dd>"
        "<dt>MB/s</dt><dd>Uncompressed NDJSON payload sent per second.</dd>"
        "<dt>p50 ms, p99 ms</dt><dd>Service time: send to complete response of a bulk request. "
        "p99 needs 100 responses in the window, else it is -.</dd>"
        "<dt>429, rejected docs</dt><dd>Whole-request 429s, and documents the cluster rejected "
        "(429 items: its write thread pool was full).</dd>"
        "<dt>write queue max</dt><dd>The longest write thread pool queue on any node "
        "(_nodes/stats, every second): requests waiting for a write thread. A growing queue means "
        "the cluster is saturated before it rejects.</dd>"
        "<dt>write rejected</dt><dd>Tasks the write pools rejected during the window, summed over "
        "nodes: the server side of the 429s.</dd>"
        "<dt>hot spot</dt><dd>The busiest data node's indexing rate ÷ the mean of all data "
        "nodes: 1.00 is even (always 1.00 on one node); 2.0 means one node takes twice its "
        "share, usually from shard placement or routing.</dd>"
        "<dt>cluster docs/s</dt><dd>What the primaries' index_total grew by per second: close "
        "to docs/s when the cluster indexed what bulkfleet counted (more if something else "
        "writes).</dd>"
        "<dt>agent CPU %</dt><dd>The agents' CPU over their cores; at 90 % the cell is "
        "client_bound: it measures the load generator, not the cluster.</dd>"
        "<dt>agent host load</dt><dd>The agents' hosts' 1-minute load average (/proc/loadavg) "
        "during the window, mean over the agents: runnable threads, all processes. Well above "
        "the host's cores means the agents waited for a CPU, whatever their own CPU % says "
        "(another process, or the cluster on the same host). A minute's average: a cell shorter "
        "than a minute still carries some of the one before.</dd>"
        "<dt>CV</dt><dd>With run.repeat: the coefficient of variation of docs/s over the "
        "repetitions (standard deviation ÷ mean); - with one repetition, which has no spread "
        "to estimate.</dd>"
        "<dt>flags</dt><dd>few_requests: fewer than 20 bulk responses in the window, too few to "
        "rank (the findings leave it out; lengthen run.duration). index_mismatch: the index "
        "already existed with other shards or replicas (the findings use the index's). "
        "unsteady: the per-second docs/s rose or fell through the window, or spread far beyond "
        "the other cells' (the findings leave it out). "
        "stalled, target_missed, failed, aborted, degraded, client_bound, unverified: not a "
        "clean measurement, see the row's reason in matrix.json.</dd></dl>\n");
}

static const char css[] =
    "body{font:14px/1.4 -apple-system,'Segoe UI',Helvetica,Arial,sans-serif;margin:24px;color:#222;"
    "background:#fff}h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 6px;"
    "border-bottom:1px solid "
    "#ddd}.meta,.note{color:#555}.charts{display:flex;flex-wrap:wrap;gap:10px}"
    ".pair{display:flex;gap:6px}"
    "svg.chart{background:#fcfcfc;border:1px solid "
    "#e3e3e3;max-width:100%;height:auto}.ct{font-weight:600;font-size:13px}"
    "line.grid{stroke:#e6e6e6}line.axis{stroke:#555}line.tick{stroke:#555}"
    ".yt{font-size:11px;text-anchor:end;fill:#444}.xt{font-size:11px;text-anchor:middle;fill:#444}"
    ".bv{font-size:11px;text-anchor:middle;fill:#222}"
    ".xl{font-size:12px;text-anchor:middle;fill:#333}.yl{font-size:12px;text-anchor:middle;fill:#"
    "333}"
    ".lg{font-size:11px;fill:#333}.rl{font-size:11px;text-anchor:end;fill:#333}"
    ".sl{font-size:10px;fill:#666}.na{fill:#999;color:#999}rect.warmup{fill:#000;fill-opacity:.07}"
    "rect.tail{fill:url(#hatch)}circle.few{stroke-width:2}circle.rej{stroke:#d62728;stroke-width:2."
    "5}line.range{stroke:#bbb;"
    "stroke-width:2}table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;"
    "padding:3px 6px;text-align:right}th{background:#f3f3f3}.flag{color:#b00;font-weight:600}"
    "td.types{text-align:left;max-width:36em}.reason{color:#555}"
    "ul.findings li{margin:3px 0}.verdict{display:inline-block;min-width:4.5em;padding:0 4px;"
    "border-radius:3px;font-size:12px;text-align:center;color:#fff;background:#888}"
    ".v-higher{background:#2e7d32}.v-lower{background:#c62828}.v-same{background:#1565c0}"
    ".v-unclear{background:#9e9e9e}path.ci{stroke-width:1.2}path.ci.within{stroke-dasharray:2 "
    "2}figure.cf{margin:0;max-width:100%}"
    "ul.legend{list-style:none;margin:4px 0 0;padding:0 4px;display:flex;flex-wrap:wrap;"
    "gap:2px 14px;font-size:11px;color:#333}ul.legend li{display:flex;align-items:center;"
    "max-width:100%;min-width:0}ul.legend .lt{overflow-wrap:anywhere}figure.cf "
    "figcaption{overflow-wrap:anywhere;"
    "margin:0 0 2px 2px}ul.legend .sw{flex:none;"
    "width:14px;height:4px;margin-right:4px}ul.legend .sw.dot{width:10px;height:10px;"
    "border-radius:5px}dl.cols dt{font-weight:600;margin-top:4px}"
    "dl.cols dd{margin:0 0 0 18px;color:#333}text.lo{font-size:11px;fill:#555}"
    ".few-note{color:#a34a00}div.tscroll{overflow:auto;max-width:100%;width:fit-content;max-height:"
    "80vh;"
    "border:1px solid #e3e3e3}div.tscroll table{margin:0}div.tscroll th{position:sticky;top:0}"
    "code{overflow-wrap:anywhere}div.brk{flex-basis:100%;height:0}";

/* find-max (DIR/findmax.json, written by `bulkfleet-coordinator find-max`): per combination the
 * path as a table, docs/s by step, and the throughput-latency curve of the closed-loop steps at
 * the chosen batch size with the knee and the sustained point marked. */
static void section_findmax(bf_buf_t *b, const char *dir, json_t *charts)
{
    char *path = bf_asprintf("%s/findmax.json", dir);
    json_t *fm = file_exists(path) ? json_load_file(path, 0, NULL) : NULL;
    free(path);
    json_t *combos = json_object_get(fm, "combinations");
    if (!json_is_array(combos) || json_array_size(combos) == 0) {
        json_decref(fm);
        return;
    }
    json_object_set(charts, "find_max", combos);
    bf_buf_appendz(b, "<h2 id=\"find-max\">find-max: the search</h2>\n<p class=\"note\">Each step "
                      "is an ordinary cell of the matrix below. Batch phase: one request in "
                      "flight, batch size doubling; concurrency phase: doubling, then bisection; "
                      "sustain: open loop at the found rate, stepping down until a rate holds "
                      "(target met, nothing rejected or failed, p99 within the bound and not "
                      "growing). A closed-loop peak is not a sustainable rate: the sustained "
                      "point is what the cluster held.</p>\n");
    size_t ci;
    json_t *c;
    json_array_foreach(combos, ci, c)
    {
        json_t *steps = json_object_get(c, "steps");
        bf_buf_appendz(b, "<h3>");
        html_esc(b, json_string_value(json_object_get(c, "combination")));
        bf_buf_appendz(b, "</h3>\n<p class=\"note\">");
        if (json_is_true(json_object_get(c, "found"))) {
            char p99[32];
            bf_buf_appendf(b,
                           "max sustainable: %.0f docs/s at batch %lld, concurrency %lld "
                           "(p99 %s ms)",
                           jnum(c, "max_sustainable_docs_per_s"),
                           (long long)json_integer_value(json_object_get(c, "batch_size")),
                           (long long)json_integer_value(json_object_get(c, "concurrency")),
                           num_or_dash(json_object_get(c, "latency_p99_ms"), 1, p99, sizeof p99));
        } else {
            bf_buf_appendz(b, "no sustainable rate found: ");
            html_esc(b, json_string_value(json_object_get(c, "end_reason")));
        }
        bf_buf_appendz(
            b, "</p>\n<div "
               "class=\"tscroll\"><table><thead><tr><th>step</th><th>phase</th><th>batch</th>"
               "<th>concurrency</th><th>target docs/s</th><th>docs/s</th><th>p99 ms"
               "</th><th>rejected docs</th><th>write rejected</th><th>verdict</th>"
               "</tr></thead><tbody>\n");
        size_t si_;
        json_t *s;
        json_array_foreach(steps, si_, s)
        {
            char t1[64], t2[64], t3[64], t4[64], t5[64];
            double rate = jnum(s, "target_rate");
            bf_buf_appendf(b, "<tr><td>%lld</td><td>",
                           (long long)json_integer_value(json_object_get(s, "step")));
            html_esc(b, json_string_value(json_object_get(s, "phase")));
            bf_buf_appendf(b,
                           "</td><td>%lld</td><td>%lld</td><td>%s</td><td>%s</td><td>%s</td>"
                           "<td>%s</td><td>%s</td><td>",
                           (long long)json_integer_value(json_object_get(s, "batch_size")),
                           (long long)json_integer_value(json_object_get(s, "concurrency")),
                           rate > 0 ? si(rate, t1, sizeof t1) : "-",
                           num_or_dash(json_object_get(s, "docs_per_s"), 0, t2, sizeof t2),
                           num_or_dash(json_object_get(s, "latency_p99_ms"), 1, t3, sizeof t3),
                           num_or_dash(json_object_get(s, "docs_rejected"), 0, t4, sizeof t4),
                           num_or_dash(json_object_get(s, "write_rejected"), 0, t5, sizeof t5));
            html_esc(b, json_string_value(json_object_get(s, "verdict")));
            bf_buf_appendz(b, "</td></tr>\n");
        }
        bf_buf_appendz(b, "</tbody></table></div>\n<div class=\"charts\">\n");
        char title[600];
        snprintf(title, sizeof title, "docs/s by step — %s",
                 json_string_value(json_object_get(c, "combination")));
        plot p1 = {.w = 430,
                   .h = 230,
                   .title = title,
                   .xlabel = "step",
                   .ylabel = "docs/s",
                   .kind = "find_max_steps",
                   .xticks_at_data = 1};
        pseries *st = plot_add_series(&p1, "", 1);
        json_array_foreach(steps, si_, s)
        {
            const char *v = json_string_value(json_object_get(s, "verdict"));
            series_add(st, jnum(s, "step"), jnum(s, "docs_per_s"),
                       json_string_value(json_object_get(s, "cell")),
                       v && (strcmp(v, "rejected") == 0 || strcmp(v, "too-large") == 0));
        }
        plot_draw(b, &p1);
        plot_free(&p1);
        /* throughput-latency: the closed-loop steps at the chosen batch size, by concurrency */
        snprintf(title, sizeof title, "throughput vs latency p99 — %s",
                 json_string_value(json_object_get(c, "combination")));
        plot p2 = {.w = 430,
                   .h = 230,
                   .title = title,
                   .xlabel = "docs/s",
                   .ylabel = "p99 ms",
                   .kind = "find_max_curve"};
        json_t *knee = json_object_get(c, "knee");
        long long kb = (long long)json_integer_value(json_object_get(knee, "batch_size"));
        pseries *curve = plot_add_series(&p2, "closed loop (batch, concurrency)", 1);
        /* in order of concurrency, so the line follows the curve */
        size_t ns = json_array_size(steps);
        uint8_t *used = bf_calloc(ns + 1, 1);
        for (;;) {
            size_t best = ns;
            json_array_foreach(steps, si_, s)
            {
                if (used[si_] || jnum(s, "target_rate") > 0 ||
                    !isfinite(jnum(s, "latency_p99_ms")) ||
                    (long long)json_integer_value(json_object_get(s, "batch_size")) != kb)
                    continue;
                if (best == ns ||
                    jnum(s, "concurrency") < jnum(json_array_get(steps, best), "concurrency"))
                    best = si_;
            }
            if (best == ns)
                break;
            used[best] = 1;
            s = json_array_get(steps, best);
            const char *v = json_string_value(json_object_get(s, "verdict"));
            series_add(curve, jnum(s, "docs_per_s"), jnum(s, "latency_p99_ms"),
                       json_string_value(json_object_get(s, "cell")),
                       v && strcmp(v, "rejected") == 0);
        }
        free(used);
        /* steps without a p99 (fewer than 100 responses) say so in the legend */
        size_t nop99 = 0, nop99s = 0;
        json_array_foreach(steps, si_, s)
        {
            if (isfinite(jnum(s, "latency_p99_ms")))
                continue;
            if (jnum(s, "target_rate") > 0)
                nop99s++;
            else if ((long long)json_integer_value(json_object_get(s, "batch_size")) == kb)
                nop99++;
        }
        if (nop99)
            snprintf(curve->note, sizeof curve->note,
                     "%zu step%s not drawn: too few requests for p99 (it needs 100)", nop99,
                     nop99 == 1 ? "" : "s");
        if (json_is_object(knee) && isfinite(jnum(knee, "latency_p99_ms"))) {
            pseries *k = plot_add_series(&p2, "knee (best closed loop)", 1);
            series_add(k, jnum(knee, "docs_per_s"), jnum(knee, "latency_p99_ms"), NULL, 0);
        }
        pseries *sus = plot_add_series(&p2, "sustain steps (open loop)", 1);
        json_array_foreach(steps, si_,
                           s) if (jnum(s, "target_rate") > 0 && isfinite(jnum(s, "latency_p99_ms")))
            series_add(sus, jnum(s, "docs_per_s"), jnum(s, "latency_p99_ms"),
                       json_string_value(json_object_get(s, "cell")), 0);
        if (nop99s)
            snprintf(sus->note, sizeof sus->note,
                     "%zu step%s not drawn: too few requests for p99 (it needs 100)", nop99s,
                     nop99s == 1 ? "" : "s");
        if (json_is_true(json_object_get(c, "found")) && isfinite(jnum(c, "latency_p99_ms"))) {
            pseries *h = plot_add_series(&p2, "sustained", 1);
            series_add(h, jnum(c, "measured_docs_per_s"), jnum(c, "latency_p99_ms"), NULL, 0);
        }
        plot_draw(b, &p2);
        plot_free(&p2);
        bf_buf_appendz(b, "</div>\n");
    }
    json_decref(fm);
}

int bf_report_render(const char *dir, bf_buf_t *html, bf_diag_t *diag)
{
    json_t *m = NULL;
    int mrc = bf_matrixfile_read(dir, &m, diag); /* the one reader of matrix.json */
    if (mrc != BF_OK)
        return mrc;
    json_t *rows = json_object_get(m, "rows");
    size_t n = json_array_size(rows);
    rowinfo *ri = bf_calloc(n + 1, sizeof *ri);
    bf_finding_point_t *pts = bf_calloc(n + 1, sizeof *pts);
    size_t np = 0;
    unsigned missing_warned = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *row = json_array_get(rows, i);
        ri[np].row = row;
        bf_diag_t rd = {0};
        /* every field of the row through the codec (bf_results.h), not by keys of its own */
        if (bf_row_rec_decode(row, &ri[np].rec, &rd) != BF_OK ||
            !json_is_string(json_object_get(row, "cell"))) {
            bf_warn("%s/matrix.json: row %zu: %s; left out of the report", dir, i,
                    rd.msg[0] ? rd.msg : "no cell id");
            bf_row_rec_cleanup(&ri[np].rec);
            continue;
        }
        if (ri[np].rec.nmissing && missing_warned++ == 0)
            bf_warn("%s/matrix.json: row %zu lacks %s (written by an older bulkfleet?): shown "
                    "as -",
                    dir, i, ri[np].rec.missing);
        ri[np].cell = ri[np].rec.cell.id;
        bf_finding_point_from_row(&ri[np].rec.row, &ri[np].pt);
        pts[np] = ri[np].pt;
        find_runs(dir, &ri[np]);
        np++;
    }
    n = np;
    /* the campaign's findings.alpha and findings.noise_band (defaults for an older file) */
    json_t *fopts = json_object_get(m, "findings_options");
    bf_findings_opts_t fo = {json_number_value(json_object_get(fopts, "alpha")),
                             json_is_number(json_object_get(fopts, "noise_band"))
                                 ? json_number_value(json_object_get(fopts, "noise_band"))
                                 : -1.0};
    bf_findings_t *fd = bf_findings_compute_opts(pts, n, &fo);
    json_t *data = json_object();
    json_t *charts = json_object();
    json_object_set(data, "matrix", m);
    json_object_set_new(data, "findings", bf_findings_json(fd));
    json_object_set_new(data, "charts", charts);

    const char *name = json_string_value(json_object_get(m, "scenario"));
    json_t *cl = json_object_get(m, "cluster");
    bf_buf_appendz(html, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                         "<meta name=\"generator\" content=\"bulkfleet " BF_VERSION "\"><title>");
    html_esc(html, name ? name : "bulkfleet results");
    bf_buf_appendf(html, " — bulkfleet report</title><style>%s</style></head><body>\n", css);
    /* the tail hatch pattern, defined once for every chart */
    bf_buf_appendz(html, "<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\">"
                         "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
                         "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#fff\" "
                         "fill-opacity=\"0\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#bbb\" "
                         "stroke-width=\"2\"/></pattern></defs></svg>\n<h1>");
    html_esc(html, name ? name : "bulkfleet results");
    bf_buf_appendz(html, "</h1>\n<p class=\"meta\">");
    if (json_is_object(cl)) {
        html_esc(html, json_string_value(json_object_get(cl, "distribution")));
        bf_buf_appendz(html, " ");
        html_esc(html, json_string_value(json_object_get(cl, "version")));
        long long nn = (long long)json_integer_value(json_object_get(cl, "nodes"));
        bf_buf_appendf(html, ", %lld node%s · ", nn, nn == 1 ? "" : "s");
    }
    bf_buf_appendf(html, "%zu cells · results directory <code>", n);
    html_esc(html, dir);
    bf_buf_appendz(html, "</code></p>\n");
    /* a find-max directory leads with its sustainable answer, above the findings over its
     * search steps */
    section_findmax(html, dir, charts);
    bf_buf_appendz(html, "<h2 id=\"findings\">Findings</h2>\n<ul class=\"findings\">\n");
    json_t *items = json_object_get(json_object_get(data, "findings"), "items");
    for (size_t i = 0; i < bf_findings_count(fd); i++) {
        /* a tested comparison leads with its verdict (the item of the same sentence) */
        const char *line = bf_findings_line(fd, i), *verdict = NULL;
        size_t ii;
        json_t *it;
        json_array_foreach(items, ii, it)
        {
            const char *text = json_string_value(json_object_get(it, "text"));
            if (text && strcmp(text, line) == 0) {
                verdict = json_string_value(json_object_get(it, "verdict"));
                break;
            }
        }
        bf_buf_appendz(html, "<li>");
        if (verdict)
            bf_buf_appendf(html, "<span class=\"verdict v-%s\">%s</span> ", verdict, verdict);
        html_esc(html, line);
        bf_buf_appendz(html, "</li>\n");
    }
    size_t fi;
    json_t *fl;
    json_array_foreach(json_object_get(m, "search_findings"), fi, fl) {
        bf_buf_appendz(html, "<li>");
        html_esc(html, json_string_value(fl));
        bf_buf_appendz(html, "</li>\n");
    }
    bf_buf_appendz(html, "</ul>\n");
    playout lay;
    layout_build(&lay, ri, n, pts, bf_findings_main_axis(fd));
    section_throughput(html, ri, n, &lay, charts);
    section_per_second(html, ri, n, charts);
    section_service_vs_axis(html, ri, &lay, charts);
    section_latency(html, ri, n, charts);
    layout_free(&lay);
    section_search(html, ri, n, charts);
    section_telemetry(html, ri, n, charts);
    section_table(html, ri, n);
    /* '<' only occurs inside JSON strings: as \u003c no "</script>" or "<!--" can end or
     * confuse the block, and the JSON still parses to the same values */
    char *js = json_dumps(data, JSON_COMPACT);
    bf_buf_appendz(html, "<script type=\"application/json\" id=\"bf-data\">");
    for (const char *p = js ? js : "{}"; *p; p++) {
        if (*p == '<')
            bf_buf_appendz(html, "\\u003c");
        else
            bf_buf_append(html, p, 1);
    }
    bf_buf_appendz(html, "</script>\n</body></html>\n");
    free(js);
    json_decref(data);
    bf_findings_destroy(&fd);
    for (size_t i = 0; i < n; i++) {
        for (size_t r = 0; r < ri[i].nruns; r++) {
            json_decref(ri[i].runs[r].docs_ok);
            json_decref(ri[i].runs[r].query_ops);
            json_decref(ri[i].runs[r].tele);
        }
        free(ri[i].runs);
        bf_row_rec_cleanup(&ri[i].rec);
    }
    free(ri);
    free(pts);
    json_decref(m);
    return BF_OK;
}

int bf_report_write(const char *dir, bf_diag_t *diag)
{
    bf_buf_t html;
    bf_buf_init(&html, 0);
    int rc = bf_report_render(dir, &html, diag);
    if (rc != BF_OK) {
        bf_buf_cleanup(&html);
        return rc;
    }
    char *path = bf_asprintf("%s/report.html", dir);
    rc = bf_atomic_write(path, html.data ? html.data : "", html.len, diag);
    free(path);
    bf_buf_cleanup(&html);
    return rc;
}

int bf_report_cmd(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: bulkfleet-coordinator report DIR\n"
                        "  writes DIR/report.html from a results directory (matrix.json, cells/, "
                        "telemetry/)\n");
        int help = argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0);
        return help ? BF_EXIT_OK : BF_EXIT_INPUT;
    }
    bf_diag_t d = {0};
    int rc = bf_report_write(argv[1], &d);
    if (rc != BF_OK) {
        bf_error("%s", d.msg);
        return rc == BF_E_IO ? BF_EXIT_ENV : BF_EXIT_INPUT;
    }
    printf("%s/report.html\n", argv[1]);
    return BF_EXIT_OK;
}
