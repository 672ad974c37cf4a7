/* SPDX-License-Identifier: MIT */
/* bf_template.c — compile document templates; render bulk bodies (the agent's hot path).
 *
 * Compilation turns document.id / routing / pipeline and document.source into one list of
 * operations per document: copy a literal, copy a variable's value, or copy it escaped. The
 * `_index` prefix of the action line is per index of the cell and prepended at render time.
 * Rendering makes no allocation, no printf and no lock: each worker's bf_gen_t keeps one value
 * slot per variable (stamped per document / per request, so a document-scope value is drawn once
 * and shared by every placeholder of that document), reserves the document's worst-case size
 * once and writes with memcpy.
 *
 * Placeholder rendering (decided here, documented in bf_template.h):
 *   inside a JSON string  -> the value's text (already JSON-escaped); a random_array is escaped
 *                            again so its quotes stay inside the string;
 *   outside JSON strings  -> numbers (sequence, range, now_unix*) bare; list/file values bare
 *                            when every value is a JSON literal (number, true, false, null);
 *                            other strings (uuid, ids, times, dictionary lines) quoted, so
 *                            `"msg": $[[line]]` renders the same as `"msg": "$[[line]]"`;
 *                            random_array as written (its own brackets and quotes).
 * Line breaks outside JSON strings (and the indentation after them) are removed, so a
 * pretty-printed source_file renders as one NDJSON line.
 */
#include "bf_template.h"

#include "bf_jsonesc.h"
#include "bf_mem.h"
#include "bf_scenario_int.h"
#include "bf_vars.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op_kind { OP_LIT = 0, OP_VAL, OP_ESC };

typedef struct op {
    uint8_t kind;
    uint8_t field;    /* enum bf__tfield, for mapping errors back */
    uint8_t verbatim; /* OP_LIT copied unchanged from the template text */
    uint32_t var;     /* OP_VAL, OP_ESC */
    size_t off, len;  /* OP_LIT: bytes in t->lit */
    size_t src_off;   /* offset in the field's template text */
} op;

/* The rendering plan (render_doc_fast): one step per placeholder, each with the literal that
 * follows it, so a document is one pass over a short array. A document-scope value used once
 * is drawn straight into the output (no slot, no stamp); one used again is drawn into its slot
 * at its first placeholder and copied from there at the others, which is when and how often
 * value() draws it: the RNG sees the same draws in the same order, and the bytes are the same
 * (test_render_golden). */
enum fast_kind {
    F_NONE = 0, /* only the literal (the document's first piece) */
    F_DICT,     /* file / list used once: draw an item, copy it */
    F_POOL,     /* range used once, values formatted at compile time: draw, copy 8 bytes */
    F_RANGE,    /* range used once, not pooled: draw, format into the output */
    F_TIME,     /* time type used once: one value per clock reading (render call), copied */
    F_GEN,      /* other type used once: bf_vars_eval writes into the output */
    F_DRAW,     /* first of several uses, or escaped again: draw into the slot, then emit */
    F_REUSE,    /* a later use of a document-scope value: emit the slot's */
    F_VALUE,    /* request scope: value(), by its stamp */
};

#define POOL_MAX_VALUES 4096 /* a range of at most this many values (36 KiB) is pre-formatted */
#define LIT_PAD 32           /* literals are copied 32 bytes at a time: pool and output slack */

typedef struct fop {
    uint8_t kind; /* enum fast_kind */
    uint8_t esc;  /* OP_ESC: escaped again (random_array inside a string) */
    uint32_t var;
    uint32_t lit_len;    /* the literal after the value */
    const char *lit;     /* in t->plan_lit (padded) */
    uint64_t n;          /* F_DICT: items; F_POOL, F_RANGE: values (the range's span) */
    int64_t from;        /* F_RANGE */
    const char *values;  /* F_DICT: the spec's; F_POOL: 8 bytes a value */
    const size_t *off;   /* F_DICT */
    const uint8_t *plen; /* F_POOL: length of each value */
} fop;

typedef struct pool {
    char *text; /* 8 bytes a value, from + k at 8k */
    uint8_t *len;
} pool;

struct bf_tmpl {
    const bf_scenario_t *sc;
    const bf_var_spec_t *vars;
    size_t nvars;
    size_t *var_max; /* bf_var_max_len per variable */
    size_t scratch_total;
    bf_buf_t lit; /* literal pool, in op order */
    op *dops;     /* one op per piece, with positions (checks) */
    size_t ndops;
    op *ops; /* adjacent literals merged (rendering) */
    size_t nops;
    size_t max_bytes;        /* worst case of one document, without the _index prefix */
    const char *action;      /* "index" | "create" | "update" | "delete" */
    int no_source;           /* delete: the action line is the whole document */
    char *body_name;         /* a query body (bf_tmpl_compile_body): its key path for messages; NULL
                                for the document template */
    size_t esc_max;          /* largest OP_ESC value (slow-path scratch) */
    int corpus;              /* document.corpus: ops are the action line's fields only */
    int by_file;             /* document.corpus.indices: by_file: file k's documents, index k */
    int has_id, has_routing; /* the template sets _id / routing (else the corpus's) */
    int ndjson;              /* a query body of JSON lines (_msearch): each line break outside a
                                string ends a line, kept as one '\n'; blank lines dropped */
    fop *fops;               /* the rendering plan of ops (render_doc_fast) */
    size_t nfops;
    char *plan_lit; /* lit's bytes + LIT_PAD zeros */
    pool *pools;    /* per variable; text NULL when not pooled */
};

/* ---- compilation --------------------------------------------------------------------------- */

typedef struct compiler {
    bf_tmpl_t *t;
    size_t cap;
    bf__tmpl_locate_fn loc;
    void *loc_ctx;
    bf_diag_t *diag;
    bf__tmpl_collect_fn collect; /* validate: takes each placeholder mistake, compiling goes on */
    void *collect_ctx;
    size_t ncollected;
} compiler;

/* A placeholder mistake (in c->diag): 1 when the collector took it and compiling goes on past
 * the placeholder, 0 when it ends the compile. */
static int collected(compiler *c, int rc)
{
    if (c->collect == NULL || !c->collect(c->collect_ctx, rc))
        return 0;
    c->ncollected++;
    return 1;
}

static void push_op(compiler *c, op o)
{
    bf_tmpl_t *t = c->t;
    if (t->ndops == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 32;
        t->dops = bf_realloc(t->dops, c->cap * sizeof *t->dops);
    }
    t->dops[t->ndops++] = o;
}

static void push_lit(compiler *c, const char *s, size_t n, enum bf__tfield field, size_t src_off,
                     int verbatim)
{
    if (n == 0)
        return;
    op o = {.kind = OP_LIT,
            .field = (uint8_t)field,
            .verbatim = (uint8_t)verbatim,
            .off = c->t->lit.len,
            .len = n,
            .src_off = src_off};
    bf_buf_append(&c->t->lit, s, n);
    push_op(c, o);
}

static const char *field_name_of(const bf_tmpl_t *t, enum bf__tfield f)
{
    if (t->body_name)
        return t->body_name;
    switch (f) {
    case BF__TF_SOURCE: return "document.source";
    case BF__TF_ID: return "document.id";
    case BF__TF_ROUTING: return "document.routing";
    case BF__TF_PIPELINE: return "document.pipeline";
    }
    return "document";
}

#define field_name(f) field_name_of(c->t, (f))

static void where(compiler *c, enum bf__tfield field, size_t offset, char *buf, size_t size)
{
    if (c->loc) {
        c->loc(c->loc_ctx, field, offset, buf, size);
        return;
    }
    snprintf(buf, size, "%s: %s, byte %zu", bf_scenario_origin(c->t->sc), field_name(field),
             offset);
}

/* Parses "$[[name]]" at s[i]; returns the variable index via *var and the end via *end (set
 * on a mistake too: where compiling goes on when the mistake is collected). The name is what
 * variable names are made of: "$[[bytes], ... $[[line]]" is an unclosed placeholder at i, not
 * a variable named "bytes], ... $[[line". */
