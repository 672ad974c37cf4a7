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
#include "bf_template_int.h"

#include "bf_jsonesc.h"
#include "bf_mem.h"
#include "bf_scenario_int.h"
#include "bf_vars.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

const char *bf__tmpl_field_name_of(const bf_tmpl_t *t, enum bf__tfield f)
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

#define field_name(f) bf__tmpl_field_name_of(c->t, (f))

void bf__tmpl_where(compiler *c, enum bf__tfield field, size_t offset, char *buf, size_t size)
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
        bf__tmpl_where(c, field, i, pos, sizeof pos);
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
        bf__tmpl_where(c, field, i, pos, sizeof pos);
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
void bf__tmpl_append_action_prefix(bf_buf_t *b, const char *action, const char *name)
{
    bf_buf_appendf(b, "{\"%s\":{\"_index\":\"", action);
    bf_jsonesc_append(b, name, strlen(name));
    bf_buf_appendz(b, "\"");
}

void bf__tmpl_set_cell(bf_gen_t *g, const bf_cell_t *cell)
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
        bf__tmpl_append_action_prefix(&b, g->t->action,
                                      cell->index_names ? cell->index_names[k] : "");
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

/* Renders one document with ops[0..nops). Fast path: capacity was reserved, plain memcpy.
 * Slow path (near the buffer's cap): bf_buf_append per piece, exact sizes. */
int bf__tmpl_render_doc(bf_gen_t *g, const op *ops, size_t nops, uint32_t k, bf_buf_t *out,
                        int slow, trace *tr)
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
            rc = bf__tmpl_render_doc(g, t->ops, t->nops, k, out,
                                     bf_buf_reserve(out, worst) != BF_OK, NULL);
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
        bf__tmpl_set_cell(g, cell);
    if (first)
        g->req_stamp++;
    bf_vars_hold_clock(g->vars);
    g->clock_stamp++;
}

uint64_t bf_gen_docs_left(const bf_gen_t *g)
{
    return bf_vars_docs_left(g->vars);
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
        if ((t->vars[i].type == BF_VAR_SEQUENCE && !t->vars[i].wrap) || t->vars[i].vfile)
            return 0;
    if (g->cell != cell)
        bf__tmpl_set_cell(g, cell);
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
int bf__tmpl_render_body_ops(bf_gen_t *g, const op *ops, size_t nops, bf_buf_t *out, trace *tr)
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
    return bf__tmpl_render_body_ops(g, g->t->ops, g->t->nops, out, NULL);
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
