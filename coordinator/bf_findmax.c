/* SPDX-License-Identifier: MIT */
/* bf_findmax.c — the find-max search controller (seed 004's method); see bf_findmax.h.
 *
 * A small state machine over plain values: bf_fm_next says what to run, bf_fm_record judges
 * the outcome and moves on. Every decision is here, so the unit test can drive it against a
 * simulated cluster and the campaign only executes steps.
 */
#include "bf_findmax.h"
#include "bf_stats.h"
#include "bf_units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void bf_fm_cfg_defaults(bf_fm_cfg_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->batch_start = BF_FM_BATCH_START;
    cfg->batch_max = BF_FM_BATCH_MAX;
    cfg->body_max_bytes = BF_FM_BODY_MAX_BYTES;
    cfg->gain_min = BF_FM_GAIN_MIN;
    cfg->concurrency_start = BF_FM_CONCURRENCY_START;
    cfg->concurrency_max = BF_FM_CONCURRENCY_MAX;
    cfg->latency_max_ms = 0;
    cfg->step_down = BF_FM_STEP_DOWN;
    cfg->sustain_tries = BF_FM_SUSTAIN_TRIES;
    cfg->rate_tolerance = BF_FM_RATE_TOLERANCE;
    cfg->p99_growth_max = BF_FM_P99_GROWTH_MAX;
    cfg->sustain_headroom = BF_FM_SUSTAIN_HEADROOM;
    cfg->client_ratio = BF_FM_CLIENT_RATIO;
}

void bf_fm_init(bf_fm_t *fm, const bf_fm_cfg_t *cfg)
{
    bf_fm_cfg_t d;
    bf_fm_cfg_defaults(&d);
    memset(fm, 0, sizeof *fm);
    if (cfg != NULL) {
        fm->cfg = *cfg;
        if (!fm->cfg.batch_start) fm->cfg.batch_start = d.batch_start;
        if (!fm->cfg.batch_max) fm->cfg.batch_max = d.batch_max;
        if (!fm->cfg.body_max_bytes) fm->cfg.body_max_bytes = d.body_max_bytes;
        if (fm->cfg.gain_min <= 0) fm->cfg.gain_min = d.gain_min;
        if (!fm->cfg.concurrency_start) fm->cfg.concurrency_start = d.concurrency_start;
        if (!fm->cfg.concurrency_max) fm->cfg.concurrency_max = d.concurrency_max;
        if (fm->cfg.step_down <= 0 || fm->cfg.step_down >= 1) fm->cfg.step_down = d.step_down;
        if (!fm->cfg.sustain_tries) fm->cfg.sustain_tries = d.sustain_tries;
        if (fm->cfg.rate_tolerance <= 0 || fm->cfg.rate_tolerance >= 1)
            fm->cfg.rate_tolerance = d.rate_tolerance;
        if (fm->cfg.p99_growth_max <= 0) fm->cfg.p99_growth_max = d.p99_growth_max;
        if (!fm->cfg.sustain_headroom) fm->cfg.sustain_headroom = d.sustain_headroom;
        if (fm->cfg.client_ratio <= 1)
            fm->cfg.client_ratio = d.client_ratio;
    } else {
        fm->cfg = d;
    }
    if (fm->cfg.batch_max < fm->cfg.batch_start)
        fm->cfg.batch_max = fm->cfg.batch_start;
    if (fm->cfg.concurrency_max < fm->cfg.concurrency_start)
        fm->cfg.concurrency_max = fm->cfg.concurrency_start;
    fm->phase = BF_FM_BATCH;
    fm->next_value = fm->cfg.batch_start;
}

static uint32_t sustain_concurrency(const bf_fm_t *fm)
{
    if (fm->sustain_conc)
        return fm->sustain_conc;
    uint64_t c = (uint64_t)fm->lo * fm->cfg.sustain_headroom;
    if (c > fm->cfg.concurrency_max)
        c = fm->cfg.concurrency_max;
    return c < fm->lo ? fm->lo : (uint32_t)c;
}

static uint32_t bisect_mid(const bf_fm_t *fm)
{
    return fm->lo + (fm->hi - fm->lo) / 2;
}

