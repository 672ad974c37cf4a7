/* SPDX-License-Identifier: MIT */
/* bf_template_corpus.c — corpus bodies: the documents of a corpus slice as a bulk body,
 * copied (bf_tmpl_render_corpus), gathered as pieces of the corpus (bf_tmpl_gather_corpus) or
 * taken as ranges (bf_tmpl_take_corpus), each with its action line.
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
        bf__tmpl_set_cell(g, cell);
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
        int rc = bf__tmpl_render_doc(g, t->ops, t->nops, k, out, slow, NULL);
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
        bf__tmpl_set_cell(g, cell);
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
            rc = bf__tmpl_render_doc(g, t->ops, t->nops, k, own, slow, NULL);
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
    bf__tmpl_append_action_prefix(out, t->action, cell->index_names ? cell->index_names[0] : "");
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