static int placeholder(compiler *c, const char *s, size_t len, size_t i, enum bf__tfield field,
                       size_t *var, size_t *end)
{
    char pos[400];
    size_t j = i + 3;
    while (j < len && bf__varname_char(s[j]) && j - i < 200)
        j++;
    *end = i + 3;
    if (j + 1 >= len || s[j] != ']' || s[j + 1] != ']') {
        where(c, field, i, pos, sizeof pos);
        size_t nl = j - (i + 3);
        if (j >= len || s[j] == '\n' || s[j] == '\r')
            return bf_diag_set(c->diag, BF_E_INVAL,
                               "%s: %s: unclosed placeholder '$[[%.*s': "
                               "no ']]' before the end of the %s; placeholders look like "
                               "$[[name]]",
                               pos, field_name(field), (int)(nl > 60 ? 60 : nl), s + i + 3,
                               j >= len ? "text" : "line");
        unsigned char ch = (unsigned char)s[j];
        char what[16];
        if (bf__varname_char(s[j]))
            snprintf(what, sizeof what, "%s", "200 characters");
        else if (ch >= 0x20 && ch < 0x7f)
            snprintf(what, sizeof what, "'%c'", ch);
        else
            snprintf(what, sizeof what, "byte 0x%02x", ch);
        return bf_diag_set(c->diag, BF_E_INVAL,
                           "%s: %s: unclosed placeholder '$[[%.*s': "
                           "%s follow%s where ']]' should; placeholders look like $[[name]] "
                           "(a name of letters, digits, '_', '-' and '.')",
                           pos, field_name(field), (int)(nl > 60 ? 60 : nl), s + i + 3, what,
                           bf__varname_char(s[j]) ? "" : "s");
    }
    size_t nl = j - (i + 3);
    char name[256];
    memcpy(name, s + i + 3, nl);
    name[nl] = '\0';
    long v = nl ? bf_scenario_variable_find(c->t->sc, name) : -1;
    if (v < 0) {
        *end = j + 2;
        where(c, field, i, pos, sizeof pos);
        if (strncmp(name, "env.", 4) == 0)
            return bf_diag_set(c->diag, BF_E_INVAL,
                               "%s: %s: $[[%s]] is loadgen's environment "
                               "syntax; write ${%s} instead",
                               pos, field_name(field), name, name + 4);
        const char *names[BF__MAX_VARIABLES];
        size_t n = c->t->nvars < BF__MAX_VARIABLES ? c->t->nvars : BF__MAX_VARIABLES;
        for (size_t k = 0; k < n; k++)
            names[k] = c->t->vars[k].name;
        const char *dym = nl ? bf__did_you_mean(name, names, n) : NULL;
        if (dym)
            return bf_diag_set(c->diag, BF_E_INVAL,
                               "%s: %s: $[[%s]] names no variable; did "
                               "you mean $[[%s]]?",
                               pos, field_name(field), name, dym);
        return bf_diag_set(c->diag, BF_E_INVAL,
                           "%s: %s: $[[%s]] names no variable; declare "
                           "it under variables:",
                           pos, field_name(field), name);
    }
    *var = (size_t)v;
    *end = j + 2;
    return BF_OK;
}

/* Adds the ops for variable v at template offset src_off, inside or outside a JSON string. */
static void push_var(compiler *c, size_t v, int in_string, enum bf__tfield field, size_t src_off)
{
    const bf_var_spec_t *s = &c->t->vars[v];
    op o = {.kind = OP_VAL, .field = (uint8_t)field, .var = (uint32_t)v, .src_off = src_off};
    if (in_string) {
        if (s->kind == BF_VAR_KIND_FRAGMENT) {
            o.kind = OP_ESC;
            if (c->t->var_max[v] > c->t->esc_max)
                c->t->esc_max = c->t->var_max[v];
        }
        push_op(c, o);
        return;
    }
    if (s->kind == BF_VAR_KIND_STRING) {
        push_lit(c, "\"", 1, field, src_off, 0);
        push_op(c, o);
        push_lit(c, "\"", 1, field, src_off, 0);
        return;
    }
    push_op(c, o);
}

/* An action-line value (id, routing, pipeline): a JSON string; literals are escaped here. */
static int compile_string_field(compiler *c, const char *s, enum bf__tfield field)
{
    size_t len = strlen(s), i = 0, lit_start = 0;
    while (i <= len) {
        int at_ph = i + 2 < len && s[i] == '$' && s[i + 1] == '[' && s[i + 2] == '[';
        if (i == len || at_ph) {
            if (i > lit_start) {
                const char *p = s + lit_start;
                size_t n = i - lit_start;
                if (bf_jsonesc_needed(p, n)) {
                    char *e = bf_malloc(bf_jsonesc_bound(n));
                    size_t el = bf_jsonesc_write(e, p, n);
                    push_lit(c, e, el, field, lit_start, 0);
                    free(e);
                } else {
                    push_lit(c, p, n, field, lit_start, 1);
                }
            }
            if (i == len)
                break;
            size_t v, end;
            int rc = placeholder(c, s, len, i, field, &v, &end);
            if (rc != BF_OK && !collected(c, rc))
                return rc;
            if (rc == BF_OK)
                push_var(c, v, 1, field, i);
            i = lit_start = end;
            continue;
        }
        i++;
    }
    return BF_OK;
}

/* The source: JSON text with placeholders. Tracks whether each placeholder sits inside a JSON
 * string; drops line breaks (and the indentation after them) outside strings, or, for an
 * NDJSON body (t->ndjson), ends the line there with one '\n' (none after a blank line; the
 * last line gets one too, as _msearch wants). */
static int compile_source(compiler *c, const char *s)
{
    size_t len = strlen(s), i = 0, lit_start = 0;
    int in_str = 0, esc = 0;
    int line_has = 0; /* ndjson: the current line has more than white space */
    while (i < len) {
        char ch = s[i];
        if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r')
            line_has = 1;
        if (ch == '$' && i + 2 < len && s[i + 1] == '[' && s[i + 2] == '[') {
            push_lit(c, s + lit_start, i - lit_start, BF__TF_SOURCE, lit_start, 1);
            size_t v, end;
            int rc = placeholder(c, s, len, i, BF__TF_SOURCE, &v, &end);
            if (rc != BF_OK && !collected(c, rc))
                return rc;
            if (rc == BF_OK)
                push_var(c, v, in_str, BF__TF_SOURCE, i);
            i = lit_start = end;
            esc = 0;
            continue;
        }
        if (in_str) {
            if (esc)
                esc = 0;
            else if (ch == '\\')
                esc = 1;
            else if (ch == '"')
                in_str = 0;
            i++;
            continue;
        }
        if (ch == '"') {
            in_str = 1;
            i++;
            continue;
        }
        if (ch == '\n' || ch == '\r') {
            push_lit(c, s + lit_start, i - lit_start, BF__TF_SOURCE, lit_start, 1);
            if (c->t->ndjson && line_has)
                push_lit(c, "\n", 1, BF__TF_SOURCE, i, 0);
            line_has = 0;
            while (i < len && (s[i] == '\n' || s[i] == '\r' || s[i] == ' ' || s[i] == '\t'))
                i++;
            lit_start = i;
            continue;
        }
        i++;
    }
    push_lit(c, s + lit_start, len - lit_start, BF__TF_SOURCE, lit_start, 1);
    if (c->t->ndjson && line_has)
        push_lit(c, "\n", 1, BF__TF_SOURCE, len, 0);
    return BF_OK;
}

static size_t op_max(const bf_tmpl_t *t, const op *o)
{
    switch ((enum op_kind)o->kind) {
    case OP_LIT: return o->len;
    case OP_VAL: return t->var_max[o->var];
    case OP_ESC: return 2 * t->var_max[o->var];
    }
    return 0;
}

static bf_tmpl_t *tmpl_alloc(const bf_scenario_t *sc)
{
    bf_tmpl_t *t = bf_calloc(1, sizeof *t);
    t->sc = sc;
    t->vars = bf_scenario_variables(sc);
    t->nvars = bf_scenario_variable_count(sc);
    t->var_max = bf_calloc(t->nvars ? t->nvars : 1, sizeof *t->var_max);
    for (size_t i = 0; i < t->nvars; i++) {
        t->var_max[i] = bf_var_max_len(t->vars, i);
        t->scratch_total += t->var_max[i];
    }
    bf_buf_init(&t->lit, 0);
    return t;
}

