/* SPDX-License-Identifier: MIT */
/* bf_scenario.h — the scenario matrix model and its YAML loader.
 *
 * A scenario file (YAML, docs/scenario.md) describes the target cluster, the index, the variables,
 * the document template, request and run settings, and a matrix of axes. The loader walks the
 * document against one table of keys (docs/internals/style.md rule 10), reports the first mistake
 * as "file:line:column: key: message; what to do", resolves ${VAR} from the environment, reads
 * mappings and dictionary files, and expands the matrix into cells in run order.
 *
 * The coordinator loads the file; agents load the resolved text it ships in Prepare
 * (bf_scenario_load_text with a file provider that serves the shipped dictionary files).
 * A loaded scenario is immutable and may be read from many threads at once.
 *
 * Scenario file reference (the one key table is BF__KEYS in bf_scenario_int.h):
 *   name            required; letters, digits, '-', '_', '.' (names the results folder)
 *   target.hosts    required; list of http(s)://host:port URLs (one string is a list of one)
 *   target.auth     {username, password} | {api_key} (sent as "ApiKey <value>") | {bearer};
 *                   password, api_key, bearer and every target.headers value are secrets
 *   target.tls      {ca_file, cert_file, key_file, insecure}; target.headers {Name: value}
 *   target.connect_timeout  connect bound of every connection (10s)
 *   targets         optional named host sets {<name>: {hosts: [...]}} into the same cluster
 *                   (auth, TLS, headers from target); the matrix axis `target` picks one per
 *                   cell for the bulk and search traffic (e.g. direct vs gateway)
 *   index.name      pattern, default the scenario name lowercased; placeholders {shards}
 *                   {replicas} {batch_size} {concurrency} {indices} {compression}
 *                   {target_rate} {i} and {settings.<path>} or just {<last component>}
 *                   (e.g. {refresh_interval}); see bf_scenario_matrix.c for the rules
 *   index.count     indices per cell (default 1; also the matrix axis `indices`)
 *   index.data_stream  true: the index names are data streams (default: true when the
 *                   template body has "data_stream"); forces document.action create
 *   index.recreate  default true; index.settings (YAML mapping, nested or dotted keys, with
 *                   or without "index."); index.mappings (mapping) or index.mappings_file
 *                   (JSON; a {"mappings": ...} wrapper is unwrapped); index.template
 *                   {name, body | body_file} — a composable index template (index_patterns)
 *   variables       list of {name, type, scope: document|request (default document), ...}:
 *                   file {path, data}, list {data}, sequence|sequence64 {from, to, wrap},
 *                   range {from, to}, uuid, sortable_id|xid, now_local, now_utc,
 *                   now_utc_lite, now_unix, now_unix_ms|now_unix_in_ms, now_unix_us,
 *                   now_unix_ns, now_with_format {format: strftime}, random_array
 *                   {variable_key, size, variable_type: number|string, square_bracket,
 *                   string_bracket}; see bf_vars.h. A key that does not apply to the type is
 *                   an error.
 *   document        action index|create|update|delete (default index), id, routing,
 *                   pipeline (templates), source (inline JSON template) or source_file
 *                   (not for delete); placeholders $[[name]]; update {doc|upsert} and
 *                   retry_on_conflict for update; update and delete need id (a delete of
 *                   a missing id is 404 without error: acknowledged, as the cluster says,
 *                   unless delete_missing: fail);
 *                   or corpus {path | local_path, format source|bulk, passes N|loop}
 *                   instead of source: real documents copied from a file (bf_corpus.h)
 *   request         compression none|gzip (default none), gzip_level 1-9 (1), timeout (60s),
 *                   filter_path (string that keeps items.*.status, or true for
 *                   "errors,items.*.status,items.*.error.type,items.*.error.reason"),
 *                   retry {max (0), backoff (100ms)}, pipeline (name of an ingest pipeline,
 *                   checked at prepare; index.pipeline / index.pipeline_file ship its body)
 *   run             warmup (10s), first_warmup (0s: the first cell's warmup when longer),
 *                   duration (60s), repeat (1), target_rate (docs/s, "10k"), agents (0 = all),
 *                   seed
 *   search          optional: queries sent beside (or instead of) the bulk load, see
 *                   bf_search_spec_t: clients (1; axis search_clients), target_rate (ops/s,
 *                   0 = closed loop; axis search_rate), prefill (documents indexed before the
 *                   cell when it creates its index), recreate (search-only cells: false),
 *                   queries [{name, method GET|POST, path ("/{index}/_search"), body
 *                   (JSON template with $[[name]] placeholders), weight (1)}]
 *   matrix          axes (see bf_scenario_matrix.c): a list is an axis, one value fixes the
 *                   parameter; include / exclude; the first axis is the outermost of the run
 *                   order; `target` (names from targets:) and `agents` (agents per cell)
 *                   are axes too
 * Every scalar may hold ${VAR} or ${VAR:-default} (default when VAR is unset or empty); $${ is
 * a literal ${. In YAML flow collections ([...] / {...}) such values must be quoted, because
 * braces are flow syntax: hosts: ["${BF_TARGET:-http://127.0.0.1:9200}"].
 * Durations: "250ms", "30s", "5m", "1h30m", or a bare number of seconds. Counts: "5000",
 * "10k", "2M".
 */
