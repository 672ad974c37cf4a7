/* SPDX-License-Identifier: MIT */
/* bf_scenario_yaml.c — the scenario's YAML document as a tree with source positions.
 *
 * libyaml's event parser feeds an explicit stack (no recursion, depth capped), so any input is
 * parsed in bounded stack. Nodes and strings live in one arena freed at once. Anchors are
 * ignored and aliases refused (no billion-laughs expansion). ${VAR} substitution and YAML
 * emission (for the resolved and redacted copies shipped to agents and kept with results) work
 * on the same tree, so what agents load is exactly what the coordinator validated.
 */
#include "bf_scenario_int.h"

#include "bf_jsonesc.h"
#include "bf_url.h"
#include "bf_mem.h"
#include "bf_units.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

/* ---- arena --------------------------------------------------------------------------------- */

#define ARENA_BLOCK (64u << 10)

typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    max_align_t data[]; /* flexible, aligned */
} arena_block;

struct bf_yarena {
    arena_block *head;
    size_t nodes;
};

static void *arena_alloc(bf_yarena_t *a, size_t size)
{
    size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    arena_block *b = a->head;
    if (b == NULL || b->cap - b->used < size) {
        size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;
        b = bf_malloc(sizeof *b + cap);
        b->used = 0;
        b->cap = cap;
        b->next = a->head;
        a->head = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += size;
    return p;
}

char *bf_ydoc_strdup(bf_ydoc_t *doc, const char *s, size_t len)
{
    char *d = arena_alloc(doc->arena, len + 1);
    if (len)
        memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

void bf_ydoc_cleanup(bf_ydoc_t *doc)
{
    if (doc == NULL)
        return;
    for (size_t i = 0; i < doc->nunset; i++)
        free(doc->unset_warnings[i]);
    free(doc->unset_warnings);
    doc->unset_warnings = NULL;
    doc->nunset = 0;
    if (doc->arena == NULL)
        return;
    arena_block *b = doc->arena->head;
    while (b) {
        arena_block *n = b->next;
        free(b);
        b = n;
    }
    free(doc->arena);
    doc->arena = NULL;
    doc->root = NULL;
}

/* ---- parsing ------------------------------------------------------------------------------- */

/* A collection being built: its node and a growable item array (heap, moved to the arena when
 * the collection ends). */
typedef struct frame {
    bf_ynode_t *node;
    bf_ynode_t **items;
    size_t n, cap;
} frame;

static int perr(bf_diag_t *diag, const char *origin, size_t line, size_t col, int code,
                const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int perr(bf_diag_t *diag, const char *origin, size_t line, size_t col, int code,
                const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return bf_diag_set(diag, code, "%s:%zu:%zu: %s", origin, line, col, msg);
}

static bf_ynode_t *new_node(bf_ydoc_t *doc, enum bf_ykind kind, const yaml_mark_t *start,
                            const yaml_mark_t *end)
{
    bf_ynode_t *n = arena_alloc(doc->arena, sizeof *n);
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->line = (uint32_t)(start->line + 1);
    n->col = (uint32_t)(start->column + 1);
    n->start_char = start->index;
    n->end_char = end->index;
    doc->arena->nodes++;
    return n;
}

static void frame_push(frame *f, bf_ynode_t *item)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 8;
        f->items = bf_realloc(f->items, f->cap * sizeof *f->items);
    }
    f->items[f->n++] = item;
}

static int cmp_key(const void *a, const void *b)
{
    const bf_ynode_t *x = *(bf_ynode_t *const *)a, *y = *(bf_ynode_t *const *)b;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    int c = memcmp(x->value, y->value, x->len);
    if (c)
        return c;
    /* equal keys: order by position so the second occurrence is reported */
    return x->start_char < y->start_char ? -1 : x->start_char > y->start_char;
}

/* Duplicate keys in a mapping are an error (YAML 1.2 §3.2.1.1): the later one would silently
 * win, which hides mistakes. Returns the second occurrence or NULL. */
static const bf_ynode_t *find_duplicate_key(bf_ynode_t **items, size_t npairs)
{
    if (npairs < 2)
        return NULL;
    if (npairs <= 16) {
        for (size_t i = 1; i < npairs; i++)
            for (size_t j = 0; j < i; j++)
                if (items[2 * i]->len == items[2 * j]->len &&
                    memcmp(items[2 * i]->value, items[2 * j]->value, items[2 * i]->len) == 0)
                    return items[2 * i];
        return NULL;
    }
    bf_ynode_t **keys = bf_malloc(npairs * sizeof *keys);
    for (size_t i = 0; i < npairs; i++)
        keys[i] = items[2 * i];
    qsort(keys, npairs, sizeof *keys, cmp_key);
    const bf_ynode_t *dup = NULL;
    for (size_t i = 1; i < npairs && dup == NULL; i++)
        if (keys[i]->len == keys[i - 1]->len &&
            memcmp(keys[i]->value, keys[i - 1]->value, keys[i]->len) == 0)
            dup = keys[i];
    free(keys);
    return dup;
}

/* The parser stops where it notices a mistake, often lines after its cause: an unclosed '{' or
 * '[' (or one a value opened by holding '{' unquoted) is noticed at the next key. The innermost
 * flow collection still open there (the frames of the collections being read; else libyaml's
 * own mark of the flow collection it was parsing) is named with its line:column and what to
 * do (brief: the place only, when the caller's hint says what to do), into note ("" when the
 * parser was in none). */
static void flow_open_note(const frame *stack, size_t depth, const yaml_parser_t *p, int brief,
                           char *note, size_t size)
{
    note[0] = '\0';
    uint32_t line = 0, col = 0;
    int map = 0;
    for (size_t k = depth; k-- > 0 && line == 0;)
        if (stack[k].node->flow) {
            line = stack[k].node->line;
            col = stack[k].node->col;
            map = stack[k].node->kind == BF_Y_MAP;
        }
    if (line == 0 && p->context && strstr(p->context, "flow")) {
        line = (uint32_t)p->context_mark.line + 1;
        col = (uint32_t)p->context_mark.column + 1;
        map = strstr(p->context, "mapping") != NULL;
    }
    if (line == 0)
        return;
    if (brief) {
        snprintf(note, size, "; inside the '%c' opened at %u:%u", map ? '{' : '[', line, col);
        return;
    }
    snprintf(note, size,
             "; inside the '%c' opened at %u:%u, not closed before this point: close it with "
             "'%c', or quote a value that holds '{', '}', '[', ']' or ',' (e.g. name: "
             "'logs-{shards}')",
             map ? '{' : '[', line, col, map ? '}' : ']');
}

int bf_ydoc_parse(bf_ydoc_t *doc, const char *text, size_t len, const char *origin, bf_diag_t *diag)
{
    memset(doc, 0, sizeof *doc);
    doc->origin = origin;
    doc->text = text;
    doc->len = len;
    doc->arena = bf_calloc(1, sizeof *doc->arena);
    if (len > BF_MAX_SCENARIO_BYTES)
        return bf_diag_set(diag, BF_E_TOOBIG,
                           "%s: %zu bytes is larger than the %u-byte limit "
                           "of a scenario file",
                           origin, len, BF_MAX_SCENARIO_BYTES);

    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING);
    frame stack[BF_YAML_MAX_DEPTH + 1];
    size_t depth = 0;
    int docs = 0, rc = BF_OK, done = 0;
    while (!done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            const char *ctx = p.context ? p.context : NULL;
            /* ${VAR} inside [...] or {...} must be quoted: braces are flow indicators */
            const char *hint = "";
            size_t ln = 0, i = 0;
            while (i < len && ln < p.problem_mark.line)
                ln += text[i++] == '\n';
            const char *eol = memchr(text + i, '\n', len - i);
            const char *env =
                memmem(text + i, (size_t)((eol ? eol : text + len) - (text + i)), "${", 2);
            if (env && ctx && strstr(ctx, "flow"))
                hint = "; quote values holding ${VAR} inside [...] or {...}, e.g. "
                       "password: \"${ES_PASSWORD}\"";
            else if (p.problem_mark.index < len && text[p.problem_mark.index] == '\t')
                hint = "; this is a tab: YAML indents with spaces only";
            char open[320];
            flow_open_note(stack, depth, &p, hint[0] != '\0', open, sizeof open);
            rc = perr(diag, origin, p.problem_mark.line + 1, p.problem_mark.column + 1, BF_E_PARSE,
                      "YAML syntax error: %s%s%s%s%s", p.problem ? p.problem : "invalid",
                      ctx ? " " : "", ctx ? ctx : "", open, hint);
            break;
        }
        bf_ynode_t *node = NULL;
        switch (ev.type) {
        case YAML_STREAM_START_EVENT:
        case YAML_DOCUMENT_END_EVENT:
        case YAML_NO_EVENT: break;
        case YAML_STREAM_END_EVENT: done = 1; break;
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1)
                rc =
                    perr(diag, origin, ev.start_mark.line + 1, ev.start_mark.column + 1, BF_E_PARSE,
                         "a scenario file holds one YAML document; remove this "
                         "second one (---)");
            break;
        case YAML_ALIAS_EVENT:
            rc = perr(diag, origin, ev.start_mark.line + 1, ev.start_mark.column + 1, BF_E_PARSE,
                      "YAML aliases (*%s) are not supported; write the value out",
                      (const char *)ev.data.alias.anchor);
            break;
        case YAML_SCALAR_EVENT: {
            node = new_node(doc, BF_Y_SCALAR, &ev.start_mark, &ev.end_mark);
            node->len = ev.data.scalar.length;
            node->value = bf_ydoc_strdup(doc, (const char *)ev.data.scalar.value, node->len);
            node->style = ev.data.scalar.style;
            node->quoted = ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
            if (ev.data.scalar.tag &&
                strcmp((const char *)ev.data.scalar.tag, "tag:yaml.org,2002:str") == 0)
                node->quoted = 1;
            break;
        }
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            if (depth >= BF_YAML_MAX_DEPTH) {
                rc = perr(diag, origin, ev.start_mark.line + 1, ev.start_mark.column + 1,
                          BF_E_PARSE, "nesting deeper than %d levels", BF_YAML_MAX_DEPTH);
                break;
            }
            node = new_node(doc, ev.type == YAML_MAPPING_START_EVENT ? BF_Y_MAP : BF_Y_SEQ,
                            &ev.start_mark, &ev.end_mark);
            node->flow = ev.type == YAML_MAPPING_START_EVENT
                             ? ev.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE
                             : ev.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: {
            frame *f = &stack[depth - 1];
            bf_ynode_t *c = f->node;
            c->end_char = ev.end_mark.index;
            c->items = arena_alloc(doc->arena, (f->n ? f->n : 1) * sizeof *c->items);
            if (f->n)
                memcpy(c->items, f->items, f->n * sizeof *c->items);
            c->n = c->kind == BF_Y_MAP ? f->n / 2 : f->n;
            free(f->items);
            depth--;
            if (c->kind == BF_Y_MAP) {
                const bf_ynode_t *dup = find_duplicate_key(c->items, c->n);
                if (dup) {
                    rc = perr(diag, origin, dup->line, dup->col, BF_E_PARSE,
                              "duplicate key '%s' in this mapping; keep one", dup->value);
                    break;
                }
            }
            if (depth == 0) {
                doc->root = c;
            } else {
                frame_push(&stack[depth - 1], c);
            }
            break;
        }
        }
        if (rc == BF_OK && doc->arena->nodes > BF_YAML_MAX_NODES)
            rc = perr(diag, origin, ev.start_mark.line + 1, ev.start_mark.column + 1, BF_E_TOOBIG,
                      "more than %u YAML nodes", BF_YAML_MAX_NODES);
        if (rc == BF_OK && node) {
            if (depth > 0) {
                frame *f = &stack[depth - 1];
                /* mapping keys must be scalars (complex keys make no sense here) */
                if (f->node->kind == BF_Y_MAP && f->n % 2 == 0 && node->kind != BF_Y_SCALAR) {
                    rc = perr(diag, origin, node->line, node->col, BF_E_PARSE,
                              "a mapping key must be a plain name, not a %s",
                              node->kind == BF_Y_MAP ? "mapping" : "list");
                } else if (node->kind == BF_Y_SCALAR) {
                    frame_push(f, node);
                }
            } else if (node->kind == BF_Y_SCALAR) {
                doc->root = node;
            }
            if (rc == BF_OK && node->kind != BF_Y_SCALAR) {
                stack[depth].node = node;
                stack[depth].items = NULL;
                stack[depth].n = stack[depth].cap = 0;
                depth++;
            }
        }
        yaml_event_delete(&ev);
        if (rc != BF_OK)
            break;
    }
    while (depth > 0)
        free(stack[--depth].items);
    yaml_parser_delete(&p);
    if (rc != BF_OK)
        return rc;
    if (doc->root == NULL || (doc->root->kind == BF_Y_SCALAR && bf_y_is_null(doc->root)))
        return bf_diag_set(diag, BF_E_INVAL,
                           "%s:1:1: the scenario is empty; it needs at least "
                           "name:, target: and document:",
                           origin);
    if (doc->root->kind != BF_Y_MAP)
        return perr(diag, origin, doc->root->line, doc->root->col, BF_E_INVAL,
                    "a scenario is a mapping of keys (name:, target:, document:, ...), not a %s",
                    bf_y_kind_name(doc->root));
    return BF_OK;
}

