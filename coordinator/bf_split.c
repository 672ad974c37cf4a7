/* SPDX-License-Identifier: MIT */
/* bf_split.c — largest-remainder apportionment. */
#include "bf_split.h"

#include "bf_mem.h"

#include <stdlib.h>

void bf_split_largest_remainder(uint64_t total, const uint32_t *weights, size_t n, uint64_t *shares)
{
    unsigned __int128 wsum = 0;
    for (size_t i = 0; i < n; i++)
        wsum += weights[i] ? weights[i] : 1;
    uint64_t given = 0;
    uint64_t *rem = bf_calloc(n, sizeof *rem);
    for (size_t i = 0; i < n; i++) {
        unsigned __int128 num = (unsigned __int128)total * (weights[i] ? weights[i] : 1);
        shares[i] = (uint64_t)(num / wsum);
        rem[i] = (uint64_t)(num % wsum);
        given += shares[i];
    }
    while (given < total) {
        size_t best = 0;
        for (size_t i = 1; i < n; i++)
            if (rem[i] > rem[best])
                best = i;
        shares[best]++;
        rem[best] = 0;
        given++;
    }
    free(rem);
}

void bf_split_bases(const uint64_t *shares, size_t n, uint32_t *base)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        base[i] = (uint32_t)sum;
        sum += shares[i];
    }
}