/* The step policy: what each kind of step is compared with, and the docs/s ratio over it that
 * counts as a gain. A clean step whose ratio is within its band of its threshold (bf_fm_band:
 * BF_FM_UNCLEAR_BAND for a doubling, narrowed as a bisection midpoint's threshold is) is
 * unclear on one run each, whatever its kind: it and its reference run again alternately
 * (rep_turn) until each has BF_FM_UNCLEAR_REPS runs, and the Hodges-Lehmann ratio of their
 * docs/s decides (record_repeat, then decided).
 *   batch        a doubled batch size (one request in flight) vs the last good size:
 *                1 + gain_min
 *   concurrency  a doubled concurrency vs the last good one (lo): 1 + gain_min
 *   bisect       a midpoint vs lo: 1 + gain_min x (mid - lo) / lo
 *   client       a sustain step that did not hold, run with the connections added at the
 *                client's limit, vs the step before it (the same target, half the
 *                connections): 1 + gain_min (the added connections must add what a doubling
 *                must) */
double bf_fm_threshold(const bf_fm_t *fm, const bf_fm_step_t *s)
{
    if (s->phase == BF_FM_BISECT && fm->lo > 0)
        return 1.0 + fm->cfg.gain_min * (double)(s->concurrency - fm->lo) / (double)fm->lo;
    return 1.0 + fm->cfg.gain_min;
}

double bf_fm_band(const bf_fm_t *fm, double threshold)
{
    double g = fm->cfg.gain_min > 0 ? fm->cfg.gain_min : BF_FM_GAIN_MIN;
    double share = (threshold - 1.0) / g;
    if (share > 1.0)
        share = 1.0;
    if (share < 0.0)
        share = 0.0;
    return BF_FM_UNCLEAR_BAND * share;
}

int bf_fm_unclear(double ratio, double threshold, double band)
{
    return ratio > 0 && fabs(ratio - threshold) < band;
}

/* the step policy's question for one run: is ratio within the step's band of thr */
static int unclear(const bf_fm_t *fm, double ratio, double thr)
{
    return bf_fm_unclear(ratio, thr, bf_fm_band(fm, thr));
}

/* the value (batch size or concurrency) of the next repeat: the reference first, then
 * alternately */
static uint32_t rep_turn(const bf_fm_t *fm)
{
    return fm->nlo_reps <= fm->ncand_reps ? fm->rep_ref : fm->rep_value;
}

/* an unclear step (value v, reference ref measured at ref_dps): both again, alternately */
static enum bf_fm_verdict start_repeats(bf_fm_t *fm, uint32_t ref, double ref_dps, uint32_t v,
                                        double thr, const bf_fm_obs_t *o)
{
    fm->repeating = 1;
    fm->rep_thr = thr;
    fm->rep_ref = ref;
    fm->rep_value = v;
    fm->rep_runs = 0;
    fm->cand_obs = *o;
    fm->cand_reps[0] = o->docs_per_s;
    fm->ncand_reps = 1;
    fm->lo_reps[0] = ref_dps;
    fm->nlo_reps = 1;
    return BF_FM_V_UNCLEAR;
}

int bf_fm_next(const bf_fm_t *fm, bf_fm_step_t *step)
{
    memset(step, 0, sizeof *step);
    step->phase = fm->phase;
    step->n = fm->steps + 1;
    switch (fm->phase) {
    case BF_FM_BATCH:
        step->batch_size = fm->next_value;
        step->concurrency = fm->cfg.concurrency_start;
        if (fm->repeating) /* alternately the last good size and the unclear one */
            step->batch_size = rep_turn(fm);
        return 1;
    case BF_FM_CONCURRENCY:
        step->batch_size = fm->batch;
        step->concurrency = fm->repeating ? rep_turn(fm) : fm->next_value;
        return 1;
    case BF_FM_BISECT:
        step->batch_size = fm->batch;
        step->concurrency = fm->repeating ? rep_turn(fm) : bisect_mid(fm);
        return 1;
    case BF_FM_SUSTAIN:
        step->batch_size = fm->batch;
        step->concurrency = fm->repeating ? rep_turn(fm) : sustain_concurrency(fm);
        step->target_rate = fm->rate;
        return 1;
    case BF_FM_DONE:
        break;
    }
    return 0;
}

