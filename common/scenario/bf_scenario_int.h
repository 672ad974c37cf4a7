/* SPDX-License-Identifier: MIT */
/* bf_scenario_int.h — internals shared by the scenario loader's files and the template compiler.
 *
 * Directory-internal (bf__ prefix): the one table of scenario keys (bf_scenario_keys.c) and
 * its validators (bf_scenario_valid.c), the scenario struct (its accessors: bf_scenario_model.c)
 * and the loader's working state (bf_scenario.c, bf_scenario_matrix.c) with its diagnostics
 * collector (bf_scenario_diag.c), and the hooks the loader uses to check a template with exact
 * file positions (bf_template.c). The loader calls the others; none of them calls the loader
 * (scripts/deps.py). Nothing outside common/scenario/ includes this; the YAML tree it builds on
 * is public (bf_ytree.h).
 */
#ifndef BF_SCENARIO_INT_H
#define BF_SCENARIO_INT_H

#include "bf_buf.h"
#include "bf_error.h"
#include "bf_scenario.h"
#include "bf_template.h"
#include "bf_vars.h"
#include "bf_ytree.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define BF__MAX_DICT_LINE (1u << 20) /* one dictionary line, bytes */
#define BF__MAX_VARIABLES 1024u      /* variables in one scenario */
#define BF__MAX_VECTOR_POOL (256u << 20) /* bytes of one vector variable's pool a thread */
#define BF__MAX_AXES 32u             /* matrix axes */

/* ---- the key table (bf_scenario_keys.c) ---------------------------------------------------- */

enum bf__ktype {
    BF__T_SECTION = 0, /* mapping of keys that are in the table */
    BF__T_STR,         /* string scalar */
    BF__T_BOOL,
    BF__T_U32, /* bounded by min..max */
    BF__T_U64,
    BF__T_I64,
    BF__T_COUNT,      /* "10k", "2M" (bf_units_parse_count), bounded */
    BF__T_DURATION,   /* "30s" (bf_units_parse_duration_ms), bounded, in ms */
    BF__T_ENUM,       /* one of `extra` ("a|b|c") */
    BF__T_STRLIST,    /* list of strings (a single string is a list of one) */
    BF__T_SCALARLIST, /* list of scalars (variables[].data) */
    BF__T_STRMAP,     /* mapping name -> string */
    BF__T_JSONMAP,    /* any mapping, converted to a JSON object */
    BF__T_FILTER,     /* string or true/false (request.filter_path) */
    BF__T_VARLIST,    /* the variables list: each item is a mapping of variables[].* keys */
    BF__T_MATRIX,     /* the matrix: axes (matrix.* rows) plus include / exclude */
    BF__T_AXIS_U32,   /* matrix axis of integers: a list, or one scalar (fixed value) */
    BF__T_AXIS_ENUM,  /* matrix axis of one of `extra` */
    BF__T_AXIS_COUNT, /* matrix axis of counts ("10k") */
    BF__T_AXIS_NAME,  /* matrix axis of names declared elsewhere (matrix.target: targets) */
    BF__T_TARGETS,    /* targets: mapping of names to {hosts: [...]} (build_targets) */
};

#define BF__F_REQUIRED 1u /* must be present when its parent is */
#define BF__F_SECRET 2u   /* redacted (map: every value) */

/* Which variable types a variables[].* key applies to (bit = 1 << bf_var_type). */
#define BF__VM(t) (1u << (t))
#define BF__VM_ALL 0u

struct bf__load;
typedef struct bf__kval bf__kval_t;
/* Extra check of a converted value; returns 0 or a diag error at n. */
typedef int (*bf__kvalidate_fn)(struct bf__load *L, const bf_ynode_t *n, const char *path,
                                bf__kval_t *v);

/* The validators (bf_scenario_valid.c). */
int bf__v_filename(struct bf__load *L, const bf_ynode_t *n, const char *path, bf__kval_t *v);
int bf__v_urls(struct bf__load *L, const bf_ynode_t *n, const char *path, bf__kval_t *v);
/* findings.alpha (0.001-0.2) and findings.noise_band (0-50 %): "0.05", "5%" or "5 %" into v->d
 * as a share */
int bf__v_alpha(struct bf__load *L, const bf_ynode_t *n, const char *path, bf__kval_t *v);
int bf__v_band(struct bf__load *L, const bf_ynode_t *n, const char *path, bf__kval_t *v);
/* run.repeat: a whole number 1-1000 into v->u, or "auto" (v->u = 0, v->b = 1) */
int bf__v_repeat(struct bf__load *L, const bf_ynode_t *n, const char *path, bf__kval_t *v);
/* bf__varname_char — 1 when ch may be part of a variable name (letters, digits, '_', '-', '.'):
 * the rule bf__v_varname checks names by and the template compiler reads $[[name]] by. */
static inline int bf__varname_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_' || ch == '-' || ch == '.';
}
int bf__v_varname(struct bf__load *L, const bf_ynode_t *n, const char *path, bf__kval_t *v);
int bf__v_filter_path(struct bf__load *L, const bf_ynode_t *n, const char *path, bf__kval_t *v);
int bf__v_nonempty(struct bf__load *L, const bf_ynode_t *n, const char *path, bf__kval_t *v);
/* index.name: not empty, and its written text (outside {axis} placeholders) lowercase, without
 * a leading '-', '_' or '+' and without the characters OpenSearch refuses in index names */
int bf__v_index_name(struct bf__load *L, const bf_ynode_t *n, const char *path, bf__kval_t *v);

#define BF__DUR_DAY 86400000.0

