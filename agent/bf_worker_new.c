/* SPDX-License-Identifier: MIT */
/* bf_worker_new.c — building a load thread (its body kind, chosen once; buffers; one libcurl
 * handle a connection with the target's auth, TLS and headers), starting, stopping and freeing
 * it. */
#include "bf_worker_int.h"

#include "bf_es.h"
#include "bf_mem.h"

#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING 8                   /* buckets beyond the longest a request can be in flight */
#define UPLOAD_BUFFER_MIN 65536L /* libcurl's default and its floor for us */
/* enough with a turn of the loop every slice; each connection holds one while it sends
 * (bench/RESULTS.md: 64 and 128 KiB sent fewer documents a CPU-second, 512 KiB to 2 MiB as many
 * as 256 KiB) */
#define UPLOAD_BUFFER_MAX (256L << 10)
#define RECV_BUFFER_MIN 16384L /* libcurl's default receive buffer */
#define RECV_BUFFER_MAX (128L << 10)
#define SLICE_BYTES (128u << 10) /* a body is built this much at a time (bf_body_build) */

/* ---- lifecycle ---------------------------------------------------------------------------- */

bf_worker_t *bf_worker_new(const bf_worker_cfg_t *cfg, bf_diag_t *diag)
{
    bf_worker_t *w = bf_calloc(1, sizeof *w);
    w->cfg = *cfg;
    if (w->cfg.connections == 0)
        w->cfg.connections = 1;
    atomic_init(&w->last_second, -1);
    atomic_init(&w->end_load_ms, 0u);
    pthread_mutex_init(&w->lock, NULL);
    /* a second stays open while a request sent in it is in flight: at most request.timeout
     * (then hard_end abandons it), plus the sampler's own lag */
    w->nring = (uint32_t)(bf_scenario_request(cfg->sc)->timeout_ms / 1000u) + RING + 4;
    w->ring = bf_calloc(w->nring, sizeof *w->ring);
    for (uint32_t i = 0; i < w->nring; i++)
        w->ring[i].second = -1;
    w->open_second = INT32_MAX;
    const bf_target_t *t = cfg->cell->target; /* the cell's host set (matrix target axis) */
    const bf_request_spec_t *rq = bf_scenario_request(cfg->sc);
    w->gzip = cfg->cell->compression == BF_COMPRESS_GZIP;
    w->retry_max = rq->retry_429_max;
    w->missing_fails = cfg->cell->action == BF_ACTION_DELETE &&
                       bf_scenario_document(cfg->sc)->delete_missing_fails;
    w->group_size = 1;
    if (cfg->routes) {
        /* a split has at most one part per node (per shard), plus the unrouted fallback */
        const bf_routetable_t *rt = atomic_load(&cfg->routes->current);
        size_t parts = 0;
        if (cfg->cell->routing_mode == BF_ROUTE_SHARD)
            for (size_t i = 0; i < rt->nindices; i++)
                parts += rt->indices[i].routing.shards;
        else
            parts = rt->nnodes;
        w->group_size =
            (uint32_t)(parts + 1 < cfg->cell->batch_size + 1 ? parts + 1
                                                             : cfg->cell->batch_size + 1);
        if (w->group_size < 2)
            w->group_size = 2;
        char prefix[40];
        /* unique across the fleet (stream) and runs (seed): the ids the agent adds */
        snprintf(prefix, sizeof prefix, "%llx-%x-",
                 (unsigned long long)(cfg->part.seed & 0xffffffffffull), cfg->part.stream_index);
        bf_reshuffle_init(&w->rs, cfg->cell->routing_mode, w->group_size, prefix);
    }
    w->transfer_auto = rq->transfer == BF_TRANSFER_AUTO;
    w->sign = t->auth == BF_AUTH_AWS;
    if (w->sign && cfg->routes) {
        bf_diag_set(diag, BF_E_INVAL,
                    "cell %s: request.routing_mode %s cannot be used with target.auth.aws: "
                    "Amazon OpenSearch Service does not let clients address its nodes; "
                    "use routing_mode: none",
                    cfg->cell->id, cfg->cell->routing_mode == BF_ROUTE_SHARD ? "shard" : "node");
        bf_worker_destroy(&w);
        return NULL;
    }
    w->nslots = w->cfg.connections * w->group_size;
    w->multi = curl_multi_init();
    /* routing: one group may send several sub-bulks to one node (shard mode) */
    curl_multi_setopt(w->multi, CURLMOPT_MAX_HOST_CONNECTIONS,
                      (long)(cfg->routes ? w->nslots : w->cfg.connections));
    w->gen = bf_gen_new(cfg->tmpl, &cfg->part);
    /* the body kind, once: a corpus sent uncompressed (or interleaved) is gathered from the
     * corpus's lines, not copied (libcurl's copy into its upload buffer is the only one left);
     * template documents sent uncompressed without retries are streamed when a template
     * bf_tmpl_stream_room accepts; the rest is rendered */
    size_t room = 0;
    if (!w->gzip && w->retry_max == 0 && cfg->routes == NULL && cfg->corpus == NULL &&
        rq->transfer != BF_TRANSFER_LENGTH && !w->sign)
        room = bf_tmpl_stream_room(cfg->tmpl, w->gen, cfg->cell);
    /* a signed body (target.auth.aws): the signature covers the body's hash, needed before its
     * first byte: one whole buffer per body, sent with its Content-Length */
    w->kind = bf_body_kind_for(cfg->routes != NULL, w->sign, cfg->corpus != NULL, cfg->contiguous,
                               w->gzip, w->retry_max, room, cfg->cell->batch_size);
    bf_gen_skip_sequences(w->gen, bf_gen_prefill_skip(cfg->sc));
    w->cursor = cfg->cursor;
    w->cursor.pos = w->cursor.from;
    bf_buf_init(&w->scratch, BF_MAX_BODY_BYTES);
    if (w->gzip) {
        /* libdeflate's levels 1..12 cover zlib's 1..9 with the same meaning at 1..9 */
        w->gzc = libdeflate_alloc_compressor(rq->gzip_level ? rq->gzip_level : 1);
        if (w->gzc == NULL) {
            bf_diag_set(diag, BF_E_IO,
                        "libdeflate: cannot allocate a compressor for "
                        "gzip_level %d",
                        rq->gzip_level);
            bf_worker_destroy(&w);
            return NULL;
        }
    }
    /* libcurl copies a POST body through its upload buffer, one buffer per transfer step:
     * a buffer near a quarter of the body (at most UPLOAD_BUFFER_MAX) keeps the steps few
     * without much memory */
    size_t body_est = cfg->body_bytes_est ? cfg->body_bytes_est : 65536;
    size_t doc_est = cfg->body_bytes_est ? cfg->body_bytes_est / cfg->cell->batch_size : 512;
    w->benv = (bf_body_env_t){
        .cell = cfg->cell,
        .tmpl = cfg->tmpl,
        .gen = w->gen,
        .corpus = cfg->corpus,
        .cursor = &w->cursor,
        .contig = cfg->corpus != NULL && cfg->contiguous && cfg->routes == NULL && !w->sign,
        /* gzip without retries: a connection keeps only the compressed body */
        .shared_render = w->gzip && w->retry_max == 0 && cfg->routes == NULL,
        .slice_docs = (uint32_t)(SLICE_BYTES / (doc_est ? doc_est : 1)),
        .scratch = &w->scratch,
        .gzc = w->gzc,
        .turn = bf__worker_io_turn,
        .turn_ctx = w,
    };
    if (w->benv.slice_docs == 0)
        w->benv.slice_docs = 1;
    size_t wire_est = w->gzip ? body_est / 4 : body_est;
    long ulbuf = UPLOAD_BUFFER_MIN;
    while (ulbuf < UPLOAD_BUFFER_MAX && (size_t)ulbuf * 4 < wire_est)
        ulbuf *= 2;
    /* responses are read into curl's buffer: about 200 bytes an item without filter_path,
     * so fewer reads for big batches, little memory for small ones */
    long rcvbuf = RECV_BUFFER_MIN;
    while (rcvbuf < RECV_BUFFER_MAX && (uint64_t)rcvbuf * 8 < (uint64_t)cfg->cell->batch_size * 200)
        rcvbuf *= 2;
    w->slots = bf_calloc(w->nslots, sizeof *w->slots);
    for (uint32_t i = 0; i < w->nslots; i++) {
        slot *s = &w->slots[i];
        s->w = w;
        s->group = i / w->group_size;
        bf_body_init(&s->body, w->kind, w->gzip, &w->benv);
        s->h = curl_easy_init();
        /* connections are spread round-robin over all hosts, counting across threads */
        const char *host = t->hosts[(cfg->conn_base + s->group) % t->nhosts];
        s->home_url = bf__worker_bulk_url(host, rq, w->cfg.cell->routing_mode != BF_ROUTE_NONE);
        curl_easy_setopt(s->h, CURLOPT_URL, s->home_url);
        curl_easy_setopt(s->h, CURLOPT_POST, 1L);
        curl_easy_setopt(s->h, CURLOPT_READFUNCTION, bf__worker_on_read);
        curl_easy_setopt(s->h, CURLOPT_READDATA, s);
        curl_easy_setopt(s->h, CURLOPT_SEEKFUNCTION, bf__worker_on_seek);
        curl_easy_setopt(s->h, CURLOPT_SEEKDATA, s);
        curl_easy_setopt(s->h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
        curl_easy_setopt(s->h, CURLOPT_USERAGENT, "bulkfleet-agent/" BF_VERSION);
        curl_easy_setopt(s->h, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(s->h, CURLOPT_TIMEOUT_MS, (long)rq->timeout_ms);
        curl_easy_setopt(s->h, CURLOPT_CONNECTTIMEOUT_MS,
                         t->connect_timeout_ms ? (long)t->connect_timeout_ms : 10000L);
        curl_easy_setopt(s->h, CURLOPT_WRITEFUNCTION, bf__worker_on_body);
        curl_easy_setopt(s->h, CURLOPT_WRITEDATA, s);
        curl_easy_setopt(s->h, CURLOPT_PRIVATE, (char *)s);
        curl_easy_setopt(s->h, CURLOPT_TCP_NODELAY, 1L);
        curl_easy_setopt(s->h, CURLOPT_TCP_KEEPALIVE, 1L);
        curl_easy_setopt(s->h, CURLOPT_UPLOAD_BUFFERSIZE, ulbuf);
        curl_easy_setopt(s->h, CURLOPT_BUFFERSIZE, rcvbuf);
        struct curl_slist *unused = NULL;
        bf_es_apply_target(s->h, t, &unused); /* auth and TLS; headers are built below */
        curl_slist_free_all(unused);
    }
    struct curl_slist *h = NULL;
    /* request.media_type elasticsearch8: Elasticsearch 8's versioned media types (REST API
     * compatibility, docs/internals/es-api.md); target.headers cannot carry either (the loader
     * refuses it) */
    const char *ctype = rq->media_type_es8
                            ? "Content-Type: application/vnd.elasticsearch+x-ndjson; "
                              "compatible-with=8"
                            : "Content-Type: application/x-ndjson";
    const char *accept = rq->media_type_es8
                             ? "Accept: application/vnd.elasticsearch+json; compatible-with=8"
                             : "Accept: application/json";
    bf_es_apply_target(w->slots[0].h, t, &h);
    h = curl_slist_append(h, ctype);
    h = curl_slist_append(h, accept);
    h = curl_slist_append(h, "Expect:");
    w->hdr_plain = h;
    h = NULL;
    bf_es_apply_target(w->slots[0].h, t, &h);
    h = curl_slist_append(h, ctype);
    h = curl_slist_append(h, accept);
    h = curl_slist_append(h, "Content-Encoding: gzip");
    h = curl_slist_append(h, "Expect:");
    w->hdr_gzip = h;
    for (uint32_t i = 0; i < w->nslots; i++)
        curl_easy_setopt(w->slots[i].h, CURLOPT_HTTPHEADER, w->gzip ? w->hdr_gzip : w->hdr_plain);
    return w;
}

int bf_worker_start(bf_worker_t *w)
{
    if (pthread_create(&w->thread, NULL, bf__worker_run, w) != 0)
        return BF_E_IO;
    w->started = 1;
    return BF_OK;
}

void bf_worker_end_load(bf_worker_t *w, uint32_t end_load_ms)
{
    if (end_load_ms == 0 || end_load_ms >= w->cfg.load_ms)
        return;
    atomic_store(&w->end_load_ms, end_load_ms);
    if (w->multi)
        curl_multi_wakeup(w->multi);
}

void bf_worker_abort(bf_worker_t *w)
{
    atomic_store(&w->abort_flag, 1);
    if (w->multi)
        curl_multi_wakeup(w->multi);
}

int bf_worker_finished(bf_worker_t *w)
{
    return !w->started || atomic_load(&w->finished);
}

int bf_worker_corpus_done(const bf_worker_t *w)
{
    return w->corpus_done;
}

uint64_t bf_worker_corpus_end_us(const bf_worker_t *w)
{
    return w->corpus_done ? w->corpus_end_us : 0;
}

uint32_t bf_worker_inflight(bf_worker_t *w)
{
    return atomic_load(&w->inflight);
}

void bf_worker_destroy(bf_worker_t **w_p)
{
    if (w_p == NULL || *w_p == NULL)
        return;
    bf_worker_t *w = *w_p;
    if (w->started) {
        bf_worker_abort(w);
        pthread_join(w->thread, NULL);
    }
    for (uint32_t i = 0; w->slots && i < w->nslots; i++) {
        slot *s = &w->slots[i];
        if (s->state == SLOT_BUSY)
            curl_multi_remove_handle(w->multi, s->h);
        curl_easy_cleanup(s->h);
        free(s->home_url);
        curl_slist_free_all(s->sig_hdr);
        free(s->sig_url);
        bf_body_cleanup(&s->body);
        free(s->item_class);
        free(s->gshard);
        free(s->terms);
    }
    free(w->slots);
    for (size_t i = 0; i < w->nnode_urls; i++)
        free(w->node_urls[i]);
    free(w->node_urls);
    curl_slist_free_all(w->resolve);
    for (size_t i = 0; i < w->nold_resolve; i++)
        curl_slist_free_all(w->old_resolve[i]);
    free(w->old_resolve);
    if (w->cfg.routes)
        bf_reshuffle_cleanup(&w->rs);
    if (w->multi)
        curl_multi_cleanup(w->multi);
    curl_slist_free_all(w->hdr_plain);
    curl_slist_free_all(w->hdr_gzip);
    if (w->gzc)
        libdeflate_free_compressor(w->gzc);
    bf_gen_destroy(&w->gen);
    bf_buf_cleanup(&w->scratch);
    for (uint32_t i = 0; w->ring && i < w->nring; i++) {
        bf_hist_destroy(&w->ring[i].svc);
        bf_hist_destroy(&w->ring[i].lat);
    }
    free(w->ring);
    pthread_mutex_destroy(&w->lock);
    free(w);
    *w_p = NULL;
}

void bf__worker_set_start(bf_worker_t *w, uint64_t start_mono_us)
{
    w->cfg.start_mono_us = start_mono_us;
}
