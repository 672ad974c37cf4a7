/* SPDX-License-Identifier: MIT */
/* fuzz_sample.c — libFuzzer target: any bytes as a Sample message from an agent.
 *
 * The coordinator merges what agents send (protobuf-c, docs/internals/fleet-protocol.md): a buggy
 * or hostile allow-listed agent must not crash it or corrupt other agents' numbers. Each input is
 * read as up to four length-prefixed Sample messages (2-byte little-endian length, then the bytes;
 * the corpus was written with bf_sample_pack), added for agents 0 and 1 of a 3 s cell; then the row
 * is computed. Properties: no crash, leak or UB; a histogram the aggregate refuses adds none of its
 * counts; the row's window counts equal the merged seconds'; percentiles lie within the merged
 * histogram's range.
 */
#include "bf_aggregate.h"
#include "bf_hist.h"
#include "bf_sample.h"
#include "bulkfleet.pb-c.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
    fprintf(stderr, "fuzz property violated: %s\n", what);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bf_cell_t cell;
    memset(&cell, 0, sizeof cell);
    cell.id = "fuzz-cell";
    uint32_t cores[2] = {2, 4};
    bf_cellagg_t *a = bf_cellagg_new(&cell, 0, 2, cores, 1, 3);
    size_t off = 0;
    for (int k = 0; k < 4 && off < size; k++) {
        if (size - off < 2)
            break;
        size_t n = (size_t)data[off] | (size_t)data[off + 1] << 8;
        off += 2;
        if (n > size - off)
            n = size - off;
        Bf__Sample *s = bf__sample__unpack(NULL, n, data + off);
        off += n;
        if (s == NULL)
            continue;
        /* what a refused histogram must leave alone */
        bf_hist_t *svc = bf_hist_new(), *lat = bf_hist_new();
        bf_counters_t c;
        memset(&c, 0, sizeof c);
        int rc = bf_sample_unpack_add(s, &c, svc, lat);
        if (rc != 0 && (bf_hist_count(svc) != 0 || bf_hist_count(lat) != 0))
            fail("a refused sample added histogram counts");
        bf_hist_destroy(&svc);
        bf_hist_destroy(&lat);
        (void)bf_cellagg_add(a, (uint32_t)(k & 1), s);
        bf__sample__free_unpacked(s, NULL);
    }
    bf_row_t row;
    bf_cellagg_row(a, &row);
    uint64_t ok = 0;
    for (size_t sec = 1; sec < 4 && sec < bf_cellagg_seconds(a); sec++)
        ok += bf_cellagg_second(a, sec)->docs_ok;
    if (row.docs_ok != ok)
        fail("the row's docs_ok is not the sum of its window's seconds");
    if (isnan(row.docs_per_s) || row.docs_per_s < 0)
        fail("docs/s is not a number >= 0");
    if (row.service.p50_ms > row.service.max_ms + 1e-9 && row.service.max_ms > 0)
        fail("service p50 above its max");
    bf_cellagg_destroy(&a);
    return 0;
}