/* X(id, path, type, default, min, max, flags, variable-type mask, extra, validator) */
#define BF__KEYS(X)                                                                                \
    X(NAME, "name", BF__T_STR, NULL, 0, 0, BF__F_REQUIRED, 0, NULL, bf__v_filename)                \
    X(TARGET, "target", BF__T_SECTION, NULL, 0, 0, BF__F_REQUIRED, 0, NULL, NULL)                  \
    X(TARGET_HOSTS, "target.hosts", BF__T_STRLIST, NULL, 0, 0, 0, 0, NULL, bf__v_urls)             \
    X(TARGET_CLOUD_ID, "target.cloud_id", BF__T_STR, NULL, 0, 0, 0, 0, NULL, bf__v_nonempty)       \
    X(TARGET_AUTH, "target.auth", BF__T_SECTION, NULL, 0, 0, 0, 0, NULL, NULL)                     \
    X(AUTH_USERNAME, "target.auth.username", BF__T_STR, NULL, 0, 0, 0, 0, NULL, bf__v_nonempty)    \
    X(AUTH_PASSWORD, "target.auth.password", BF__T_STR, NULL, 0, 0, BF__F_SECRET, 0, NULL, NULL)   \
    X(AUTH_API_KEY, "target.auth.api_key", BF__T_STR, NULL, 0, 0, BF__F_SECRET, 0, NULL,           \
      bf__v_nonempty)                                                                              \
    X(AUTH_BEARER, "target.auth.bearer", BF__T_STR, NULL, 0, 0, BF__F_SECRET, 0, NULL,             \
      bf__v_nonempty)                                                                              \
    X(AUTH_AWS, "target.auth.aws", BF__T_SECTION, NULL, 0, 0, 0, 0, NULL, NULL)                    \
    X(AUTH_AWS_REGION, "target.auth.aws.region", BF__T_STR, NULL, 0, 0, BF__F_REQUIRED, 0, NULL,   \
      bf__v_nonempty)                                                                              \
    X(AUTH_AWS_SERVICE, "target.auth.aws.service", BF__T_ENUM, "es", 0, 0, 0, 0, "es|aoss", NULL)  \
    X(AUTH_AWS_KEY_ID, "target.auth.aws.access_key_id", BF__T_STR, NULL, 0, 0, 0, 0, NULL,         \
      bf__v_nonempty)                                                                              \
    X(AUTH_AWS_SECRET, "target.auth.aws.secret_access_key", BF__T_STR, NULL, 0, 0, BF__F_SECRET,   \
      0, NULL, bf__v_nonempty)                                                                     \
    X(AUTH_AWS_TOKEN, "target.auth.aws.session_token", BF__T_STR, NULL, 0, 0, BF__F_SECRET, 0,     \
      NULL, bf__v_nonempty)                                                                        \
    X(AUTH_AWS_SHIP, "target.auth.aws.ship", BF__T_BOOL, "false", 0, 0, 0, 0, NULL, NULL)          \
    X(TARGET_TLS, "target.tls", BF__T_SECTION, NULL, 0, 0, 0, 0, NULL, NULL)                       \
    X(TLS_CA_FILE, "target.tls.ca_file", BF__T_STR, NULL, 0, 0, 0, 0, NULL, bf__v_nonempty)        \
    X(TLS_CERT_FILE, "target.tls.cert_file", BF__T_STR, NULL, 0, 0, 0, 0, NULL, bf__v_nonempty)    \
    X(TLS_KEY_FILE, "target.tls.key_file", BF__T_STR, NULL, 0, 0, 0, 0, NULL, bf__v_nonempty)      \
    X(TLS_INSECURE, "target.tls.insecure", BF__T_BOOL, "false", 0, 0, 0, 0, NULL, NULL)            \
    X(TARGET_HEADERS, "target.headers", BF__T_STRMAP, NULL, 0, 0, BF__F_SECRET, 0, NULL, NULL)     \
    X(TARGET_CONNECT_TIMEOUT, "target.connect_timeout", BF__T_DURATION, "10s", 1, 3600000, 0, 0,   \
      NULL, NULL)                                                                                  \
    X(TARGETS, "targets", BF__T_TARGETS, NULL, 0, 0, 0, 0, NULL, NULL)                             \
    X(METRICS_STORE, "metrics_store", BF__T_SECTION, NULL, 0, 0, 0, 0, NULL, NULL)                 \
    X(MS_HOSTS, "metrics_store.hosts", BF__T_STRLIST, NULL, 0, 0, BF__F_REQUIRED, 0, NULL,         \
      bf__v_urls)                                                                                  \
    X(MS_AUTH, "metrics_store.auth", BF__T_SECTION, NULL, 0, 0, 0, 0, NULL, NULL)                  \
    X(MS_AUTH_USERNAME, "metrics_store.auth.username", BF__T_STR, NULL, 0, 0, 0, 0, NULL,          \
      bf__v_nonempty)                                                                              \
    X(MS_AUTH_PASSWORD, "metrics_store.auth.password", BF__T_STR, NULL, 0, 0, BF__F_SECRET, 0,     \
      NULL, NULL)                                                                                  \
    X(MS_AUTH_API_KEY, "metrics_store.auth.api_key", BF__T_STR, NULL, 0, 0, BF__F_SECRET, 0, NULL, \
      bf__v_nonempty)                                                                              \
    X(MS_AUTH_BEARER, "metrics_store.auth.bearer", BF__T_STR, NULL, 0, 0, BF__F_SECRET, 0, NULL,   \
      bf__v_nonempty)                                                                              \
    X(MS_AUTH_AWS, "metrics_store.auth.aws", BF__T_SECTION, NULL, 0, 0, 0, 0, NULL, NULL)          \
    X(MS_AUTH_AWS_REGION, "metrics_store.auth.aws.region", BF__T_STR, NULL, 0, 0, BF__F_REQUIRED,  \
      0, NULL, bf__v_nonempty)                                                                     \
    X(MS_AUTH_AWS_SERVICE, "metrics_store.auth.aws.service", BF__T_ENUM, "es", 0, 0, 0, 0,         \
      "es|aoss", NULL)                                                                             \
    X(MS_AUTH_AWS_KEY_ID, "metrics_store.auth.aws.access_key_id", BF__T_STR, NULL, 0, 0, 0, 0,     \
      NULL, bf__v_nonempty)                                                                        \
    X(MS_AUTH_AWS_SECRET, "metrics_store.auth.aws.secret_access_key", BF__T_STR, NULL, 0, 0,       \
      BF__F_SECRET, 0, NULL, bf__v_nonempty)                                                       \
    X(MS_AUTH_AWS_TOKEN, "metrics_store.auth.aws.session_token", BF__T_STR, NULL, 0, 0,            \
      BF__F_SECRET, 0, NULL, bf__v_nonempty)                                                       \
    X(MS_TLS, "metrics_store.tls", BF__T_SECTION, NULL, 0, 0, 0, 0, NULL, NULL)                    \
    X(MS_TLS_CA_FILE, "metrics_store.tls.ca_file", BF__T_STR, NULL, 0, 0, 0, 0, NULL,              \
      bf__v_nonempty)                                                                              \
    X(MS_TLS_CERT_FILE, "metrics_store.tls.cert_file", BF__T_STR, NULL, 0, 0, 0, 0, NULL,          \
      bf__v_nonempty)                                                                              \
    X(MS_TLS_KEY_FILE, "metrics_store.tls.key_file", BF__T_STR, NULL, 0, 0, 0, 0, NULL,            \
      bf__v_nonempty)                                                                              \
    X(MS_TLS_INSECURE, "metrics_store.tls.insecure", BF__T_BOOL, "false", 0, 0, 0, 0, NULL, NULL)  \
    X(MS_ALLOW_TARGET, "metrics_store.allow_target", BF__T_BOOL, "false", 0, 0, 0, 0, NULL, NULL)  \
    X(MS_FLUSH_WAIT, "metrics_store.flush_wait", BF__T_DURATION, "10s", 0, 600000, 0, 0, NULL,     \
      NULL)                                                                                        \
    X(MS_BUFFER, "metrics_store.buffer_docs", BF__T_COUNT, "50k", 100, 1e7, 0, 0, NULL, NULL)      \
    X(INDEX, "index", BF__T_SECTION, NULL, 0, 0, 0, 0, NULL, NULL)                                 \
    X(INDEX_NAME, "index.name", BF__T_STR, NULL, 0, 0, 0, 0, NULL, bf__v_index_name)               \
    X(INDEX_IMPORTED_NAME, "index.imported_name", BF__T_STR, NULL, 0, 0, 0, 0, NULL,               \
      bf__v_nonempty)                                                                              \
    X(INDEX_COUNT, "index.count", BF__T_U32, "1", 1, 10000, 0, 0, NULL, NULL)                      \
    X(INDEX_NAMES, "index.names", BF__T_STRLIST, NULL, 0, 0, 0, 0, NULL, NULL)                     \
    X(INDEX_RECREATE, "index.recreate", BF__T_BOOL, "true", 0, 0, 0, 0, NULL, NULL)                \
    X(INDEX_SETTINGS, "index.settings", BF__T_JSONMAP, NULL, 0, 0, 0, 0, NULL, NULL)               \
    X(INDEX_MAPPINGS, "index.mappings", BF__T_JSONMAP, NULL, 0, 0, 0, 0, NULL, NULL)               \
    X(INDEX_MAPPINGS_FILE, "index.mappings_file", BF__T_STR, NULL, 0, 0, 0, 0, NULL,               \
      bf__v_nonempty)                                                                              \
    X(INDEX_DATA_STREAM, "index.data_stream", BF__T_BOOL, NULL, 0, 0, 0, 0, NULL, NULL)            \
    X(INDEX_FORCE_MERGE, "index.force_merge", BF__T_U32, NULL, 1, 100000, 0, 0, NULL, NULL)        \
    X(INDEX_FORCE_MERGE_TIMEOUT, "index.force_merge_timeout", BF__T_DURATION, "1h", 1000,          \
      BF__DUR_DAY, 0, 0, NULL, NULL)                                                               \
    X(INDEX_PIPELINE, "index.pipeline", BF__T_JSONMAP, NULL, 0, 0, 0, 0, NULL, NULL)               \
    X(INDEX_PIPELINE_FILE, "index.pipeline_file", BF__T_STR, NULL, 0, 0, 0, 0, NULL,               \
      bf__v_nonempty)                                                                              \
    X(INDEX_TEMPLATE, "index.template", BF__T_SECTION, NULL, 0, 0, 0, 0, NULL, NULL)               \
    X(TEMPLATE_NAME, "index.template.name", BF__T_STR, NULL, 0, 0, 0, 0, NULL, bf__v_nonempty)     \
    X(TEMPLATE_BODY, "index.template.body", BF__T_JSONMAP, NULL, 0, 0, 0, 0, NULL, NULL)           \
    X(TEMPLATE_BODY_FILE, "index.template.body_file", BF__T_STR, NULL, 0, 0, 0, 0, NULL,           \
      bf__v_nonempty)                                                                              \
    X(VARIABLES, "variables", BF__T_VARLIST, NULL, 0, 0, 0, 0, NULL, NULL)                         \
    X(VAR_NAME, "variables[].name", BF__T_STR, NULL, 0, 0, BF__F_REQUIRED, 0, NULL, bf__v_varname) \
    X(VAR_TYPE, "variables[].type", BF__T_ENUM, NULL, 0, 0, BF__F_REQUIRED, 0,                     \
      "file|list|sequence|sequence64|range|uuid|xid|sortable_id|now_local|now_utc|"                \
      "now_utc_lite|now_unix|now_unix_ms|now_unix_in_ms|now_unix_us|now_unix_in_micro|"            \
      "now_unix_ns|now_unix_in_nano|now_with_format|random_array|vector",                          \
      NULL)                                                                                        \
    X(VAR_SCOPE, "variables[].scope", BF__T_ENUM, "document", 0, 0, 0, 0, "document|request",      \
      NULL)                                                                                        \
    X(VAR_PATH, "variables[].path", BF__T_STR, NULL, 0, 0, 0, BF__VM(BF_VAR_FILE), NULL,           \
      bf__v_nonempty)                                                                              \
    X(VAR_DATA, "variables[].data", BF__T_SCALARLIST, NULL, 0, 0, 0,                               \
      BF__VM(BF_VAR_FILE) | BF__VM(BF_VAR_LIST), NULL, NULL)                                       \
    X(VAR_FROM, "variables[].from", BF__T_I64, NULL, 0, 0, 0,                                      \
      BF__VM(BF_VAR_SEQUENCE) | BF__VM(BF_VAR_RANGE), NULL, NULL)                                  \
    X(VAR_TO, "variables[].to", BF__T_I64, NULL, 0, 0, 0,                                          \
      BF__VM(BF_VAR_SEQUENCE) | BF__VM(BF_VAR_RANGE), NULL, NULL)                                  \
    X(VAR_WRAP, "variables[].wrap", BF__T_BOOL, "true", 0, 0, 0, BF__VM(BF_VAR_SEQUENCE), NULL,    \
      NULL)                                                                                        \
    X(VAR_FORMAT, "variables[].format", BF__T_STR, NULL, 0, 0, 0, BF__VM(BF_VAR_NOW_WITH_FORMAT),  \
      NULL, bf__v_nonempty)                                                                        \
    X(VAR_KEY, "variables[].variable_key", BF__T_STR, NULL, 0, 0, 0, BF__VM(BF_VAR_RANDOM_ARRAY),  \
      NULL, bf__v_nonempty)                                                                        \
    X(VAR_SIZE, "variables[].size", BF__T_U32, "1", 1, 100000, 0, BF__VM(BF_VAR_RANDOM_ARRAY),     \
      NULL, NULL)                                                                                  \
    X(VAR_ITEM_TYPE, "variables[].variable_type", BF__T_ENUM, "number", 0, 0, 0,                   \
      BF__VM(BF_VAR_RANDOM_ARRAY), "number|string", NULL)                                          \
    X(VAR_SQUARE_BRACKET, "variables[].square_bracket", BF__T_BOOL, "false", 0, 0, 0,              \
      BF__VM(BF_VAR_RANDOM_ARRAY), NULL, NULL)                                                     \
    X(VAR_STRING_BRACKET, "variables[].string_bracket", BF__T_STR, "\"", 0, 0, 0,                  \
      BF__VM(BF_VAR_RANDOM_ARRAY), NULL, NULL)                                                     \
    X(VAR_DIMS, "variables[].dims", BF__T_U32, NULL, 1, 16384, 0, BF__VM(BF_VAR_VECTOR), NULL,     \
      NULL)                                                                                        \
    X(VAR_ELEMENT_TYPE, "variables[].element_type", BF__T_ENUM, "float", 0, 0, 0,                  \
      BF__VM(BF_VAR_VECTOR), "float|byte|bit", NULL)                                               \
    X(VAR_DISTRIBUTION, "variables[].distribution", BF__T_ENUM, "uniform", 0, 0, 0,                \
      BF__VM(BF_VAR_VECTOR), "uniform|normal|unit", NULL)                                          \
    X(VAR_ENCODING, "variables[].encoding", BF__T_ENUM, "json", 0, 0, 0, BF__VM(BF_VAR_VECTOR),    \
      "json|base64", NULL)                                                                         \
    X(VAR_BYTE_ORDER, "variables[].byte_order", BF__T_ENUM, "big", 0, 0, 0, BF__VM(BF_VAR_VECTOR), \
      "big|little", NULL)                                                                          \
    X(VAR_PRECISION, "variables[].precision", BF__T_U32, "6", 1, 6, 0, BF__VM(BF_VAR_VECTOR),      \
      NULL, NULL)                                                                                  \
    X(VAR_POOL, "variables[].pool", BF__T_U32, "0", 0, 65536, 0, BF__VM(BF_VAR_VECTOR), NULL,      \
      NULL)                                                                                        \
    X(VAR_FILE, "variables[].file", BF__T_STR, NULL, 0, 0, 0, BF__VM(BF_VAR_VECTOR), NULL,         \
      bf__v_nonempty)                                                                              \
    X(VAR_PASSES, "variables[].passes", BF__T_U32, "0", 0, 1000000, 0, BF__VM(BF_VAR_VECTOR),      \
      NULL, NULL)                                                                                  \
    X(VAR_ROWS, "variables[].rows", BF__T_U32, NULL, 1, 4294967295u, 0, BF__VM(BF_VAR_VECTOR),     \
      NULL, NULL)                                                                                  \
    X(DOCUMENT, "document", BF__T_SECTION, NULL, 0, 0, BF__F_REQUIRED, 0, NULL, NULL)              \
    X(DOC_ACTION, "document.action", BF__T_ENUM, "index", 0, 0, 0, 0,                              \
      "index|create|update|delete", NULL)                                                          \
    X(DOC_UPDATE, "document.update", BF__T_ENUM, NULL, 0, 0, 0, 0, "doc|upsert", NULL)             \
    X(DOC_DELETE_MISSING, "document.delete_missing", BF__T_ENUM, NULL, 0, 0, 0, 0, "ok|fail",      \
      NULL)                                                                                        \
    X(DOC_RETRY_ON_CONFLICT, "document.retry_on_conflict", BF__T_U32, NULL, 0, 100, 0, 0, NULL,    \
      NULL)                                                                                        \
    X(DOC_ID, "document.id", BF__T_STR, NULL, 0, 0, 0, 0, NULL, bf__v_nonempty)                    \
    X(DOC_ROUTING, "document.routing", BF__T_STR, NULL, 0, 0, 0, 0, NULL, bf__v_nonempty)          \
    X(DOC_PIPELINE, "document.pipeline", BF__T_STR, NULL, 0, 0, 0, 0, NULL, bf__v_nonempty)        \
    X(DOC_SOURCE, "document.source", BF__T_STR, NULL, 0, 0, 0, 0, NULL, bf__v_nonempty)            \
    X(DOC_SOURCE_FILE, "document.source_file", BF__T_STR, NULL, 0, 0, 0, 0, NULL, bf__v_nonempty)  \
    X(DOC_CORPUS, "document.corpus", BF__T_SECTION, NULL, 0, 0, 0, 0, NULL, NULL)                  \
    X(CORPUS_PATH, "document.corpus.path", BF__T_STRLIST, NULL, 0, 0, 0, 0, NULL, NULL)            \
    X(CORPUS_LOCAL_PATH, "document.corpus.local_path", BF__T_STRLIST, NULL, 0, 0, 0, 0, NULL,      \
      NULL)                                                                                        \
    X(CORPUS_INDICES, "document.corpus.indices", BF__T_ENUM, "round_robin", 0, 0, 0, 0,            \
      "round_robin|by_file", NULL)                                                                 \
    X(CORPUS_FORMAT, "document.corpus.format", BF__T_ENUM, "source", 0, 0, 0, 0, "source|bulk",    \
      NULL)                                                                                        \
    X(CORPUS_PASSES, "document.corpus.passes", BF__T_STR, "loop", 0, 0, 0, 0, NULL,                \
      bf__v_nonempty)                                                                              \
    X(REQUEST, "request", BF__T_SECTION, NULL, 0, 0, 0, 0, NULL, NULL)                             \
    X(REQ_COMPRESSION, "request.compression", BF__T_ENUM, "none", 0, 0, 0, 0, "none|gzip", NULL)   \
    X(REQ_ROUTING_MODE, "request.routing_mode", BF__T_ENUM, "none", 0, 0, 0, 0, "none|node|shard", \
      NULL)                                                                                        \
    X(REQ_ROUTING_REFRESH, "request.routing_refresh", BF__T_DURATION, "5s", 100, 3600000, 0, 0,    \
      NULL, NULL)                                                                                  \
    X(REQ_GZIP_LEVEL, "request.gzip_level", BF__T_U32, "1", 1, 9, 0, 0, NULL, NULL)                \
    X(REQ_MEDIA_TYPE, "request.media_type", BF__T_ENUM, "default", 0, 0, 0, 0,                     \
      "default|elasticsearch8", NULL)                                                              \
    X(REQ_TRANSFER, "request.transfer", BF__T_ENUM, "auto", 0, 0, 0, 0, "auto|length|chunked",     \
      NULL)                                                                                        \
    X(REQ_TIMEOUT, "request.timeout", BF__T_DURATION, "60s", 1, BF__DUR_DAY, 0, 0, NULL, NULL)     \
    X(REQ_FILTER_PATH, "request.filter_path", BF__T_FILTER, NULL, 0, 0, 0, 0, NULL,                \
      bf__v_filter_path)                                                                           \
    X(REQ_PIPELINE, "request.pipeline", BF__T_STR, NULL, 0, 0, 0, 0, NULL, bf__v_nonempty)         \
    X(REQ_RETRY, "request.retry", BF__T_SECTION, NULL, 0, 0, 0, 0, NULL, NULL)                     \
    X(RETRY_MAX, "request.retry.max", BF__T_U32, "0", 0, 1000, 0, 0, NULL, NULL)                   \
    X(RETRY_BACKOFF, "request.retry.backoff", BF__T_DURATION, "100ms", 0, 3600000, 0, 0, NULL,     \
      NULL)                                                                                        \
    X(RUN, "run", BF__T_SECTION, NULL, 0, 0, 0, 0, NULL, NULL)                                     \
    X(RUN_WARMUP, "run.warmup", BF__T_DURATION, "10s", 0, BF__DUR_DAY, 0, 0, "auto", NULL)         \
    X(RUN_WARMUP_MAX, "run.warmup_max", BF__T_DURATION, "60s", 1000, BF__DUR_DAY, 0, 0, NULL,      \
      NULL)                                                                                        \
    X(RUN_FIRST_WARMUP, "run.first_warmup", BF__T_DURATION, "0s", 0, BF__DUR_DAY, 0, 0, NULL,      \
      NULL)                                                                                        \
    X(RUN_DURATION, "run.duration", BF__T_DURATION, "60s", 1000, 30 * BF__DUR_DAY, 0, 0, NULL,     \
      NULL)                                                                                        \
    X(RUN_REPEAT, "run.repeat", BF__T_STR, "1", 0, 0, 0, 0, NULL, bf__v_repeat)                    \
    X(RUN_UNTIL, "run.until", BF__T_SECTION, NULL, 0, 0, 0, 0, NULL, NULL)                         \
    X(RUN_UNTIL_MIN, "run.until.min_repeat", BF__T_U32, "4", 2, 1000, 0, 0, NULL, NULL)            \
    X(RUN_UNTIL_MAX, "run.until.max_repeat", BF__T_U32, "10", 2, 1000, 0, 0, NULL, NULL)           \
    X(RUN_UNTIL_TIME, "run.until.max_time", BF__T_DURATION, "0s", 0, 30 * BF__DUR_DAY, 0, 0, NULL, \
      NULL)                                                                                        \
    X(RUN_ORDER, "run.order", BF__T_ENUM, "rounds", 0, 0, 0, 0, "rounds|sequential", NULL)         \
    X(RUN_TARGET_RATE, "run.target_rate", BF__T_COUNT, "0", 0, 1e12, 0, 0, NULL, NULL)             \
    X(RUN_AGENTS, "run.agents", BF__T_U32, "0", 0, 100000, 0, 0, NULL, NULL)                       \
    X(RUN_SEED, "run.seed", BF__T_U64, NULL, 0, 0, 0, 0, NULL, NULL)                               \
    X(SEARCH, "search", BF__T_SECTION, NULL, 0, 0, 0, 0, NULL, NULL)                               \
    X(SEARCH_CLIENTS, "search.clients", BF__T_U32, "1", 0, 100000, 0, 0, NULL, NULL)               \
    X(SEARCH_RATE, "search.target_rate", BF__T_COUNT, "0", 0, 1e9, 0, 0, NULL, NULL)               \
    X(SEARCH_PREFILL, "search.prefill", BF__T_COUNT, "0", 0, 1e10, 0, 0, NULL, NULL)               \
    X(SEARCH_RECREATE, "search.recreate", BF__T_BOOL, "false", 0, 0, 0, 0, NULL, NULL)             \
    X(SEARCH_WARMUP, "search.warmup", BF__T_DURATION, NULL, 0, BF__DUR_DAY, 0, 0, NULL, NULL)      \
    X(SEARCH_DURATION, "search.duration", BF__T_DURATION, NULL, 1000, 30 * BF__DUR_DAY, 0, 0,      \
      NULL, NULL)                                                                                  \
    X(SEARCH_QUERIES, "search.queries", BF__T_VARLIST, NULL, 0, 0, BF__F_REQUIRED, 0, NULL, NULL)  \
    X(Q_NAME, "search.queries[].name", BF__T_STR, NULL, 0, 0, BF__F_REQUIRED, 0, NULL,             \
      bf__v_varname)                                                                               \
    X(Q_METHOD, "search.queries[].method", BF__T_ENUM, "POST", 0, 0, 0, 0, "POST|GET", NULL)       \
    X(Q_PATH, "search.queries[].path", BF__T_STR, "/{index}/_search", 0, 0, 0, 0, NULL,            \
      bf__v_nonempty)                                                                              \
    X(Q_BODY, "search.queries[].body", BF__T_STR, NULL, 0, 0, 0, 0, NULL, bf__v_nonempty)          \
    X(Q_WEIGHT, "search.queries[].weight", BF__T_U32, "1", 1, 1000000, 0, 0, NULL, NULL)           \
    X(Q_PROFILE, "search.queries[].profile", BF__T_BOOL, "false", 0, 0, 0, 0, NULL, NULL)          \
    X(Q_PAGING, "search.queries[].paging", BF__T_SECTION, NULL, 0, 0, 0, 0, NULL, NULL)            \
    X(PG_BY, "search.queries[].paging.by", BF__T_ENUM, "from", 0, 0, 0, 0, "from|search_after",    \
      NULL)                                                                                        \
    X(PG_SIZE, "search.queries[].paging.size", BF__T_U32, "10", 1, 10000, 0, 0, NULL, NULL)        \
    X(PG_DEPTH, "search.queries[].paging.depth", BF__T_U32, NULL, 1, 10000000, BF__F_REQUIRED, 0,  \
      NULL, NULL)                                                                                  \
    X(PG_PIT, "search.queries[].paging.pit", BF__T_BOOL, "true", 0, 0, 0, 0, NULL, NULL)           \
    X(FM, "find_max", BF__T_SECTION, NULL, 0, 0, 0, 0, NULL, NULL)                                 \
    X(FM_BATCH_START, "find_max.batch_start", BF__T_U32, "100", 1, 10000000, 0, 0, NULL, NULL)     \
    X(FM_BATCH_MAX, "find_max.batch_max", BF__T_U32, "65536", 1, 10000000, 0, 0, NULL, NULL)       \
    X(FM_MAX_BODY_MB, "find_max.max_body_mb", BF__T_U32, "90", 1, 2047, 0, 0, NULL, NULL)          \
    X(FM_GAIN_PCT, "find_max.gain_pct", BF__T_U32, "5", 1, 100, 0, 0, NULL, NULL)                  \
    X(FM_CONC_START, "find_max.concurrency_start", BF__T_U32, "1", 1, 1000000, 0, 0, NULL, NULL)   \
    X(FM_CONC_MAX, "find_max.concurrency_max", BF__T_U32, "1024", 1, 1000000, 0, 0, NULL, NULL)    \
    X(FM_LATENCY_MAX, "find_max.latency_p99_max", BF__T_DURATION, "0s", 0, BF__DUR_DAY, 0, 0,      \
      NULL, NULL)                                                                                  \
    X(FM_SUSTAIN, "find_max.sustain", BF__T_DURATION, "2m", 1000, BF__DUR_DAY, 0, 0, NULL, NULL)   \
    X(FM_STEP_DOWN_PCT, "find_max.step_down_pct", BF__T_U32, "10", 1, 90, 0, 0, NULL, NULL)        \
    X(FM_SUSTAIN_TRIES, "find_max.sustain_tries", BF__T_U32, "5", 1, 100, 0, 0, NULL, NULL)        \
    X(FM_MAX_TIME, "find_max.max_time", BF__T_DURATION, "1h", 1000, 30 * BF__DUR_DAY, 0, 0, NULL,  \
      NULL)                                                                                        \
    X(FINDINGS, "findings", BF__T_SECTION, NULL, 0, 0, 0, 0, NULL, NULL)                           \
    X(FINDINGS_ALPHA, "findings.alpha", BF__T_STR, "0.05", 0, 0, 0, 0, NULL, bf__v_alpha)          \
    X(FINDINGS_BAND, "findings.noise_band", BF__T_STR, "2%", 0, 0, 0, 0, NULL, bf__v_band)         \
    X(MATRIX, "matrix", BF__T_MATRIX, NULL, 0, 0, 0, 0, NULL, NULL)                                \
    X(AX_INDICES, "matrix.indices", BF__T_AXIS_U32, NULL, 1, 10000, 0, 0, NULL, NULL)              \
    X(AX_SHARDS, "matrix.shards", BF__T_AXIS_U32, "1", 1, 1024, 0, 0, NULL, NULL)                  \
    X(AX_REPLICAS, "matrix.replicas", BF__T_AXIS_U32, "0", 0, 1000, 0, 0, NULL, NULL)              \
    X(AX_BATCH_SIZE, "matrix.batch_size", BF__T_AXIS_U32, "1000", 1, 10000000, 0, 0, NULL, NULL)   \
    X(AX_CONCURRENCY, "matrix.concurrency", BF__T_AXIS_U32, "1", 0, 1000000, 0, 0, NULL, NULL)     \
    X(AX_COMPRESSION, "matrix.compression", BF__T_AXIS_ENUM, NULL, 0, 0, 0, 0, "none|gzip", NULL)  \
    X(AX_ROUTING_MODE, "matrix.routing_mode", BF__T_AXIS_ENUM, NULL, 0, 0, 0, 0,                   \
      "none|node|shard", NULL)                                                                     \
    X(AX_TARGET_RATE, "matrix.target_rate", BF__T_AXIS_COUNT, NULL, 0, 1e12, 0, 0, NULL, NULL)     \
    X(AX_SEARCH_CLIENTS, "matrix.search_clients", BF__T_AXIS_U32, NULL, 0, 100000, 0, 0, NULL,     \
      NULL)                                                                                        \
    X(AX_SEARCH_RATE, "matrix.search_rate", BF__T_AXIS_COUNT, NULL, 0, 1e9, 0, 0, NULL, NULL)      \
    X(AX_TARGET, "matrix.target", BF__T_AXIS_NAME, NULL, 0, 0, 0, 0, NULL, NULL)                   \
    X(AX_AGENTS, "matrix.agents", BF__T_AXIS_U32, NULL, 1, 100000, 0, 0, NULL, NULL)               \
    X(AX_INCLUDE, "matrix.include", BF__T_VARLIST, NULL, 0, 0, 0, 0, NULL, NULL)                   \
    X(AX_EXCLUDE, "matrix.exclude", BF__T_VARLIST, NULL, 0, 0, 0, 0, NULL, NULL)

