/* SPDX-License-Identifier: MIT */
/* test_hist.c — unit tests for bf_hist: layout, percentiles, merge, sparse form, clamping. */
#include "bf_error.h"
#include "bf_hist.h"
#include "bf_mem.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Nearest-rank percentile of the values 1..n, each recorded once. */
static uint64_t exact_uniform(uint64_t n, double p)
{
    return (uint64_t)(p * (double)n / 100.0 + 0.5); /* the rank is whole for the p used here */
}

/* A percentile is right when it is the highest equivalent of the exact value: in the exact
 * value's bucket (3 significant figures: less than 1/1024 above it). */
static void assert_within_resolution(uint64_t got, uint64_t exact)
{
    assert_true(got >= exact);
    assert_true(got - exact < exact / 1000 + 1);
    assert_int_equal(got, bf_hist_highest_equivalent(exact));
}

static void test_layout_matches_hdr_init(void **state)
{
    (void)state;
    /* Recompute HdrHistogram's hdr_calculate_bucket_config for (1, 3.6e9, 3). */
    uint64_t largest_single_unit = 2 * 1000;
    int sub_bucket_count_magnitude = 0;
    while (((uint64_t)1 << sub_bucket_count_magnitude) < largest_single_unit)
        sub_bucket_count_magnitude++;
    assert_int_equal(sub_bucket_count_magnitude, 11);
    uint64_t sub_bucket_count = (uint64_t)1 << sub_bucket_count_magnitude;
    uint64_t smallest_untrackable = sub_bucket_count;
    int buckets_needed = 1;
    while (smallest_untrackable <= BF_HIST_HIGHEST_US) {
        smallest_untrackable <<= 1;
        buckets_needed++;
    }
    assert_int_equal(buckets_needed, 22);
    assert_int_equal(bf_hist_counts_len(), (size_t)(buckets_needed + 1) * (sub_bucket_count / 2));
    assert_int_equal(bf_hist_counts_len(), 23552);
}

static void test_equivalent_ranges(void **state)
{
    (void)state;
    /* Below 2048 every value has its own bucket. */
    assert_int_equal(bf_hist_lowest_equivalent(1), 1);
    assert_int_equal(bf_hist_highest_equivalent(1), 1);
    assert_int_equal(bf_hist_highest_equivalent(2047), 2047);
    /* 2048..4095: buckets 2 wide; 4096..8191: 4 wide. */
    assert_int_equal(bf_hist_lowest_equivalent(2049), 2048);
    assert_int_equal(bf_hist_highest_equivalent(2048), 2049);
    assert_int_equal(bf_hist_highest_equivalent(4095), 4095);
    assert_int_equal(bf_hist_lowest_equivalent(4097), 4096);
    assert_int_equal(bf_hist_highest_equivalent(4096), 4099);
    /* 50,000: bucket 5, 32 wide. */
    assert_int_equal(bf_hist_lowest_equivalent(50000), 49984);
    assert_int_equal(bf_hist_highest_equivalent(50000), 50015);
    /* The top: 3.6e9 is in bucket 21 (2 Mi wide); beyond it is clamped. */
    assert_int_equal(bf_hist_lowest_equivalent(BF_HIST_HIGHEST_US), 1716ull << 21);
    assert_int_equal(bf_hist_highest_equivalent(UINT64_MAX), (1717ull << 21) - 1);
    assert_int_equal(bf_hist_lowest_equivalent(0), 1);
}

static void test_empty(void **state)
{
    (void)state;
    bf_hist_t *h = bf_hist_new();
    assert_int_equal(bf_hist_count(h), 0);
    assert_int_equal(bf_hist_clamped(h), 0);
    assert_int_equal(bf_hist_min(h), 0);
    assert_int_equal(bf_hist_max(h), 0);
    assert_true(bf_hist_mean(h) == 0.0);
    assert_int_equal(bf_hist_percentile(h, 50), 0);
    assert_int_equal(bf_hist_percentile(h, 100), 0);
    assert_int_equal(bf_hist_nonzero(h), 0);
    bf_hist_destroy(&h);
    assert_null(h);
    bf_hist_destroy(&h); /* NULL-safe */
    bf_hist_destroy(NULL);
}

