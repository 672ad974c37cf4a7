/* SPDX-License-Identifier: MIT */
/* bf_selftest.c — build, compress and judge a cell's bulk requests without a network. */
#include "bf_selftest.h"

#include "bf_buf.h"
#include "bf_bulkresp.h"
#include "bf_clock.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_scenload.h"
#include "bf_units.h"
#include "bf_verdict.h"

#include <getopt.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct job {
    const bf_tmpl_t *tmpl;
    const bf_cell_t *cell;
    bf_partition_t part;
    const char *resp; /* the canned answer, batch_size items */
    size_t resp_len;
    int gzip;
    int gzip_level; /* request.gzip_level, as the worker's compressor */
    uint64_t end_us;
    uint64_t docs, requests, payload, wire;
    int rc;
} job;

static void *one_thread(void *arg)
{
    job *j = arg;
    uint32_t batch = j->cell->batch_size;
    bf_gen_t *gen = bf_gen_new(j->tmpl, &j->part);
    struct libdeflate_compressor *gzc =
        j->gzip ? libdeflate_alloc_compressor(j->gzip_level ? j->gzip_level : 1) : NULL;
    bf_buf_t body, gz;
    bf_buf_init(&body, 0);
    bf_buf_init(&gz, 0);
    uint8_t *cls = bf_malloc(batch ? batch : 1);
    while (bf_clock_mono_us() < j->end_us) {
        bf_buf_reset(&body);
        if (bf_tmpl_render_bulk(j->tmpl, gen, j->cell, batch, &body) != BF_OK) {
            j->rc = BF_E_IO;
            break;
        }
        size_t wire = body.len;
        if (gzc) {
            size_t bound = libdeflate_gzip_compress_bound(gzc, body.len);
            bf_buf_reserve(&gz, bound + 1);
            wire = libdeflate_gzip_compress(gzc, body.data, body.len, gz.data, gz.cap - 1);
            if (wire == 0) {
                j->rc = BF_E_IO;
                break;
            }
        }
        /* the answer is judged as a worker judges it: parsed, then the verdict */
        bf_verdict_in_t in;
        memset(&in, 0, sizeof in);
        in.xfer = BF_XFER_RESPONSE;
        in.status = 200;
        in.ndocs = batch;
        in.item_type = "";
        in.error_type = "";
        in.parsed =
            bf_bulkresp_parse(j->resp, j->resp_len, batch, &in.items, cls, NULL, 0) == BF_OK;
        bf_verdict_t v;
        bf_verdict_judge(&in, &v);
        if (v.docs.ok != batch) {
            j->rc = BF_E_IO;
            break;
        }
        j->docs += batch;
        j->requests++;
        j->payload += body.len;
        j->wire += wire;
    }
    free(cls);
    bf_buf_cleanup(&gz);
    bf_buf_cleanup(&body);
    if (gzc)
        libdeflate_free_compressor(gzc);
    bf_gen_destroy(&gen);
    return NULL;
}

/* {"took":1,"errors":false,"items":[...]} of n created items, as a cluster answers. */
static char *canned_response(uint32_t n, size_t *len)
{
    bf_buf_t b;
    bf_buf_init(&b, 0);
    bf_buf_appendz(&b, "{\"took\":1,\"errors\":false,\"items\":[");
    for (uint32_t i = 0; i < n; i++)
        bf_buf_appendf(&b,
                       "%s{\"index\":{\"_index\":\"selftest\",\"_id\":\"%020u\",\"_version\":1,"
                       "\"result\":\"created\",\"_shards\":{\"total\":1,\"successful\":1,"
                       "\"failed\":0},\"_seq_no\":%u,\"_primary_term\":1,\"status\":201}}",
                       i ? "," : "", i, i);
    bf_buf_appendz(&b, "]}");
    *len = b.len;
    return bf_buf_steal(&b);
}

