/* SPDX-License-Identifier: MIT */
/* bf_import_loadgen.c — INFINI loadgen config -> bulkfleet scenario (see the header for the
 * mapping). The loadgen YAML is read with the scenario loader's YAML tree (positions for
 * errors); the scenario is written as text so it can carry comments (origin, notes).
 */
#include "bf_import_loadgen.h"

#include "bf_import_dsl.h"
#include "bf_import_yaml.h"

#include "bf_cluster.h"
#include "bf_mem.h"
#include "bf_ytree.h"
#include "bf_units.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_NOTES 64

typedef struct imp {
    bf_ydoc_t doc;
    const char *origin;
    bf_diag_t *diag;
    const bf_ynode_t *env;     /* env: section */
    const bf_ynode_t *cfg_env; /* -config's env: section (a DSL file's defaults), or NULL */
    char *notes[MAX_NOTES];
    size_t nnotes;
    char problem[BF_DIAG_MAX]; /* what the output still has wrong (duplicate keys), or "" */
    bf_ydoc_t cfg;             /* -config loadgen.yml beside a DSL file (env, variables, runner) */
    int dsl;                   /* the input was loadgen's DSL */
} imp;

static int ierr(imp *I, const bf_ynode_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int ierr(imp *I, const bf_ynode_t *n, const char *fmt, ...)
{
    char msg[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n)
        return bf_diag_set(I->diag, BF_E_INVAL, "%s:%u:%u: %s", I->origin, n->line, n->col, msg);
    return bf_diag_set(I->diag, BF_E_INVAL, "%s: %s", I->origin, msg);
}

static void note(imp *I, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(imp *I, const char *fmt, ...)
{
    if (I->nnotes >= MAX_NOTES)
        return;
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < I->nnotes; i++) /* each once (a secret named in several places) */
        if (strcmp(I->notes[i], msg) == 0)
            return;
    I->notes[I->nnotes++] = bf_strdup(msg);
}

static const char *sval(const bf_ynode_t *map, const char *key)
{
    const bf_ynode_t *n = bf_y_get(map, key);
    return n && n->kind == BF_Y_SCALAR && !bf_y_is_null(n) ? n->value : NULL;
}

/* 1 when an environment variable's name says it holds a secret (PASSWORD, PASSWD, TOKEN, KEY,
 * SECRET anywhere in it, any case): its env: value is never copied as a default. */
static int secret_name(const char *name)
{
    static const char *const words[] = {"PASSWORD", "PASSWD", "TOKEN", "KEY", "SECRET"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcasestr(name, words[i]))
            return 1;
    return 0;
}

/* $[[env.X]] -> ${X:-default} with the env: section's value as the default (the process
 * environment overrides it at run time, as in loadgen), ${X} when the section has none or X is a
 * secret (a note says to export it); a literal "${" -> "$${". */
static char *conv_env(imp *I, const char *s)
{
    bf_buf_t b;
    bf_buf_init(&b, 0);
    while (*s) {
        if (strncmp(s, "$[[env.", 7) == 0) {
            const char *end = strstr(s + 7, "]]");
            if (end) {
                char name[128];
                size_t nl = (size_t)(end - (s + 7));
                if (nl > 0 && nl < sizeof name) {
                    memcpy(name, s + 7, nl);
                    name[nl] = '\0';
                    const char *def = sval(I->env, name);
                    if (def == NULL)
                        def = sval(I->cfg_env, name);
                    if (secret_name(name)) {
                        bf_buf_appendf(&b, "${%s}", name);
                        note(I,
                             "%s looks like a secret: %sexport %s before running (validate "
                             "and plan check the scenario without it)",
                             name, def ? "its value in the env: section is not copied; " : "",
                             name);
                    } else if (def && !strchr(def, '}')) {
                        bf_buf_appendf(&b, "${%s:-%s}", name, def);
                    } else {
                        bf_buf_appendf(&b, "${%s}", name);
                        if (def == NULL)
                            note(I,
                                 "%s has no default in the config's env: section: export it "
                                 "before running",
                                 name);
                    }
                    s = end + 2;
                    continue;
                }
            }
        }
        if (s[0] == '$' && s[1] == '{') {
            bf_buf_appendz(&b, "$${");
            s += 2;
            continue;
        }
        bf_buf_append(&b, s, 1);
        s++;
    }
    return bf_buf_steal(&b);
}

/* Collects $[[name]] names (excluding env.*) of s into names (deduplicated). */
static void collect_refs(const char *s, char ***names, size_t *n)
{
    while ((s = strstr(s, "$[[")) != NULL) {
        const char *end = strstr(s + 3, "]]");
        if (end == NULL)
            return;
        size_t nl = (size_t)(end - (s + 3));
        if (nl > 0 && nl < 128 && strncmp(s + 3, "env.", 4) != 0) {
            int seen = 0;
            for (size_t i = 0; i < *n && !seen; i++)
                seen = strlen((*names)[i]) == nl && strncmp((*names)[i], s + 3, nl) == 0;
            if (!seen) {
                *names = bf_realloc(*names, (*n + 1) * sizeof **names);
                (*names)[(*n)++] = bf_strndup(s + 3, nl);
            }
        }
        s = end + 2;
    }
}

/* Go time layout -> strftime (the common tokens; see Go's time/format.go std chunks). */
static char *go_layout_to_strftime(imp *I, const char *layout)
{
    static const struct {
        const char *go, *c;
    } map[] = {
        {"January", "%B"}, {"Monday", "%A"}, {"-07:00", "%z"}, {"Z07:00", "%z"}, {"-0700", "%z"},
        {"Z0700", "%z"},   {"2006", "%Y"},   {"Jan", "%b"},    {"Mon", "%a"},    {"MST", "%Z"},
        {"_2", "%e"},      {"01", "%m"},     {"02", "%d"},     {"03", "%I"},     {"04", "%M"},
        {"05", "%S"},      {"06", "%y"},     {"15", "%H"},     {"PM", "%p"},     {"pm", "%P"},
        {"1", "%-m"},      {"2", "%-d"},     {"3", "%-I"},     {"4", "%-M"},     {"5", "%-S"},
    };
    bf_buf_t b;
    bf_buf_init(&b, 0);
    const char *s = layout;
    while (*s) {
        if ((s[0] == '.' || s[0] == ',') && (s[1] == '0' || s[1] == '9')) {
            const char *p = s + 1;
            while (*p == s[1])
                p++;
            note(I,
                 "now_with_format: fractional seconds (%.*s) have no strftime equivalent "
                 "and were dropped; use now_utc_lite for milliseconds",
                 (int)(p - s), s);
            s = p;
            continue;
        }
        int hit = 0;
        for (size_t i = 0; i < sizeof map / sizeof map[0] && !hit; i++) {
            size_t l = strlen(map[i].go);
            if (strncmp(s, map[i].go, l) == 0) {
                bf_buf_appendz(&b, map[i].c);
                s += l;
                hit = 1;
            }
        }
        if (hit)
            continue;
        if (*s == '%')
            bf_buf_appendz(&b, "%%");
        else
            bf_buf_append(&b, s, 1);
        s++;
    }
    return bf_buf_steal(&b);
}

typedef struct var_out {
    const char *name;      /* name in the scenario */
    const bf_ynode_t *src; /* the loadgen variable */
    const char *scope;     /* NULL, "request", "document" */
} var_out;

/* Writes one variable as a flow mapping line. */
static int put_variable(imp *I, bf_buf_t *b, const var_out *v)
{
    const bf_ynode_t *s = v->src;
    const char *type = sval(s, "type");
    if (type == NULL)
        return ierr(I, s, "variable '%s' has no type", v->name);
    const char *t = type;
    if (!strcmp(type, "sequence64"))
        t = "sequence";
    else if (!strcmp(type, "uuid"))
        t = "sortable_id";
    else if (!strcmp(type, "now_unix_in_ms"))
        t = "now_unix_ms";
    else if (!strcmp(type, "now_unix_in_micro"))
        t = "now_unix_us";
    else if (!strcmp(type, "now_unix_in_nano"))
        t = "now_unix_ns";
    else if (!strcmp(type, "int_array_bitmap"))
        return ierr(I, bf_y_get(s, "type"),
                    "variable '%s': type int_array_bitmap (a base64 "
                    "Roaring bitmap) is not supported by bulkfleet",
                    v->name);
    static const char *known[] = {
        "file",        "list",        "sequence",        "range",       "sortable_id",
        "now_local",   "now_utc",     "now_utc_lite",    "now_unix",    "now_unix_ms",
        "now_unix_us", "now_unix_ns", "now_with_format", "random_array"};
    int ok = 0;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        ok |= strcmp(t, known[i]) == 0;
    if (!ok)
        return ierr(I, bf_y_get(s, "type"), "variable '%s': unknown loadgen type '%s'", v->name,
                    type);
    bf_yaml_flow_t f;
    bf_yaml_flow_open(&f, b, 1, NULL);
    bf_yaml_flow_kv(&f, "name", v->name, BF_YQ_SCALAR);
    bf_yaml_flow_kv(&f, "type", t, BF_YQ_RAW);
    if (!strcmp(type, "uuid"))
        note(I,
             "variable '%s': loadgen's uuid is a time-ordered xid; mapped to sortable_id "
             "(use type: uuid for RFC 4122 v4)",
             v->name);
    if (!strcmp(t, "file") || !strcmp(t, "list")) {
        const char *path = sval(s, "path");
        if (path) {
            char *p = conv_env(I, path);
            bf_yaml_flow_kv(&f, "path", p, BF_YQ_SCALAR);
            free(p);
        }
        const bf_ynode_t *data = bf_y_get(s, "data");
        if (data && data->kind == BF_Y_SEQ) {
            const char **items = bf_calloc(data->n + 1, sizeof *items);
            for (size_t i = 0; i < data->n; i++)
                items[i] = data->items[i]->value ? data->items[i]->value : "";
            bf_yaml_flow_key(&f, "data");
            bf_yaml_put_list(b, items, data->n, BF_YQ_SCALAR);
            free(items);
        }
    }
    if (!strcmp(t, "sequence")) {
        const char *from = sval(s, "from"), *to = sval(s, "to");
        int64_t from1 = 0;
        uint64_t u;
        if (from && bf_units_parse_count(from, &u) == BF_OK && u < (uint64_t)INT64_MAX)
            from1 = (int64_t)u;
        bf_yaml_flow_kvf(&f, "from", "%lld", (long long)(from1 + 1));
        if (to && bf_units_parse_count(to, &u) == BF_OK)
            bf_yaml_flow_kvf(
                &f, "to", "%llu",
                (unsigned long long)(u > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : u));
    }
    if (!strcmp(t, "range")) {
        const char *from = sval(s, "from"), *to = sval(s, "to");
        bf_yaml_flow_kv(&f, "from", from ? from : "0", BF_YQ_RAW);
        bf_yaml_flow_kv(&f, "to", to ? to : "0", BF_YQ_RAW);
    }
    if (!strcmp(t, "now_with_format")) {
        const char *fmt = sval(s, "format");
        if (fmt == NULL)
            return ierr(I, s, "variable '%s': now_with_format needs format", v->name);
        char *cf = go_layout_to_strftime(I, fmt);
        bf_yaml_flow_kv(&f, "format", cf, BF_YQ_SCALAR);
        free(cf);
    }
    if (!strcmp(t, "random_array")) {
        const char *key = sval(s, "variable_key"), *size = sval(s, "size"),
                   *vt = sval(s, "variable_type"), *sb = sval(s, "string_bracket");
        const bf_ynode_t *sq = bf_y_get(s, "square_bracket");
        int sqb = 0;
        if (key)
            bf_yaml_flow_kv(&f, "variable_key", key, BF_YQ_SCALAR);
        if (size)
            bf_yaml_flow_kv(&f, "size", size, BF_YQ_RAW);
        if (vt)
            bf_yaml_flow_kv(&f, "variable_type", vt, BF_YQ_SCALAR);
        if (sq && bf_y_bool(sq, &sqb))
            bf_yaml_flow_kv(&f, "square_bracket", sqb ? "true" : "false", BF_YQ_RAW);
        if (sb)
            bf_yaml_flow_kv(&f, "string_bracket", sb, BF_YQ_SCALAR);
    }
    if (bf_y_get(s, "replace"))
        note(I, "variable '%s': replace: dropped; bulkfleet JSON-escapes values itself", v->name);
    if (v->scope)
        bf_yaml_flow_kv(&f, "scope", v->scope, BF_YQ_RAW);
    bf_yaml_flow_close(&f);
    return BF_OK;
}

static const bf_ynode_t *find_var(const bf_ynode_t *vars, const char *name)
{
    if (vars == NULL || vars->kind != BF_Y_SEQ)
        return NULL;
    for (size_t i = 0; i < vars->n; i++) {
        const char *n = sval(vars->items[i], "name");
        if (n && strcmp(n, name) == 0)
            return vars->items[i];
    }
    return NULL;
}

/* Splits "scheme://host[:port][/index]/_bulk[?query]" into base URL and index. */
static int split_url(const char *url, char **base, char **index)
{
    *base = *index = NULL;
    const char *p = strstr(url, "://");
    const char *path = p ? strchr(p + 3, '/') : (url[0] == '/' ? url : NULL);
    if (p == NULL && url[0] != '/')
        return -1;
    if (p)
        *base = path ? bf_strndup(url, (size_t)(path - url)) : bf_strdup(url);
    if (path) {
        const char *q = strchr(path, '?');
        size_t pl = q ? (size_t)(q - path) : strlen(path);
        char *pp = bf_strndup(path, pl);
        char *bulk = strstr(pp, "/_bulk");
        if (bulk && bulk > pp) {
            *bulk = '\0';
            if (pp[1] && !strchr(pp + 1, '/'))
                *index = bf_strdup(pp + 1);
        }
        free(pp);
    }
    return 0;
}

/* Every duplicate key of one body line (an NDJSON object with $[[...]] placeholders, which may
 * stand outside strings as values). jansson's JSON_REJECT_DUPLICATES stops at the first one, and
 * OpenSearch refuses a document with any (strict duplicate detection), so the import lists them
 * all at once: '"a" (characters 12 and 30)', nested keys by their path ("b.x"). Keys are compared
 * as written (escapes not decoded). Appends to out; returns the number found. */
#define DUP_MAX_DEPTH 16
#define DUP_MAX_KEYS 256 /* per object; a larger object is checked up to here */
typedef struct dup_obj {
    int is_obj, want_key;
    size_t nkeys;
    const char *key[DUP_MAX_KEYS];
    size_t klen[DUP_MAX_KEYS], kpos[DUP_MAX_KEYS];
    char path[256];
} dup_obj;

static size_t find_dup_keys(const char *s, bf_buf_t *out, size_t max_listed)
{
    dup_obj *st = bf_calloc(DUP_MAX_DEPTH, sizeof *st);
    int depth = 0;
    size_t ndup = 0;
    const char *last_key = NULL;
    size_t last_len = 0;
    for (size_t i = 0; s[i]; i++) {
        char c = s[i];
        if (c == '{' || c == '[') {
            if (depth >= DUP_MAX_DEPTH)
                break;
            dup_obj *o = &st[depth];
            const dup_obj *up = depth ? &st[depth - 1] : NULL;
            o->is_obj = c == '{';
            o->want_key = o->is_obj;
            o->nkeys = 0;
            /* the prefix of this object's keys ("b." for {"b": {...}}, "c[]." in an array) */
            char path[sizeof o->path] = "";
            if (up && up->is_obj)
                snprintf(path, sizeof path, "%s%.*s%s", up->path, (int)last_len,
                         last_key ? last_key : "", o->is_obj ? "." : "[]");
            else if (up)
                snprintf(path, sizeof path, "%s%s", up->path, o->is_obj ? "." : "[]");
            memcpy(o->path, path, sizeof path);
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth > 0)
                depth--;
        } else if (c == ',' && depth > 0 && st[depth - 1].is_obj) {
            st[depth - 1].want_key = 1;
        } else if (c == '"') {
            size_t start = i + 1, j = start;
            while (s[j] && s[j] != '"')
                j += s[j] == '\\' && s[j + 1] ? 2 : 1;
            dup_obj *o = depth > 0 ? &st[depth - 1] : NULL;
            if (o && o->is_obj && o->want_key) {
                const char *k = s + start;
                size_t kl = j - start;
                o->want_key = 0;
                last_key = k;
                last_len = kl;
                for (size_t m = 0; m < o->nkeys; m++) {
                    if (o->klen[m] != kl || memcmp(o->key[m], k, kl) != 0)
                        continue;
                    if (ndup++ < max_listed)
                        bf_buf_appendf(out, "%s\"%s%.*s\" (characters %zu and %zu)",
                                       out->len ? ", " : "", o->path, (int)kl, k, o->kpos[m],
                                       start);
                    break;
                }
                if (o->nkeys < DUP_MAX_KEYS) {
                    o->key[o->nkeys] = k;
                    o->klen[o->nkeys] = kl;
                    o->kpos[o->nkeys++] = start;
                }
            }
            if (s[j] == '\0')
                break;
            i = j;
        }
    }
    free(st);
    return ndup;
}