#ifndef BF_SCENARIO_H
#define BF_SCENARIO_H

#include "bf_error.h"
#include "bf_vars.h"

#include <stddef.h>
#include <stdint.h>

#define BF_MAX_SCENARIO_BYTES (16u << 20) /* a scenario file larger than this is refused */
#define BF_MAX_DICT_BYTES (512u << 20)    /* one dictionary (type: file) file */
#define BF_MAX_PEM_BYTES (4u << 20)       /* one TLS file (CA bundle, certificate, key) */
#define BF_MAX_CELLS 100000u              /* cells after expansion */
#define BF_MAX_BODY_BYTES (100u << 20)    /* OpenSearch default http.max_content_length */
#define BF_MAX_CORPUS_SHIP_BYTES                                                                   \
    (1024u << 20)                     /* a corpus shipped to agents (in chunks above               \
                                         --file-chunk-size); larger: corpus.local_path */
#define BF_CORPUS_SAMPLE_DOCS 100000u /* validate parses at most this many corpus docs */

/* BF_AUTH_AWS: every request signed with AWS Signature Version 4 (bf_aws, docs/cloud.md) */
enum bf_auth_type { BF_AUTH_NONE = 0, BF_AUTH_BASIC, BF_AUTH_APIKEY, BF_AUTH_BEARER, BF_AUTH_AWS };
/* The bulk action of every document (docs/internals/es-api.md §1.1). update: the source becomes
 * {"doc": <source>} (with "doc_as_upsert": true for document.update: upsert); delete: the
 * action line alone. Both need document.id. */
enum bf_action { BF_ACTION_INDEX = 0, BF_ACTION_CREATE, BF_ACTION_UPDATE, BF_ACTION_DELETE };
enum bf_compression { BF_COMPRESS_NONE = 0, BF_COMPRESS_GZIP };
/* How a bulk body goes on the wire (request.transfer). chunked: a template body is rendered as
 * libcurl reads it (Transfer-Encoding: chunked) whenever it can be; length: every body whole,
 * with its Content-Length; auto: chunked until a server answers 411 to a chunked body, then
 * length (once, logged). A signed body (target.auth.aws) always has a length. */
enum bf_transfer { BF_TRANSFER_AUTO = 0, BF_TRANSFER_LENGTH, BF_TRANSFER_CHUNKED };
/* Where a bulk request goes (bf_routing): none = to target.hosts as written; node =
 * split by the node holding each document's primary, one sub-bulk per node sent to that
 * node's HTTP address; shard = one sub-bulk per shard, sent to its primary's node. */
enum bf_routing_mode { BF_ROUTE_NONE = 0, BF_ROUTE_NODE, BF_ROUTE_SHARD };

/* One PEM file's content (borrowed; not NUL-terminated as far as users should assume). */
typedef struct bf_pem {
    const char *data;
    size_t len;
} bf_pem_t;

/* How messages name a connection and the settings to fix: the scenario keys (or command-line
 * options) its hosts, TLS files and credentials come from. Static strings, never freed. */
typedef struct bf_conn_names {
    const char *what;     /* "the cluster", "the metrics store" */
    const char *hosts;    /* "target.hosts", "metrics_store.hosts", "--metrics-store URL" */
    const char *ca_file;  /* "target.tls.ca_file", "--ca-file" */
    const char *insecure; /* "target.tls.insecure: true", "--insecure-tls" */
    const char *cert;     /* "target.tls.cert_file and key_file"; NULL: no way to give one */
    const char *auth;     /* "target.auth", "metrics_store.auth (...)" */
} bf_conn_names_t;

/* The names of the target (target.*), of a metrics_store: section, of `run --metrics-store URL`
 * (hosts from the option, TLS and auth from the section), of `publish --metrics-store URL`
 * (--ca-file, --insecure-tls, user:password@ in the URL) and of `compare --metrics-store URL`
 * (credentials in the URL, the system's CAs). */
extern const bf_conn_names_t bf_conn_names_target;
extern const bf_conn_names_t bf_conn_names_store;
extern const bf_conn_names_t bf_conn_names_store_url;
extern const bf_conn_names_t bf_conn_names_publish;
extern const bf_conn_names_t bf_conn_names_compare;

