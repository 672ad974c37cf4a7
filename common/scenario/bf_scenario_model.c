/* SPDX-License-Identifier: MIT */
/* bf_scenario_model.c — the scenario model's accessors (bf_scenario.h): what a loaded scenario
 * says, for the template compiler, the matrix, the agents and the coordinator.
 *
 * They read and set fields of bf_scenario_t (bf_scenario_int.h) and call nothing of the loader,
 * so the template compiler (bf_template.c) reads the model without depending on the loader
 * that calls it (bf_scenario.c).
 */
#include "bf_scenario_int.h"

#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- accessors ----------------------------------------------------------------------------- */

const char *bf_scenario_name(const bf_scenario_t *sc)
{
    return sc->name;
}

const char *bf_scenario_origin(const bf_scenario_t *sc)
{
    return sc->origin;
}

const bf_target_t *bf_scenario_target(const bf_scenario_t *sc)
{
    return &sc->target;
}

size_t bf_scenario_named_target_count(const bf_scenario_t *sc)
{
    return sc->ntargets;
}

const bf_target_t *bf_scenario_named_target(const bf_scenario_t *sc, size_t i, const char **name)
{
    if (i >= sc->ntargets)
        return NULL;
    if (name)
        *name = sc->target_names[i];
    return &sc->targets[i];
}

const bf_target_t *bf_scenario_metrics_store(const bf_scenario_t *sc, bf_metrics_store_opts_t *o)
{
    if (o) {
        o->allow_target = sc->metrics_store_allow_target;
        o->flush_wait_ms = sc->metrics_store_flush_wait_ms;
        o->buffer_docs = sc->metrics_store_buffer_docs;
    }
    return sc->has_metrics_store ? &sc->metrics_store : NULL;
}

const bf_index_spec_t *bf_scenario_index(const bf_scenario_t *sc)
{
    return &sc->index;
}

const bf_request_spec_t *bf_scenario_request(const bf_scenario_t *sc)
{
    return &sc->request;
}

void bf_scenario_override_run(bf_scenario_t *sc, const uint64_t *warmup_ms,
                              const uint64_t *first_warmup_ms, const uint64_t *duration_ms)
{
    if (warmup_ms)
        sc->run.warmup_ms = *warmup_ms;
    if (first_warmup_ms)
        sc->run.first_warmup_ms = *first_warmup_ms;
    if (warmup_ms)
        sc->search.warmup_set = 0; /* a smoke run's warmup is every cell's */
    if (duration_ms) {
        sc->run.duration_ms = *duration_ms;
        sc->search.duration_ms = 0;
    }
}

void bf_scenario_set_warmup(bf_scenario_t *sc, uint64_t warmup_ms)
{
    sc->run.warmup_ms = warmup_ms;
}

void bf_scenario_set_duration(bf_scenario_t *sc, uint64_t duration_ms)
{
    sc->run.duration_ms = duration_ms;
}

void bf_scenario_cell_timing(const bf_scenario_t *sc, const bf_cell_t *cell, uint64_t *warmup_ms,
                             uint64_t *duration_ms)
{
    int search_only = sc->search.enabled && cell && cell->concurrency == 0;
    *warmup_ms = search_only && sc->search.warmup_set ? sc->search.warmup_ms : sc->run.warmup_ms;
    *duration_ms =
        search_only && sc->search.duration_ms ? sc->search.duration_ms : sc->run.duration_ms;
}

void bf_scenario_set_seed(bf_scenario_t *sc, uint64_t seed)
{
    sc->run.seed = seed;
    sc->run.seed_set = 1;
}