/* loadgen's statsd: section (docs/internals/loadgen-compat.md 1.8) is not a scenario key: live
 * metrics are the coordinator's --statsd flag, so the import says the flag to use and how
 * loadgen's keys map (README "Live metrics") instead of dropping the section silently */
static void statsd_note(imp *I, const bf_ynode_t *sd)
{
    const char *host = sval(sd, "host"), *port = sval(sd, "port"), *en = sval(sd, "enabled");
    const char *ns = sval(sd, "namespace"), *proto = sval(sd, "protocol");
    int enabled = en && (strcmp(en, "true") == 0 || strcmp(en, "yes") == 0);
    host = host && host[0] ? host : "127.0.0.1";
    if (strcmp(host, "localhost") == 0)
        host = "127.0.0.1";
    port = port && port[0] ? port : "8125";
    note(I,
         "statsd: %s in loadgen; live metrics are a coordinator flag: run with --statsd %s:%s "
         "(UDP%s; keys start with bulkfleet.%s%s%s: loadgen's request.total is "
         "bulkfleet.docs_sent/docs_ok (documents, not requests), request.<status> is "
         "bulkfleet.request_errors.<class> and doc_errors.<class>, request.duration is "
         "bulkfleet.latency_ms.p50/p90/p99/max)",
         enabled ? "enabled" : "disabled", host, port,
         proto && strcmp(proto, "tcp") == 0 ? " only: loadgen's protocol tcp is not supported" : "",
         ns ? ", not the namespace '" : "", ns ? ns : "", ns ? "'" : "");
}

