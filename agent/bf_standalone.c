/* SPDX-License-Identifier: MIT */
/* bf_standalone.c — `bulkfleet-agent run SCENARIO [--cell ID|N]`: the single-host loadgen use
 * case. Prepares each cell's indices itself (there is no coordinator), runs the cell with the
 * same workers and sampler as in fleet mode, aggregates with the same code, and prints the same
 * Markdown row as the coordinator. Nothing is written to disk unless --results is given; then
 * the results directory is the coordinator's (matrix.*, cells/<cell>.ndjson with every sample).
 *
 * `bulkfleet-agent render SCENARIO` writes bulk bodies exactly as a worker builds them, to see
 * what a template produces and to give benchmarks (bench/) the same bytes the agent sends.
 */
#include "bf_standalone.h"

#include "bf_aggregate.h"
#include "bf_clock.h"
#include "bf_cluster.h"
#include "bf_finish.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_prefill.h"
#include "bf_results.h"
#include "bf_run.h"
#include "bf_scenario.h"
#include "bf_scenload.h"
#include "bf_template.h"
#include "bf_units.h"
#include "bf_vars.h"

#include <errno.h>
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
    FILE *samples; /* raw samples file of --results, or NULL */
    const bf_run_t *run; /* for the named queries of each second */
    bf_results_t *res;   /* where a failed sample write is recorded */
    int io_failed;       /* a sample could not be written: the load stops */
    size_t cell_no, ncells;        /* progress: "cell 2/8" (1-based) */
    uint32_t warmup_s, duration_s; /* the planned window, for the phase */
    uint64_t t0_us;                /* the run's start (bf_clock_mono_us), for "elapsed" */
} collect;

/* The coordinator's progress line (bf_cell_protocol.c): on a terminal one line rewritten every
 * second, else an info line every 5 s; the second's numbers are complete (it is sealed). */
static void progress(const collect *k, int32_t second)
{
    if (second < 0)
        return;
    uint64_t ok = 0, err = 0, rej = 0;
    bf_cellagg_live(k->agg, second, &ok, &err, &rej);
    char phase[48], el[32];
    bf_cellagg_phase(second, k->warmup_s, k->duration_s, phase, sizeof phase);
    bf_units_format_duration_ms((bf_clock_mono_us() - k->t0_us) / 1000u, el, sizeof el);
    if (isatty(STDERR_FILENO)) {
        char line[512];
        snprintf(line, sizeof line,
                 "cell %zu/%zu %s  %s  %llu docs/s  errors %llu  429 %llu  "
                 "elapsed %s",
                 k->cell_no, k->ncells, k->cell_id, phase, (unsigned long long)ok,
                 (unsigned long long)err, (unsigned long long)rej, el);
        fprintf(stderr, "\r\033[K%s", line); /* the live line, rewritten every second */
        fflush(stderr);
    } else if (second % 5 == 4) {
        bf_info("cell %zu/%zu %s %s: %llu docs/s, errors %llu, 429 %llu, elapsed %s", k->cell_no,
                k->ncells, k->cell_id, phase, (unsigned long long)ok, (unsigned long long)err,
                (unsigned long long)rej, el);
    }
}

static void on_second(void *ctx, int32_t second, const bf_counters_t *c, const bf_hist_t *svc,
                      const bf_hist_t *lat)
{
    collect *k = ctx;
    Bf__Sample s;
    Bf__Hist hs, hl;
    bf_sample_pack(&s, &hs, &hl, k->cell_id, ++k->seq, second, c, svc, lat);
    bf_run_pack_queries(k->run, &s);
    bf_run_pack_errors(k->run, &s);
    bf_cellagg_add(k->agg, 0, &s);
    if (k->samples)
        if (bf_results_sample_line(k->samples, "standalone", &s) != BF_OK && !k->io_failed) {
            char msg[600];
            snprintf(msg, sizeof msg, "cannot write samples of cell %s to %s: %s", k->cell_id,
                     bf_results_dir(k->res), strerror(errno));
            bf_results_note_error(k->res, msg);
            bf_error("%s", msg);
            k->io_failed = 1;
        }
    bf_run_pack_queries_cleanup(&s);
    bf_run_pack_errors_cleanup(&s);
    bf_sample_pack_cleanup(&s);
    progress(k, second);
}

#define RUN_USAGE                                                                                  \
    "usage: bulkfleet-agent run SCENARIO [--cell ID|N] [--threads N] [--results DIR]\n"            \
    "                              [--warmup DURATION] [--first-warmup DURATION]\n"                \
    "                              [--duration DURATION]\n"                                        \
    "                              [--replace-existing NAME]...\n"
