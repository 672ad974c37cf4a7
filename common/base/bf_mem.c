/* SPDX-License-Identifier: MIT */
/* bf_mem.c — allocation wrappers that abort on exhaustion. */
#include "bf_mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t size, const char *file, int line)
{
    fprintf(stderr, "bulkfleet: out of memory allocating %zu bytes at %s:%d\n", size, file, line);
    abort();
}

void *bf__malloc(size_t size, const char *file, int line)
{
    void *p = malloc(size ? size : 1);
    if (p == NULL)
        oom(size, file, line);
    return p;
}

void *bf__calloc(size_t n, size_t size, const char *file, int line)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (p == NULL)
        oom(n * size, file, line);
    return p;
}

void *bf__realloc(void *p, size_t size, const char *file, int line)
{
    void *q = realloc(p, size ? size : 1);
    if (q == NULL)
        oom(size, file, line);
    return q;
}

char *bf__strdup(const char *s, const char *file, int line)
{
    if (s == NULL)
        return NULL;
    size_t n = strlen(s);
    char *d = bf__malloc(n + 1, file, line);
    memcpy(d, s, n + 1);
    return d;
}

char *bf__strndup(const char *s, size_t n, const char *file, int line)
{
    if (s == NULL)
        return NULL;
    char *d = bf__malloc(n + 1, file, line);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *bf_asprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    char *s = bf_malloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

size_t bf_strlcpy(char *dst, const char *src, size_t dst_size)
{
    size_t n = strlen(src);
    if (dst_size > 0) {
        size_t c = n < dst_size - 1 ? n : dst_size - 1;
        memcpy(dst, src, c);
        dst[c] = '\0';
    }
    return n;
}

int bf_str_field(const char **cursor, char sep, char *out, size_t out_size)
{
    const char *p = *cursor;
    if (p == NULL || *p == '\0')
        return 0;
    const char *end = strchr(p, sep);
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (out_size > 0) {
        size_t c = n < out_size - 1 ? n : out_size - 1;
        memcpy(out, p, c);
        out[c] = '\0';
    }
    *cursor = end ? end + 1 : p + n;
    return 1;
}