/* One note per runner: key the config sets, saying what bulkfleet does instead (keys from
 * loadgen's loadgen.yml, loadgen.dsl and docs/getting-started/benchmark.md). */
static void runner_notes(imp *I, const bf_ynode_t *runner)
{
    static const struct {
        const char *key, *what;
    } map[] = {
        {"default_endpoint", NULL},
        {"default_basic_auth", NULL},
        {"total_rounds", "not imported; the run is bounded by run.duration (-d)"},
        {"no_warm", "not imported; bulkfleet probes every host before the first cell and "
                    "measures after run.warmup"},
        {"valid_status_codes_during_warmup",
         "not imported; answers during run.warmup are counted but outside the measured "
         "window"},
        {"log_requests", "not imported; each cell's errors are counted by type and status "
                         "in its row (results/<run>/matrix.json)"},
        {"log_status_codes", "not imported; each row counts the answers by status and error "
                             "type"},
        {"assert_invalid", "not imported; a bulk item that fails is counted as a document "
                           "error by type in the row (no exit code per request)"},
        {"assert_error", "not imported; failed requests are counted by type in the row, "
                         "which then is not verified"},
        {"continue_on_assert_invalid", "not imported (bulkfleet has no assertions to stop at)"},
        {"reset_context", "not imported (bulkfleet keeps no runtime context between runs)"},
        {"disable_header_names_normalizing",
         "not imported; bulkfleet sends header names as written"},
        {"benchmark_only", "not imported"},
        {"duration_in_us", "not imported; latencies are recorded in microseconds anyway"},
    };
    if (runner == NULL || runner->kind != BF_Y_MAP)
        return;
    for (size_t k = 0; k < runner->n; k++) {
        const char *key = runner->items[2 * k]->value;
        if (key == NULL)
            continue;
        const char *what = "not known to bulkfleet's import; not imported";
        for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
            if (strcmp(key, map[i].key) == 0)
                what = map[i].what;
        if (what)
            note(I, "runner.%s: %s", key, what);
    }
}

/* One note per request item key besides request: (assert, register, ...) of an imported request
 * (is_bulk: the bulk one, else a search), naming the request by its place. */
