/* SPDX-License-Identifier: MIT */
/* bf_run.c — workers of one cell and the sampler that seals their seconds. */
#include "bf_run.h"

#include "bf_allow.h"
#include "bf_clock.h"
#include "bf_es.h"
#include "bf_corpus.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_qstats.h"
#include "bf_search.h"
#include "bf_reshuffle.h"
#include "bf_routetable.h"
#include "bf_template.h"
#include "bf_worker.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TABLES 4096 /* snapshots kept per run (one per refresh; 5 h at 5 s) */

struct bf_run {
    bf_run_cfg_t cfg;
    bf_tmpl_t *tmpl;
    bf_corpus_t *own_corpus; /* corpus.local_path, opened here */
    uint8_t **keep;          /* per worker: which documents of its slice are JSON objects */
    bf_worker_t **workers;
    uint32_t nworkers;
    uint64_t start_mono_us;
    int started;
    int32_t next_second;
    uint64_t cpu_user_ms, cpu_sys_ms;
    bf_hist_t *svc;
    bf_hist_t *lat;
    bf_search_t *search;       /* NULL without search clients */
    bf_qstats_t *qs;           /* the second being emitted, per query */
    size_t nq;
    int q_pending;             /* inside the sample callback: qs is that second's */
    bf_errtypes_t errs;        /* failed documents by type collected with the second emitted */
    char fatal[512];
    /* routing_mode node|shard */
    bf_rt_holder_t routes;
    bf_routetable_t **tables;  /* every snapshot, freed at destroy (workers may hold any) */
    size_t ntables;
    bf_es_t *es;               /* the refresher's client (its thread only, after start) */
    pthread_t refresher;
    int refresher_started;
    atomic_int stop_refresher;
};

/* Marks nodes whose address the allow-list refuses (bf_allow_routetable); warns for each. */
static void apply_allow(const bf_run_cfg_t *cfg, bf_routetable_t *rt, int warn)
{
    if (bf_allow_routetable(cfg->allow_targets, rt) == 0 || !warn)
        return;
    for (size_t i = 0; i < rt->nnodes; i++)
        if (rt->nodes[i].refused)
            bf_warn("cell %s: node %s publishes %s, which is not on this agent's "
                    "--allow-target list: not loaded directly (its documents go to "
                    "target.hosts); add it to --allow-target to route to it",
                    cfg->cell->id, rt->nodes[i].name, rt->nodes[i].url);
}

static int fetch_table(bf_run_t *run, int warn, bf_diag_t *diag)
{
    const bf_cell_t *cell = run->cfg.cell;
    bf_routetable_t *rt = NULL;
    if (run->ntables >= MAX_TABLES)
        return bf_diag_set(diag, BF_E_TOOBIG, "routing table refreshed %d times", MAX_TABLES);
    int rc = bf_routetable_fetch(run->es, (const char *const *)cell->index_names, cell->indices,
                                 &rt, diag);
    if (rc != BF_OK)
        return rc;
    apply_allow(&run->cfg, rt, warn);
    const bf_routetable_t *prev = run->ntables ? run->tables[run->ntables - 1] : NULL;
    for (size_t i = 0; prev && i < rt->nindices && i < prev->nindices; i++) {
        const bf_rt_index_t *a = &prev->indices[i], *b = &rt->indices[i];
        for (uint32_t s = 0; s < a->routing.shards && s < b->routing.shards; s++) {
            const char *was = a->primary_node[s] == BF_RT_NO_NODE
                                  ? "(unassigned)"
                                  : prev->nodes[a->primary_node[s]].name;
            const char *is = b->primary_node[s] == BF_RT_NO_NODE
                                 ? "(unassigned)"
                                 : rt->nodes[b->primary_node[s]].name;
            if (strcmp(was, is) != 0)
                bf_info("cell %s: routing table: primary of %s shard %u moved from %s to %s",
                        cell->id, b->name, s, was, is);
        }
    }
    run->tables = bf_realloc(run->tables, (run->ntables + 1) * sizeof *run->tables);
    run->tables[run->ntables++] = rt;
    atomic_store(&run->routes.current, rt);
    atomic_fetch_add(&run->routes.generation, 1);
    return BF_OK;
}

