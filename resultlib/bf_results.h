/* SPDX-License-Identifier: MIT */
/* bf_results.h — the results directory (docs/internals/measurement.md): matrix.csv, matrix.md,
 * matrix.json, cells/<cell>.ndjson, telemetry/, scenario.yaml (redacted).
 *
 * Every file is written through bf_atomic_write (temporary name, every write checked, fsync,
 * rename), so a crash or a full disk never leaves a half file and `run --resume DIR` can trust
 * what it finds; the first failed write is kept (bf_results_error). Not thread-safe.
 */
#ifndef BF_RESULTS_H
#define BF_RESULTS_H

#include "bf_aggregate.h"
#include "bf_cluster.h"
#include "bf_error.h"
#include "bf_rowcodec.h"
#include "bf_scenario.h"

#include <jansson.h>
#include <stdio.h>

typedef struct bf_results bf_results_t;

/* bf_results_open — create <base>/<name>-<UTC stamp>/ (or reuse `resume_dir` when not NULL)
 * with cells/ and telemetry/, and save the redacted scenario. NULL with diag on failure. */
bf_results_t *bf_results_open(const char *base, const char *resume_dir, const bf_scenario_t *sc,
                              bf_diag_t *diag);
void bf_results_close(bf_results_t **r_p);
const char *bf_results_dir(const bf_results_t *r);
/* bf_results_error — the first write into the directory that failed ("cannot write
 * DIR/cells/x.ndjson (write): No space left on device"), or NULL when every write so far
 * succeeded. Borrowed, valid until r is closed. The campaign stops at the first one. */
const char *bf_results_error(const bf_results_t *r);
/* bf_results_note_error — record a failure found by the caller (e.g. a sample line that could
 * not be appended), unless one is recorded already. */
void bf_results_note_error(bf_results_t *r, const char *msg);
void bf_results_set_cluster(bf_results_t *r, const bf_cluster_info_t *info);
/* bf_results_set_lead — Markdown (copied; NULL removes it) that the next
 * bf_results_write_matrix puts at the top of matrix.md, before the table: find-max's
 * sustainable answer, so its directory leads with it. */
void bf_results_set_lead(bf_results_t *r, const char *markdown);
/* bf_results_set_metrics_store — the JSON object text (copied; NULL removes it) written as
 * matrix.json's "metrics_store" by the next bf_results_write_matrix: what the metrics store
 * got (bf_mstore.h's counters). */
void bf_results_set_metrics_store(bf_results_t *r, const char *json_object_text);

/* bf_results_set_schedule — matrix.json's "schedule" for the next bf_results_write_matrix: the
 * campaign's repetitions in the order they ran, each {"cell", "name", "repetition", "round",
 * "position", "started_at"} (docs/results.md). Takes ownership of schedule (a JSON array; NULL
 * or another value removes it). */
void bf_results_set_schedule(bf_results_t *r, json_t *schedule);

/* One repetition for bf_results_runs: its name ("<cell>" or "<cell>-r<k>") and when its load
 * started (Unix time, ms; <= 0 = unknown: left out). */
typedef struct bf_run_rep {
    const char *name;
    int64_t started_at_ms;
} bf_run_rep_t;

/* bf_results_runs — which run of a campaign measured each repetition. A run is one coordinator
 * invocation on the directory (the first, then each `run --resume`); starts[0..nstarts) are
 * their start times (Unix ms, ascending): a repetition belongs to the last run that started at
 * or before it; one that started before starts[0] (an earlier run whose start was not recorded:
 * a directory written before runs were) to a run of its own from the earliest such start.
 * *runs_out (may be NULL) gets matrix.json's "runs" (a new reference): one object a run that
 * measured something, {"run": 1-based, "started_at": ISO 8601 UTC, "started_at_ms",
 * "repetitions": [names, in start order]}. Returns the findings sentence (malloc'd, caller
 * frees) when more than one run measured repetitions: each run's start, how long after the
 * previous run's last repetition it began, and its repetitions (the first 12, "and N more");
 * NULL when one run measured them all. Pure; thread-safe. */
char *bf_results_runs(const int64_t *starts, size_t nstarts, const bf_run_rep_t *reps, size_t n,
                      json_t **runs_out);

