/* SPDX-License-Identifier: MIT */
/* bf_split.h — split a whole number over agents by the largest-remainder method.
 *
 * Used for concurrency (and target rate in docs/s) per DESIGN §3: shares add up exactly to
 * the total and are proportional to the weights (each agent's cores). Pure, thread-safe.
 */
#ifndef BF_SPLIT_H
#define BF_SPLIT_H

#include <stddef.h>
#include <stdint.h>

/* bf_split_largest_remainder — shares[i] = floor(total * w[i] / W) plus one for the n agents
 * with the largest remainders (ties go to the lower index), so sum(shares) == total.
 * Weights of 0 count as 1. n >= 1. */
void bf_split_largest_remainder(uint64_t total, const uint32_t *weights, size_t n, uint64_t *shares);

#endif
