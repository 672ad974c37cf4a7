/* SPDX-License-Identifier: MIT */
/* bf_campaign_mstore.c — the metrics store's part of `run`: which store, whether it may be the
 * target, each finished cell's documents, and what was stored or dropped at the end.
 *
 * The documents are made from the cell's files once they are written (bf_mstore_docs.h), so the
 * live run and `publish` of the same directory store the same documents under the same ids.
 */
#include "bf_campaign_int.h"

#include "bf_clock.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_mstore_docs.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* which connection: the section, its hosts replaced by --metrics-store URL when given */
static const bf_target_t *store_target(bf__campaign_t *c, bf_metrics_store_opts_t *o)
{
    const bf_target_t *sec = bf_scenario_metrics_store(c->sc, o);
    if (c->opts->metrics_store == NULL)
        return sec;
    if (sec)
        c->mstore_target = *sec; /* shallow: auth and TLS stay the scenario's (borrowed) */
    else
        memset(&c->mstore_target, 0, sizeof c->mstore_target);
    size_t len = strlen(c->opts->metrics_store);
    while (len > 0 && c->opts->metrics_store[len - 1] == '/')
        len--;
    c->mstore_host = bf_strndup(c->opts->metrics_store, len);
    c->mstore_hosts[0] = c->mstore_host;
    c->mstore_target.hosts = c->mstore_hosts;
    c->mstore_target.nhosts = 1;
    c->mstore_target.names = &bf_conn_names_store_url; /* messages name the option */
    return &c->mstore_target;
}

int bf__mstore_open(bf__campaign_t *c)
{
    bf_metrics_store_opts_t o;
    const bf_target_t *st = store_target(c, &o);
    if (st == NULL)
        return BF_EXIT_OK;
    const char *url = st->hosts[0];
    const bf_conn_names_t *names = st->names ? st->names : &bf_conn_names_store;
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0) {
        bf_error("%s %s: expected an http:// or https:// URL of an Elasticsearch or OpenSearch "
                 "cluster",
                 names->hosts, url);
        return BF_EXIT_INPUT;
    }
    int allow = o.allow_target || c->opts->metrics_store_allow_target;
    bf_es_t *mstore_es = bf_es_new(st, 0, 3000);
    char su[128] = "", tu[128] = "";
    bf_diag_t d = {0}, td = {0};
    int src = bf_mstore_cluster_uuid(mstore_es, su, sizeof su, &d);
    int same = 0;
    if (src == BF_OK && bf_mstore_cluster_uuid(c->es, tu, sizeof tu, &td) == BF_OK)
        same = su[0] && strcmp(su, tu) == 0;
    if (src != BF_OK) {
        /* not answering now: refuse by URL what cannot be checked by cluster_uuid */
        const bf_target_t *t = bf_scenario_target(c->sc);
        for (size_t i = 0; i < t->nhosts; i++)
            same |= strcmp(t->hosts[i], url) == 0;
    }
    /* the targets: axis's named host sets are target clusters too (checked by URL) */
    for (size_t k = 0; k < bf_scenario_named_target_count(c->sc); k++) {
        const bf_target_t *t = bf_scenario_named_target(c->sc, k, NULL);
        for (size_t i = 0; i < t->nhosts; i++)
            same |= strcmp(t->hosts[i], url) == 0;
    }
    if (same && !allow) {
        bf_error("the metrics store %s is the target cluster itself (cluster_uuid %s): writing "
                 "results there while measuring it skews the benchmark; give another cluster, "
                 "or set metrics_store.allow_target: true (--metrics-store-allow-target) if "
                 "that is what you want",
                 bf_es_host(mstore_es), su[0] ? su : "not known: same URL");
        bf_es_destroy(&mstore_es);
        return BF_EXIT_INPUT;
    }
    if (same)
        bf_warn("metrics store: %s is the target cluster (allowed): its writes add to the "
                "load being measured",
                bf_es_host(mstore_es));
    if (src != BF_OK && strstr(d.msg, "authentication failed") != NULL)
        bf_warn("metrics store (%s): %s; the campaign goes on: the documents it refuses are "
                "dropped (counted at the end); the results directory has everything",
                names->hosts, d.msg);
    else if (src != BF_OK)
        bf_warn("metrics store (%s): %s; the campaign goes on: the documents are buffered (up "
                "to %llu) and sent once it answers; the results directory has everything",
                names->hosts, d.msg, (unsigned long long)(o.buffer_docs ? o.buffer_docs : 50000));
    else
        bf_info("metrics store: %s (documents into %s* and %s)", bf_es_host(mstore_es),
                BF_MSTORE_SAMPLES_PREFIX, BF_MSTORE_RESULTS_INDEX);
    bf_es_destroy(&mstore_es);
    c->mstore = bf_mstore_new(st, o.buffer_docs, o.flush_wait_ms);
    return BF_EXIT_OK;
}

static int emit_add(void *ctx, const char *index, const char *id, const char *source)
{
    bf_mstore_add(ctx, index, id, source); /* a full buffer is counted, never waited for */
    return 0;
}

