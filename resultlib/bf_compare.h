/* SPDX-License-Identifier: MIT */
/* bf_compare.h — two results directories side by side, cell by cell.
 *
 * `bulkfleet-coordinator compare BASE_DIR CONTENDER_DIR [--csv]` reads both matrix.json files
 * and, for every cell id present in both, prints baseline, contender, difference and
 * difference in % of docs/s (plus service p99), and whether the difference is within the
 * cells' noise: the larger coefficient of variation of the two rows when either ran with
 * repeat > 1, else no noise estimate: such a pair is called "higher" / "lower" / "within 5%"
 * with " (no noise estimate)", never faster or slower (BF_COMPARE_DEFAULT_NOISE, 5%, is only the
 * guide for "within 5%"). When both rows carry their repetitions' docs/s (two or more a side),
 * the pair is tested instead (bf_compare_row_t.tested): U test, an interval of the ratio, Holm
 * across the tested cells, and the geometric mean of the ratios with its interval. Cells found
 * in only one directory are
 * listed after the table. Markdown by default, CSV with --csv. Pure functions of the two
 * directories; no global state.
 */
#ifndef BF_COMPARE_H
#define BF_COMPARE_H

#include "bf_buf.h"
#include "bf_error.h"
#include "bf_stats.h"

#include <jansson.h>
#include <stdint.h>

#define BF_COMPARE_DEFAULT_NOISE 0.05 /* noise band without repetitions: ±5% */

enum bf_compare_format { BF_COMPARE_MARKDOWN = 0, BF_COMPARE_CSV };

/* One matched cell. */
typedef struct bf_compare_row {
    char cell[256];
    uint32_t shards, replicas, batch_size, concurrency;
    double base, contender;       /* docs/s */
    double diff, diff_pct;        /* contender - base; 100 * diff / base (NAN when base is 0) */
    double noise;                 /* noise band as a fraction (0.05 = 5%) */
    int noise_from_cv;            /* 1: the band is a CV from repetitions */
    int within_noise;             /* |diff_pct| <= 100 * noise */
    int failed;                   /* either side failed or was aborted: no verdict */
    int base_few, contender_few;  /* that side was few-requests (< BF_FEW_REQUESTS responses):
                                     its docs/s rests on a handful of bulk requests */
    double base_p99_ms, contender_p99_ms; /* service p99, NAN when not measured */
    /* why the findings leave that side out (bf_finding_point_t.left_out: "degraded: an agent
     * was lost", "not verified", "12.3% of its documents failed or unknown"), "" when it is a
     * measurement: a pair with a left-out side gets the verdict "left out", never higher,
     * lower, faster or slower, and its figures are struck in Markdown */
    char base_left_out[200], contender_left_out[200];
    /* the side's row is index-mismatch (recreate: false found its index with other shards or
     * replicas than the cell says): "the index had 3 shards and 0 replicas, not the cell's 1
     * and 1" ("the index had other shards or replicas than the cell's" when not read), "" when
     * not: the pair is matched by cell id all the same, and the output says so */
    char base_mismatch[128], contender_mismatch[128];
    /* when a side has repetitions (two or more docs/s) and neither is failed, left
     * out or few-requests: the U test of contender against baseline (ratio contender / base,
     * Hodges-Lehmann interval) with p corrected over the tested cells (Holm, Benjamini-Hochberg
     * beyond BF_STATS_HOLM_MAX), verdict faster (higher), slower (lower), same, or "~" (unclear:
     * no significant change, as benchstat), in place of the CV rule */
    int tested;
    bf_stats_cmp_t test;
} bf_compare_row_t;

typedef struct bf_compare bf_compare_t;

/* bf_compare_dirs — match the rows of BASE/matrix.json and CONTENDER/matrix.json by cell id
 * (order of the baseline). Returns 0 and *out (caller owns: bf_compare_destroy), or
 * BF_E_NOTFOUND / BF_E_PARSE with diag naming the file. */
int bf_compare_dirs(const char *base_dir, const char *contender_dir, bf_compare_t **out,
                    bf_diag_t *diag);
void bf_compare_destroy(bf_compare_t **c_p);

size_t bf_compare_count(const bf_compare_t *c);
/* bf_compare_row — matched row i (borrowed), or NULL. */
const bf_compare_row_t *bf_compare_row(const bf_compare_t *c, size_t i);
/* Cells only in the baseline / only in the contender (borrowed strings). */
size_t bf_compare_only_base_count(const bf_compare_t *c);
const char *bf_compare_only_base(const bf_compare_t *c, size_t i);
size_t bf_compare_only_contender_count(const bf_compare_t *c);
const char *bf_compare_only_contender(const bf_compare_t *c, size_t i);

/* bf_compare_mismatch — when no cell matched (bf_compare_count 0), the axes whose values
 * differ between the two campaigns, "batch_size 1000 (baseline) vs 200 (contender); ..."
 * (borrowed; "" when some cell matched or no axis differs). */
const char *bf_compare_mismatch(const bf_compare_t *c);

/* bf_compare_format — append the comparison as Markdown or CSV to *out. */
void bf_compare_format(const bf_compare_t *c, enum bf_compare_format fmt, bf_buf_t *out);

/* bf_compare_cmd — `compare BASE CONTENDER [--csv]`, or with three or more directories (at
 * most BF_TREND_MAX_CAMPAIGNS, oldest first) the trend per cell (bf_trend.h); argv[0] is
 * "compare". Prints to stdout.
 * Returns the exit code (enum bf_exit): 0, or 2 for usage errors, unreadable directories and
 * two campaigns with no cell in common (the table is printed, with the axes that differ). */
int bf_compare_cmd(int argc, char **argv);

#endif