static void request_notes(imp *I, const bf_ynode_t *item, size_t nth, int is_bulk)
{
    if (item == NULL || item->kind != BF_Y_MAP)
        return;
    for (size_t k = 0; k < item->n; k++) {
        const char *key = item->items[2 * k]->value;
        if (key == NULL || strcmp(key, "request") == 0)
            continue;
        if (strcmp(key, "assert") == 0)
            note(I, "request %zu: assert not imported; %s", nth,
                 is_bulk ? "bulkfleet checks every bulk answer item by item (status, errors) "
                           "and verifies each row against the index's _count"
                         : "search answers are counted by status; their bodies are not checked");
        else if (strcmp(key, "register") == 0)
            note(I,
                 "request %zu: register not imported; no request reads an earlier "
                 "answer in bulkfleet (use a variable or a fixed value)",
                 nth);
        else
            note(I, "request %zu: %s not imported", nth, key);
    }
}

/* What import() reads from the loadgen config before it writes the scenario; the steps below
 * fill it in order (each may fail with the loader's file:line:column error) and
 * lg_cleanup() frees it whatever step failed. */
typedef struct lg {
    const bf_ynode_t *vars, *reqs, *runner;
    const bf_ynode_t *cfg_runner; /* -config's runner: (a DSL file's), or NULL */
    const bf_ynode_t *req;        /* the bulk request */
    const bf_ynode_t *body_node;  /* its body: node, for positions */
    size_t nsearch;               /* the other requests that are searches */
    char *lines[8];               /* the body's non-blank lines */
    size_t nlines;
    size_t actions; /* documents in the body: action + source line pairs */
    json_t *action; /* the first action line, parsed */
    const char *act, *id, *routing, *pipeline; /* borrowed from action */
    char *base, *url_index, *index_name;
    uint64_t index_count; /* indices a $[[var]] in _index spreads over, or 0 */
    char **refs;          /* $[[name]]s the body and searches use, and array keys */
    size_t nrefs;
    var_out *vo; /* the variables to write, in loadgen's order */
    size_t nvo;
    uint64_t batch; /* body_repeat_times x actions */
} lg_t;

static void lg_cleanup(lg_t *L)
{
    for (size_t i = 0; i < L->nlines; i++)
        free(L->lines[i]);
    json_decref(L->action);
    free(L->base);
    free(L->url_index);
    free(L->index_name);
    for (size_t i = 0; i < L->nrefs; i++)
        free(L->refs[i]);
    free(L->refs);
    free(L->vo);
}

/* a request whose URL is one of these is imported as a search.queries entry */
static int is_search_url(const char *u)
{
    return u && (strstr(u, "_search") || strstr(u, "_count") || strstr(u, "_msearch"));
}

/* The bulk request: the first with a body whose URL names _bulk, whose body names an
 * _index, or that has no URL; and a note on how many of the others are imported as searches
 *. */
static int pick_bulk_request(imp *I, lg_t *L)
{
    const bf_ynode_t *root = I->doc.root, *reqs = L->reqs;
    if (reqs == NULL || reqs->kind != BF_Y_SEQ || reqs->n == 0)
        return ierr(I, root,
                    "no requests: list; bulkfleet imports the YAML request mode "
                    "(a -run DSL file is not supported)");
    for (size_t i = 0; i < reqs->n && L->req == NULL; i++) {
        const bf_ynode_t *r = bf_y_get(reqs->items[i], "request");
        const char *url = sval(r, "url"), *body = sval(r, "body");
        if (body && ((url && strstr(url, "_bulk")) || strstr(body, "\"_index\"") || url == NULL))
            L->req = r;
    }
    if (L->req == NULL) {
        bf_buf_t seen;
        bf_buf_init(&seen, 0);
        for (size_t i = 0; i < reqs->n && i < 8; i++) {
            const bf_ynode_t *r = bf_y_get(reqs->items[i], "request");
            const char *m = sval(r, "method"), *u = sval(r, "url");
            bf_buf_appendf(&seen, "%s%s %s", i ? ", " : "", m ? m : "GET", u ? u : "(no url)");
        }
        int e = ierr(I, reqs,
                     "no bulk request (a request with a body and a URL ending in "
                     "/_bulk) among the %zu requests (%s%s); bulkfleet measures bulk indexing: "
                     "add a POST /_bulk request whose body holds an action line and a "
                     "document (index set-up such as DELETE or PUT /index is what bulkfleet "
                     "does itself with index.recreate)",
                     reqs->n, seen.data ? seen.data : "", reqs->n > 8 ? ", ..." : "");
        bf_buf_cleanup(&seen);
        return e;
    }
    runner_notes(I, L->runner);
    for (size_t i = 0; i < reqs->n; i++) { /* of the imported ones (the others are named) */
        const bf_ynode_t *r = bf_y_get(reqs->items[i], "request");
        if (r == L->req || is_search_url(sval(r, "url")))
            request_notes(I, reqs->items[i], i + 1, r == L->req);
    }
    for (size_t i = 0; i < reqs->n; i++) {
        const bf_ynode_t *r = bf_y_get(reqs->items[i], "request");
        if (r != L->req && is_search_url(sval(r, "url")))
            L->nsearch++;
    }
    size_t nsearch = L->nsearch;
    if (reqs->n > 1 + nsearch) {
        note(I,
             "%zu requests in the config; the bulk request and %zu search request%s were "
             "imported",
             reqs->n, nsearch, nsearch == 1 ? "" : "s");
        for (size_t i = 0; i < reqs->n; i++) {
            const bf_ynode_t *r = bf_y_get(reqs->items[i], "request");
            const char *u = sval(r, "url"), *m = sval(r, "method");
            if (r == L->req || is_search_url(u))
                continue;
            note(I,
                 "request %zu (%s %s) not imported: only the bulk request and searches "
                 "are%s",
                 i + 1, m ? m : "GET", u ? u : "(no url)",
                 m && (!strcasecmp(m, "DELETE") || !strcasecmp(m, "PUT"))
                     ? " (index set-up: index.recreate: true makes bulkfleet delete and "
                       "create the index before each cell)"
                     : "");
        }
    } else if (nsearch)
        note(I,
             "%zu search request%s imported as search.queries (1 client, closed loop: "
             "loadgen sent them in turn with the bulk request; set search.clients and "
             "matrix: search_clients to size them)",
             nsearch, nsearch == 1 ? "" : "s");
    return BF_OK;
}

/* the _index of a body action line (parsed into *j, caller decrefs), or NULL */
static const char *action_index(const char *line, json_t **j)
{
    *j = json_loads(line, 0, NULL);
    if (json_is_object(*j) && json_object_size(*j) == 1)
        return json_string_value(
            json_object_get(json_object_iter_value(json_object_iter(*j)), "_index"));
    return NULL;
}

/* A note per document of a several-document body that loadgen sends to another index than
 * the first: bulkfleet sends every document to one. */
static void note_other_indices(imp *I, const lg_t *L)
{
    json_t *a0 = NULL;
    const char *ix0 = action_index(L->lines[0], &a0);
    for (size_t i = 2; i < L->nlines; i += 2) {
        json_t *ai = NULL;
        const char *ixi = action_index(L->lines[i], &ai);
        if (ixi && (ix0 == NULL || strcmp(ixi, ix0) != 0))
            note(I,
                 "document %zu of the body goes to index '%s' in loadgen; bulkfleet "
                 "sends every document to '%s' (one scenario per index, or an index "
                 "count, spreads them)",
                 i / 2 + 1, ixi, ix0 ? ix0 : "the first one's");
        json_decref(ai);
    }
    json_decref(a0);
}