/* merged list for rendering: literal pieces are contiguous in the pool, in op order */
static void tmpl_merge_ops(bf_tmpl_t *t)
{
    t->ops = bf_malloc((t->ndops ? t->ndops : 1) * sizeof *t->ops);
    for (size_t i = 0; i < t->ndops; i++) {
        const op *o = &t->dops[i];
        t->max_bytes += op_max(t, o);
        if (o->kind == OP_LIT && t->nops > 0 && t->ops[t->nops - 1].kind == OP_LIT &&
            t->ops[t->nops - 1].off + t->ops[t->nops - 1].len == o->off) {
            t->ops[t->nops - 1].len += o->len;
            continue;
        }
        t->ops[t->nops++] = *o;
    }
}

/* The range values of spec s formatted into a pool (every value at most 8 characters and at
 * most POOL_MAX_VALUES of them; else p stays empty): rendering one is then a draw and a copy of
 * 8 bytes, the same draw bf_vars_eval makes (from + bf_rng_below(span)). */
static void pool_build(const bf_var_spec_t *s, pool *p)
{
    uint64_t span = (uint64_t)s->to - (uint64_t)s->from + 1u;
    if (s->type != BF_VAR_RANGE || span == 0 || span > POOL_MAX_VALUES)
        return;
    char tmp[24];
    if (bf_fmt_i64(tmp, s->from) > 8 || bf_fmt_i64(tmp, s->to) > 8)
        return; /* the longest values are at the ends of a range */
    p->text = bf_calloc(span, 8);
    p->len = bf_malloc(span);
    for (uint64_t k = 0; k < span; k++) {
        size_t n = bf_fmt_i64(tmp, (int64_t)((uint64_t)s->from + k));
        memcpy(p->text + 8 * k, tmp, n);
        p->len[k] = (uint8_t)n;
    }
}

/* The rendering plan of t->ops (see enum fast_kind). */
static void tmpl_plan(bf_tmpl_t *t)
{
    t->plan_lit = bf_calloc(t->lit.len + LIT_PAD, 1);
    if (t->lit.len)
        memcpy(t->plan_lit, t->lit.data, t->lit.len);
    t->pools = bf_calloc(t->nvars ? t->nvars : 1, sizeof *t->pools);
    for (size_t v = 0; v < t->nvars; v++)
        pool_build(&t->vars[v], &t->pools[v]);
    unsigned char *seen = bf_calloc(t->nvars ? t->nvars : 1, 1);
    t->fops = bf_calloc(t->nops + 1, sizeof *t->fops);
    fop *cur = &t->fops[0];
    t->nfops = 1;
    for (size_t i = 0; i < t->nops; i++) {
        const op *o = &t->ops[i];
        if (o->kind == OP_LIT) {
            if (cur->lit_len) {
                cur = &t->fops[t->nfops++];
                cur->kind = F_NONE;
            }
            cur->lit = t->plan_lit + o->off;
            cur->lit_len = (uint32_t)o->len;
            continue;
        }
        cur = &t->fops[t->nfops++];
        cur->var = o->var;
        cur->esc = o->kind == OP_ESC;
        const bf_var_spec_t *s = &t->vars[o->var];
        if (s->scope == BF_VAR_SCOPE_REQUEST) {
            cur->kind = F_VALUE;
            continue;
        }
        if (seen[o->var]) {
            cur->kind = F_REUSE;
            continue;
        }
        seen[o->var] = 1;
        int again = 0;
        for (size_t j = i + 1; j < t->nops && !again; j++)
            again = t->ops[j].kind != OP_LIT && t->ops[j].var == o->var;
        if (again || cur->esc) {
            cur->kind = F_DRAW;
        } else if (s->type == BF_VAR_FILE || s->type == BF_VAR_LIST) {
            cur->kind = F_DICT;
            cur->n = s->nvalues;
            cur->values = s->values;
            cur->off = s->value_off;
        } else if (t->pools[o->var].text) {
            cur->kind = F_POOL;
            cur->n = (uint64_t)s->to - (uint64_t)s->from + 1u;
            cur->values = t->pools[o->var].text;
            cur->plen = t->pools[o->var].len;
        } else if (s->type == BF_VAR_RANGE) {
            cur->kind = F_RANGE;
            cur->n = (uint64_t)s->to - (uint64_t)s->from + 1u; /* 0: 2^64 */
            cur->from = s->from;
        } else if (s->type >= BF_VAR_NOW_LOCAL && s->type <= BF_VAR_NOW_WITH_FORMAT) {
            cur->kind = F_TIME;
        } else {
            cur->kind = F_GEN;
        }
    }
    free(seen);
}

static compiler compiler_new(bf_tmpl_t *t, bf__tmpl_locate_fn loc, void *loc_ctx,
                             bf__tmpl_collect_fn collect, void *collect_ctx, bf_diag_t *diag)
{
    compiler c = {.t = t,
                  .loc = loc,
                  .loc_ctx = loc_ctx,
                  .diag = diag,
                  .collect = collect,
                  .collect_ctx = collect_ctx};
    return c;
}

/* The end of a compile (rc its result): the template in *out, or destroyed with the error (a
 * collector that kept mistakes makes it BF_E_INVAL with an empty diag). */
static int compile_end(compiler *c, int rc, bf_tmpl_t **out)
{
    if (rc == BF_OK && c->ncollected)
        rc = BF_E_INVAL;
    if (rc != BF_OK) {
        bf_tmpl_destroy(&c->t);
        return rc;
    }
    tmpl_merge_ops(c->t);
    tmpl_plan(c->t);
    *out = c->t;
    return BF_OK;
}

int bf__tmpl_compile_body_loc(const bf_scenario_t *sc, const char *text, const char *what,
                              int ndjson, bf__tmpl_locate_fn loc, void *loc_ctx,
                              bf__tmpl_collect_fn collect, void *collect_ctx, bf_tmpl_t **out,
                              bf_diag_t *diag)
{
    *out = NULL;
    bf_tmpl_t *t = tmpl_alloc(sc);
    t->ndjson = ndjson != 0;
    t->body_name = bf_strdup(what ? what : "search body");
    t->action = "";
    compiler c = compiler_new(t, loc, loc_ctx, collect, collect_ctx, diag);
    return compile_end(&c, compile_source(&c, text ? text : ""), out);
}

int bf_tmpl_compile_body(const bf_scenario_t *sc, const char *text, const char *what,
                         bf_tmpl_t **out, bf_diag_t *diag)
{
    return bf__tmpl_compile_body_loc(sc, text, what, 0, NULL, NULL, NULL, NULL, out, diag);
}

int bf_tmpl_compile_ndjson_body(const bf_scenario_t *sc, const char *text, const char *what,
                                bf_tmpl_t **out, bf_diag_t *diag)
{
    return bf__tmpl_compile_body_loc(sc, text, what, 1, NULL, NULL, NULL, NULL, out, diag);
}

int bf__tmpl_compile_loc(const bf_scenario_t *sc, bf__tmpl_locate_fn loc, void *loc_ctx,
                         bf__tmpl_collect_fn collect, void *collect_ctx, bf_tmpl_t **out,
                         bf_diag_t *diag)
{
    *out = NULL;
    bf_tmpl_t *t = tmpl_alloc(sc);
    const bf_document_spec_t *d = bf_scenario_document(sc);
    static const char *const action_names[] = {"index", "create", "update", "delete"};
    t->action = action_names[d->action <= BF_ACTION_DELETE ? d->action : 0];
    t->no_source = d->action == BF_ACTION_DELETE;
    compiler c = compiler_new(t, loc, loc_ctx, collect, collect_ctx, diag);
    int rc = BF_OK;
    const char *names[] = {",\"_id\":\"", ",\"routing\":\"", ",\"pipeline\":\""};
    const char *vals[] = {d->id, d->routing, d->pipeline};
    enum bf__tfield fields[] = {BF__TF_ID, BF__TF_ROUTING, BF__TF_PIPELINE};
    for (int k = 0; k < 3 && rc == BF_OK; k++) {
        if (vals[k] == NULL)
            continue;
        push_lit(&c, names[k], strlen(names[k]), fields[k], 0, 0);
        rc = compile_string_field(&c, vals[k], fields[k]);
        push_lit(&c, "\"", 1, fields[k], strlen(vals[k]), 0);
    }
    t->corpus = d->corpus_path != NULL || d->corpus_local_path != NULL;
    t->by_file = t->corpus && d->corpus_by_file;
    t->has_id = d->id != NULL;
    t->has_routing = d->routing != NULL;
    if (rc == BF_OK && d->retry_on_conflict > 0) {
        char roc[48];
        int n = snprintf(roc, sizeof roc, ",\"retry_on_conflict\":%u", d->retry_on_conflict);
        push_lit(&c, roc, (size_t)n, BF__TF_ID, 0, 0);
    }
    if (rc == BF_OK && t->corpus) {
        /* a corpus: the source lines come from the file (bf_corpus) */
    } else if (rc == BF_OK && t->no_source) {
        push_lit(&c, "}}\n", 3, BF__TF_SOURCE, 0, 0); /* delete: no source line */
    } else if (rc == BF_OK) {
        int upd = d->action == BF_ACTION_UPDATE;
        const char *head = upd ? "}}\n{\"doc\":" : "}}\n";
        push_lit(&c, head, strlen(head), BF__TF_SOURCE, 0, 0);
        rc = compile_source(&c, d->source ? d->source : "");
        size_t end = d->source ? strlen(d->source) : 0;
        if (upd && d->upsert)
            push_lit(&c, ",\"doc_as_upsert\":true}", strlen(",\"doc_as_upsert\":true}"),
                     BF__TF_SOURCE, end, 0);
        else if (upd)
            push_lit(&c, "}", 1, BF__TF_SOURCE, end, 0);
        push_lit(&c, "\n", 1, BF__TF_SOURCE, end, 0);
    }
    return compile_end(&c, rc, out);
}