/* ---- typing -------------------------------------------------------------------------------- */

const char *bf_y_kind_name(const bf_ynode_t *n)
{
    if (n == NULL)
        return "nothing";
    switch (n->kind) {
    case BF_Y_SCALAR: return bf_y_is_null(n) ? "null" : "scalar";
    case BF_Y_SEQ: return "list";
    case BF_Y_MAP: return "mapping";
    }
    return "?";
}

int bf_y_is_null(const bf_ynode_t *n)
{
    if (n->kind != BF_Y_SCALAR || n->quoted)
        return 0;
    return n->len == 0 || strcmp(n->value, "~") == 0 || strcmp(n->value, "null") == 0 ||
           strcmp(n->value, "Null") == 0 || strcmp(n->value, "NULL") == 0;
}

int bf_y_bool(const bf_ynode_t *n, int *b)
{
    if (n == NULL || n->kind != BF_Y_SCALAR)
        return 0;
    static const char *yes[] = {"true", "yes", "on"}, *no[] = {"false", "no", "off"};
    for (size_t i = 0; i < 3; i++) {
        if (strcasecmp(n->value, yes[i]) == 0) {
            *b = 1;
            return 1;
        }
        if (strcasecmp(n->value, no[i]) == 0) {
            *b = 0;
            return 1;
        }
    }
    return 0;
}

