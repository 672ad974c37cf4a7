/* SPDX-License-Identifier: MIT */
/* bf_findings.h — the answers a reader of a shard/batch study looks for first, computed from
 * the results matrix.
 *
 * The seed study (shared/seeds/000_*) asks: per shard count, which batch size and concurrency
 * index fastest without the write pool rejecting; where adding concurrency stops paying; how
 * much faster few shards are than many; how much a large batch gains over a small one. This
 * module computes exactly those from one row per cell:
 *
 *   best        per shard count, the cell with the highest docs/s among cells without
 *               rejections (no 429, no rejected document, no write-pool rejection on any node);
 *               when every cell was rejected, the highest of those, said so
 *   knee        per shard count and line (same batch size, replicas, indices, other axes),
 *               concurrency sorted: the first step whose docs/s gain is below
 *               BF_FINDINGS_KNEE_GAIN; the knee is the concurrency before that step
 *   shards      fewest shards vs every other shard count: best vs best, and like for like
 *               (cells equal in every axis but shards): min, median, max of the ratios
 *   batch       per shard count, largest batch over smallest, like for like (equal in every
 *               axis but batch size): min, median, max of the ratios
 *
 * Failed and aborted cells are left out. Each finding is also one plain-text sentence (no
 * Markdown markup inside), so matrix.md and report.html show the same words. Pure
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

/* One cell as findings see it (self-contained copies, no borrowed pointers). */
typedef struct bf_finding_point {
    char cell[256];
    uint32_t indices, shards, replicas, batch_size, concurrency;
    char extra[256];       /* other matrix axes, "name=value name=value", "" when none */
    double docs_per_s;
    int rejections; /* any 429 (also ones retried), write-pool rejection, or error */
    int excluded;   /* failed, aborted or target-missed: not a measurement */
} bf_finding_point_t;

typedef struct bf_findings bf_findings_t;

/* bf_finding_point_from_row — fill *p from a results row (the cell is borrowed for the call). */
void bf_finding_point_from_row(const bf_row_t *row, bf_finding_point_t *p);
/* bf_finding_point_from_json — fill *p from one row object of matrix.json.
 * Returns 0 or BF_E_PARSE (not an object, or no shards / batch_size / concurrency). */
int bf_finding_point_from_json(json_t *row, bf_finding_point_t *p);

/* bf_findings_compute — findings over n points (copied). Caller owns: bf_findings_destroy.
 * Never NULL; with no usable point it holds one sentence saying so. */
bf_findings_t *bf_findings_compute(const bf_finding_point_t *pts, size_t n);
void bf_findings_destroy(bf_findings_t **f_p);

/* bf_findings_count / bf_findings_line — the sentences in reading order (borrowed, valid
 * while f lives). */
size_t bf_findings_count(const bf_findings_t *f);
const char *bf_findings_line(const bf_findings_t *f, size_t i);

/* bf_findings_json — the structured findings (new reference; caller json_decref's it):
 * {"best":[...],"knees":[...],"shards":[...],"batch":[...],"lines":[...]}. */
json_t *bf_findings_json(const bf_findings_t *f);

/* bf_findings_print_md — "## Findings" and one "- sentence" a line, to out. */
void bf_findings_print_md(const bf_findings_t *f, FILE *out);

/* bf_findings_line_label — "batch 500" plus the other line axes that vary among pts
 * (", replicas 0", ", indices 2", " refresh_interval=1s"), into buf. Used by the report so its
 * chart legends match the knee sentences. Returns buf. */
char *bf_findings_line_label(const bf_finding_point_t *pts, size_t n, const bf_finding_point_t *p,
                             char *buf, size_t buf_size);

#endif