int bf_tmpl_compile(const bf_scenario_t *sc, bf_tmpl_t **out, bf_diag_t *diag)
{
    return bf__tmpl_compile_loc(sc, NULL, NULL, NULL, NULL, out, diag);
}

void bf_tmpl_destroy(bf_tmpl_t **t_p)
{
    if (t_p == NULL || *t_p == NULL)
        return;
    bf_tmpl_t *t = *t_p;
    free(t->var_max);
    free(t->body_name);
    bf_buf_cleanup(&t->lit);
    free(t->dops);
    free(t->ops);
    free(t->fops);
    free(t->plan_lit);
    for (size_t v = 0; t->pools && v < t->nvars; v++) {
        free(t->pools[v].text);
        free(t->pools[v].len);
    }
    free(t->pools);
    free(t);
    *t_p = NULL;
}

/* ---- generators ---------------------------------------------------------------------------- */

typedef struct slot {
    uint64_t stamp; /* doc or request stamp the value belongs to; 0 = none */
    const char *val;
    size_t len;
    char *scratch; /* bf_var_max_len bytes */
} slot;

struct bf_gen {
    const bf_tmpl_t *t;
    bf_vars_t *vars;
    bf_rng_t *rng; /* vars' RNG (bf_vars_rng) */
    slot *slots;
    char *scratch;
    char *esc_tmp; /* slow path of OP_ESC */
    uint64_t doc_stamp;
    uint64_t req_stamp;
    uint64_t clock_stamp; /* F_TIME: one per clock hold (render call), from 1 << 62 */
    uint64_t rr;          /* documents rendered: round-robin over the cell's indices */
    const bf_cell_t *cell;
    char *prefix_mem;   /* {"<action>":{"_index":"<name>" for each index of the cell */
    size_t *prefix_off; /* indices + 1 offsets */
    size_t prefix_max;
    char *act_mem;   /* prefix + "}}\n" for each index: the whole action line when the
                        template overlays nothing and the document has no _id / routing */
    size_t *act_off; /* indices + 1 offsets */
};

bf_gen_t *bf_gen_new(const bf_tmpl_t *t, const bf_partition_t *part)
{
    bf_gen_t *g = bf_calloc(1, sizeof *g);
    g->t = t;
    bf_partition_t p = part ? *part : (bf_partition_t){0, 1, 0};
    g->vars = bf_vars_new(t->vars, t->nvars, p.stream_index, p.stream_count, p.seed);
    g->rng = bf_vars_rng(g->vars);
    g->slots = bf_calloc(t->nvars ? t->nvars : 1, sizeof *g->slots);
    g->scratch = bf_malloc(t->scratch_total ? t->scratch_total : 1);
    size_t off = 0;
    for (size_t i = 0; i < t->nvars; i++) {
        g->slots[i].scratch = g->scratch + off;
        off += t->var_max[i];
    }
    g->esc_tmp = bf_malloc(2 * t->esc_max + 1);
    g->doc_stamp = 1; /* slots start at 0: never current */
    g->req_stamp = 1u << 31;
    g->clock_stamp = 1ull << 62;
    return g;
}

void bf_gen_skip_sequences(bf_gen_t *g, uint64_t n)
{
    bf_vars_skip_sequences(g->vars, n);
}

uint64_t bf_gen_prefill_skip(const bf_scenario_t *sc)
{
    const bf_search_spec_t *s = bf_scenario_search(sc);
    return s->enabled ? s->prefill : 0;
}

void bf_gen_destroy(bf_gen_t **g_p)
{
    if (g_p == NULL || *g_p == NULL)
        return;
    bf_gen_t *g = *g_p;
    bf_vars_destroy(&g->vars);
    free(g->slots);
    free(g->scratch);
    free(g->esc_tmp);
    free(g->prefix_mem);
    free(g->prefix_off);
    free(g->act_mem);
    free(g->act_off);
    free(g);
    *g_p = NULL;
}

/* The start of a document's action line, up to the index name's closing quote:
 * {"ACTION":{"_index":"NAME" (NAME JSON-escaped). The rendered documents and the corpus's
 * contiguous layout (bf_tmpl_corpus_bulk_head) both start with it, byte for byte. */
static void append_action_prefix(bf_buf_t *b, const char *action, const char *name)
{
    bf_buf_appendf(b, "{\"%s\":{\"_index\":\"", action);
    bf_jsonesc_append(b, name, strlen(name));
    bf_buf_appendz(b, "\"");
}

static void set_cell(bf_gen_t *g, const bf_cell_t *cell)
{
    free(g->prefix_mem);
    free(g->prefix_off);
    bf_buf_t b;
    bf_buf_init(&b, 0);
    uint32_t n = cell->indices ? cell->indices : 1;
    g->prefix_off = bf_malloc((n + 1) * sizeof *g->prefix_off);
    g->prefix_max = 0;
    for (uint32_t k = 0; k < n; k++) {
        g->prefix_off[k] = b.len;
        append_action_prefix(&b, g->t->action, cell->index_names ? cell->index_names[k] : "");
        size_t l = b.len - g->prefix_off[k];
        if (l > g->prefix_max)
            g->prefix_max = l;
    }
    g->prefix_off[n] = b.len;
    for (int i = 0; i < LIT_PAD; i++)
        bf_buf_append(&b, "", 1); /* render_doc_fast copies 32 bytes at a time */
    g->prefix_mem = bf_buf_steal(&b);
    free(g->act_mem);
    free(g->act_off);
    g->act_off = bf_malloc((n + 1) * sizeof *g->act_off);
    for (uint32_t k = 0; k < n; k++) {
        g->act_off[k] = b.len;
        bf_buf_append(&b, g->prefix_mem + g->prefix_off[k],
                      g->prefix_off[k + 1] - g->prefix_off[k]);
        bf_buf_append(&b, "}}\n", 3);
    }
    g->act_off[n] = b.len;
    g->act_mem = bf_buf_steal(&b);
    g->cell = cell;
}

/* The current value of variable v (drawn once per document / request per its scope). */
static inline int value(bf_gen_t *g, uint32_t v, const char **p, size_t *n)
{
    slot *s = &g->slots[v];
    uint64_t want = g->t->vars[v].scope == BF_VAR_SCOPE_REQUEST ? g->req_stamp : g->doc_stamp;
    if (s->stamp != want) {
        int rc = bf_vars_eval(g->vars, v, s->scratch, &s->val, &s->len);
        if (rc != BF_OK)
            return rc;
        s->stamp = want;
    }
    *p = s->val;
    *n = s->len;
    return BF_OK;
}