/* The body's lines (at most 8 non-blank ones): an action line and a source line at least;
 * notes a body of several documents and every duplicate key of the first pair (the first
 * duplicate is also the import's remaining problem: OpenSearch refuses such documents). */
static int read_body(imp *I, lg_t *L)
{
    const char *body = sval(L->req, "body");
    L->body_node = bf_y_get(L->req, "body");
    for (const char *p = body; *p && L->nlines < 8;) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        size_t k = 0;
        while (k < l && (p[k] == ' ' || p[k] == '\t' || p[k] == '\r'))
            k++;
        if (k < l)
            L->lines[L->nlines++] = bf_strndup(p, l);
        p = nl ? nl + 1 : p + l;
    }
    if (L->nlines < 2)
        return ierr(I, L->body_node,
                    "the body needs an action line and a source line "
                    "(NDJSON: {\"index\":{...}}\\n{...}\\n)");
    for (size_t i = 0; i < L->nlines; i += 2)
        L->actions++;
    if (L->nlines > 2) {
        note(I,
             "the body holds %zu documents; only the first is the template, batch_size "
             "counts all of them",
             L->actions);
        note_other_indices(I, L);
    }
    /* every duplicate key at once (the loader's check after the import names the first) */
    for (int l = 0; l < 2; l++) {
        bf_buf_t dups;
        bf_buf_init(&dups, 0);
        size_t nd = find_dup_keys(L->lines[l], &dups, 12);
        if (nd && I->problem[0] == '\0') {
            snprintf(I->problem, sizeof I->problem,
                     "%s:%u:%u: body: the %s line has %zu duplicate key%s, which OpenSearch "
                     "refuses (every document would fail): %s%s; keep one of each (the "
                     "characters count from the line's first)",
                     I->origin, L->body_node->line, L->body_node->col, l ? "source" : "action", nd,
                     nd == 1 ? "" : "s", dups.data, nd > 12 ? ", ..." : "");
        }
        if (nd) {
            note(I, "the body's %s line repeats %zu key%s: %s%s", l ? "source" : "action", nd,
                 nd == 1 ? "" : "s", dups.data, nd > 12 ? ", ..." : "");
        }
        bf_buf_cleanup(&dups);
    }
    return BF_OK;
}

/* The first action line: index or create (update and delete are refused) and the _index,
 * _id, routing and pipeline it carries; _type is dropped with a note. */
static int read_action(imp *I, lg_t *L, const char **ix)
{
    json_error_t je;
    L->action = json_loads(L->lines[0], 0, &je);
    json_t *meta = NULL;
    if (L->action && json_is_object(L->action) && json_object_size(L->action) == 1) {
        L->act = json_object_iter_key(json_object_iter(L->action));
        meta = json_object_iter_value(json_object_iter(L->action));
    }
    if (L->act == NULL || !json_is_object(meta) ||
        (strcmp(L->act, "index") != 0 && strcmp(L->act, "create") != 0))
        return ierr(I, L->body_node,
                    "the first body line is not an index or create action "
                    "(%s); update and delete are not supported",
                    L->action ? "other action" : je.text);
    *ix = json_string_value(json_object_get(meta, "_index"));
    L->id = json_string_value(json_object_get(meta, "_id"));
    L->routing = json_string_value(json_object_get(meta, "routing"));
    if (L->routing == NULL)
        L->routing = json_string_value(json_object_get(meta, "_routing"));
    L->pipeline = json_string_value(json_object_get(meta, "pipeline"));
    if (json_object_get(meta, "_type"))
        note(I, "_type dropped from the action line (mapping types are gone in OpenSearch and "
                "Elasticsearch 8)");
    return BF_OK;
}

/* target.hosts from the request's URL (a path-only URL takes runner.default_endpoint, none
 * at all ${BF_TARGET}) and the index the URL names, if any. */
static int read_target(imp *I, lg_t *L)
{
    const char *url = sval(L->req, "url");
    if (url == NULL || url[0] == '\0' || url[0] == '/') {
        const char *def = sval(L->runner, "default_endpoint");
        if (def == NULL)
            def = sval(L->cfg_runner, "default_endpoint");
        if (def)
            L->base = conv_env(I, def);
        if (url) {
            char *none = NULL;
            split_url(url, &none, &L->url_index);
            free(none);
        }
    } else {
        char *cu = conv_env(I, url);
        if (split_url(cu, &L->base, &L->url_index) != 0) {
            free(cu);
            return ierr(I, bf_y_get(L->req, "url"), "cannot read the URL '%s'", url);
        }
        free(cu);
    }
    if (L->base == NULL) {
        L->base = bf_strdup("${BF_TARGET:-http://127.0.0.1:9200}");
        note(I, "the config has no URL; target.hosts uses ${BF_TARGET} (default "
                "http://127.0.0.1:9200)");
    }
    return BF_OK;
}

/* An _index with a $[[var]] (ce: env already converted, ph: where "$[[" starts) as an
 * index.name pattern over index.count indices: a range variable's values ({i+from}),
 * otherwise 0-based {i} over a list's length (1 for any other variable); at most 10000. */
static void index_pattern(imp *I, lg_t *L, const char *ix, const char *ce, const char *ph)
{
    const char *end = strstr(ph, "]]");
    char vname[128] = "";
    if (end && (size_t)(end - ph - 3) < sizeof vname) {
        memcpy(vname, ph + 3, (size_t)(end - ph - 3));
        vname[end - ph - 3] = '\0';
    }
    const bf_ynode_t *v = find_var(L->vars, vname);
    const char *vt = v ? sval(v, "type") : NULL;
    uint64_t count = 1, first = 0;
    if (vt && !strcmp(vt, "range")) {
        uint64_t f = 0, t = 0;
        const char *fs = sval(v, "from"), *ts = sval(v, "to");
        if (fs && ts && bf_units_parse_count(fs, &f) == BF_OK &&
            bf_units_parse_count(ts, &t) == BF_OK && t >= f && f <= 1000000000) {
            count = t - f + 1;
            first = f; /* the names are the range's own values: {i+from} */
        }
    } else if (vt && !strcmp(vt, "list")) {
        const bf_ynode_t *d = bf_y_get(v, "data");
        if (d && d->kind == BF_Y_SEQ && d->n)
            count = d->n;
    }
    if (count > 10000)
        count = 10000;
    bf_buf_t nb;
    bf_buf_init(&nb, 0);
    bf_buf_append(&nb, ce, (size_t)(ph - ce));
    if (first)
        bf_buf_appendf(&nb, "{i+%llu}", (unsigned long long)first);
    else
        bf_buf_appendz(&nb, "{i}");
    if (end)
        bf_buf_appendz(&nb, end + 2);
    L->index_name = bf_buf_steal(&nb);
    bf_buf_cleanup(&nb);
    if (vt && !strcmp(vt, "range"))
        note(I,
             "_index '%s' picks an index per document; bulkfleet spreads documents "
             "round-robin over %llu indices named %s: %.*s%llu%s .. %.*s%llu%s as "
             "in loadgen",
             ix, (unsigned long long)count, L->index_name, (int)(ph - ce), ce,
             (unsigned long long)first, end ? end + 2 : "", (int)(ph - ce), ce,
             (unsigned long long)(first + count - 1), end ? end + 2 : "");
    else
        note(I,
             "_index '%s' picks an index per document; bulkfleet spreads documents "
             "round-robin over %llu indices named %s (0-based {i}: index names are "
             "numbered, not the list's values)",
             ix, (unsigned long long)count, L->index_name);
    L->index_count = count;
}