#define BF__KEY_ID(id, ...) BF__K_##id,
enum bf__key_id { BF__KEYS(BF__KEY_ID) BF__K_COUNT_ };
#undef BF__KEY_ID

typedef struct bf__key {
    const char *path; /* "target.auth.username"; list items use "variables[]." */
    enum bf__ktype type;
    const char *def;    /* default, as text through the same conversion; NULL: none */
    double min, max;    /* bounds of numbers (durations in ms); both 0: unbounded */
    unsigned flags;     /* BF__F_* */
    unsigned var_types; /* variables[].*: types it applies to; 0 = all */
    const char *extra;  /* enum values "a|b|c"; a duration's word that is not a duration
                           ("auto": v->e = 1) */
    bf__kvalidate_fn validate;
} bf__key_t;

extern const bf__key_t bf__keys[BF__K_COUNT_];

/* A key's value as found by the walker (or its default). */
struct bf__kval {
    const bf_ynode_t *key;  /* key node, NULL if absent */
    const bf_ynode_t *node; /* value node, NULL if absent (default applied) */
    int set;                /* present or defaulted */
    const char *s;          /* string value (node's or the default text) */
    uint64_t u;
    int64_t i;
    double d;
    int b;
    int e; /* enum: index into extra */
};

/* Table row for a path, or -1. */
int bf__key_find(const char *path);
/* Parent path of a row ("target.auth" for "target.auth.username"; "" for top level). */
size_t bf__key_parent_len(const char *path);
/* Levenshtein (optimal string alignment) distance, capped at 64 characters per side. */
size_t bf__edit_distance(const char *a, const char *b);
/* The candidate closest to `word` if it is close enough to be a likely typo, else NULL.
 * candidates: `n` strings. */