/* Escapes already-escaped text so it can sit inside another JSON string: at most 2x. */
static size_t esc_again(char *dst, const char *src, size_t n)
{
    char *d = dst;
    for (size_t i = 0; i < n; i++) {
        char ch = src[i];
        if (ch == '"' || ch == '\\') {
            *d++ = '\\';
            *d++ = ch;
        } else {
            *d++ = (unsigned char)ch < 0x20 ? ' ' : ch;
        }
    }
    return (size_t)(d - dst);
}

/* memcpy for the short pieces a document is made of (literals, values: mostly under 64
 * bytes): overlapping unaligned moves inline instead of a library call per piece, measured
 * at about a quarter of rendering time (bench/RESULTS.md). Reads and writes exactly n bytes. */
static inline void copy_piece(char *dst, const char *src, size_t n)
{
    uint64_t a, b;
    if (n >= 16) {
        if (n > 64) {
            memcpy(dst, src, n);
            return;
        }
        for (size_t i = 0; i + 16 < n; i += 16) {
            memcpy(&a, src + i, 8);
            memcpy(&b, src + i + 8, 8);
            memcpy(dst + i, &a, 8);
            memcpy(dst + i + 8, &b, 8);
        }
        memcpy(&a, src + n - 16, 8);
        memcpy(&b, src + n - 8, 8);
        memcpy(dst + n - 16, &a, 8);
        memcpy(dst + n - 8, &b, 8);
    } else if (n >= 8) {
        memcpy(&a, src, 8);
        memcpy(&b, src + n - 8, 8);
        memcpy(dst, &a, 8);
        memcpy(dst + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, src, 4);
        memcpy(&y, src + n - 4, 4);
        memcpy(dst, &x, 4);
        memcpy(dst + n - 4, &y, 4);
    } else {
        for (size_t i = 0; i < n; i++)
            dst[i] = src[i];
    }
}

/* Output positions of each op, for bf__tmpl_check. */
typedef struct trace {
    size_t *start; /* per op, relative to the document's first byte */
} trace;

/* Renders one document with ops[0..nops). Fast path: capacity was reserved, plain memcpy.
 * Slow path (near the buffer's cap): bf_buf_append per piece, exact sizes. */
static int render_doc(bf_gen_t *g, const op *ops, size_t nops, uint32_t k, bf_buf_t *out, int slow,
                      trace *tr)
{
    const bf_tmpl_t *t = g->t;
    const char *lit = t->lit.data;
    size_t doc_start = out->len;
    const char *pre = g->prefix_mem + g->prefix_off[k];
    size_t pre_len = g->prefix_off[k + 1] - g->prefix_off[k];
    if (!slow) {
        char *p = out->data + out->len;
        copy_piece(p, pre, pre_len);
        p += pre_len;
        for (size_t i = 0; i < nops; i++) {
            const op *o = &ops[i];
            if (tr)
                tr->start[i] = (size_t)(p - out->data) - doc_start;
            if (o->kind == OP_LIT) {
                copy_piece(p, lit + o->off, o->len);
                p += o->len;
                continue;
            }
            const char *v;
            size_t n;
            int rc = value(g, o->var, &v, &n);
            if (rc != BF_OK)
                return rc;
            if (o->kind == OP_VAL) {
                copy_piece(p, v, n);
                p += n;
            } else {
                p += esc_again(p, v, n);
            }
        }
        out->len = (size_t)(p - out->data);
        out->data[out->len] = '\0';
        return BF_OK;
    }
    int rc = bf_buf_append(out, pre, pre_len);
    for (size_t i = 0; i < nops && rc == BF_OK; i++) {
        const op *o = &ops[i];
        if (tr)
            tr->start[i] = out->len - doc_start;
        if (o->kind == OP_LIT) {
            rc = bf_buf_append(out, lit + o->off, o->len);
            continue;
        }
        const char *v;
        size_t n;
        rc = value(g, o->var, &v, &n);
        if (rc != BF_OK)
            return rc;
        if (o->kind == OP_VAL) {
            rc = bf_buf_append(out, v, n);
        } else {
            size_t e = esc_again(g->esc_tmp, v, n);
            rc = bf_buf_append(out, g->esc_tmp, e);
        }
    }
    return rc;
}

/* Copies n bytes from src to dst 32 at a time: up to 31 bytes more are read from src and
 * written to dst (both padded by LIT_PAD), for one predictable branch per 32 bytes. */
static inline char *copy_lit(char *dst, const char *src, size_t n)
{
    for (size_t i = 0; i < n; i += 32) {
        memcpy(dst + i, src + i, 16);
        memcpy(dst + i + 16, src + i + 16, 16);
    }
    return dst + n;
}

/* A step of the plan that goes through a slot (F_DRAW, F_REUSE, F_VALUE): emits the value at
 * *pp and advances it. Returns 0 or bf_vars_eval's error. */
static int fop_slot(bf_gen_t *g, const fop *o, char **pp)
{
    slot *s = &g->slots[o->var];
    const char *v;
    size_t n;
    if (o->kind == F_VALUE) {
        int rc = value(g, o->var, &v, &n);
        if (rc != BF_OK)
            return rc;
    } else {
        if (o->kind == F_DRAW) {
            int rc = bf_vars_eval(g->vars, o->var, s->scratch, &s->val, &s->len);
            if (rc != BF_OK)
                return rc;
        }
        v = s->val;
        n = s->len;
    }
    if (o->esc) {
        *pp += esc_again(*pp, v, n);
    } else {
        copy_piece(*pp, v, n);
        *pp += n;
    }
    return BF_OK;
}

/* Renders one document by the plan (render_doc's fast path, the same bytes): out has room for
 * the worst case plus LIT_PAD. */
static int render_doc_fast(bf_gen_t *g, uint32_t k, bf_buf_t *out)
{
    const bf_tmpl_t *t = g->t;
    char *p = out->data + out->len;
    p = copy_lit(p, g->prefix_mem + g->prefix_off[k], g->prefix_off[k + 1] - g->prefix_off[k]);
    bf_rng_t *rng = g->rng;
    for (const fop *o = t->fops, *end = t->fops + t->nfops; o < end; o++) {
        switch ((enum fast_kind)o->kind) {
        case F_NONE: break;
        case F_DICT: {
            size_t i = o->n > 1 ? (size_t)bf_rng_below(rng, o->n) : 0;
            size_t n = o->off[i + 1] - o->off[i];
            copy_piece(p, o->values + o->off[i], n);
            p += n;
            break;
        }
        case F_POOL: {
            size_t i = (size_t)bf_rng_below(rng, o->n);
            memcpy(p, o->values + 8 * i, 8);
            p += o->plen[i];
            break;
        }
        case F_RANGE: {
            uint64_t i = bf_rng_below(rng, o->n);
            p += bf_fmt_i64(p, (int64_t)((uint64_t)o->from + i));
            break;
        }
        case F_TIME: {
            /* under the render call's clock hold every value of a time variable is the same
             * text (bf_vars_hold_clock): evaluated once per hold, copied after */
            slot *s = &g->slots[o->var];
            if (s->stamp != g->clock_stamp) {
                int rc = bf_vars_eval(g->vars, o->var, s->scratch, &s->val, &s->len);
                if (rc != BF_OK)
                    return rc;
                s->stamp = g->clock_stamp;
            }
            copy_piece(p, s->val, s->len);
            p += s->len;
            break;
        }
        case F_GEN: {
            const char *v;
            size_t n;
            int rc = bf_vars_eval(g->vars, o->var, p, &v, &n);
            if (rc != BF_OK)
                return rc;
            if (v != p)
                copy_piece(p, v, n);
            p += n;
            break;
        }
        case F_DRAW:
        case F_REUSE:
        case F_VALUE: {
            int rc = fop_slot(g, o, &p);
            if (rc != BF_OK)
                return rc;
            break;
        }
        }
        p = copy_lit(p, o->lit, o->lit_len);
    }
    out->len = (size_t)(p - out->data);
    out->data[out->len] = '\0';
    return BF_OK;
}

static int render_docs(const bf_tmpl_t *t, bf_gen_t *g, const bf_cell_t *cell, uint32_t ndocs,
                       bf_buf_t *out)
{
    uint32_t nidx = cell->indices ? cell->indices : 1;
    size_t worst = g->prefix_max + t->max_bytes;
    for (uint32_t d = 0; d < ndocs; d++) {
        g->doc_stamp++;
        uint32_t k = (uint32_t)(g->rr++ % nidx);
        int rc;
        if (bf_buf_reserve(out, worst + LIT_PAD) == BF_OK)
            rc = render_doc_fast(g, k, out);
        else
            rc = render_doc(g, t->ops, t->nops, k, out, bf_buf_reserve(out, worst) != BF_OK, NULL);
        if (rc != BF_OK)
            return rc;
    }
    return BF_OK;
}

