/* SPDX-License-Identifier: MIT */
/* bf_scenario_keywalk.c — the key pass: walk the YAML tree against the key table
 * (BF__KEYS), convert each scalar to its typed value, check bounds and enum values, say
 * unknown keys with a did-you-mean, and fill defaults.
 */
#include "bf_scenario_int.h"

#include "bf_corpus.h"
#include "bf_jsonesc.h"
#include "bf_mem.h"
#include "bf_sha256.h"
#include "bf_template.h"
#include "bf_units.h"
#include "bf_vecfile.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

/* ---- conversion of one key ----------------------------------------------------------------- */

static int bad_type(bf__load_t *L, const bf_ynode_t *n, const char *dpath, const char *want)
{
    if (n->kind == BF_Y_SCALAR)
        return bf__err(L, n, BF_E_INVAL, "%s: expected %s, got '%.80s'", dpath, want, n->value);
    return bf__err(L, n, BF_E_INVAL, "%s: expected %s, got a %s", dpath, want, bf_y_kind_name(n));
}

static int parse_i64(const char *s, int64_t *out)
{
    int neg = s[0] == '-';
    uint64_t u;
    int rc = bf_units_parse_count(s + neg, &u);
    if (rc != BF_OK)
        return rc;
    if (u > (uint64_t)INT64_MAX + (uint64_t)neg)
        return BF_E_RANGE;
    *out = neg ? (int64_t)(0 - u) : (int64_t)u;
    return BF_OK;
}

/* Converts a scalar text (node or default) by row type; n may be NULL (default). */
static int convert_scalar(bf__load_t *L, const bf__key_t *k, const char *dpath, const bf_ynode_t *n,
                          const char *text, bf__kval_t *v)
{
    char buf[64];
    v->s = text;
    switch (k->type) {
    case BF__T_STR: return BF_OK;
    case BF__T_BOOL: {
        bf_ynode_t tmp = {.kind = BF_Y_SCALAR, .value = (char *)text, .len = strlen(text)};
        if (!bf_y_bool(n ? n : &tmp, &v->b))
            return bad_type(L, n, dpath, "true or false");
        return BF_OK;
    }
    case BF__T_U32:
    case BF__T_U64:
    case BF__T_AXIS_U32: {
        uint64_t u;
        uint64_t max = k->type == BF__T_U64 ? UINT64_MAX
                       : k->max > 0         ? (uint64_t)k->max
                                            : UINT32_MAX;
        if (bf_units_parse_count(text, &u) != BF_OK || u < (uint64_t)k->min || u > max) {
            if (k->max > 0) {
                snprintf(buf, sizeof buf, "a whole number from %.0f to %.0f", k->min, k->max);
                return bad_type(L, n, dpath, buf);
            }
            return bad_type(L, n, dpath, "a whole number (like 500 or 10k)");
        }
        v->u = u;
        v->d = (double)u;
        return BF_OK;
    }
    case BF__T_I64:
        if (parse_i64(text, &v->i) != BF_OK)
            return bad_type(L, n, dpath, "a whole number (64-bit)");
        return BF_OK;
    case BF__T_COUNT:
    case BF__T_AXIS_COUNT: {
        uint64_t u;
        if (bf_units_parse_count(text, &u) != BF_OK || (k->max > 0 && (double)u > k->max))
            return bad_type(L, n, dpath, "a rate in documents per second like 5000 or 10k");
        v->u = u;
        v->d = (double)u;
        return BF_OK;
    }
    case BF__T_DURATION: {
        uint64_t ms;
        v->e = 0;
        if (k->extra && strcmp(text, k->extra) == 0) { /* run.warmup: auto */
            v->e = 1;
            v->u = 0;
            return BF_OK;
        }
        if (bf_units_parse_duration_ms(text, &ms) != BF_OK) {
            char sug[64];
            if (n && bf_units_suggest_duration(text, sug, sizeof sug))
                return bf__err(L, n, BF_E_INVAL,
                               "%s: expected a duration like 30s, 5m, 1h30m "
                               "or 250ms, got '%.80s'; did you mean %s?",
                               dpath, text, sug);
            if (k->extra) {
                snprintf(buf, sizeof buf, "a duration like 30s, 5m, 1h30m or 250ms, or %s",
                         k->extra);
                return bad_type(L, n, dpath, buf);
            }
            return bad_type(L, n, dpath, "a duration like 30s, 5m, 1h30m or 250ms");
        }
        if ((double)ms < k->min || (k->max > 0 && (double)ms > k->max)) {
            char lo[32], hi[32];
            bf_units_format_duration_ms((uint64_t)k->min, lo, sizeof lo);
            bf_units_format_duration_ms((uint64_t)k->max, hi, sizeof hi);
            snprintf(buf, sizeof buf, "a duration from %s to %s", lo, hi);
            return bad_type(L, n, dpath, buf);
        }
        v->u = ms;
        return BF_OK;
    }
    case BF__T_ENUM:
    case BF__T_AXIS_ENUM: {
        v->e = bf__enum_index(k->extra, text);
        if (v->e < 0) {
            char alts[512], sug[64];
            size_t j = 0;
            for (const char *p = k->extra; *p && j + 3 < sizeof alts; p++) {
                if (*p == '|') {
                    alts[j++] = ',';
                    alts[j++] = ' ';
                } else {
                    alts[j++] = *p;
                }
            }
            alts[j] = '\0';
            const char *dym = bf__did_you_mean_alt(text, k->extra, sug, sizeof sug);
            if (dym)
                return bf__err(L, n, BF_E_INVAL,
                               "%s: '%.80s' is not one of %s; did you mean "
                               "'%s'?",
                               dpath, text, alts, dym);
            return bf__err(L, n, BF_E_INVAL, "%s: '%.80s' is not one of %s", dpath, text, alts);
        }
        return BF_OK;
    }
    case BF__T_FILTER: {
        bf_ynode_t tmp = {.kind = BF_Y_SCALAR, .value = (char *)text, .len = strlen(text)};
        v->b = -1;
        int b;
        if (bf_y_bool(n ? n : &tmp, &b) && !(n && n->quoted))
            v->b = b;
        return BF_OK;
    }
    default: return BF_OK;
    }
}

