/* SPDX-License-Identifier: MIT */
/* bf_hist.h — log-linear latency histogram in HdrHistogram's layout.
 *
 * Fixed range 1 us .. 1 h (3,600,000,000 us), 3 significant figures, 64-bit counts.
 * Layout and index math follow HdrHistogram_c (src/hdr_histogram.c): sub_bucket_count 2048,
 * half 1024, bucket_count 22. Values outside the range are clamped to it AND counted in
 * `clamped`. One histogram per thread; merge by adding counts (bf_hist_add); percentiles are
 * never averaged. Not thread-safe: one writer at a time.
 */
#ifndef BF_HIST_H
#define BF_HIST_H

#include <stddef.h>
#include <stdint.h>

#define BF_HIST_LOWEST_US 1u
#define BF_HIST_HIGHEST_US 3600000000ull

typedef struct bf_hist bf_hist_t;

/* bf_hist_new — empty histogram; caller owns (bf_hist_destroy). About 190 KiB. */
bf_hist_t *bf_hist_new(void);
/* bf_hist_destroy — free; NULL-safe; clears *h_p. */
void bf_hist_destroy(bf_hist_t **h_p);
/* bf_hist_reset — all counts to zero. */
void bf_hist_reset(bf_hist_t *h);
/* bf_hist_record — count one value in microseconds (clamped to the range and counted). */
void bf_hist_record(bf_hist_t *h, uint64_t value_us);
/* bf_hist_record_n — count `n` occurrences of value_us. */
void bf_hist_record_n(bf_hist_t *h, uint64_t value_us, uint64_t n);
/* bf_hist_add — dst += src (counts, clamped, min, max). Never fails. */
void bf_hist_add(bf_hist_t *dst, const bf_hist_t *src);

uint64_t bf_hist_count(const bf_hist_t *h);   /* total recorded values */
uint64_t bf_hist_clamped(const bf_hist_t *h); /* how many were clamped */
uint64_t bf_hist_min(const bf_hist_t *h);     /* lowest equivalent of the min bucket; 0 if empty */
uint64_t
bf_hist_max(const bf_hist_t *h); /* highest equivalent value of the max bucket; 0 when empty */
double bf_hist_mean(const bf_hist_t *h); /* from bucket midpoints, as hdr_mean; 0 when empty */
/* bf_hist_percentile — value at percentile p (0..100], as HdrHistogram's
 * hdr_value_at_percentile: the highest-equivalent value of the bucket where the cumulative
 * count reaches ceil(p/100 * count). 0 when empty. */
uint64_t bf_hist_percentile(const bf_hist_t *h, double p);

/* Sparse form, for the wire (bf.Hist) and for files: (index, count) pairs of the non-zero
 * counts, indexes ascending. */
/* bf_hist_nonzero — number of non-zero buckets. */
size_t bf_hist_nonzero(const bf_hist_t *h);
/* bf_hist_export — write up to cap pairs; returns the number written. */
size_t bf_hist_export(const bf_hist_t *h, uint32_t *index, uint64_t *count, size_t cap);
/* bf_hist_import_add — add pairs to h. Returns 0, or BF_E_RANGE (nothing added) if an index
 * is outside the layout (input from the network is never trusted). */
int bf_hist_import_add(bf_hist_t *h, const uint32_t *index, const uint64_t *count, size_t n,
                       uint64_t clamped);
/* bf_hist_import_check — 0 when bf_hist_import_add would take these pairs into h, else
 * BF_E_RANGE; changes nothing (to validate several histograms before adding any). */
int bf_hist_import_check(const bf_hist_t *h, const uint32_t *index, const uint64_t *count, size_t n,
                         uint64_t clamped);
/* bf_hist_counts_len — number of buckets in the layout (valid indexes are < this). */
size_t bf_hist_counts_len(void);

/* bf_hist_lowest_equivalent / bf_hist_highest_equivalent — the range of values, in
 * microseconds, that share value_us's bucket (value_us clamped to the range first). Their
 * difference + 1 is the resolution at that value: what a percentile can be off by. Pure. */
uint64_t bf_hist_lowest_equivalent(uint64_t value_us);
uint64_t bf_hist_highest_equivalent(uint64_t value_us);

#endif
