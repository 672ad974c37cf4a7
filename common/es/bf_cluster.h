/* SPDX-License-Identifier: MIT */
/* bf_cluster.h — what the coordinator (and standalone agent) asks of the target cluster:
 * who it is, preparing a cell's indices, health, refresh and count.
 *
 * API facts: docs/internals/es-api.md (GET /, PUT /<index>, _index_template, _cluster/health with
 * wait_for_status, _refresh, _count). Uses one bf_es_t; same threading rule (one thread).
 */
#ifndef BF_CLUSTER_H
#define BF_CLUSTER_H

#include "bf_error.h"
#include "bf_es.h"
#include "bf_scenario.h"

#include <stdint.h>

typedef struct bf_cluster_info {
    char distribution[32]; /* "opensearch" or "elasticsearch" */
    char version[32];      /* "2.19.6" */
    char cluster_name[128];
    char cluster_uuid[64]; /* GET /'s cluster_uuid ("" when the answer has none): tells whether
                              two host URLs reach the same cluster */
    char flavor[16];       /* GET /'s version.build_flavor ("default", "serverless") or "" */
    uint32_t nodes;        /* number_of_nodes from _cluster/health (0: not asked, as on
                              Elastic Serverless, whose _cluster APIs are not public) */
    uint32_t data_nodes;
} bf_cluster_info_t;

/* bf_cluster_info — GET / and _cluster/health. 0, or BF_E_TRANSPORT / BF_E_HTTP with diag
 * naming the host and what to check. */
int bf_cluster_info(bf_es_t *es, bf_cluster_info_t *info, bf_diag_t *diag);

/* bf_cluster_root_check — whether body, the answer to GET / with HTTP status `status`, is an
 * Elasticsearch or OpenSearch node's (a JSON object with a string cluster_name and a string
 * version.number, as every release since Elasticsearch 1.0 and every OpenSearch write it,
 * docs/internals/es-api.md §3.1). When it is not, `what` (size bytes, always terminated) gets what
 * it is, for a message that names it: 'an HTML page titled "Welcome to nginx!"', 'JSON without
 * version.number (its keys: responseHeader, lucene)', 'text "..."' (the first 80 bytes, control
 * characters as spaces), 'an empty body'. status is only used for an answer that is a JSON error
 * (an error object of a real cluster under any status counts as a cluster's answer).
 * body may be NULL. Returns 1 (a cluster's answer; what = "") or 0. Pure; thread-safe. */
int bf_cluster_root_check(long status, const char *body, char *what, size_t size);

#define BF_PROBE_NOTE_MS 3000u /* the probe says what it still waits for this often */

/* bf_cluster_probe — the first contact with a host (coordinator start, standalone agent):
 * bf_cluster_info on target->hosts[host_index] with every request bounded by timeout_ms (the
 * scenario's request.timeout) and each connection by target.connect_timeout, saying every
 * BF_PROBE_NOTE_MS (bf_info) what it still waits for ("GET / on URL: no answer after 3 s;
 * giving up after request.timeout 60s"). A 401 or 403 is "authentication failed" with the
 * server's own reason (its error.reason, or the body's first line) and what target.auth sent.
 * Returns 0, or BF_E_TRANSPORT (refused, timed out: diag names the key that bounds the wait) /
 * BF_E_HTTP with diag set. target borrowed. Same threading rule as bf_es. */
int bf_cluster_probe(const bf_target_t *target, size_t host_index, uint64_t timeout_ms,
                     bf_cluster_info_t *info, bf_diag_t *diag);

/* What bulkfleet may delete in a cluster, and how it marks what it creates (docs/internals/style.md
 * rule 18: the cluster module owns what bulkfleet creates). Every index, data stream and index
 * template bulkfleet creates carries `_meta` {"created_by": "bulkfleet", "bulkfleet_created": true,
 * "scenario": <name>, "campaign": <id>} (indices and streams in their mappings, templates at the
 * template's top level and in template.mappings). index.recreate deletes only what carries it;
 * names in `replace` (--replace-existing NAME) may be deleted and replaced without it.
 * Borrowed by the calls that take it; NULL = nothing unmarked may be replaced, no ids. */
typedef struct bf_owner {
    const char *scenario;       /* scenario name, or NULL */
    const char *campaign;       /* campaign id (results directory name), or NULL */
    const char *const *replace; /* index / data stream / template names, borrowed */
    size_t nreplace;
} bf_owner_t;

/* bf_owner_may_replace — 1 when name was given with --replace-existing (owner may be NULL). */
int bf_owner_may_replace(const bf_owner_t *owner, const char *name);

