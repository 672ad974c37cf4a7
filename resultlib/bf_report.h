/* SPDX-License-Identifier: MIT */
/* bf_report.h — report.html: the results directory as one page of charts.
 *
 * Reads a results directory (docs/internals/measurement.md) and writes DIR/report.html, one
 * self-contained file: no network, no script libraries, no JavaScript at all — inline SVG drawn
 * here and a little CSS. It shows
 *   - the findings (bf_findings: best cell per shard count, knee, shard and batch ratios);
 *   - docs/s against concurrency, one line per batch size, one panel per shard count (the
 *     chart the seed shard study asks for; other axes that vary split the lines further);
 *   - each cell's per-second docs/s (the merged "second" lines of cells/<cell>.ndjson), the
 *     warmup shaded and the tail after the window hatched;
 *   - service-time percentiles per cell (p50, p90, p99, p99.9, max; missing when too few
 *     samples, as in the matrix);
 *   - write thread-pool queue and rejections per node per second (telemetry/<cell>.ndjson);
 *   - the matrix as a table.
 * The numbers behind every chart are embedded as JSON in
 * <script type="application/json" id="bf-data"> {"matrix": <matrix.json>, "findings": ...,
 * "charts": {"throughput", "per_second", "latency", "telemetry"}} so a test (or a reader) can
 * check that what is drawn is what matrix.json says. Every marker in the SVG also carries
 * data-cell / data-x / data-y attributes with the exact value.
 *
 * Input caps: a cell or telemetry file larger than BF_MAX_REPORT_FILE_BYTES is skipped (the
 * chart says so). Not thread-safe (one call at a time per directory); no global state.
 */
#ifndef BF_REPORT_H
#define BF_REPORT_H

#include "bf_buf.h"
#include "bf_error.h"

#define BF_MAX_REPORT_FILE_BYTES (512u << 20) /* one cells/ or telemetry/ ndjson file */
#define BF_MAX_REPORT_REPS 1000u              /* repetitions looked for per cell */

/* bf_report_render — the HTML of DIR's report, appended to *html. Returns 0, or
 * BF_E_NOTFOUND (no DIR/matrix.json) / BF_E_PARSE (matrix.json unreadable) with diag. */
int bf_report_render(const char *dir, bf_buf_t *html, bf_diag_t *diag);

/* bf_report_write — render and write DIR/report.html atomically (temp file + rename).
 * Returns 0, the codes of bf_report_render, or BF_E_IO with diag. */
int bf_report_write(const char *dir, bf_diag_t *diag);

/* bf_report_cmd — `bulkfleet-coordinator report DIR`: argv[0] is "report". Prints the path
 * of the written file. Returns the exit code (enum bf_exit): 0, 2 (usage, or DIR is not a results
 * directory), 3 (cannot write). */
int bf_report_cmd(int argc, char **argv);

/* bf_report_unknown_fields — how many times a report asked for a row or query field that the
 * results field table does not have, since the process started (each is logged): 0 unless
 * the report drifted from the table. For tests; the report runs on one thread. */
unsigned bf_report_unknown_fields(void);

#endif
