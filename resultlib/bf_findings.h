/* SPDX-License-Identifier: MIT */
/* bf_findings.h — the answers a reader of a shard/batch study looks for first, computed from
 * the results matrix.
 *
 * The seed study (shared/seeds/000_*) asks: per shard count, which batch size and concurrency
 * index fastest without the write pool rejecting; where adding concurrency stops paying; how
 * much faster few shards are than many; how much a large batch gains over a small one. This
 * module computes exactly those from one row per cell:
 *
 *   best        per shard count (and per index count when it varies), the cell with the
 *               highest docs/s among cells without rejections (no 429, no rejected document,
 *               no write-pool rejection on any node); when every cell was rejected, the highest
 *               of those, said so. A best that gains less than BF_FINDINGS_BEST_MIN_GAIN over a
 *               cell of its line at lower concurrency is not best: the lowest such
 *               concurrency is (the knee; more requests in flight only add service time)
 *   knee        per shard count and line (same batch size, replicas, indices, other axes),
 *               concurrency sorted: the first step whose docs/s gain is below
 *               BF_FINDINGS_KNEE_GAIN; the knee is the concurrency before that step
 *   plateau     the same along batch size: per line (same concurrency, replicas, indices,
 *               other axes), the batch size after which a step gains below
 *               BF_FINDINGS_KNEE_GAIN
 *   shards      fewest shards vs every other shard count: best vs best, and like for like
 *               (cells equal in every axis but shards): min, median, max of the ratios
 *   batch       per shard count, largest batch over smallest, like for like (equal in every
 *               axis but batch size): min, median, max of the ratios
 *   axis        for indices, replicas and every other axis that varies (index settings, ...),
 *               each value over the first (smallest) one, like for like
 *   routing     routing_mode node / shard over none, like for like
 *
 * Failed, aborted, stalled and target-missed cells are left out, and so are degraded cells (an
 * agent was lost: the row misses what it did), unverified ones (the cluster's count did not
 * confirm the documents, or could not be taken: the cluster went away) and cells where more
 * than BF_FINDINGS_MAX_FAILED of the documents sent failed or are unknown (version conflicts
 * with an earlier run's ids, a dying cluster): none is named best, none gives a knee, a
 * plateau or a ratio; one sentence names them with why (point.left_out). Few-requests cells
 * (fewer than BF_FEW_REQUESTS bulk responses in the window: their docs/s rests on too few
 * requests to rank) are left out too; a sentence says how many. With index-mismatch the index's
 * real shards and replicas are used, not the cell's. Each finding is one plain-text sentence (no
 * Markdown markup inside), so matrix.md and report.html show the same words, and one item of data
 * (kind, axis, the axis values it holds for, figures) in bf_findings_json, which
 * bf_results_write_matrix puts into matrix.json so a script can chain the next study. Pure
 * computation; a bf_findings_t is immutable after compute and may be read from any thread.
 */
#ifndef BF_FINDINGS_H
#define BF_FINDINGS_H

#include "bf_aggregate.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BF_FINDINGS_KNEE_GAIN 0.10 /* a concurrency step adding less than 10% is past the knee */
#define BF_FINDINGS_BEST_MIN_GAIN                                                                  \
    0.01 /* a best gaining less than 1% over a lower concurrency of its line is not best */
#define BF_FINDINGS_MAX_FAILED                                                                     \
    0.01 /* more than 1% of the documents sent failed or unknown: errors measured, not indexing */

/* One cell as findings see it (self-contained copies, no borrowed pointers). */
typedef struct bf_finding_point {
    char cell[256];
    uint32_t indices, shards, replicas, batch_size, concurrency;
    char extra[256];       /* other matrix axes, "name=value name=value", "" when none */
    double docs_per_s;
    double service_p50_ms; /* NAN when unknown */
    int rejections;        /* any 429 (also ones retried), write-pool rejection, or error */
    int excluded;          /* failed, aborted or target-missed: not a measurement */
    int few_requests;      /* fewer than BF_FEW_REQUESTS bulk responses in the window: not ranked */
    int index_mismatch;    /* shards / replicas above are the index's real ones, not the cell's */
    uint32_t repeat;       /* repetitions folded into the row (run.repeat); 0 or 1: one run */
    /* each repetition's docs/s (bf_row_reps: nreps values; 0 = docs_per_s is the only one) and
     * the row's docs/s interval (ci_within: within one run, bf_row_t) */
    uint32_t nreps;
    double reps[BF_ROW_MAX_REPS];
    double ci_low, ci_high;
    int ci_within;
    /* why the findings leave this point out ("" = they use it): "failed", "interrupted",
     * "stalled", "target-missed", "degraded: an agent was lost", "not verified", "not verified:
     * the documents could not be counted", "12.3% of its documents failed or unknown", joined
     * by ", "; a search-only cell (concurrency 0) is excluded without one (not an indexing
     * measurement) */
    char left_out[200];
} bf_finding_point_t;

typedef struct bf_findings bf_findings_t;

/* bf_finding_point_from_row — fill *p from a results row (the cell is borrowed for the call),
 * left_out included. */
void bf_finding_point_from_row(const bf_row_t *row, bf_finding_point_t *p);
/* bf_findings_fm_sustain_id — 1 when a cell id is a find-max sustain step's
 * ("fm<combination>-<step>-sustain-b<B>-c<C>-r<rate>", as find-max names them): an open-loop
 * run at a target rate, which the findings leave out ("find-max sustain step: ...") so it is
 * never compared with the closed-loop search steps, and the report draws it left out
 *. Thread-safe. */