int bf__walk_map(bf__load_t *L, const bf_ynode_t *map, const char *tpath, const char *dpath,
                 bf__kval_t *vals, unsigned var_type_mask_ok);

#define BF__MAX_TARGETS 64u /* named host sets in targets: */

/* one named target (the i-th of n): its first mistake, or BF_OK; a key it may not have is
 * said (validate: each of them) and the others checked on */
static int one_target(bf__load_t *L, const bf_ynode_t *n, size_t i, const char *dpath)
{
    const bf_ynode_t *k = n->items[2 * i], *v = n->items[2 * i + 1];
    char where[192];
    snprintf(where, sizeof where, "%s.%.64s", dpath, k->value);
    int ok = k->len > 0 && k->len <= 64;
    for (const char *c = k->value; ok && *c; c++)
        ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
             *c == '_' || *c == '-' || *c == '.';
    if (!ok)
        return bf__err(L, k, BF_E_INVAL,
                       "%s: a target name has 1 to 64 letters, digits, "
                       "'_', '-' or '.' (it names cells and may name indices)",
                       where);
    for (size_t j = 0; j < i; j++)
        if (strcmp(n->items[2 * j]->value, k->value) == 0)
            return bf__err(L, k, BF_E_INVAL, "%s: named twice", where);
    if (v->kind != BF_Y_MAP)
        return bad_type(L, v, where, "a mapping like {hosts: [http://127.0.0.1:9200]}");
    const bf_ynode_t *hosts = NULL;
    for (size_t j = 0; j < v->n; j++) {
        const bf_ynode_t *kk = v->items[2 * j];
        if (strcmp(kk->value, "hosts") == 0) {
            hosts = v->items[2 * j + 1];
            continue;
        }
        int shared = strcmp(kk->value, "auth") == 0 || strcmp(kk->value, "tls") == 0 ||
                     strcmp(kk->value, "headers") == 0;
        size_t d = bf__edit_distance(kk->value, "hosts");
        int rc = shared ? bf__err(L, kk, BF_E_INVAL,
                                  "%s.%s: every named target uses target.%s "
                                  "(one cluster, one set of credentials); write it there",
                                  where, kk->value, kk->value)
                        : bf__err(L, kk, BF_E_INVAL, "%s.%s: unknown key%s", where, kk->value,
                                  d <= 2 ? "; did you mean 'hosts'?"
                                         : " (a named target has hosts only)");
        if (!bf__collect(L, rc))
            return rc;
    }
    snprintf(where, sizeof where, "%s.%.64s.hosts", dpath, k->value);
    if (hosts == NULL)
        return bf__err(L, v, BF_E_INVAL, "%s.%s: missing required key 'hosts'", dpath, k->value);
    if (hosts->kind == BF_Y_SCALAR && bf_y_is_null(hosts))
        return bf__err(L, hosts, BF_E_INVAL,
                       "%s: give at least one URL like "
                       "http://127.0.0.1:9200",
                       where);
    if (hosts->kind != BF_Y_SCALAR && hosts->kind != BF_Y_SEQ)
        return bad_type(L, hosts, where, "a list of URLs");
    for (size_t j = 0; hosts->kind == BF_Y_SEQ && j < hosts->n; j++)
        if (hosts->items[j]->kind != BF_Y_SCALAR || bf_y_is_null(hosts->items[j]))
            return bad_type(L, hosts->items[j], where, "a URL");
    return bf__v_urls(L, hosts, where, NULL);
}