typedef struct bf_target {
    char **hosts; /* base URLs "http://127.0.0.1:9200", no trailing slash; nhosts >= 1 */
    size_t nhosts;
    enum bf_auth_type auth;
    char *username;    /* basic; secret-free */
    char *password;    /* basic; SECRET */
    char *api_key;     /* the value after "ApiKey " (base64 of id:key); SECRET */
    char *bearer;      /* token; SECRET */
    char *aws_region;  /* BF_AUTH_AWS: the signing region ("eu-west-1") */
    char *aws_service; /* BF_AUTH_AWS: "es" (OpenSearch Service) or "aoss" (Serverless) */
    char *aws_key_id;  /* BF_AUTH_AWS credentials given by the scenario (shipped to the
                          agents), or NULL: each host's own (environment, files, web
                          identity, instance role) */
    char *aws_secret;  /* SECRET */
    char *aws_token;   /* SECRET, or NULL */
    int aws_ship;      /* target.auth.aws.ship: agents sign with the coordinator's own
                          credentials, shipped to them and again when it fetches fresh ones */
    char *ca_file;     /* TLS CA bundle path as written, or NULL */
    char *cert_file;   /* TLS client certificate path as written, or NULL */
    char *key_file;    /* TLS client key path as written, or NULL */
    bf_pem_t ca_pem;   /* their contents, read at load like every file the scenario names
                          (relative to its folder; shipped to agents): borrowed from the
                          scenario's file list, {NULL, 0} when the path is not set */
    bf_pem_t cert_pem;
    bf_pem_t key_pem; /* SECRET (never written to results; shipped over CURVE) */
    int tls_insecure; /* 1: do not verify the server certificate */
    char **headers;   /* extra request headers "Name: value" */
    size_t nheaders;
    uint64_t connect_timeout_ms;  /* target.connect_timeout (10s): TCP + TLS connect bound of
                                     every connection (probe, cluster APIs, bulk, search) */
    const bf_conn_names_t *names; /* for messages; NULL = bf_conn_names_target */
    int es_serverless; /* not a key: set by bf_scenario_elastic_serverless when GET / said
                          version.build_flavor "serverless" (an Elastic Serverless project) */
} bf_target_t;

/* bf_target_serverless — 1 when t is an OpenSearch Serverless collection (target.auth.aws.service:
 * aoss): no _id in index/create actions, no _refresh (documents become searchable seconds
 * later), no shard or replica settings, no cluster or node APIs (docs/cloud.md). Thread-safe. */
int bf_target_serverless(const bf_target_t *t);

/* bf_target_managed — 1 when t is a service that places shards itself and keeps its cluster,
 * node and stats APIs private: an OpenSearch Serverless collection (bf_target_serverless) or an
 * Elastic Serverless project (t->es_serverless). bulkfleet then sends no _cluster, _nodes,
 * _cat or <index>/_stats request and no number_of_shards/number_of_replicas (docs/cloud.md).
 * Thread-safe. */
int bf_target_managed(const bf_target_t *t);

/* bf_cloud_id_decode — an Elastic Cloud deployment's Cloud ID ("name:" + base64 of
 * "host[:port]$es_uuid[:port]$kibana_uuid") to its Elasticsearch endpoint
 * "https://<es_uuid>.<host>[:port]" (port 443 unless the ID gives one), decoded as Elastic's
 * clients do (elastic-transport's parse_cloud_id). *url: a new string (caller frees). Returns
 * 0, or BF_E_PARSE with why in err (size bytes). Thread-safe. */
int bf_cloud_id_decode(const char *cloud_id, char **url, char *err, size_t size);

typedef struct bf_index_spec {
    char *name;            /* pattern with {axis} placeholders, e.g. "bench-{shards}s"; with
                              indices > 1 the names are "<name>-0" .. "<name>-(n-1)" unless the
                              pattern contains "{i}" */
    char **names;          /* index.names: every cell's index names as written (nnames of them;
                              NULL = from the name pattern); index.count is their number */
    size_t nnames;
    int recreate;          /* delete + create per cell (only names this campaign owns) */
    int name_imported;     /* 1: index.imported_name is set and equals index.name: the name is
                              the one import-rally / import-loadgen wrote (the track's or the
                              loadgen config's), so validate/plan do not call it a production
                              index name (the import's notes said so once) */
    char *settings_json;   /* JSON object text of extra index settings, or NULL */
    char *mappings_json;   /* JSON object text of the mappings (inline or mappings_file), or NULL */
    char *template_json;   /* composable index template body (JSON) or NULL */
    char *template_name;   /* name of that template or NULL */
    int data_stream;       /* 1: every index name is a data stream (index.data_stream: true, or
                              the template body has "data_stream"): created with
                              PUT /_data_stream/<name>, written with action create only */
    char *pipeline_json;   /* ingest pipeline body (index.pipeline / index.pipeline_file), put
                              as request.pipeline before every cell, or NULL */
    char *timestamp_field; /* data streams: the field every document needs ("@timestamp", or
                              the template's data_stream.timestamp_field.name); else NULL */
    uint32_t force_merge;  /* index.force_merge: after each cell's load and count, merge its
                              indices to this many segments a shard and refresh, timed in the
                              row; 0 = no after-load step */
    uint64_t force_merge_timeout_ms; /* index.force_merge_timeout: that merge's bound (1 h) */
} bf_index_spec_t;

