/* SPDX-License-Identifier: MIT */
/* bf_findmax.h — the find-max search controller: which step runs next, and what a step's
 * outcome means (policy only; docs/internals/style.md rule 16).
 *
 * The method is seed 004's (Elastic's sizing blog, /work/shared/seeds/004_*): with one bulk
 * request in flight, double the batch size from a start value until docs/s stops growing; then,
 * at that batch size, double the concurrency until it stops growing; bisect between the last
 * good and the first bad concurrency; then prove the peak can be held. A closed-loop peak is
 * not a sustainable rate (the cluster's queues absorb bursts that an open-loop client would
 * overflow), so the last phase runs open loop at the peak rate for a longer window and steps
 * down (10 % at a time by default) until a rate holds: target met, nothing rejected or failed,
 * latency p99 under the bound and not growing through the window.
 *
 * This module never touches a cluster or the fleet: the caller runs each step as an ordinary
 * cell and feeds back what was measured (bf_fm_obs_t). All functions are pure over the plain
 * values given; a bf_fm_t is owned by one caller and is not thread-safe. No allocation.
 */
#ifndef BF_FINDMAX_H
#define BF_FINDMAX_H

#include <stddef.h>
#include <stdint.h>

/* Defaults of the find_max: scenario section (docs/scenario.md). */
#define BF_FM_BATCH_START 100           /* docs; seed 004 starts at 100 */
#define BF_FM_BATCH_MAX 65536           /* docs */
#define BF_FM_BODY_MAX_BYTES (90ull << 20) /* uncompressed body cap; below the default
                                            * http.max_content_length of 100mb */
#define BF_FM_GAIN_MIN 0.05             /* a doubling must add 5 % docs/s */
#define BF_FM_CONCURRENCY_START 1
#define BF_FM_CONCURRENCY_MAX 1024
#define BF_FM_STEP_DOWN 0.10            /* sustain: lower the rate by 10 % after a miss */
#define BF_FM_SUSTAIN_TRIES 5
#define BF_FM_RATE_TOLERANCE 0.03       /* sustain: docs/s >= 97 % of the target counts as met */
#define BF_FM_P99_GROWTH_MAX 0.5        /* sustain: p99 may grow by half its median over the window */
#define BF_FM_SUSTAIN_HEADROOM 2        /* sustain concurrency = found concurrency x this */
/* a step whose docs/s over its reference's is within this of its threshold (the step policy,
 * bf_fm_threshold: a batch or concurrency doubling, a bisection midpoint, connections added at
 * the client's limit) is unclear on one run each: both run again, alternately, until each has
 * BF_FM_UNCLEAR_REPS runs, and their Hodges-Lehmann ratio decides */
#define BF_FM_UNCLEAR_BAND 0.04
#define BF_FM_UNCLEAR_REPS 4
/* sustain: a miss with latency p50 >= this x service p50 is the client's limit (requests
 * waited for a connection), not the cluster's */
#define BF_FM_CLIENT_RATIO 4.0

typedef struct bf_fm_cfg {
    uint32_t batch_start;        /* docs per bulk request of the first step (>= 1) */
    uint32_t batch_max;          /* docs; the batch phase never exceeds it */
    uint64_t body_max_bytes;     /* uncompressed bulk body cap in bytes: a doubling whose body
                                  * would exceed it is not tried (413 avoidance) */
    double gain_min;             /* fraction (0.05 = 5 %) a doubling must add to docs/s */
    uint32_t concurrency_start;  /* bulk requests in flight of the batch phase (1) */
    uint32_t concurrency_max;    /* the concurrency phase never exceeds it */
    double latency_max_ms;       /* latency p99 bound in ms; 0 = no bound */
    double step_down;            /* fraction the sustain rate is lowered by after a miss */
    uint32_t sustain_tries;      /* open-loop runs at most (the first at the peak rate) */
    double rate_tolerance;       /* fraction below the target rate still counted as met */
    double p99_growth_max;       /* largest allowed rise of p99 across the sustain window, as a
                                  * fraction of the window's median p99 (bf_series_growth) */
    uint32_t sustain_headroom;   /* sustain steps run with concurrency x this, so an open-loop
                                  * client can catch up after a slow second */
    double client_ratio;         /* latency p50 / service p50 from which a missed sustain step
                                  * is the client's limit: connections are added, the target
                                  * kept (BF_FM_CLIENT_RATIO) */
} bf_fm_cfg_t;