/* index.name: the action line's _index (a pattern when it holds a variable), else the
 * URL's index; neither is an error. */
static int read_index(imp *I, lg_t *L, const char *ix)
{
    if (ix) {
        char *ce = conv_env(I, ix);
        const char *ph = strstr(ce, "$[[");
        if (ph)
            index_pattern(I, L, ix, ce, ph);
        else
            L->index_name = bf_strdup(ce);
        free(ce);
    } else if (L->url_index) {
        L->index_name = bf_strdup(L->url_index);
    } else {
        return ierr(I, L->body_node,
                    "no index: neither the action line's _index nor the URL "
                    "names one");
    }
    return BF_OK;
}

/* The variables the body and the search bodies use, runtime_variables (scope: request) and
 * runtime_body_line_variables (scope: document) aliases resolved to their source variable,
 * and the key variable of each random_array; a name that resolves to no variable is an
 * error. */
static int collect_variables(imp *I, lg_t *L)
{
    const bf_ynode_t *rv = bf_y_get(L->req, "runtime_variables"),
                     *rbl = bf_y_get(L->req, "runtime_body_line_variables");
    collect_refs(L->lines[0], &L->refs, &L->nrefs);
    collect_refs(L->lines[1], &L->refs, &L->nrefs);
    for (size_t i = 0; i < L->reqs->n; i++) { /* the search bodies' variables too */
        const bf_ynode_t *r = bf_y_get(L->reqs->items[i], "request");
        const char *u = sval(r, "url"), *b = sval(r, "body");
        if (r != L->req && u && b && (strstr(u, "_search") || strstr(u, "_count")))
            collect_refs(b, &L->refs, &L->nrefs);
    }
    for (size_t i = 0; i < L->nrefs; i++) {
        const char *alias_src = NULL, *scope = NULL;
        if (rv && (alias_src = sval(rv, L->refs[i])) != NULL)
            scope = "request";
        else if (rbl && (alias_src = sval(rbl, L->refs[i])) != NULL)
            scope = "document";
        const bf_ynode_t *src = find_var(L->vars, alias_src ? alias_src : L->refs[i]);
        if (src == NULL) {
            if (alias_src)
                return ierr(I, L->body_node,
                            "$[[%s]] in the body is an alias of '%s', which "
                            "names no variable",
                            L->refs[i], alias_src);
            return ierr(I, L->body_node, "$[[%s]] in the body names no variable", L->refs[i]);
        }
        L->vo = bf_realloc(L->vo, (L->nvo + 2) * sizeof *L->vo);
        L->vo[L->nvo++] = (var_out){.name = L->refs[i], .src = src, .scope = scope};
        const char *st = sval(src, "type");
        if (st && !strcmp(st, "random_array")) {
            const char *key = sval(src, "variable_key");
            int have = 0;
            for (size_t k = 0; k < L->nrefs && key; k++)
                have |= strcmp(L->refs[k], key) == 0;
            if (key && !have) {
                L->refs = bf_realloc(L->refs, (L->nrefs + 1) * sizeof *L->refs);
                L->refs[L->nrefs++] = bf_strdup(key);
            }
        }
    }
    return BF_OK;
}

/* loadgen's order for the variables written: each variable of variables:, then the aliases
 * drawn from it; and a note naming the variables the body does not use (left out). */
static void order_variables(imp *I, lg_t *L)
{
    const bf_ynode_t *vars = L->vars;
    var_out *vo = L->vo;
    size_t nvo = L->nvo;
    if (vars && vars->kind == BF_Y_SEQ && nvo > 1) {
        var_out *sorted = bf_malloc(nvo * sizeof *sorted);
        size_t k = 0;
        for (size_t i = 0; i < vars->n; i++)
            for (int alias = 0; alias < 2; alias++)
                for (size_t j = 0; j < nvo; j++)
                    if (vo[j].src == vars->items[i] && (vo[j].scope != NULL) == alias)
                        sorted[k++] = vo[j];
        if (k == nvo)
            memcpy(vo, sorted, nvo * sizeof *vo);
        free(sorted);
    }
    if (vars && vars->kind == BF_Y_SEQ) {
        bf_buf_t dropped;
        bf_buf_init(&dropped, 0);
        for (size_t i = 0; i < vars->n; i++) {
            const char *n = sval(vars->items[i], "name");
            int used = 0;
            for (size_t k = 0; k < nvo && n && !used; k++)
                used = vo[k].src == vars->items[i];
            if (n && !used)
                bf_buf_appendf(&dropped, "%s%s", dropped.len ? ", " : "", n);
        }
        if (dropped.len)
            note(I, "variables not used by the body were left out: %s", dropped.data);
        bf_buf_cleanup(&dropped);
    }
}

/* batch_size = body_repeat_times (a positive count, default 1) x the body's documents; notes
 * for execute_repeat_times and runner.total_rounds, which are not imported. */
static int read_numbers(imp *I, lg_t *L)
{
    uint64_t repeat = 1;
    const char *brt = sval(L->req, "body_repeat_times");
    if (brt && (bf_units_parse_count(brt, &repeat) != BF_OK || repeat == 0))
        return ierr(I, bf_y_get(L->req, "body_repeat_times"),
                    "body_repeat_times must be a "
                    "positive number");
    L->batch = repeat * L->actions;
    if (sval(L->req, "execute_repeat_times"))
        note(I, "execute_repeat_times (resending the same body) is not imported; bulkfleet "
                "renders a fresh body per request");
    return BF_OK;
}

/* The scenario's name: --name, else the config's file name without its extension, every
 * character other than [A-Za-z0-9._-] made '-', prefixed "imported" when it would be empty or
 * start with '.' or '-'. Caller frees. */
static char *scenario_name(const char *given, const char *origin)
{
    if (given)
        return bf_strdup(given);
    const char *slash = strrchr(origin, '/');
    const char *fn = slash ? slash + 1 : origin;
    const char *dot = strrchr(fn, '.');
    char *name = bf_strndup(fn, dot && dot > fn ? (size_t)(dot - fn) : strlen(fn));
    for (char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '_' || *p == '.'))
            *p = '-';
    if (name[0] == '\0' || name[0] == '.' || name[0] == '-') {
        char *n2 = bf_asprintf("imported%s", name);
        free(name);
        name = n2;
    }
    return name;
}

/* name: and target: (hosts, auth with the password never copied unless it is an
 * $[[env.X]], headers, tls for https). */
