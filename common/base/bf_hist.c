/* SPDX-License-Identifier: MIT */
/* bf_hist.c — log-linear latency histogram in HdrHistogram's layout.
 *
 * The layout is HdrHistogram_c's (src/hdr_histogram.c) for lowest 1, highest 3,600,000,000 and
 * 3 significant figures, fixed at compile time so that recording is a handful of instructions:
 * bucket = 53 - clz(v | 2047), sub_bucket = v >> bucket, index = ((bucket + 1) << 10) +
 * sub_bucket - 1024. Values below 2048 us are exact; above, a bucket spans 1/1024 to 1/2048 of
 * its value. The histogram keeps only counts: min, max, mean and percentiles are derived from
 * the buckets, so a histogram rebuilt from its sparse export answers exactly like the original.
 */
#include "bf_hist.h"

#include "bf_error.h"
#include "bf_mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* HdrHistogram's derivation for lowest 1, 3 significant figures:
 * largest value with single-unit resolution = 2 * 10^3 = 2000 -> sub_bucket_count_magnitude =
 * ceil(log2(2000)) = 11; unit_magnitude = floor(log2(1)) = 0. */
#define SUB_BUCKET_COUNT_MAGNITUDE 11
#define SUB_BUCKET_HALF_COUNT_MAGNITUDE (SUB_BUCKET_COUNT_MAGNITUDE - 1)
#define SUB_BUCKET_COUNT (1u << SUB_BUCKET_COUNT_MAGNITUDE)           /* 2048 */
#define SUB_BUCKET_HALF_COUNT (1u << SUB_BUCKET_HALF_COUNT_MAGNITUDE) /* 1024 */
#define SUB_BUCKET_MASK ((uint64_t)SUB_BUCKET_COUNT - 1)
/* Smallest n with SUB_BUCKET_COUNT << (n - 1) > highest: 2048 << 21 = 4,294,967,296. */
#define BUCKET_COUNT 22
#define COUNTS_LEN ((BUCKET_COUNT + 1) * SUB_BUCKET_HALF_COUNT) /* 23,552 */
/* 64 - unit_magnitude - sub_bucket_count_magnitude */
#define LEADING_ZERO_COUNT_BASE (64 - SUB_BUCKET_COUNT_MAGNITUDE)

_Static_assert(((uint64_t)SUB_BUCKET_COUNT << (BUCKET_COUNT - 1)) > BF_HIST_HIGHEST_US,
               "bucket_count too small for BF_HIST_HIGHEST_US");
_Static_assert(((uint64_t)SUB_BUCKET_COUNT << (BUCKET_COUNT - 2)) <= BF_HIST_HIGHEST_US,
               "bucket_count larger than HdrHistogram would choose");
_Static_assert(BF_HIST_LOWEST_US == 1, "unit_magnitude 0 assumes a lowest value of 1");

struct bf_hist {
    uint64_t total;   /* sum of counts[] */
    uint64_t clamped; /* how many of them were recorded out of range and clamped */
    uint64_t counts[COUNTS_LEN];
};

/* Index of the bucket holding v (v >= 1). */
static inline unsigned bucket_of(uint64_t v)
{
    return (unsigned)(LEADING_ZERO_COUNT_BASE - __builtin_clzll(v | SUB_BUCKET_MASK));
}

/* Counts index of v, 1 <= v <= BF_HIST_HIGHEST_US. No loop, no branch. */
static inline size_t index_of(uint64_t v)
{
    unsigned b = bucket_of(v);
    size_t sub = (size_t)(v >> b);
    return ((size_t)(b + 1) << SUB_BUCKET_HALF_COUNT_MAGNITUDE) + sub - SUB_BUCKET_HALF_COUNT;
}

/* Lowest value counted at index i (HdrHistogram's hdr_value_at_index). */
static uint64_t value_at_index(size_t i)
{
    int b = (int)(i >> SUB_BUCKET_HALF_COUNT_MAGNITUDE) - 1;
    uint64_t sub = (i & (SUB_BUCKET_HALF_COUNT - 1)) + SUB_BUCKET_HALF_COUNT;
    if (b < 0) {
        sub -= SUB_BUCKET_HALF_COUNT;
        b = 0;
    }
    return sub << b;
}

/* Width of the bucket at index i: 1 << bucket, since the counts index never names the upper
 * half-overlap that HdrHistogram's size_of_equivalent_value_range adjusts for. */
static uint64_t width_at_index(size_t i)
{
    int b = (int)(i >> SUB_BUCKET_HALF_COUNT_MAGNITUDE) - 1;
    return (uint64_t)1 << (b < 0 ? 0 : b);
}

static uint64_t clamp_value(uint64_t v)
{
    if (v < BF_HIST_LOWEST_US)
        return BF_HIST_LOWEST_US;
    if (v > BF_HIST_HIGHEST_US)
        return BF_HIST_HIGHEST_US;
    return v;
}

uint64_t bf_hist_lowest_equivalent(uint64_t value_us)
{
    return value_at_index(index_of(clamp_value(value_us)));
}

uint64_t bf_hist_highest_equivalent(uint64_t value_us)
{
    size_t i = index_of(clamp_value(value_us));
    return value_at_index(i) + width_at_index(i) - 1;
}

