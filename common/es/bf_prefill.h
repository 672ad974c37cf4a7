/* SPDX-License-Identifier: MIT */
/* bf_prefill.h — fill a cell's indices before its load, so search clients have data to search
 * (search.prefill). Not measured: the documents go in before t = 0, the cell's
 * baseline count is taken after them, and the row counts only what the cell itself adds.
 *
 * Documents come from the scenario's document template and variables, rendered with a
 * generator of its own (stream 0 of 1, seed run.seed ^ a constant): sequence variables repeat
 * the values the load will draw, so ids from a sequence collide with the load's (use uuid ids,
 * or none, with prefill). Sent as bulk requests of PREFILL_BATCH documents through bf_es (one
 * connection, in order), then _refresh. Uses one bf_es_t: same threading rule (one thread).
 */
#ifndef BF_PREFILL_H
#define BF_PREFILL_H

#include "bf_cluster.h"
#include "bf_error.h"
#include "bf_es.h"
#include "bf_scenario.h"

#include <stdint.h>

/* bf_prefill_cell — index ndocs documents into the cell's indices (round-robin, as the load
 * does), then POST _refresh. tick(tick_ctx) is called after every bulk request (NULL: none)
 * so a caller can keep its own loop going. *indexed receives the documents acknowledged.
 * Returns 0, BF_E_INVAL (the template does not compile or render), BF_E_HTTP (a bulk request
 * or an item failed: diag has the first error type and reason) or BF_E_TRANSPORT, with diag
 * naming the index and what to do. es, sc and cell are borrowed. */
int bf_prefill_cell(bf_es_t *es, const bf_scenario_t *sc, const bf_cell_t *cell, uint64_t ndocs,
                    void (*tick)(void *ctx), void *tick_ctx, uint64_t *indexed, bf_diag_t *diag);

/* bf_prefill_prepare_cell — prepare a cell's indices for a scenario with a search section:
 * a search-only cell (concurrency 0) whose indices exist keeps them as they are unless
 * search.recreate is true (they were created and prefilled by an earlier cell or run); other
 * cells go through bf_cluster_prepare_cell_tick. Then, with search.prefill > 0, indices that
 * hold no document are prefilled (bf_prefill_cell; logged with the time it took). Without a
 * search section this is bf_cluster_prepare_cell_tick (owner: what it may replace, bf_owner_t).
 * Same arguments and return codes, plus
 * those of bf_prefill_cell. */
int bf_prefill_prepare_cell(bf_es_t *es, const bf_scenario_t *sc, const bf_cell_t *cell,
                            const bf_owner_t *owner, uint32_t data_nodes, uint64_t wait_ms,
                            int *yellow, void (*tick)(void *ctx), void *tick_ctx, bf_diag_t *diag);

/* bf_prefill_indices_exist — 1 when every index of the cell exists (HEAD /<index> answers 200),
 * 0 when one does not or the cluster cannot be asked. */
int bf_prefill_indices_exist(bf_es_t *es, const bf_cell_t *cell);

#endif