/* bf_fm_cfg_defaults — fill cfg with the defaults above. Thread-safe. */
void bf_fm_cfg_defaults(bf_fm_cfg_t *cfg);

enum bf_fm_phase {
    BF_FM_BATCH = 0,  /* one request in flight, batch size doubling */
    BF_FM_CONCURRENCY,/* best batch size, concurrency doubling */
    BF_FM_BISECT,     /* between the last good and the first bad concurrency */
    BF_FM_SUSTAIN,    /* open loop at the found rate, stepping down */
    BF_FM_DONE,
};

/* One step to run: an ordinary cell with these values. */
typedef struct bf_fm_step {
    enum bf_fm_phase phase;
    uint32_t n;             /* 1-based step number */
    uint32_t batch_size;    /* docs per bulk request */
    uint32_t concurrency;   /* bulk requests in flight across the fleet */
    double target_rate;     /* docs/s across the fleet; 0 = closed loop */
} bf_fm_step_t;

/* What one step measured (from its results row). */
typedef struct bf_fm_obs {
    int ran;                  /* 0: the cell failed, was degraded or unverified (counts as bad) */
    double docs_per_s;        /* acknowledged docs/s in the measurement window */
    double p50_ms, p99_ms;    /* latency percentiles in ms; < 0 = not measured */
    uint64_t docs_rejected;   /* items answered 429 */
    uint64_t docs_failed;     /* items failed for any other reason */
    uint64_t req_too_large;   /* requests answered 413 */
    double bytes_per_doc;     /* uncompressed payload bytes per document; 0 = unknown */
    double p99_growth;        /* sustain steps: bf_series_growth of the per-second p99 */
    double service_p50_ms;    /* service time p50 in ms (request sent to answered; the latency
                                 adds the wait for its due time and a free connection); <= 0 =
                                 not measured */
} bf_fm_obs_t;

/* What a step's outcome was judged to be; one per row of the report's path table. */
enum bf_fm_verdict {
    BF_FM_V_GAIN = 0,  /* good, and docs/s grew by at least gain_min: keep going */
    BF_FM_V_KNEE,      /* good but docs/s grew less than gain_min: the previous value is best */
    BF_FM_V_CAP,       /* good, and the next doubling would pass a cap (batch, bytes, conc.) */
    BF_FM_V_REJECTED,  /* 429 items */
    BF_FM_V_TOO_LARGE, /* 413: the body is over http.max_content_length */
    BF_FM_V_FAILED,    /* items failed, or the cell did not run cleanly */
    BF_FM_V_LATENCY,   /* latency p99 above the bound */
    BF_FM_V_HELD,      /* sustain: the rate held */
    BF_FM_V_MISSED,    /* sustain: docs/s stayed below the target */
    BF_FM_V_GROWING,   /* sustain: p99 rose through the window (queues filling) */
    BF_FM_V_CLIENT,    /* sustain: missed with latency far above service time: the client's
                        * limit; the same target runs again with twice the connections */
    BF_FM_V_CONFIRMED, /* sustain: a repeat of the step that held held again: the answer */
    BF_FM_V_UNCLEAR,   /* any kind of step (bf_fm_threshold): gain or knee is within one
                        * run's noise: repeat it and its reference */
    BF_FM_V_REPEAT,    /* one of those repeats (the last one says what was decided) */
};

