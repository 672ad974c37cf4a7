/* SPDX-License-Identifier: MIT */
/* bf_split.c — largest-remainder apportionment. */
#include "bf_split.h"

#include "bf_mem.h"

#include <math.h>
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

/* at least one each of total when there are enough to go round, the rest by weights */
static void split_at_least_one(uint64_t total, const uint32_t *weights, size_t n, uint64_t *shares)
{
    if (total >= n) {
        bf_split_largest_remainder(total - n, weights, n, shares);
        for (size_t i = 0; i < n; i++)
            shares[i]++;
    } else {
        bf_split_largest_remainder(total, weights, n, shares);
    }
}

void bf_split_cell_init(bf_split_cell_t *s, uint32_t concurrency, double target_rate,
                        uint32_t search_clients, double search_rate, const uint32_t *cores,
                        size_t n)
{
    s->conc = bf_calloc(n, sizeof *s->conc);
    s->rate = bf_calloc(n, sizeof *s->rate);
    s->sclients = bf_calloc(n, sizeof *s->sclients);
    s->srate = bf_calloc(n, sizeof *s->srate);
    s->conn_base = bf_calloc(n, sizeof *s->conn_base);
    s->search_base = bf_calloc(n, sizeof *s->search_base);
    split_at_least_one(concurrency, cores, n, s->conc);
    bf_split_largest_remainder((uint64_t)llround(target_rate * 1000.0), cores, n, s->rate);
    split_at_least_one(search_clients, cores, n, s->sclients);
    uint32_t *w = bf_calloc(n, sizeof *w);
    for (size_t i = 0; i < n; i++)
        w[i] = (uint32_t)s->sclients[i];
    bf_split_largest_remainder((uint64_t)llround(search_rate * 1000.0), w, n, s->srate);
    free(w);
    bf_split_bases(s->conc, n, s->conn_base);
    bf_split_bases(s->sclients, n, s->search_base);
}

void bf_split_cell_cleanup(bf_split_cell_t *s)
{
    free(s->conc);
    free(s->rate);
    free(s->sclients);
    free(s->srate);
    free(s->conn_base);
    free(s->search_base);
    s->conc = s->rate = s->sclients = s->srate = NULL;
    s->conn_base = s->search_base = NULL;
}