/* A render call's start: the cell's state, a new request stamp for a body's first documents
 * (request-scope values drawn anew), one clock reading held for the call. */
static void render_call_begin(bf_gen_t *g, const bf_cell_t *cell, int first)
{
    if (g->cell != cell)
        set_cell(g, cell);
    if (first)
        g->req_stamp++;
    bf_vars_hold_clock(g->vars);
    g->clock_stamp++;
}

int bf_tmpl_render_bulk(const bf_tmpl_t *t, bf_gen_t *g, const bf_cell_t *cell, uint32_t ndocs,
                        bf_buf_t *out)
{
    render_call_begin(g, cell, 1);
    return render_docs(t, g, cell, ndocs, out);
}

int bf_tmpl_render_bulk_more(const bf_tmpl_t *t, bf_gen_t *g, const bf_cell_t *cell, uint32_t ndocs,
                             bf_buf_t *out)
{
    render_call_begin(g, cell, 0);
    return render_docs(t, g, cell, ndocs, out);
}

/* ---- a body rendered while it is sent (bf_tmpl_stream_*) ------------------------------------ */

size_t bf_tmpl_stream_room(const bf_tmpl_t *t, bf_gen_t *g, const bf_cell_t *cell)
{
    if (t->body_name != NULL || t->corpus)
        return 0;
    for (size_t i = 0; i < t->nvars; i++)
        if (t->vars[i].type == BF_VAR_SEQUENCE && !t->vars[i].wrap)
            return 0;
    if (g->cell != cell)
        set_cell(g, cell);
    return g->prefix_max + t->max_bytes + LIT_PAD + 1;
}

void bf_tmpl_stream_init(bf_tmpl_stream_t *st)
{
    memset(st, 0, sizeof *st);
    bf_buf_init(&st->carry, BF_MAX_BODY_BYTES);
}

void bf_tmpl_stream_cleanup(bf_tmpl_stream_t *st)
{
    bf_buf_cleanup(&st->carry);
    memset(st, 0, sizeof *st);
}

void bf_tmpl_stream_begin(bf_tmpl_stream_t *st, const bf_tmpl_t *t, bf_gen_t *g,
                          const bf_cell_t *cell, uint32_t ndocs)
{
    st->t = t;
    st->g = g;
    st->cell = cell;
    st->ndocs = ndocs;
    st->done = 0;
    st->room = bf_tmpl_stream_room(t, g, cell);
    st->bytes = 0;
    bf_buf_reset(&st->carry);
    st->carry_off = 0;
}

/* The body's next n documents whole, appended to the carry buffer (a render call of its own). */
static int stream_to_carry(bf_tmpl_stream_t *st, uint32_t n)
{
    render_call_begin(st->g, st->cell, st->done == 0);
    int rc = render_docs(st->t, st->g, st->cell, n, &st->carry);
    if (rc == BF_OK)
        st->done += n;
    return rc;
}

/* The next document of the body whole into the emptied carry buffer. */
static int stream_carry(bf_tmpl_stream_t *st)
{
    bf_buf_reset(&st->carry);
    st->carry_off = 0;
    return stream_to_carry(st, 1);
}

/* Renders documents straight into buf[*len, cap) while one surely fits (one render call). */
static int stream_direct(bf_tmpl_stream_t *st, char *buf, size_t cap, size_t *len)
{
    if (st->room == 0 || cap - *len < st->room)
        return BF_OK;
    bf_gen_t *g = st->g;
    render_call_begin(g, st->cell, st->done == 0);
    uint32_t nidx = st->cell->indices ? st->cell->indices : 1;
    bf_buf_t view = {.data = buf, .len = *len, .cap = cap, .max_len = cap};
    while (st->done < st->ndocs && cap - view.len >= st->room) {
        g->doc_stamp++;
        int rc = render_doc_fast(g, (uint32_t)(g->rr++ % nidx), &view);
        if (rc != BF_OK)
            return rc;
        st->done++;
    }
    *len = view.len;
    return BF_OK;
}

int bf_tmpl_stream_read(bf_tmpl_stream_t *st, char *buf, size_t cap, size_t *got)
{
    size_t len = 0;
    *got = 0;
    for (;;) {
        if (st->carry_off < st->carry.len) {
            size_t k = st->carry.len - st->carry_off;
            k = k < cap - len ? k : cap - len;
            memcpy(buf + len, st->carry.data + st->carry_off, k);
            st->carry_off += k;
            len += k;
        }
        if (len == cap || st->done == st->ndocs)
            break;
        size_t before = len;
        int rc = stream_direct(st, buf, cap, &len);
        if (rc == BF_OK && len == before && len == 0)
            rc = stream_carry(st); /* not even one document fits: it goes in pieces */
        else if (rc == BF_OK && len == before)
            break; /* the rest of buf is too small for a document: the next call */
        if (rc != BF_OK)
            return rc;
        if (st->carry_off == st->carry.len)
            break; /* rendered straight into buf */
    }
    st->bytes += len;
    *got = len;
    return BF_OK;
}

int bf_tmpl_stream_spill(bf_tmpl_stream_t *st)
{
    if (st->done == st->ndocs)
        return BF_OK;
    if (st->carry_off > 0) { /* keep only what is still to be read */
        memmove(st->carry.data, st->carry.data + st->carry_off, st->carry.len - st->carry_off);
        st->carry.len -= st->carry_off;
        st->carry_off = 0;
    }
    return stream_to_carry(st, st->ndocs - st->done);
}

size_t bf_tmpl_stream_total(const bf_tmpl_stream_t *st)
{
    return st->bytes + (st->carry.len - st->carry_off);
}

/* One body: a fresh document and request stamp, so every variable is drawn anew; no prefix. */
static int render_body_ops(bf_gen_t *g, const op *ops, size_t nops, bf_buf_t *out, trace *tr)
{
    const bf_tmpl_t *t = g->t;
    g->doc_stamp++;
    g->req_stamp++;
    bf_vars_hold_clock(g->vars);
    int rc = BF_OK;
    size_t start = out->len;
    for (size_t i = 0; i < nops && rc == BF_OK; i++) {
        const op *o = &ops[i];
        if (tr)
            tr->start[i] = out->len - start;
        if (o->kind == OP_LIT) {
            rc = bf_buf_append(out, t->lit.data + o->off, o->len);
            continue;
        }
        const char *v;
        size_t n;
        rc = value(g, o->var, &v, &n);
        if (rc != BF_OK)
            return rc;
        if (o->kind == OP_VAL) {
            rc = bf_buf_append(out, v, n);
        } else {
            size_t e = esc_again(g->esc_tmp, v, n);
            rc = bf_buf_append(out, g->esc_tmp, e);
        }
    }
    return rc;
}

int bf_tmpl_render_body(const bf_tmpl_t *t, bf_gen_t *g, bf_buf_t *out)
{
    (void)t;
    return render_body_ops(g, g->t->ops, g->t->nops, out, NULL);
}

/* The next document of a corpus slice to send: wraps to the slice's start at its end (one
 * more pass), skips documents refused at load (cur->keep). SIZE_MAX when the passes are done,
 * the slice is empty or every document of it is refused (a slice without one document to send
 * has nothing, however often it is read). Shared by the copying and the
 * gathering renderer, so both send the same documents in the same order. */
static size_t cursor_next(bf_corpus_cursor_t *cur)
{
    if (cur->from >= cur->to || (cur->passes && cur->passes_done >= cur->passes))
        return SIZE_MAX;
    for (size_t skipped = 0; skipped <= cur->to - cur->from; skipped++) {
        if (cur->pos >= cur->to) {
            cur->passes_done++;
            cur->pos = cur->from;
            if (cur->passes && cur->passes_done >= cur->passes)
                return SIZE_MAX;
        }
        size_t i = cur->pos++;
        if (!cur->keep || cur->keep[i - cur->from])
            return i;
    }
    return SIZE_MAX; /* every document of the slice is bad */
}

