/* SPDX-License-Identifier: MIT */
/* bf_judgebench.c — the bulk response judge alone: the best of 400 runs over one errors:false
 * response of 5000 OpenSearch-like "created" items (~950 KB), fed in 16 KiB reads as curl
 * delivers them. Prints "BYTES bytes, best MS ms"; exits 1 if the judge does not accept it.
 * Built and run by bench/judge-cost.sh against two versions of agent/bf_bulkresp.c. */
#include "bf_bulkresp.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ITEMS 5000
#define READ_BYTES 16384
#define RUNS 400

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Appends to buf (cap bytes) at *len; exits if it does not fit. */
static void append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap - *len) {
        fputs("bf_judgebench: response buffer too small\n", stderr);
        exit(2);
    }
    *len += (size_t)n;
}

int main(void)
{
    size_t cap = 2u << 20, len = 0;
    char *body = malloc(cap);
    if (body == NULL)
        return 2;
    append(body, cap, &len, "{\"took\":12,\"errors\":false,\"items\":[");
    for (int i = 0; i < ITEMS; i++)
        append(body, cap, &len,
               "%s{\"create\":{\"_index\":\"bench-sink\",\"_id\":\"cv0b8m6k%012d\",\"_version\":1,"
               "\"result\":\"created\",\"_shards\":{\"total\":1,\"successful\":1,\"failed\":0},"
               "\"_seq_no\":%d,\"_primary_term\":1,\"status\":201}}",
               i ? "," : "", i, i);
    append(body, cap, &len, "]}");

    double best = 1e9;
    for (int r = 0; r < RUNS; r++) {
        bf_bulk_counts_t c;
        char err[256];
        double t0 = now_s();
        bf_bulkresp_stream_t st;
        bf_bulkresp_stream_init(&st, ITEMS, NULL);
        for (size_t off = 0; off < len; off += READ_BYTES)
            bf_bulkresp_stream_feed(&st, body + off, len - off < READ_BYTES ? len - off : READ_BYTES);
        int rc = bf_bulkresp_stream_finish(&st, &c, err, sizeof err);
        double t = now_s() - t0;
        if (rc != 0 || c.ok != ITEMS) {
            fprintf(stderr, "bf_judgebench: the judge refused the response (%d): %s\n", rc, err);
            return 1;
        }
        if (t < best)
            best = t;
    }
    printf("%zu bytes, best %.3f ms\n", len, best * 1e3);
    free(body);
    return 0;
}