/* targets: {<name>: {hosts: [url, ...]}}: names usable in cell ids and index names, each a
 * mapping with hosts (and nothing else: auth, TLS and headers come from target). validate
 * says every named target's mistakes, not the first target's. */
int bf__check_targets(bf__load_t *L, const bf_ynode_t *n, const char *dpath)
{
    if (n->kind != BF_Y_MAP || n->n == 0)
        return bad_type(L, n, dpath,
                        "a mapping of names to host sets, like {direct: {hosts: "
                        "[http://127.0.0.1:9200]}, gateway: {hosts: [http://127.0.0.1:8080]}}");
    if (n->n > BF__MAX_TARGETS)
        return bf__err(L, n, BF_E_TOOBIG, "%s: more than %u named targets", dpath, BF__MAX_TARGETS);
    for (size_t i = 0; i < n->n; i++) {
        int rc = one_target(L, n, i, dpath);
        if (rc != BF_OK && !bf__collect(L, rc))
            return rc;
    }
    return BF_OK;
}

/* Converts key row `id` at node n (present in the file). */
static int convert(bf__load_t *L, int id, const char *dpath, const bf_ynode_t *n, bf__kval_t *v)
{
    const bf__key_t *k = &bf__keys[id];
    v->node = n;
    v->set = 1;
    int rc = BF_OK;
    switch (k->type) {
    case BF__T_SECTION:
        /* v is vals[id]: a section inside a list item (search.queries[].paging) fills that
         * item's values, not the top level's */
        if (n->kind == BF_Y_SCALAR && bf_y_is_null(n)) /* empty: still check required keys */
            return bf__walk_map(L, n, k->path, dpath, v - id, 0);
        if (n->kind != BF_Y_MAP)
            return bad_type(L, n, dpath, "a mapping of keys");
        return bf__walk_map(L, n, k->path, dpath, v - id, 0);
    case BF__T_STRLIST:
        if (n->kind == BF_Y_SCALAR && !bf_y_is_null(n)) {
            v->s = n->value;
            break;
        }
        if (n->kind != BF_Y_SEQ)
            return bad_type(L, n, dpath, "a list of strings");
        for (size_t i = 0; i < n->n; i++)
            if (n->items[i]->kind != BF_Y_SCALAR || bf_y_is_null(n->items[i]))
                return bad_type(L, n->items[i], dpath, "a string");
        break;
    case BF__T_SCALARLIST:
        if (n->kind != BF_Y_SEQ)
            return bad_type(L, n, dpath, "a list of values");
        for (size_t i = 0; i < n->n; i++)
            if (n->items[i]->kind != BF_Y_SCALAR)
                return bad_type(L, n->items[i], dpath, "a plain value (string or number)");
        break;
    case BF__T_STRMAP:
        if (n->kind == BF_Y_SCALAR && bf_y_is_null(n))
            return BF_OK;
        if (n->kind != BF_Y_MAP)
            return bad_type(L, n, dpath, "a mapping of names to values");
        for (size_t i = 0; i < n->n; i++) {
            bf_ynode_t *val = n->items[2 * i + 1];
            if (val->kind != BF_Y_SCALAR)
                return bad_type(L, val, dpath, "a string value");
            if (k->flags & BF__F_SECRET)
                val->secret = 1;
        }
        break;
    case BF__T_JSONMAP:
        if (n->kind == BF_Y_SCALAR && bf_y_is_null(n))
            return BF_OK;
        if (n->kind != BF_Y_MAP)
            return bad_type(L, n, dpath, "a mapping (written as YAML; it becomes JSON)");
        break;
    case BF__T_TARGETS:
        if (n->kind == BF_Y_SCALAR && bf_y_is_null(n))
            return BF_OK;
        rc = bf__check_targets(L, n, dpath);
        if (rc != BF_OK)
            return rc;
        break;
    case BF__T_VARLIST:
    case BF__T_MATRIX:
        if (n->kind == BF_Y_SCALAR && bf_y_is_null(n))
            return BF_OK;
        if (k->type == BF__T_VARLIST && n->kind != BF_Y_SEQ)
            return bad_type(L, n, dpath, "a list");
        if (k->type == BF__T_MATRIX && n->kind != BF_Y_MAP)
            return bad_type(L, n, dpath, "a mapping of axes (shards: [1, 2], ...)");
        break;
    default:
        if (n->kind != BF_Y_SCALAR)
            return bad_type(L, n, dpath, "a single value");
        if (bf_y_is_null(n)) {
            if (k->flags & BF__F_REQUIRED)
                return bf__err(L, n, BF_E_INVAL, "%s: needs a value", dpath);
            v->set = 0;
            v->node = NULL;
            return BF_OK;
        }
        rc = convert_scalar(L, k, dpath, n, n->value, v);
        if (rc != BF_OK)
            return rc;
        break;
    }
    if (k->flags & BF__F_SECRET && n->kind == BF_Y_SCALAR)
        ((bf_ynode_t *)n)->secret = 1;
    if (k->validate)
        rc = k->validate(L, n, dpath, v);
    return rc;
}