typedef struct bf_fm {
    bf_fm_cfg_t cfg;
    enum bf_fm_phase phase;
    uint32_t steps;          /* steps recorded so far */
    uint32_t next_value;     /* batch or concurrency of the next step (batch / conc. phases) */
    /* best batch size found by the batch phase, its docs/s and latency at one request */
    uint32_t batch;
    int have_batch;
    /* concurrency: last good (lo) and first bad (hi); lo's measurements */
    uint32_t lo, hi;
    double lo_dps, lo_p50_ms, lo_p99_ms;
    /* sustain */
    double peak_rate;        /* docs/s of the best closed-loop step (the knee) */
    double rate;             /* target of the next sustain step */
    uint32_t tries;
    uint32_t sustain_conc; /* connections of the sustain steps once the client's limit raised
                              them; 0 = lo x sustain_headroom */
    int confirming;        /* the last sustain step held: the next one repeats it */
    double held_dps, held_p50_ms, held_p99_ms; /* what that step measured */
    uint32_t held_step;                        /* its step number */
    int unconfirmed;           /* found, but stopped (bf_fm_stop) before the repeat ran */
    int client_added;          /* the next sustain step runs with connections added at the
                                  client's limit: compared with the step before it */
    uint32_t client_prev_conc; /* that step's connections and docs/s */
    double client_prev_dps;
    int client_capped; /* a step missed by the client's limit at concurrency_max: the
                          answer (if any) is a lower bound; add agents */
    /* an unclear step of any kind (BF_FM_V_UNCLEAR; bf_fm_threshold): it (rep_value: its batch
     * size or concurrency) and its reference (rep_ref) run alternately until each has
     * BF_FM_UNCLEAR_REPS runs; their docs/s so far (lo_reps: the reference's) */
    int repeating;
    uint32_t rep_value, rep_ref, rep_runs;
    double rep_thr; /* the ratio the step's docs/s over its reference's must reach */
    double lo_reps[BF_FM_UNCLEAR_REPS + 2], cand_reps[BF_FM_UNCLEAR_REPS + 2];
    uint32_t nlo_reps, ncand_reps;
    bf_fm_obs_t cand_obs;             /* the step's first run (its latency for take_lo) */
    double rep_ratio, rep_lo, rep_hi; /* the last decision: HL ratio and its interval */
    /* result, valid when found */
    int found;
    double sustained_rate;   /* docs/s target that held */
    double sustained_dps;    /* docs/s measured in that step */
    double sustained_p50_ms, sustained_p99_ms;
    uint32_t sustained_concurrency;
    const char *end_reason;  /* static text: why the search ended */
} bf_fm_t;

/* bf_fm_threshold — the step policy: the docs/s ratio over its reference that step s (as
 * bf_fm_next gave it, fm before bf_fm_record) must reach to count as a gain. Batch step: over
 * the last good size, 1 + gain_min; concurrency doubling: over the last good concurrency (lo),
 * 1 + gain_min; bisection midpoint: over lo, 1 + gain_min x (mid - lo) / lo; a sustain step run
 * with connections added at the client's limit: over the step before it (the same target, half
 * the connections), 1 + gain_min. Pure, thread-safe. */
double bf_fm_threshold(const bf_fm_t *fm, const bf_fm_step_t *s);

/* bf_fm_band — the half-width of the unclear band around threshold (a docs/s ratio, from
 * bf_fm_threshold): BF_FM_UNCLEAR_BAND times the share of gain_min the threshold asks for,
 * at most 1. A doubling (threshold 1 + gain_min) gets the whole band; a bisection midpoint,
 * which asks for gain_min x (mid - lo) / lo, gets that share of it, so a flat plateau (ratio
 * 1.0) stays a clear knee for every kind of step instead of costing a midpoint 6 more runs.
 * Pure, thread-safe. */
double bf_fm_band(const bf_fm_t *fm, double threshold);

/* bf_fm_unclear — 1 when a step's docs/s ratio over its reference is within band (from
 * bf_fm_band) of threshold (one run each cannot tell gain from knee: the step and its
 * reference are run again), else 0 (also for ratio <= 0: nothing measured). Pure,
 * thread-safe. */
int bf_fm_unclear(double ratio, double threshold, double band);

/* bf_fm_init — start a search with cfg (copied; zero fields take their defaults).
 * Thread-safe (touches only *fm). */
void bf_fm_init(bf_fm_t *fm, const bf_fm_cfg_t *cfg);

/* bf_fm_next — the step to run next. Returns 1 and fills *step, or 0 when the search is done
 * (fm->found says whether a sustainable rate was found, fm->end_reason why it ended). Calling
 * it twice without bf_fm_record gives the same step. */
int bf_fm_next(const bf_fm_t *fm, bf_fm_step_t *step);

