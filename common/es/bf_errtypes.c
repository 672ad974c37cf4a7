/* SPDX-License-Identifier: MIT */
/* bf_errtypes.c — failed documents by error type: the bounded table and its wire form. */
#include "bf_errtypes.h"

#include "bf_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bf_errtypes_reset(bf_errtypes_t *t)
{
    t->n = 0;
}

static void copy_cut(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static bf_errtype_t *slot_of(bf_errtypes_t *t, const char *type)
{
    char cut[BF_ERRTYPE_LEN];
    copy_cut(cut, sizeof cut, type);
    for (uint32_t i = 0; i < t->n; i++)
        if (strcmp(t->e[i].type, cut) == 0)
            return &t->e[i];
    /* a new type: its own slot while BF_ERRTYPES_MAX - 1 are used, then the shared "other" */
    if (t->n >= BF_ERRTYPES_MAX - 1) {
        for (uint32_t i = 0; i < t->n; i++)
            if (strcmp(t->e[i].type, BF_ERRTYPES_OTHER) == 0)
                return &t->e[i];
        copy_cut(cut, sizeof cut, BF_ERRTYPES_OTHER);
    }
    bf_errtype_t *e = &t->e[t->n++];
    memcpy(e->type, cut, sizeof cut);
    e->reason[0] = '\0';
    e->docs = 0;
    return e;
}

void bf_errtypes_add(bf_errtypes_t *t, const char *type, const char *reason, uint64_t docs)
{
    if (docs == 0)
        return;
    bf_errtype_t *e = slot_of(t, type && type[0] ? type : "error");
    e->docs += docs;
    if (e->reason[0] == '\0' && reason != NULL && reason[0] != '\0')
        copy_cut(e->reason, sizeof e->reason, reason);
}

void bf_errtypes_merge(bf_errtypes_t *dst, const bf_errtypes_t *src)
{
    for (uint32_t i = 0; i < src->n; i++)
        bf_errtypes_add(dst, src->e[i].type, src->e[i].reason, src->e[i].docs);
}

uint64_t bf_errtypes_total(const bf_errtypes_t *t)
{
    uint64_t s = 0;
    for (uint32_t i = 0; i < t->n; i++)
        s += t->e[i].docs;
    return s;
}

uint32_t bf_errtypes_sorted(const bf_errtypes_t *t, uint32_t *order)
{
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t j = i;
        while (j > 0 && t->e[order[j - 1]].docs < t->e[i].docs) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    return t->n;
}

char *bf_errtypes_format(const bf_errtypes_t *t, char *buf, size_t size)
{
    if (size == 0)
        return buf;
    buf[0] = '\0';
    uint32_t order[BF_ERRTYPES_MAX];
    uint32_t n = bf_errtypes_sorted(t, order);
    size_t used = 0;
    for (uint32_t k = 0; k < n && used < size; k++) {
        const bf_errtype_t *e = &t->e[order[k]];
        int w = snprintf(buf + used, size - used, "%s%s %llu", k ? "; " : "", e->type,
                         (unsigned long long)e->docs);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}