typedef struct bf_request_spec {
    enum bf_compression compression;
    enum bf_routing_mode routing_mode; /* request.routing_mode, default none */
    uint64_t routing_refresh_ms;       /* request.routing_refresh: routing table re-read (5s) */
    int gzip_level;                    /* 1..9, default 1 */
    enum bf_transfer transfer;         /* request.transfer, default auto */
    int media_type_es8;        /* request.media_type: elasticsearch8: Elasticsearch 8's versioned
                                  media types (compatible-with=8) for Content-Type and Accept */
    uint64_t timeout_ms;       /* whole-request timeout, default 60000 */
    char *filter_path;         /* appended to /_bulk?filter_path=..., NULL for none; must keep
                                  items.*.status (the loader checks) */
    char *pipeline;            /* ingest pipeline of every bulk request (/_bulk?pipeline=), or NULL;
                                  "bulkfleet-<name>" when index.pipeline(_file) ships one unnamed */
    uint32_t retry_429_max;    /* 0 = never retry rejected items */
    uint64_t retry_backoff_ms; /* first backoff, doubled per retry */
} bf_request_spec_t;

/* The find_max: section (docs/scenario.md "find_max"): the bounds of the find-max search,
 * every key with a default. Read only by `bulkfleet-coordinator find-max`. */
typedef struct bf_findmax_spec {
    uint32_t batch_start;       /* docs per bulk request of the first step (100) */
    uint32_t batch_max;         /* docs (65536) */
    uint32_t max_body_mb;       /* uncompressed body cap, MiB (90: below http.max_content_length) */
    uint32_t gain_pct;          /* a doubling must add this % of docs/s (5) */
    uint32_t concurrency_start; /* (1) */
    uint32_t concurrency_max;   /* (1024) */
    uint64_t latency_p99_max_ms; /* latency p99 bound, 0 = none */
    uint64_t sustain_ms;         /* the sustain phase's measurement window (2 min) */
    uint32_t step_down_pct;      /* sustain: lower the rate by this % after a miss (10) */
    uint32_t sustain_tries;      /* sustain runs at most (5) */
    uint64_t max_time_ms;        /* the whole search per combination of the other axes (1 h) */
    int present;                 /* 1: the file has a find_max: section (plan states its bound) */
} bf_findmax_spec_t;

typedef struct bf_run_spec {
    uint64_t warmup_ms;
    int warmup_auto;          /* run.warmup: auto: the coordinator ends the warmup once the
                                 per-second docs/s is steady, at most warmup_max_ms (then
                                 warmup_ms = warmup_max_ms: what agents plan and `plan` counts) */
    uint64_t warmup_max_ms;   /* run.warmup_max (60s) */
    uint64_t first_warmup_ms; /* the first cell a coordinator runs warms up this long instead
                                 (when longer than warmup_ms): a fresh cluster's JVM is still
                                 compiling its indexing code; 0 = warmup_ms */
    uint64_t duration_ms;
    uint32_t repeat;            /* >= 1; with repeat_auto: until_max_repeat (the worst case) */
    int repeat_auto;            /* run.repeat: auto: rounds added until every comparison the
                                   findings state is decided (bf_until.h) or a bound is hit */
    uint32_t until_min_repeat;  /* run.until.min_repeat: rounds before the first test (4) */
    uint32_t until_max_repeat;  /* run.until.max_repeat: rounds at most (10) */
    uint64_t until_max_time_ms; /* run.until.max_time: no round starts that would end after
                                   it (estimated from the rounds so far); 0 = no bound */
    int order_sequential;       /* run.order: sequential (1): a cell's repetitions back to back in
                                   matrix order; 0 (rounds): with repeat >= 2 each round runs every
                                   cell once in an order shuffled from the seed (bf_rounds.h) */
    double target_rate;    /* docs/s across the fleet, 0 = closed loop */
    uint32_t agents;       /* agents per cell, 0 = all connected */
    uint64_t seed;         /* base RNG seed; each agent and thread derives its own */
    int seed_set;          /* added: 1 when run.seed was written; 0 = seed is 0 and the
                              coordinator should pick (and record) a fresh one per run */
} bf_run_spec_t;

/* The `findings` section: how the findings and compare test what they state
 * (docs/results.md, How sure). */
typedef struct bf_findings_spec {
    double alpha;      /* findings.alpha: significance level (0.05) */
    double noise_band; /* findings.noise_band: a share, 0.02 = +-2 % */
} bf_findings_spec_t;

/* Added: the `document` section. Templates keep their $[[name]] placeholders; bf_template
 * compiles them. */