int bf_findings_fm_sustain_id(const char *id);

/* bf_finding_point_from_json — fill *p from one row object of matrix.json.
 * Returns 0 or BF_E_PARSE (not an object, or no shards / batch_size / concurrency). */
int bf_finding_point_from_json(json_t *row, bf_finding_point_t *p);

/* How the findings test what they state (scenario keys findings.alpha, findings.noise_band). */
typedef struct bf_findings_opts {
    double alpha; /* significance level, 0 < alpha < 1; 0 = BF_STATS_ALPHA (0.05) */
    double band;  /* noise band as a share (0.02 = +-2 %); outside [0, 1): BF_STATS_BAND */
} bf_findings_opts_t;

/* bf_findings_compute — findings over n points (copied), with the default alpha and noise
 * band. Caller owns: bf_findings_destroy. Never NULL; with no usable point it holds one
 * sentence saying so.
 *
 * Every comparison a finding states (fewest vs more shards best against best and like for
 * like, batch over batch, each other axis, routing, the step at a knee or plateau, the last
 * step of a line still growing, each step of an axis trend) is a test on the two cells'
 * repetitions (bf_stats_compare, ratio oriented as the sentence reads) and gets a verdict
 * (higher, lower, same, unclear) after a correction over all of them (bf_stats_adjust: Holm,
 * Benjamini-Hochberg beyond BF_STATS_HOLM_MAX); a knee or plateau is stated only when its step
 * is same or lower. Each such item carries "verdict" and figures.ratio, ci_low, ci_high,
 * p_value (corrected), n_a, n_b (docs/results.md, How sure). A last sentence (kind "method")
 * says how they were tested and how many of each verdict. */
bf_findings_t *bf_findings_compute(const bf_finding_point_t *pts, size_t n);
/* bf_findings_compute_opts — the same with opts (NULL = defaults). */
bf_findings_t *bf_findings_compute_opts(const bf_finding_point_t *pts, size_t n,
                                        const bf_findings_opts_t *opts);
void bf_findings_destroy(bf_findings_t **f_p);

/* One comparison the findings state, as tested: the points it compares (indices into the
 * points given to compute; ratio = a / b as the sentence reads), its verdict (a bf_verdict_t of
 * bf_stats.h), corrected p (NAN when none) and the repetitions a side. */
typedef struct bf_findings_test {
    size_t a, b;
    int verdict;
    double ratio, p_value;
    size_t n_a, n_b;
} bf_findings_test_t;

/* bf_findings_tests — every test the findings stated, in the order stated (a pair stated by
 * two findings comes twice), count in *n. Borrowed, valid while f lives. What run.repeat: auto
 * stops on (bf_until.h). */
const bf_findings_test_t *bf_findings_tests(const bf_findings_t *f, size_t *n);

/* bf_findings_count / bf_findings_line — the sentences in reading order (borrowed, valid
 * while f lives). */
size_t bf_findings_count(const bf_findings_t *f);
const char *bf_findings_line(const bf_findings_t *f, size_t i);

/* bf_findings_json — the structured findings (new reference; caller json_decref's it):
 * {"main_axis":"concurrency","items":[...],"best":[...],"knees":[...],"plateaus":[...],
 *  "shards":[...],"batch":[...],"axes":[...],"lines":[...]}. Each of "items" is
 * {"kind": best|knee|plateau|shards|batch|axis|routing|axis_trend|few_requests|index_mismatch|
 * left_out|method,
 * "axis": the axis it is
 * about, "at": {axis: value, ...} the values the finding holds for (numbers for indices,
 * shards, replicas, batch_size, concurrency; strings for other axes), "figures": {...},
 * "text": its sentence}, and for a comparison "verdict" with figures.ratio, ci_low, ci_high,
 * p_value, n_a, n_b (bf_findings_compute); the other arrays are the older per-kind views. */
json_t *bf_findings_json(const bf_findings_t *f);

/* bf_findings_main_axis — the axis with the most distinct values among the usable points
 * (ties: concurrency, batch_size, shards, indices, replicas, then other axes in order; only
 * axes whose values are all numbers): what the report's main chart puts on x. "concurrency"
 * when nothing varies. Borrowed: a static string or a pointer into f's copy of the points. */
const char *bf_findings_main_axis(const bf_findings_t *f);

/* bf_finding_point_axis — the value of axis name ("shards", "batch_size", ... or another axis
 * such as "settings.refresh_interval") of p as a number; NAN when p has no such axis or its
 * value is not a number. */
double bf_finding_point_axis(const bf_finding_point_t *p, const char *name);

/* bf_findings_label — like bf_findings_line_label, but for lines along axis x (not named in
 * the label), with shards named too when with_shards: "concurrency 4, replicas 0" for
 * x = batch_size. Returns buf. */
char *bf_findings_label(const bf_finding_point_t *pts, size_t n, const bf_finding_point_t *p,
                        const char *x, int with_shards, char *buf, size_t buf_size);

/* bf_findings_print_md — "## Findings" and one "- sentence" a line, to out. */
void bf_findings_print_md(const bf_findings_t *f, FILE *out);

/* bf_findings_line_label — "batch 500" plus the other line axes that vary among pts
 * (", replicas 0", ", indices 2", " refresh_interval=1s"), into buf. Used by the report so its
 * chart legends match the knee sentences. Returns buf. */
char *bf_findings_line_label(const bf_finding_point_t *pts, size_t n, const bf_finding_point_t *p,
                             char *buf, size_t buf_size);

#endif
