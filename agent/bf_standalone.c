/* bf_standalone.c — `bulkfleet-agent run SCENARIO [--cell ID|N]`: the single-host loadgen use
 * case. Prepares each cell's indices itself (there is no coordinator), runs the cell with the
 * same workers and sampler as in fleet mode, aggregates with the same code, and prints the same
 * Markdown row as the coordinator. Nothing is written to disk unless --results is given.
 */
#include "bf_standalone.h"

#include "bf_aggregate.h"
#include "bf_clock.h"
#include "bf_cluster.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_results.h"
#include "bf_run.h"
#include "bf_scenario.h"
#include "bf_units.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile int bf_standalone_stop_flag = 0;

typedef struct collect {
    bf_cellagg_t *agg;
    const char *cell_id;
    uint64_t seq;
    int32_t last_shown;
} collect;

static void on_second(void *ctx, int32_t second, const bf_counters_t *c, const bf_hist_t *svc,
                      const bf_hist_t *lat)
{
    collect *k = ctx;
    Bf__Sample s;
    Bf__Hist hs, hl;
    bf_sample_pack(&s, &hs, &hl, k->cell_id, ++k->seq, second, c, svc, lat);
    bf_cellagg_add(k->agg, 0, &s);
    bf_sample_pack_cleanup(&s);
    if (isatty(STDERR_FILENO))
        fprintf(stderr, "\r\033[Kcell %s t=%ds %llu docs/s, %llu rejected, %llu failed", k->cell_id,
                second, (unsigned long long)c->docs_ok, (unsigned long long)c->docs_rejected,
                (unsigned long long)bf_counters_docs_failed(c));
}

int bf_standalone_main(int argc, char **argv)
{
    const char *cell_sel = NULL;
    uint32_t threads = 0;
    static const struct option longopts[] = {
        {"cell", required_argument, NULL, 'c'},
        {"threads", required_argument, NULL, 't'},
        {"verbose", no_argument, NULL, 'v'},
        {NULL, 0, NULL, 0},
    };
    int ch;
    uint64_t v;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "c:t:v", longopts, NULL)) != -1) {
        switch (ch) {
        case 'c': cell_sel = optarg; break;
        case 't':
            if (bf_units_parse_u64(optarg, &v) != 0 || v == 0 || v > 1024) {
                fprintf(stderr, "bulkfleet-agent run: --threads %s: expected 1..1024\n", optarg);
                return 2;
            }
            threads = (uint32_t)v;
            break;
        case 'v': bf_log_set_level(BF_LOG_DEBUG); break;
        default:
            fprintf(stderr, "usage: bulkfleet-agent run SCENARIO [--cell ID|N] [--threads N]\n");
            return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "usage: bulkfleet-agent run SCENARIO [--cell ID|N] [--threads N]\n");
        return 2;
    }
    bf_diag_t diag = {0};
    bf_scenario_t *sc = NULL;
    if (bf_scenario_load_file(argv[optind], NULL, &sc, &diag) != BF_OK) {
        fprintf(stderr, "%s\n", diag.msg);
        return 2;
    }
    size_t first = 0, last = bf_scenario_cell_count(sc);
    if (cell_sel) {
        const bf_cell_t *c = bf_scenario_find_cell(sc, cell_sel);
        uint64_t n;
        if (c == NULL && bf_units_parse_u64(cell_sel, &n) == 0 && n >= 1 && n <= last)
            c = bf_scenario_cell(sc, (size_t)n - 1);
        if (c == NULL) {
            fprintf(stderr, "bulkfleet-agent run: --cell %s: no such cell (give its id as "
                    "printed by `bulkfleet-coordinator plan`, or its number 1..%zu)\n", cell_sel, last);
            bf_scenario_destroy(&sc);
            return 2;
        }
        first = c->index;
        last = c->index + 1;
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (threads == 0)
        threads = ncpu > 0 ? (uint32_t)ncpu : 1;
    const bf_run_spec_t *run = bf_scenario_run(sc);
    bf_es_t *es = bf_es_new(bf_scenario_target(sc), 0, 130000);
    bf_cluster_info_t info;
    int code = 0;
    if (bf_cluster_info(es, &info, &diag) != BF_OK) {
        fprintf(stderr, "bulkfleet-agent run: the target cluster is not reachable: %s\n", diag.msg);
        code = 3;
        goto out;
    }
    bf_row_t *rows = bf_calloc(last - first + 1, sizeof *rows);
    size_t nrows = 0;
    for (size_t i = first; i < last && !bf_standalone_stop_flag; i++) {
        const bf_cell_t *cell = bf_scenario_cell(sc, i);
        bf_row_t *row = &rows[nrows++];
        int yellow = 0;
        memset(&diag, 0, sizeof diag);
        uint32_t cores = threads;
        bf_cellagg_t *agg = bf_cellagg_new(cell, 1, 1, &cores, (uint32_t)(run->warmup_ms / 1000),
                                           (uint32_t)(run->duration_ms / 1000));
        bf_run_t *r = NULL;
        if (bf_cluster_prepare_cell(es, sc, cell, 120000, &yellow, &diag) == BF_OK) {
            bf_run_cfg_t cfg = {.sc = sc, .cell = cell, .threads = threads,
                                .concurrency = cell->concurrency, .target_rate = cell->target_rate,
                                .stream_base = 0, .stream_count = threads, .seed = run->seed + i,
                                .warmup_ms = run->warmup_ms, .duration_ms = run->duration_ms};
            r = bf_run_new(&cfg, &diag);
        }
        if (r == NULL) {
            bf_cellagg_row(agg, row);
            row->failed = 1;
            bf_strlcpy(row->reason, diag.msg, sizeof row->reason);
            bf_error("%s", diag.msg);
            bf_cellagg_destroy(&agg);
            continue;
        }
        collect k = {.agg = agg, .cell_id = cell->id, .last_shown = -1};
        bf_run_start(r, bf_clock_mono_us() + 200000u);
        int aborted = 0;
        while (!bf_run_poll(r, on_second, &k)) {
            if (bf_standalone_stop_flag && !aborted) {
                bf_run_abort(r);
                aborted = 1;
            }
            bf_clock_sleep_us(100000);
        }
        if (isatty(STDERR_FILENO))
            fputs("\r\033[K", stderr);
        const char *fatal = bf_run_fatal(r);
        bf_cellagg_row(agg, row);
        row->yellow = yellow;
        row->aborted = aborted;
        if (fatal[0]) {
            row->failed = 1;
            bf_strlcpy(row->reason, fatal, sizeof row->reason);
        }
        if (!row->failed && bf_cluster_count(es, cell, &row->docs_counted, &diag) == BF_OK)
            row->verified = (uint64_t)row->docs_counted == row->docs_ok_all;
        code |= row->failed || !row->verified;
        bf_run_destroy(&r);
        bf_cellagg_destroy(&agg);
    }
    printf("\n");
    /* the same table as the coordinator prints */
    bf_results_print_md(stdout, sc, rows, nrows);
    free(rows);
    if (bf_standalone_stop_flag)
        code = bf_standalone_stop_flag;
out:
    bf_es_destroy(&es);
    bf_scenario_destroy(&sc);
    return code;
}