const char *bf__did_you_mean(const char *word, const char *const *candidates, size_t n);
/* Did-you-mean among the "a|b|c" alternatives of an enum. Writes into buf, returns buf or NULL. */
const char *bf__did_you_mean_alt(const char *word, const char *alts, char *buf, size_t size);
/* Did-you-mean among the table rows whose parent is `parent` (table path). */
const char *bf__did_you_mean_key(const char *word, const char *parent, char *buf, size_t size);
/* Index of `word` among "a|b|c", or -1. */
int bf__enum_index(const char *alts, const char *word);

/* ---- the scenario (bf_scenario.c) ---------------------------------------------------------- */

struct bf_scenario {
    char *origin;
    char *name;
    bf_target_t target;
    bf_target_t *targets; /* targets: named host sets, each a copy of target (auth, TLS,
                             headers borrowed from it) with its own hosts (owned) */
    char **target_names;  /* their names, in the file's order (owned) */
    size_t ntargets;
    bf_target_t metrics_store; /* metrics_store: section (valid if has_metrics_store) */
    int has_metrics_store;
    int metrics_store_allow_target;       /* metrics_store.allow_target */
    uint64_t metrics_store_flush_wait_ms; /* metrics_store.flush_wait */
    uint64_t metrics_store_buffer_docs;   /* metrics_store.buffer_docs */
    bf_index_spec_t index;
    bf_request_spec_t request;
    bf_run_spec_t run;
    bf_findmax_spec_t find_max;
    bf_findings_spec_t findings;
    bf_document_spec_t document;
    bf_search_spec_t search;
    bf_var_spec_t *vars;
    size_t nvars;
    char **axis_names;
    size_t naxes;
    bf_cell_t *cells;
    size_t ncells;
    bf_axis_value_t *cell_axes; /* ncells * naxes, cells point into it */
    char **strings;             /* axis value texts owned by the scenario */
    size_t nstrings, cap_strings;
    bf_scenario_file_t *files;
    size_t nfiles;
    char **warnings;
    size_t nwarnings;
    char *resolved_text;
    char *redacted_text;
    size_t est_doc_bytes;     /* mean bytes per document (both lines) for cell 0 */
    struct bf_corpus *corpus; /* document.corpus.path, opened at load (NULL otherwise) */
    const char
        *placement_key; /* where the scenario chose shards or replicas ("matrix.shards",
                           "matrix.replicas", "index.settings"), or NULL: a service that
                           places shards itself refuses them (bf_scenario_elastic_serverless) */
};