static void write_target(imp *I, const lg_t *L, const bf_import_opts_t *o, bf_buf_t *out)
{
    char *name = scenario_name(o ? o->name : NULL, I->origin);
    bf_yaml_kv(out, 0, "name", name, BF_YQ_SCALAR);
    free(name);
    bf_yaml_map(out, 0, "target");
    bf_yaml_key(out, 1, "hosts");
    bf_yaml_put_list(out, (const char *const[]){L->base}, 1, BF_YQ_SCALAR);
    bf_buf_appendz(out, "\n");
    const bf_ynode_t *ba = bf_y_get(L->req, "basic_auth");
    if (ba == NULL && L->runner)
        ba = bf_y_get(L->runner, "default_basic_auth");
    if (ba == NULL)
        ba = bf_y_get(L->cfg_runner, "default_basic_auth");
    if (ba && ba->kind == BF_Y_MAP && sval(ba, "username")) {
        char *user = conv_env(I, sval(ba, "username"));
        const char *pw = sval(ba, "password");
        char *pwc = pw && strstr(pw, "$[[env.") ? conv_env(I, pw) : bf_strdup("${ES_PASSWORD}");
        bf_yaml_flow_t f;
        bf_yaml_flow_open(&f, out, 1, "auth");
        bf_yaml_flow_kv(&f, "username", user, BF_YQ_SCALAR);
        bf_yaml_flow_kv(&f, "password", pwc, BF_YQ_SCALAR);
        bf_yaml_flow_close(&f);
        if (pw == NULL || strstr(pw, "$[[env.") == NULL)
            note(I, "the password is not copied: export ES_PASSWORD before running");
        free(user);
        free(pwc);
    }
    const bf_ynode_t *hd = bf_y_get(L->req, "headers");
    if (hd && hd->kind == BF_Y_SEQ && hd->n) {
        bf_yaml_map(out, 1, "headers");
        for (size_t i = 0; i < hd->n; i++) {
            const bf_ynode_t *h = hd->items[i];
            if (h->kind != BF_Y_MAP)
                continue;
            for (size_t k = 0; k < h->n; k++) {
                char *hv =
                    conv_env(I, h->items[2 * k + 1]->value ? h->items[2 * k + 1]->value : "");
                bf_yaml_kv(out, 2, h->items[2 * k]->value, hv, BF_YQ_SCALAR);
                free(hv);
            }
        }
    }
    if (L->base && strncmp(L->base, "https://", 8) == 0)
        bf_yaml_kvf(
            out, 1, "tls",
            "{insecure: true}   # loadgen never verifies certificates; prefer ca_file: ...");
}

/* index: (recreate false: the index is the user's, as in loadgen) and variables:, with the
 * random_array sources the body does not name directly after the others. */
static int write_index_and_variables(imp *I, const lg_t *L, bf_buf_t *out)
{
    bf_yaml_map(out, 0, "index");
    bf_yaml_kv(out, 1, "name", L->index_name, BF_YQ_SCALAR);
    /* the config's own name (not one from ${VAR}: that value is chosen where the scenario
     * runs, and validate judges it): marked, so validate and plan leave it to this note */
    if (strstr(L->index_name, "${") == NULL) {
        bf_yaml_kv(out, 1, "imported_name", L->index_name, BF_YQ_SCALAR);
        if (bf_cluster_production_like(L->index_name))
            note(I,
                 "index.name %s is the loadgen config's and looks like a production index "
                 "name: bulkfleet writes into an existing %s as loadgen did (recreate: false), "
                 "so make sure target.hosts is a test cluster; index.imported_name marks it as "
                 "the config's, so validate and plan do not warn about it (they do once "
                 "index.name is changed)",
                 L->index_name, L->index_name);
    }
    if (L->index_count > 1)
        bf_yaml_kvf(out, 1, "count", "%llu", (unsigned long long)L->index_count);
    bf_yaml_kv(out, 1, "recreate", "false", BF_YQ_RAW);
    if (L->nvo == 0)
        return BF_OK;
    int rc = BF_OK;
    bf_yaml_map(out, 0, "variables");
    for (size_t i = 0; i < L->nvo && rc == BF_OK; i++)
        rc = put_variable(I, out, &L->vo[i]);
    /* random_array sources not referenced directly */
    for (size_t i = 0; i < L->nrefs && rc == BF_OK; i++) {
        int have = 0;
        for (size_t k = 0; k < L->nvo && !have; k++)
            have = strcmp(L->vo[k].name, L->refs[i]) == 0;
        const bf_ynode_t *src = find_var(L->vars, L->refs[i]);
        if (!have && src) {
            var_out extra = {.name = L->refs[i], .src = src};
            rc = put_variable(I, out, &extra);
        }
    }
    return rc;
}

/* document: (action, id, routing, pipeline, the source line as the template) and request:
 * (compression as -compress says, at gzip level 1). */
static void write_document(imp *I, const lg_t *L, const bf_import_opts_t *o, bf_buf_t *out)
{
    bf_yaml_map(out, 0, "document");
    bf_yaml_kv(out, 1, "action", L->act, BF_YQ_RAW);
    const char *fields[] = {"id", "routing", "pipeline"};
    const char *fvals[] = {L->id, L->routing, L->pipeline};
    for (int k = 0; k < 3; k++) {
        if (fvals[k] == NULL)
            continue;
        char *cv = conv_env(I, fvals[k]);
        bf_yaml_kv(out, 1, fields[k], cv, BF_YQ_SCALAR);
        free(cv);
    }
    char *src = conv_env(I, L->lines[1]);
    bf_yaml_kv(out, 1, "source", src, BF_YQ_SCALAR);
    free(src);
    bf_yaml_map(out, 0, "request");
    bf_yaml_kv(out, 1, "compression", o && o->compress ? "gzip" : "none", BF_YQ_RAW);
    if (o && o->compress)
        bf_yaml_kvf(out, 1, "gzip_level",
                    "1   # loadgen compresses at level 9 (CPU-heavy on the client)");
}

/* search: the other requests with a search URL as search.queries search_1.., each path
 * without scheme and host and the bulk index's name in it as {index}. */
static void write_searches(imp *I, const lg_t *L, bf_buf_t *out)
{
    if (L->nsearch == 0)
        return;
    bf_yaml_map(out, 0, "search");
    bf_yaml_kv(out, 1, "clients", "1", BF_YQ_RAW);
    bf_yaml_map(out, 1, "queries");
    size_t k = 0;
    for (size_t i = 0; i < L->reqs->n; i++) {
        const bf_ynode_t *r = bf_y_get(L->reqs->items[i], "request");
        const char *u = sval(r, "url"), *b = sval(r, "body"), *m = sval(r, "method");
        if (r == L->req || !is_search_url(u))
            continue;
        /* the path without scheme and host; the bulk index becomes {index} */
        char *cu = conv_env(I, u);
        const char *path = strstr(cu, "://");
        path = path ? strchr(path + 3, '/') : cu;
        bf_buf_t pb;
        bf_buf_init(&pb, 0);
        if (path == NULL || path[0] != '/')
            bf_buf_appendz(&pb, "/");
        bf_buf_appendz(&pb, path ? path : "");
        size_t il = L->index_name ? strlen(L->index_name) : 0;
        if (il && strncmp(pb.data + 1, L->index_name, il) == 0 && pb.data[1 + il] == '/') {
            char *rest = bf_strdup(pb.data + 1 + il);
            bf_buf_reset(&pb);
            bf_buf_appendf(&pb, "/{index}%s", rest);
            free(rest);
        }
        bf_yaml_item_kvf(out, 2, "name", "search_%zu", ++k);
        if (m && (strcmp(m, "GET") == 0 || strcmp(m, "get") == 0))
            bf_yaml_kv(out, 3, "method", "GET", BF_YQ_RAW);
        bf_yaml_kv(out, 3, "path", pb.data, BF_YQ_SCALAR);
        if (b && b[0]) {
            char *cb = conv_env(I, b);
            bf_yaml_kv(out, 3, "body", cb, BF_YQ_SCALAR);
            free(cb);
        }
        bf_buf_cleanup(&pb);
        free(cu);
    }
}