static void *refresh_loop(void *arg)
{
    bf_run_t *run = arg;
    uint64_t last = bf_clock_mono_us();
    while (!atomic_load(&run->stop_refresher)) {
        bf_clock_sleep_us(100000);
        uint64_t now = bf_clock_mono_us();
        int stale = atomic_exchange(&run->routes.stale, 0);
        uint64_t every_ms = bf_scenario_request(run->cfg.sc)->routing_refresh_ms;
        if (!stale && now - last < (every_ms ? every_ms : BF_ROUTES_REFRESH_MS) * 1000ull)
            continue;
        last = now;
        bf_diag_t d = {0};
        if (fetch_table(run, 0, &d) != BF_OK)
            bf_warn("cell %s: routing table not refreshed (the last one is kept): %s",
                    run->cfg.cell->id, d.msg);
    }
    return NULL;
}

bf_run_t *bf_run_new(const bf_run_cfg_t *cfg, bf_diag_t *diag)
{
    bf_run_t *run = bf_calloc(1, sizeof *run);
    run->cfg = *cfg;
    if (bf_tmpl_compile(cfg->sc, &run->tmpl, diag) != BF_OK) {
        free(run);
        return NULL;
    }
    uint32_t conc = cfg->concurrency;
    uint32_t n = cfg->threads ? cfg->threads : 1;
    if (conc == 0 && cfg->search_clients == 0)
        conc = 1; /* a share of nothing still needs one bulk request in flight */
    if (n > conc)
        n = conc; /* 0 in a search-only cell: no bulk worker */
    run->nworkers = n;
    run->workers = bf_calloc(n ? n : 1, sizeof *run->workers);
    run->svc = bf_hist_new();
    run->lat = bf_hist_new();
    if (cfg->search_clients > 0) {
        bf_search_cfg_t sc = {
            .sc = cfg->sc,
            .cell = cfg->cell,
            .clients = cfg->search_clients,
            .host_base = cfg->search_base,
            .target_rate = cfg->search_rate,
            .part = {.stream_index = cfg->stream_base,
                     .stream_count = cfg->stream_count ? cfg->stream_count : 1,
                     .seed = cfg->seed},
            .load_ms = cfg->warmup_ms + cfg->duration_ms,
        };
        run->search = bf_search_new(&sc, diag);
        if (run->search == NULL) {
            bf_run_destroy(&run);
            return NULL;
        }
        run->nq = bf_search_query_count(run->search);
        run->qs = bf_calloc(run->nq, sizeof *run->qs);
        for (size_t i = 0; i < run->nq; i++)
            bf_qstats_init(&run->qs[i]);
    }
    atomic_init(&run->routes.current, NULL);
    if (cfg->cell->routing_mode != BF_ROUTE_NONE) {
        run->es = bf_es_new(bf_scenario_target(cfg->sc), 0, 10000);
        if (fetch_table(run, 1, diag) != BF_OK) {
            bf_diag_t d2 = *diag;
            memset(diag, 0, sizeof *diag);
            bf_diag_set(diag, d2.code ? d2.code : BF_E_IO, "cell %s: routing_mode %s needs the "
                        "routing table: %s", cfg->cell->id,
                        cfg->cell->routing_mode == BF_ROUTE_NODE ? "node" : "shard", d2.msg);
            bf_run_destroy(&run);
            return NULL;
        }
    }
    run->keep = bf_calloc(n, sizeof *run->keep);
    size_t doc_est = bf_tmpl_estimate_doc_bytes(run->tmpl, cfg->cell);
    /* corpus: this agent reads the slices of its streams [stream_base, stream_base + threads)
     * and splits them over the workers it runs (fewer when its concurrency is lower) */
    const bf_document_spec_t *doc = bf_scenario_document(cfg->sc);
    const bf_corpus_t *corpus = bf_scenario_corpus(cfg->sc);
    if (doc->corpus_local_path) {
        bf_diag_t dg = {0};
        if (bf_corpus_open_files((const char *const *)doc->corpus_files, doc->ncorpus_files,
                                 (enum bf_corpus_format)doc->corpus_format, &run->own_corpus,
                                 &dg) != BF_OK) {
            bf_diag_set(diag, dg.code,
                        "document.corpus.local_path: %s on this agent host; "
                        "copy the corpus to the same path on every agent host, or ship it "
                        "with document.corpus.path",
                        dg.msg);
            bf_run_destroy(&run);
            return NULL;
        }
        corpus = run->own_corpus;
    }
    size_t agent_from = 0, agent_to = 0;
    if (corpus) {
        doc_est += 3 + bf_corpus_mean_doc_bytes(corpus);
        uint32_t streams = cfg->stream_count ? cfg->stream_count : n;
        uint32_t mine = cfg->threads ? cfg->threads : 1;
        if (cfg->stream_base + mine > streams)
            mine = streams > cfg->stream_base ? streams - cfg->stream_base : 1;
        size_t f, t;
        bf_corpus_slice(corpus, cfg->stream_base, streams, &agent_from, &t);
        bf_corpus_slice(corpus, cfg->stream_base + mine - 1, streams, &f, &agent_to);
    }
    size_t body_est = doc_est * cfg->cell->batch_size;
    /* contiguous bodies: when the action line depends on the document alone, this agent's part
     * of the corpus becomes "action\nsource\n" text once, here, instead of the file's text
     * (bf_corpus_interleave), and a bulk request is one range of it. Only a corpus this run
     * may change: the one it opened (local_path) or the one its caller hands over. */
    bf_corpus_t *edit = run->own_corpus ? run->own_corpus : cfg->corpus_edit;
    int contiguous = 0;
    if (corpus && edit == corpus && cfg->cell->routing_mode == BF_ROUTE_NONE) {
        bf_buf_t head;
        bf_buf_init(&head, 0);
        if (bf_tmpl_corpus_bulk_head(run->tmpl, cfg->cell, &head) &&
            bf_corpus_interleave(edit, agent_from, agent_to, head.data, head.len) == BF_OK) {
            contiguous = 1;
            bf_info("cell %s: contiguous corpus bodies: documents [%zu, %zu) laid out as action "
                    "and source lines (%zu bytes, instead of the file's text)",
                    cfg->cell->id, agent_from, agent_to, bf_corpus_text_bytes(edit));
        }
        bf_buf_cleanup(&head);
    }
    uint32_t conn_base = cfg->conn_base; /* after the connections of the agents before it */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t conns = conc / n + (i < conc % n ? 1 : 0);
        bf_worker_cfg_t wc = {
            .sc = cfg->sc,
            .cell = cfg->cell,
            .tmpl = run->tmpl,
            .thread_index = i,
            .connections = conns,
            .conn_base = conn_base,
            .body_bytes_est = body_est,
            /* a thread's share of the rate follows its share of the connections */
            .target_rate = cfg->target_rate > 0 ? cfg->target_rate * conns / conc : 0,
            .part = {.stream_index = cfg->stream_base + i,
                     .stream_count = cfg->stream_count ? cfg->stream_count : n,
                     .seed = cfg->seed},
            .load_ms = cfg->warmup_ms + cfg->duration_ms,
            .routes = cfg->cell->routing_mode != BF_ROUTE_NONE ? &run->routes : NULL,
        };
        conn_base += conns;
        if (corpus) {
            size_t span = agent_to - agent_from;
            bf_corpus_cursor_t *cur = &wc.cursor;
            cur->from = agent_from + (size_t)((unsigned __int128)span * i / n);
            cur->to = agent_from + (size_t)((unsigned __int128)span * (i + 1) / n);
            cur->passes = doc->corpus_passes;
            run->keep[i] = bf_malloc(cur->to > cur->from ? cur->to - cur->from : 1);
            size_t bad = bf_corpus_check(corpus, cur->from, cur->to, 1, NULL, NULL, run->keep[i]);
            if (bad)
                bf_warn("cell %s: %zu of the %zu corpus documents of thread %u are not JSON "
                        "objects and are skipped (bulkfleet-coordinator validate lists them "
                        "with their lines)",
                        cfg->cell->id, bad, cur->to - cur->from, i);
            cur->keep = bad ? run->keep[i] : NULL; /* NULL: nothing to skip */
            wc.corpus = corpus;
            wc.contiguous = contiguous;
        }
        run->workers[i] = bf_worker_new(&wc, diag);
        if (run->workers[i] == NULL) {
            bf_run_destroy(&run);
            return NULL;
        }
    }
    return run;
}

