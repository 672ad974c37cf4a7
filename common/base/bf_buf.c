/* SPDX-License-Identifier: MIT */
/* bf_buf.c — growable byte buffer with a hard cap. */
#include "bf_buf.h"

#include "bf_error.h"
#include "bf_mem.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bf_buf_init(bf_buf_t *b, size_t max_len)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->max_len = max_len ? max_len : SIZE_MAX / 2;
}

void bf_buf_cleanup(bf_buf_t *b)
{
    if (b == NULL)
        return;
    free(b->data);
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void bf_buf_reset(bf_buf_t *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

int bf_buf_reserve(bf_buf_t *b, size_t extra)
{
    if (extra > b->max_len - b->len)
        return BF_E_TOOBIG;
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return BF_OK;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap *= 2;
    b->data = bf_realloc(b->data, cap);
    b->cap = cap;
    return BF_OK;
}

int bf_buf_append(bf_buf_t *b, const void *p, size_t n)
{
    int rc = bf_buf_reserve(b, n);
    if (rc != BF_OK)
        return rc;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return BF_OK;
}

int bf_buf_appendz(bf_buf_t *b, const char *s)
{
    return bf_buf_append(b, s, strlen(s));
}

int bf_buf_vappendf(bf_buf_t *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return BF_E_INVAL;
    int rc = bf_buf_reserve(b, (size_t)n);
    if (rc != BF_OK)
        return rc;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return BF_OK;
}

int bf_buf_appendf(bf_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = bf_buf_vappendf(b, fmt, ap);
    va_end(ap);
    return rc;
}

char *bf_buf_steal(bf_buf_t *b)
{
    char *d = b->data ? b->data : bf_strdup("");
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    return d;
}

/* ---- gathered bodies ---------------------------------------------------------------------- */

void bf_gather_init(bf_gather_t *g, size_t max_bytes)
{
    g->v = NULL;
    g->n = g->cap = 0;
    bf_buf_init(&g->own, max_bytes);
    g->bytes = 0;
    g->max_bytes = max_bytes ? max_bytes : SIZE_MAX / 2;
}

void bf_gather_cleanup(bf_gather_t *g)
{
    if (g == NULL)
        return;
    free(g->v);
    g->v = NULL;
    g->n = g->cap = 0;
    bf_buf_cleanup(&g->own);
    g->bytes = 0;
}

void bf_gather_reset(bf_gather_t *g)
{
    g->n = 0;
    g->bytes = 0;
    bf_buf_reset(&g->own);
}

int bf_gather_grow(bf_gather_t *g)
{
    g->cap = g->cap ? 2 * g->cap : 256;
    g->v = bf_realloc(g->v, g->cap * sizeof *g->v);
    return BF_OK;
}

size_t bf_gather_read(const bf_gather_t *g, bf_gather_pos_t *pos, char *dst, size_t n)
{
    size_t done = 0;
    while (done < n && pos->i < g->n) {
        const bf_piece_t *pc = &g->v[pos->i];
        size_t left = pc->len - pos->off, k = n - done < left ? n - done : left;
        const char *src = (pc->base ? pc->base : g->own.data) + pc->off + pos->off;
        memcpy(dst + done, src, k);
        done += k;
        if (k == left) {
            pos->i++;
            pos->off = 0;
        } else {
            pos->off += k;
        }
    }
    return done;
}

int bf_gather_flatten(const bf_gather_t *g, bf_buf_t *out)
{
    bf_buf_reset(out);
    if (bf_buf_reserve(out, g->bytes) != BF_OK)
        return BF_E_TOOBIG;
    bf_gather_pos_t pos = {0, 0};
    out->len = bf_gather_read(g, &pos, out->data, g->bytes);
    out->data[out->len] = '\0';
    return BF_OK;
}
