/* SPDX-License-Identifier: MIT */
/* bf_svgplot.c — the report's generic line plot as inline SVG (linear or log2 x,
 * linear y from 0, shaded warmup, hatched tail, whiskers, legend, bars) and the HTML and number
 * text helpers the page shares. It knows no bulkfleet type.
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

const char *const bf__palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                   "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
/* ---- text helpers ------------------------------------------------------------------------- */

void bf__html_esc(bf_buf_t *b, const char *s)
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
const char *bf__si(double v, char *buf, size_t n)
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

const char *bf__num_or_dash(json_t *v, int decimals, char *buf, size_t n)
{
    if (json_is_integer(v))
        snprintf(buf, n, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, n, "%.*f", decimals, json_real_value(v));
    else
        snprintf(buf, n, "-");
    return buf;
}
/* ---- the generic line plot ---------------------------------------------------------------- */

pseries *bf__plot_add_series(plot *p, const char *label, int markers)
{
    p->s = bf_realloc(p->s, (p->ns + 1) * sizeof *p->s);
    pseries *s = &p->s[p->ns++];
    memset(s, 0, sizeof *s);
    bf_strlcpy(s->label, label ? label : "", sizeof s->label);
    s->markers = markers;
    return s;
}

void bf__series_add_why(pseries *s, double x, double y, const char *cell, int flag, const char *why)
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

void bf__series_add(pseries *s, double x, double y, const char *cell, int flag)
{
    bf__series_add_why(s, x, y, cell, flag, NULL);
}

/* the interval [lo, hi] of the point just added (whiskers); within = 1: within one run */
void bf__series_set_ci(pseries *s, double lo, double hi, int within)
{
    if (s->n == 0 || !isfinite(lo) || !isfinite(hi) || hi < lo)
        return;
    s->lo[s->n - 1] = lo;
    s->hi[s->n - 1] = hi;
    s->within[s->n - 1] = (uint8_t)within;
}

void bf__plot_free(plot *p)
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
                       bf__palette[i % NPALETTE]);
        bf__html_esc(b, p->s[i].label);
        if (p->s[i].note[0]) {
            bf_buf_appendz(b, p->s[i].label[0] ? ": <span class=\"few-note\">"
                                               : "<span class=\"few-note\">");
            bf__html_esc(b, p->s[i].note);
            bf_buf_appendz(b, "</span>");
        }
        bf_buf_appendz(b, "</span></li>");
    }
    bf_buf_appendz(b, "</ul>");
}

static void plot_draw_svg(bf_buf_t *b, const plot *p);

void bf__plot_draw(bf_buf_t *b, const plot *p)
{
    bf_buf_appendf(b, "<figure class=\"cf\" style=\"width:%dpx\"><figcaption class=\"ct\">", p->w);
    bf__html_esc(b, p->title);
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
        const char *col = bf__palette[i % NPALETTE];
        double y = s->n ? s->y[0] : NAN;
        int flag = s->n ? s->flag[0] : 0, rej = flag & 1, few = flag & 2, lo = flag & 4;
        double x = PL + slot * (double)i + (slot - bw) / 2, cx = PL + slot * ((double)i + 0.5);
        bf_buf_appendz(b, "<g class=\"series bar\" data-label=\"");
        bf__html_esc(b, s->label);
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
            bf__html_esc(b, s->n ? s->cell[0] : "");
            bf_buf_appendf(b, "\" data-y=\"%.17g\"><title>", y);
            bf__html_esc(b, s->label);
            bf_buf_appendz(b, " (");
            bf__html_esc(b, s->n ? s->cell[0] : "");
            bf_buf_appendf(b, "): %s %.0f%s%s", p->ylabel, y, rej ? " (rejections)" : "",
                           few ? " (few requests: fewer than 20 bulk responses, not ranked)" : "");
            if (lo) {
                bf_buf_appendz(b, " (left out of the findings: ");
                bf__html_esc(b, s->why && s->why[0] ? s->why[0] : "not a measurement");
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
            bf__si(y, t, sizeof t);
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
        bf__html_esc(b, lab);
        bf_buf_appendz(b, "</text></g>");
    }
}