#define RUN_HELP                                                                                   \
    "\n"                                                                                           \
    "Runs the scenario's cells on this host without a coordinator (the loadgen use case):\n"       \
    "prepares each cell's indices, loads them, verifies by _count and prints the matrix.\n"        \
    "  --cell ID|N           one cell: its id or number as `bulkfleet-coordinator plan` prints\n"  \
    "  --threads N           worker threads (default: one per core)\n"                             \
    "  --results DIR         also write the results directory (as the coordinator does)\n"         \
    "  --warmup DURATION     override run.warmup (0s for none); the first cell keeps\n"            \
    "                        run.first_warmup\n"                                                   \
    "  --first-warmup DURATION  override run.first_warmup (0s = run.warmup)\n"                     \
    "  --duration DURATION   override run.duration (at least 1s)\n"                                \
    "  --replace-existing NAME  index.recreate may replace this index although bulkfleet did\n"    \
    "                        not create it (repeatable)\n"                                         \
    "  -v, --verbose         debug logging\n"                                                      \
    "Ctrl-C stops the load and prints the partial row (exit 130). Exit codes: 0 every row\n"       \
    "clean, 1 a row failed or is unverified or flagged, 2 bad input, 3 environment.\n"
#define MAX_REPLACE 64 /* --replace-existing names */

/* The results directory, said at the start as the coordinator does (a run killed prints nothing
 * after), with how to finish an interrupted run */
static void announce_results(const bf_results_t *res, const char *scenario, const char *base)
{
    bf_info("results: %s (if this run is interrupted: the cells it finished stay there; run each "
            "one left with bulkfleet-agent run %s --cell ID --results %s)",
            bf_results_dir(res), scenario, base);
}

/* The cell chosen by --cell (id or 1-based number): [*first, *last) of the scenario's cells.
 * Returns 0, or 2 after printing why. */
static int select_cells(const bf_scenario_t *sc, const char *cell_sel, size_t *first, size_t *last)
{
    *first = 0;
    *last = bf_scenario_cell_count(sc);
    if (cell_sel == NULL)
        return BF_EXIT_OK;
    const bf_cell_t *c = bf_scenario_find_cell(sc, cell_sel);
    uint64_t n;
    if (c == NULL && bf_units_parse_u64(cell_sel, &n) == 0 && n >= 1 && n <= *last)
        c = bf_scenario_cell(sc, (size_t)n - 1);
    if (c == NULL) {
        bf_error("--cell %s: no such cell (give its id as printed by "
                 "`bulkfleet-coordinator plan`, or its number 1..%zu)",
                 cell_sel, *last);
        return BF_EXIT_INPUT;
    }
    *first = c->index;
    *last = c->index + 1;
    return BF_EXIT_OK;
}

/* One repetition of one cell: prepare its indices, run it on `threads` workers, and end it
 * through bf_finish_cell (the coordinator's path: verified, flagged, written to res if any). */
/* An Elastic Serverless project (GET / said build_flavor serverless): what it refuses is
 * refused before any index (exit 2), what bulkfleet would add by itself is left out
 * (bf_scenario_elastic_serverless). Returns an exit code. */
static int adapt_to_flavor(bf_scenario_t *sc, const bf_cluster_info_t *info)
{
    if (strcmp(info->flavor, "serverless") != 0)
        return BF_EXIT_OK;
    char err[2048];
    if (bf_scenario_elastic_serverless(sc, NULL, err, sizeof err) != BF_OK) {
        bf_error("%s", err);
        return BF_EXIT_INPUT;
    }
    bf_info("target: Elastic Serverless (build_flavor serverless): indices are created without "
            "number_of_shards and number_of_replicas; _cluster/health and _stats are not public "
            "and are skipped, as Rally skips non-public operations");
    return BF_EXIT_OK;
}