void bf__mstore_cell(bf__campaign_t *c, const char *name)
{
    if (c->mstore == NULL || c->res == NULL)
        return;
    bf_diag_t d = {0};
    int rc = bf_mstore_docs_cell(bf_results_dir(c->res), c->campaign_id, bf_scenario_name(c->sc),
                                 name, emit_add, c->mstore, NULL, &d);
    if (rc != BF_OK && rc != BF_E_NOTFOUND)
        bf_warn("metrics store: cell %s: %s", name, d.msg);
}

void bf__mstore_second(bf__campaign_t *c, int32_t second)
{
    if (c->mstore == NULL || c->cell == NULL || c->agg == NULL || second < 0)
        return;
    const bf_counters_t *ctr = bf_cellagg_second(c->agg, (size_t)second);
    if (ctr == NULL)
        return;
    /* the repetition from the cell's results name ("<cell id>-r<rep>" when repeat > 1) */
    uint32_t rep = 1;
    size_t idlen = strlen(c->cell->id);
    if (strncmp(c->cell_name, c->cell->id, idlen) == 0 &&
        strncmp(c->cell_name + idlen, "-r", 2) == 0)
        rep = (uint32_t)strtoul(c->cell_name + idlen + 2, NULL, 10);
    const bf_run_spec_t *run = bf_scenario_run(c->sc);
    bf_mstore_docs_live_second(c->campaign_id, bf_scenario_name(c->sc), c->cell, c->cell_name, rep,
                               second, ctr, (int64_t)(bf_clock_wall_us() / 1000u),
                               (int64_t)(run->warmup_ms / 1000u),
                               (int64_t)(run->duration_ms / 1000u), emit_add, c->mstore);
}

void bf__mstore_close(bf__campaign_t *c, const bf_row_t *rows, size_t nrows)
{
    if (c->mstore == NULL) {
        free(c->mstore_host);
        c->mstore_host = NULL;
        return;
    }
    if (c->res && nrows > 0) {
        /* the matrix rows (repetitions folded), as matrix.json has them now */
        bf_diag_t d = {0};
        if (bf_mstore_docs_matrix(bf_results_dir(c->res), c->campaign_id, bf_scenario_name(c->sc),
                                  emit_add, c->mstore, NULL, &d) != BF_OK)
            bf_warn("metrics store: %s", d.msg);
    }
    bf_mstore_stats_t s;
    bf_mstore_close(&c->mstore, &s);
    uint64_t dropped = bf_mstore_dropped(&s);
    const char *host = c->mstore_target.nhosts ? c->mstore_target.hosts[0]
                                               : bf_scenario_metrics_store(c->sc, NULL)->hosts[0];
    char *shown = bf_url_redact_userinfo(host);
    if (dropped)
        bf_warn("metrics store %s: %llu of %llu documents indexed, %llu dropped (%llu buffer "
                "full, %llu refused, %llu unsent at the end): %s; the results directory has "
                "them all: `bulkfleet-coordinator publish %s --metrics-store URL` loads it again",
                shown ? shown : host, (unsigned long long)s.indexed,
                (unsigned long long)(s.queued + s.dropped_full), (unsigned long long)dropped,
                (unsigned long long)s.dropped_full, (unsigned long long)s.dropped_refused,
                (unsigned long long)s.dropped_unsent, s.last_error[0] ? s.last_error : "-",
                c->res ? bf_results_dir(c->res) : "DIR");
    else
        bf_info("metrics store %s: %llu documents indexed, 0 dropped", shown ? shown : host,
                (unsigned long long)s.indexed);
    if (c->res) {
        json_t *o = json_object();
        json_object_set_new(o, "host", json_string(shown ? shown : host));
        /* documents given to the writer (live seconds count again when their cell ends) */
        json_object_set_new(o, "documents", json_integer((json_int_t)(s.queued + s.dropped_full)));
        json_object_set_new(o, "indexed", json_integer((json_int_t)s.indexed));
        json_object_set_new(o, "dropped", json_integer((json_int_t)dropped));
        json_object_set_new(o, "dropped_buffer_full", json_integer((json_int_t)s.dropped_full));
        json_object_set_new(o, "dropped_refused", json_integer((json_int_t)s.dropped_refused));
        json_object_set_new(o, "dropped_unsent", json_integer((json_int_t)s.dropped_unsent));
        json_object_set_new(o, "requests", json_integer((json_int_t)s.requests));
        json_object_set_new(o, "retries", json_integer((json_int_t)s.retries));
        if (s.last_error[0])
            json_object_set_new(o, "last_error", json_string(s.last_error));
        char *txt = json_dumps(o, JSON_COMPACT);
        json_decref(o);
        bf_results_set_metrics_store(c->res, txt);
        free(txt);
        if (nrows > 0)
            bf_results_write_matrix(c->res, c->sc, rows, nrows);
    }
    free(shown);
    free(c->mstore_host);
    c->mstore_host = NULL;
}