typedef struct bf_document_spec {
    enum bf_action action;      /* index (default) | create | update | delete */
    int upsert;                 /* update: 1 = "doc_as_upsert": true (document.update: upsert) */
    uint32_t retry_on_conflict; /* update: the action line's retry_on_conflict, 0 = none */
    int delete_missing_fails;   /* delete: 1 = a 404 for a missing id is a failure (other 4xx,
                                   type not_found; document.delete_missing: fail), 0 = ok */
    char *id;                   /* _id template, or NULL (the cluster assigns ids) */
    char *routing;              /* routing template, or NULL */
    char *pipeline;             /* ingest pipeline template, or NULL */
    char *source;      /* source template: document.source, or the content of source_file */
    char *source_file; /* path as written, or NULL when the source is inline */
    /* document.corpus, instead of source (bf_corpus.h): real documents from a file */
    char *corpus_path;       /* shipped with the scenario by content hash, or NULL */
    char *corpus_local_path; /* read by each agent from its own disk at Prepare, or NULL */
    char **corpus_files;     /* every file of path / local_path (a list, or one): one corpus,
                                their documents in this order; corpus_files[0] is the one above */
    size_t ncorpus_files;
    int corpus_by_file;     /* document.corpus.indices: by_file: a document of file k goes to
                               the cell's index k (Rally's target-index per file); 0: the
                               documents go round-robin over the cell's indices */
    int corpus_format;      /* enum bf_corpus_format: source lines, or bulk action + source */
    uint32_t corpus_passes; /* times each stream reads its slice; 0 = loop until the cell ends */
} bf_document_spec_t;

#define BF_MAX_QUERIES 32u    /* named queries in search.queries */
#define BF_MAX_QUERY_NAME 64u /* bytes of a query name */

/* How a paged query walks its pages (search.queries[].paging.by). */
enum { BF_PAGING_NONE = 0, BF_PAGING_FROM, BF_PAGING_SEARCH_AFTER };

/* One named query of the `search` section. */
typedef struct bf_query_spec {
    char *name;            /* letters, digits, '_', '-', '.'; names the query's results row */
    int post;              /* 1: POST (default), 0: GET (still with the body when there is one) */
    char *path;            /* "/{index}/_search": {index} becomes the cell's index names joined
                              by ','; must start with '/' */
    char *body;            /* JSON template with $[[name]] placeholders (bf_tmpl_compile_body),
                              or NULL for no body */
    uint32_t weight;       /* share of the mix: weight / sum of weights, >= 1 */
    int paging;            /* BF_PAGING_*: a sequence of pages instead of one request */
    uint32_t page_size;    /* hits per page */
    uint32_t depth;        /* hits to page through: ceil(depth / page_size) pages */
    int pit;               /* search_after inside a point in time (where the cluster has one) */
    int profile;           /* 1 in BF_PROFILE_EVERY requests carries "profile": true */
    int msearch;           /* the path is a multi search API (/_msearch, /_msearch/template):
                              the body is NDJSON header/body pairs and each search in it is
                              counted as one op (bf_search.h) */
    int msearch_retargets; /* an _msearch header names its own index, routing or preference:
                              the cluster's query counters cannot verify it exactly */
} bf_query_spec_t;

/* bf_scenario_path_is_msearch — 1 when a query path (without host) is a multi search API:
 * a "/_msearch" segment followed by the end, '/' (/_msearch/template) or '?'. */
int bf_scenario_path_is_msearch(const char *path);

/* The `search` section: query clients beside the bulk load. */
typedef struct bf_search_spec {
    int enabled;          /* the section is present */
    uint32_t clients;     /* default search clients across the fleet (cell: search_clients) */
    double target_rate;   /* default ops/s across the fleet, 0 = closed loop (cell: search_rate) */
    uint64_t prefill;     /* documents indexed (not measured) into an index the cell creates */
    int recreate;         /* 1: search-only cells recreate their index too; 0 (default): they
                             reuse it when it exists (created and prefilled by an earlier cell) */
    uint64_t warmup_ms;   /* search.warmup: a search-only cell's warmup, when warmup_set */
    int warmup_set;       /* 0: search-only cells warm up for run.warmup */
    uint64_t duration_ms; /* search.duration: a search-only cell's window; 0 = run.duration */
    bf_query_spec_t *queries;
    size_t nqueries; /* 1..BF_MAX_QUERIES */
} bf_search_spec_t;

/* One axis value of one cell, as text for results ("850", "1s", "gzip"). */
typedef struct bf_axis_value {
    const char *axis;  /* borrowed from the scenario: "shards", "settings.refresh_interval" */
    const char *value; /* borrowed from the scenario */
} bf_axis_value_t;

/* A cell: one combination of axis values, fully resolved. Borrowed from its scenario. */
typedef struct bf_cell {
    size_t index;       /* 0-based position in run order */
    const char *id;     /* stable file-name-safe id, e.g. "i1-s2-r0-b500-c4" */
    uint32_t indices;   /* number of indices written to, >= 1 */
    char **index_names; /* `indices` resolved index names */
    uint32_t shards;
    uint32_t replicas;
    uint32_t batch_size;  /* documents per bulk request */
    uint32_t concurrency; /* bulk requests in flight across the fleet; 0 = no indexing (a
                             search-only cell: needs search_clients > 0) */
    enum bf_compression compression;
    enum bf_routing_mode routing_mode; /* request.routing_mode or the routing_mode axis */
    double target_rate;                /* docs/s across the fleet, 0 = closed loop */
    uint32_t search_clients;   /* search clients across the fleet (0 without a search section) */
    double search_rate;        /* search ops/s across the fleet, 0 = closed loop */
    enum bf_action action;     /* document.action as sent (create for data streams) */
    const bf_target_t *target; /* where this cell's bulk and search requests go: the scenario's
                                  target, or the named target (targets:) of the cell's target
                                  axis value; never NULL. The cluster itself (prepare, count,
                                  telemetry) is always reached through the scenario's target. */
    const char *target_name;   /* the targets: name of `target`, or NULL for the target: section */
    uint32_t agents;           /* agents the cell runs on (matrix agents axis, else run.agents);
                                  0 = every connected agent. A cell with fewer requests in flight
                                  (concurrency) than that runs on as many agents as it has
                                  requests (bf_campaign) */
    const char *settings_json; /* complete settings object for index creation: the scenario's
                                  settings merged with the cell's shards, replicas and
                                  settings.* axes, e.g. {"index":{"number_of_shards":2,...}} */
    const bf_axis_value_t *axes; /* every axis of the matrix with this cell's value */
    size_t naxes;
} bf_cell_t;