/* A clean closed-loop step: ran, nothing rejected, failed or too large, latency in bound. */
static enum bf_fm_verdict badness(const bf_fm_t *fm, const bf_fm_obs_t *o)
{
    if (o->req_too_large > 0)
        return BF_FM_V_TOO_LARGE;
    if (o->docs_rejected > 0)
        return BF_FM_V_REJECTED;
    if (!o->ran || o->docs_failed > 0 || o->docs_per_s <= 0)
        return BF_FM_V_FAILED;
    if (fm->cfg.latency_max_ms > 0 && o->p99_ms > fm->cfg.latency_max_ms)
        return BF_FM_V_LATENCY;
    return BF_FM_V_GAIN;
}

static void start_sustain(bf_fm_t *fm)
{
    fm->repeating = 0;
    fm->client_added = 0;
    fm->phase = BF_FM_SUSTAIN;
    fm->peak_rate = fm->lo_dps;
    fm->rate = fm->lo_dps;
    fm->tries = 0;
}

static void end_search(bf_fm_t *fm, const char *reason)
{
    fm->phase = BF_FM_DONE;
    fm->end_reason = reason;
}

/* concurrency phase ends: bisect between lo and hi, or sustain when there is nothing between */
static void to_bisect(bf_fm_t *fm, uint32_t hi)
{
    fm->hi = hi;
    uint32_t res = fm->lo / 8 > 1 ? fm->lo / 8 : 1;
    if (fm->hi - fm->lo <= res)
        start_sustain(fm);
    else
        fm->phase = BF_FM_BISECT;
}

static void take_lo(bf_fm_t *fm, uint32_t c, const bf_fm_obs_t *o)
{
    fm->lo = c;
    fm->lo_dps = o->docs_per_s;
    fm->lo_p50_ms = o->p50_ms;
    fm->lo_p99_ms = o->p99_ms;
}

static enum bf_fm_verdict batch_judged(bf_fm_t *fm, const bf_fm_step_t *s, const bf_fm_obs_t *o,
                                       enum bf_fm_verdict v);

static enum bf_fm_verdict record_batch(bf_fm_t *fm, const bf_fm_step_t *s, const bf_fm_obs_t *o)
{
    enum bf_fm_verdict v = badness(fm, o);
    double r = fm->lo_dps > 0 ? o->docs_per_s / fm->lo_dps : 0, thr = bf_fm_threshold(fm, s);
    if (v == BF_FM_V_GAIN && fm->have_batch && s->batch_size != fm->batch) {
        if (unclear(fm, r, thr))
            return start_repeats(fm, fm->batch, fm->lo_dps, s->batch_size, thr, o);
        if (r < thr)
            v = BF_FM_V_KNEE;
    }
    return batch_judged(fm, s, o, v);
}

/* a batch step judged (v: gain, knee, or what badness said): the next size, or the phase's
 * end */
static enum bf_fm_verdict batch_judged(bf_fm_t *fm, const bf_fm_step_t *s, const bf_fm_obs_t *o,
                                       enum bf_fm_verdict v)
{
    if (v != BF_FM_V_GAIN && v != BF_FM_V_KNEE) {
        if (!fm->have_batch) {
            end_search(fm, "the first batch size did not run cleanly: nothing to build on");
            return v;
        }
    } else if (v == BF_FM_V_KNEE) {
        /* the previous size is best */
    } else {
        fm->have_batch = 1;
        fm->batch = s->batch_size;
        take_lo(fm, s->concurrency, o);
        uint64_t next = (uint64_t)s->batch_size * 2;
        int over_bytes = o->bytes_per_doc > 0 &&
                         (double)next * o->bytes_per_doc > (double)fm->cfg.body_max_bytes;
        if (next > fm->cfg.batch_max || over_bytes) {
            v = BF_FM_V_CAP;
        } else {
            fm->next_value = (uint32_t)next;
            return BF_FM_V_GAIN;
        }
    }
    /* the batch phase is over: concurrency doubling at the best batch size */
    fm->phase = BF_FM_CONCURRENCY;
    if ((uint64_t)fm->lo * 2 > fm->cfg.concurrency_max)
        start_sustain(fm);
    else
        fm->next_value = fm->lo * 2;
    return v;
}

