/* SPDX-License-Identifier: MIT */
/* bf_report_int.h — what report.html's files share (bf_report.c the page, bf_svgplot.c the
 * plot and text helpers, bf_report_read.c the results directory, bf_report_charts.c the main
 * charts). Internal to resultlib; single-threaded like the report itself.
 */
#ifndef BF_REPORT_INT_H
#define BF_REPORT_INT_H

#include "bf_buf.h"
#include "bf_findings.h"
#include "bf_results.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* the series colours, in order (bf_svgplot.c) */
extern const char *const bf__palette[10];
#define NPALETTE (sizeof bf__palette / sizeof bf__palette[0])

/* ---- the generic plot (bf_svgplot.c) ---- */

typedef struct pseries {
    char label[300];
    double *x, *y;
    char **cell;   /* data-cell per point (owned strings) or NULL */
    uint8_t *flag; /* 1 = rejections: red ring; 2 = few requests: hollow; 4 = left out of
                    * the findings (degraded, unverified, ...): hollow, dashed, struck,
                    * labelled, and off the line */
    char **why;    /* with flag 4: why the findings leave the point out (owned) or NULL */
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
    int w, h; /* plot area + axes; the legend adds below */
    const char *title, *xlabel, *ylabel, *kind;
    int xlog2;          /* log2 x axis (concurrency) */
    int xticks_at_data; /* ticks at the distinct x values of the data */
    int fixed_x;        /* use xmin/xmax as given */
    double ymax;        /* > 0: the y axis reaches at least this (panels share a scale) */
    double xmin, xmax;
    double shade_to;  /* warmup [xmin, shade_to) shaded when > xmin */
    double tail_from; /* hatched [tail_from, xmax] when < xmax */
    int bars;         /* side by side: each series is one bar (its label under it, its
                         first point's y), for an axis of text values (target=direct,
                         target=gateway) where a line over one x value shows nothing */
    pseries *s;
    size_t ns;
} plot;

typedef struct run {
    char stem[300]; /* cells/<stem>.ndjson */
    uint32_t repetition;
    uint32_t warmup_s, duration_s;
    json_t *docs_ok;   /* array of integers, one per second */
    json_t *query_ops; /* {query name: array of answered queries per second} */
    json_t *tele;      /* {"file","nodes":{name:{t_ms,queue,rejected_delta}},"summary"} or NULL */
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

/* bf_svgplot.c: HTML escaping, SI numbers and "-" for a missing value (buf: caller's, returned);
 * a plot's series (owned by the plot, freed by bf__plot_free) and drawing it as SVG into b. */
void bf__html_esc(bf_buf_t *b, const char *s);
const char *bf__si(double v, char *buf, size_t n);
const char *bf__num_or_dash(json_t *v, int decimals, char *buf, size_t n);
pseries *bf__plot_add_series(plot *p, const char *label, int markers);
void bf__series_add_why(pseries *s, double x, double y, const char *cell, int flag,
                        const char *why);
void bf__series_add(pseries *s, double x, double y, const char *cell, int flag);
void bf__series_set_ci(pseries *s, double lo, double hi, int within);
void bf__plot_free(plot *p);
void bf__plot_draw(bf_buf_t *b, const plot *p);

/* bf_report_read.c: a number of an object (NAN when missing); a query or row field through the
 * row codec (a new reference; an unknown name is counted, see bf_report_unknown_fields); the
 * runs of every row, read from cells/ and telemetry/. */
double bf__jnum(json_t *o, const char *k);
json_t *bf__qval(const bf_qrow_t *q, const char *key);
double bf__qnum(const bf_qrow_t *q, const char *key);
json_t *bf__rval(const rowinfo *r, const char *key);
double bf__rnum(const rowinfo *r, const char *key);
int bf__report_file_exists(const char *path);
void bf__find_runs(const char *dir, rowinfo *ri);

/* bf_report_charts.c: the five percentile keys of the ladders; the layout of the main charts
 * (freed by bf__layout_free) and the chart sections, each appending HTML to b and its numbers
 * to charts. */
extern const char *const bf__pct_keys[5];
void bf__ladder(bf_buf_t *b, const char *const *labels, const double (*vals)[5], size_t n,
                const char *chart, const char *what, const char *xlabel);
void bf__layout_build(playout *L, rowinfo *ri, size_t n, const bf_finding_point_t *pts,
                      const char *x);
void bf__layout_free(playout *L);
void bf__section_throughput(bf_buf_t *b, rowinfo *ri, size_t n, const playout *L, json_t *charts);
void bf__section_service_vs_axis(bf_buf_t *b, rowinfo *ri, const playout *L, json_t *charts);
void bf__section_per_second(bf_buf_t *b, rowinfo *ri, size_t n, json_t *charts);
void bf__section_latency(bf_buf_t *b, rowinfo *ri, size_t n, json_t *charts);

#endif