static void run_repetition(bf_scenario_t *sc, const bf_cell_t *cell, uint32_t rep, uint32_t repeat,
                           uint32_t threads, bf_es_t *es, const bf_cluster_info_t *info,
                           const bf_owner_t *owner, bf_results_t *res, size_t cell_no,
                           size_t ncells, uint64_t t0_us, bf_row_t *row)
{
    const bf_run_spec_t *run = bf_scenario_run(sc);
    bf_diag_t diag = {0};
    int yellow = 0;
    uint32_t cores = threads;
    bf_cellagg_t *agg = bf_cellagg_new(cell, rep, 1, &cores, (uint32_t)(run->warmup_ms / 1000),
                                       (uint32_t)(run->duration_ms / 1000));
    bf_run_t *r = NULL;
    char mismatch[400] = "";
    bf_cell_end_t end = {.search_total_before = -1,
                         .force_merge = bf_scenario_index(sc)->force_merge,
                         .force_merge_timeout_ms =
                             (long)bf_scenario_index(sc)->force_merge_timeout_ms};
    char cell_name[256];
    bf_results_cell_name(cell, rep, repeat, cell_name, sizeof cell_name);
    bf_cellagg_set_queries(agg, bf_scenario_search(sc));
    /* with a search section: prefill, and search-only cells keep their index (bf_prefill.h) */
    if (bf_prefill_prepare_cell(es, sc, cell, owner, info->data_nodes, 120000, &yellow, NULL, NULL,
                                &diag) == BF_OK) {
        end.baseline = bf_cluster_baseline(es, sc, cell);
        if (bf_cluster_existing_mismatch(es, sc, cell, mismatch, sizeof mismatch, &end.index_shards,
                                         &end.index_replicas))
            bf_warn("cell %s: %s", cell->id, mismatch);
        /* repetition 1 keeps the seed a run without run.repeat has */
        bf_run_cfg_t cfg = {.sc = sc,
                            .cell = cell,
                            .threads = threads,
                            .concurrency = cell->concurrency,
                            .target_rate = cell->target_rate,
                            .stream_base = 0,
                            .stream_count = threads,
                            .seed = run->seed + cell->index + (uint64_t)(rep - 1) * 1000003u,
                            .warmup_ms = run->warmup_ms,
                            .duration_ms = run->duration_ms,
                            .search_clients = cell->search_clients,
                            .search_rate = cell->search_rate,
                            /* one stream set reads the whole corpus: every cell keeps it all
                             * (only its action lines change) */
                            .corpus_edit = bf_scenario_corpus_edit(sc)};
        r = bf_run_new(&cfg, &diag);
        if (r && cell->search_clients > 0) /* the cluster's query phases, for verification */
            end.search_total_before = bf_cluster_search_total(es, cell);
    }
    const char *ids[] = {"standalone"};
    if (r == NULL) {
        bf_error("%s", diag.msg);
        end.failure = diag.msg;
        bf_finish_cell(res, es, cell, cell_name, agg, ids, 1, &end, row);
        bf_cellagg_destroy(&agg);
        return;
    }
    collect k = {.agg = agg,
                 .cell_id = cell->id,
                 .last_shown = -1,
                 .run = r,
                 .res = res,
                 .samples = res ? bf_results_samples_open(res, cell_name) : NULL,
                 .cell_no = cell_no,
                 .ncells = ncells,
                 .warmup_s = (uint32_t)(run->warmup_ms / 1000),
                 .duration_s = (uint32_t)(run->duration_ms / 1000),
                 .t0_us = t0_us};
    if (res && k.samples == NULL)
        k.io_failed = 1;
    uint64_t start_us = bf_clock_mono_us() + 200000u;
    bf_run_start(r, start_us);
    int aborted = 0;
    while (!bf_run_poll(r, on_second, &k)) {
        if ((bf_standalone_stop_flag || k.io_failed) && !aborted) {
            /* Ctrl-C, or the results directory cannot take what is measured: stop loading. The
             * row is over the seconds measured in full before now (the partial row), not the
             * planned duration with empty seconds */
            uint64_t now = bf_clock_mono_us();
            int32_t sec = now > start_us ? (int32_t)((now - start_us) / 1000000u) : 0;
            bf_cellagg_stop_at(agg, sec);
            bf_run_abort(r);
            aborted = 1;
            int32_t measured = sec > (int32_t)k.warmup_s ? sec - (int32_t)k.warmup_s : 0;
            if (measured > (int32_t)k.duration_s)
                measured = (int32_t)k.duration_s;
            if (bf_standalone_stop_flag)
                bf_warn("cell %s: interrupted %.1f s into the cell; its row covers the %d "
                        "second%s measured in full before that",
                        cell->id, (double)(now > start_us ? now - start_us : 0) / 1e6, measured,
                        measured == 1 ? "" : "s");
        }
        bf_clock_sleep_us(100000);
    }
    if (isatty(STDERR_FILENO))
        fputs("\r\033[K", stderr);
    const char *fatal = bf_run_fatal(r);
    if (fatal[0])
        bf_error("%s", fatal);
    if (!aborted && bf_run_corpus_done(r)) /* the window ends at the end of the corpus */
        bf_cellagg_corpus_end(agg, 0, bf_run_corpus_end_ms(r));
    end.yellow = yellow;
    end.aborted = aborted;
    end.failure = fatal;
    end.mismatch = mismatch;
    bf_finish_cell(res, es, cell, cell_name, agg, ids, 1, &end, row);
    bf_run_destroy(&r);
    bf_cellagg_destroy(&agg);
}