/* a clean concurrency step c with obs o is good (gain): it becomes the last good value and the
 * next doubling is due, or the cap ends the phase */
static enum bf_fm_verdict conc_gain(bf_fm_t *fm, uint32_t c, const bf_fm_obs_t *o)
{
    take_lo(fm, c, o);
    if ((uint64_t)c * 2 > fm->cfg.concurrency_max) {
        start_sustain(fm);
        return BF_FM_V_CAP;
    }
    fm->next_value = c * 2;
    return BF_FM_V_GAIN;
}

static enum bf_fm_verdict sustain_judged(bf_fm_t *fm, const bf_fm_step_t *s, const bf_fm_obs_t *o);

/* the repeats of an unclear step decided (gain: their Hodges-Lehmann ratio reached the
 * threshold) with cand, the step's first run with the median docs/s of its runs; s is the last
 * repeat. Goes on as the step's kind does after a clear gain or knee. */
static enum bf_fm_verdict decided(bf_fm_t *fm, const bf_fm_step_t *s, int gain, bf_fm_obs_t *cand)
{
    bf_fm_step_t cs = *s;
    switch (fm->phase) {
    case BF_FM_BATCH:
        cs.batch_size = fm->rep_value;
        return batch_judged(fm, &cs, cand, gain ? BF_FM_V_GAIN : BF_FM_V_KNEE);
    case BF_FM_CONCURRENCY:
        if (gain)
            return conc_gain(fm, fm->rep_value, cand);
        to_bisect(fm, fm->rep_value);
        return BF_FM_V_KNEE;
    case BF_FM_BISECT:
        if (gain) {
            take_lo(fm, fm->rep_value, cand);
            to_bisect(fm, fm->hi);
            return BF_FM_V_GAIN;
        }
        to_bisect(fm, fm->rep_value);
        return BF_FM_V_KNEE;
    case BF_FM_SUSTAIN:
        /* the added connections did not add what a doubling must: not the client's limit, the
         * step is judged as a miss at the connections before */
        cs.concurrency = gain ? fm->rep_value : fm->rep_ref;
        if (!gain)
            cand->service_p50_ms = 0;
        fm->sustain_conc = cs.concurrency;
        return sustain_judged(fm, &cs, cand);
    case BF_FM_DONE: break;
    }
    return BF_FM_V_FAILED;
}

/* one run of an unclear step's repeats: its docs/s to its side; once both sides have
 * BF_FM_UNCLEAR_REPS (or a run of the step itself is not clean, or three times that many runs
 * went by) the Hodges-Lehmann ratio of the two decides */
static enum bf_fm_verdict record_repeat(bf_fm_t *fm, const bf_fm_step_t *s, const bf_fm_obs_t *o)
{
    enum bf_fm_verdict v = badness(fm, o);
    int is_ref = fm->nlo_reps <= fm->ncand_reps;
    fm->rep_runs++;
    if (v != BF_FM_V_GAIN && !is_ref) { /* the step itself broke: not good, whatever its gain */
        fm->repeating = 0;
        switch (fm->phase) {
        case BF_FM_BATCH: return batch_judged(fm, s, o, v);
        case BF_FM_SUSTAIN: return sustain_judged(fm, s, o);
        default: to_bisect(fm, fm->rep_value); return v;
        }
    }
    if (v == BF_FM_V_GAIN && is_ref)
        fm->lo_reps[fm->nlo_reps++] = o->docs_per_s;
    else if (v == BF_FM_V_GAIN)
        fm->cand_reps[fm->ncand_reps++] = o->docs_per_s;
    int enough = fm->nlo_reps >= BF_FM_UNCLEAR_REPS && fm->ncand_reps >= BF_FM_UNCLEAR_REPS;
    if (!enough && fm->rep_runs < 3 * BF_FM_UNCLEAR_REPS)
        return BF_FM_V_REPEAT;
    fm->repeating = 0;
    bf_stats_cmp_t c;
    if (bf_stats_compare(fm->cand_reps, fm->ncand_reps, fm->lo_reps, fm->nlo_reps, 0.95, &c) != 0)
        c.ratio = c.ci_low = c.ci_high = 0;
    fm->rep_ratio = c.ratio;
    fm->rep_lo = c.ci_low;
    fm->rep_hi = c.ci_high;
    if (fm->phase != BF_FM_SUSTAIN) /* the reference's median stands for it from now on */
        fm->lo_dps = bf_stats_median(fm->lo_reps, fm->nlo_reps);
    bf_fm_obs_t cand = fm->cand_obs;
    cand.docs_per_s = bf_stats_median(fm->cand_reps, fm->ncand_reps);
    return decided(fm, s, c.ratio >= fm->rep_thr, &cand);
}

