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

/* bf_split_bases — base[i] = shares[0] + ... + shares[i - 1] (base[0] = 0): agent i's first
 * connection counted across the fleet in cell order, so that connection j of the fleet goes to
 * target.hosts[j mod hosts] and the fleet's connections spread over the hosts as evenly as one
 * agent's do (issue #30: each agent started on hosts[0], and with one connection per agent the
 * other hosts got nothing). A base past UINT32_MAX wraps (the host is taken mod hosts; wrapping
 * only shifts the start). n >= 1; pure, thread-safe. */
void bf_split_bases(const uint64_t *shares, size_t n, uint32_t *base);

#endif