typedef struct bf_scenario bf_scenario_t; /* opaque; see accessors below */

/* Serves the content of a file named in a scenario (mappings_file, dictionary path, source_file).
 * Returns 0 and a malloc'd buffer the loader takes ownership of, or BF_E_NOTFOUND / BF_E_IO.
 * `path` is as written in the scenario. NULL provider = read from disk relative to the
 * scenario file's directory. */
typedef int (*bf_file_provider_fn)(void *ctx, const char *path, char **data, size_t *len);
/* Lends the content of a file named in a scenario, for a file not to be copied (a vector file):
 * 0 and *data / *len, borrowed, valid while the provider's owner keeps them (at least as long as
 * the loaded scenario lives), or BF_E_NOTFOUND / BF_E_IO. Called with file_provider_ctx. */
typedef int (*bf_file_view_fn)(void *ctx, const char *path, const char **data, size_t *len);

typedef struct bf_load_opts {
    bf_file_provider_fn file_provider; /* NULL: read files from disk */
    bf_file_view_fn file_view;         /* NULL: file_provider serves vector files too */
    void *file_provider_ctx;
    const char *base_dir;  /* for relative paths when reading from disk; NULL = file's dir / cwd */
    int no_env;            /* 1: do not resolve ${VAR} (text already resolved by the coordinator) */
    const char *env_unset; /* non-NULL: the value of a ${VAR} that is not set and has no default
                              (instead of an error); the importers use env_warn instead */
    uint32_t cluster_nodes; /* >0: warn when replicas need more nodes than this */
    int env_warn;           /* 1: an unset ${VAR} without default is a warning naming it, and a
                               stand-in is used ("http://unset.invalid:9200" in target.hosts,
                               "1" for a plain scalar that is only ${VAR}, else "unset-var",
                               the name in lower case so it passes as an index name):
                               validate and plan without secrets (CI); never for run */
    /* validate: non-NULL: the key pass (unknown keys, missing required keys, values of the
     * wrong type or outside their bounds, at any level, in every variables[] and
     * search.queries[] item) reports every error instead of stopping at the first: each one,
     * "file:line:column: message", goes to on_error(on_error_ctx, msg) in file order once the
     * pass is over (msg borrowed for the call; at most 100, then one "<origin>: ... and N
     * more mistakes"), and the load still fails with the first in diag. Every later check
     * of a section without a key mistake runs and reports the same way, in the same list: the
     * variables' own checks (dictionary files, keys their type does not use, repeated
     * names), the target, index and document sections, every matrix value, include and
     * exclude entry and unknown axis, every template placeholder (document.id, routing,
     * pipeline, source, search query bodies), the rendered JSON and each batch_size whose
     * body is too big; a check that needs a failed one is skipped (the matrix needs the
     * targets: names, a body size needs the cells; after key mistakes the matrix makes no
     * cells). NULL: stop at the first error (the coordinator sets it for validate, plan
     * and run alike). */
    void (*on_error)(void *ctx, const char *msg);
    void *on_error_ctx;
    int *keys_failed; /* with on_error, non-NULL: set to 1 when the key pass had mistakes
                         (the sections holding them got no later checks); left alone
                         otherwise */
} bf_load_opts_t;

/* bf_scenario_load_file — read, validate and expand a scenario file.
 * Returns 0 and a new scenario in *out (caller owns, bf_scenario_destroy), or BF_E_INVAL /
 * BF_E_PARSE / BF_E_NOTFOUND / BF_E_TOOBIG / BF_E_IO with diag->msg set to
 * "file:line:column: message". opts may be NULL. Thread-safe (no shared state). */
int bf_scenario_load_file(const char *path, const bf_load_opts_t *opts, bf_scenario_t **out,
                          bf_diag_t *diag);
/* bf_scenario_load_text — as bf_scenario_load_file from a buffer; `origin` names it in
 * messages. */
int bf_scenario_load_text(const char *text, size_t len, const char *origin,
                          const bf_load_opts_t *opts, bf_scenario_t **out, bf_diag_t *diag);
/* bf_scenario_destroy — free everything; NULL-safe; clears *sc_p. */
void bf_scenario_destroy(bf_scenario_t **sc_p);

