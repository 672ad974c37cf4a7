/* SPDX-License-Identifier: MIT */
/* test_rounds.c — the run order of a campaign's rounds (bf_rounds.h): the same seed gives the
 * same order (pinned, so `plan` and a run on another machine agree), every round runs every
 * cell exactly once, rounds of one seed differ, seeds differ, and the draw is not biased
 * towards any position (a chi-square bound over many rounds). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bf_rounds.h"

/* every index 0..n-1 exactly once */
static void assert_permutation(const size_t *order, size_t n)
{
    unsigned char seen[64] = {0};
    assert_true(n <= sizeof seen);
    for (size_t i = 0; i < n; i++) {
        assert_true(order[i] < n);
        assert_int_equal(seen[order[i]], 0);
        seen[order[i]] = 1;
    }
}

static void test_deterministic_pinned(void **state)
{
    (void)state;
    size_t a[4], b[4];
    /* what `plan` prints for run.seed 7 (1-based there): 3 1 2 4 / 1 2 4 3 / 3 4 2 1 */
    static const size_t want[3][4] = {{2, 0, 1, 3}, {0, 1, 3, 2}, {2, 3, 1, 0}};
    for (uint32_t r = 1; r <= 3; r++) {
        bf_rounds_order(7, r, 1, 4, a);
        bf_rounds_order(7, r, 1, 4, b);
        assert_memory_equal(a, b, sizeof a);
        assert_memory_equal(a, want[r - 1], sizeof a);
    }
}

static void test_every_cell_once_rounds_differ(void **state)
{
    (void)state;
    enum { N = 12, R = 30 };
    size_t order[R][N];
    for (uint64_t seed = 0; seed < 50; seed++) {
        for (uint32_t r = 0; r < R; r++) {
            bf_rounds_order(seed, r + 1, 1, N, order[r]);
            assert_permutation(order[r], N);
        }
        /* 12! orders: two equal rounds of one seed would be a broken draw */
        for (uint32_t r = 0; r < R; r++)
            for (uint32_t q = r + 1; q < R; q++)
                assert_memory_not_equal(order[r], order[q], sizeof order[r]);
    }
    size_t s1[N], s2[N];
    bf_rounds_order(1, 1, 1, N, s1);
    bf_rounds_order(2, 1, 1, N, s2);
    assert_memory_not_equal(s1, s2, sizeof s1);
}

static void test_sequential_and_small(void **state)
{
    (void)state;
    size_t o[5];
    bf_rounds_order(99, 3, 0, 5, o); /* run.order: sequential: the matrix's order */
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(o[i], i);
    bf_rounds_order(99, 3, 1, 1, o);
    assert_int_equal(o[0], 0);
    bf_rounds_order(99, 3, 1, 0, o); /* nothing to order, nothing written or read */
    assert_int_equal(bf_rounds_shuffled(1, 0), 0);
    assert_int_equal(bf_rounds_shuffled(2, 0), 1);
    assert_int_equal(bf_rounds_shuffled(5, 1), 0);
}

/* each cell first in about 1/n of the rounds: chi-square with n-1 = 5 degrees of freedom over
 * 6000 rounds stays below 20.5 (p = 0.001), deterministic for these seeds */
static void test_unbiased(void **state)
{
    (void)state;
    enum { N = 6, ROUNDS = 6000 };
    double first[N] = {0}, last[N] = {0};
    size_t o[N];
    for (uint32_t r = 1; r <= ROUNDS; r++) {
        bf_rounds_order(42, r, 1, N, o);
        first[o[0]]++;
        last[o[N - 1]]++;
    }
    double e = (double)ROUNDS / N, c1 = 0, c2 = 0;
    for (size_t i = 0; i < N; i++) {
        c1 += (first[i] - e) * (first[i] - e) / e;
        c2 += (last[i] - e) * (last[i] - e) / e;
    }
    assert_true(c1 < 20.5);
    assert_true(c2 < 20.5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deterministic_pinned),
        cmocka_unit_test(test_every_cell_once_rounds_differ),
        cmocka_unit_test(test_sequential_and_small),
        cmocka_unit_test(test_unbiased),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