/* The same table as the coordinator prints: compact in a terminal, whole elsewhere. */
static void print_matrix(const bf_results_t *res, const bf_scenario_t *sc, const bf_row_t *rows,
                         size_t nrows)
{
    if (res && isatty(STDOUT_FILENO))
        bf_results_print_compact(stdout, sc, rows, nrows, bf_results_dir(res));
    else
        bf_results_print_md(stdout, sc, rows, nrows);
}

int bf_standalone_main(int argc, char **argv)
{
    const char *cell_sel = NULL, *results_base = NULL;
    uint32_t threads = 0;
    uint64_t warmup_ms = 0, first_warmup_ms = 0, duration_ms = 0;
    int have_warmup = 0, have_first_warmup = 0, have_duration = 0;
    const char *replace[MAX_REPLACE];
    size_t nreplace = 0;
    static const struct option longopts[] = {
        {"cell", required_argument, NULL, 'c'},
        {"warmup", required_argument, NULL, 'w'},
        {"first-warmup", required_argument, NULL, 'F'},
        {"duration", required_argument, NULL, 'd'},
        {"threads", required_argument, NULL, 't'},
        {"results", required_argument, NULL, 'r'},
        {"replace-existing", required_argument, NULL, 'X'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int ch;
    uint64_t v;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "c:t:r:vw:d:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'h': fputs(RUN_USAGE RUN_HELP, stdout); return BF_EXIT_OK;
        case 'c': cell_sel = optarg; break;
        case 'w':
        case 'F':
        case 'd': {
            uint64_t ms;
            if (bf_units_parse_duration_ms(optarg, &ms) != 0 || (ch == 'd' && ms < 1000)) {
                bf_error("--%s %s: expected a duration like %s",
                         ch == 'w'   ? "warmup"
                         : ch == 'F' ? "first-warmup"
                                     : "duration",
                         optarg, ch == 'd' ? "30s (at least 1s)" : "2s (0s for none)");
                return BF_EXIT_INPUT;
            }
            if (ch == 'w') {
                warmup_ms = ms;
                have_warmup = 1;
            } else if (ch == 'F') {
                first_warmup_ms = ms;
                have_first_warmup = 1;
            } else {
                duration_ms = ms;
                have_duration = 1;
            }
            break;
        }
        case 'r': results_base = optarg; break;
        case 'X':
            if (nreplace >= MAX_REPLACE) {
                bf_error("--replace-existing: at most %d names", MAX_REPLACE);
                return BF_EXIT_INPUT;
            }
            replace[nreplace++] = optarg;
            break;
        case 't':
            if (bf_units_parse_u64(optarg, &v) != 0 || v == 0 || v > 1024) {
                bf_error("--threads %s: expected 1..1024", optarg);
                return BF_EXIT_INPUT;
            }
            threads = (uint32_t)v;
            break;
        case 'v': bf_log_set_level(BF_LOG_DEBUG); break;
        default:
            fputs(RUN_USAGE, stderr);
            return BF_EXIT_INPUT;
        }
    }
    if (optind != argc - 1) {
        fputs(RUN_USAGE, stderr);
        return BF_EXIT_INPUT;
    }
    bf_diag_t diag = {0};
    bf_scenario_t *sc = NULL;
    if (bf_scenload_file(argv[optind], NULL, &sc) != BF_OK)
        return BF_EXIT_INPUT; /* every mistake said, as validate says them */
    for (size_t i = 0; i < bf_scenario_warning_count(sc); i++)
        bf_warn("%s", bf_scenario_warning(sc, i));
    size_t first, last;
    if (select_cells(sc, cell_sel, &first, &last) != 0) {
        bf_scenario_destroy(&sc);
        return BF_EXIT_INPUT;
    }
    /* a scaled-down run of the same scenario, as `bulkfleet-coordinator run --warmup --duration` */
    bf_scenario_override_run(sc, have_warmup ? &warmup_ms : NULL,
                             have_first_warmup ? &first_warmup_ms : NULL,
                             have_duration ? &duration_ms : NULL);
    uint64_t seed;
    if (bf_scenario_seed_fresh(sc, &seed))
        bf_info("run.seed not set: this run uses seed %llu (write run.seed: %llu to repeat its "
                "documents exactly)", (unsigned long long)seed, (unsigned long long)seed);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (threads == 0)
        threads = ncpu > 0 ? (uint32_t)ncpu : 1;
    const bf_run_spec_t *run = bf_scenario_run(sc);
    bf_es_t *es = bf_es_new(bf_scenario_target(sc), 0, 130000);
    bf_cluster_info_t info;
    bf_results_t *res = NULL;
    int code = BF_EXIT_OK;
    if (bf_cluster_probe(bf_scenario_target(sc), 0, bf_scenario_request(sc)->timeout_ms, &info,
                         &diag) != BF_OK) {
        bf_error("cannot use the target cluster: %s", diag.msg);
        code = BF_EXIT_ENV;
        goto out;
    }
    if ((code = adapt_to_flavor(sc, &info)) != BF_EXIT_OK)
        goto out;
    char vmsg[512];
    if (bf_var_vector_check(bf_scenario_variables(sc), bf_scenario_variable_count(sc),
                            info.distribution, info.version, vmsg, sizeof vmsg) != BF_OK) {
        bf_error("%s", vmsg);
        code = BF_EXIT_INPUT;
        goto out;
    }
    /* before any load: index.recreate deletes only what bulkfleet made */
    bf_owner_t owner = {.scenario = bf_scenario_name(sc), .replace = replace, .nreplace = nreplace};
    {
        uint8_t *sel = bf_calloc(bf_scenario_cell_count(sc) + 1, 1);
        for (size_t i = first; i < last; i++)
            sel[i] = 1;
        int orc = bf_cluster_check_owned(es, sc, sel, &owner, &diag);
        free(sel);
        if (orc != BF_OK) {
            bf_error("%s", diag.msg);
            code = BF_EXIT_ENV;
            goto out;
        }
    }
    if (results_base) {
        res = bf_results_open(results_base, NULL, sc, &diag);
        if (res == NULL) {
            bf_error("%s", diag.msg);
            code = BF_EXIT_ENV;
            goto out;
        }
        bf_results_set_cluster(res, &info);
        announce_results(res, argv[optind], results_base);
        const char *dir = bf_results_dir(res), *slash = strrchr(dir, '/');
        owner.campaign = slash ? slash + 1 : dir;
    }
    uint32_t repeat = run->repeat ? run->repeat : 1;
    uint64_t t0_us = bf_clock_mono_us();
    bf_row_t *rows = bf_calloc(last - first + 1, sizeof *rows);
    bf_row_t *reps = bf_calloc(repeat, sizeof *reps);
    size_t nrows = 0;
    for (size_t i = first; i < last && !bf_standalone_stop_flag; i++) {
        const bf_cell_t *cell = bf_scenario_cell(sc, i);
        uint32_t nreps = 0;
        for (uint32_t rep = 1; rep <= repeat && !bf_standalone_stop_flag &&
                               !(res && bf_results_error(res)); rep++) {
            bf_row_t *row = &reps[nreps++];
            memset(row, 0, sizeof *row);
            /* run.first_warmup: the first repetition run here warms up longer, as the
             * coordinator's first cell (its row records the warmup it had) */
            uint64_t warm_ms = run->warmup_ms, first_ms = run->first_warmup_ms;
            int longer = i == first && rep == 1 && first_ms > warm_ms;
            if (longer) {
                char a[32];
                bf_info("cell %s: the first cell warms up for %s (run.first_warmup)", cell->id,
                        bf_units_format_duration_ms(first_ms, a, sizeof a));
                bf_scenario_set_warmup(sc, first_ms);
            }
            run_repetition(sc, cell, rep, repeat, threads, es, &info, &owner, res, i - first + 1,
                           last - first, t0_us, row);
            if (longer)
                bf_scenario_set_warmup(sc, warm_ms);
        }
        const bf_row_t *folded = bf_finish_fold(res, sc, reps, nreps, rows, &nrows, NULL);
        if (folded)
            if (!bf_row_is_clean(folded)) /* as the coordinator decides its exit code */
                code = BF_EXIT_FAILED;
        if (res && bf_results_error(res))
            break;
    }
    free(reps);
    printf("\n");
    print_matrix(res, sc, rows, nrows);
    if (res)
        printf("\nresults: %s\n", bf_results_dir(res));
    free(rows);
    if (res && bf_results_error(res)) {
        bf_error("stopped: the results directory %s cannot be written (the error above); the "
                 "files that were complete before are kept",
                 bf_results_dir(res));
        code = BF_EXIT_ENV;
    }
    if (bf_standalone_stop_flag)
        code = bf_standalone_stop_flag;
out:
    bf_results_close(&res);
    bf_es_destroy(&es);
    bf_scenario_destroy(&sc);
    return code;
}

