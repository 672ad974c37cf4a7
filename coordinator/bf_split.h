/* SPDX-License-Identifier: MIT */
/* bf_split.h — split a whole number over agents by the largest-remainder method.
 *
 * Used for concurrency (and target rate in docs/s) per docs/internals/fleet-protocol.md: shares add
 * up exactly to the total and are proportional to the weights (each agent's cores). Pure,
 * thread-safe.
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
 * agent's do (each agent started on hosts[0], and with one connection per agent the
 * other hosts got nothing). A base past UINT32_MAX wraps (the host is taken mod hosts; wrapping
 * only shifts the start). n >= 1; pure, thread-safe. */
void bf_split_bases(const uint64_t *shares, size_t n, uint32_t *base);

/* One cell's load split over its n agents (docs/internals/fleet-protocol.md; bf_split_cell_init
 * fills it). Each array has n entries, agent i at [i]. */
typedef struct bf_split_cell {
    uint64_t *conc;        /* bulk requests in flight */
    uint64_t *rate;        /* the target rate, in milli-docs/s */
    uint64_t *sclients;    /* search clients */
    uint64_t *srate;       /* the search rate, in milli-queries/s */
    uint32_t *conn_base;   /* the agent's first connection across the fleet (bf_split_bases) */
    uint32_t *search_base; /* the same for search clients */
} bf_split_cell_t;

/* bf_split_cell_init — split a cell's concurrency, target_rate (docs/s), search_clients and
 * search_rate (queries/s) over n agents weighted by cores[i] (largest remainder): every agent
 * gets at least one request in flight (and one search client) when there are enough to go
 * round, the rest is split by cores (an agent with 0 would sit idle and fail the cell); the
 * target rate by cores; the search rate by the agents' search clients (an agent without
 * clients weighs 1 in the split, so keep search_clients >= agents for every share to be
 * used); then each agent's connection and search-client bases, so the fleet's connections
 * spread over target.hosts round-robin as one agent's do. n >= 1. s is filled
 * (caller cleans up with bf_split_cell_cleanup). Pure, thread-safe. */
void bf_split_cell_init(bf_split_cell_t *s, uint32_t concurrency, double target_rate,
                        uint32_t search_clients, double search_rate, const uint32_t *cores,
                        size_t n);

/* bf_split_cell_cleanup — free the arrays of s (NULL-safe fields); s may be initialised again. */
void bf_split_cell_cleanup(bf_split_cell_t *s);

#endif