/* run: (10 s warmup, -d seconds, -r as target_rate in documents/s) and matrix: (one cell:
 * the batch and -c concurrency). */
static void write_run(const lg_t *L, const bf_import_opts_t *o, bf_buf_t *out)
{
    uint32_t conc = o && o->concurrency ? o->concurrency : 1;
    uint32_t dur = o && o->duration_s ? o->duration_s : 5;
    bf_yaml_map(out, 0, "run");
    bf_yaml_kv(out, 1, "warmup", "10s", BF_YQ_RAW);
    bf_yaml_kvf(out, 1, "duration", "%us", dur);
    if (o && o->qps > 0)
        bf_yaml_kvf(out, 1, "target_rate", "%.0f   # -r %.0f requests/s x %llu documents",
                    o->qps * (double)L->batch, o->qps, (unsigned long long)L->batch);
    bf_yaml_map(out, 0, "matrix");
    bf_yaml_kvf(out, 1, "batch_size", "[%llu]", (unsigned long long)L->batch);
    bf_yaml_kvf(out, 1, "concurrency", "[%u]", conc);
}

/* The header comment (origin and every note, collected while the body was read and
 * written), then the body. */
static void write_head(const imp *I, const bf_buf_t *body, bf_buf_t *head)
{
    bf_yaml_comment(head, "Imported from %s by bulkfleet-coordinator import-loadgen.", I->origin);
    bf_yaml_comment(head, "Notes:");
    bf_yaml_note(head, "the index belongs to you: recreate is false, so bulkfleet writes into it "
                       "as loadgen did; set recreate: true and add shards / replicas axes under "
                       "matrix: to let bulkfleet create one index per cell.");
    bf_yaml_note(head, "warmup: 10s is added before the measured duration (loadgen only sends "
                       "one warm-up request).");
    for (size_t i = 0; i < I->nnotes; i++)
        bf_yaml_note(head, "%s", I->notes[i]);
    bf_buf_append(head, body->data ? body->data : "", body->len);
}

/* The loadgen config in I->doc as scenario text appended to head: read (each step may fail
 * with a positioned error), then write; notes go to the header in the order they were
 * made. */
static int import(imp *I, const bf_import_opts_t *o, bf_buf_t *head)
{
    const bf_ynode_t *root = I->doc.root, *cfg = I->cfg.root;
    /* a section the file lacks comes from -config's loadgen.yml, as loadgen reads them */
    I->env = bf_y_get(root, "env");
    I->cfg_env = bf_y_get(cfg, "env");
    if (bf_y_get(root, "statsd"))
        statsd_note(I, bf_y_get(root, "statsd"));
    lg_t L = {.vars = bf_y_get(root, "variables"),
              .reqs = bf_y_get(root, "requests"),
              .runner = bf_y_get(root, "runner"),
              .cfg_runner = bf_y_get(cfg, "runner")};
    if (L.vars == NULL && (L.vars = bf_y_get(cfg, "variables")) != NULL)
        note(I, "the variables are %s's", I->cfg.origin);
    if (L.runner == NULL)
        L.runner = L.cfg_runner;
    if (I->dsl)
        note(I, "read from loadgen's DSL (-run) through its YAML form (loadgen.yml's "
                "requests: list)");
    bf_buf_t body;
    bf_buf_init(&body, 0);
    const char *ix = NULL;
    int rc = pick_bulk_request(I, &L);
    if (rc == BF_OK)
        rc = read_body(I, &L);
    if (rc == BF_OK)
        rc = read_action(I, &L, &ix);
    if (rc == BF_OK)
        rc = read_target(I, &L);
    if (rc == BF_OK)
        rc = read_index(I, &L, ix);
    if (rc == BF_OK)
        rc = collect_variables(I, &L);
    if (rc == BF_OK) {
        order_variables(I, &L);
        rc = read_numbers(I, &L);
    }
    if (rc == BF_OK) {
        write_target(I, &L, o, &body);
        rc = write_index_and_variables(I, &L, &body);
    }
    if (rc == BF_OK) {
        write_document(I, &L, o, &body);
        write_searches(I, &L, &body);
        write_run(&L, o, &body);
        write_head(I, &body, head);
    }
    bf_buf_cleanup(&body);
    lg_cleanup(&L);
    return rc;
}

int bf_import_loadgen(const char *text, size_t len, const char *origin,
                      const bf_import_opts_t *opts, char **yaml_out, bf_diag_t *diag)
{
    *yaml_out = NULL;
    imp I = {.origin = origin ? origin : "loadgen.yml", .diag = diag};
    bf_buf_t dsl;
    bf_buf_init(&dsl, 0);
    char dsl_origin[600];
    int rc = BF_OK;
    if (bf__import_dsl_detect(text, len, origin)) {
        /* the DSL (loadgen -run) is read through its YAML form; messages name that form */
        rc = bf__import_dsl_to_yaml(text, len, I.origin, &dsl, diag);
        snprintf(dsl_origin, sizeof dsl_origin, "%s (in its YAML form)", I.origin);
        I.origin = dsl_origin;
        I.dsl = 1;
        text = dsl.data ? dsl.data : "";
        len = dsl.len;
    }
    if (rc == BF_OK && opts && opts->config_text &&
        bf_ydoc_parse(&I.cfg, opts->config_text, strlen(opts->config_text),
                      opts->config_origin ? opts->config_origin : "loadgen.yml", diag) != BF_OK)
        rc = BF_E_PARSE;
    if (rc == BF_OK)
        rc = bf_ydoc_parse(&I.doc, text, len, I.origin, diag);
    bf_buf_t out;
    bf_buf_init(&out, 0);
    if (rc == BF_OK)
        rc = import(&I, opts, &out);
    bf_ydoc_cleanup(&I.doc);
    bf_ydoc_cleanup(&I.cfg);
    bf_buf_cleanup(&dsl);
    for (size_t i = 0; i < I.nnotes; i++)
        free(I.notes[i]);
    if (rc != BF_OK) {
        bf_buf_cleanup(&out);
        return rc;
    }
    *yaml_out = bf_buf_steal(&out);
    if (I.problem[0])
        bf_diag_set(diag, BF_E_INVAL, "%s", I.problem);
    return BF_OK;
}