/* bf_results_runs_note — the sentence of the last bf_results_write_matrix on which runs
 * measured which repetitions (bf_results_runs), or NULL (one run). Borrowed. */
const char *bf_results_runs_note(const bf_results_t *r);

/* bf_results_set_until — matrix.json's "repeat_auto" for the next bf_results_write_matrix: how
 * run.repeat: auto ended ({"min_repeat", "max_repeat", "max_time_s", "rounds", "stopped":
 * "decided" | "max_repeat" | "max_time" | "interrupted", "tested", "open": [...]},
 * docs/results.md). Takes ownership (a JSON object; NULL or another value removes it). */
void bf_results_set_until(bf_results_t *r, json_t *until);

/* bf_results_file_name — "<cell id>" or "<cell id>-r<rep>" when repeat > 1, into buf. */
void bf_results_cell_name(const bf_cell_t *cell, uint32_t repetition, uint32_t repeat, char *buf,
                          size_t buf_size);

/* bf_results_samples_open — open cells/<name>.samples.partial for the raw samples of a cell
 * as they arrive. Returns the stream (owned by r) or NULL. */
FILE *bf_results_samples_open(bf_results_t *r, const char *name);
/* bf_results_sample_json — one agent sample as the JSON line bf_results_sample_line writes
 * (without the newline). Caller owns the string: free(). */
char *bf_results_sample_json(const char *agent_id, const Bf__Sample *s);
/* bf_results_sample_line — append one agent sample as a JSON line and flush it to the OS;
 * after it returns the sample may be acknowledged. Returns 0 or BF_E_IO. */
int bf_results_sample_line(FILE *f, const char *agent_id, const Bf__Sample *s);
/* bf_results_cell_done — write cells/<name>.ndjson atomically: the merged per-second series,
 * each agent's series, then the raw samples; remove the partial file. 0 or BF_E_IO. */
int bf_results_cell_done(bf_results_t *r, const char *name, const bf_cellagg_t *agg,
                         const char *const *agent_ids, uint32_t nagents, const bf_row_t *row);

/* bf_results_write_file — write data to DIR/relpath atomically (temp file + rename), e.g.
 * "telemetry/<cell>.ndjson" or "report.html". relpath's directory must exist. 0 or BF_E_IO. */
int bf_results_write_file(bf_results_t *r, const char *relpath, const char *data, size_t len);

/* bf_results_write_matrix — (re)write matrix.csv, matrix.md and matrix.json from `rows` (one
 * per finished cell, repetitions already folded by bf_rows_median). 0 or BF_E_IO. */
int bf_results_write_matrix(bf_results_t *r, const bf_scenario_t *sc, const bf_row_t *rows,
                            size_t nrows);
/* bf_results_print_md — print the Markdown matrix to f (what the user sees at the end). */
void bf_results_print_md(FILE *f, const bf_scenario_t *sc, const bf_row_t *rows, size_t nrows);
/* bf_results_print_compact — the matrix for a terminal (what `run` prints when stdout is one:
 * the Markdown matrix has some 24 columns and wraps into noise at 120): per row the cell id,
 * docs/s with its interval (docs_per_s_ci_low-high, blank when not known), service p50 and
 * p99 (ms, "-" when too few requests), 429s, verified and flags, then where the rest is
 * (dir/matrix.md). f, sc, rows borrowed. */
void bf_results_print_compact(FILE *f, const bf_scenario_t *sc, const bf_row_t *rows, size_t nrows,
                              const char *dir);

/* bf_results_finished_cells — for --resume: the cell names (file names) already finished in
 * the directory (cells/<name>.ndjson exists). Returns 1 if `name` is finished. */
int bf_results_cell_finished(const bf_results_t *r, const char *name);
/* bf_results_cell_partial — for --resume: a cell that started and never finished (the
 * coordinator was killed mid-cell) leaves cells/<name>.samples.partial. Returns the number of
 * sample lines in it (0 when empty), or -1 when there is none. Reads the file; r is borrowed. */
long bf_results_cell_partial(const bf_results_t *r, const char *name);
/* bf_results_load_row — for --resume: read a finished cell's row back from its ndjson.
 * Returns 0 or BF_E_NOTFOUND / BF_E_PARSE. */
int bf_results_load_row(const bf_results_t *r, const char *name, const bf_cell_t *cell, bf_row_t *row);

#endif