/* bf_fm_record — judge what the step from bf_fm_next measured and advance the search.
 * Returns the verdict. A clean step of any kind whose docs/s over its reference's is within
 * its band of its threshold (bf_fm_threshold, bf_fm_band, bf_fm_unclear) is unclear: the reference
 * and the step run again alternately (verdict repeat) until each has BF_FM_UNCLEAR_REPS runs,
 * and the Hodges-Lehmann ratio of their docs/s (bf_stats_compare, the findings' test) decides
 * gain or knee as the kind does; the medians then stand for both (a sustain step with added
 * connections whose repeats say knee is judged as a miss at the connections before). Batch phase:
 * 413, 429, failures or a broken latency bound end it (the previous size is best; none before it
 * ends the search with nothing found); a gain under gain_min ends it at the previous size; a cap
 * ends it at this size. Concurrency phase: the same judgement, and any end goes to bisection
 * between the last good (lo) and first bad (hi) value, where a midpoint is good when it is clean
 * and adds gain_min x (mid - lo) / lo over lo's docs/s (the threshold per doubling, scaled to the
 * step), until hi - lo <= max(1, lo/8). Sustain: held when ran, nothing rejected or failed, docs/s
 * >= target x (1 - rate_tolerance), p99 within the bound and p99_growth <= p99_growth_max; a step
 * that held is run once more (confirming) and the rate is the answer only when the repeat holds too
 * (verdict confirmed; the lower docs/s and the higher p99 of the two are kept); a repeat that does
 * not hold lowers the target as a miss does. A miss whose latency p50 is at least client_ratio x
 * its service p50 (requests waited for a free connection: the client could not send the target) is
 * the client's limit (verdict client-bound): the same target runs again with twice the connections,
 * up to concurrency_max; there the target is lowered as for a miss and client_capped says the
 * answer is a lower bound (add agents). Otherwise the target is lowered by step_down, at most
 * sustain_tries runs (repeats and client-bound steps below the cap not counted). */
enum bf_fm_verdict bf_fm_record(bf_fm_t *fm, const bf_fm_step_t *step, const bf_fm_obs_t *obs);

/* bf_fm_skip_to_sustain — the time budget is running out: end the closed-loop search with the
 * best point so far and go to the sustain phase (or end, with nothing found, when there is no
 * good point yet). No-op in the sustain phase or when done. */
void bf_fm_skip_to_sustain(bf_fm_t *fm);

/* bf_fm_stop — end the search now with `reason` (static text), keeping a result found so far;
 * a rate that held once and waits for its repeat is kept as found with unconfirmed = 1. */
void bf_fm_stop(bf_fm_t *fm, const char *reason);

/* bf_fm_max_steps — the most steps a search under cfg can run (what `plan`
 * states): *search_steps closed-loop steps (every batch doubling from batch_start to
 * batch_max, every concurrency doubling from concurrency_start to concurrency_max, the longest
 * bisection below concurrency_max) and *sustain_steps open-loop ones (sustain_tries, each with
 * a repeat that confirms it, and the connection doublings up to concurrency_max). Either
 * pointer may be NULL. Returns their sum. Pure, thread-safe. */
uint32_t bf_fm_max_steps(const bf_fm_cfg_t *cfg, uint32_t *search_steps, uint32_t *sustain_steps);

/* bf_fm_progress — what the progress line says of a find-max step instead of "cell k/n ...
 * left ~": "find-max step 7 (concurrency phase: batch 800, concurrency 4), search bound left
 * ~3m10s of find_max.max_time 4m" (plus ", then 2 more combinations of up to 4m each" when
 * combos_after > 0). bound_left_ms: what is left of this combination's max_time; max_time_ms
 * the bound itself. Written into buf (truncated at size); returns buf. Thread-safe. */
char *bf_fm_progress(const bf_fm_step_t *st, uint64_t bound_left_ms, uint64_t max_time_ms,
                     size_t combos_after, char *buf, size_t size);

const char *bf_fm_phase_name(enum bf_fm_phase p);     /* "batch", "concurrency", ... */
const char *bf_fm_verdict_name(enum bf_fm_verdict v); /* "gain", "knee", "rejected", ... */

#endif