bf_hist_t *bf_hist_new(void)
{
    return bf_calloc(1, sizeof(bf_hist_t));
}

void bf_hist_destroy(bf_hist_t **h_p)
{
    if (h_p == NULL || *h_p == NULL)
        return;
    free(*h_p);
    *h_p = NULL;
}

void bf_hist_reset(bf_hist_t *h)
{
    memset(h, 0, sizeof *h);
}

void bf_hist_record_n(bf_hist_t *h, uint64_t value_us, uint64_t n)
{
    /* One unsigned compare catches both 0 and > highest. */
    if (__builtin_expect(value_us - BF_HIST_LOWEST_US > BF_HIST_HIGHEST_US - BF_HIST_LOWEST_US,
                         0)) {
        h->clamped += n;
        value_us = clamp_value(value_us);
    }
    h->counts[index_of(value_us)] += n;
    h->total += n;
}

void bf_hist_record(bf_hist_t *h, uint64_t value_us)
{
    bf_hist_record_n(h, value_us, 1);
}

void bf_hist_add(bf_hist_t *dst, const bf_hist_t *src)
{
    for (size_t i = 0; i < COUNTS_LEN; i++)
        dst->counts[i] += src->counts[i];
    dst->total += src->total;
    dst->clamped += src->clamped;
}

uint64_t bf_hist_count(const bf_hist_t *h)
{
    return h->total;
}

uint64_t bf_hist_clamped(const bf_hist_t *h)
{
    return h->clamped;
}

uint64_t bf_hist_min(const bf_hist_t *h)
{
    if (h->total == 0)
        return 0;
    for (size_t i = 0; i < COUNTS_LEN; i++)
        if (h->counts[i])
            return value_at_index(i);
    return 0;
}

uint64_t bf_hist_max(const bf_hist_t *h)
{
    if (h->total == 0)
        return 0;
    for (size_t i = COUNTS_LEN; i-- > 0;)
        if (h->counts[i])
            return value_at_index(i) + width_at_index(i) - 1;
    return 0;
}

double bf_hist_mean(const bf_hist_t *h)
{
    if (h->total == 0)
        return 0;
    /* Each bucket stands for its median-equivalent value, as hdr_mean. */
    double sum = 0;
    for (size_t i = 0; i < COUNTS_LEN; i++)
        if (h->counts[i])
            sum += (double)h->counts[i] * (double)(value_at_index(i) + (width_at_index(i) >> 1));
    return sum / (double)h->total;
}

uint64_t bf_hist_percentile(const bf_hist_t *h, double p)
{
    if (h->total == 0)
        return 0;
    if (!(p > 0))
        return bf_hist_min(h);
    if (p > 100)
        p = 100;
    /* ceil(p/100 * count), the nearest rank (as the Java HdrHistogram's getValueAtPercentile;
     * HdrHistogram_c rounds half up instead). p*count/100 carries a relative error of a few
     * ulps, e.g. 99.9 is not representable: shave 1e-12 relative before rounding up so that
     * p99.9 of 1000 values is rank 999, not 1000. */
    double want = p * (double)h->total / 100.0;
    double rank_f = ceil(want - want * 1e-12);
    uint64_t rank = rank_f < 1 ? 1 : (uint64_t)rank_f;
    if (rank > h->total)
        rank = h->total;
    uint64_t seen = 0;
    for (size_t i = 0; i < COUNTS_LEN; i++) {
        seen += h->counts[i];
        if (seen >= rank)
            return value_at_index(i) + width_at_index(i) - 1;
    }
    return 0; /* not reached: counts add up to total */
}

size_t bf_hist_nonzero(const bf_hist_t *h)
{
    size_t n = 0;
    for (size_t i = 0; i < COUNTS_LEN; i++)
        n += h->counts[i] != 0;
    return n;
}

size_t bf_hist_export(const bf_hist_t *h, uint32_t *index, uint64_t *count, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < COUNTS_LEN && n < cap; i++) {
        if (h->counts[i]) {
            index[n] = (uint32_t)i;
            count[n] = h->counts[i];
            n++;
        }
    }
    return n;
}

int bf_hist_import_check(const bf_hist_t *h, const uint32_t *index, const uint64_t *count, size_t n,
                         uint64_t clamped)
{
    uint64_t sum = 0;
    for (size_t k = 0; k < n; k++) {
        if (index[k] >= COUNTS_LEN)
            return BF_E_RANGE;
        if (count[k] > UINT64_MAX - sum)
            return BF_E_RANGE;
        sum += count[k];
    }
    if (sum > UINT64_MAX - h->total || clamped > UINT64_MAX - h->clamped)
        return BF_E_RANGE;
    return BF_OK;
}

int bf_hist_import_add(bf_hist_t *h, const uint32_t *index, const uint64_t *count, size_t n,
                       uint64_t clamped)
{
    /* Validate everything first so that a bad message changes nothing. */
    int rc = bf_hist_import_check(h, index, count, n, clamped);
    if (rc != BF_OK)
        return rc;
    for (size_t k = 0; k < n; k++) {
        h->counts[index[k]] += count[k];
        h->total += count[k];
    }
    h->clamped += clamped;
    return BF_OK;
}

size_t bf_hist_counts_len(void)
{
    return COUNTS_LEN;
}