const bf_ynode_t *bf_y_get(const bf_ynode_t *map, const char *key)
{
    if (map == NULL || map->kind != BF_Y_MAP)
        return NULL;
    for (size_t i = 0; i < map->n; i++)
        if (strcmp(map->items[2 * i]->value, key) == 0)
            return map->items[2 * i + 1];
    return NULL;
}

/* ---- environment substitution -------------------------------------------------------------- */

static int is_name_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static int is_name_char(char c)
{
    return is_name_start(c) || (c >= '0' && c <= '9');
}

/* Position of the k-th (0-based) occurrence of needle in scalar n's raw text. */
static int raw_find(const bf_ydoc_t *doc, const bf_ynode_t *n, const char *needle, size_t k,
                    uint32_t *line, uint32_t *col);

static int env_error(bf_ydoc_t *doc, bf_ynode_t *n, size_t occurrence, bf_diag_t *diag,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int env_error(bf_ydoc_t *doc, bf_ynode_t *n, size_t occurrence, bf_diag_t *diag,
                     const char *fmt, ...)
{
    uint32_t line = n->line, col = n->col;
    raw_find(doc, n, "${", occurrence, &line, &col);
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return bf_diag_set(diag, BF_E_NOTFOUND, "%s:%u:%u: %s", doc->origin, line, col, msg);
}

static int resolve_scalar(bf_ydoc_t *doc, bf_ynode_t *n, bf_diag_t *diag)
{
    if (strchr(n->value, '$') == NULL)
        return BF_OK;
    /* loadgen's environment syntax, anywhere (a password, a URL, an index name): it would be
     * sent as written */
    const char *lg = memmem(n->value, n->len, "$[[env.", 7);
    if (lg) {
        const char *name = lg + 7, *e = name;
        while (e < n->value + n->len && is_name_char(*e))
            e++;
        uint32_t line = n->line, col = n->col;
        raw_find(doc, n, "$[[env.", 0, &line, &col);
        return bf_diag_set(diag, BF_E_INVAL,
                           "%s:%u:%u: $[[env.%.*s]] is loadgen's environment "
                           "syntax; write ${%.*s} instead (${%.*s:-default} for a default)",
                           doc->origin, line, col, (int)(e - name), name, (int)(e - name), name,
                           (int)(e - name), name);
    }
    bf_buf_t out;
    bf_buf_init(&out, BF_MAX_SCENARIO_BYTES);
    const char *s = n->value, *end = n->value + n->len;
    size_t occurrence = 0;
    int changed = 0, rc = BF_OK;
    while (s < end) {
        const char *d = memchr(s, '$', (size_t)(end - s));
        if (d == NULL) {
            rc = bf_buf_append(&out, s, (size_t)(end - s));
            break;
        }
        rc = bf_buf_append(&out, s, (size_t)(d - s));
        if (rc != BF_OK)
            break;
        if (d + 2 < end && d[1] == '$' && d[2] == '{') {
            /* $${ -> literal ${ */
            rc = bf_buf_append(&out, "${", 2);
            s = d + 3;
            changed = 1;
            occurrence++;
            continue;
        }
        if (d + 1 >= end || d[1] != '{') {
            rc = bf_buf_append(&out, "$", 1);
            s = d + 1;
            continue;
        }
        const char *name = d + 2, *p = name;
        while (p < end && is_name_char(*p))
            p++;
        if (p == name || !is_name_start(*name)) {
            rc = env_error(doc, n, occurrence, diag,
                           "'${' must be followed by an environment variable name and '}' "
                           "(write $${ for a literal ${)");
            break;
        }
        const char *def = NULL, *def_end = NULL;
        if (p + 1 < end && p[0] == ':' && p[1] == '-') {
            def = p + 2;
            def_end = memchr(def, '}', (size_t)(end - def));
            if (def_end == NULL) {
                rc = env_error(doc, n, occurrence, diag, "unterminated ${%.*s:-...}: add '}'",
                               (int)(p - name), name);
                break;
            }
            p = def_end;
        }
        if (p >= end || *p != '}') {
            rc = env_error(doc, n, occurrence, diag,
                           "unterminated or malformed ${%.*s...}: expected '}' after the name "
                           "(or ':-default}')",
                           (int)(p - name), name);
            break;
        }
        char vname[256];
        size_t nl = (size_t)((def ? def - 2 : p) - name);
        if (nl >= sizeof vname) {
            rc = env_error(doc, n, occurrence, diag, "environment variable name too long");
            break;
        }
        memcpy(vname, name, nl);
        vname[nl] = '\0';
        const char *val = getenv(vname);
        if (def && (val == NULL || *val == '\0')) {
            rc = bf_buf_append(&out, def, (size_t)(def_end - def));
        } else if (val == NULL && doc->env_unset) {
            rc = bf_buf_appendz(&out, doc->env_unset);
        } else if (val == NULL && doc->env_warn) {
            /* a stand-in that passes the key's checks where it can: a URL under hosts, a
             * number for a plain scalar that is only the variable, else a name */
            int whole = n->style == YAML_PLAIN_SCALAR_STYLE && name == n->value + 2 &&
                        p + 1 == n->value + n->len;
            char stand[300];
            if (doc->in_url)
                snprintf(stand, sizeof stand, "http://unset.invalid:9200");
            else if (whole)
                snprintf(stand, sizeof stand, "1");
            else /* lower case: it may stand in an index name */
                snprintf(stand, sizeof stand, "unset-%s", vname);
            for (char *c = stand; !doc->in_url && *c; c++)
                if (*c >= 'A' && *c <= 'Z')
                    *c = (char)(*c - 'A' + 'a');
            rc = bf_buf_appendz(&out, stand);
            uint32_t line = n->line, col = n->col;
            raw_find(doc, n, "${", occurrence, &line, &col);
            doc->unset_warnings =
                bf_realloc(doc->unset_warnings, (doc->nunset + 1) * sizeof *doc->unset_warnings);
            doc->unset_warnings[doc->nunset++] = bf_asprintf(
                "%s:%u:%u: environment variable %s is not set (checked with \"%s\" "
                "in its place; run needs it: export it, or write ${%s:-default}; validate "
                "--strict makes this an error)",
                doc->origin, line, col, vname, stand, vname);
        } else if (val == NULL) {
            rc = env_error(doc, n, occurrence, diag,
                           "environment variable %s is not set; export it, or write "
                           "${%s:-default} to give a default",
                           vname, vname);
            break;
        } else {
            rc = bf_buf_appendz(&out, val);
        }
        if (rc != BF_OK)
            break;
        s = p + 1;
        changed = 1;
        occurrence++;
    }
    if (rc == BF_E_TOOBIG)
        rc = bf_diag_set(diag, BF_E_TOOBIG,
                         "%s:%u:%u: value too large after ${VAR} "
                         "substitution",
                         doc->origin, n->line, n->col);
    if (rc == BF_OK && changed && !bf_utf8_valid(out.data ? out.data : "", out.len))
        rc = env_error(doc, n, 0, diag,
                       "the value substituted from the environment is not "
                       "valid UTF-8");
    if (rc == BF_OK && changed) {
        n->value = bf_ydoc_strdup(doc, out.data ? out.data : "", out.len);
        n->len = out.len;
        n->env = 1;
    }
    bf_buf_cleanup(&out);
    return rc;
}

int bf_ydoc_resolve_env(bf_ydoc_t *doc, bf_diag_t *diag)
{
    /* iterative walk: an explicit stack of (node, next child) */
    struct {
        bf_ynode_t *n;
        size_t i;
        int url; /* under a "hosts" key: a stand-in must be a URL (env_warn) */
    } st[BF_YAML_MAX_DEPTH + 2];
    size_t d = 0;
    if (doc->root == NULL)
        return BF_OK;
    st[d].n = doc->root;
    st[d].i = 0;
    st[d].url = 0;
    d++;
    while (d > 0) {
        bf_ynode_t *n = st[d - 1].n;
        if (n->kind == BF_Y_SCALAR) {
            d--;
            doc->in_url = st[d].url;
            int rc = resolve_scalar(doc, n, diag);
            if (rc != BF_OK)
                return rc;
            continue;
        }
        size_t total = n->kind == BF_Y_MAP ? n->n * 2 : n->n;
        size_t i = st[d - 1].i;
        if (i >= total) {
            d--;
            continue;
        }
        st[d - 1].i++;
        if (n->kind == BF_Y_MAP && i % 2 == 0)
            continue; /* keys are names, never substituted */
        if (d >= BF_YAML_MAX_DEPTH + 2)
            continue;
        st[d].n = n->items[i];
        st[d].i = 0;
        st[d].url = st[d - 1].url || (n->kind == BF_Y_MAP && n->items[i - 1]->value &&
                                      strcmp(n->items[i - 1]->value, "hosts") == 0);
        d++;
    }
    return BF_OK;
}

/* ---- positions ----------------------------------------------------------------------------- */

/* Byte offset in doc->text of libyaml character index `ci` (the BOM is not counted). */
static size_t char_to_byte(const bf_ydoc_t *doc, size_t ci)
{
    const unsigned char *t = (const unsigned char *)doc->text;
    size_t i = 0, c = 0;
    if (doc->len >= 3 && t[0] == 0xEF && t[1] == 0xBB && t[2] == 0xBF)
        i = 3;
    while (i < doc->len && c < ci) {
        i++;
        while (i < doc->len && (t[i] & 0xC0) == 0x80)
            i++;
        c++;
    }
    return i;
}

/* Advance (line, col) over raw bytes [from, to). */
static void advance_pos(const char *t, size_t from, size_t to, uint32_t *line, uint32_t *col)
{
    for (size_t i = from; i < to; i++) {
        unsigned char c = (unsigned char)t[i];
        if (c == '\n') {
            (*line)++;
            *col = 1;
        } else if ((c & 0xC0) != 0x80 && c != '\r') {
            (*col)++;
        }
    }
}

static int raw_find(const bf_ydoc_t *doc, const bf_ynode_t *n, const char *needle, size_t k,
                    uint32_t *line, uint32_t *col)
{
    if (doc->text == NULL)
        return 0;
    size_t b0 = char_to_byte(doc, n->start_char), b1 = char_to_byte(doc, n->end_char);
    size_t nl = strlen(needle), seen = 0;
    if (b1 > doc->len)
        b1 = doc->len;
    for (size_t i = b0; i + nl <= b1; i++) {
        if (memcmp(doc->text + i, needle, nl) != 0)
            continue;
        if (seen++ == k) {
            *line = n->line;
            *col = n->col;
            advance_pos(doc->text, b0, i, line, col);
            return 1;
        }
    }
    return 0;
}

void bf_ydoc_locate(const bf_ydoc_t *doc, const bf_ynode_t *n, size_t offset, const char *anchor,
                    uint32_t *line, uint32_t *col)
{
    *line = n->line;
    *col = n->col;
    if (doc->text == NULL || n->kind != BF_Y_SCALAR)
        return;
    size_t b0 = char_to_byte(doc, n->start_char), b1 = char_to_byte(doc, n->end_char);
    if (b1 > doc->len || b0 > b1)
        return;
    size_t q =
        (n->style == YAML_SINGLE_QUOTED_SCALAR_STYLE || n->style == YAML_DOUBLE_QUOTED_SCALAR_STYLE)
            ? 1
            : 0;
    /* the raw text is the value itself: map directly */
    if (!n->env && b1 - b0 == n->len + 2 * q && offset <= n->len &&
        memcmp(doc->text + b0 + q, n->value, n->len) == 0) {
        advance_pos(doc->text, b0, b0 + q + offset, line, col);
        return;
    }
    /* a literal block (|): value line k is raw line k after the indicator's, less the block's
     * indentation (the first non-blank line's) */
    if (!n->env && n->style == YAML_LITERAL_SCALAR_STYLE && offset <= n->len) {
        const char *t = doc->text;
        size_t p = b0;
        while (p < b1 && t[p] != '\n')
            p++;
        p += p < b1;
        size_t indent = 0;
        for (size_t r = p; r < b1;) {
            size_t sp = 0;
            while (r + sp < b1 && t[r + sp] == ' ')
                sp++;
            if (r + sp < b1 && t[r + sp] != '\n' && t[r + sp] != '\r') {
                indent = sp;
                break;
            }
            while (r < b1 && t[r] != '\n')
                r++;
            r++;
        }
        size_t vline = 0, vcol = 0;
        for (size_t i = 0; i < offset; i++) {
            if (n->value[i] == '\n') {
                vline++;
                vcol = 0;
            } else {
                vcol++;
            }
        }
        for (size_t k = 0; k < vline && p < b1; k++) {
            while (p < b1 && t[p] != '\n')
                p++;
            p++;
        }
        if (p + indent + vcol <= doc->len) {
            advance_pos(t, b0, p + indent + vcol, line, col);
            return;
        }
        *line = n->line;
        *col = n->col;
    }
    if (anchor == NULL || n->env || offset > n->len)
        return;
    /* count anchors in the value before the offset, find the same one in the raw text */
    size_t al = strlen(anchor), k = 0;
    const char *v = n->value;
    size_t last = SIZE_MAX;
    for (size_t i = 0; i + al <= n->len && i <= offset; i++)
        if (memcmp(v + i, anchor, al) == 0) {
            last = i;
            k++;
        }
    if (last == SIZE_MAX)
        return;
    raw_find(doc, n, anchor, k - 1, line, col);
    (void)last;
}

/* ---- emission ------------------------------------------------------------------------------ */

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
    return bf_buf_append((bf_buf_t *)data, buffer, size) == BF_OK;
}