static enum bf_fm_verdict record_conc(bf_fm_t *fm, const bf_fm_step_t *s, const bf_fm_obs_t *o)
{
    enum bf_fm_verdict v = badness(fm, o);
    double thr = bf_fm_threshold(fm, s), r = fm->lo_dps > 0 ? o->docs_per_s / fm->lo_dps : 0;
    if (v == BF_FM_V_GAIN && unclear(fm, r, thr) && s->concurrency != fm->lo)
        return start_repeats(fm, fm->lo, fm->lo_dps, s->concurrency, thr, o);
    if (v == BF_FM_V_GAIN && r < thr)
        v = BF_FM_V_KNEE;
    if (v != BF_FM_V_GAIN) {
        to_bisect(fm, s->concurrency);
        return v;
    }
    return conc_gain(fm, s->concurrency, o);
}

static enum bf_fm_verdict record_bisect(bf_fm_t *fm, const bf_fm_step_t *s, const bf_fm_obs_t *o)
{
    enum bf_fm_verdict v = badness(fm, o);
    double thr = bf_fm_threshold(fm, s), r = fm->lo_dps > 0 ? o->docs_per_s / fm->lo_dps : 0;
    if (v == BF_FM_V_GAIN && unclear(fm, r, thr))
        return start_repeats(fm, fm->lo, fm->lo_dps, s->concurrency, thr, o);
    if (v == BF_FM_V_GAIN && r < thr)
        v = BF_FM_V_KNEE;
    uint32_t hi = fm->hi;
    if (v == BF_FM_V_GAIN)
        take_lo(fm, s->concurrency, o);
    else
        hi = s->concurrency;
    to_bisect(fm, hi);
    return v;
}

/* a missed open-loop step whose requests waited far longer than the cluster took to answer
 * them: the connections could not send the target (the client's limit) */
static int client_bound(const bf_fm_t *fm, const bf_fm_obs_t *o)
{
    return o->service_p50_ms > 0 && o->p50_ms >= fm->cfg.client_ratio * o->service_p50_ms;
}

/* a sustain step: one run with the connections added at the client's limit that did not hold
 * is compared with the step before it (the step policy's client kind) */
static enum bf_fm_verdict record_sustain(bf_fm_t *fm, const bf_fm_step_t *s, const bf_fm_obs_t *o)
{
    int added = fm->client_added;
    fm->client_added = 0;
    if (added && badness(fm, o) == BF_FM_V_GAIN &&
        !(o->docs_per_s >= s->target_rate * (1.0 - fm->cfg.rate_tolerance) &&
          o->p99_growth <= fm->cfg.p99_growth_max)) {
        double thr = bf_fm_threshold(fm, s),
               r = fm->client_prev_dps > 0 ? o->docs_per_s / fm->client_prev_dps : 0;
        if (unclear(fm, r, thr))
            return start_repeats(fm, fm->client_prev_conc, fm->client_prev_dps, s->concurrency, thr,
                                 o);
    }
    return sustain_judged(fm, s, o);
}

