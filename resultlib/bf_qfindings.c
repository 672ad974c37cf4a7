/* SPDX-License-Identifier: MIT */
/* bf_qfindings.c — the mutual cost of indexing and searching, from matrix.json rows. */
#include "bf_qfindings.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static long long jint(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? (long long)json_integer_value(v) : 0;
}

static double jnum(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static int usable(json_t *r)
{
    return json_is_object(r) && json_is_array(json_object_get(r, "queries")) &&
           !json_is_true(json_object_get(r, "failed")) &&
           !json_is_true(json_object_get(r, "aborted"));
}

static int in_list(const char *k, const char *const *skip)
{
    for (; *skip; skip++)
        if (strcmp(k, *skip) == 0)
            return 1;
    return 0;
}

/* same value on every axis of either row but the skipped ones, and the same cell shape */
static int same_axes(json_t *a, json_t *b, const char *const *skip)
{
    static const char *shape[] = {"indices", "shards", "replicas"};
    for (size_t i = 0; i < 3; i++)
        if (!in_list(shape[i], skip) && jint(a, shape[i]) != jint(b, shape[i]))
            return 0;
    json_t *ax = json_object_get(a, "axes"), *bx = json_object_get(b, "axes");
    const char *k;
    json_t *v;
    json_object_foreach(ax, k, v) {
        if (in_list(k, skip))
            continue;
        json_t *w = json_object_get(bx, k);
        if (!json_is_string(v) || !json_is_string(w) ||
            strcmp(json_string_value(v), json_string_value(w)) != 0)
            return 0;
    }
    return 1;
}

static void add(json_t *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(json_t *out, const char *fmt, ...)
{
    char buf[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    json_array_append_new(out, json_string(buf));
}

static void fmt_ms(char *buf, size_t n, double v)
{
    if (isfinite(v))
        snprintf(buf, n, "%.1f ms", v);
    else
        snprintf(buf, n, "- (too few samples)");
}

json_t *bf_qfindings_compute(json_t *rows)
{
    static const char *skip_search[] = {"search_clients", "search_rate", NULL};
    static const char *skip_index[] = {"concurrency", "batch_size", "target_rate", "compression",
                                       NULL};
    json_t *out = json_array();
    size_t i, j;
    json_t *b, *o;
    json_array_foreach(rows, i, b) {
        if (!usable(b) || jint(b, "concurrency") == 0 || jint(b, "search_clients") == 0)
            continue;
        const char *bcell = json_string_value(json_object_get(b, "cell"));
        json_array_foreach(rows, j, o) {
            if (!usable(o) || jint(o, "concurrency") == 0 || jint(o, "search_clients") != 0 ||
                !same_axes(b, o, skip_search))
                continue;
            double x = jnum(b, "docs_per_s"), y = jnum(o, "docs_per_s");
            if (isfinite(x) && isfinite(y) && y > 0)
                add(out, "indexing under search (%lld search clients, cell %s): %.0f docs/s vs "
                    "%.0f alone, %+.0f %%", jint(b, "search_clients"), bcell ? bcell : "", x, y,
                    100.0 * (x - y) / y);
            break;
        }
        json_array_foreach(rows, j, o) {
            if (!usable(o) || jint(o, "concurrency") != 0 || !same_axes(b, o, skip_index))
                continue;
            json_t *bq = json_object_get(b, "queries"), *oq = json_object_get(o, "queries");
            size_t k;
            json_t *q;
            json_array_foreach(bq, k, q) {
                const char *name = json_string_value(json_object_get(q, "query"));
                json_t *alone = NULL;
                size_t m;
                json_t *cand;
                json_array_foreach(oq, m, cand) {
                    const char *cn = json_string_value(json_object_get(cand, "query"));
                    if (name && cn && strcmp(name, cn) == 0)
                        alone = cand;
                }
                if (alone == NULL)
                    continue;
                double a = jnum(alone, "service_p90_ms"), c = jnum(q, "service_p90_ms");
                char as[40], cs[40], pct[40] = "";
                fmt_ms(as, sizeof as, a);
                fmt_ms(cs, sizeof cs, c);
                if (isfinite(a) && isfinite(c) && a > 0)
                    snprintf(pct, sizeof pct, " (%+.0f %%)", 100.0 * (c - a) / a);
                add(out, "query %s under indexing (concurrency %lld, cell %s): service p90 %s "
                    "alone -> %s%s; %.1f -> %.1f ops/s", name, jint(b, "concurrency"),
                    bcell ? bcell : "", as, cs, pct, jnum(alone, "ops_per_s"),
                    jnum(q, "ops_per_s"));
            }
            break;
        }
    }
    return out;
}
