/* SPDX-License-Identifier: MIT */
/* bf_prefill.c — documents indexed before a search cell's load (see bf_prefill.h). */
#include "bf_prefill.h"

#include "bf_buf.h"
#include "bf_clock.h"
#include "bf_cluster.h"
#include "bf_log.h"
#include "bf_template.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PREFILL_BATCH 1000u               /* documents per bulk request */
#define PREFILL_SEED_MIX 0x50F1A11D0C5ull /* prefill draws apart from the load's streams */

int bf_prefill_indices_exist(bf_es_t *es, const bf_cell_t *cell)
{
    for (uint32_t k = 0; k < cell->indices; k++) {
        char path[512];
        snprintf(path, sizeof path, "/%s", cell->index_names[k]);
        long status = 0;
        const char *body = NULL;
        bf_diag_t d = {0};
        if (bf_es_request(es, "HEAD", path, NULL, &status, &body, &d) != BF_OK || status != 200)
            return 0;
    }
    return 1;
}

/* The first item error of a bulk answer with filter_path=errors,items.*.error */
static void first_item_error(const char *body, char *why, size_t size)
{
    snprintf(why, size, "an item failed");
    json_t *j = json_loads(body ? body : "", 0, NULL);
    json_t *items = json_object_get(j, "items");
    size_t i;
    json_t *it;
    json_array_foreach(items, i, it)
    {
        const char *k;
        json_t *op;
        json_object_foreach(it, k, op)
        {
            json_t *e = json_object_get(op, "error");
            if (!json_is_object(e))
                continue;
            const char *t = json_string_value(json_object_get(e, "type"));
            const char *r = json_string_value(json_object_get(e, "reason"));
            snprintf(why, size, "%s: %s", t ? t : "error", r ? r : "");
            json_decref(j);
            return;
        }
    }
    json_decref(j);
}

int bf_prefill_cell(bf_es_t *es, const bf_scenario_t *sc, const bf_cell_t *cell, uint64_t ndocs,
                    void (*tick)(void *ctx), void *tick_ctx, uint64_t *indexed, bf_diag_t *diag)
{
    *indexed = 0;
    bf_tmpl_t *t = NULL;
    int rc = bf_tmpl_compile(sc, &t, diag);
    if (rc != BF_OK)
        return rc;
    bf_partition_t part = {0, 1, bf_scenario_run(sc)->seed ^ PREFILL_SEED_MIX};
    bf_gen_t *g = bf_gen_new(t, &part);
    bf_buf_t body;
    bf_buf_init(&body, BF_MAX_BODY_BYTES);
    const char *idx = cell->index_names[0];
    while (*indexed < ndocs && rc == BF_OK) {
        uint64_t left = ndocs - *indexed;
        uint32_t n = left < PREFILL_BATCH ? (uint32_t)left : PREFILL_BATCH;
        bf_buf_reset(&body);
        rc = bf_tmpl_render_bulk(t, g, cell, n, &body);
        if (rc != BF_OK) {
            rc = bf_diag_set(diag, BF_E_INVAL,
                             "search.prefill into %s: the document template "
                             "cannot render more documents after %llu (%s); lower prefill or "
                             "let the sequence wrap",
                             idx, (unsigned long long)*indexed, bf_strerror(rc));
            break;
        }
        long status = 0;
        const char *resp = NULL;
        rc = bf_es_request(es, "POST", "/_bulk?filter_path=errors,items.*.error", body.data,
                           &status, &resp, diag);
        if (rc != BF_OK)
            break;
        if (status / 100 != 2) {
            rc = bf_diag_set(diag, BF_E_HTTP,
                             "search.prefill into %s: bulk request answered "
                             "HTTP %ld: %.300s",
                             idx, status, resp ? resp : "");
            break;
        }
        if (resp && strstr(resp, "\"errors\":true")) {
            char why[400];
            first_item_error(resp, why, sizeof why);
            rc = bf_diag_set(diag, BF_E_HTTP,
                             "search.prefill into %s: %s; fix the document "
                             "template or the mappings",
                             idx, why);
            break;
        }
        *indexed += n;
        if (tick)
            tick(tick_ctx);
    }
    if (rc == BF_OK) {
        long status = 0;
        const char *resp = NULL;
        bf_buf_t p;
        bf_buf_init(&p, 0);
        bf_buf_appendz(&p, "/");
        for (uint32_t k = 0; k < cell->indices; k++)
            bf_buf_appendf(&p, "%s%s", k ? "," : "", cell->index_names[k]);
        bf_buf_appendz(&p, "/_refresh");
        rc = bf_es_request(es, "POST", p.data, NULL, &status, &resp, diag);
        if (rc == BF_OK && status / 100 != 2)
            rc = bf_diag_set(diag, BF_E_HTTP, "search.prefill: _refresh of %s answered HTTP %ld",
                             idx, status);
        bf_buf_cleanup(&p);
    }
    bf_buf_cleanup(&body);
    bf_gen_destroy(&g);
    bf_tmpl_destroy(&t);
    return rc;
}

int bf_prefill_prepare_cell(bf_es_t *es, const bf_scenario_t *sc, const bf_cell_t *cell,
                            const bf_owner_t *owner, uint32_t data_nodes, uint64_t wait_ms,
                            int *yellow, void (*tick)(void *ctx), void *tick_ctx, bf_diag_t *diag)
{
    const bf_search_spec_t *ss = bf_scenario_search(sc);
    int reuse = ss->enabled && cell->concurrency == 0 && !ss->recreate &&
                bf_prefill_indices_exist(es, cell);
    int rc = BF_OK;
    if (reuse)
        bf_info("cell %s: searching the existing index %s as it is (search.recreate: false)",
                cell->id, cell->index_names[0]);
    else
        rc = bf_cluster_prepare_cell_tick(es, sc, cell, owner, data_nodes, wait_ms, yellow, tick,
                                          tick_ctx, diag);
    if (rc != BF_OK || !ss->enabled || ss->prefill == 0)
        return rc;
    /* prefill only an empty index: one the cell created, never the user's documents */
    int64_t have = 0;
    bf_diag_t cd = {0};
    rc = bf_cluster_count(es, cell, &have, &cd);
    if (rc != BF_OK)
        return bf_diag_set(diag, rc, "search.prefill: cannot count the documents in %s: %s",
                           cell->index_names[0], cd.msg);
    if (have > 0)
        return BF_OK;
    uint64_t t0 = bf_clock_mono_us(), done = 0;
    rc = bf_prefill_cell(es, sc, cell, ss->prefill, tick, tick_ctx, &done, diag);
    if (rc == BF_OK)
        bf_info("cell %s: prefilled %llu documents in %.1f s (not measured)", cell->id,
                (unsigned long long)done, (double)(bf_clock_mono_us() - t0) / 1e6);
    return rc;
}