int bf_scenario_seed_fresh(bf_scenario_t *sc, uint64_t *seed)
{
    if (sc->run.seed_set) {
        *seed = sc->run.seed;
        return 0;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    x ^= (uint64_t)getpid() << 32;
    /* splitmix64 finalizer (Steele, Lea, Flood 2014): close clocks give unrelated seeds */
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    bf_scenario_set_seed(sc, x & 0x7fffffffffffffffull);
    *seed = sc->run.seed;
    return 1;
}

const bf_run_spec_t *bf_scenario_run(const bf_scenario_t *sc)
{
    return &sc->run;
}

const bf_search_spec_t *bf_scenario_search(const bf_scenario_t *sc)
{
    return &sc->search;
}

const bf_findmax_spec_t *bf_scenario_findmax(const bf_scenario_t *sc)
{
    return &sc->find_max;
}

const bf_document_spec_t *bf_scenario_document(const bf_scenario_t *sc)
{
    return &sc->document;
}

size_t bf_scenario_variable_count(const bf_scenario_t *sc)
{
    return sc->nvars;
}

const bf_var_spec_t *bf_scenario_variables(const bf_scenario_t *sc)
{
    return sc->vars;
}

long bf_scenario_variable_find(const bf_scenario_t *sc, const char *name)
{
    for (size_t i = 0; i < sc->nvars; i++)
        if (sc->vars[i].name && strcmp(sc->vars[i].name, name) == 0)
            return (long)i;
    return -1;
}

size_t bf_scenario_doc_bytes(const bf_scenario_t *sc)
{
    return sc->est_doc_bytes;
}

size_t bf_scenario_cell_count(const bf_scenario_t *sc)
{
    return sc->ncells;
}

const bf_cell_t *bf_scenario_cell(const bf_scenario_t *sc, size_t i)
{
    return i < sc->ncells ? &sc->cells[i] : NULL;
}

const bf_cell_t *bf_scenario_find_cell(const bf_scenario_t *sc, const char *cell_id)
{
    if (cell_id == NULL)
        return NULL;
    for (size_t i = 0; i < sc->ncells; i++)
        if (strcmp(sc->cells[i].id, cell_id) == 0)
            return &sc->cells[i];
    return NULL;
}

size_t bf_scenario_axis_count(const bf_scenario_t *sc)
{
    return sc->naxes;
}

const char *bf_scenario_axis_name(const bf_scenario_t *sc, size_t i)
{
    return i < sc->naxes ? sc->axis_names[i] : NULL;
}

const char *bf_scenario_resolved_text(const bf_scenario_t *sc)
{
    return sc->resolved_text;
}

const char *bf_scenario_redacted_text(const bf_scenario_t *sc)
{
    return sc->redacted_text;
}

size_t bf_scenario_file_count(const bf_scenario_t *sc)
{
    return sc->nfiles;
}

const bf_scenario_file_t *bf_scenario_file(const bf_scenario_t *sc, size_t i)
{
    return i < sc->nfiles ? &sc->files[i] : NULL;
}

size_t bf_scenario_warning_count(const bf_scenario_t *sc)
{
    return sc->nwarnings;
}

const char *bf_scenario_warning(const bf_scenario_t *sc, size_t i)
{
    return i < sc->nwarnings ? sc->warnings[i] : NULL;
}

const struct bf_corpus *bf_scenario_corpus(const bf_scenario_t *sc)
{
    return sc->corpus;
}

struct bf_corpus *bf_scenario_corpus_edit(bf_scenario_t *sc)
{
    return sc->corpus;
}

/* ---- how messages name each connection's keys (bf_scenario.h) ---------------------------------
 */

const bf_conn_names_t bf_conn_names_target = {"the cluster",
                                              "target.hosts",
                                              "target.tls.ca_file",
                                              "target.tls.insecure: true",
                                              "target.tls.cert_file and key_file",
                                              "target.auth"};
const bf_conn_names_t bf_conn_names_store = {"the metrics store",
                                             "metrics_store.hosts",
                                             "metrics_store.tls.ca_file",
                                             "metrics_store.tls.insecure: true",
                                             "metrics_store.tls.cert_file and key_file",
                                             "metrics_store.auth"};
const bf_conn_names_t bf_conn_names_store_url = {
    "the metrics store",
    "--metrics-store URL",
    "metrics_store.tls.ca_file",
    "metrics_store.tls.insecure: true",
    "metrics_store.tls.cert_file and key_file",
    "metrics_store.auth (or user:password@ in the --metrics-store URL)"};
const bf_conn_names_t bf_conn_names_compare = {
    "the metrics store",
    "--metrics-store URL",
    "the system's CA bundle (compare has no --ca-file)",
    "publish --insecure-tls (compare cannot skip verification)",
    NULL,
    "user:password@ in the --metrics-store URL"};
const bf_conn_names_t bf_conn_names_publish = {"the metrics store",
                                               "--metrics-store URL",
                                               "--ca-file",
                                               "--insecure-tls",
                                               NULL,
                                               "user:password@ in the --metrics-store URL"};