/* "scheme://user:password@host" -> "scheme://user:<redacted>@host": bf_url.h */
static char *redact_userinfo(const char *url)
{
    return bf_url_redact_userinfo(url);
}

static int emit_scalar(yaml_emitter_t *e, const bf_ynode_t *n, int redact)
{
    yaml_event_t ev;
    const char *v = n->value;
    size_t len = n->len;
    yaml_scalar_style_t style = (yaml_scalar_style_t)n->style;
    char *tmp = NULL;
    if (redact && n->secret) {
        v = "<redacted>";
        len = strlen(v);
        style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    } else if (redact && n->url_userinfo && (tmp = redact_userinfo(n->value)) != NULL) {
        v = tmp;
        len = strlen(tmp);
    } else if (!n->quoted && bf_y_is_null(n)) {
        v = "~";
        len = 1;
        style = YAML_PLAIN_SCALAR_STYLE;
    } else if (n->quoted && style == YAML_PLAIN_SCALAR_STYLE) {
        style = YAML_DOUBLE_QUOTED_SCALAR_STYLE; /* was tagged !!str */
    } else if (style == YAML_FOLDED_SCALAR_STYLE) {
        style = YAML_LITERAL_SCALAR_STYLE;
    }
    if (n->quoted && style == YAML_LITERAL_SCALAR_STYLE &&
        (len == 0 || strpbrk(v, "\t\r") || v[0] == ' ' || v[0] == '\n'))
        style = YAML_DOUBLE_QUOTED_SCALAR_STYLE; /* let libyaml not guess at edge cases */
    int ok =
        yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)v, (int)len, 1, 1, style) &&
        yaml_emitter_emit(e, &ev);
    free(tmp);
    return ok;
}