const char *bf_scenario_name(const bf_scenario_t *sc);
const bf_target_t *bf_scenario_target(const bf_scenario_t *sc);

/* bf_scenario_elastic_serverless — adapt sc to an Elastic Serverless project, found at run
 * (GET / answered version.build_flavor "serverless"; docs/cloud.md "Elastic Cloud Serverless").
 * A project places shards and replicas itself, accepts only the index settings Elastic lists
 * for Serverless (docs/cloud.md gives the list, from Elasticsearch's "Index settings available
 * in Serverless projects") and keeps _nodes, _cluster and _stats private. Refused, with err
 * naming the key and why: shards or replicas chosen by the scenario (matrix.shards,
 * matrix.replicas, number_of_* in index.settings, an include cell's), an index setting (from
 * index.settings or a matrix settings.* axis) not on that list, request.routing_mode node or
 * shard (they read _nodes/http and _cluster/state). Otherwise every cell's number_of_shards and
 * number_of_replicas (bulkfleet's defaults) are removed from its settings and
 * sc's target and every named target (targets:, the same project: the coordinator checks it)
 * are marked (bf_target_managed). Only cells with selected[i] set are checked when
 * selected is not NULL. err: size bytes, always terminated. Returns 0 or BF_E_INVAL. Not
 * thread-safe (changes sc: call before any thread uses it). */
int bf_scenario_elastic_serverless(bf_scenario_t *sc, const uint8_t *selected, char *err,
                                   size_t size);
/* bf_scenario_named_target_count / bf_scenario_named_target — the named host sets of the
 * `targets:` section (docs/scenario.md "Targets and agents as axes"), in the file's order.
 * Target i is a copy of the scenario's target (auth, TLS, headers) with the hosts written
 * under targets.<name>.hosts; *name (may be NULL) receives its name. Both borrowed, valid while
 * sc lives; NULL when i is out of range. Thread-safe (read-only). */
size_t bf_scenario_named_target_count(const bf_scenario_t *sc);
const bf_target_t *bf_scenario_named_target(const bf_scenario_t *sc, size_t i, const char **name);

/* The metrics_store: section's settings (defaults when the section is absent). */
typedef struct bf_metrics_store_opts {
    int allow_target;       /* metrics_store.allow_target: the store may be the target cluster */
    uint64_t flush_wait_ms; /* metrics_store.flush_wait: how long the end of a run waits for
                               the buffered documents (default 10 s) */
    uint64_t buffer_docs;   /* metrics_store.buffer_docs: documents buffered at most (50k) */
} bf_metrics_store_opts_t;

/* bf_scenario_metrics_store — the metrics_store: section as a connection (hosts, auth, TLS,
 * like target; borrowed, valid while sc lives), or NULL when the scenario has none. o (may
 * be NULL) gets its other settings, defaults included. Thread-safe (read-only). */
const bf_target_t *bf_scenario_metrics_store(const bf_scenario_t *sc, bf_metrics_store_opts_t *o);
const bf_index_spec_t *bf_scenario_index(const bf_scenario_t *sc);
const bf_request_spec_t *bf_scenario_request(const bf_scenario_t *sc);
const bf_run_spec_t *bf_scenario_run(const bf_scenario_t *sc);
/* bf_scenario_findings — the findings section (defaults when absent); borrowed from sc. */
const bf_findings_spec_t *bf_scenario_findings(const bf_scenario_t *sc);
/* bf_scenario_findmax — the find_max: section (defaults when absent). Borrowed. */
const bf_findmax_spec_t *bf_scenario_findmax(const bf_scenario_t *sc);
/* bf_scenario_override_run — replace run.warmup, run.first_warmup and/or run.duration (NULL =
 * keep; ms) after loading, for a scaled-down smoke run (`run --warmup 1s --duration 3s`). Each
 * sets its own key only: a shorter --warmup leaves run.first_warmup as written, so the first
 * cell against a fresh cluster still warms its JVM (`--first-warmup` changes that one). Call
 * before the scenario is shared with other threads. Agents take them from Prepare, so the
 * shipped text need not change. */
void bf_scenario_override_run(bf_scenario_t *sc, const uint64_t *warmup_ms,
                              const uint64_t *first_warmup_ms, const uint64_t *duration_ms);
/* bf_scenario_set_warmup — set run.warmup alone (run.first_warmup stays): the campaign gives
 * its first cell run.first_warmup this way and puts run.warmup back after it. Same threading
 * rule as above (agents get the warmup in each Prepare). */
void bf_scenario_set_warmup(bf_scenario_t *sc, uint64_t warmup_ms);
/* bf_scenario_set_duration — set run.duration alone (ms): the campaign gives a search-only cell
 * search.duration this way and puts run.duration back after it. Same threading rule as
 * bf_scenario_set_warmup (agents get the duration in each Prepare). */