/* The cell's index (0 .. nidx - 1) corpus document i goes to: its file's with
 * document.corpus.indices: by_file, else the next in turn (round-robin). */
static uint32_t corpus_index(const bf_tmpl_t *t, bf_gen_t *g, const bf_corpus_t *c, size_t i,
                             uint32_t nidx)
{
    if (t->by_file)
        return (uint32_t)(bf_corpus_doc_part(c, i) % nidx);
    return (uint32_t)(g->rr++ % nidx);
}

int bf_tmpl_render_corpus(const bf_tmpl_t *t, bf_gen_t *g, const bf_cell_t *cell,
                          const bf_corpus_t *c, bf_corpus_cursor_t *cur, uint32_t ndocs,
                          int new_request, bf_buf_t *out, uint32_t *rendered)
{
    *rendered = 0;
    if (g->cell != cell)
        set_cell(g, cell);
    if (new_request)
        g->req_stamp++;
    bf_vars_hold_clock(g->vars);
    uint32_t nidx = cell->indices ? cell->indices : 1;
    const char *text = bf_corpus_text(c), *meta = bf_corpus_meta(c);
    size_t i;
    while (*rendered < ndocs && (i = cursor_next(cur)) != SIZE_MAX) {
        const bf_corpus_doc_t *d = bf_corpus_doc(c, i);
        size_t id_len = t->has_id ? 0 : d->id_len;
        size_t rt_len = t->has_routing ? 0 : d->routing_len;
        const char *id = meta + d->meta_off, *rt = meta + d->meta_off + d->id_len;
        g->doc_stamp++;
        uint32_t k = corpus_index(t, g, c, i, nidx);
        size_t worst = g->prefix_max + t->max_bytes + id_len + rt_len + 3 + d->src_len + 1;
        int slow = bf_buf_reserve(out, worst) != BF_OK;
        int rc = render_doc(g, t->ops, t->nops, k, out, slow, NULL);
        if (rc != BF_OK)
            return rc;
        if (!slow) {
            char *p = out->data + out->len;
            copy_piece(p, id, id_len);
            p += id_len;
            copy_piece(p, rt, rt_len);
            p += rt_len;
            memcpy(p, "}}\n", 3);
            p += 3;
            memcpy(p, text + d->src_off, d->src_len);
            p += d->src_len;
            *p++ = '\n';
            out->len = (size_t)(p - out->data);
            out->data[out->len] = '\0';
        } else if (bf_buf_append(out, id, id_len) != BF_OK ||
                   bf_buf_append(out, rt, rt_len) != BF_OK ||
                   bf_buf_append(out, "}}\n", 3) != BF_OK ||
                   bf_buf_append(out, text + d->src_off, d->src_len) != BF_OK ||
                   bf_buf_append(out, "\n", 1) != BF_OK) {
            return BF_E_TOOBIG;
        }
        (*rendered)++;
    }
    return BF_OK;
}

int bf_tmpl_gather_corpus(const bf_tmpl_t *t, bf_gen_t *g, const bf_cell_t *cell,
                          const bf_corpus_t *c, bf_corpus_cursor_t *cur, uint32_t ndocs,
                          int new_request, bf_gather_t *out, uint32_t *rendered)
{
    *rendered = 0;
    if (g->cell != cell)
        set_cell(g, cell);
    if (new_request)
        g->req_stamp++;
    bf_vars_hold_clock(g->vars);
    uint32_t nidx = cell->indices ? cell->indices : 1;
    const char *text = bf_corpus_text(c), *meta = bf_corpus_meta(c);
    size_t text_len = bf_corpus_text_bytes(c);
    const bf_corpus_doc_t *docs = bf_corpus_doc_array(c);
    int all_nl = bf_corpus_lines_end_nl(c); /* then the text need not be read here */
    size_t i;
    while (*rendered < ndocs && (i = cursor_next(cur)) != SIZE_MAX) {
        const bf_corpus_doc_t *d = &docs[i];
        size_t id_len = t->has_id ? 0 : d->id_len;
        size_t rt_len = t->has_routing ? 0 : d->routing_len;
        g->doc_stamp++;
        uint32_t k = corpus_index(t, g, c, i, nidx);
        int rc;
        if (t->nops == 0 && id_len == 0 && rt_len == 0) {
            /* the action line is the same for every document of index k */
            rc = bf_gather_add(out, g->act_mem, g->act_off[k], g->act_off[k + 1] - g->act_off[k]);
        } else {
            bf_buf_t *own = &out->own;
            size_t from = own->len;
            const char *id = meta + d->meta_off, *rt = meta + d->meta_off + d->id_len;
            int slow =
                bf_buf_reserve(own, g->prefix_max + t->max_bytes + id_len + rt_len + 3) != BF_OK;
            rc = render_doc(g, t->ops, t->nops, k, own, slow, NULL);
            if (rc == BF_OK &&
                (bf_buf_append(own, id, id_len) != BF_OK ||
                 bf_buf_append(own, rt, rt_len) != BF_OK || bf_buf_append(own, "}}\n", 3) != BF_OK))
                rc = BF_E_TOOBIG;
            if (rc == BF_OK)
                rc = bf_gather_add(out, NULL, from, own->len - from);
        }
        if (rc != BF_OK)
            return rc;
        /* the source line with the '\n' the file ends it with, else a '\n' of our own */
        size_t end = d->src_off + d->src_len;
        if (all_nl || (end < text_len && text[end] == '\n')) {
            rc = bf_gather_add(out, text, d->src_off, d->src_len + 1);
        } else {
            rc = bf_gather_add(out, text, d->src_off, d->src_len);
            if (rc == BF_OK)
                rc = bf_gather_add(out, "\n", 0, 1);
        }
        if (rc != BF_OK)
            return rc;
        (*rendered)++;
    }
    return BF_OK;
}

int bf_tmpl_corpus_bulk_head(const bf_tmpl_t *t, const bf_cell_t *cell, bf_buf_t *out)
{
    /* the action line render_doc + bf_tmpl_render_corpus write, when it depends on nothing
     * but the document: no op of the template (no overlaid _id, routing, pipeline or
     * retry_on_conflict), one index, an index or create action */
    if (!t->corpus || t->nops != 0 || t->has_id || t->has_routing ||
        (cell->indices ? cell->indices : 1) != 1 ||
        (strcmp(t->action, "index") != 0 && strcmp(t->action, "create") != 0))
        return 0;
    bf_buf_reset(out);
    append_action_prefix(out, t->action, cell->index_names ? cell->index_names[0] : "");
    return 1;
}

int bf_tmpl_take_corpus(const bf_corpus_t *c, bf_corpus_cursor_t *cur, uint32_t ndocs,
                        bf_gather_t *out, uint32_t *taken)
{
    *taken = 0;
    const char *text = bf_corpus_text(c);
    size_t a;
    while (*taken < ndocs && (a = cursor_next(cur)) != SIZE_MAX) {
        /* a run of documents to send: from a up to the slice's end, the next refused one or
         * the count wanted; cursor_next would return each of them in turn */
        size_t b = a + 1, lim = cur->to - a < ndocs - *taken ? cur->to : a + (ndocs - *taken);
        if (b < lim && cur->keep) {
            const uint8_t *z = memchr(cur->keep + (b - cur->from), 0, lim - b);
            b = z ? cur->from + (size_t)(z - cur->keep) : lim;
        } else {
            b = lim;
        }
        cur->pos = b;
        size_t off, len;
        bf_corpus_bulk_range(c, a, b, &off, &len);
        int rc = bf_gather_add(out, text, off, len);
        if (rc != BF_OK)
            return rc;
        *taken += (uint32_t)(b - a);
    }
    return BF_OK;
}

size_t bf_tmpl_estimate_doc_bytes(const bf_tmpl_t *t, const bf_cell_t *cell)
{
    enum { N = 64 };
    bf_partition_t part = {0, 1, 0x5EEDull};
    bf_gen_t *g = bf_gen_new(t, &part);
    bf_buf_t b;
    bf_buf_init(&b, 0);
    size_t docs = 0;
    while (docs < N && bf_tmpl_render_bulk(t, g, cell, 1, &b) == BF_OK)
        docs++; /* one at a time: a short sequence without wrap may end early */
    size_t total = b.len;
    bf_buf_cleanup(&b);
    bf_gen_destroy(&g);
    return docs ? (total + docs - 1) / docs : 0;
}

