/* SPDX-License-Identifier: MIT */
/* bf_finish.h — the end of a cell: one repetition's row from its samples, then the cell's row
 * from its repetitions. The one path for the coordinator's campaign and the agent's standalone
 * mode, so both verify, flag, name and fold repetitions (run.repeat) the same way.
 *
 * A repetition ends as: the row from the merged samples (bf_cellagg_row) → the cluster's side
 * (telemetry, when there is one) → flags (yellow, aborted, failed + reason) → verification by
 * _refresh + _count (bf_row_verify); tls_insecure from the cell's target → on a verified row with
 * nothing in the indices before, the disk cost (_flush + _stats/store, bf_row_store_cost) → the
 * after-load step when the scenario has index.force_merge and the row verified (segments, then
 * _forcemerge + _refresh timed, then segments: merge_s, segments_before, segments_after) → the
 * index-mismatch flag → cells/<name>.ndjson (or cells/<name>.aborted.ndjson, which `run --resume`
 * does not take as finished). A cell ends as: the median repetition (bf_rows_median) appended to
 * the matrix, and matrix.* rewritten. Not thread-safe.
 */
#ifndef BF_FINISH_H
#define BF_FINISH_H

#include "bf_aggregate.h"
#include "bf_results.h"

#include <stdint.h>

/* What the cluster said over the measurement window (bf_telemetry's summary); -1 / NAN =
 * unknown, as in bf_row_t. */
typedef struct bf_cluster_side {
    int64_t write_queue_max;
    int64_t write_rejected;
    double hot_spot_ratio;
    double cluster_docs_per_s;
    int64_t transport_rx_bytes, transport_tx_bytes;
} bf_cluster_side_t;

/* How one repetition of a cell ended, besides its samples. Strings are borrowed for the call. */
typedef struct bf_cell_end {
    int yellow;                       /* health was yellow when the load started */
    int aborted;                      /* interrupted (Ctrl-C, SIGTERM) */
    const char *failure;              /* why the cell failed; NULL or "" = it did not */
    int64_t baseline;                 /* documents in the cell's indices before the load */
    const char *mismatch;             /* recreate: false and the index differs; NULL or "" */
    uint32_t index_shards;            /* with mismatch: the index's real shards; 0 = unknown */
    uint32_t index_replicas;          /* with mismatch: its real replicas (index_shards > 0) */
    const bf_cluster_side_t *cluster; /* telemetry summary, or NULL (standalone) */
    int64_t search_total_before;      /* bf_cluster_search_total before the load; -1 = not
                                         taken (no search clients) */
    uint32_t round, position;         /* the repetition's place in the run order (bf_row_t) */
    int64_t started_at_ms;            /* its load's start, Unix ms; 0 or -1 = unknown */
    uint32_t force_merge;             /* index.force_merge: segments to merge to after the
                                         load (0 = no after-load step) */
    long force_merge_timeout_ms;      /* index.force_merge_timeout (> 0 with force_merge) */
} bf_cell_end_t;

/* bf_finish_cell — compute the row of one repetition from agg and end, verify it against the
 * cluster with es (HTTP: _refresh + _count over the cell's indices), and when res is not NULL
 * write cells/<name>.ndjson (or <name>.aborted.ndjson) atomically with agent_ids[0..nagents)
 * naming agg's agents. row is filled in place (row->cell borrows cell). With end->failure
 * agg is marked failed first (bf_cellagg_fail: a cell that failed in warmup reports its errors
 * over the whole cell).
 * Returns 0, or BF_E_IO when the cell file could not be written: the row is still filled but
 * not verified (its reason says which file and why; bf_results_error has it too).
 * Not thread-safe (res, es). res NULL: the row only (the caller then writes it with
 * bf_finish_write). */
int bf_finish_cell(bf_results_t *res, bf_es_t *es, const bf_cell_t *cell, const char *name,
                   bf_cellagg_t *agg, const char *const *agent_ids, uint32_t nagents,
                   const bf_cell_end_t *end, bf_row_t *row);

/* bf_finish_write — the cell file of a row bf_finish_cell(NULL, ...) computed:
 * cells/<name>.ndjson (cells/<name>.aborted.ndjson when aborted, which `run --resume` runs
 * again) written atomically (bf_results_cell_done: the row, each second's counters and
 * agent_ids[0..nagents)' seconds from agg, the raw samples) and the profiled queries' answers.
 * Returns 0, or BF_E_IO when it could not be written: row is then not verified (its reason says
 * which file and why; bf_results_error has it too). Touches no cluster and no fleet: it may run
 * on a thread other than the one that computed the row, with res, agg and row used by nothing
 * else meanwhile. */
int bf_finish_write(bf_results_t *res, const char *name, int aborted, const bf_cellagg_t *agg,
                    const char *const *agent_ids, uint32_t nagents, bf_row_t *row);

/* bf_finish_fold — the cell's matrix row from its nreps (>= 1) repetitions: the median
 * repetition by docs/s (bf_rows_median; repeat = 1 for one), appended at rows[*nrows] (the
 * caller sizes rows for every cell) and *nrows incremented; when res is not NULL matrix.csv,
 * matrix.md and matrix.json are rewritten from rows[0..*nrows). Returns the appended row
 * (borrowed from rows), or NULL when nreps is 0 (nothing appended). *io_rc (when not NULL) gets
 * 0 or BF_E_IO from writing the matrix. */
const bf_row_t *bf_finish_fold(bf_results_t *res, const bf_scenario_t *sc, const bf_row_t *reps,
                               uint32_t nreps, bf_row_t *rows, size_t *nrows, int *io_rc);

/* bf_finish_mark_unsteady — flag (unsteady, reason added) each of rows[0..n) whose per-second
 * spread is far beyond the other rows' (bf_steady_spread_outliers). Call once on freshly
 * folded rows, before the matrix is written. Returns how many it flagged. */
size_t bf_finish_mark_unsteady(bf_row_t *rows, size_t n);

/* bf_row_is_clean — 1 when the row is a clean measurement: not failed, not degraded, verified,
 * without errors (bf_row_has_errors), not stalled, not target-missed. The campaign and the
 * standalone agent exit 1 when some row is not. */
int bf_row_is_clean(const bf_row_t *row);

/* What run --resume does with a cell it finds finished in the results directory. */
typedef enum bf_resume {
    BF_RESUME_KEEP = 0,        /* a measurement: kept */
    BF_RESUME_RERUN_FAILED,    /* it failed (unless --keep-failed): runs again */
    BF_RESUME_RERUN_UNCOUNTED, /* its documents could not be counted (the cluster went away
                                  during or after its load: docs_counted -1, not failed);
                                  unless --keep-failed: runs again */
    BF_RESUME_RERUN_ASKED,     /* named by --rerun: runs again whatever it was */
} bf_resume_t;

/* bf_resume_decide — the --resume policy for one finished row (a table in
 * tests/unit/test_finish.c lists every case): asked (--rerun names it) reruns it; a failed
 * row, or one not verified because the count could not be taken, reruns unless keep_failed
 * (--keep-failed); anything else (verified, or unverified with a count that did not match:
 * a measured difference, not a gap) is kept. Pure; thread-safe. */
bf_resume_t bf_resume_decide(const bf_row_t *row, int keep_failed, int asked);

#endif