#define RENDER_USAGE "usage: bulkfleet-agent render SCENARIO [--cell ID|N] [--requests N]\n"

int bf_standalone_render_main(int argc, char **argv)
{
    const char *cell_sel = NULL;
    uint64_t requests = 1, v;
    static const struct option longopts[] = {
        {"cell", required_argument, NULL, 'c'},
        {"requests", required_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "c:n:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'h':
            fputs(RENDER_USAGE "writes the bulk bodies a worker of a one-thread run of the cell "
                               "would send\n(NDJSON, uncompressed) to stdout: --requests N of them "
                               "(default 1)\n",
                  stdout);
            return BF_EXIT_OK;
        case 'c': cell_sel = optarg; break;
        case 'n':
            if (bf_units_parse_u64(optarg, &v) != 0 || v == 0 || v > 1000000) {
                bf_error("--requests %s: expected 1..1000000", optarg);
                return BF_EXIT_INPUT;
            }
            requests = v;
            break;
        default: fputs(RENDER_USAGE, stderr); return BF_EXIT_INPUT;
        }
    }
    if (optind != argc - 1) {
        fputs(RENDER_USAGE, stderr);
        return BF_EXIT_INPUT;
    }
    bf_diag_t diag = {0};
    bf_scenario_t *sc = NULL;
    bf_tmpl_t *tmpl = NULL;
    bf_gen_t *gen = NULL;
    bf_buf_t body;
    size_t first, last;
    int code = BF_EXIT_INPUT;
    bf_buf_init(&body, BF_MAX_BODY_BYTES);
    if (bf_scenload_file(argv[optind], NULL, &sc) != BF_OK)
        goto out; /* every mistake said, as validate says them */
    if (select_cells(sc, cell_sel, &first, &last) != 0)
        goto out;
    if (bf_tmpl_compile(sc, &tmpl, &diag) != BF_OK) {
        bf_error("%s", diag.msg);
        goto out;
    }
    const bf_cell_t *cell = bf_scenario_cell(sc, first);
    /* the first worker of a one-thread standalone run of this cell */
    bf_partition_t part = {.stream_index = 0, .stream_count = 1,
                           .seed = bf_scenario_run(sc)->seed + first};
    gen = bf_gen_new(tmpl, &part);
    bf_gen_skip_sequences(gen, bf_gen_prefill_skip(sc));
    /* a corpus (document.corpus.path): the whole corpus as one stream's slice, looped */
    const bf_corpus_t *corpus = bf_scenario_corpus(sc);
    bf_corpus_cursor_t cur = {0};
    if (corpus) {
        cur.to = bf_corpus_docs(corpus);
        cur.passes = bf_scenario_document(sc)->corpus_passes;
    } else if (bf_scenario_document(sc)->corpus_local_path) {
        bf_error("render: document.corpus.local_path: render reads only a corpus given by "
                 "document.corpus.path");
        goto out;
    }
    code = BF_EXIT_OK;
    for (uint64_t i = 0; i < requests && code == 0; i++) {
        bf_buf_reset(&body);
        uint32_t got = 0;
        int rc = corpus ? bf_tmpl_render_corpus(tmpl, gen, cell, corpus, &cur, cell->batch_size, 1,
                                                &body, &got)
                        : bf_tmpl_render_bulk(tmpl, gen, cell, cell->batch_size, &body);
        if (corpus && rc == BF_OK && got == 0)
            break; /* the corpus's passes are over */
        if (rc != BF_OK) {
            bf_error("cell %s, request %llu: %s", cell->id, (unsigned long long)i + 1,
                     bf_strerror(rc));
            code = BF_EXIT_FAILED;
        } else if (fwrite(body.data, 1, body.len, stdout) != body.len) {
            code = BF_EXIT_ENV;
        }
    }
    if (fflush(stdout) != 0)
        code = BF_EXIT_ENV;
out:
    bf_buf_cleanup(&body);
    bf_gen_destroy(&gen);
    bf_tmpl_destroy(&tmpl);
    bf_scenario_destroy(&sc);
    return code;
}
