/* SPDX-License-Identifier: MIT */
/* bf_findings_int.h — what the findings' two files share: the findings' state, the ratios of
 * pairs, the helpers and tests in bf_findings_base.c, the finders in bf_findings_find.c,
 * both called by bf_findings.c's compute pass. Internal
 * to resultlib; a bf_findings_t is used by one thread at a time.
 */
#ifndef BF_FINDINGS_INT_H
#define BF_FINDINGS_INT_H

#include "bf_findings.h"
#include "bf_stats.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* The findings of one matrix (bf_findings_compute). */
struct bf_findings {
    bf_finding_point_t *pts; /* copies; few-requests points are marked excluded here */
    size_t n;
    size_t nfew, nmismatch; /* few-requests and index-mismatch points among the usable */
    size_t nleft;           /* points with a left_out reason (degraded, unverified, ...) */
    int one_run;            /* no usable point folds repetitions: ratios carry no noise estimate */
    bf_findings_opts_t opts;
    uint8_t *excl0; /* each point's excluded as given (a pass marks more) */
    /* every comparison the findings state is a test (bf_stats): pass 1 collects their raw p
     * values in order, the correction adjusts them, pass 2 states each with its verdict */
    int pass;
    double *praw, *padj;
    size_t ntests, ncap, nstated;
    size_t verdicts[4];        /* pass 2: how many of each bf_verdict_t */
    bf_findings_test_t *tests; /* pass 2: each test stated, with its cells (bf_findings_tests) */
    size_t ntested;
    char **lines;
    size_t nlines;
    json_t *items, *best, *knees, *plateaus, *shards, *batch, *axes, *routing;
    char main_axis[128];
};

/* the docs/s ratios of pairs of points and each pair's test (bf__ratios_*) */
typedef struct ratios {
    double *v; /* docs/s ratios, sorted by ratios_median */
    size_t n;
    bf_stats_cmp_t *c; /* each pair's test, in the order added */
    size_t nc;
} ratios;

/* bf_findings_base.c: the axes of a point, the lines said, the items recorded, the tests of
 * the comparisons and the ratios. */
int bf__is_seed_axis(const char *name);
uint32_t bf__seed_value(const bf_finding_point_t *p, const char *name);
void bf__axis_text(const bf_finding_point_t *p, const char *name, char *out, size_t out_size);
int bf__same_except(const bf_finding_point_t *a, const bf_finding_point_t *b, const char *axis);
int bf__same_line(const bf_finding_point_t *a, const bf_finding_point_t *b, int with_batch);
int bf__cmp_u32(const void *x, const void *y);
size_t bf__distinct(const bf_findings_t *f, size_t off, uint32_t *out);
void bf__add_line(bf_findings_t *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bf__add_item(bf_findings_t *f, const char *kind, const char *axis, json_t *at,
                  json_t *figures);
void bf__item_verdict(bf_findings_t *f, const bf_stats_cmp_t *c);
json_t *bf__at_json(const bf_finding_point_t *p, const char *skip);
const char *bf__shards_word(uint32_t n);
const char *bf__grouped(double v, char *buf, size_t n);
double bf__p50_ratio(const bf_finding_point_t *a, const bf_finding_point_t *b);
int bf__pair_test(bf_findings_t *f, const bf_finding_point_t *a, const bf_finding_point_t *b,
                  bf_stats_cmp_t *c);
char *bf__cmp_clause(const bf_stats_cmp_t *c, char *buf, size_t n);
void bf__cmp_figures(const bf_stats_cmp_t *c, json_t *fig);
void bf__ratios_add(bf_findings_t *f, ratios *r, const bf_finding_point_t *a,
                    const bf_finding_point_t *b);
void bf__ratios_add_known(ratios *r, double v, const bf_stats_cmp_t *c);
void bf__ratios_free(ratios *r);
void bf__ratios_verdict(const ratios *r, bf_stats_cmp_t *out);
json_t *bf__ratios_json(ratios *r);
void bf__ratios_text(const bf_findings_t *f, ratios *r, char *buf, size_t n);
int bf__vary_indices(const bf_findings_t *f);
long bf__best_at(const bf_findings_t *f, uint32_t s, uint32_t idx, int allow_rej);
json_t *bf__point_json(const bf_finding_point_t *p);

/* bf_findings_find.c: the finders, called by the compute pass in order. */
void bf__find_best(bf_findings_t *f, const uint32_t *shards, size_t ns);
void bf__find_steps(bf_findings_t *f, const uint32_t *shards, size_t ns, int batch);
void bf__find_shard_ratios(bf_findings_t *f, const uint32_t *shards, size_t ns);
void bf__find_batch_gain(bf_findings_t *f, const uint32_t *shards, size_t ns);
void bf__find_routing_gain(bf_findings_t *f, const uint32_t *shards, size_t ns);
size_t bf__extra_axes(const bf_findings_t *f, char names[][128], size_t cap);
void bf__find_axis_ratios(bf_findings_t *f);
void bf__find_axis_trends(bf_findings_t *f);

#endif
