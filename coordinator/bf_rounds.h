/* SPDX-License-Identifier: MIT */
/* bf_rounds.h — the order in which a campaign runs its cells' repetitions.
 *
 * With run.repeat >= 2 a campaign runs in rounds: each round runs every cell once, in an order
 * shuffled from run.seed and the round's number (a new shuffle each round), so a cluster that
 * drifts (segments merging, a JVM still warming, a neighbour's load) falls on every cell alike
 * instead of on whichever cell ran its repetitions back to back. This is the randomized
 * multiple interleaved trials design of Abedi & Brecht ("Conducting repeatable experiments in
 * highly variable cloud computing environments", ICPE 2017) and Laaber et al. ("Software
 * microbenchmarking in the cloud. How bad is it really?", EMSE 2019); docs/scenario.md
 * "Run order" says what the user sees. `run.order: sequential` keeps every repetition of a
 * cell back to back, in matrix order. Pure functions: thread-safe.
 */
#ifndef BF_ROUNDS_H
#define BF_ROUNDS_H

#include <stddef.h>
#include <stdint.h>

/* bf_rounds_order — the run order of round `round` (1-based) of a matrix of n cells, as cell
 * indices (0-based, matrix order) into order[0..n): a Fisher–Yates shuffle (Knuth, TAOCP vol. 2,
 * 3.4.2 algorithm P) drawn from bf_rng (xoshiro256**, seeded through splitmix64) on a stream of
 * its own per round, so the same seed gives the same order on every machine and in `plan`. With
 * shuffle 0 the order is the matrix's (0, 1, ..., n-1). order must hold n entries; n may be 0. */
void bf_rounds_order(uint64_t seed, uint32_t round, int shuffle, size_t n, size_t *order);

/* bf_rounds_shuffled — 1 when a campaign of `repeat` repetitions per cell runs in shuffled
 * rounds (repeat >= 2 and not sequential), 0 when every cell's repetitions run back to back in
 * matrix order. */
int bf_rounds_shuffled(uint32_t repeat, int sequential);

#endif