/* bf_cluster_check_owned — before any load: for each cell of sc (only those with selected[i]
 * set when selected is not NULL) refuse what index.recreate would delete without owning it
 * (an existing index, alias or data stream without bulkfleet's mark), and a shipped index
 * template that would replace a template bulkfleet did not make or whose index_patterns are
 * "*" or match an existing index without the mark. Names in owner->replace are allowed; one
 * that names no index, data stream or template of a selected cell is warned about (it replaces
 * nothing), and an unmarked template it lets be replaced is said (warning) here. Each unmarked
 * index, alias or data stream it lets index.recreate delete is said (warning, with its document
 * count from GET /<name>/_count) by bf_cluster_prepare_cell just before the DELETE.
 * Requests: GET /<name>/_mapping, GET /_data_stream/<name>, GET /_index_template/<name>,
 * GET /<pattern>/_mapping (each name once). Returns 0, BF_E_INVAL with diag naming the first
 * refused index or template and how to proceed, or a transport/HTTP error. */
int bf_cluster_check_owned(bf_es_t *es, const bf_scenario_t *sc, const uint8_t *selected,
                           const bf_owner_t *owner, bf_diag_t *diag);

/* bf_cluster_production_like — 1 when an index name or pattern looks like data someone keeps
 * (a bare "*", a name starting with "." or with logs / metrics / traces / a Beats or Logstash
 * prefix, or containing "prod"): `validate` and `plan` warn about it. Pure; thread-safe. */
int bf_cluster_production_like(const char *name);

/* bf_cluster_prepare_cell — (re)create the cell's indices: the composable template (if any),
 * DELETE each index when recreate, PUT it with the cell's settings and the mappings, then wait
 * up to wait_ms for green — or, when data_nodes > 0 and the replicas need more nodes than that
 * (replicas + 1 > data_nodes), for yellow only, since green can never come. *yellow = 1 when the
 * indices stayed yellow (replicas that cannot be allocated on this many nodes): the caller records
 * it. Returns 0, or BF_E_HTTP / BF_E_TRANSPORT / BF_E_TIMEOUT (red) with diag. Data streams
 * (index.data_stream): the shipped template is PUT with the cell's settings in its
 * template.settings (flat "index.*" keys, the cell's override the template's); each name is
 * probed (GET /_data_stream/<name>); with recreate an existing stream is deleted
 * (DELETE /_data_stream/<name>) only when it carries bulkfleet's mark (mapping _meta
 * "bulkfleet_created": true, set right after bulkfleet creates it), otherwise the cell fails
 * with BF_E_INVAL naming it; a missing stream is created with PUT /_data_stream/<name> and
 * marked. A name that is an index or alias is BF_E_INVAL. A plain index name that a
 * data-stream-only template matches is BF_E_INVAL saying to set index.data_stream: true.
 * Ingest pipelines, first of all: index.pipeline(_file) is PUT as /_ingest/pipeline/<request.
 * pipeline> (DELETE first with recreate); request.pipeline and a document.pipeline without
 * $[[...]] must then exist (GET), else BF_E_INVAL naming the key and the pipeline.
 * Ownership (bf_owner_t): with recreate an existing index is deleted only when it carries the
 * mark or owner allows its name (else BF_E_INVAL naming it, nothing deleted); every index,
 * stream and template created is marked. */
int bf_cluster_prepare_cell(bf_es_t *es, const bf_scenario_t *sc, const bf_cell_t *cell,
                            const bf_owner_t *owner, uint32_t data_nodes, uint64_t wait_ms,
                            int *yellow, bf_diag_t *diag);
/* bf_cluster_prepare_cell_tick — the same, calling tick(tick_ctx) about once a second while it
 * waits for the health status (the coordinator keeps its fleet loop going meanwhile). */
int bf_cluster_prepare_cell_tick(bf_es_t *es, const bf_scenario_t *sc, const bf_cell_t *cell,
                                 const bf_owner_t *owner, uint32_t data_nodes, uint64_t wait_ms,
                                 int *yellow, void (*tick)(void *ctx), void *tick_ctx,
                                 bf_diag_t *diag);

/* bf_cluster_count — POST _refresh then GET _count over the cell's indices.
 * *count = the number of documents. 0 or an error with diag: BF_E_PARSE also for an answer
 * with failed shards (_shards.failed > 0: a partial count, which would misjudge the row). */
int bf_cluster_count(bf_es_t *es, const bf_cell_t *cell, int64_t *count, bf_diag_t *diag);

/* bf_cluster_search_total — the query phases the cluster has run on the cell's indices: GET
 * /<indices>/_stats/search, _all.total.search.query_total (every shard copy that ran a query
 * phase counts one; docs/internals/es-api.md index stats). -1 when it cannot be read. */
int64_t bf_cluster_search_total(bf_es_t *es, const bf_cell_t *cell);

/* bf_cluster_store_bytes — the disk cost of the cell's indices: POST _refresh and _flush, then
 * GET <indices>/_stats/store; *bytes = _all.primaries.store.size_in_bytes (primaries only, so
 * replicas do not count; docs/internals/es-api.md, OpenSearch index stats API). 0 or an error with
 * diag (HTTP status, no such field). es and cell are borrowed; not thread-safe (one es per thread).
 */
int bf_cluster_store_bytes(bf_es_t *es, const bf_cell_t *cell, int64_t *bytes, bf_diag_t *diag);

