/* SPDX-License-Identifier: MIT */
/* bf_cfgerr.h — is a cell's failed index creation a configuration error that other cells
 * will repeat?
 *
 * A campaign whose scenario gives the cluster a mapping or a setting it refuses (HTTP 400 to
 * PUT /<index>: mapper_parsing_exception, "unknown setting [index.x]", a field type of a
 * missing module) would try it again on every cell, each after its own waits. The campaign
 * asks this module whether the cells still to run send the part of the request the cluster
 * refused unchanged, and stops at the first such error (`run --keep-going` tries every cell).
 * The cluster's reasons it reads are those of PUT /<index> (reference: docs/scenario.md
 * "index", the create index API's error object: error.root_cause[0].type and .reason).
 */
#ifndef BF_CFGERR_H
#define BF_CFGERR_H

#include "bf_scenario.h"

#include <stddef.h>

/* bf_cfgerr_repeats — msg is the message of a cell's failed preparation (the bf_diag_t of
 * bf_cluster_prepare_cell / bf_prefill_prepare_cell for `failed`). When it is the cluster's
 * HTTP 400 to creating one of the cell's indices (or its field type of a missing module), the
 * part of the request it blames is found: a setting the reason names in brackets ("setting
 * [index.codec]", compared by its value in both cells' settings), else the mappings (the same
 * for every cell of a scenario) when the reason is about a mapping; another 400 (a cluster
 * limit such as shards per node) is not taken for the scenario's error. Returns 1 when `other`
 * sends that part unchanged (it will fail the same way), with key (keylen bytes, always terminated)
 * naming it: "index.mappings", "matrix.shards", "matrix.replicas" or "setting index.x
 * (index.settings or a matrix setting)"; 0 when msg is no such error or `other` differs in the
 * blamed part (key then ""). other may be failed itself (another repetition: always 1 for such an
 * error). Pure; thread-safe. */
int bf_cfgerr_repeats(const bf_cell_t *failed, const char *msg, const bf_cell_t *other, char *key,
                      size_t keylen);

#endif