int bf_selftest_run(const bf_scenario_t *sc, const bf_tmpl_t *tmpl, const bf_cell_t *cell,
                    uint32_t threads, uint64_t duration_ms, bf_selftest_result_t *out,
                    bf_diag_t *diag)
{
    memset(out, 0, sizeof *out);
    if (threads == 0 || threads > BF_SELFTEST_MAX_THREADS)
        return bf_diag_set(diag, BF_E_INVAL, "selftest: --threads %u: expected 1..%u", threads,
                           BF_SELFTEST_MAX_THREADS);
    if (duration_ms == 0 || duration_ms > BF_SELFTEST_MAX_MS)
        return bf_diag_set(diag, BF_E_INVAL, "selftest: --seconds: expected 1..%u",
                           BF_SELFTEST_MAX_MS / 1000u);
    if (bf_scenario_corpus(sc) || bf_scenario_document(sc)->corpus_local_path)
        return bf_diag_set(diag, BF_E_INVAL,
                           "selftest: cell %s reads document.corpus; the "
                           "selftest builds template documents only (document.source)",
                           cell->id);
    size_t resp_len = 0;
    char *resp = canned_response(cell->batch_size, &resp_len);
    job *jobs = bf_calloc(threads, sizeof *jobs);
    pthread_t *tids = bf_calloc(threads, sizeof *tids);
    uint64_t u0, s0, u1, s1;
    bf_clock_cpu_ms(&u0, &s0);
    uint64_t t0 = bf_clock_mono_us();
    uint32_t started = 0;
    int rc = BF_OK;
    for (uint32_t i = 0; i < threads; i++) {
        jobs[i] = (job){.tmpl = tmpl,
                        .cell = cell,
                        .part = {.stream_index = i,
                                 .stream_count = threads,
                                 .seed = bf_scenario_run(sc)->seed + cell->index},
                        .resp = resp,
                        .resp_len = resp_len,
                        .gzip = cell->compression == BF_COMPRESS_GZIP,
                        .gzip_level = (int)bf_scenario_request(sc)->gzip_level,
                        .end_us = t0 + duration_ms * 1000u};
        if (pthread_create(&tids[i], NULL, one_thread, &jobs[i]) != 0) {
            rc = bf_diag_set(diag, BF_E_IO, "selftest: could not start thread %u of %u", i + 1,
                             threads);
            break;
        }
        started++;
    }
    for (uint32_t i = 0; i < started; i++)
        pthread_join(tids[i], NULL);
    uint64_t t1 = bf_clock_mono_us();
    bf_clock_cpu_ms(&u1, &s1);
    out->threads = started;
    for (uint32_t i = 0; i < started; i++) {
        out->docs += jobs[i].docs;
        out->requests += jobs[i].requests;
        out->payload_bytes += jobs[i].payload;
        out->wire_bytes += jobs[i].wire;
        if (jobs[i].rc != BF_OK && rc == BF_OK)
            rc = bf_diag_set(diag, BF_E_IO,
                             "selftest: cell %s: a bulk body could not be built "
                             "or compressed (bulkfleet-agent render shows it)",
                             cell->id);
    }
    out->elapsed_s = (double)(t1 - t0) / 1e6;
    out->cpu_s = (double)((u1 + s1) - (u0 + s0)) / 1000.0;
    out->docs_per_s = out->elapsed_s > 0 ? (double)out->docs / out->elapsed_s : 0;
    out->docs_per_thread_s = started ? out->docs_per_s / started : 0;
    out->docs_per_cpu_s = out->cpu_s > 0 ? (double)out->docs / out->cpu_s : 0;
    free(tids);
    free(jobs);
    free(resp);
    return rc;
}

#define SELFTEST_USAGE                                                                             \
    "usage: bulkfleet-agent selftest SCENARIO [--cell ID|N] [--threads N] [--seconds S]\n"
#define SELFTEST_HELP                                                                              \
    "Builds and gzips the bulk requests of each cell (or --cell ID|N) on --threads threads\n"      \
    "(default: the CPU count) for --seconds S (default 3) and prints the docs/s one agent can\n"   \
    "generate, with no network: compare it with a run's docs/s to see if the agent is the\n"       \
    "limit.\n"