static void test_uniform_1_to_1e6(void **state)
{
    (void)state;
    const uint64_t n = 1000000;
    bf_hist_t *h = bf_hist_new();
    for (uint64_t v = 1; v <= n; v++)
        bf_hist_record(h, v);
    assert_int_equal(bf_hist_count(h), n);
    assert_int_equal(bf_hist_clamped(h), 0);

    const double ps[] = {50, 90, 99, 99.9, 99.99};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        assert_within_resolution(bf_hist_percentile(h, ps[i]), exact_uniform(n, ps[i]));
    assert_int_equal(bf_hist_percentile(h, 50), 500223); /* bucket 8: [499968, 500223] */
    assert_int_equal(bf_hist_percentile(h, 100), bf_hist_highest_equivalent(n));
    assert_int_equal(bf_hist_percentile(h, 1e-9), 1);

    assert_int_equal(bf_hist_min(h), 1);
    assert_within_resolution(bf_hist_max(h), n);
    double mean = bf_hist_mean(h);
    assert_true(mean > 500000.5 * (1 - 1e-3) && mean < 500000.5 * (1 + 1e-3));
    bf_hist_destroy(&h);
}

static void test_bimodal(void **state)
{
    (void)state;
    bf_hist_t *h = bf_hist_new();
    bf_hist_record_n(h, 1000, 900);
    bf_hist_record_n(h, 50000, 100);
    assert_int_equal(bf_hist_count(h), 1000);
    assert_int_equal(bf_hist_percentile(h, 50), 1000);
    assert_int_equal(bf_hist_percentile(h, 90), 1000); /* rank 900: the last fast one */
    /* rank ceil(900.1) = 901: the first slow one (HdrHistogram_c's +0.5 would say 900). */
    assert_int_equal(bf_hist_percentile(h, 90.01), 50015);
    assert_int_equal(bf_hist_percentile(h, 99), 50015);
    assert_int_equal(bf_hist_percentile(h, 99.9), 50015);
    assert_int_equal(bf_hist_percentile(h, 100), 50015);
    assert_int_equal(bf_hist_percentile(h, 250), 50015); /* clipped to 100 */
    assert_int_equal(bf_hist_min(h), 1000);
    assert_int_equal(bf_hist_max(h), 50015);
    /* Midpoint of 50000's bucket [49984, 50015] is 50000. */
    assert_true(bf_hist_mean(h) == (900.0 * 1000 + 100.0 * 50000) / 1000);
    bf_hist_destroy(&h);
}

static void test_constant(void **state)
{
    (void)state;
    bf_hist_t *h = bf_hist_new();
    for (int i = 0; i < 10000; i++)
        bf_hist_record(h, 12345);
    /* 12345 is in bucket 3 (8 wide): [12344, 12351]. */
    const double ps[] = {0.01, 1, 50, 90, 99, 99.9, 99.99, 100};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        assert_int_equal(bf_hist_percentile(h, ps[i]), 12351);
    assert_int_equal(bf_hist_min(h), 12344);
    assert_int_equal(bf_hist_max(h), 12351);
    assert_true(bf_hist_mean(h) == 12348.0);
    assert_int_equal(bf_hist_nonzero(h), 1);
    bf_hist_destroy(&h);
}

/* p99.9 of exactly 1000 values is rank 999, even though 99.9 is not representable. */
static void test_percentile_rank_roundoff(void **state)
{
    (void)state;
    bf_hist_t *h = bf_hist_new();
    for (uint64_t v = 1; v <= 1000; v++)
        bf_hist_record(h, v);
    assert_int_equal(bf_hist_percentile(h, 99.9), 999);
    assert_int_equal(bf_hist_percentile(h, 99), 990);
    assert_int_equal(bf_hist_percentile(h, 90), 900);
    assert_int_equal(bf_hist_percentile(h, 0.1), 1);
    assert_int_equal(bf_hist_percentile(h, 0.05), 1);
    assert_int_equal(bf_hist_percentile(h, 0.15), 2);
    bf_hist_destroy(&h);
}

static void assert_same(const bf_hist_t *a, const bf_hist_t *b)
{
    size_t len = bf_hist_counts_len();
    uint32_t *ia = bf_calloc(len, sizeof *ia), *ib = bf_calloc(len, sizeof *ib);
    uint64_t *ca = bf_calloc(len, sizeof *ca), *cb = bf_calloc(len, sizeof *cb);
    size_t na = bf_hist_export(a, ia, ca, len);
    size_t nb = bf_hist_export(b, ib, cb, len);
    assert_int_equal(na, nb);
    assert_int_equal(na, bf_hist_nonzero(a));
    assert_memory_equal(ia, ib, na * sizeof *ia);
    assert_memory_equal(ca, cb, na * sizeof *ca);
    assert_int_equal(bf_hist_count(a), bf_hist_count(b));
    assert_int_equal(bf_hist_clamped(a), bf_hist_clamped(b));
    assert_int_equal(bf_hist_min(a), bf_hist_min(b));
    assert_int_equal(bf_hist_max(a), bf_hist_max(b));
    assert_true(bf_hist_mean(a) == bf_hist_mean(b));
    const double ps[] = {1, 10, 50, 75, 90, 99, 99.9, 99.99, 100};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        assert_int_equal(bf_hist_percentile(a, ps[i]), bf_hist_percentile(b, ps[i]));
    free(ia);
    free(ib);
    free(ca);
    free(cb);
}