/* bf_cluster_segments — the Lucene segments of the cell's indices' primaries: GET
 * <indices>/_stats/segments, _all.primaries.segments.count (docs/internals/es-api.md, index
 * stats). 0 and *count, or an error with diag (HTTP status, no such field). Not thread-safe. */
int bf_cluster_segments(bf_es_t *es, const bf_cell_t *cell, int64_t *count, bf_diag_t *diag);

/* bf_cluster_force_merge — the after-load step: POST <indices>/_forcemerge?max_num_segments=
 * max_segments (which answers when the merge is done; the request bounded by timeout_ms, the
 * client's own bound restored after it), then POST <indices>/_refresh. *seconds = the wall
 * time of both (monotonic clock). 0, or an error with diag (HTTP status and the cluster's
 * reason, a timeout naming the bound). Not thread-safe (one es per thread). */
int bf_cluster_force_merge(bf_es_t *es, const bf_cell_t *cell, uint32_t max_segments,
                           long timeout_ms, double *seconds, bf_diag_t *diag);

/* bf_cluster_baseline — documents already in the cell's indices before its load (recreated
 * indices: 0 without asking, unless the scenario has a search section: search.prefill and
 * search-only cells that keep their index leave documents in them, so they are counted). Call after
 * the indices are prepared, before the load starts. Returns the count, or -1 when it could not be
 * read (a warning is logged; the row will then not be verified). es and cell are borrowed. */
int64_t bf_cluster_baseline(bf_es_t *es, const bf_scenario_t *sc, const bf_cell_t *cell);

/* bf_cluster_existing_mismatch — with index.recreate false the indices may be the user's, made
 * with other settings than the cell's (data streams: always checked, on the backing index,
 * since a template in the cluster rather than the scenario decides their settings): 1 when one of
 * them has another number_of_shards or number_of_replicas than the cell's shards / replicas (what
 * the row's columns show), with the first difference in why (why_size bytes); 0 when they match,
 * when recreate is true, or when the settings cannot be read. On 1, *index_shards / *index_replicas
 * (when not NULL) get that index's real number_of_shards / number_of_replicas (findings use them,
 * not the cell's). */
int bf_cluster_existing_mismatch(bf_es_t *es, const bf_scenario_t *sc, const bf_cell_t *cell,
                                 char *why, size_t why_size, uint32_t *index_shards,
                                 uint32_t *index_replicas);

/* bf_cluster_type_module — the OpenSearch/Elasticsearch module that provides a mapping field
 * type outside the server core (match_only_text, scaled_float, rank_feature(s),
 * search_as_you_type, token_count: mapper-extras; join: parent-join; percolator: percolator), or
 * NULL for a core type. A cluster without the module (docs/development.md lists what each dev
 * cluster of scripts/devcluster.sh lacks) refuses the mapping with "No handler for type". Static
 * strings; thread-safe. */
const char *bf_cluster_type_module(const char *type);

/* bf_cluster_analysis_hint — reads an index creation's error body for an analysis component the
 * cluster does not know: Elasticsearch/OpenSearch "Unknown tokenizer type [x] for [name]" (also
 * filter, char_filter, analyzer), "failed to find global tokenizer under [x]" and "Custom
 * Analyzer [a] failed to find filter under name [x]" (a name referenced without a definition).
 * On a match it writes to out (out_size bytes, truncated, NUL-terminated) a sentence naming the
 * kind, the type, the module it belongs to (analysis-common, or analysis-icu/-kuromoji/... for
 * their components) and what to use instead (an alternative the Elasticsearch dev cluster's
 * bulkfleet-analysis-common module has, or the OpenSearch dev cluster / a real cluster), as
 * deploy/devcluster-es/README.md lists them. body: the response body (NULL allowed). Returns 1
 * on a match, 0 otherwise (out untouched). Thread-safe; no allocation. */
int bf_cluster_analysis_hint(const char *body, char *out, size_t out_size);

/* bf_cluster_script_hint — reads an error body for "script_lang not supported [lang]" (a
 * cluster without that script module: lang-painless, lang-expression, lang-mustache). On a
 * match writes to out (out_size bytes, truncated, NUL-terminated) "; the cluster has no
 * <lang> scripting (the module lang-<lang>): ..." with the way out as docs/development.md lists
 * it (the OpenSearch 2 dev cluster with BF_DEVCLUSTER_SCRIPTING=1, or a real cluster), to append
 * to a search's failure. body: NULL allowed. Returns 1 on a match, 0 otherwise (out set to "").
 * Thread-safe; no allocation. */
int bf_cluster_script_hint(const char *body, char *out, size_t out_size);

/* bf_cluster_delete_cell — DELETE the cell's indices (used by --cleanup); data streams with
 * DELETE /_data_stream/<name>; only what bulkfleet created (others: a warning, kept). */
int bf_cluster_delete_cell(bf_es_t *es, const bf_cell_t *cell, bf_diag_t *diag);

#endif