int bf_selftest_main(int argc, char **argv)
{
    const char *cell_sel = NULL;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    uint32_t threads = ncpu > 0 ? (uint32_t)ncpu : 1;
    uint64_t seconds = 3, v;
    static const struct option longopts[] = {
        {"cell", required_argument, NULL, 'c'},
        {"threads", required_argument, NULL, 't'},
        {"seconds", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "c:t:s:h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'h': fputs(SELFTEST_USAGE SELFTEST_HELP, stdout); return BF_EXIT_OK;
        case 'c': cell_sel = optarg; break;
        case 't':
            if (bf_units_parse_u64(optarg, &v) != 0 || v == 0 || v > BF_SELFTEST_MAX_THREADS) {
                bf_error("--threads %s: expected 1..%u", optarg, BF_SELFTEST_MAX_THREADS);
                return BF_EXIT_INPUT;
            }
            threads = (uint32_t)v;
            break;
        case 's':
            if (bf_units_parse_u64(optarg, &v) != 0 || v == 0 || v > BF_SELFTEST_MAX_MS / 1000u) {
                bf_error("--seconds %s: expected 1..%u", optarg, BF_SELFTEST_MAX_MS / 1000u);
                return BF_EXIT_INPUT;
            }
            seconds = v;
            break;
        default: fputs(SELFTEST_USAGE, stderr); return BF_EXIT_INPUT;
        }
    }
    if (optind != argc - 1) {
        fputs(SELFTEST_USAGE, stderr);
        return BF_EXIT_INPUT;
    }
    bf_diag_t diag = {0};
    bf_scenario_t *sc = NULL;
    bf_tmpl_t *tmpl = NULL;
    int code = BF_EXIT_INPUT;
    if (bf_scenload_file(argv[optind], NULL, &sc) != BF_OK)
        goto out; /* every mistake said, as validate says them */
    size_t first = 0, last = bf_scenario_cell_count(sc);
    if (cell_sel) {
        size_t n = bf_scenario_cell_count(sc);
        first = n;
        for (size_t i = 0; i < n; i++)
            if (strcmp(bf_scenario_cell(sc, i)->id, cell_sel) == 0)
                first = i;
        if (first == n && bf_units_parse_u64(cell_sel, &v) == 0 && v >= 1 && v <= n)
            first = (size_t)v - 1;
        if (first == n) {
            bf_error("--cell %s: no such cell (%zu cells; give an id or 1..%zu)", cell_sel, n, n);
            goto out;
        }
        last = first + 1;
    }
    if (bf_tmpl_compile(sc, &tmpl, &diag) != BF_OK) {
        bf_error("%s", diag.msg);
        goto out;
    }
    code = BF_EXIT_OK;
    for (size_t i = first; i < last; i++) {
        const bf_cell_t *cell = bf_scenario_cell(sc, i);
        bf_selftest_result_t r;
        if (bf_selftest_run(sc, tmpl, cell, threads, seconds * 1000u, &r, &diag) != BF_OK) {
            bf_error("%s", diag.msg);
            code = diag.code == BF_E_INVAL ? BF_EXIT_INPUT : BF_EXIT_FAILED;
            break;
        }
        printf("selftest: cell %s (batch %u%s), %u thread%s, %.1f s, no network: %.0f docs/s "
               "(%.0f per thread), %.2f CPU s, %.0f docs per CPU-second, %.1f MB/s payload\n",
               cell->id, cell->batch_size, cell->compression == BF_COMPRESS_GZIP ? ", gzip" : "",
               r.threads, r.threads == 1 ? "" : "s", r.elapsed_s, r.docs_per_s, r.docs_per_thread_s,
               r.cpu_s, r.docs_per_cpu_s, (double)r.payload_bytes / r.elapsed_s / 1e6);
        printf("cell=%s threads=%u seconds=%.3f docs=%llu docs_per_s=%.0f docs_per_thread_s=%.0f "
               "docs_per_cpu_s=%.0f\n",
               cell->id, r.threads, r.elapsed_s, (unsigned long long)r.docs, r.docs_per_s,
               r.docs_per_thread_s, r.docs_per_cpu_s);
        fflush(stdout);
    }
out:
    bf_tmpl_destroy(&tmpl);
    bf_scenario_destroy(&sc);
    return code;
}