char *bf_ydoc_emit(const bf_ydoc_t *doc, int redact)
{
    bf_buf_t out;
    bf_buf_init(&out, 0);
    yaml_emitter_t e;
    yaml_event_t ev;
    yaml_emitter_initialize(&e);
    yaml_emitter_set_output(&e, write_handler, &out);
    yaml_emitter_set_unicode(&e, 1);
    yaml_emitter_set_width(&e, -1);
    yaml_emitter_set_indent(&e, 2);
    int ok = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) &&
             yaml_emitter_emit(&e, &ev) &&
             yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) &&
             yaml_emitter_emit(&e, &ev);
    /* iterative walk: (node, next child); a collection is started when first visited */
    struct {
        const bf_ynode_t *n;
        size_t i;
        int started;
    } st[BF_YAML_MAX_DEPTH + 2];
    size_t d = 0;
    if (ok && doc->root) {
        st[0].n = doc->root;
        st[0].i = 0;
        st[0].started = 0;
        d = 1;
    }
    while (ok && d > 0) {
        const bf_ynode_t *n = st[d - 1].n;
        if (n->kind == BF_Y_SCALAR) {
            ok = emit_scalar(&e, n, redact);
            d--;
            continue;
        }
        if (!st[d - 1].started) {
            if (n->kind == BF_Y_MAP)
                ok = yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
                                                         n->flow ? YAML_FLOW_MAPPING_STYLE
                                                                 : YAML_BLOCK_MAPPING_STYLE);
            else
                ok = yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
                                                          n->flow ? YAML_FLOW_SEQUENCE_STYLE
                                                                  : YAML_BLOCK_SEQUENCE_STYLE);
            ok = ok && yaml_emitter_emit(&e, &ev);
            st[d - 1].started = 1;
            if (!ok)
                break;
        }
        size_t total = n->kind == BF_Y_MAP ? n->n * 2 : n->n;
        size_t i = st[d - 1].i;
        if (i >= total) {
            ok = (n->kind == BF_Y_MAP ? yaml_mapping_end_event_initialize(&ev)
                                      : yaml_sequence_end_event_initialize(&ev)) &&
                 yaml_emitter_emit(&e, &ev);
            d--;
            continue;
        }
        st[d - 1].i++;
        if (d >= BF_YAML_MAX_DEPTH + 2) {
            ok = 0; /* cannot happen: the parser caps the depth */
            break;
        }
        st[d].n = n->items[i];
        st[d].i = 0;
        st[d].started = 0;
        d++;
    }
    ok = ok && yaml_document_end_event_initialize(&ev, 1) && yaml_emitter_emit(&e, &ev) &&
         yaml_stream_end_event_initialize(&ev) && yaml_emitter_emit(&e, &ev);
    yaml_emitter_delete(&e);
    if (!ok) {
        bf_buf_cleanup(&out);
        return NULL;
    }
    return bf_buf_steal(&out);
}