/* ---- checks at load time ------------------------------------------------------------------- */

int bf__tmpl_check(const bf_tmpl_t *t, const bf_cell_t *cell, unsigned ndocs,
                   bf__tmpl_locate_fn loc, void *loc_ctx, bf_diag_t *diag)
{
    bf_partition_t part = {0, 1, 0xC4EC4ull};
    bf_gen_t *g = bf_gen_new(t, &part);
    set_cell(g, cell);
    trace tr = {.start = bf_malloc((t->ndops ? t->ndops : 1) * sizeof *tr.start)};
    bf_buf_t doc;
    bf_buf_init(&doc, 0);
    int rc = BF_OK;
    compiler c = {.t = (bf_tmpl_t *)t, .loc = loc, .loc_ctx = loc_ctx, .diag = diag};
    for (unsigned d = 0; d < ndocs && rc == BF_OK; d++) {
        bf_buf_reset(&doc);
        g->doc_stamp++;
        g->req_stamp++;
        bf_vars_hold_clock(g->vars);
        rc = render_doc(g, t->dops, t->ndops, (uint32_t)(d % (cell->indices ? cell->indices : 1)),
                        &doc, 1, &tr);
        if (rc == BF_E_RANGE) {
            rc = BF_OK; /* a short sequence without wrap: the documents so far were checked */
            break;
        }
        if (rc != BF_OK)
            break;
        const char *nl = memchr(doc.data, '\n', doc.len);
        size_t l1 = nl ? (size_t)(nl - doc.data) : doc.len;
        for (int line = 0; line < (t->no_source ? 1 : 2) && rc == BF_OK; line++) {
            const char *s = line == 0 ? doc.data : doc.data + l1 + 1;
            size_t n = line == 0 ? l1 : doc.len - l1 - 2; /* without the final '\n' */
            size_t base = line == 0 ? 0 : l1 + 1;
            json_error_t je;
            /* OpenSearch rejects duplicate keys (strict duplicate detection), so do we */
            json_t *j = json_loadb(s, n, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
            const char *why = NULL;
            size_t pos = 0;
            char why_buf[200];
            if (j == NULL) {
                why = je.text;
                pos = base + (je.position > 0 ? (size_t)je.position - 1 : 0);
                /* jansson reports the end of the token it names ("... near 'TOKEN'"): point at
                 * its first byte instead */
                const char *near = strstr(je.text, "near '");
                const char *q = near ? strrchr(near + 6, '\'') : NULL;
                size_t tl = q ? (size_t)(q - (near + 6)) : 0;
                if (tl > 1 && pos + 1 >= tl && pos + 1 <= doc.len &&
                    memcmp(doc.data + pos + 1 - tl, near + 6, tl) == 0)
                    pos = pos + 1 - tl;
                if (line == 1 && memchr(s, '\n', n)) {
                    pos = (size_t)((const char *)memchr(s, '\n', n) - doc.data);
                    why = "a line break inside a JSON string (write \\n)";
                }
            } else if (!json_is_object(j)) {
                why = line == 0 ? "the action line is not a JSON object"
                                : "the source must be a JSON object ({...})";
                pos = base;
            }
            json_decref(j);
            if (why == NULL)
                continue;
            snprintf(why_buf, sizeof why_buf, "%s", why);
            /* which op wrote the byte at pos? */
            size_t oi = 0;
            for (size_t i = 0; i < t->ndops; i++)
                if (tr.start[i] <= pos)
                    oi = i;
            const op *o = &t->dops[oi];
            size_t src = o->src_off;
            if (o->kind == OP_LIT && o->verbatim && pos >= tr.start[oi])
                src += pos - tr.start[oi];
            char at[400];
            where(&c, (enum bf__tfield)o->field, src, at, sizeof at);
            size_t from = pos > 30 ? pos - 30 : 0, to = pos + 30 < doc.len ? pos + 30 : doc.len;
            char excerpt[200];
            size_t e = 0;
            for (size_t i = from; i < to && e + 4 < sizeof excerpt; i++) {
                char ch = doc.data[i];
                if (ch == '\n') {
                    excerpt[e++] = '\\';
                    excerpt[e++] = 'n';
                } else {
                    excerpt[e++] = (unsigned char)ch < 0x20 ? '?' : ch;
                }
            }
            excerpt[e] = '\0';
            rc = bf_diag_set(diag, BF_E_INVAL,
                             "%s: %s does not render valid JSON: %s (rendered: "
                             "...%s...)",
                             at, field_name_of(t, (enum bf__tfield)o->field), why_buf, excerpt);
        }
    }
    bf_buf_cleanup(&doc);
    free(tr.start);
    bf_gen_destroy(&g);
    return rc;
}

int bf__tmpl_check_body(const bf_tmpl_t *t, unsigned nbodies, bf__tmpl_locate_fn loc, void *loc_ctx,
                        bf_diag_t *diag)
{
    bf_partition_t part = {0, 1, 0xC4EC4ull};
    bf_gen_t *g = bf_gen_new(t, &part);
    trace tr = {.start = bf_malloc((t->ndops ? t->ndops : 1) * sizeof *tr.start)};
    bf_buf_t b;
    bf_buf_init(&b, 0);
    int rc = BF_OK;
    compiler c = {.t = (bf_tmpl_t *)t, .loc = loc, .loc_ctx = loc_ctx, .diag = diag};
    for (unsigned k = 0; k < nbodies && rc == BF_OK; k++) {
        bf_buf_reset(&b);
        rc = render_body_ops(g, t->dops, t->ndops, &b, &tr);
        if (rc == BF_E_RANGE) {
            rc = BF_OK;
            break;
        }
        if (rc != BF_OK)
            break;
        json_error_t je;
        size_t pos = 0;
        if (t->ndjson) {
            /* JSON lines: each an object, in pairs (header, search body), as _msearch reads */
            size_t lines = 0, at0 = 0;
            int bad = 0;
            while (at0 < b.len && !bad) {
                const char *nl = memchr(b.data + at0, '\n', b.len - at0);
                size_t end = nl ? (size_t)(nl - b.data) : b.len;
                json_t *j = json_loadb(b.data + at0, end - at0, JSON_REJECT_DUPLICATES, &je);
                if (!json_is_object(j)) {
                    if (j)
                        snprintf(je.text, sizeof je.text, "line %zu is not a JSON object",
                                 lines + 1);
                    pos = at0 + (j == NULL && je.position > 0 ? (size_t)je.position - 1 : 0);
                    bad = 1;
                }
                json_decref(j);
                lines++;
                at0 = end + 1;
            }
            if (!bad && (lines < 2 || lines % 2)) {
                char at[400];
                where(&c, (enum bf__tfield)t->dops[t->ndops ? t->ndops - 1 : 0].field,
                      t->ndops ? t->dops[t->ndops - 1].src_off : 0, at, sizeof at);
                rc = bf_diag_set(diag, BF_E_INVAL,
                                 "%s: %s renders %zu line%s; an _msearch body "
                                 "is pairs of lines, a header ({} searches the path's index) "
                                 "then a search body, each a JSON object on one line",
                                 at, t->body_name, lines, lines == 1 ? "" : "s");
                break;
            }
            if (!bad)
                continue;
        } else {
            json_t *j = json_loadb(b.data, b.len, JSON_REJECT_DUPLICATES, &je);
            if (j) {
                json_decref(j);
                continue;
            }
            pos = je.position > 0 ? (size_t)je.position - 1 : 0;
        }
        size_t oi = 0;
        for (size_t i = 0; i < t->ndops; i++)
            if (tr.start[i] <= pos)
                oi = i;
        const op *o = &t->dops[oi];
        size_t src = o->src_off;
        if (o->kind == OP_LIT && o->verbatim && pos >= tr.start[oi])
            src += pos - tr.start[oi];
        char at[400];
        where(&c, (enum bf__tfield)o->field, src, at, sizeof at);
        rc = bf_diag_set(
            diag, BF_E_INVAL, "%s: %s does not render %s: %s (rendered: %.120s)", at, t->body_name,
            t->ndjson ? "JSON lines (one object per line)" : "a JSON object", je.text, b.data);
    }
    bf_buf_cleanup(&b);
    free(tr.start);
    bf_gen_destroy(&g);
    return rc;
}
