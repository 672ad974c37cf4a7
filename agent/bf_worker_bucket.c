/* SPDX-License-Identifier: MIT */
/* bf_worker_bucket.c — a load thread's per-second buckets: what its requests count, booked in
 * the seconds they were in flight (pro rata, bf_worker.h), collected by the sampler under the
 * worker's lock; and the reason a cell must fail. */
#include "bf_worker_int.h"

#include "bf_clock.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- buckets ------------------------------------------------------------------------------ */

int32_t bf__worker_second_of(const bf_worker_t *w, uint64_t t_us)
{
    uint64_t start = w->cfg.start_mono_us;
    return t_us > start ? (int32_t)((t_us - start) / 1000000u) : 0;
}

/* Returns the bucket of second sec; caller holds the lock. */
bucket *bf__worker_bucket_at(bf_worker_t *w, int32_t sec)
{
    bucket *b = &w->ring[(uint32_t)sec % w->nring];
    if (b->second != sec) {
        if (b->second >= 0) {
            /* the sampler fell nring seconds behind; keep the data under its older second
             * rather than lose it (it is still counted, early) */
            return b;
        }
        b->second = sec;
    }
    if (sec > atomic_load(&w->last_second))
        atomic_store(&w->last_second, sec);
    return b;
}

/* Returns the bucket for now (clock read under the lock, see header); caller holds the lock. */
bucket *bf__worker_bucket_now(bf_worker_t *w)
{
    return bf__worker_bucket_at(w, bf__worker_second_of(w, bf_clock_mono_us()));
}

void bf__worker_record_hist(bf_hist_t **h, uint64_t value_us)
{
    if (*h == NULL)
        *h = bf_hist_new();
    bf_hist_record(*h, value_us);
}

/* The pro-rata rule (docs/results.md, "What the numbers mean"): the documents of a request that was
 * in flight from t0_us to t1_us are booked over the seconds of that time, each second getting the
 * share of its overlap: document i of n belongs to the second in which the fraction i/n of the
 * time in flight is reached (cumulative, so the shares add up to n exactly). Documents are
 * taken in the order ok, rejected, conflict, mapping, 4xx, 5xx, unknown, then those still to
 * be retried (sent, no verdict yet), so every second's verdicts are a subset of the documents
 * sent in it: docs_ok of a second never exceeds its docs_sent. Bytes follow the same shares.
 * v[SP_*] are the request's totals; caller holds the lock. */
void bf__worker_spread_docs(bf_worker_t *w, uint64_t t0_us, uint64_t t1_us, const uint64_t *v)
{
    if (t1_us < t0_us)
        t1_us = t0_us;
    int32_t s0 = bf__worker_second_of(w, t0_us), s1 = bf__worker_second_of(w, t1_us);
    uint64_t dur = t1_us - t0_us;
    uint64_t n = v[SP_SENT] + v[SP_RETRIED];
    static const int cls[] = {SP_OK,  SP_REJECTED, SP_CONFLICT, SP_MAPPING,
                              SP_4XX, SP_5XX,      SP_UNKNOWN};
    uint64_t prev_docs = 0, prev_payload = 0, prev_wire = 0;
    for (int32_t sec = s0; sec <= s1; sec++) {
        uint64_t upto; /* time in flight up to the end of sec */
        if (sec == s1 || dur == 0) {
            upto = dur;
        } else {
            uint64_t end = w->cfg.start_mono_us + (uint64_t)(sec + 1) * 1000000u;
            upto = end > t0_us ? end - t0_us : 0;
        }
        uint64_t docs = dur ? (uint64_t)((unsigned __int128)n * upto / dur) : n;
        uint64_t payload =
            dur ? (uint64_t)((unsigned __int128)v[SP_PAYLOAD] * upto / dur) : v[SP_PAYLOAD];
        uint64_t wire = dur ? (uint64_t)((unsigned __int128)v[SP_WIRE] * upto / dur) : v[SP_WIRE];
        if (sec == s1) {
            docs = n;
            payload = v[SP_PAYLOAD];
            wire = v[SP_WIRE];
        }
        if (docs == prev_docs && payload == prev_payload && wire == prev_wire)
            continue;
        bf_counters_t *c = &bf__worker_bucket_at(w, sec)->c;
        uint64_t k = docs - prev_docs;
        if (v[SP_SENT])
            c->docs_sent += k;
        else
            c->docs_retried += k;
        c->bytes_payload += payload - prev_payload;
        c->bytes_wire += wire - prev_wire;
        /* documents [prev_docs, docs) of the class order */
        uint64_t *dst[] = {&c->docs_ok,      &c->docs_rejected,   &c->docs_conflict,
                           &c->docs_mapping, &c->docs_failed_4xx, &c->docs_failed_5xx,
                           &c->docs_unknown};
        uint64_t lo = 0;
        for (size_t i = 0; i < sizeof cls / sizeof cls[0]; i++) {
            uint64_t hi = lo + v[cls[i]];
            uint64_t a = prev_docs > lo ? prev_docs : lo, b = docs < hi ? docs : hi;
            if (b > a)
                *dst[i] += b - a;
            lo = hi;
        }
        prev_docs = docs;
        prev_payload = payload;
        prev_wire = wire;
    }
}

int bf_worker_collect(bf_worker_t *w, int32_t second, bf_counters_t *c, bf_hist_t *svc,
                      bf_hist_t *lat)
{
    int had = 0;
    pthread_mutex_lock(&w->lock);
    bucket *b = &w->ring[(uint32_t)second % w->nring];
    if (b->second == second) {
        bf_counters_add(c, &b->c);
        if (svc && b->svc)
            bf_hist_add(svc, b->svc);
        if (lat && b->lat)
            bf_hist_add(lat, b->lat);
        memset(&b->c, 0, sizeof b->c);
        /* freed, not cleared: only seconds with completions hold histograms */
        bf_hist_destroy(&b->svc);
        bf_hist_destroy(&b->lat);
        b->second = -1;
        had = 1;
    }
    pthread_mutex_unlock(&w->lock);
    return had;
}

void bf_worker_collect_errors(bf_worker_t *w, bf_errtypes_t *dst)
{
    pthread_mutex_lock(&w->lock);
    bf_errtypes_merge(dst, &w->errs);
    bf_errtypes_reset(&w->errs);
    pthread_mutex_unlock(&w->lock);
}

int32_t bf_worker_open_second(bf_worker_t *w)
{
    pthread_mutex_lock(&w->lock);
    int32_t s = w->open_second;
    pthread_mutex_unlock(&w->lock);
    return s;
}

int32_t bf_worker_last_second(bf_worker_t *w)
{
    return atomic_load(&w->last_second);
}

void bf__worker_set_fatal(bf_worker_t *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void bf__worker_set_fatal(bf_worker_t *w, const char *fmt, ...)
{
    if (atomic_load(&w->fatal_set))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->fatal, sizeof w->fatal, fmt, ap);
    va_end(ap);
    atomic_store(&w->fatal_set, 1);
    atomic_store(&w->abort_flag, 1);
}

const char *bf_worker_fatal(bf_worker_t *w)
{
    return atomic_load(&w->fatal_set) ? w->fatal : "";
}

void bf__worker_update_open_second(bf_worker_t *w)
{
    int32_t open = INT32_MAX;
    for (uint32_t i = 0; i < w->nslots; i++) {
        const slot *s = &w->slots[i];
        if (s->state == SLOT_BUSY) {
            int32_t sec = bf__worker_second_of(w, s->send_us);
            if (sec < open)
                open = sec;
        }
    }
    w->open_second = open;
}