int bf_run_start(bf_run_t *run, uint64_t start_mono_us)
{
    run->start_mono_us = start_mono_us;
    bf_clock_cpu_ms(&run->cpu_user_ms, &run->cpu_sys_ms);
    for (uint32_t i = 0; i < run->nworkers; i++) {
        bf__worker_set_start(run->workers[i], start_mono_us);
        if (bf_worker_start(run->workers[i]) != BF_OK)
            return BF_E_IO;
    }
    if (run->search && bf_search_start(run->search, start_mono_us) != BF_OK)
        return BF_E_IO;
    if (run->es) {
        if (pthread_create(&run->refresher, NULL, refresh_loop, run) != 0)
            return BF_E_IO;
        run->refresher_started = 1;
    }
    run->started = 1;
    return BF_OK;
}

static void emit(bf_run_t *run, int32_t second, bf_run_sample_fn fn, void *ctx)
{
    bf_counters_t c;
    memset(&c, 0, sizeof c);
    bf_hist_reset(run->svc);
    bf_hist_reset(run->lat);
    for (uint32_t i = 0; i < run->nworkers; i++) {
        bf_worker_collect(run->workers[i], second, &c, run->svc, run->lat);
        c.inflight += bf_worker_inflight(run->workers[i]);
    }
    c.worker_threads = run->nworkers; /* the stage shares' denominator: nworkers x 1 s */
    /* the host's load beside this process's CPU: a host busy with other work (another agent,
     * the cluster itself) slows the load generator without showing in its own CPU */
    double load1;
    if (getloadavg(&load1, 1) == 1 && load1 >= 0) {
        c.host_load_milli = (uint64_t)(load1 * 1000.0 + 0.5);
        c.host_load_agents = 1;
    }
    bf_errtypes_reset(&run->errs);
    for (uint32_t i = 0; i < run->nworkers; i++)
        bf_worker_collect_errors(run->workers[i], &run->errs);
    for (size_t i = 0; i < run->nq; i++)
        bf_qstats_reset(&run->qs[i]);
    if (run->search)
        bf_search_collect(run->search, second, run->qs);
    uint64_t u, s;
    bf_clock_cpu_ms(&u, &s);
    c.cpu_user_ms = u - run->cpu_user_ms;
    c.cpu_sys_ms = s - run->cpu_sys_ms;
    run->cpu_user_ms = u;
    run->cpu_sys_ms = s;
    run->q_pending = 1;
    fn(ctx, second, &c, run->svc, run->lat);
    run->q_pending = 0;
}

