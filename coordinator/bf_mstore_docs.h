/* SPDX-License-Identifier: MIT */
/* bf_mstore_docs.h — what bulkfleet stores in a metrics store: the index templates and the
 * documents made from a results directory's files.
 *
 * One schema for both writers (docs/internals/style.md rule 17): `run --metrics-store` and
 * `publish` make their documents from the same files (cells/<cell>.ndjson and
 * telemetry/<cell>.ndjson, written atomically by resultlib), through bf_mstore_docs_cell, so a
 * campaign published after the fact gives exactly the documents the live run sent, with the same
 * ids (re-sending overwrites: idempotent).
 *
 * When: `run` sends each merged second as it completes (bf_mstore_docs_live_second) and, once a
 * cell's files are written, every document of the cell from them (the same ids: the live
 * seconds are overwritten by their final values).
 *
 * Indices (the names Rally uses for its own metrics store, adapted): bulkfleet-samples-YYYY.MM
 * (month of the campaign's start, from its results directory name "<scenario>-YYYYMMDDTHHMMSSZ")
 * holds kind "second" (the merged per-second sample of a cell), "agent_second" (one agent's
 * second) and "node" (one node in one cluster telemetry tick); bulkfleet-results holds kind
 * "row" (a cell's finished row, one per repetition) and "matrix_row" (a row of matrix.json:
 * repetitions folded, what `compare --metrics-store` reads). Every document carries campaign,
 * scenario, cell (the cell id), cell_name (with -r<rep>), repetition and axes.<axis> as
 * keywords, and @timestamp.
 *
 * Document ids: "<campaign>/<cell_name>/<kind>/<second or agent/second or t_ms/node>", or its
 * sha256 in hex when longer than 512 bytes (the id limit of Elasticsearch and OpenSearch).
 * @timestamp: the results files hold seconds relative to the cell's start, not wall times;
 * the cell's end is taken as the modification time of cells/<cell>.ndjson (written once,
 * atomically, when the cell finished), its start as that minus warmup + duration, so a
 * second's @timestamp is start + second (approximate by the time the row's verification
 * took; a copy of the directory that does not keep modification times moves them).
 * Thread-safe: no shared state.
 */
#ifndef BF_MSTORE_DOCS_H
#define BF_MSTORE_DOCS_H

#include "bf_error.h"

#include <stddef.h>
#include <stdint.h>

#define BF_MSTORE_SAMPLES_PREFIX "bulkfleet-samples-"
#define BF_MSTORE_RESULTS_INDEX "bulkfleet-results"
#define BF_MSTORE_SAMPLES_TEMPLATE "bulkfleet-samples"
#define BF_MSTORE_RESULTS_TEMPLATE "bulkfleet-results"
#define BF_MSTORE_MAX_ID_BYTES 512 /* _id limit of Elasticsearch and OpenSearch */
#define BF_MSTORE_MAX_LINE_BYTES                                                                   \
    (8u << 20) /* a results line longer than this is skipped, counted */

/* bf_mstore_docs_template — the composable index template body (PUT _index_template/<name>,
 * Elasticsearch 7.8+ and OpenSearch 1.0+) for the samples (results = 0) or the results
 * (results = 1) indices: explicit mappings for every field bulkfleet writes, dynamic
 * templates that keep any other string a keyword and numbers numbers, one shard,
 * auto_expand_replicas 0-1, and _meta created_by bulkfleet. The samples' counter fields come
 * from bf_counter_fields (bf_sample.h), the one table of sample counters. Caller frees;
 * thread-safe. */
char *bf_mstore_docs_template(int results);

/* What bf_mstore_docs_cell made, by kind. */
typedef struct bf_mstore_docs_counts {
    uint64_t rows, seconds, agent_seconds, nodes;
    uint64_t skipped; /* lines that were not JSON or too long (BF_MSTORE_MAX_LINE_BYTES) */
} bf_mstore_docs_counts_t;

/* Called once per document: index name, _id, JSON source (all borrowed for the call).
 * Return 0 to go on, non-zero to stop (bf_mstore_docs_cell returns that value). */
typedef int (*bf_mstore_docs_emit_fn)(void *ctx, const char *index, const char *id,
                                      const char *source);

/* bf_mstore_docs_cell — the documents of one finished cell of results_dir: its row, merged seconds
 * and agent seconds from cells/<name>.ndjson, and its telemetry ticks (one document per node)
 * from telemetry/<name>.ndjson when present. campaign is the results directory's name
 * (bf_mstore_docs_campaign), scenario the scenario's name. counts (may be NULL) is added to.
 * Returns 0, a non-zero value an emit returned, BF_E_NOTFOUND / BF_E_IO (the cell file cannot
 * be read) or BF_E_PARSE (its first line is not a row), with diag naming the file. */
int bf_mstore_docs_cell(const char *results_dir, const char *campaign, const char *scenario,
                        const char *name, bf_mstore_docs_emit_fn emit, void *ctx,
                        bf_mstore_docs_counts_t *counts, bf_diag_t *diag);

/* bf_mstore_docs_matrix — one "matrix_row" document per row of results_dir/matrix.json (id
 * "<campaign>/<cell>/matrix_row", @timestamp the file's modification time), with the
 * cluster's distribution, version and nodes as cluster_distribution, cluster_version,
 * cluster_nodes. *n (may be NULL) is added to. Returns 0, an emit's non-zero value, or
 * BF_E_NOTFOUND / BF_E_PARSE with diag naming the file. */
int bf_mstore_docs_matrix(const char *results_dir, const char *campaign, const char *scenario,
                          bf_mstore_docs_emit_fn emit, void *ctx, uint64_t *n, bf_diag_t *diag);

/* bf_mstore_docs_live_second — the "second" document of a cell still running: second (from the
 * cell's start) of cell (borrowed; its id and axes) as cell_name and repetition, from ctr (the
 * merged counters so far, bf_cellagg_second), stamped unix_ms (wall time, ms). Same index, id
 * and fields as the document bf_mstore_docs_cell makes from the finished cell's file, which
 * replaces it (late samples included) when the cell ends. Returns the emit's value. */
struct bf_cell;
struct bf_counters;
int bf_mstore_docs_live_second(const char *campaign, const char *scenario,
                               const struct bf_cell *cell, const char *cell_name,
                               uint32_t repetition, int64_t second, const struct bf_counters *ctr,
                               int64_t unix_ms, int64_t warmup_s, int64_t duration_s,
                               bf_mstore_docs_emit_fn emit, void *ctx);

/* bf_mstore_docs_campaign — the campaign id of a results directory: its last path component
 * ("results/shard-study-20261201T205245Z" -> "shard-study-20261201T205245Z"), into buf. */
void bf_mstore_docs_campaign(const char *results_dir, char *buf, size_t size);

/* bf_mstore_docs_samples_index — "bulkfleet-samples-YYYY.MM" for the campaign: the month of the
 * UTC stamp that ends its name, else of fallback_unix_s (seconds since 1970). Into buf. */
void bf_mstore_docs_samples_index(const char *campaign, int64_t fallback_unix_s, char *buf,
                                  size_t size);

/* bf_mstore_docs_id — a document id from its parts joined with '/', or the sha256 of that in hex
 * when longer than BF_MSTORE_MAX_ID_BYTES. Into buf (at least BF_MSTORE_MAX_ID_BYTES + 1 bytes). */
void bf_mstore_docs_id(char *buf, size_t size, const char *campaign, const char *cell_name,
                       const char *kind, const char *rest);

#endif
