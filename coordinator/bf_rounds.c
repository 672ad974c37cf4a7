/* SPDX-License-Identifier: MIT */
/* bf_rounds.c — the shuffled order of a campaign's rounds (bf_rounds.h). */
#include "bf_rounds.h"

#include "bf_vars.h"

/* The generator's stream of round r: far from the streams the agents derive from the same seed
 * for documents (cell index x 1000003 + repetition + ...), so this order and the documents never
 * share draws. */
#define ROUNDS_STREAM 0x726f756e64730000ull /* "rounds\0\0" */

void bf_rounds_order(uint64_t seed, uint32_t round, int shuffle, size_t n, size_t *order)
{
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    if (!shuffle || n < 2)
        return;
    bf_rng_t r;
    bf_rng_seed(&r, seed, ROUNDS_STREAM + round);
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t)bf_rng_below(&r, (uint64_t)i + 1);
        size_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

int bf_rounds_shuffled(uint32_t repeat, int sequential)
{
    return repeat >= 2 && !sequential;
}
