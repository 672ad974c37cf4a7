/* SPDX-License-Identifier: MIT */
/* bf_until.h — the stopping rule of run.repeat: auto: which comparisons the findings state are
 * still open (verdict unclear) after the repetitions run so far, and so which cells the next
 * round must run again.
 *
 * It asks the findings themselves (bf_findings_compute_opts over the folded rows, then
 * bf_findings_tests): the comparisons, their tests, the correction over all of them and the
 * verdicts are exactly the ones matrix.json will state, never a second copy of the statistics.
 * A comparison is open while its verdict is unclear, or while a side has fewer than min_reps
 * repetitions (with fewer than 4 + 4 the U test can never reach p < 0.05). docs/scenario.md
 * (run.until) says what the user sees. Pure functions: thread-safe; inputs borrowed.
 */
#ifndef BF_UNTIL_H
#define BF_UNTIL_H

#include "bf_findings.h"

#include <stddef.h>
#include <stdint.h>

/* One open comparison: the points it compares (indices into the points given), the ratio a / b
 * as the findings read it, the corrected p (NAN: none), the repetitions a side, and a short
 * label naming what differs ("1 shard vs 2 shards", "batch 500 vs 2000",
 * "settings.refresh_interval=1s vs 30s"). */
typedef struct bf_until_open {
    size_t a, b;
    double ratio, p_value;
    size_t n_a, n_b;
    char label[160];
} bf_until_open_t;

/* bf_until_open — the open comparisons among the findings of n points (opts: findings.alpha and
 * noise_band, NULL = defaults), each pair once: up to cap of them into out (may be NULL with cap
 * 0), need[i] = 1 for every point in an open comparison and 0 for the others (need: n entries,
 * may be NULL), *ntested (may be NULL) the distinct pairs tested. Returns the number open (may
 * exceed cap). A campaign whose findings state no comparison has none open. */
size_t bf_until_open(const bf_finding_point_t *pts, size_t n, const bf_findings_opts_t *opts,
                     uint32_t min_reps, bf_until_open_t *out, size_t cap, uint8_t *need,
                     size_t *ntested);

/* bf_until_label — what differs between a and b, a's value first: "1 shard vs 2 shards",
 * "batch 500 vs 2000", "concurrency 2 vs 4", "replicas 0 vs 1", "indices 1 vs 2", and for other
 * axes "name=v1 vs v2", joined by ", "; "the same cell" when nothing differs. Returns buf. */
char *bf_until_label(const bf_finding_point_t *a, const bf_finding_point_t *b, char *buf,
                     size_t size);

/* bf_until_text — the open comparisons as one line for the progress:
 * "1 shard vs 2 shards (p 0.11, 4+4 runs), batch 500 vs 2000 (p 0.3, 4+4 runs) and 3 more"
 * (at most 3 named; nopen counts all, open holds min(nopen, cap) of them). Returns buf. */
char *bf_until_text(const bf_until_open_t *open, size_t cap, size_t nopen, char *buf, size_t size);

#endif