/* The two axes and their labels, below and left of the plot area (pw x ph px). */
static void plot_axes(bf_buf_t *b, const plot *p, double pw, double ph)
{
    bf_buf_appendf(b,
                   "<line class=\"axis\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
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
    bf__html_esc(b, p->xlabel);
    bf_buf_appendf(b, "</text><text class=\"yl\" transform=\"translate(14 %.1f) rotate(-90)\">",
                   PT + ph / 2);
    bf__html_esc(b, p->ylabel);
    bf_buf_appendz(b, "</text>");
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
    bf_buf_appendf(b,
                   "<svg class=\"chart\" data-chart=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" "
                   "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">",
                   p->kind, p->w, H, p->w, H);
    bf_buf_appendz(b, "<title>");
    bf__html_esc(b, p->title);
    bf_buf_appendz(b, "</title>"); /* the visible title is the figure's caption: it wraps */
    double pw = p->w - PL - PR, ph = p->h - PT - PB;
    if (npts == 0 && !p->fixed_x) {
        bf_buf_appendf(b, "<text class=\"na\" x=\"%d\" y=\"%d\">no data</text></svg>",
                       p->w / 2 - 24, p->h / 2);
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
        bf_buf_appendf(b,
                       "<rect class=\"warmup\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%.1f\">"
                       "<title>warmup: not measured</title></rect>"
                       "<text class=\"sl\" x=\"%.1f\" y=\"%d\">warmup</text>",
                       XP(xmin), PT, XP(x1) - XP(xmin), ph, XP(xmin) + 3, PT + 11);
    }
    if (p->tail_from < xmax && p->tail_from > xmin) {
        bf_buf_appendf(b,
                       "<rect class=\"tail\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%.1f\">"
                       "<title>tail: completed after the window, not measured</title></rect>",
                       XP(p->tail_from), PT, XP(xmax) - XP(p->tail_from), ph);
    }
    /* axes, grid and ticks */
    char t[64];
    for (int k = 0; k < 64 && k * step <= ytop + step / 2; k++) {
        double y = k * step;
        bf_buf_appendf(b,
                       "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                       "<text class=\"yt\" x=\"%d\" y=\"%.1f\">%s</text>",
                       PL, YP(y), PL + pw, YP(y), PL - 5, YP(y) + 4, bf__si(y, t, sizeof t));
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
                           bf__si(xs[i], t, sizeof t));
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
                           bf__si(x, t, sizeof t));
        }
    }
    plot_axes(b, p, pw, ph);
    if (p->bars) {
        bars_svg(b, p, pw, ph, ytop);
        bf_buf_appendz(b, "</svg>");
        return;
    }
    /* the series */
    for (size_t i = 0; i < p->ns; i++) {
        const pseries *s = &p->s[i];
        const char *col = bf__palette[i % NPALETTE];
        bf_buf_appendz(b, "<g class=\"series\" data-label=\"");
        bf__html_esc(b, s->label);
        bf_buf_appendf(b, "\"><polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" points=\"",
                       col, s->markers ? "2" : "1.5");
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
            bf__html_esc(b, s->cell[k]);
            bf_buf_appendf(b, "\" data-x=\"%.17g\" data-y=\"%.17g\"><title>", s->x[k], s->y[k]);
            bf__html_esc(b, s->cell[k]);
            bf_buf_appendf(b, ": %s %.0f%s%s", p->ylabel, s->y[k], rej ? " (rejections)" : "",
                           few ? " (few requests: fewer than 20 bulk responses, not ranked)" : "");
            if (lo) {
                bf_buf_appendz(b, " (left out of the findings: ");
                bf__html_esc(b, s->why[k] ? s->why[k] : "not a measurement");
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
