/* SPDX-License-Identifier: MIT */
/* bf_matrixfile.h — the one reader of a results directory's matrix.json
 * (docs/internals/measurement.md): the file found, parsed and checked for its "rows" array, with an
 * error that names the file. */
#ifndef BF_MATRIXFILE_H
#define BF_MATRIXFILE_H

#include "bf_error.h"

#include <jansson.h>
#include <stddef.h>

/* bf_matrixfile_load — reads DIR/matrix.json (a results directory) and describes its run in
 * desc ("<scenario> on <distribution> <version>, N nodes", at most desc_size bytes). Returns the
 * document (the caller owns it: json_decref), or NULL with diag set: BF_E_NOTFOUND when the file
 * is missing, BF_E_PARSE (file:line:col) when it is not JSON or has no "rows" array. Used by
 * compare and by the many-campaign trend (bf_trend.h). Thread-safe (no state). */
json_t *bf_matrixfile_load(const char *dir, char *desc, size_t desc_size, bf_diag_t *diag);

/* bf_matrixfile_read — the one reader of a results directory's matrix.json (compare, the
 * trend, the report, publish, --resume's seed): 0 and *out (the document; the caller owns it:
 * json_decref), or BF_E_NOTFOUND / BF_E_PARSE as bf_matrixfile_load, *out NULL (diag may
 * be NULL). Thread-safe (no state). */
int bf_matrixfile_read(const char *dir, json_t **out, bf_diag_t *diag);

/* bf_matrixfile_test_opts — how the campaign's findings test, from its matrix.json
 * ("findings_options": findings.alpha and findings.noise_band, docs/results.md), folded into
 * *alpha and *band so that several campaigns together take the strictest: *alpha becomes the
 * smaller of itself and the file's, *band the larger (the caller starts them at 1 and 0, or
 * at the previous campaigns'). A file without them (an older bulkfleet) counts as the
 * defaults, BF_STATS_ALPHA and BF_STATS_BAND. Returns 1 when the file had its own options, 0
 * when it counted as the defaults. Thread-safe (no state). */
int bf_matrixfile_test_opts(const json_t *m, double *alpha, double *band);

#endif