void bf_scenario_set_duration(bf_scenario_t *sc, uint64_t duration_ms);
/* bf_scenario_cell_timing — the warmup and duration (ms) a cell runs with: search.warmup and
 * search.duration for a search-only cell (concurrency 0) when they are set, else run.warmup
 * and run.duration (docs/scenario.md "search"). Thread-safe while the scenario is unchanged. */
void bf_scenario_cell_timing(const bf_scenario_t *sc, const bf_cell_t *cell, uint64_t *warmup_ms,
                             uint64_t *duration_ms);
/* bf_scenario_set_seed — set run.seed (and seed_set) when the file left it out, so the
 * campaign picks a fresh seed and records it. Same threading rule as above. */
void bf_scenario_set_seed(bf_scenario_t *sc, uint64_t seed);
/* bf_scenario_seed_fresh — what a run does when the file has no run.seed: pick a fresh seed
 * (wall clock in ns and pid, mixed by splitmix64; < 2^63 so it reads back as YAML) so ids
 * differ between runs, and set it. *seed receives the seed in use either way. Returns 1 when
 * a fresh seed was picked (the caller says so, with the seed, so the run can be repeated),
 * 0 when the file gave one. Same threading rule as above. */
int bf_scenario_seed_fresh(bf_scenario_t *sc, uint64_t *seed);
size_t bf_scenario_cell_count(const bf_scenario_t *sc);
/* bf_scenario_cell — cell i (0-based, run order), borrowed, valid while sc lives; NULL if out
 * of range. */
const bf_cell_t *bf_scenario_cell(const bf_scenario_t *sc, size_t i);
/* bf_scenario_find_cell — the cell with this id, or NULL. */
const bf_cell_t *bf_scenario_find_cell(const bf_scenario_t *sc, const char *cell_id);
/* Matrix axis names in column order (borrowed). */
size_t bf_scenario_axis_count(const bf_scenario_t *sc);
const char *bf_scenario_axis_name(const bf_scenario_t *sc, size_t i);

/* bf_scenario_resolved_text — the scenario as YAML with ${VAR} resolved (secrets included):
 * what the coordinator ships to agents. Borrowed. */
const char *bf_scenario_resolved_text(const bf_scenario_t *sc);
/* bf_scenario_redacted_text — the same with every secret replaced by "<redacted>": what is
 * saved with the results and may be logged. Borrowed. */
const char *bf_scenario_redacted_text(const bf_scenario_t *sc);

/* bf_scenario_search — the search section (enabled 0 when absent). Borrowed. */
const bf_search_spec_t *bf_scenario_search(const bf_scenario_t *sc);

/* Added: the document section and the variables (in the order written). Borrowed. */
const bf_document_spec_t *bf_scenario_document(const bf_scenario_t *sc);
size_t bf_scenario_variable_count(const bf_scenario_t *sc);
const bf_var_spec_t *bf_scenario_variables(const bf_scenario_t *sc); /* array of count */
/* Added: index of the variable with this name, or -1. */
long bf_scenario_variable_find(const bf_scenario_t *sc, const char *name);
/* Added: where the scenario came from (file path or origin given to load_text). Borrowed. */
const char *bf_scenario_origin(const bf_scenario_t *sc);
/* Added: mean bytes of one rendered document (action + source line) measured while loading. */
size_t bf_scenario_doc_bytes(const bf_scenario_t *sc);

/* bf_scenario_corpus — the corpus of document.corpus.path, opened and indexed at load
 * (bf_corpus.h); NULL without a corpus or with corpus.local_path (each agent opens that at
 * Prepare). Borrowed, valid while sc lives; immutable, readable from any thread. */
struct bf_corpus;
const struct bf_corpus *bf_scenario_corpus(const bf_scenario_t *sc);
/* bf_scenario_corpus_edit — the same corpus, to rearrange (bf_corpus_interleave, through
 * bf_run_cfg_t.corpus_edit) by the scenario's owner while no other thread reads it. */
struct bf_corpus *bf_scenario_corpus_edit(bf_scenario_t *sc);

/* Files the scenario reads (dictionaries, source file), for shipping to agents. Every file the
 * loader reads through the file provider is listed (mappings_file and template body_file too),
 * so an agent loading the resolved text with a provider serving exactly these files succeeds. */
typedef struct bf_scenario_file {
    const char *path;  /* as written in the scenario */
    const char *data;  /* content as read, or NULL: a file not read whole (a vector file), */
    const char *local; /* read from `local` on this host a chunk at a time when shipped */
    size_t len;
    int borrowed; /* data is lent by bf_load_opts_t.file_view: not the scenario's to free */
    char sha256_hex[65];
} bf_scenario_file_t;
size_t bf_scenario_file_count(const bf_scenario_t *sc);
const bf_scenario_file_t *bf_scenario_file(const bf_scenario_t *sc, size_t i);

/* Number of warnings the loader produced (e.g. replicas > nodes-1) and each text
 * ("file:line:col: what"; no "warning:" of its own: the printer, bf_warn, adds that once). */
size_t bf_scenario_warning_count(const bf_scenario_t *sc);
const char *bf_scenario_warning(const bf_scenario_t *sc, size_t i);

#endif