/* An error of the key pass kept for validate's full list (bf__collect). */
#define BF__MAX_COLLECTED 100
typedef struct bf__collected {
    int code;
    char *msg;    /* "origin:line:col: message", owned */
    uint64_t pos; /* line << 20 | col, for the file order (0: no position) */
} bf__collected_t;

/* The loader's working state. */
typedef struct bf__load {
    const bf_load_opts_t *opts;
    bf_diag_t *diag;
    bf_ydoc_t doc;
    const char *origin;
    char *base_dir; /* for relative paths (owned) */
    bf__kval_t top[BF__K_COUNT_];
    bf__kval_t (*var_vals)[BF__K_COUNT_];
    bf__kval_t (*q_vals)[BF__K_COUNT_]; /* search.queries[] items */
    size_t nq;
    const bf_ynode_t **var_nodes;
    size_t nvars;
    bf_scenario_t *sc;
    /* document template texts as found, for mapping errors back to positions */
    const bf_ynode_t *source_node; /* document.source, or NULL */
    const char *source_file_text;  /* content of source_file, or NULL */
    const bf_ynode_t *source_file_node;
    /* per-cell provenance of batch_size and replicas (body-size error, replicas warning) */
    const bf_ynode_t **cell_batch_node;
    const bf_ynode_t **cell_replicas_node;
    /* opts->on_error: the key pass goes on after an error (bf__collect) */
    bf__collected_t *errors; /* the first BF__MAX_COLLECTED, reported in file order */
    size_t nerrors;          /* errors found (may exceed what is kept) */
    int matrix_values_only;  /* validate after mistakes elsewhere: bf__matrix_expand checks
                                the matrix's values, axes and include/exclude, makes no cells */
    int matrix_no_targets;   /* with matrix_values_only: the target(s) section had a mistake,
                                so a target axis's names are not checked against it */
    int matrix_no_search;    /* with matrix_values_only: the search section had a mistake, so
                                the search axes are not refused for want of one */
} bf__load_t;