static void test_merge_far_apart(void **state)
{
    (void)state;
    bf_hist_t *fast = bf_hist_new(), *slow = bf_hist_new(), *all = bf_hist_new();
    bf_hist_t *merged = bf_hist_new();
    for (uint64_t v = 1; v <= 20; v++) {
        bf_hist_record_n(fast, v, v);
        bf_hist_record_n(all, v, v);
    }
    bf_hist_record(fast, 0); /* clamped */
    bf_hist_record(all, 0);
    const uint64_t big[] = {1000000000ull, 1000000001ull, 1500000000ull, 3599999999ull,
                            BF_HIST_HIGHEST_US, 7200000000ull /* clamped */};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        bf_hist_record_n(slow, big[i], 3);
        bf_hist_record_n(all, big[i], 3);
    }
    bf_hist_add(merged, fast);
    bf_hist_add(merged, slow);
    assert_same(merged, all);
    assert_int_equal(bf_hist_count(merged), 210 + 1 + 18);
    assert_int_equal(bf_hist_clamped(merged), 1 + 3);
    assert_int_equal(bf_hist_min(merged), 1);
    assert_int_equal(bf_hist_max(merged), bf_hist_highest_equivalent(BF_HIST_HIGHEST_US));
    /* 211 fast values of 229: p90 (rank 207) is fast, p93 (rank 213) is the first slow one. */
    assert_int_equal(bf_hist_percentile(merged, 90), 20);
    assert_within_resolution(bf_hist_percentile(merged, 93), 1000000000ull);

    /* Adding in the other order, and an empty histogram, changes nothing. */
    bf_hist_t *other = bf_hist_new(), *empty = bf_hist_new();
    bf_hist_add(other, slow);
    bf_hist_add(other, empty);
    bf_hist_add(other, fast);
    assert_same(other, all);

    bf_hist_destroy(&fast);
    bf_hist_destroy(&slow);
    bf_hist_destroy(&all);
    bf_hist_destroy(&merged);
    bf_hist_destroy(&other);
    bf_hist_destroy(&empty);
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

static void test_export_import_round_trip(void **state)
{
    (void)state;
    bf_hist_t *h = bf_hist_new(), *back = bf_hist_new();
    uint64_t seed = 42;
    for (int i = 0; i < 200000; i++) {
        /* log-spread values below 2^bits, 0 .. 8.6e9: some out of range at both ends */
        unsigned bits = (unsigned)(lcg(&seed) % 34);
        bf_hist_record(h, (lcg(&seed) << 2) >> (33 - bits));
    }
    bf_hist_record(h, 0);
    bf_hist_record(h, UINT64_MAX);

    size_t n = bf_hist_nonzero(h);
    assert_true(n > 1000);
    uint32_t *idx = bf_calloc(n, sizeof *idx);
    uint64_t *cnt = bf_calloc(n, sizeof *cnt);
    assert_int_equal(bf_hist_export(h, idx, cnt, n), n);
    for (size_t k = 1; k < n; k++)
        assert_true(idx[k] > idx[k - 1]); /* ascending */
    for (size_t k = 0; k < n; k++) {
        assert_true(idx[k] < bf_hist_counts_len());
        assert_true(cnt[k] > 0);
    }
    assert_int_equal(bf_hist_import_add(back, idx, cnt, n, bf_hist_clamped(h)), BF_OK);
    assert_same(back, h);

    /* A short buffer gets the first pairs only. */
    uint32_t small_idx[5];
    uint64_t small_cnt[5];
    assert_int_equal(bf_hist_export(h, small_idx, small_cnt, 5), 5);
    assert_memory_equal(small_idx, idx, sizeof small_idx);
    assert_int_equal(bf_hist_export(h, small_idx, small_cnt, 0), 0);

    /* Importing twice doubles; reset empties. */
    assert_int_equal(bf_hist_import_add(back, idx, cnt, n, bf_hist_clamped(h)), BF_OK);
    assert_int_equal(bf_hist_count(back), 2 * bf_hist_count(h));
    assert_int_equal(bf_hist_clamped(back), 2 * bf_hist_clamped(h));
    bf_hist_reset(back);
    assert_int_equal(bf_hist_count(back), 0);
    assert_int_equal(bf_hist_clamped(back), 0);
    assert_int_equal(bf_hist_nonzero(back), 0);
    assert_int_equal(bf_hist_import_add(back, NULL, NULL, 0, 0), BF_OK);

    free(idx);
    free(cnt);
    bf_hist_destroy(&h);
    bf_hist_destroy(&back);
}