/* ---- YAML -> JSON ---------------------------------------------------------------------------- */

static int all_digits(const char *s, size_t from)
{
    if (s[from] == '\0')
        return 0;
    for (size_t i = from; s[i]; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* YAML 1.2 core schema for plain scalars: null, true/false, integers, floats; else string. */
json_t *bf_y_scalar_to_json(const bf_ynode_t *n)
{
    const char *v = n->value;
    if (!n->quoted) {
        if (bf_y_is_null(n))
            return json_null();
        if (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "TRUE"))
            return json_true();
        if (!strcmp(v, "false") || !strcmp(v, "False") || !strcmp(v, "FALSE"))
            return json_false();
        size_t sign = (v[0] == '-' || v[0] == '+') ? 1 : 0;
        if (all_digits(v, sign)) {
            /* every int64 (19 digits) exactly; beyond that jansson has no integer type, so
             * the text stays a string rather than a rounded double */
            errno = 0;
            long long x = strtoll(v, NULL, 10);
            if (errno != ERANGE)
                return json_integer(x);
        } else if (bf_json_is_literal(v + (v[0] == '+'), n->len - (v[0] == '+'))) {
            double d;
            if (bf_units_parse_double(v, &d) == BF_OK)
                return json_real(d);
        }
    }
    json_t *s = json_stringn(v, n->len);
    return s ? s : json_string("");
}

json_t *bf_y_to_json(const bf_ynode_t *n)
{
    switch (n->kind) {
    case BF_Y_SCALAR: return bf_y_scalar_to_json(n);
    case BF_Y_SEQ: {
        json_t *a = json_array();
        for (size_t i = 0; i < n->n; i++)
            json_array_append_new(a, bf_y_to_json(n->items[i]));
        return a;
    }
    case BF_Y_MAP: {
        json_t *o = json_object();
        for (size_t i = 0; i < n->n; i++)
            json_object_set_new(o, n->items[2 * i]->value, bf_y_to_json(n->items[2 * i + 1]));
        return o;
    }
    }
    return json_null();
}