static enum bf_fm_verdict sustain_judged(bf_fm_t *fm, const bf_fm_step_t *s, const bf_fm_obs_t *o)
{
    enum bf_fm_verdict v = badness(fm, o);
    if (v == BF_FM_V_GAIN) {
        if (o->docs_per_s < s->target_rate * (1.0 - fm->cfg.rate_tolerance))
            v = BF_FM_V_MISSED;
        else if (o->p99_growth > fm->cfg.p99_growth_max)
            v = BF_FM_V_GROWING;
        else
            v = BF_FM_V_HELD;
    }
    int client = v == BF_FM_V_MISSED && client_bound(fm, o);
    if (client && (uint64_t)s->concurrency * 2 <= fm->cfg.concurrency_max) {
        fm->confirming = 0;
        fm->sustain_conc = s->concurrency * 2; /* the same target, more connections */
        fm->rate = s->target_rate;
        fm->client_added = 1; /* the next step is compared with this one */
        fm->client_prev_conc = s->concurrency;
        fm->client_prev_dps = o->docs_per_s;
        return BF_FM_V_CLIENT;
    }
    /* at concurrency_max the client's limit stays: the target steps down as for a miss, and
     * what holds is a lower bound (said with the answer) */
    fm->client_capped |= client;
    if (fm->confirming && v == BF_FM_V_HELD) {
        fm->found = 1;
        fm->sustained_rate = s->target_rate;
        fm->sustained_dps = o->docs_per_s < fm->held_dps ? o->docs_per_s : fm->held_dps;
        fm->sustained_p50_ms = o->p50_ms > fm->held_p50_ms ? o->p50_ms : fm->held_p50_ms;
        fm->sustained_p99_ms = o->p99_ms > fm->held_p99_ms ? o->p99_ms : fm->held_p99_ms;
        fm->sustained_concurrency = s->concurrency;
        end_search(fm, "the rate held, and held again in a repeat");
        return BF_FM_V_CONFIRMED;
    }
    if (!fm->confirming)
        fm->tries++;
    fm->confirming = 0;
    if (v == BF_FM_V_HELD) {
        fm->confirming = 1; /* the answer once a repeat holds too */
        fm->held_dps = o->docs_per_s;
        fm->held_p50_ms = o->p50_ms;
        fm->held_p99_ms = o->p99_ms;
        fm->held_step = s->n;
        fm->rate = s->target_rate;
    } else if (fm->tries >= fm->cfg.sustain_tries) {
        end_search(fm, fm->client_capped
                           ? "no rate held within find_max.sustain_tries, and the client could "
                             "not send the higher ones with find_max.concurrency_max connections "
                             "(latency far above the service time): add agents"
                           : "no rate held within find_max.sustain_tries");
    } else {
        fm->rate = s->target_rate * (1.0 - fm->cfg.step_down);
        if (fm->rate < 1.0)
            end_search(fm, "the rate fell below 1 doc/s without holding");
    }
    return client ? BF_FM_V_CLIENT : v;
}

enum bf_fm_verdict bf_fm_record(bf_fm_t *fm, const bf_fm_step_t *step, const bf_fm_obs_t *obs)
{
    enum bf_fm_verdict v = BF_FM_V_FAILED;
    fm->steps++;
    if (fm->repeating && fm->phase != BF_FM_DONE)
        return record_repeat(fm, step, obs);
    switch (fm->phase) {
    case BF_FM_BATCH: v = record_batch(fm, step, obs); break;
    case BF_FM_CONCURRENCY: v = record_conc(fm, step, obs); break;
    case BF_FM_BISECT: v = record_bisect(fm, step, obs); break;
    case BF_FM_SUSTAIN: v = record_sustain(fm, step, obs); break;
    case BF_FM_DONE: fm->steps--; break;
    }
    return v;
}

void bf_fm_skip_to_sustain(bf_fm_t *fm)
{
    switch (fm->phase) {
    case BF_FM_BATCH:
        if (!fm->have_batch) {
            end_search(fm, "find_max.max_time ran out before any step ran cleanly");
            return;
        }
        start_sustain(fm);
        return;
    case BF_FM_CONCURRENCY:
    case BF_FM_BISECT:
        start_sustain(fm);
        return;
    case BF_FM_SUSTAIN:
    case BF_FM_DONE:
        return;
    }
}

void bf_fm_stop(bf_fm_t *fm, const char *reason)
{
    if (fm->phase == BF_FM_DONE)
        return;
    if (fm->confirming) { /* it held once: said so, not hidden */
        fm->found = 1;
        fm->unconfirmed = 1;
        fm->sustained_rate = fm->rate;
        fm->sustained_dps = fm->held_dps;
        fm->sustained_p50_ms = fm->held_p50_ms;
        fm->sustained_p99_ms = fm->held_p99_ms;
        fm->sustained_concurrency = sustain_concurrency(fm);
    }
    end_search(fm, reason);
}

