/* SPDX-License-Identifier: MIT */
/* bf_qfindings.h — findings of mixed workloads: what indexing and searching cost each other
 *, computed from the rows of matrix.json, never written by hand.
 *
 * For every cell that indexes and searches at once ("both": concurrency > 0 and
 * search_clients > 0), the cell that indexes alone with the same axes but no search clients
 * gives "indexing under search: X docs/s vs Y alone, -Z % (0.75x, 95 % CI 0.74-0.76, p 0.0022,
 * 6+6 runs: lower)", the pair tested on the cells' repetitions as the findings test (bf_stats:
 * U test, Hodges-Lehmann interval, Holm over these pairs; "(1+1 runs: unclear)" with one run
 * a side), and the cell that searches alone
 * (concurrency 0) with the same search axes gives, per named query, "query Q p90 a ms -> b ms
 * (+P %), c -> d ops/s". Cells are matched on every axis but the other side's (search_clients
 * and search_rate for indexing; concurrency, batch_size, target_rate and compression for
 * search). Failed or aborted cells are left out, and so is a row the results row codec cannot
 * decode (bf_row_rec_decode: the same field table the writers use). Pure
 * function of the rows; thread-safe.
 */
#ifndef BF_QFINDINGS_H
#define BF_QFINDINGS_H

#include <jansson.h>

/* bf_qfindings_compute — the sentences over `rows` (a JSON array of matrix.json row objects,
 * borrowed). Returns a new JSON array of strings (caller owns: json_decref), empty when no
 * cell both indexes and searches or nothing matches. */
json_t *bf_qfindings_compute(json_t *rows);

#endif