/* ---- the diagnostics collector (bf_scenario_diag.c) ---- */

/* bf__collect — with opts->on_error set, keep the error just recorded in L->diag (rc) for the
 * end of the key pass (reported there in file order, the first into diag), clear diag and
 * return 1 (go on); without it return 0 (stop at the first error, as before). */
int bf__collect(bf__load_t *L, int rc);
/* bf__gather — one mistake rc (its message in L->diag) of a group of checks that do not need
 * each other: with opts->on_error set it is kept (bf__collect), *first takes the first code
 * kept and BF_OK comes back, so the group goes on with its next check and returns *first at
 * its end (its mistakes said together, not one per fix); without on_error rc comes back (stop
 * at the first). A caller that collects the group's result again finds diag empty: kept. */
int bf__gather(bf__load_t *L, int rc, int *first);
/* bf__report_collected — the end of a key pass that collected errors: each to opts->on_error
 * in file order (then "... and N more mistakes" past BF__MAX_COLLECTED), the first into diag;
 * returns its code. */
int bf__report_collected(bf__load_t *L);

/* Error at node n: "origin:line:col: " + message. Returns `code`. */
int bf__err(bf__load_t *L, const bf_ynode_t *n, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Warning at node n (may be NULL: no position). */
void bf__warn(bf__load_t *L, const bf_ynode_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Keep a string for the scenario's lifetime; returns the kept copy. */
const char *bf__keep(bf_scenario_t *sc, const char *s);

/* Matrix expansion (bf_scenario_matrix.c): axes, cells, index names, settings (with
 * L->matrix_values_only: only the checks of the values, axes and include/exclude entries). */
int bf__matrix_expand(bf__load_t *L);

/* ---- the loader's steps, one file each (all return BF_OK or a BF_E_* code with L->diag set;
 * called from bf_scenario.c's load on the loading thread only) -------------------------------- */

/* Files (bf_scenario_files.c, through bf_file_read). bf__read_ref reads the file a key names
 * (relative to the scenario's folder), kept in the scenario (borrowed from sc->files);
 * bf__read_json_file also parses it as a JSON object (*out: a new reference, caller decrefs). */
int bf__read_ref(bf__load_t *L, const bf_ynode_t *n, const char *key, const char *what,
                 const char *path, size_t cap, const char **data, size_t *len);
int bf__read_json_file(bf__load_t *L, const bf_ynode_t *n, const char *key, const char *what,
                       const char *path, json_t **out);
/* bf__ref_local — the file a key names, not read whole: with a file provider (an agent) lent by
 * its file_view (not copied) or read through it as bf__read_ref (*data set); else listed with its
 * size and SHA-256 (read a block at a time, BF_VECFILE_CHUNK_BYTES) and its path on this host in
 * *local (borrowed from sc->files; *data NULL), read in chunks when it is shipped. cap bounds its
 * size. */
int bf__ref_local(bf__load_t *L, const bf_ynode_t *n, const char *key, const char *what,
                  const char *path, size_t cap, const char **data, size_t *len, const char **local);

/* The key pass (bf_scenario_keywalk.c): walk one mapping against the key table under tpath
 * (table path) / dpath (document path) into vals; fill defaults of the keys not given; check
 * the targets: section's shape. */
int bf__walk_map(bf__load_t *L, const bf_ynode_t *map, const char *tpath, const char *dpath,
                 bf__kval_t *vals, unsigned var_type_mask_ok);
int bf__apply_defaults(bf__load_t *L, bf__kval_t *vals, int items);
int bf__check_targets(bf__load_t *L, const bf_ynode_t *n, const char *dpath);

/* The model builders (bf_scenario_build.c), one per section, in load order. bf__dup_str: a
 * copy of a set string value (caller frees) or NULL. */
char *bf__dup_str(const bf__kval_t *v);
int bf__build_target(bf__load_t *L);
int bf__build_targets(bf__load_t *L);
int bf__build_metrics_store(bf__load_t *L);
int bf__build_index(bf__load_t *L);
int bf__build_variables(bf__load_t *L);
/* bf__build_vector (bf_scenario_vector.c): variables[] entry v of type vector from its key
 * values vv (at: the entry's node, dp: its path for messages, e.g. "variables[2]"): a generated
 * vector's keys, or a vector file checked and opened. Returns 0 or an error with diag (every
 * mistake of a check group said together). */
int bf__build_vector(bf__load_t *L, bf_var_spec_t *v, const bf__kval_t *vv, const bf_ynode_t *at,
                     const char *dp);
int bf__build_document(bf__load_t *L);
int bf__build_request_run(bf__load_t *L);
int bf__check_data_stream(bf__load_t *L);

/* ---- template checks (bf_template.c) ------------------------------------------------------- */

/* Which template text an offset belongs to. */
enum bf__tfield { BF__TF_SOURCE = 0, BF__TF_ID, BF__TF_ROUTING, BF__TF_PIPELINE };

/* Writes "origin:line:col" for an offset into a template field. */
typedef void (*bf__tmpl_locate_fn)(void *ctx, enum bf__tfield field, size_t offset, char *buf,
                                   size_t size);

/* Takes a mistake the template compiler set in its diag (code rc): 1 = kept (the diag is
 * cleared, compiling goes on past the placeholder), 0 = not kept (the compile stops with it). */
typedef int (*bf__tmpl_collect_fn)(void *ctx, int rc);

/* bf__tmpl_compile_loc — bf_tmpl_compile whose messages carry positions from `loc`. With
 * `collect` (validate), every placeholder mistake ($[[ without ]], a name no variable has)
 * goes to it and the compile goes on; when it kept any, the result is BF_E_INVAL with no
 * template and an empty diag. collect NULL: the first mistake ends the compile. */
int bf__tmpl_compile_loc(const bf_scenario_t *sc, bf__tmpl_locate_fn loc, void *loc_ctx,
                         bf__tmpl_collect_fn collect, void *collect_ctx, bf_tmpl_t **out,
                         bf_diag_t *diag);
/* bf__tmpl_check — render `ndocs` documents of `cell` and parse each line with jansson; an
 * invalid line is reported at the template position that produced the offending byte. */
int bf__tmpl_check(const bf_tmpl_t *t, const bf_cell_t *cell, unsigned ndocs,
                   bf__tmpl_locate_fn loc, void *loc_ctx, bf_diag_t *diag);

/* bf__tmpl_compile_body_loc — bf_tmpl_compile_body (ndjson 0) or bf_tmpl_compile_ndjson_body
 * (ndjson 1) with positions from `loc`; `collect` as for bf__tmpl_compile_loc. */
int bf__tmpl_compile_body_loc(const bf_scenario_t *sc, const char *text, const char *what,
                              int ndjson, bf__tmpl_locate_fn loc, void *loc_ctx,
                              bf__tmpl_collect_fn collect, void *collect_ctx, bf_tmpl_t **out,
                              bf_diag_t *diag);
/* bf__tmpl_check_body — render `nbodies` bodies and parse each with jansson (duplicate keys
 * rejected; an NDJSON body line by line, each an object, in header/body pairs); the first
 * invalid one is reported at the template position of the bad byte. */
int bf__tmpl_check_body(const bf_tmpl_t *t, unsigned nbodies, bf__tmpl_locate_fn loc, void *loc_ctx,
                        bf_diag_t *diag);

#endif