void bf_run_pack_queries(const bf_run_t *run, Bf__Sample *s)
{
    if (run == NULL || !run->q_pending || run->nq == 0)
        return;
    size_t n = 0;
    for (size_t i = 0; i < run->nq; i++)
        n += !bf_qstats_empty(&run->qs[i]);
    if (n == 0)
        return;
    s->queries = bf_calloc(n, sizeof *s->queries);
    s->n_queries = 0;
    for (size_t i = 0; i < run->nq; i++) {
        if (bf_qstats_empty(&run->qs[i]))
            continue;
        Bf__QueryStats *q = bf_malloc(sizeof *q);
        bf_qstats_pack(q, (uint32_t)i, &run->qs[i]);
        s->queries[s->n_queries++] = q;
    }
}

void bf_run_pack_errors(const bf_run_t *run, Bf__Sample *s)
{
    if (run == NULL || !run->q_pending)
        return;
    bf_sample_pack_errtypes(&run->errs, &s->doc_errors, &s->n_doc_errors);
}

void bf_run_pack_errors_cleanup(Bf__Sample *s)
{
    bf_sample_pack_errtypes_cleanup(&s->doc_errors, &s->n_doc_errors);
}

void bf_run_pack_queries_cleanup(Bf__Sample *s)
{
    for (size_t i = 0; i < s->n_queries; i++) {
        bf_qstats_pack_cleanup(s->queries[i]);
        free(s->queries[i]);
    }
    free(s->queries);
    s->queries = NULL;
    s->n_queries = 0;
}