static void test_import_rejects_bad_index(void **state)
{
    (void)state;
    bf_hist_t *h = bf_hist_new();
    bf_hist_record(h, 7);
    uint32_t last = (uint32_t)bf_hist_counts_len() - 1;

    /* Valid pairs before the bad one are not added either. */
    uint32_t idx[3] = {5, 100, last + 1};
    uint64_t cnt[3] = {1, 2, 3};
    assert_int_equal(bf_hist_import_add(h, idx, cnt, 3, 4), BF_E_RANGE);
    idx[2] = UINT32_MAX;
    assert_int_equal(bf_hist_import_add(h, idx, cnt, 3, 4), BF_E_RANGE);
    assert_int_equal(bf_hist_count(h), 1);
    assert_int_equal(bf_hist_clamped(h), 0);
    assert_int_equal(bf_hist_nonzero(h), 1);

    /* Counts that would overflow the total are refused too. */
    uint32_t idx2[2] = {5, 6};
    uint64_t cnt2[2] = {UINT64_MAX, 1};
    assert_int_equal(bf_hist_import_add(h, idx2, cnt2, 2, 0), BF_E_RANGE);
    assert_int_equal(bf_hist_count(h), 1);

    /* The last index of the layout is valid. */
    idx[2] = last;
    assert_int_equal(bf_hist_import_add(h, idx, cnt, 3, 4), BF_OK);
    assert_int_equal(bf_hist_count(h), 7);
    assert_int_equal(bf_hist_clamped(h), 4);
    assert_int_equal(bf_hist_max(h), (2048ull << 21) - 1);
    bf_hist_destroy(&h);
}

static void test_clamping_counted(void **state)
{
    (void)state;
    bf_hist_t *h = bf_hist_new();
    bf_hist_record(h, 1);
    bf_hist_record(h, BF_HIST_HIGHEST_US);
    assert_int_equal(bf_hist_clamped(h), 0);

    bf_hist_record(h, 0);
    assert_int_equal(bf_hist_clamped(h), 1);
    assert_int_equal(bf_hist_min(h), 1);
    bf_hist_record(h, BF_HIST_HIGHEST_US + 1);
    bf_hist_record(h, UINT64_MAX);
    bf_hist_record_n(h, 0, 5);
    assert_int_equal(bf_hist_clamped(h), 8);
    assert_int_equal(bf_hist_count(h), 10);
    assert_int_equal(bf_hist_max(h), bf_hist_highest_equivalent(BF_HIST_HIGHEST_US));
    /* Clamped values are in the buckets at the range ends. */
    assert_int_equal(bf_hist_percentile(h, 70), 1);
    assert_int_equal(bf_hist_percentile(h, 71), bf_hist_highest_equivalent(BF_HIST_HIGHEST_US));
    bf_hist_destroy(&h);
}

static void test_mean_min_max(void **state)
{
    (void)state;
    bf_hist_t *h = bf_hist_new();
    bf_hist_record(h, 10);
    bf_hist_record(h, 20);
    bf_hist_record(h, 30);
    bf_hist_record(h, 1000);
    assert_int_equal(bf_hist_min(h), 10);
    assert_int_equal(bf_hist_max(h), 1000);
    assert_true(bf_hist_mean(h) == 265.0);
    bf_hist_record(h, 1000000); /* bucket [999936, 1000447], midpoint 1000192 */
    assert_int_equal(bf_hist_max(h), 1000447);
    double mean = bf_hist_mean(h);
    assert_true(mean > (1060.0 + 1000000) / 5 * 0.999 && mean < (1060.0 + 1000000) / 5 * 1.001);
    bf_hist_destroy(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_matches_hdr_init),
        cmocka_unit_test(test_equivalent_ranges),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_uniform_1_to_1e6),
        cmocka_unit_test(test_bimodal),
        cmocka_unit_test(test_constant),
        cmocka_unit_test(test_percentile_rank_roundoff),
        cmocka_unit_test(test_merge_far_apart),
        cmocka_unit_test(test_export_import_round_trip),
        cmocka_unit_test(test_import_rejects_bad_index),
        cmocka_unit_test(test_clamping_counted),
        cmocka_unit_test(test_mean_min_max),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