/* Walks one mapping against the rows whose parent is tpath. */
/* Keys of an INFINI loadgen config that users bring along, and where bulkfleet has them
 * (docs/scenario.md, "Coming from loadgen"). tp is the key's path without list indexes. */
static const char *loadgen_key_hint(const char *tp)
{
    static const struct {
        const char *path, *hint;
    } map[] = {
        {"runner", "run: (warmup, duration) and matrix: concurrency: replace runner:, or convert "
                   "the whole file with bulkfleet-coordinator import-loadgen"},
        {"requests", "document: (the bulk action and source) and target: (the URL) replace "
                     "requests:; bulkfleet-coordinator import-loadgen converts a loadgen file"},
        {"statsd", "live metrics are the coordinator's --statsd HOST:PORT (and --metrics-listen "
                   "for Prometheus); remove statsd:"},
        {"env", "write ${NAME} (or ${NAME:-default}) where the value is used; remove env:"},
        {"document.body_repeat_times", "the number of documents per bulk request is "
                                       "matrix: batch_size:"},
        {"run.concurrency", "concurrency is a matrix axis: matrix: concurrency: [N]"},
        {"run.batch_size", "batch size is a matrix axis: matrix: batch_size: [N]"},
        {"run.total_rounds", "a run is bounded by time: run: duration:"},
        {"run.no_warm", "run: warmup: 0s"},
        {"run.default_endpoint", "the URL is target: hosts:"},
        {"run.valid_status_codes_during_warmup", "every answer is counted by class, also during "
                                                 "the warmup; remove it"},
        {"run.reset_context", "every cell starts its variables afresh; remove reset_context:"},
        {"run.assert_invalid", "bulkfleet counts every outcome by class; remove assert_invalid:"},
        {"run.assert_error", "bulkfleet counts every outcome by class; remove assert_error:"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(tp, map[i].path) == 0)
            return map[i].hint;
    return NULL;
}

int bf__walk_map(bf__load_t *L, const bf_ynode_t *map, const char *tpath, const char *dpath,
                 bf__kval_t *vals, unsigned var_type_mask_ok)
{
    char tp[256], dp[320];
    size_t tl = strlen(tpath);
    for (size_t i = 0; i < map->n; i++) {
        const bf_ynode_t *key = map->items[2 * i], *val = map->items[2 * i + 1];
        if (tl)
            snprintf(tp, sizeof tp, "%s.%s", tpath, key->value);
        else
            snprintf(tp, sizeof tp, "%s", key->value);
        if (dpath[0])
            snprintf(dp, sizeof dp, "%s.%s", dpath, key->value);
        else
            snprintf(dp, sizeof dp, "%s", key->value);
        int id = strlen(key->value) < 128 ? bf__key_find(tp) : -1;
        /* matrix axes are keys of the matrix, handled by the expander */
        if (id < 0 || strchr(key->value, '.') != NULL) {
            const char *lg = loadgen_key_hint(tp);
            char sug[64];
            const char *dym = lg ? NULL : bf__did_you_mean_key(key->value, tpath, sug, sizeof sug);
            int rc;
            if (lg)
                rc = bf__err(L, key, BF_E_INVAL, "%s: unknown key (it is loadgen's); %s", dp, lg);
            else if (dym)
                rc = bf__err(L, key, BF_E_INVAL, "%s: unknown key; did you mean '%s'?", dp, dym);
            else
                rc = bf__err(L, key, BF_E_INVAL, "%s: unknown key", dp);
            if (bf__collect(L, rc)) /* validate: on to the next key */
                continue;
            return rc;
        }
        bf__kval_t *v = &vals[id];
        v->key = key;
        int rc = convert(L, id, dp, val, v);
        /* validate goes on; the key stays set (it is there, its value is wrong), so it is not
         * also reported missing, and the load fails after this pass anyway */
        if (rc != BF_OK && !bf__collect(L, rc))
            return rc;
        (void)var_type_mask_ok;
    }
    /* required keys of this level */
    for (int id = 0; id < BF__K_COUNT_; id++) {
        const bf__key_t *k = &bf__keys[id];
        if (!(k->flags & BF__F_REQUIRED) || bf__key_parent_len(k->path) != tl ||
            strncmp(k->path, tpath, tl) != 0 || vals[id].set)
            continue;
        const char *leaf = tl ? k->path + tl + 1 : k->path;
        int rc = dpath[0]
                     ? bf__err(L, map, BF_E_INVAL, "%s: missing required key '%s'", dpath, leaf)
                     : bf__err(L, map, BF_E_INVAL, "missing required key '%s'", leaf);
        if (!bf__collect(L, rc))
            return rc;
    }
    return BF_OK;
}

/* Defaults for rows under `prefix` ("" = everything but variables[] and matrix axes). */
int bf__apply_defaults(bf__load_t *L, bf__kval_t *vals, int items)
{
    for (int id = 0; id < BF__K_COUNT_; id++) {
        const bf__key_t *k = &bf__keys[id];
        int is_item = strncmp(k->path, "variables[].", 12) == 0        ? 1
                      : strncmp(k->path, "search.queries[].", 17) == 0 ? 2
                                                                       : 0;
        if (is_item != items || vals[id].set || k->def == NULL)
            continue;
        if (strncmp(k->path, "matrix.", 7) == 0)
            continue;
        int rc = convert_scalar(L, k, k->path, NULL, k->def, &vals[id]);
        if (rc != BF_OK)
            return rc; /* a bad default in the table: a programmer error */
        vals[id].set = 1;
        vals[id].node = NULL;
    }
    return BF_OK;
}
