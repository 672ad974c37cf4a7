/* SPDX-License-Identifier: MIT */
/* bf_selftest.h — what this host can generate: a cell's bulk requests built, compressed and
 * judged for a few seconds without a network.
 *
 * Each of `threads` threads does what a worker does for every bulk request except the I/O:
 * renders batch_size documents of the cell from the scenario's template (its own generator
 * and id partition, as a worker's), gzips the body when the cell's request.compression is gzip
 * (libdeflate, as the worker), and judges a canned "errors":false response of batch_size items
 * (bf_bulkresp_parse + bf_verdict_judge). So the figure is the agent's ceiling on this host:
 * no cluster can be loaded faster by one agent with these threads, and `plan --agents N`
 * compares a target rate's per-agent share with it. The loop is bounded by duration_ms.
 */
#ifndef BF_SELFTEST_H
#define BF_SELFTEST_H

#include "bf_error.h"
#include "bf_scenario.h"
#include "bf_template.h"

#include <stdint.h>

#define BF_SELFTEST_MAX_MS 60000u /* longest selftest */
#define BF_SELFTEST_MAX_THREADS 256u

typedef struct bf_selftest_result {
    uint32_t threads;
    uint64_t docs;            /* documents built and judged */
    uint64_t requests;        /* bulk bodies */
    uint64_t payload_bytes;   /* uncompressed NDJSON */
    uint64_t wire_bytes;      /* as it would go on the wire (gzip'd when the cell says so) */
    double elapsed_s;         /* wall time of the loop */
    double cpu_s;             /* this process's CPU time (user + system) during it */
    double docs_per_s;        /* docs / elapsed_s, all threads */
    double docs_per_thread_s; /* docs_per_s / threads */
    double docs_per_cpu_s;    /* docs / cpu_s (0 when no CPU time was measured) */
} bf_selftest_result_t;

/* bf_selftest_run — run the selftest of `cell` (of scenario sc, template tmpl compiled from
 * it; both borrowed) on `threads` threads (1..BF_SELFTEST_MAX_THREADS) for duration_ms
 * (1..BF_SELFTEST_MAX_MS). Fills *out. Returns 0, BF_E_INVAL (bad threads or duration, or a
 * cell that reads a corpus: the selftest renders template documents only; diag says so) or
 * BF_E_IO (a thread could not start, or a body could not be rendered or compressed; diag).
 * Uses the process CPU clock, so run nothing else in the process meanwhile. */
int bf_selftest_run(const bf_scenario_t *sc, const bf_tmpl_t *tmpl, const bf_cell_t *cell,
                    uint32_t threads, uint64_t duration_ms, bf_selftest_result_t *out,
                    bf_diag_t *diag);

/* bf_selftest_main — `bulkfleet-agent selftest SCENARIO [--cell ID|N] [--threads N]
 * [--seconds S]`: prints each selected cell's figures (one line for people, one of key=value
 * pairs for scripts). Default threads: one per online core; default 3 s per cell (at most 60).
 * Returns an exit code (BF_EXIT_*). */
int bf_selftest_main(int argc, char **argv);

#endif
