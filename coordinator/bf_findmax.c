/* SPDX-License-Identifier: MIT */
/* bf_findmax.c — the find-max search controller (seed 004's method); see bf_findmax.h.
 *
 * A small state machine over plain values: bf_fm_next says what to run, bf_fm_record judges
 * the outcome and moves on. Every decision is here, so the unit test can drive it against a
 * simulated cluster and the campaign only executes steps.
 */
#include "bf_findmax.h"
#include "bf_units.h"

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
    uint64_t c = (uint64_t)fm->lo * fm->cfg.sustain_headroom;
    if (c > fm->cfg.concurrency_max)
        c = fm->cfg.concurrency_max;
    return c < fm->lo ? fm->lo : (uint32_t)c;
}

static uint32_t bisect_mid(const bf_fm_t *fm)
{
    return fm->lo + (fm->hi - fm->lo) / 2;
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
        return 1;
    case BF_FM_CONCURRENCY:
        step->batch_size = fm->batch;
        step->concurrency = fm->next_value;
        return 1;
    case BF_FM_BISECT:
        step->batch_size = fm->batch;
        step->concurrency = bisect_mid(fm);
        return 1;
    case BF_FM_SUSTAIN:
        step->batch_size = fm->batch;
        step->concurrency = sustain_concurrency(fm);
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

static enum bf_fm_verdict record_batch(bf_fm_t *fm, const bf_fm_step_t *s, const bf_fm_obs_t *o)
{
    enum bf_fm_verdict v = badness(fm, o);
    if (v != BF_FM_V_GAIN) {
        if (!fm->have_batch) {
            end_search(fm, "the first batch size did not run cleanly: nothing to build on");
            return v;
        }
    } else if (fm->have_batch && o->docs_per_s < fm->lo_dps * (1.0 + fm->cfg.gain_min)) {
        v = BF_FM_V_KNEE;
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

static enum bf_fm_verdict record_conc(bf_fm_t *fm, const bf_fm_step_t *s, const bf_fm_obs_t *o)
{
    enum bf_fm_verdict v = badness(fm, o);
    if (v == BF_FM_V_GAIN && o->docs_per_s < fm->lo_dps * (1.0 + fm->cfg.gain_min))
        v = BF_FM_V_KNEE;
    if (v != BF_FM_V_GAIN) {
        to_bisect(fm, s->concurrency);
        return v;
    }
    take_lo(fm, s->concurrency, o);
    if ((uint64_t)s->concurrency * 2 > fm->cfg.concurrency_max) {
        start_sustain(fm);
        return BF_FM_V_CAP;
    }
    fm->next_value = s->concurrency * 2;
    return v;
}

static enum bf_fm_verdict record_bisect(bf_fm_t *fm, const bf_fm_step_t *s, const bf_fm_obs_t *o)
{
    enum bf_fm_verdict v = badness(fm, o);
    double need = fm->lo_dps * (1.0 + fm->cfg.gain_min * (double)(s->concurrency - fm->lo) /
                                          (double)fm->lo);
    if (v == BF_FM_V_GAIN && o->docs_per_s < need)
        v = BF_FM_V_KNEE;
    uint32_t hi = fm->hi;
    if (v == BF_FM_V_GAIN)
        take_lo(fm, s->concurrency, o);
    else
        hi = s->concurrency;
    to_bisect(fm, hi);
    return v;
}

static enum bf_fm_verdict record_sustain(bf_fm_t *fm, const bf_fm_step_t *s, const bf_fm_obs_t *o)
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
    fm->tries++;
    if (v == BF_FM_V_HELD) {
        fm->found = 1;
        fm->sustained_rate = s->target_rate;
        fm->sustained_dps = o->docs_per_s;
        fm->sustained_p50_ms = o->p50_ms;
        fm->sustained_p99_ms = o->p99_ms;
        fm->sustained_concurrency = s->concurrency;
        end_search(fm, "the rate held");
    } else if (fm->tries >= fm->cfg.sustain_tries) {
        end_search(fm, "no rate held within find_max.sustain_tries");
    } else {
        fm->rate = s->target_rate * (1.0 - fm->cfg.step_down);
        if (fm->rate < 1.0)
            end_search(fm, "the rate fell below 1 doc/s without holding");
    }
    return v;
}

enum bf_fm_verdict bf_fm_record(bf_fm_t *fm, const bf_fm_step_t *step, const bf_fm_obs_t *obs)
{
    enum bf_fm_verdict v = BF_FM_V_FAILED;
    fm->steps++;
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
    if (fm->phase != BF_FM_DONE)
        end_search(fm, reason);
}

uint32_t bf_fm_max_steps(const bf_fm_cfg_t *cfg, uint32_t *search_steps, uint32_t *sustain_steps)
{
    bf_fm_t fm; /* the defaults bf_fm_init applies to zero fields */
    bf_fm_init(&fm, cfg);
    const bf_fm_cfg_t *c = &fm.cfg;
    uint32_t n = 0;
    for (uint64_t b = c->batch_start; b <= c->batch_max; b *= 2)
        n++; /* batch doublings, the first size included */
    uint64_t lo = c->concurrency_start;
    while (lo * 2 <= c->concurrency_max) {
        lo *= 2;
        n++; /* concurrency doublings */
    }
    /* the longest bisection: between the last good concurrency and its double (capped at the
     * maximum), the larger half kept each time, until hi - lo <= max(1, lo / 8) */
    uint64_t good = lo / 2 >= c->concurrency_start ? lo / 2 : lo, hi = good * 2;
    uint64_t res = good / 8 > 1 ? good / 8 : 1;
    for (uint64_t w = hi - good; w > res; w -= w / 2)
        n++;
    if (search_steps)
        *search_steps = n;
    if (sustain_steps)
        *sustain_steps = c->sustain_tries;
    return n + c->sustain_tries;
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
    }
    return "?";
}
