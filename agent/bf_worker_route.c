/* SPDX-License-Identifier: MIT */
/* bf_worker_route.c — a load thread's routed sub-bulks (routing_mode node|shard): the bulk is
 * split by primary node or shard (bf_reshuffle) and each part goes to its node's address from
 * a slot of the group; a stale routing table seen in an answer is re-read. */
#include "bf_worker_int.h"

#include "bf_clock.h"
#include "bf_log.h"
#include "bf_mem.h"

#include <stdlib.h>
#include <string.h>

/* ---- routed sub-bulks ------------------------------------------------------------------------ */

/* <base>/_bulk with the request's query (filter_path; request.pipeline: every document of
 * the request goes through it). Caller frees. */
char *bf__worker_bulk_url(const char *base, const bf_request_spec_t *rq, int routed)
{
    /* routing: the items' _primary_term must survive the filter (a stale table shows there) */
    int add_term = routed && rq->filter_path && strstr(rq->filter_path, "_primary_term") == NULL;
    return bf_asprintf("%s/_bulk%s%s%s%s%s%s", base, rq->filter_path || rq->pipeline ? "?" : "",
                       rq->filter_path ? "filter_path=" : "",
                       rq->filter_path ? rq->filter_path : "",
                       add_term ? ",items.*._primary_term" : "",
                       rq->pipeline ? (rq->filter_path ? "&pipeline=" : "pipeline=") : "",
                       rq->pipeline ? rq->pipeline : "");
}

/* The node URLs of snapshot rt (rebuilt when the snapshot changes). */
static void use_table(bf_worker_t *w, const bf_routetable_t *rt)
{
    const bf_request_spec_t *rq = bf_scenario_request(w->cfg.sc);
    for (size_t i = 0; i < w->nnode_urls; i++)
        free(w->node_urls[i]);
    w->node_urls = bf_realloc(w->node_urls, (rt->nnodes ? rt->nnodes : 1) * sizeof *w->node_urls);
    w->nnode_urls = rt->nnodes;
    for (size_t i = 0; i < rt->nnodes; i++)
        w->node_urls[i] =
            rt->nodes[i].url == NULL ? NULL : bf__worker_bulk_url(rt->nodes[i].url, rq, 1);
    if (w->resolve) {
        w->old_resolve = bf_realloc(w->old_resolve, (w->nold_resolve + 1) * sizeof *w->old_resolve);
        w->old_resolve[w->nold_resolve++] = w->resolve;
        w->resolve = NULL;
    }
    for (size_t i = 0; i < rt->nnodes; i++)
        if (rt->nodes[i].resolve)
            w->resolve = curl_slist_append(w->resolve, rt->nodes[i].resolve);
    w->rt = rt;
}

uint32_t bf__worker_split(bf_worker_t *w, slot *s, uint64_t intended_us, uint64_t t0,
                          uint64_t io_us, uint32_t ndocs)
{
    const bf_cell_t *cell = w->cfg.cell;
    bf_rt_holder_t *h = w->cfg.routes;
    const bf_routetable_t *rt = atomic_load(&h->current);
    uint64_t moved = 0;
    if (rt != w->rt) {
        if (w->rt)
            moved = bf_reshuffle_moved(&w->rs, w->rt, rt);
        use_table(w, rt);
    }
    bf_diag_t d = {0};
    /* ndocs: the batch size, or fewer in the last request of a finite corpus */
    if (bf_reshuffle_split(&w->rs, rt, w->scratch.data, w->scratch.len, ndocs, &d) != BF_OK) {
        bf__worker_set_fatal(w, "cell %s: %s", cell->id, d.msg);
        return 0;
    }
    slot *first = &w->slots[s->group * w->group_size];
    uint64_t t_z = bf_clock_mono_us(); /* rendered and split: the parts' gzip from here */
    first->body.render_us = t_z - t0 - io_us;
    for (uint32_t j = 0; j < w->rs.nparts; j++) {
        bf_reshuffle_part_t *pt = &w->rs.parts[j];
        slot *t = &first[j];
        const char *url = pt->node == BF_RESHUFFLE_FALLBACK ? t->home_url : w->node_urls[pt->node];
        curl_easy_setopt(t->h, CURLOPT_URL, url ? url : t->home_url);
        /* a node published by name (https): connect to its published address, check the name */
        curl_easy_setopt(t->h, CURLOPT_RESOLVE, w->resolve);
        /* the part's buffer becomes the slot's body, no copy; compressed with gzip */
        if (bf_body_take_part(&t->body, &pt->body) != BF_OK) {
            bf__worker_set_fatal(w, "cell %s: could not gzip a %zu-byte body", cell->id,
                                 t->body.payload_len);
            return 0;
        }
        t->ndocs = pt->ndocs;
        if (t->gshard_cap < pt->ndocs) {
            t->gshard = bf_realloc(t->gshard, pt->ndocs * sizeof *t->gshard);
            t->terms = bf_realloc(t->terms, pt->ndocs * sizeof *t->terms);
            t->gshard_cap = pt->ndocs;
        }
        if (pt->ndocs)
            memcpy(t->gshard, pt->gshard, pt->ndocs * sizeof *t->gshard);
        t->routed = pt->ndocs > 0;
        t->payload_len = t->body.payload_len;
        t->retries = 0;
        t->connect_failures = 0;
        t->intended_us = intended_us;
        t->proc_us = j == 0 ? bf_clock_mono_us() - t0 - io_us : 0;
    }
    if (w->gzip)
        first->body.compress_us = bf_clock_mono_us() - t_z;
    pthread_mutex_lock(&w->lock);
    bucket *b = bf__worker_bucket_now(w);
    b->c.bulks_split++;
    b->c.subbulks += w->rs.nparts;
    b->c.docs_unrouted += w->rs.unrouted;
    b->c.docs_misrouted += moved;
    pthread_mutex_unlock(&w->lock);
    return w->rs.nparts;
}

/* routing: an item answered with a higher primary term than the table has for its shard
 * (a replica was promoted since the table was read): the refresher re-reads it at once
 * rather than at its next tick. Logged once per table. */
void bf__worker_check_terms(bf_worker_t *w, slot *s)
{
    const bf_routetable_t *rt = atomic_load(&w->cfg.routes->current);
    long k = bf_reshuffle_stale_item(rt, s->gshard, s->terms, s->ndocs);
    if (k < 0)
        return;
    atomic_store(&w->cfg.routes->stale, 1);
    if (w->stale_logged == rt)
        return;
    w->stale_logged = rt;
    const char *index = "?";
    uint32_t shard = 0;
    uint64_t had = bf_routetable_gshard_term(rt, s->gshard[k], &index, &shard);
    bf_info("cell %s: routing table stale: a response carried primary term %llu for %s shard "
            "%u, the table has %llu (a replica was promoted); re-reading it now",
            w->cfg.cell->id, (unsigned long long)s->terms[k], index, shard,
            (unsigned long long)had);
}
