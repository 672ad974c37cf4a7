/* SPDX-License-Identifier: MIT */
/* bf_template_check.c — the template checks at load time, called by the scenario
 * loader only: render a few documents or bodies and parse each with jansson, with every error
 * mapped back to its file:line:column.
 */
#include "bf_template_int.h"

#include "bf_template.h"

#include "bf_jsonesc.h"
#include "bf_mem.h"
#include "bf_scenario_int.h"
#include "bf_vars.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- checks at load time ------------------------------------------------------------------- */

int bf__tmpl_check(const bf_tmpl_t *t, const bf_cell_t *cell, unsigned ndocs,
                   bf__tmpl_locate_fn loc, void *loc_ctx, bf_diag_t *diag)
{
    bf_partition_t part = {0, 1, 0xC4EC4ull};
    bf_gen_t *g = bf_gen_new(t, &part);
    bf__tmpl_set_cell(g, cell);
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
        rc = bf__tmpl_render_doc(g, t->dops, t->ndops,
                                 (uint32_t)(d % (cell->indices ? cell->indices : 1)), &doc, 1, &tr);
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
            bf__tmpl_where(&c, (enum bf__tfield)o->field, src, at, sizeof at);
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
                             at, bf__tmpl_field_name_of(t, (enum bf__tfield)o->field), why_buf,
                             excerpt);
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
        rc = bf__tmpl_render_body_ops(g, t->dops, t->ndops, &b, &tr);
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
                bf__tmpl_where(&c, (enum bf__tfield)t->dops[t->ndops ? t->ndops - 1 : 0].field,
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
        bf__tmpl_where(&c, (enum bf__tfield)o->field, src, at, sizeof at);
        rc = bf_diag_set(
            diag, BF_E_INVAL, "%s: %s does not render %s: %s (rendered: %.120s)", at, t->body_name,
            t->ndjson ? "JSON lines (one object per line)" : "a JSON object", je.text, b.data);
    }
    bf_buf_cleanup(&b);
    free(tr.start);
    bf_gen_destroy(&g);
    return rc;
}
