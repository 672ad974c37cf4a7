/* SPDX-License-Identifier: MIT */
/* bf_trend.h — the trend of every cell across several campaigns (`compare DIR1 DIR2 DIR3 ...`).
 *
 * Campaigns are added in the order given (oldest first, as a team runs them: one per cluster
 * version or setting). Cells are matched by cell id, in order of first appearance. Per cell:
 * docs/s of each campaign, the change of each campaign from the one before, the last against
 * the first in %, and a verdict with the vocabulary of the two-directory compare (bf_compare.h):
 * the U test of the first and last rows' repetitions when either has them (bf_trend_test:
 * "faster"/"slower"/"same"/"~"), "faster"/"slower"/"within noise" from the larger CV for rows
 * of older files that ran repetitions without keeping each one's docs/s, else
 * "higher"/"lower"/"within 5%" with "(no noise estimate)"; "failed" when the first or last row
 * failed or was aborted; "-" when the cell is missing from either. Then one line per campaign: its
 * docs/s relative to the first as the geometric mean over the cells present, not failed and
 * non-zero in both (the regression between versions at a glance). Pure functions of the rows; no
 * global state; not thread-safe per object.
 */
#ifndef BF_TREND_H
#define BF_TREND_H

#include "bf_buf.h"
#include "bf_compare.h"
#include "bf_error.h"
#include "bf_stats.h"

#include <jansson.h>
#include <stddef.h>

#define BF_TREND_MAX_CAMPAIGNS 64

typedef struct bf_trend bf_trend_t;

/* bf_trend_new — an empty trend. Caller owns: bf_trend_destroy. */
bf_trend_t *bf_trend_new(void);
void bf_trend_destroy(bf_trend_t **t_p);

/* bf_trend_add — add one campaign: label (e.g. its directory), desc (scenario and cluster, may
 * be ""), rows (a matrix.json "rows" array; borrowed for the call): every row is decoded through
 * the row codec (bf_row_rec_decode, the writers' field table), so the trend reads the fields the
 * writers write. Returns 0, or with diag BF_E_RANGE past BF_TREND_MAX_CAMPAIGNS, BF_E_PARSE
 * when rows is not an array or a row does not decode (naming it). */
int bf_trend_add(bf_trend_t *t, const char *label, const char *desc, json_t *rows, bf_diag_t *diag);

/* bf_trend_add_dir — bf_trend_add of DIR/matrix.json. Returns 0, BF_E_NOTFOUND or BF_E_PARSE
 * with diag naming the file. */
int bf_trend_add_dir(bf_trend_t *t, const char *dir, bf_diag_t *diag);

/* bf_trend_add_store — bf_trend_add of the "matrix_row" documents of campaign (a results
 * directory's name) in a metrics store (bulkfleet-results, written by `run --metrics-store` or
 * `publish`), through es (borrowed; one request, sorted by cell_index). Returns 0,
 * BF_E_NOTFOUND (no such campaign there), BF_E_TRANSPORT / BF_E_HTTP / BF_E_PARSE with diag
 * naming the store. */
struct bf_es;
int bf_trend_add_store(bf_trend_t *t, struct bf_es *es, const char *campaign, bf_diag_t *diag);

/* bf_trend_campaigns / bf_trend_cells — how many were added / matched (union of cell ids). */
size_t bf_trend_campaigns(const bf_trend_t *t);
size_t bf_trend_cells(const bf_trend_t *t);
/* bf_trend_docs_per_s — docs/s of cell i in campaign k, NAN when absent or not measured. */
double bf_trend_docs_per_s(const bf_trend_t *t, size_t cell, size_t campaign);
/* bf_trend_verdict — the last-vs-first verdict of cell i (static string, see above). */
const char *bf_trend_verdict(const bf_trend_t *t, size_t cell);
/* bf_trend_test — the last-vs-first test of cell i (ratio last / first; borrowed, valid until
 * the next add), or NULL when it was not tested: no side has repetitions (two or more docs/s),
 * a side is failed, left out or few-requests, or the cell is missing from either. The verdict
 * (bf_trend_verdict) is then "faster", "slower", "same" or "~" (no significant change) after
 * Holm across the tested cells (Benjamini-Hochberg beyond BF_STATS_HOLM_MAX). */
const bf_stats_cmp_t *bf_trend_test(const bf_trend_t *t, size_t cell);

/* bf_trend_geomean — campaign k's docs/s relative to the first (geometric mean over the cells
 * usable in both), NAN when no cell is; *ncells (may be NULL) gets how many were used. */
double bf_trend_geomean(const bf_trend_t *t, size_t campaign, size_t *ncells);

/* bf_trend_format — append the trend as Markdown or CSV to out. */
void bf_trend_format(const bf_trend_t *t, enum bf_compare_format fmt, bf_buf_t *out);

#endif
