/* SPDX-License-Identifier: MIT */
/* bf_buf.h — growable byte buffer with a hard cap (after curl's dynbuf).
 *
 * Embedded struct: bf_buf_init / bf_buf_cleanup. Hot paths call bf_buf_reset and reuse the
 * allocation. Not thread-safe; one owner at a time.
 */
#ifndef BF_BUF_H
#define BF_BUF_H

#include "bf_error.h"

#include <stdarg.h>
#include <stddef.h>

typedef struct bf_buf {
    char *data;     /* always NUL-terminated when len > 0 or after any append; owned */
    size_t len;     /* bytes used, excluding the terminating NUL */
    size_t cap;     /* bytes allocated */
    size_t max_len; /* hard cap on len in bytes; appends past it fail with BF_E_TOOBIG */
} bf_buf_t;

/* bf_buf_init — empty buffer limited to max_len bytes (0 means SIZE_MAX/2). No allocation. */
void bf_buf_init(bf_buf_t *b, size_t max_len);
/* bf_buf_cleanup — free the memory; the buffer is empty and reusable afterwards. NULL-safe. */
void bf_buf_cleanup(bf_buf_t *b);
/* bf_buf_reset — len = 0, keep the allocation. */
void bf_buf_reset(bf_buf_t *b);
/* bf_buf_reserve — make room for `extra` more bytes. Returns 0 or BF_E_TOOBIG past max_len. */
int bf_buf_reserve(bf_buf_t *b, size_t extra);
/* bf_buf_append — append n bytes. Returns 0 or BF_E_TOOBIG (nothing appended). */
int bf_buf_append(bf_buf_t *b, const void *p, size_t n);
/* bf_buf_appendz — append a NUL-terminated string. Returns 0 or BF_E_TOOBIG. */
int bf_buf_appendz(bf_buf_t *b, const char *s);
/* bf_buf_appendf — printf-append. Returns 0 or BF_E_TOOBIG. */
int bf_buf_appendf(bf_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* bf_buf_vappendf — bf_buf_appendf with a va_list (consumed, as vprintf does). Returns 0,
 * BF_E_INVAL for a bad format or BF_E_TOOBIG (nothing appended). */
int bf_buf_vappendf(bf_buf_t *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* bf_buf_steal — hand the data to the caller (free() it); the buffer becomes empty. Never NULL. */
char *bf_buf_steal(bf_buf_t *b);

/* A body gathered from pieces instead of copied into one buffer (the corpus fast path: each
 * source line stays where the corpus holds it, only the action lines are written). A piece
 * is `len` bytes at base + off; base NULL means the gather's own buffer `own` (the action
 * lines written for this body), so `own` may grow while the body is built. The bytes behind
 * a piece with a base are borrowed and must outlive the gather's use (the corpus does).
 * Embedded struct: bf_gather_init / bf_gather_cleanup; not thread-safe, one owner. */
typedef struct bf_piece {
    const char *base; /* NULL: own.data */
    size_t off, len;  /* bytes */
} bf_piece_t;

typedef struct bf_gather {
    bf_piece_t *v; /* n pieces in body order; owned */
    size_t n, cap;
    bf_buf_t own; /* bytes of the pieces without a base */
    size_t bytes; /* sum of the pieces' lengths */
    size_t max_bytes;
} bf_gather_t;

/* Where a reader stands in a gather: piece `i`, byte `off` of it. */
typedef struct bf_gather_pos {
    size_t i, off;
} bf_gather_pos_t;

/* bf_gather_init — empty gather of at most max_bytes bytes (0: SIZE_MAX/2). No allocation. */
void bf_gather_init(bf_gather_t *g, size_t max_bytes);
/* bf_gather_cleanup — free the memory; the gather is empty and reusable. NULL-safe. */
void bf_gather_cleanup(bf_gather_t *g);
/* bf_gather_reset — no pieces, no own bytes; keeps the allocations. */
void bf_gather_reset(bf_gather_t *g);
/* bf_gather_add — append a piece of len bytes at base + off (base NULL: own.data + off).
 * Returns 0, or BF_E_TOOBIG when the body would pass max_bytes (nothing appended). */
int bf_gather_grow(bf_gather_t *g); /* room for one more piece (bf_gather_add's slow path) */
static inline int bf_gather_add(bf_gather_t *g, const char *base, size_t off, size_t len)
{
    if (len > g->max_bytes - g->bytes)
        return BF_E_TOOBIG;
    if (g->n == g->cap)
        bf_gather_grow(g);
    g->v[g->n++] = (bf_piece_t){base, off, len};
    g->bytes += len;
    return BF_OK;
}
/* bf_gather_read — copy up to n bytes from *pos on into dst and advance *pos. Returns the
 * bytes copied (0 at the end). */
size_t bf_gather_read(const bf_gather_t *g, bf_gather_pos_t *pos, char *dst, size_t n);
/* bf_gather_flatten — out = the whole body in one buffer (out's contents are replaced).
 * Returns 0 or BF_E_TOOBIG past out's max_len. */
int bf_gather_flatten(const bf_gather_t *g, bf_buf_t *out);

#endif
