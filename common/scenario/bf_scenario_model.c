/* SPDX-License-Identifier: MIT */
/* bf_scenario_model.c — the scenario model's accessors (bf_scenario.h): what a loaded scenario
 * says, for the template compiler, the matrix, the agents and the coordinator.
 *
 * They read and set fields of bf_scenario_t (bf_scenario_int.h) and call nothing of the loader,
 * so the template compiler (bf_template.c) reads the model without depending on the loader
 * that calls it (bf_scenario.c).
 */
#include "bf_mem.h"
#include "bf_scenario_int.h"

#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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
    if (warmup_ms) {
        sc->run.warmup_ms = *warmup_ms;
        sc->run.warmup_auto = 0; /* --warmup 1s: a fixed warmup, also over run.warmup: auto */
    }
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

const bf_findings_spec_t *bf_scenario_findings(const bf_scenario_t *sc)
{
    return &sc->findings;
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

int bf_target_serverless(const bf_target_t *t)
{
    return t && t->auth == BF_AUTH_AWS && t->aws_service && strcmp(t->aws_service, "aoss") == 0;
}

int bf_cloud_id_decode(const char *cloud_id, char **url, char *err, size_t size)
{
    *url = NULL;
    const char *colon = strchr(cloud_id, ':');
    const char *b64 = colon ? colon + 1 : cloud_id;
    size_t n = strlen(b64);
    while (n > 0 && (b64[n - 1] == ' ' || b64[n - 1] == '\n'))
        n--;
    if (n == 0 || n > 4096) {
        snprintf(err, size, "no base64 part after the deployment name (\"name:base64\")");
        return BF_E_PARSE;
    }
    /* EVP_DecodeBlock wants a length that is a multiple of 4: pad what the ID left out */
    char *padded = bf_calloc(n + 4, 1);
    memcpy(padded, b64, n);
    while (n % 4)
        padded[n++] = '=';
    unsigned char *raw = bf_calloc(n, 1);
    int len = EVP_DecodeBlock(raw, (const unsigned char *)padded, (int)n);
    free(padded);
    if (len <= 0) {
        free(raw);
        snprintf(err, size, "the part after the name is not base64");
        return BF_E_PARSE;
    }
    while (len > 0 && raw[len - 1] == '\0') /* the padding decodes to NULs */
        len--;
    char *text = bf_strndup((const char *)raw, (size_t)len);
    free(raw);
    char *d1 = strchr(text, '$');
    char *d2 = d1 ? strchr(d1 + 1, '$') : NULL;
    if (d1 == NULL || d1 == text || d1[1] == '\0' || d1[1] == '$') {
        snprintf(err, size,
                 "it decodes to \"%.60s\", not \"host$es_uuid$kibana_uuid\": copy the Cloud ID "
                 "from the deployment's page again",
                 text);
        free(text);
        return BF_E_PARSE;
    }
    *d1 = '\0';
    if (d2)
        *d2 = '\0';
    char *host = text, *es = d1 + 1;
    const char *port = NULL;
    char *hp = strrchr(host, ':'), *ep = strrchr(es, ':');
    if (hp) {
        *hp = '\0';
        port = hp + 1;
    }
    if (ep) {
        *ep = '\0';
        port = ep + 1;
    }
    if (port && (strspn(port, "0123456789") != strlen(port) || *port == '\0')) {
        snprintf(err, size, "its port '%.20s' is not a number", port);
        free(text);
        return BF_E_PARSE;
    }
    if (port && strcmp(port, "443") != 0)
        *url = bf_asprintf("https://%s.%s:%s", es, host, port);
    else
        *url = bf_asprintf("https://%s.%s", es, host);
    free(text);
    return BF_OK;
}
