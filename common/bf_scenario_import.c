/* SPDX-License-Identifier: MIT */
/* bf_scenario_import.c — INFINI loadgen config -> bulkfleet scenario (see the header for the
 * mapping). The loadgen YAML is read with the scenario loader's YAML tree (positions for
 * errors); the scenario is written as text so it can carry comments (origin, notes).
 */
#include "bf_scenario_import.h"

#include "bf_mem.h"
#include "bf_scenario_int.h"
#include "bf_units.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_NOTES 64

typedef struct imp {
    bf__ydoc_t doc;
    const char *origin;
    bf_diag_t *diag;
    const bf__ynode_t *env;      /* env: section */
    const bf__ynode_t *cfg_env;  /* -config's env: section (a DSL file's defaults), or NULL */
    char *notes[MAX_NOTES];
    size_t nnotes;
    char problem[BF_DIAG_MAX]; /* what the output still has wrong (duplicate keys), or "" */
    bf__ydoc_t cfg;            /* -config loadgen.yml beside a DSL file (env, variables, runner) */
    int dsl;                   /* the input was loadgen's DSL */
} imp;

static int ierr(imp *I, const bf__ynode_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int ierr(imp *I, const bf__ynode_t *n, const char *fmt, ...)
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

static const char *sval(const bf__ynode_t *map, const char *key)
{
    const bf__ynode_t *n = bf__y_get(map, key);
    return n && n->kind == BF__Y_SCALAR && !bf__y_is_null(n) ? n->value : NULL;
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

/* Writes a YAML scalar: plain when unambiguous, else single- or double-quoted. */
static void put_scalar(bf_buf_t *b, const char *s)
{
    size_t n = strlen(s);
    int plain = n > 0 && n < 200;
    int printable = 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7F)
            printable = 0;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.' || c == '/' ||
              (c == ':' && i + 1 < n && s[i + 1] != ' ')))
            plain = 0;
    }
    if (plain && (s[0] == '-' || s[0] == '.' || s[0] == ':'))
        plain = 0;
    static const char *words[] = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"};
    for (size_t i = 0; plain && i < sizeof words / sizeof words[0]; i++)
        if (strcasecmp(s, words[i]) == 0)
            plain = 0;
    if (plain) {
        bf_buf_appendz(b, s);
        return;
    }
    if (printable && n > 0 && s[0] != ' ' && s[n - 1] != ' ') {
        bf_buf_appendz(b, "'");
        for (size_t i = 0; i < n; i++) {
            if (s[i] == '\'')
                bf_buf_appendz(b, "''");
            else
                bf_buf_append(b, s + i, 1);
        }
        bf_buf_appendz(b, "'");
        return;
    }
    bf_buf_appendz(b, "\"");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': bf_buf_appendz(b, "\\\""); break;
        case '\\': bf_buf_appendz(b, "\\\\"); break;
        case '\n': bf_buf_appendz(b, "\\n"); break;
        case '\r': bf_buf_appendz(b, "\\r"); break;
        case '\t': bf_buf_appendz(b, "\\t"); break;
        default:
            if (c < 0x20 || c == 0x7F)
                bf_buf_appendf(b, "\\x%02x", c);
            else
                bf_buf_append(b, s + i, 1);
        }
    }
    bf_buf_appendz(b, "\"");
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
        {"January", "%B"}, {"Monday", "%A"}, {"-07:00", "%z"}, {"Z07:00", "%z"},
        {"-0700", "%z"},   {"Z0700", "%z"},  {"2006", "%Y"},   {"Jan", "%b"},
        {"Mon", "%a"},     {"MST", "%Z"},    {"_2", "%e"},     {"01", "%m"},
        {"02", "%d"},      {"03", "%I"},     {"04", "%M"},     {"05", "%S"},
        {"06", "%y"},      {"15", "%H"},     {"PM", "%p"},     {"pm", "%P"},
        {"1", "%-m"},      {"2", "%-d"},     {"3", "%-I"},     {"4", "%-M"},
        {"5", "%-S"},
    };
    bf_buf_t b;
    bf_buf_init(&b, 0);
    const char *s = layout;
    while (*s) {
        if ((s[0] == '.' || s[0] == ',') && (s[1] == '0' || s[1] == '9')) {
            const char *p = s + 1;
            while (*p == s[1])
                p++;
            note(I, "now_with_format: fractional seconds (%.*s) have no strftime equivalent "
                 "and were dropped; use now_utc_lite for milliseconds", (int)(p - s), s);
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
    const char *name;           /* name in the scenario */
    const bf__ynode_t *src;     /* the loadgen variable */
    const char *scope;          /* NULL, "request", "document" */
} var_out;

/* Writes one variable as a flow mapping line. */
static int put_variable(imp *I, bf_buf_t *b, const var_out *v)
{
    const bf__ynode_t *s = v->src;
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
        return ierr(I, bf__y_get(s, "type"), "variable '%s': type int_array_bitmap (a base64 "
                    "Roaring bitmap) is not supported by bulkfleet", v->name);
    static const char *known[] = {"file", "list", "sequence", "range", "sortable_id",
                                  "now_local", "now_utc", "now_utc_lite", "now_unix",
                                  "now_unix_ms", "now_unix_us", "now_unix_ns",
                                  "now_with_format", "random_array"};
    int ok = 0;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        ok |= strcmp(t, known[i]) == 0;
    if (!ok)
        return ierr(I, bf__y_get(s, "type"), "variable '%s': unknown loadgen type '%s'", v->name,
                    type);
    bf_buf_appendz(b, "  - {name: ");
    put_scalar(b, v->name);
    bf_buf_appendf(b, ", type: %s", t);
    if (!strcmp(type, "uuid"))
        note(I, "variable '%s': loadgen's uuid is a time-ordered xid; mapped to sortable_id "
             "(use type: uuid for RFC 4122 v4)", v->name);
    if (!strcmp(t, "file") || !strcmp(t, "list")) {
        const char *path = sval(s, "path");
        if (path) {
            char *p = conv_env(I, path);
            bf_buf_appendz(b, ", path: ");
            put_scalar(b, p);
            free(p);
        }
        const bf__ynode_t *data = bf__y_get(s, "data");
        if (data && data->kind == BF__Y_SEQ) {
            bf_buf_appendz(b, ", data: [");
            for (size_t i = 0; i < data->n; i++) {
                if (i)
                    bf_buf_appendz(b, ", ");
                put_scalar(b, data->items[i]->value ? data->items[i]->value : "");
            }
            bf_buf_appendz(b, "]");
        }
    }
    if (!strcmp(t, "sequence")) {
        const char *from = sval(s, "from"), *to = sval(s, "to");
        int64_t f = 0;
        uint64_t u;
        if (from && bf_units_parse_count(from, &u) == BF_OK && u < (uint64_t)INT64_MAX)
            f = (int64_t)u;
        bf_buf_appendf(b, ", from: %lld", (long long)(f + 1));
        if (to && bf_units_parse_count(to, &u) == BF_OK)
            bf_buf_appendf(b, ", to: %llu",
                           (unsigned long long)(u > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : u));
    }
    if (!strcmp(t, "range")) {
        const char *from = sval(s, "from"), *to = sval(s, "to");
        bf_buf_appendf(b, ", from: %s, to: %s", from ? from : "0", to ? to : "0");
    }
    if (!strcmp(t, "now_with_format")) {
        const char *f = sval(s, "format");
        if (f == NULL)
            return ierr(I, s, "variable '%s': now_with_format needs format", v->name);
        char *cf = go_layout_to_strftime(I, f);
        bf_buf_appendz(b, ", format: ");
        put_scalar(b, cf);
        free(cf);
    }
    if (!strcmp(t, "random_array")) {
        const char *key = sval(s, "variable_key"), *size = sval(s, "size"),
                   *vt = sval(s, "variable_type"), *sb = sval(s, "string_bracket");
        const bf__ynode_t *sq = bf__y_get(s, "square_bracket");
        int sqb = 0;
        if (key) {
            bf_buf_appendz(b, ", variable_key: ");
            put_scalar(b, key);
        }
        if (size)
            bf_buf_appendf(b, ", size: %s", size);
        if (vt) {
            bf_buf_appendz(b, ", variable_type: ");
            put_scalar(b, vt);
        }
        if (sq && bf__y_bool(sq, &sqb))
            bf_buf_appendf(b, ", square_bracket: %s", sqb ? "true" : "false");
        if (sb) {
            bf_buf_appendz(b, ", string_bracket: ");
            put_scalar(b, sb);
        }
    }
    if (bf__y_get(s, "replace"))
        note(I, "variable '%s': replace: dropped; bulkfleet JSON-escapes values itself",
             v->name);
    if (v->scope)
        bf_buf_appendf(b, ", scope: %s", v->scope);
    bf_buf_appendz(b, "}\n");
    return BF_OK;
}

static const bf__ynode_t *find_var(const bf__ynode_t *vars, const char *name)
{
    if (vars == NULL || vars->kind != BF__Y_SEQ)
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

/* loadgen's statsd: section (reference/loadgen-compat.md 1.8) is not a scenario key: live
 * metrics are the coordinator's --statsd flag, so the import says the flag to use and how
 * loadgen's keys map (README "Live metrics") instead of dropping the section silently */
static void statsd_note(imp *I, const bf__ynode_t *sd)
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
static void runner_notes(imp *I, const bf__ynode_t *runner)
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
    if (runner == NULL || runner->kind != BF__Y_MAP)
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
static void request_notes(imp *I, const bf__ynode_t *item, size_t nth, int is_bulk)
{
    if (item == NULL || item->kind != BF__Y_MAP)
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

static int import(imp *I, const bf_import_opts_t *o, bf_buf_t *head)
{
    bf_buf_t body_out;
    bf_buf_init(&body_out, 0);
    bf_buf_t *out = &body_out;
    uint64_t index_count = 0;
    const bf__ynode_t *root = I->doc.root, *cfg = I->cfg.root;
    /* a section the file lacks comes from -config's loadgen.yml, as loadgen reads them */
    I->env = bf__y_get(root, "env");
    I->cfg_env = bf__y_get(cfg, "env");
    if (bf__y_get(root, "statsd"))
        statsd_note(I, bf__y_get(root, "statsd"));
    const bf__ynode_t *vars = bf__y_get(root, "variables"), *reqs = bf__y_get(root, "requests"),
                      *runner = bf__y_get(root, "runner");
    if (vars == NULL && (vars = bf__y_get(cfg, "variables")) != NULL)
        note(I, "the variables are %s's", I->cfg.origin);
    const bf__ynode_t *cfg_runner = bf__y_get(cfg, "runner");
    if (runner == NULL)
        runner = cfg_runner;
    if (I->dsl)
        note(I, "read from loadgen's DSL (-run) through its YAML form (loadgen.yml's "
                "requests: list)");
    if (reqs == NULL || reqs->kind != BF__Y_SEQ || reqs->n == 0)
        return ierr(I, root, "no requests: list; bulkfleet imports the YAML request mode "
                    "(a -run DSL file is not supported)");
    const bf__ynode_t *req = NULL;
    for (size_t i = 0; i < reqs->n && req == NULL; i++) {
        const bf__ynode_t *r = bf__y_get(reqs->items[i], "request");
        const char *url = sval(r, "url"), *body = sval(r, "body");
        if (body && ((url && strstr(url, "_bulk")) || strstr(body, "\"_index\"") ||
                     url == NULL))
            req = r;
    }
    if (req == NULL) {
        bf_buf_t seen;
        bf_buf_init(&seen, 0);
        for (size_t i = 0; i < reqs->n && i < 8; i++) {
            const bf__ynode_t *r = bf__y_get(reqs->items[i], "request");
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
    runner_notes(I, runner);
    for (size_t i = 0; i < reqs->n; i++) { /* of the imported ones (the others are named) */
        const bf__ynode_t *r = bf__y_get(reqs->items[i], "request");
        const char *u = sval(r, "url");
        if (r == req ||
            (u && (strstr(u, "_search") || strstr(u, "_count") || strstr(u, "_msearch"))))
            request_notes(I, reqs->items[i], i + 1, r == req);
    }
    /* the other requests that are searches become search.queries (issue #15) */
    size_t nsearch = 0;
    for (size_t i = 0; i < reqs->n; i++) {
        const bf__ynode_t *r = bf__y_get(reqs->items[i], "request");
        const char *u = sval(r, "url");
        if (r != req && u && (strstr(u, "_search") || strstr(u, "_count") || strstr(u, "_msearch")))
            nsearch++;
    }
    if (reqs->n > 1 + nsearch) {
        note(I,
             "%zu requests in the config; the bulk request and %zu search request%s were "
             "imported",
             reqs->n, nsearch, nsearch == 1 ? "" : "s");
        for (size_t i = 0; i < reqs->n; i++) {
            const bf__ynode_t *r = bf__y_get(reqs->items[i], "request");
            const char *u = sval(r, "url"), *m = sval(r, "method");
            if (r == req ||
                (u && (strstr(u, "_search") || strstr(u, "_count") || strstr(u, "_msearch"))))
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
    /* body: action line + source line */
    const char *body = sval(req, "body");
    const bf__ynode_t *body_node = bf__y_get(req, "body");
    char *lines[8];
    size_t nlines = 0;
    for (const char *p = body; *p && nlines < 8;) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        size_t k = 0;
        while (k < l && (p[k] == ' ' || p[k] == '\t' || p[k] == '\r'))
            k++;
        if (k < l)
            lines[nlines++] = bf_strndup(p, l);
        p = nl ? nl + 1 : p + l;
    }
    int rc = BF_OK;
    json_t *action = NULL;
    char *base = NULL, *url_index = NULL, *index_name = NULL;
    char **refs = NULL;
    size_t nrefs = 0;
    var_out *vo = NULL;
    size_t nvo = 0;
    if (nlines < 2) {
        rc = ierr(I, body_node, "the body needs an action line and a source line "
                  "(NDJSON: {\"index\":{...}}\\n{...}\\n)");
        goto done;
    }
    size_t actions = 0;
    for (size_t i = 0; i < nlines; i += 2)
        actions++;
    if (nlines > 2) {
        note(I, "the body holds %zu documents; only the first is the template, batch_size "
             "counts all of them", actions);
        json_t *a0 = json_loads(lines[0], 0, NULL);
        const char *ix0 = NULL;
        if (json_is_object(a0) && json_object_size(a0) == 1)
            ix0 = json_string_value(
                json_object_get(json_object_iter_value(json_object_iter(a0)), "_index"));
        for (size_t i = 2; i < nlines; i += 2) {
            json_t *ai = json_loads(lines[i], 0, NULL);
            const char *ixi = NULL;
            if (json_is_object(ai) && json_object_size(ai) == 1)
                ixi = json_string_value(
                    json_object_get(json_object_iter_value(json_object_iter(ai)), "_index"));
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
    /* every duplicate key at once (the loader's check after the import names the first) */
    for (int l = 0; l < 2; l++) {
        bf_buf_t dups;
        bf_buf_init(&dups, 0);
        size_t nd = find_dup_keys(lines[l], &dups, 12);
        if (nd && I->problem[0] == '\0') {
            snprintf(I->problem, sizeof I->problem,
                     "%s:%u:%u: body: the %s line has %zu duplicate key%s, which OpenSearch "
                     "refuses (every document would fail): %s%s; keep one of each (the "
                     "characters count from the line's first)",
                     I->origin, body_node->line, body_node->col, l ? "source" : "action", nd,
                     nd == 1 ? "" : "s", dups.data, nd > 12 ? ", ..." : "");
        }
        if (nd) {
            note(I, "the body's %s line repeats %zu key%s: %s%s", l ? "source" : "action", nd,
                 nd == 1 ? "" : "s", dups.data, nd > 12 ? ", ..." : "");
        }
        bf_buf_cleanup(&dups);
    }
    json_error_t je;
    action = json_loads(lines[0], 0, &je);
    const char *act = NULL;
    json_t *meta = NULL;
    if (action && json_is_object(action) && json_object_size(action) == 1) {
        act = json_object_iter_key(json_object_iter(action));
        meta = json_object_iter_value(json_object_iter(action));
    }
    if (act == NULL || !json_is_object(meta) ||
        (strcmp(act, "index") != 0 && strcmp(act, "create") != 0)) {
        rc = ierr(I, body_node, "the first body line is not an index or create action "
                  "(%s); update and delete are not supported", action ? "other action" : je.text);
        goto done;
    }
    const char *ix = json_string_value(json_object_get(meta, "_index"));
    const char *id = json_string_value(json_object_get(meta, "_id"));
    const char *routing = json_string_value(json_object_get(meta, "routing"));
    if (routing == NULL)
        routing = json_string_value(json_object_get(meta, "_routing"));
    const char *pipeline = json_string_value(json_object_get(meta, "pipeline"));
    if (json_object_get(meta, "_type"))
        note(I, "_type dropped from the action line (mapping types are gone in OpenSearch and "
             "Elasticsearch 8)");
    /* target */
    const char *url = sval(req, "url");
    if (url == NULL || url[0] == '\0' || url[0] == '/') {
        const char *def = sval(runner, "default_endpoint");
        if (def == NULL)
            def = sval(cfg_runner, "default_endpoint");
        if (def)
            base = conv_env(I, def);
        if (url) {
            char *none = NULL;
            split_url(url, &none, &url_index);
            free(none);
        }
    } else {
        char *cu = conv_env(I, url);
        if (split_url(cu, &base, &url_index) != 0) {
            free(cu);
            rc = ierr(I, bf__y_get(req, "url"), "cannot read the URL '%s'", url);
            goto done;
        }
        free(cu);
    }
    if (base == NULL) {
        base = bf_strdup("${BF_TARGET:-http://127.0.0.1:9200}");
        note(I, "the config has no URL; target.hosts uses ${BF_TARGET} (default "
             "http://127.0.0.1:9200)");
    }
    /* index name */
    if (ix) {
        char *ce = conv_env(I, ix);
        const char *ph = strstr(ce, "$[[");
        if (ph) {
            const char *end = strstr(ph, "]]");
            char vname[128] = "";
            if (end && (size_t)(end - ph - 3) < sizeof vname) {
                memcpy(vname, ph + 3, (size_t)(end - ph - 3));
                vname[end - ph - 3] = '\0';
            }
            const bf__ynode_t *v = find_var(vars, vname);
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
                const bf__ynode_t *d = bf__y_get(v, "data");
                if (d && d->kind == BF__Y_SEQ && d->n)
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
            index_name = bf_buf_steal(&nb);
            bf_buf_cleanup(&nb);
            if (vt && !strcmp(vt, "range"))
                note(I,
                     "_index '%s' picks an index per document; bulkfleet spreads documents "
                     "round-robin over %llu indices named %s: %.*s%llu%s .. %.*s%llu%s as "
                     "in loadgen",
                     ix, (unsigned long long)count, index_name, (int)(ph - ce), ce,
                     (unsigned long long)first, end ? end + 2 : "", (int)(ph - ce), ce,
                     (unsigned long long)(first + count - 1), end ? end + 2 : "");
            else
                note(I,
                     "_index '%s' picks an index per document; bulkfleet spreads documents "
                     "round-robin over %llu indices named %s (0-based {i}: index names are "
                     "numbered, not the list's values)",
                     ix, (unsigned long long)count, index_name);
            index_count = count;
        } else {
            index_name = bf_strdup(ce);
        }
        free(ce);
    } else if (url_index) {
        index_name = bf_strdup(url_index);
    } else {
        rc = ierr(I, body_node, "no index: neither the action line's _index nor the URL names "
                  "one");
        goto done;
    }
    /* variables referenced, aliases resolved */
    const bf__ynode_t *rv = bf__y_get(req, "runtime_variables"),
                      *rbl = bf__y_get(req, "runtime_body_line_variables");
    collect_refs(lines[0], &refs, &nrefs);
    collect_refs(lines[1], &refs, &nrefs);
    for (size_t i = 0; i < reqs->n; i++) { /* the search bodies' variables too */
        const bf__ynode_t *r = bf__y_get(reqs->items[i], "request");
        const char *u = sval(r, "url"), *b = sval(r, "body");
        if (r != req && u && b && (strstr(u, "_search") || strstr(u, "_count")))
            collect_refs(b, &refs, &nrefs);
    }
    for (size_t i = 0; i < nrefs; i++) {
        const char *alias_src = NULL, *scope = NULL;
        if (rv && (alias_src = sval(rv, refs[i])) != NULL)
            scope = "request";
        else if (rbl && (alias_src = sval(rbl, refs[i])) != NULL)
            scope = "document";
        const bf__ynode_t *src = find_var(vars, alias_src ? alias_src : refs[i]);
        if (src == NULL) {
            if (alias_src)
                rc = ierr(I, body_node, "$[[%s]] in the body is an alias of '%s', which names "
                          "no variable", refs[i], alias_src);
            else
                rc = ierr(I, body_node, "$[[%s]] in the body names no variable", refs[i]);
            goto done;
        }
        vo = bf_realloc(vo, (nvo + 2) * sizeof *vo);
        vo[nvo++] = (var_out){.name = refs[i], .src = src, .scope = scope};
        const char *st = sval(src, "type");
        if (st && !strcmp(st, "random_array")) {
            const char *key = sval(src, "variable_key");
            int have = 0;
            for (size_t k = 0; k < nrefs && key; k++)
                have |= strcmp(refs[k], key) == 0;
            if (key && !have) {
                refs = bf_realloc(refs, (nrefs + 1) * sizeof *refs);
                refs[nrefs++] = bf_strdup(key);
            }
        }
    }
    /* loadgen's order: each variable, then the aliases drawn from it */
    if (vars && vars->kind == BF__Y_SEQ && nvo > 1) {
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
    if (vars && vars->kind == BF__Y_SEQ) {
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
    /* numbers */
    uint64_t repeat = 1;
    const char *brt = sval(req, "body_repeat_times");
    if (brt && (bf_units_parse_count(brt, &repeat) != BF_OK || repeat == 0)) {
        rc = ierr(I, bf__y_get(req, "body_repeat_times"), "body_repeat_times must be a "
                  "positive number");
        goto done;
    }
    uint64_t batch = repeat * actions;
    uint32_t conc = o && o->concurrency ? o->concurrency : 1;
    uint32_t dur = o && o->duration_s ? o->duration_s : 5;
    if (sval(req, "execute_repeat_times"))
        note(I, "execute_repeat_times (resending the same body) is not imported; bulkfleet "
                "renders a fresh body per request");
    /* ---- write ---- */
    char *name = NULL;
    if (o && o->name) {
        name = bf_strdup(o->name);
    } else {
        const char *slash = strrchr(I->origin, '/');
        const char *fn = slash ? slash + 1 : I->origin;
        const char *dot = strrchr(fn, '.');
        name = bf_strndup(fn, dot && dot > fn ? (size_t)(dot - fn) : strlen(fn));
        for (char *p = name; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                  (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
                *p = '-';
        if (name[0] == '\0' || name[0] == '.' || name[0] == '-') {
            char *n2 = bf_asprintf("imported%s", name);
            free(name);
            name = n2;
        }
    }
    bf_buf_appendz(out, "name: ");
    put_scalar(out, name);
    free(name);
    bf_buf_appendz(out, "\ntarget:\n  hosts: [");
    put_scalar(out, base);
    bf_buf_appendz(out, "]\n");
    const bf__ynode_t *ba = bf__y_get(req, "basic_auth");
    if (ba == NULL && runner)
        ba = bf__y_get(runner, "default_basic_auth");
    if (ba == NULL)
        ba = bf__y_get(cfg_runner, "default_basic_auth");
    if (ba && ba->kind == BF__Y_MAP && sval(ba, "username")) {
        char *user = conv_env(I, sval(ba, "username"));
        const char *pw = sval(ba, "password");
        char *pwc = pw && strstr(pw, "$[[env.") ? conv_env(I, pw) : bf_strdup("${ES_PASSWORD}");
        bf_buf_appendz(out, "  auth: {username: ");
        put_scalar(out, user);
        bf_buf_appendz(out, ", password: ");
        put_scalar(out, pwc);
        bf_buf_appendz(out, "}\n");
        if (pw == NULL || strstr(pw, "$[[env.") == NULL)
            note(I, "the password is not copied: export ES_PASSWORD before running");
        free(user);
        free(pwc);
    }
    const bf__ynode_t *hd = bf__y_get(req, "headers");
    if (hd && hd->kind == BF__Y_SEQ && hd->n) {
        bf_buf_appendz(out, "  headers:\n");
        for (size_t i = 0; i < hd->n; i++) {
            const bf__ynode_t *h = hd->items[i];
            if (h->kind != BF__Y_MAP)
                continue;
            for (size_t k = 0; k < h->n; k++) {
                char *hv = conv_env(I, h->items[2 * k + 1]->value ? h->items[2 * k + 1]->value
                                                                   : "");
                bf_buf_appendz(out, "    ");
                put_scalar(out, h->items[2 * k]->value);
                bf_buf_appendz(out, ": ");
                put_scalar(out, hv);
                bf_buf_appendz(out, "\n");
                free(hv);
            }
        }
    }
    if (base && strncmp(base, "https://", 8) == 0)
        bf_buf_appendz(out, "  tls: {insecure: true}   # loadgen never verifies certificates; "
                            "prefer ca_file: ...\n");
    bf_buf_appendz(out, "index:\n  name: ");
    put_scalar(out, index_name);
    bf_buf_appendz(out, "\n");
    if (index_count > 1)
        bf_buf_appendf(out, "  count: %llu\n", (unsigned long long)index_count);
    bf_buf_appendz(out, "  recreate: false\n");
    if (nvo) {
        bf_buf_appendz(out, "variables:\n");
        for (size_t i = 0; i < nvo && rc == BF_OK; i++)
            rc = put_variable(I, out, &vo[i]);
        /* random_array sources not referenced directly */
        for (size_t i = 0; i < nrefs && rc == BF_OK; i++) {
            int have = 0;
            for (size_t k = 0; k < nvo && !have; k++)
                have = strcmp(vo[k].name, refs[i]) == 0;
            const bf__ynode_t *src = find_var(vars, refs[i]);
            if (!have && src) {
                var_out extra = {.name = refs[i], .src = src};
                rc = put_variable(I, out, &extra);
            }
        }
        if (rc != BF_OK)
            goto done;
    }
    bf_buf_appendf(out, "document:\n  action: %s\n", act);
    const char *fields[] = {"id", "routing", "pipeline"};
    const char *fvals[] = {id, routing, pipeline};
    for (int k = 0; k < 3; k++) {
        if (fvals[k] == NULL)
            continue;
        char *cv = conv_env(I, fvals[k]);
        bf_buf_appendf(out, "  %s: ", fields[k]);
        put_scalar(out, cv);
        bf_buf_appendz(out, "\n");
        free(cv);
    }
    char *src = conv_env(I, lines[1]);
    bf_buf_appendz(out, "  source: ");
    put_scalar(out, src);
    bf_buf_appendz(out, "\n");
    free(src);
    bf_buf_appendf(out, "request:\n  compression: %s\n", o && o->compress ? "gzip" : "none");
    if (o && o->compress)
        bf_buf_appendz(out, "  gzip_level: 1   # loadgen compresses at level 9 (CPU-heavy on "
                            "the client)\n");
    if (nsearch) {
        bf_buf_appendz(out, "search:\n  clients: 1\n  queries:\n");
        size_t k = 0;
        for (size_t i = 0; i < reqs->n; i++) {
            const bf__ynode_t *r = bf__y_get(reqs->items[i], "request");
            const char *u = sval(r, "url"), *b = sval(r, "body"), *m = sval(r, "method");
            if (r == req || u == NULL ||
                !(strstr(u, "_search") || strstr(u, "_count") || strstr(u, "_msearch")))
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
            size_t il = index_name ? strlen(index_name) : 0;
            if (il && strncmp(pb.data + 1, index_name, il) == 0 && pb.data[1 + il] == '/') {
                char *rest = bf_strdup(pb.data + 1 + il);
                bf_buf_reset(&pb);
                bf_buf_appendf(&pb, "/{index}%s", rest);
                free(rest);
            }
            bf_buf_appendf(out, "    - name: search_%zu\n", ++k);
            if (m && (strcmp(m, "GET") == 0 || strcmp(m, "get") == 0))
                bf_buf_appendz(out, "      method: GET\n");
            bf_buf_appendz(out, "      path: ");
            put_scalar(out, pb.data);
            bf_buf_appendz(out, "\n");
            if (b && b[0]) {
                char *cb = conv_env(I, b);
                bf_buf_appendz(out, "      body: ");
                put_scalar(out, cb);
                bf_buf_appendz(out, "\n");
                free(cb);
            }
            bf_buf_cleanup(&pb);
            free(cu);
        }
    }
    bf_buf_appendf(out, "run:\n  warmup: 10s\n  duration: %us\n", dur);
    if (o && o->qps > 0)
        bf_buf_appendf(out, "  target_rate: %.0f   # -r %.0f requests/s x %llu documents\n",
                       o->qps * (double)batch, o->qps, (unsigned long long)batch);
    bf_buf_appendf(out, "matrix:\n  batch_size: [%llu]\n  concurrency: [%u]\n",
                   (unsigned long long)batch, conc);
    /* header: origin and notes (collected while writing the body) */
    bf_buf_appendf(head, "# Imported from %s by bulkfleet-coordinator import-loadgen.\n",
                   I->origin);
    bf_buf_appendz(head, "# Notes:\n");
    bf_buf_appendz(head, "#  - the index belongs to you: recreate is false, so bulkfleet writes "
                         "into it as loadgen did; set recreate: true and add shards / replicas "
                         "axes under matrix: to let bulkfleet create one index per cell.\n");
    bf_buf_appendz(head, "#  - warmup: 10s is added before the measured duration (loadgen only "
                         "sends one warm-up request).\n");
    for (size_t i = 0; i < I->nnotes; i++)
        bf_buf_appendf(head, "#  - %s\n", I->notes[i]);
    bf_buf_append(head, body_out.data ? body_out.data : "", body_out.len);
done:
    bf_buf_cleanup(&body_out);
    for (size_t i = 0; i < nlines; i++)
        free(lines[i]);
    json_decref(action);
    free(base);
    free(url_index);
    free(index_name);
    for (size_t i = 0; i < nrefs; i++)
        free(refs[i]);
    free(refs);
    free(vo);
    return rc;
}

/* ---- loadgen's DSL (loadgen.dsl, -run): converted to the YAML form, then imported -------- */

static int is_method_line(const char *l, size_t n)
{
    static const char *const m[] = {"GET ",  "POST ",  "PUT ",    "DELETE ",
                                    "HEAD ", "PATCH ", "OPTIONS "};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (n > strlen(m[i]) && strncmp(l, m[i], strlen(m[i])) == 0)
            return 1;
    return 0;
}

/* 1 when text is loadgen's DSL: the origin ends in .dsl, or the first line that is neither blank
 * nor a # comment is "METHOD URL" (loadgen.yml starts with a key). */
static int looks_like_dsl(const char *text, size_t len, const char *origin)
{
    size_t ol = origin ? strlen(origin) : 0;
    if (ol > 4 && strcmp(origin + ol - 4, ".dsl") == 0)
        return 1;
    for (const char *p = text, *end = text + len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        size_t k = 0;
        while (k < n && (p[k] == ' ' || p[k] == '\t' || p[k] == '\r'))
            k++;
        if (k < n && p[k] != '#')
            return is_method_line(p + k, n - k);
        p = nl ? nl + 1 : end;
    }
    return 0;
}

/* Appends one line of a DSL directive without its // comment (outside strings); tracks the
 * bracket depth and whether a string is open across calls in *depth. */
static void dsl_directive_line(bf_buf_t *b, const char *l, size_t n, int *depth)
{
    char q = 0;
    for (size_t i = 0; i < n; i++) {
        char c = l[i];
        if (q) {
            bf_buf_append(b, &c, 1);
            if (c == '\\' && i + 1 < n)
                bf_buf_append(b, &l[++i], 1);
            else if (c == q)
                q = 0;
            continue;
        }
        if (c == '/' && i + 1 < n && l[i + 1] == '/')
            break;
        if (c == '"' || c == '\'')
            q = c;
        else if (c == '{' || c == '[')
            (*depth)++;
        else if (c == '}' || c == ']')
            (*depth)--;
        bf_buf_append(b, &c, 1);
    }
    bf_buf_appendz(b, " ");
}

typedef struct dsl_req {
    char *method, *url;
    bf_buf_t body, req, extra; /* extra: "    assert: ...\n" lines */
    size_t line;
} dsl_req;

/* loadgen's DSL -> the loadgen YAML form the importer reads: "# key: {...}" comment blocks
 * (JSON5: unquoted keys, // comments, trailing commas, all valid YAML flow once the comments
 * are gone) before the first request are the config's sections (env, runner, variables); after
 * a "METHOD URL" line and its body lines, "# request: {...}" merges into that request and
 * "# assert:" / "# register:" go beside it; "# 200" and "# {...}" lines after a request are
 * loadgen's expected answer (an assert). Returns 0 or BF_E_INVAL with diag naming
 * origin:line. */
static int dsl_to_yaml(const char *text, size_t len, const char *origin, bf_buf_t *out,
                       bf_diag_t *diag)
{
    dsl_req *rq = NULL;
    size_t nrq = 0;
    bf_buf_t top;
    bf_buf_init(&top, 0);
    int rc = BF_OK, in_body = 0;
    size_t lineno = 0;
    for (const char *p = text, *end = text + len; p < end && rc == BF_OK;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        const char *l = p;
        p = nl ? nl + 1 : end;
        lineno++;
        while (n && (l[n - 1] == '\r' || l[n - 1] == ' ' || l[n - 1] == '\t'))
            n--;
        if (n == 0) {
            in_body = 0;
            continue;
        }
        if (l[0] == '#') {
            in_body = 0;
            size_t k = 1;
            while (k < n && (l[k] == ' ' || l[k] == '\t'))
                k++;
            size_t ks = k;
            while (k < n && (l[k] == '_' || l[k] == '.' || (l[k] >= 'a' && l[k] <= 'z') ||
                             (l[k] >= 'A' && l[k] <= 'Z') || (l[k] >= '0' && l[k] <= '9')))
                k++;
            dsl_req *cur = nrq ? &rq[nrq - 1] : NULL;
            if (k > ks && k < n && l[k] == ':' && !(l[ks] >= '0' && l[ks] <= '9')) {
                /* a directive: its value runs until the brackets close */
                char key[64];
                size_t kl = k - ks < sizeof key - 1 ? k - ks : sizeof key - 1;
                memcpy(key, l + ks, kl);
                key[kl] = '\0';
                bf_buf_t val;
                bf_buf_init(&val, 0);
                int depth = 0;
                size_t first = lineno;
                dsl_directive_line(&val, l + k + 1, n - k - 1, &depth);
                while (depth > 0 && p < end) {
                    nl = memchr(p, '\n', (size_t)(end - p));
                    n = nl ? (size_t)(nl - p) : (size_t)(end - p);
                    l = p;
                    p = nl ? nl + 1 : end;
                    lineno++;
                    if (n == 0 || l[0] != '#') {
                        depth = -1;
                        break;
                    }
                    dsl_directive_line(&val, l + 1, n - 1, &depth);
                }
                while (val.len && (val.data[val.len - 1] == ' ' || val.data[val.len - 1] == ','))
                    val.data[--val.len] = '\0'; /* JSON5's comma between the sections */
                if (depth != 0) {
                    rc = bf_diag_set(diag, BF_E_INVAL,
                                     "%s:%zu: the '# %s:' block does not close its brackets "
                                     "before line %zu (every line of it starts with '#')",
                                     origin, first, key, lineno);
                } else if (cur == NULL || !strcmp(key, "env") || !strcmp(key, "runner") ||
                           !strcmp(key, "variables")) {
                    bf_buf_appendf(&top, "%s: %s\n", key, val.data ? val.data : "");
                } else if (!strcmp(key, "request")) {
                    const char *v = val.data ? val.data : "";
                    while (*v == ' ')
                        v++;
                    size_t vl = strlen(v);
                    while (vl && v[vl - 1] == ' ')
                        vl--;
                    if (vl < 2 || v[0] != '{' || v[vl - 1] != '}')
                        rc = bf_diag_set(diag, BF_E_INVAL,
                                         "%s:%zu: '# request:' needs a {...} "
                                         "object",
                                         origin, first);
                    else
                        bf_buf_appendf(&cur->req, ", %.*s", (int)(vl - 2), v + 1);
                } else {
                    bf_buf_appendf(&cur->extra, "    %s: %s\n", key, val.data ? val.data : "");
                }
                bf_buf_cleanup(&val);
            } else if (cur && ks < n && ((l[ks] >= '0' && l[ks] <= '9') || l[ks] == '{')) {
                /* "# 200" / "# {...}": the answer loadgen expects */
                if (!strstr(cur->extra.data ? cur->extra.data : "", "assert:")) {
                    json_t *a = json_stringn(l + ks, n - ks);
                    char *as = json_dumps(a, JSON_ENCODE_ANY);
                    bf_buf_appendf(&cur->extra, "    assert: %s\n", as ? as : "\"\"");
                    free(as);
                    json_decref(a);
                }
            }
            continue; /* else a comment */
        }
        if (is_method_line(l, n)) {
            rq = bf_realloc(rq, (nrq + 1) * sizeof *rq);
            dsl_req *r = &rq[nrq++];
            memset(r, 0, sizeof *r);
            const char *sp = memchr(l, ' ', n);
            r->method = bf_strndup(l, (size_t)(sp - l));
            while (sp < l + n && *sp == ' ')
                sp++;
            r->url = bf_strndup(sp, (size_t)(l + n - sp));
            bf_buf_init(&r->body, 0);
            bf_buf_init(&r->req, 0);
            bf_buf_init(&r->extra, 0);
            r->line = lineno;
            in_body = 1;
            continue;
        }
        if (in_body && nrq) {
            bf_buf_append(&rq[nrq - 1].body, l, n);
            bf_buf_appendz(&rq[nrq - 1].body, "\n");
            continue;
        }
        rc = bf_diag_set(diag, BF_E_INVAL,
                         "%s:%zu: '%.*s' is neither a request line (METHOD "
                         "URL), a body line right after one, nor a # line",
                         origin, lineno, (int)(n > 60 ? 60 : n), l);
    }
    if (rc == BF_OK) {
        bf_buf_append(out, top.data ? top.data : "", top.len);
        bf_buf_appendz(out, "requests:\n");
        for (size_t i = 0; i < nrq; i++) {
            json_t *m = json_string(rq[i].method), *u = json_string(rq[i].url);
            json_t *b = rq[i].body.len ? json_stringn(rq[i].body.data, rq[i].body.len) : NULL;
            char *ms = json_dumps(m, JSON_ENCODE_ANY), *us = json_dumps(u, JSON_ENCODE_ANY);
            char *bs = b ? json_dumps(b, JSON_ENCODE_ANY) : NULL;
            bf_buf_appendf(out, "  - request: {method: %s, url: %s%s%s%s}\n", ms, us,
                           bs ? ", body: " : "", bs ? bs : "",
                           rq[i].req.data ? rq[i].req.data : "");
            bf_buf_append(out, rq[i].extra.data ? rq[i].extra.data : "", rq[i].extra.len);
            free(ms);
            free(us);
            free(bs);
            json_decref(m);
            json_decref(u);
            json_decref(b);
        }
    }
    for (size_t i = 0; i < nrq; i++) {
        free(rq[i].method);
        free(rq[i].url);
        bf_buf_cleanup(&rq[i].body);
        bf_buf_cleanup(&rq[i].req);
        bf_buf_cleanup(&rq[i].extra);
    }
    free(rq);
    bf_buf_cleanup(&top);
    return rc;
}

int bf_scenario_import_loadgen(const char *text, size_t len, const char *origin,
                               const bf_import_opts_t *opts, char **yaml_out, bf_diag_t *diag)
{
    *yaml_out = NULL;
    imp I = {.origin = origin ? origin : "loadgen.yml", .diag = diag};
    bf_buf_t dsl;
    bf_buf_init(&dsl, 0);
    char dsl_origin[600];
    int rc = BF_OK;
    if (looks_like_dsl(text, len, origin)) {
        /* the DSL (loadgen -run) is read through its YAML form; messages name that form */
        rc = dsl_to_yaml(text, len, I.origin, &dsl, diag);
        snprintf(dsl_origin, sizeof dsl_origin, "%s (in its YAML form)", I.origin);
        I.origin = dsl_origin;
        I.dsl = 1;
        text = dsl.data ? dsl.data : "";
        len = dsl.len;
    }
    if (rc == BF_OK && opts && opts->config_text &&
        bf__ydoc_parse(&I.cfg, opts->config_text, strlen(opts->config_text),
                       opts->config_origin ? opts->config_origin : "loadgen.yml", diag) != BF_OK)
        rc = BF_E_PARSE;
    if (rc == BF_OK)
        rc = bf__ydoc_parse(&I.doc, text, len, I.origin, diag);
    bf_buf_t out;
    bf_buf_init(&out, 0);
    if (rc == BF_OK)
        rc = import(&I, opts, &out);
    bf__ydoc_cleanup(&I.doc);
    bf__ydoc_cleanup(&I.cfg);
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