uint32_t bf_fm_max_steps(const bf_fm_cfg_t *cfg, uint32_t *search_steps, uint32_t *sustain_steps)
{
    bf_fm_t fm; /* the defaults bf_fm_init applies to zero fields */
    bf_fm_init(&fm, cfg);
    const bf_fm_cfg_t *c = &fm.cfg;
    uint32_t n = 0;
    for (uint64_t b = c->batch_start; b <= c->batch_max; b *= 2)
        n += 1 + (b > c->batch_start ? 3 * BF_FM_UNCLEAR_REPS : 0); /* a doubling, its repeats */
    uint64_t lo = c->concurrency_start;
    while (lo * 2 <= c->concurrency_max) {
        lo *= 2;
        n += 1 + (3 * BF_FM_UNCLEAR_REPS); /* a doubling, and its repeats when unclear */
    }
    /* the longest bisection: between the last good concurrency and its double (capped at the
     * maximum), the larger half kept each time, until hi - lo <= max(1, lo / 8) */
    uint64_t good = lo / 2 >= c->concurrency_start ? lo / 2 : lo, hi = good * 2;
    uint64_t res = good / 8 > 1 ? good / 8 : 1;
    for (uint64_t w = hi - good; w > res; w -= w / 2)
        n += 1 + 3 * BF_FM_UNCLEAR_REPS; /* a midpoint, and its repeats when unclear */
    if (search_steps)
        *search_steps = n;
    uint32_t doublings = 0; /* connections added for the client's limit, at most */
    for (uint64_t k = 1; k * 2 <= c->concurrency_max; k *= 2)
        doublings++;
    uint32_t sustain = 2 * c->sustain_tries + doublings * (1 + 3 * BF_FM_UNCLEAR_REPS);
    if (sustain_steps)
        *sustain_steps = sustain;
    return n + sustain;
}

char *bf_fm_progress(const bf_fm_step_t *st, uint64_t bound_left_ms, uint64_t max_time_ms,
                     size_t combos_after, char *buf, size_t size)
{
    char left[32], bound[32], rate[48] = "";
    bf_units_format_duration_ms(bound_left_ms, left, sizeof left);
    bf_units_format_duration_ms(max_time_ms, bound, sizeof bound);
    if (st->target_rate > 0)
        snprintf(rate, sizeof rate, ", target %.0f docs/s", st->target_rate);
    int w = snprintf(buf, size,
                     "find-max step %u (%s phase: batch %u, concurrency %u%s), search "
                     "bound left ~%s of find_max.max_time %s",
                     st->n, bf_fm_phase_name(st->phase), st->batch_size, st->concurrency, rate,
                     left, bound);
    if (combos_after > 0 && w > 0 && (size_t)w < size)
        snprintf(buf + w, size - (size_t)w, ", then %zu more combination%s of up to %s each",
                 combos_after, combos_after == 1 ? "" : "s", bound);
    return buf;
}

const char *bf_fm_phase_name(enum bf_fm_phase p)
{
    switch (p) {
    case BF_FM_BATCH: return "batch";
    case BF_FM_CONCURRENCY: return "concurrency";
    case BF_FM_BISECT: return "bisect";
    case BF_FM_SUSTAIN: return "sustain";
    case BF_FM_DONE: return "done";
    }
    return "?";
}

const char *bf_fm_verdict_name(enum bf_fm_verdict v)
{
    switch (v) {
    case BF_FM_V_GAIN: return "gain";
    case BF_FM_V_KNEE: return "knee";
    case BF_FM_V_CAP: return "cap";
    case BF_FM_V_REJECTED: return "rejected";
    case BF_FM_V_TOO_LARGE: return "too-large";
    case BF_FM_V_FAILED: return "failed";
    case BF_FM_V_LATENCY: return "latency";
    case BF_FM_V_HELD: return "held";
    case BF_FM_V_MISSED: return "missed";
    case BF_FM_V_GROWING: return "growing";
    case BF_FM_V_CLIENT: return "client-bound";
    case BF_FM_V_CONFIRMED: return "confirmed";
    case BF_FM_V_UNCLEAR: return "unclear";
    case BF_FM_V_REPEAT: return "repeat";
    }
    return "?";
}
