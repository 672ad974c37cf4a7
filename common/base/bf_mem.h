/* SPDX-License-Identifier: MIT */
/* bf_mem.h — allocation that never returns NULL.
 *
 * bf_malloc and friends abort with file:line on exhaustion, so callers need not check
 * (docs/internals/style.md rule 7). Memory is released with free(). Thread-safe.
 */
#ifndef BF_MEM_H
#define BF_MEM_H

#include <stddef.h>

void *bf__malloc(size_t size, const char *file, int line);
void *bf__calloc(size_t n, size_t size, const char *file, int line);
void *bf__realloc(void *p, size_t size, const char *file, int line);
char *bf__strdup(const char *s, const char *file, int line);
char *bf__strndup(const char *s, size_t n, const char *file, int line);

#define bf_malloc(sz) bf__malloc((sz), __FILE__, __LINE__)
#define bf_calloc(n, sz) bf__calloc((n), (sz), __FILE__, __LINE__)
#define bf_realloc(p, sz) bf__realloc((p), (sz), __FILE__, __LINE__)
/* bf_strdup — copy of s (NULL gives NULL); caller frees. */
#define bf_strdup(s) bf__strdup((s), __FILE__, __LINE__)
#define bf_strndup(s, n) bf__strndup((s), (n), __FILE__, __LINE__)

/* bf_asprintf — printf into a new string; caller frees. Never NULL. */
char *bf_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* bf_strlcpy — copy src into dst of size dst_size, always NUL-terminated (if dst_size > 0).
 * Returns strlen(src); truncation happened when the result >= dst_size. */
size_t bf_strlcpy(char *dst, const char *src, size_t dst_size);

/* bf_str_field — copy the next `sep`-separated field of *cursor into out (size out_size,
 * truncated, NUL-terminated) and advance *cursor past it. Returns 1 while a field was read,
 * 0 at the end (*cursor at NUL). Empty fields are returned as "". Reentrant. */
int bf_str_field(const char **cursor, char sep, char *out, size_t out_size);

#endif
