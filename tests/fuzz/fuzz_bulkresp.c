/* SPDX-License-Identifier: MIT */
/* fuzz_bulkresp.c — libFuzzer target: any bytes as a _bulk response body.
 *
 * The judge reads what a cluster, or a proxy in front of it, sends back: untrusted bytes that
 * arrive in pieces of any size. Input layout: byte 0 = ndocs (0..255), byte 1 = seed of the
 * piece sizes, the rest = the body. Properties:
 *   - no crash, leak or hang (the sanitizers and libFuzzer's limits);
 *   - the verdict does not depend on how the body was cut: the body fed in one piece
 *     (bf_bulkresp_parse) and in pieces of 1..64 bytes give the same return code, counts, item
 *     classes and (for an accepted body) first item error — the pieces cut through tokens,
 *     escapes, the "failure_store" seam check and items kept across reads;
 *   - an accepted body judges every document exactly once (the counts add up to ndocs) and
 *     its classes agree with its counts.
 */
#include "bf_bulkresp.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *a, const char *b)
{
    fprintf(stderr, "fuzz property violated: %s\n  whole: %s\n  pieces: %s\n", what, a, b);
    abort();
}

static uint64_t sum(const bf_bulk_counts_t *c)
{
    return c->ok + c->rejected + c->conflict + c->mapping + c->failed_4xx + c->failed_5xx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    uint32_t ndocs = data[0];
    uint32_t x = 0x9E3779B9u ^ data[1];
    const char *body = (const char *)data + 2;
    size_t len = size - 2;

    uint8_t cls_a[256], cls_b[256];
    memset(cls_a, 0xEE, sizeof cls_a);
    memset(cls_b, 0xEE, sizeof cls_b);
    bf_bulk_counts_t a, b;
    char ea[700], eb[700];
    int ra = bf_bulkresp_parse(body, len, ndocs, &a, cls_a, ea, sizeof ea);

    bf_bulkresp_stream_t *st = malloc(sizeof *st);
    bf_bulkresp_stream_init(st, ndocs, cls_b);
    for (size_t off = 0; off < len;) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        size_t n = 1 + x % 64;
        if (n > len - off)
            n = len - off;
        bf_bulkresp_stream_feed(st, body + off, n);
        off += n;
    }
    int rb = bf_bulkresp_stream_finish(st, &b, eb, sizeof eb);
    /* errors by type: every failed document under one type, once */
    if (rb == 0 && bf_errtypes_total(bf_bulkresp_stream_errtypes(st)) != ndocs - b.ok)
        fail("the error types do not add up to the failed documents", eb, "");
    free(st);

    /* The first error's text may differ when the body is refused: after "errors":false the
     * items are skipped in 64-byte strides where a read allows it, so a malformed byte inside
     * an item can be noticed later (the refusal is the same). For an accepted body, the text
     * (the first failed item) must be the same too. */
    if (ra != rb || memcmp(&a, &b, sizeof a) != 0 || (ra == 0 && strcmp(ea, eb) != 0))
        fail("the verdict depends on how the body was cut", ea, eb);
    if (ra == 0) {
        if (sum(&a) != ndocs)
            fail("an accepted body does not judge every document once", ea, "");
        if (memcmp(cls_a, cls_b, ndocs) != 0)
            fail("item classes depend on how the body was cut", ea, eb);
        uint64_t per[6] = {0};
        for (uint32_t i = 0; i < ndocs; i++) {
            if (cls_a[i] > BF_ITEM_5XX)
                fail("an item has no class", ea, "");
            per[cls_a[i]]++;
        }
        if (per[BF_ITEM_OK] != a.ok || per[BF_ITEM_REJECTED] != a.rejected ||
            per[BF_ITEM_CONFLICT] != a.conflict || per[BF_ITEM_MAPPING] != a.mapping ||
            per[BF_ITEM_4XX] != a.failed_4xx || per[BF_ITEM_5XX] != a.failed_5xx)
            fail("item classes disagree with the counts", ea, "");
    } else if (sum(&a) != 0) {
        fail("a refused body has counts", ea, "");
    }
    return 0;
}
