/* SPDX-License-Identifier: MIT */
/* bf_aggmem.c — the coordinator's aggregate of one cell: 200 agents x 600 s of samples (one per
 * agent per second, each with two ~50-bucket histograms and a 429 status), then the row.
 * Prints peak RSS and CPU. Build: cmake --build build --target bf_aggmem; run
 * build/bench/bf_aggmem. */
#include "bf_aggregate.h"
#include "bf_hist.h"
#include "bf_sample.h"
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
int main(void)
{
    bf_cell_t cell; memset(&cell, 0, sizeof cell); cell.id = "c";
    enum { AG = 200, SEC = 600 };
    bf_cellagg_t *a = bf_cellagg_new(&cell, 1, AG, NULL, 10, SEC - 10);
    bf_counters_t c; memset(&c, 0, sizeof c);
    c.docs_sent = 5000; c.docs_ok = 4990; c.docs_rejected = 10; c.http_status[429] = 1;
    bf_hist_t *h = bf_hist_new();
    for (int i = 0; i < 50; i++) bf_hist_record(h, 1000 + 317 * i);
    clock_t t0 = clock();
    for (int s = 0; s < SEC; s++)
        for (int g = 0; g < AG; g++) {
            Bf__Sample m; Bf__Hist hs, hl;
            bf_sample_pack(&m, &hs, &hl, "c", (uint64_t)s + 1, s, &c, h, h);
            bf_cellagg_add(a, (uint32_t)g, &m);
            bf_sample_pack_cleanup(&m);
        }
    bf_row_t row; bf_cellagg_row(a, &row);
    struct rusage ru; getrusage(RUSAGE_SELF, &ru);
    printf("200 agents x 600 s: docs_ok %llu, peak RSS %ld MiB, CPU %.2f s\n",
           (unsigned long long)row.docs_ok_all, ru.ru_maxrss / 1024, (double)(clock() - t0) / CLOCKS_PER_SEC);
    bf_cellagg_destroy(&a);
    return 0;
}
