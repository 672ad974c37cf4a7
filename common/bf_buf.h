/* SPDX-License-Identifier: MIT */
/* bf_buf.h — growable byte buffer with a hard cap (after curl's dynbuf).
 *
 * Embedded struct: bf_buf_init / bf_buf_cleanup. Hot paths call bf_buf_reset and reuse the
 * allocation. Not thread-safe; one owner at a time.
 */
#ifndef BF_BUF_H
#define BF_BUF_H

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
/* bf_buf_steal — hand the data to the caller (free() it); the buffer becomes empty. Never NULL. */
char *bf_buf_steal(bf_buf_t *b);

#endif