int bf_run_poll(bf_run_t *run, bf_run_sample_fn fn, void *ctx)
{
    if (!run->started)
        return 0;
    uint64_t now = bf_clock_mono_us();
    /* a second is emitted once it has ended and no request sent in it is still in flight
     * (its documents are booked pro rata over their time in flight, bf_worker.h) */
    int32_t open = INT32_MAX;
    for (uint32_t i = 0; i < run->nworkers; i++) {
        int32_t o = bf_worker_open_second(run->workers[i]);
        if (o < open)
            open = o;
    }
    while (run->next_second < open && now >= run->start_mono_us +
                                                 (uint64_t)(run->next_second + 1) * 1000000u +
                                                 BF_SAMPLE_GRACE_US) {
        emit(run, run->next_second, fn, ctx);
        run->next_second++;
    }
    /* the bulk load read its whole corpus: the searches beside it end with it */
    if (run->search && bf_run_corpus_done(run))
        bf_search_end_load(run->search);
    int all_done = 1;
    for (uint32_t i = 0; i < run->nworkers; i++)
        all_done &= bf_worker_finished(run->workers[i]);
    if (run->search)
        all_done &= bf_search_finished(run->search);
    if (!all_done)
        return 0;
    /* flush what the workers wrote after the last sealed second */
    int32_t last = run->search ? bf_search_last_second(run->search) : -1;
    for (uint32_t i = 0; i < run->nworkers; i++) {
        int32_t l = bf_worker_last_second(run->workers[i]);
        if (l > last)
            last = l;
    }
    while (run->next_second <= last) {
        emit(run, run->next_second, fn, ctx);
        run->next_second++;
    }
    return 1;
}

void bf_run_end_load(bf_run_t *run, uint32_t end_load_ms)
{
    for (uint32_t i = 0; i < run->nworkers; i++)
        bf_worker_end_load(run->workers[i], end_load_ms);
    if (run->search)
        bf_search_end_load_at(run->search, end_load_ms);
}

void bf_run_abort(bf_run_t *run)
{
    for (uint32_t i = 0; i < run->nworkers; i++)
        bf_worker_abort(run->workers[i]);
    if (run->search)
        bf_search_abort(run->search);
}

const char *bf_run_fatal(bf_run_t *run)
{
    for (uint32_t i = 0; i < run->nworkers; i++) {
        const char *f = bf_worker_fatal(run->workers[i]);
        if (f[0]) {
            bf_run_abort(run);
            return f;
        }
    }
    if (run->search && bf_search_fatal(run->search)[0]) {
        bf_run_abort(run);
        return bf_search_fatal(run->search);
    }
    return "";
}

int bf_run_corpus_done(const bf_run_t *run)
{
    for (uint32_t i = 0; i < run->nworkers; i++)
        if (!bf_worker_corpus_done(run->workers[i]))
            return 0;
    return run->nworkers > 0;
}

uint32_t bf_run_corpus_end_ms(const bf_run_t *run)
{
    if (!bf_run_corpus_done(run))
        return 0;
    uint64_t end_us = 0;
    for (uint32_t i = 0; i < run->nworkers; i++) {
        uint64_t e = bf_worker_corpus_end_us(run->workers[i]);
        if (e > end_us)
            end_us = e;
    }
    if (end_us <= run->start_mono_us)
        return 1; /* ended at once (nothing to send): not 0, which means unknown */
    uint64_t ms = (end_us - run->start_mono_us + 999) / 1000;
    return ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
}

uint32_t bf_run_threads(const bf_run_t *run)
{
    return run->nworkers;
}

void bf_run_destroy(bf_run_t **run_p)
{
    if (run_p == NULL || *run_p == NULL)
        return;
    bf_run_t *run = *run_p;
    if (run->refresher_started) {
        atomic_store(&run->stop_refresher, 1);
        pthread_join(run->refresher, NULL);
    }
    for (uint32_t i = 0; run->workers && i < run->nworkers; i++)
        bf_worker_destroy(&run->workers[i]);
    free(run->workers);
    bf_search_destroy(&run->search);
    for (size_t i = 0; run->qs && i < run->nq; i++)
        bf_qstats_cleanup(&run->qs[i]);
    free(run->qs);
    for (size_t i = 0; i < run->ntables; i++)
        bf_routetable_destroy(&run->tables[i]);
    free(run->tables);
    bf_es_destroy(&run->es);
    for (uint32_t i = 0; run->keep && i < run->nworkers; i++)
        free(run->keep[i]);
    free(run->keep);
    bf_corpus_destroy(&run->own_corpus);
    bf_tmpl_destroy(&run->tmpl);
    bf_hist_destroy(&run->svc);
    bf_hist_destroy(&run->lat);
    free(run);
    *run_p = NULL;
}
