/* SPDX-License-Identifier: MIT */
/* bf_aggregate.c — merging samples and computing a cell's row. */
#include "bf_aggregate.h"
#include "bf_stats.h"
#include "bf_steady.h"

#include "bf_clock.h"
#include "bf_cluster.h"
#include "bf_error.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_qstats.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One agent's second, compact: the scalar counters and only the HTTP statuses that came. A full
 * bf_counters_t carries 600 status slots (~5 KB), which made 200 agents x 10 min cost 982 MiB
 * of coordinator memory (bench/RESULTS.md, coordinator memory). */
#define AGENT_SEC_SCALARS 44
typedef struct status_count {
    uint32_t status;
    uint64_t count;
} status_count;
typedef struct agent_sec {
    uint64_t v[AGENT_SEC_SCALARS]; /* bf_counter_fields order */
    uint32_t nst;
    status_count *st;              /* nst entries (malloc), NULL when none */
} agent_sec;

static void agent_sec_add(agent_sec *d, const bf_counters_t *c)
{
    for (size_t i = 0; i < bf_counter_nfields; i++)
        d->v[i] += *(const uint64_t *)((const char *)c + bf_counter_fields[i].counters_off);
    for (uint32_t k = 0; k < BF_HTTP_STATUS_MAX; k++) {
        if (c->http_status[k] == 0)
            continue;
        uint32_t j = 0;
        while (j < d->nst && d->st[j].status != k)
            j++;
        if (j == d->nst) {
            d->st = bf_realloc(d->st, (d->nst + 1) * sizeof *d->st);
            d->st[d->nst++] = (status_count){k, 0};
        }
        d->st[j].count += c->http_status[k];
    }
}

static void agent_sec_expand(const agent_sec *d, bf_counters_t *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < bf_counter_nfields; i++)
        *(uint64_t *)((char *)out + bf_counter_fields[i].counters_off) = d->v[i];
    for (uint32_t j = 0; j < d->nst; j++)
        out->http_status[d->st[j].status] = d->st[j].count;
}

struct bf_cellagg {
    const bf_cell_t *cell;
    uint32_t repetition, nagents, warmup_s, duration_s;
    uint32_t warmup_max_s; /* bf_cellagg_set_warmup: run.warmup: auto's bound; 0 = fixed */
    int stopped_early; /* bf_cellagg_stop_at: requests abandoned then are the interruption's */
    int failed;        /* bf_cellagg_fail, or a sample with a fatal reason */
    uint32_t *cores;
    size_t nsec, cap;
    bf_counters_t *merged;     /* [cap] */
    agent_sec **per_agent;     /* [nagents][cap] */
    uint8_t **seen;            /* [nagents][cap]: a sample arrived for that second */
    bf_hist_t *svc, *lat;      /* measurement window only */
    int32_t *lost_from;        /* -1 if not lost */
    char (*lost_id)[128];      /* agent id of each lost agent, for the reason */
    uint32_t *lost_order;      /* agents in the order they were lost */
    uint32_t nlost;
    /* bf_cellagg_corpus_end: when each agent's load ended at the end of its corpus, ms from
     * the start (0 = it did not) */
    uint32_t *corpus_end_ms;
    bf_errtypes_t doc_errors; /* failed documents by error type, every second */
    /* named queries (search clients) */
    const bf_search_spec_t *search;
    size_t nq;
    bf_qstats_t *qwin;         /* [nq] measurement window, with histograms */
    uint64_t **qok;            /* [nq][cap] ops_ok per second */
    uint64_t *qok_all;         /* [nq] every second */
    /* bf_cellagg_track_p99: per-second latency p99 in ms (highest of the agents'), -1 = none */
    bf_hist_t *scratch;
    double *p99_sec;
    size_t p99_cap;
};

void bf_cellagg_set_queries(bf_cellagg_t *a, const bf_search_spec_t *spec)
{
    if (a->nq || spec == NULL || !spec->enabled)
        return;
    a->search = spec;
    a->nq = spec->nqueries < BF_MAX_QUERIES ? spec->nqueries : BF_MAX_QUERIES;
    a->qwin = bf_calloc(a->nq, sizeof *a->qwin);
    a->qok = bf_calloc(a->nq, sizeof *a->qok);
    a->qok_all = bf_calloc(a->nq, sizeof *a->qok_all);
    for (size_t i = 0; i < a->nq; i++) {
        bf_qstats_init(&a->qwin[i]);
        a->qok[i] = bf_calloc(a->cap ? a->cap : 1, sizeof **a->qok);
    }
}

bf_cellagg_t *bf_cellagg_new(const bf_cell_t *cell, uint32_t repetition, uint32_t nagents,
                             const uint32_t *agent_cores, uint32_t warmup_s, uint32_t duration_s)
{
    if (bf_counter_nfields > AGENT_SEC_SCALARS) {
        /* a counter was added to bf_counter_fields: raise AGENT_SEC_SCALARS */
        fprintf(stderr, "bf_cellagg_new: %zu counters, room for %d\n", bf_counter_nfields,
                AGENT_SEC_SCALARS);
        abort();
    }
    bf_cellagg_t *a = bf_calloc(1, sizeof *a);
    a->cell = cell;
    a->repetition = repetition;
    a->nagents = nagents;
    a->warmup_s = warmup_s;
    a->duration_s = duration_s;
    a->cores = bf_calloc(nagents, sizeof *a->cores);
    for (uint32_t i = 0; i < nagents; i++)
        a->cores[i] = agent_cores && agent_cores[i] ? agent_cores[i] : 1;
    a->per_agent = bf_calloc(nagents, sizeof *a->per_agent);
    a->seen = bf_calloc(nagents, sizeof *a->seen);
    a->lost_from = bf_malloc(nagents * sizeof *a->lost_from + 1);
    for (uint32_t i = 0; i < nagents; i++)
        a->lost_from[i] = -1;
    a->lost_id = bf_calloc(nagents + 1, sizeof *a->lost_id);
    a->lost_order = bf_calloc(nagents + 1, sizeof *a->lost_order);
    a->corpus_end_ms = bf_calloc(nagents + 1, sizeof *a->corpus_end_ms);
    a->svc = bf_hist_new();
    a->lat = bf_hist_new();
    return a;
}

void bf_cellagg_destroy(bf_cellagg_t **a_p)
{
    if (a_p == NULL || *a_p == NULL)
        return;
    bf_cellagg_t *a = *a_p;
    for (uint32_t i = 0; i < a->nagents; i++) {
        for (size_t k = 0; a->per_agent[i] && k < a->cap; k++)
            free(a->per_agent[i][k].st);
        free(a->per_agent[i]);
        free(a->seen[i]);
    }
    free(a->per_agent);
    free(a->seen);
    free(a->merged);
    free(a->cores);
    free(a->lost_from);
    free(a->lost_id);
    free(a->lost_order);
    free(a->corpus_end_ms);
    bf_hist_destroy(&a->svc);
    bf_hist_destroy(&a->lat);
    for (size_t i = 0; i < a->nq; i++) {
        bf_qstats_cleanup(&a->qwin[i]);
        free(a->qok[i]);
    }
    free(a->qwin);
    free(a->qok);
    free(a->qok_all);
    bf_hist_destroy(&a->scratch);
    free(a->p99_sec);
    free(a);
    *a_p = NULL;
}

static void grow(bf_cellagg_t *a, size_t need)
{
    if (need <= a->cap)
        return;
    size_t cap = a->cap ? a->cap : 64;
    while (cap < need)
        cap *= 2;
    a->merged = bf_realloc(a->merged, cap * sizeof *a->merged);
    memset(a->merged + a->cap, 0, (cap - a->cap) * sizeof *a->merged);
    for (uint32_t i = 0; i < a->nagents; i++) {
        a->per_agent[i] = bf_realloc(a->per_agent[i], cap * sizeof **a->per_agent);
        memset(a->per_agent[i] + a->cap, 0, (cap - a->cap) * sizeof **a->per_agent);
        a->seen[i] = bf_realloc(a->seen[i], cap);
        memset(a->seen[i] + a->cap, 0, cap - a->cap);
    }
    for (size_t q = 0; q < a->nq; q++) {
        a->qok[q] = bf_realloc(a->qok[q], cap * sizeof **a->qok);
        memset(a->qok[q] + a->cap, 0, (cap - a->cap) * sizeof **a->qok);
    }
    a->cap = cap;
}

void bf_cellagg_fail(bf_cellagg_t *a)
{
    a->failed = 1;
}

int bf_cellagg_set_warmup(bf_cellagg_t *a, uint32_t warmup_s, uint32_t warmup_max_s)
{
    if (warmup_s != a->warmup_s && warmup_s < a->nsec)
        return BF_E_STATE; /* a sample of a second from it on was already taken as warmup */
    a->warmup_s = warmup_s;
    a->warmup_max_s = warmup_max_s;
    return BF_OK;
}

uint32_t bf_cellagg_seconds_seen(const bf_cellagg_t *a)
{
    return (uint32_t)a->nsec;
}

void bf_cellagg_stop_at(bf_cellagg_t *a, int32_t second)
{
    uint64_t end = second > 0 ? (uint64_t)second : 0;
    a->stopped_early = 1;
    if (end < (uint64_t)a->warmup_s + a->duration_s)
        a->duration_s = end > a->warmup_s ? (uint32_t)(end - a->warmup_s) : 0;
}

const char *bf_cellagg_phase(int32_t second, uint32_t warmup_s, uint32_t duration_s, char *buf,
                             size_t len)
{
    if (second < (int64_t)warmup_s)
        snprintf(buf, len, "warmup %d/%us", second + 1, warmup_s);
    else if (second < (int64_t)warmup_s + duration_s)
        snprintf(buf, len, "measure %lld/%us", (long long)second - warmup_s + 1, duration_s);
    else
        snprintf(buf, len, "tail +%llds", (long long)second - warmup_s - duration_s + 1);
    return buf;
}

void bf_cellagg_corpus_end(bf_cellagg_t *a, uint32_t agent, uint32_t end_ms)
{
    if (agent >= a->nagents)
        return;
    if (end_ms == 0) { /* an agent before Sample.corpus_end_ms: the end of its last second */
        size_t last = 0;
        for (size_t sec = 0; sec < a->nsec; sec++)
            if (a->seen[agent][sec])
                last = sec + 1;
        end_ms = last ? (uint32_t)(last * 1000u) : 1;
    }
    a->corpus_end_ms[agent] = end_ms;
}

int bf_cellagg_add(bf_cellagg_t *a, uint32_t agent, const Bf__Sample *s)
{
    if (s->fatal && s->fatal[0]) /* the agent's cell must fail (bf_worker's fatal answers) */
        a->failed = 1;
    if (s->final && s->corpus_done) /* the final marker (second -1) says the corpus ended */
        bf_cellagg_corpus_end(a, agent, s->corpus_end_ms);
    if (s->second < 0 || agent >= a->nagents)
        return BF_OK;
    if (s->second >= BF_MAX_CELL_SECONDS)
        return BF_E_RANGE;
    size_t sec = (size_t)s->second;
    grow(a, sec + 1);
    if (sec + 1 > a->nsec)
        a->nsec = sec + 1;
    int in_window = sec >= a->warmup_s && sec < (size_t)a->warmup_s + a->duration_s;
    bf_counters_t c;
    memset(&c, 0, sizeof c);
    int rc = bf_sample_unpack_add(s, &c, in_window ? a->svc : NULL, in_window ? a->lat : NULL);
    bf_counters_add(&a->merged[sec], &c);
    agent_sec_add(&a->per_agent[agent][sec], &c);
    a->seen[agent][sec] = 1;
    bf_sample_unpack_errtypes_add(&a->doc_errors, s->doc_errors, s->n_doc_errors);
    for (size_t i = 0; i < s->n_queries; i++) {
        const Bf__QueryStats *q = s->queries[i];
        if (q->query >= a->nq) {
            rc = BF_E_RANGE; /* a query this scenario does not have */
            continue;
        }
        a->qok[q->query][sec] += q->ops_ok;
        a->qok_all[q->query] += q->ops_ok;
        if (!in_window)
            continue;
        int qrc = bf_qstats_unpack_add(q, &a->qwin[q->query]);
        if (qrc != BF_OK)
            rc = qrc;
    }
    if (a->scratch && in_window && rc == BF_OK && s->latency && s->latency->n_index > 0 &&
        s->latency->n_index == s->latency->n_count) {
        size_t w = sec - a->warmup_s;
        if (w >= a->p99_cap) {
            size_t cap = a->p99_cap ? a->p99_cap : 64;
            while (cap <= w)
                cap *= 2;
            a->p99_sec = bf_realloc(a->p99_sec, cap * sizeof *a->p99_sec);
            for (size_t i = a->p99_cap; i < cap; i++)
                a->p99_sec[i] = -1;
            a->p99_cap = cap;
        }
        bf_hist_reset(a->scratch);
        if (bf_hist_import_add(a->scratch, s->latency->index, s->latency->count,
                               s->latency->n_index, s->latency->clamped) == BF_OK) {
            double p99 = bf_hist_percentile(a->scratch, 99) / 1000.0;
            if (p99 > a->p99_sec[w])
                a->p99_sec[w] = p99;
        }
    }
    return rc;
}

void bf_cellagg_track_p99(bf_cellagg_t *a)
{
    if (a->scratch == NULL)
        a->scratch = bf_hist_new();
}

static int cmp_growth(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double bf_series_growth(const double *y, size_t n)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, first = -1, last = -1;
    size_t m = 0;
    if (y == NULL || n == 0)
        return 0;
    double *sorted = bf_malloc(n * sizeof *sorted);
    for (size_t i = 0; i < n; i++) {
        if (y[i] < 0)
            continue;
        double x = (double)i;
        sx += x;
        sy += y[i];
        sxx += x * x;
        sxy += x * y[i];
        sorted[m++] = y[i];
        if (first < 0)
            first = x;
        last = x;
    }
    double g = 0;
    double den = (double)m * sxx - sx * sx;
    if (m >= 3 && den > 0) {
        double slope = ((double)m * sxy - sx * sy) / den; /* ms per second */
        qsort(sorted, m, sizeof sorted[0], cmp_growth);
        double median = m % 2 ? sorted[m / 2] : (sorted[m / 2 - 1] + sorted[m / 2]) / 2;
        if (median > 0)
            g = slope * (last - first) / median;
    }
    free(sorted);
    return g;
}

void bf_cellagg_mark_lost(bf_cellagg_t *a, uint32_t agent, const char *agent_id, int32_t from_second)
{
    if (agent >= a->nagents || a->lost_from[agent] >= 0)
        return;
    a->lost_from[agent] = from_second < 0 ? 0 : from_second;
    bf_strlcpy(a->lost_id[agent], agent_id, sizeof a->lost_id[agent]);
    a->lost_order[a->nlost++] = agent;
}

/* "agent a3 lost from second 4[, reporting again from second 9]; ..." — whether a lost agent
 * came back is only known once its later samples are in, so the reason is built per row. */
static void degraded_reason(const bf_cellagg_t *a, char *out, size_t out_size)
{
    size_t used = 0;
    out[0] = '\0';
    for (uint32_t k = 0; k < a->nlost && used < out_size; k++) {
        uint32_t ag = a->lost_order[k];
        int32_t back = -1;
        for (size_t sec = (size_t)a->lost_from[ag]; sec < a->nsec && back < 0; sec++)
            if (a->seen[ag][sec])
                back = (int32_t)sec;
        used += (size_t)snprintf(out + used, out_size - used, "%sagent %s lost from second %d",
                                 k ? "; " : "", a->lost_id[ag], a->lost_from[ag]);
        if (back >= 0 && used < out_size)
            used += (size_t)snprintf(out + used, out_size - used,
                                     ", reporting again from second %d", back);
    }
}

int bf_search_rate_missed(const bf_cell_t *cell, double started_per_s)
{
    return cell->search_clients > 0 && cell->search_rate > 0 &&
           started_per_s < (1.0 - BF_TARGET_MISS) * cell->search_rate;
}

void bf_row_search_verify(bf_row_t *row, const bf_cell_t *cell, int64_t counted)
{
    row->search_shard_queries = counted;
    uint64_t ok = 0, errors = 0;
    for (uint32_t q = 0; q < row->nqueries; q++) {
        ok += row->queries[q].ops_ok_all;
        errors += row->queries[q].ops_error;
    }
    uint64_t per = (uint64_t)cell->shards * (cell->indices ? cell->indices : 1);
    row->search_shard_queries_expected = (int64_t)(ok * per);
    const char *why = NULL;
    if (counted < 0)
        why = "the cluster's search stats could not be read";
    else if (errors)
        why = "queries failed (a failed search may or may not have run its query phases)";
    for (uint32_t q = 0; why == NULL && q < row->nqueries; q++)
        if (row->queries[q].skip_may)
            why = "a paged or sorted query (the cluster may skip shards that cannot match)";
    if (why == NULL && counted == row->search_shard_queries_expected) {
        row->search_verified = 1;
        return;
    }
    char buf[400];
    if (why) {
        row->search_verified = -1;
        snprintf(buf, sizeof buf,
                 "searches not verified exactly: %s; the cluster ran %lld query "
                 "phases, the clients' answered searches make %lld",
                 why, (long long)counted, (long long)row->search_shard_queries_expected);
    } else {
        row->search_verified = 0;
        snprintf(buf, sizeof buf,
                 "SEARCHES UNVERIFIED: the cluster ran %lld query phases on the "
                 "cell's indices, the clients' %llu answered searches x %llu shards make %lld",
                 (long long)counted, (unsigned long long)ok, (unsigned long long)per,
                 (long long)row->search_shard_queries_expected);
    }
    bf_row_add_reason(row, buf);
}

uint64_t bf_cellagg_query_ok(const bf_cellagg_t *a, size_t q, size_t i)
{
    return q < a->nq && i < a->nsec ? a->qok[q][i] : 0;
}

const char *bf_cellagg_query_profile(const bf_cellagg_t *a, size_t q, size_t *len)
{
    if (q >= a->nq || !a->qwin[q].prof.set || a->qwin[q].prof.answer == NULL)
        return NULL;
    *len = a->qwin[q].prof.answer_len;
    return a->qwin[q].prof.answer;
}

size_t bf_cellagg_seconds(const bf_cellagg_t *a)
{
    return a->nsec;
}

const bf_counters_t *bf_cellagg_second(const bf_cellagg_t *a, size_t i)
{
    return i < a->nsec ? &a->merged[i] : NULL;
}

int bf_cellagg_agent_second(const bf_cellagg_t *a, uint32_t agent, size_t i, bf_counters_t *out)
{
    if (agent >= a->nagents || i >= a->nsec)
        return BF_E_RANGE;
    agent_sec_expand(&a->per_agent[agent][i], out);
    return BF_OK;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* nearest-rank percentile of a sorted series */
static double rank(const double *v, size_t n, double p)
{
    if (n == 0)
        return NAN;
    size_t k = (size_t)ceil(p / 100.0 * (double)n);
    if (k < 1)
        k = 1;
    return v[k - 1];
}

static void latency_stats(const bf_hist_t *h, bf_latency_stats_t *st)
{
    st->count = bf_hist_count(h);
    uint64_t n = st->count;
    st->p50_ms = n >= 1 ? bf_hist_percentile(h, 50) / 1000.0 : NAN;
    st->p90_ms = n >= 10 ? bf_hist_percentile(h, 90) / 1000.0 : NAN;
    st->p99_ms = n >= 100 ? bf_hist_percentile(h, 99) / 1000.0 : NAN;
    st->p999_ms = n >= 1000 ? bf_hist_percentile(h, 99.9) / 1000.0 : NAN;
    st->max_ms = n >= 1 ? bf_hist_max(h) / 1000.0 : NAN;
    st->mean_ms = n >= 1 ? bf_hist_mean(h) / 1000.0 : NAN;
}

uint64_t bf_cellagg_corpus_end_ms(const bf_cellagg_t *a)
{
    uint64_t end_ms = 0;
    uint32_t ended = 0;
    for (uint32_t i = 0; i < a->nagents; i++) {
        if (a->corpus_end_ms[i]) {
            ended++;
            if (a->corpus_end_ms[i] > end_ms)
                end_ms = a->corpus_end_ms[i];
        } else if (a->lost_from[i] >= 0) { /* stopped loading there, its slices unread */
            if ((uint64_t)a->lost_from[i] * 1000u > end_ms)
                end_ms = (uint64_t)a->lost_from[i] * 1000u;
        } else {
            return 0; /* this agent loaded to the end of the cell's time */
        }
    }
    if (ended == 0 || end_ms >= ((uint64_t)a->warmup_s + a->duration_s) * 1000u)
        return 0;
    return end_ms ? end_ms : 1;
}

/* The state bf_cellagg_row's steps share: the window (W warmup seconds, D window seconds for
 * the per-second series, Dw seconds to divide by), the window's merged counters, the agents'
 * cores and the whole cell's answered / unanswered requests. */
typedef struct row_ctx {
    uint32_t W, D;
    double Dw;
    bf_counters_t win;
    uint64_t cores, answered_all, no_answer_all;
    uint64_t completed_ok_all; /* req_ok + req_partial over the whole cell */
    int loaded;
    /* the cell failed before one request completed in its window (a fatal answer in warmup):
     * its error rates are over the whole cell */
    int failed_early;
} row_ctx;

static void row_reasons(const bf_cellagg_t *a, bf_row_t *row, const row_ctx *x);

/* The row's identity and its "not measured" defaults. */
static void row_defaults(const bf_cellagg_t *a, bf_row_t *row)
{
    memset(row, 0, sizeof *row);
    row->cell = a->cell;
    row->repetition = a->repetition;
    row->agents = a->nagents;
    row->docs_counted = -1;
    row->write_queue_max = -1;
    row->write_rejected = -1;
    row->hot_spot_ratio = NAN;
    row->cluster_docs_per_s = NAN;
    row->transport_rx_bytes = -1;
    row->transport_tx_bytes = -1;
    row->store_bytes = -1;
    row->store_bytes_per_payload_byte = NAN;
    row->bytes_per_doc = NAN;
    row->merge_s = NAN;
    row->segments_before = row->segments_after = -1;
    row->index_shards = -1;
    row->index_replicas = -1;
    row->cv = NAN; /* one repetition: no spread (bf_rows_median computes it over several) */
    row->host_load_avg = NAN;
    row->docs_per_s_ci_low = row->docs_per_s_ci_high = row->docs_per_s_ci_level = NAN;
    row->latency_p99_growth = NAN;
    if (a->scratch) {
        size_t n = a->duration_s < a->p99_cap ? a->duration_s : a->p99_cap;
        row->latency_p99_growth = bf_series_growth(a->p99_sec, n);
    }
    row->warmup_s = a->warmup_s;
    row->warmup_max_s = a->warmup_max_s;
    row->duration_s = a->duration_s;
}

/* The window (its end at the end of a corpus), the window's counters and the agent-seconds
 * missing from it. */
static void row_window(const bf_cellagg_t *a, bf_row_t *row, row_ctx *x)
{
    /* a cell that ended at the end of its corpus: the window ends there (docs/scenario.md,
     * End of the corpus), divided by the seconds it ran, not the configured duration */
    double window_s = a->duration_s;
    uint64_t end_ms = bf_cellagg_corpus_end_ms(a);
    row->corpus_end_s = end_ms ? (double)end_ms / 1000.0 : NAN;
    row->corpus_ended = end_ms != 0;
    if (end_ms && end_ms > (uint64_t)a->warmup_s * 1000u) {
        window_s = (double)(end_ms - (uint64_t)a->warmup_s * 1000u) / 1000.0;
        row->duration_s = (uint32_t)ceil(window_s);
    } else if (end_ms) {
        row->duration_s = 0; /* read entirely in warmup: an empty window (stalled) */
    }
    x->W = a->warmup_s;
    x->D = row->duration_s ? row->duration_s : 1;
    x->Dw = row->duration_s && end_ms ? window_s : (double)x->D;
    memset(&x->win, 0, sizeof x->win);
    x->cores = 0;
    for (uint32_t i = 0; i < a->nagents; i++)
        x->cores += a->cores[i];
    for (uint32_t s = 0; s < row->duration_s; s++) { /* none when stopped in warmup */
        size_t sec = (size_t)x->W + s;
        /* an agent whose corpus ended before this second has nothing to say for it */
        uint32_t busy = 0;
        for (uint32_t ag = 0; ag < a->nagents; ag++)
            busy += a->lost_from[ag] < 0 &&
                    (a->corpus_end_ms[ag] == 0 || (uint64_t)a->corpus_end_ms[ag] > sec * 1000u);
        if (sec < a->nsec) {
            bf_counters_add(&x->win, &a->merged[sec]);
            for (uint32_t ag = 0; ag < a->nagents; ag++)
                if (!a->seen[ag][sec] && a->lost_from[ag] < 0 &&
                    (a->corpus_end_ms[ag] == 0 || (uint64_t)a->corpus_end_ms[ag] > sec * 1000u))
                    row->late_seconds++;
        } else if (a->nsec > 0 && !a->failed) {
            /* a cell that never started its load misses nothing, nor one that failed: its
             * agents stopped at the failure */
            row->late_seconds += busy;
        }
    }
}

/* The outcome of everything sent over the whole cell (warmup and tail too): the *_all fields. */
static void row_whole_cell(const bf_cellagg_t *a, bf_row_t *row)
{
    for (size_t sec = 0; sec < a->nsec; sec++) {
        const bf_counters_t *m = &a->merged[sec];
        row->docs_ok_all += m->docs_ok;
        row->docs_sent_all += m->docs_sent;
        row->docs_unknown_all += m->docs_unknown;
        row->docs_rejected_all += m->docs_rejected;
        row->docs_failed_all += bf_counters_docs_failed(m);
        row->docs_unknown_abandoned += m->docs_unknown_abandoned;
        row->docs_unknown_timeout += m->docs_unknown_timeout;
        row->docs_unknown_reset += m->docs_unknown_reset;
        row->docs_unknown_bad_response += m->docs_unknown_bad;
        row->docs_unknown_http += m->docs_unknown_http;
        row->req_sent_all += m->sends;
        row->req_total_all += m->req_ok + m->req_partial + bf_counters_http_errors(m) +
                              m->req_connect_error + m->req_timeout + m->req_reset +
                              m->req_bad_response + m->req_abandoned;
        row->req_timeout_all += m->req_timeout;
        if (m->docs_sent > 0)
            row->bytes_payload_ok_all += (uint64_t)((double)m->bytes_payload *
                                                    (double)m->docs_ok / (double)m->docs_sent);
    }
    row->bytes_per_doc =
        row->docs_ok_all > 0 ? (double)row->bytes_payload_ok_all / (double)row->docs_ok_all : NAN;
}

/* docs/s over the window and its per-second spread. */
static void row_rate_series(const bf_cellagg_t *a, bf_row_t *row, const row_ctx *x)
{
    row->docs_per_s = (double)x->win.docs_ok / x->Dw;
    double *series = bf_calloc(x->D, sizeof *series);
    for (uint32_t s = 0; s < row->duration_s; s++) {
        size_t sec = (size_t)x->W + s;
        if (sec < a->nsec)
            series[s] = (double)a->merged[sec].docs_ok;
    }
    row->reps_n = 1;
    row->reps_docs_per_s[0] = row->docs_per_s;
    /* within this run: batch means of the window's seconds, centred on docs/s (the window
     * may end at the corpus's end, inside its last second) */
    double mean, lo, hi;
    if (isfinite(row->docs_per_s) &&
        bf_stats_batch_means(series, x->D, 0.95, &mean, &lo, &hi, NULL) == BF_OK) {
        row->docs_per_s_ci_low = fmax(0.0, row->docs_per_s - (mean - lo));
        row->docs_per_s_ci_high = row->docs_per_s + (hi - mean);
        row->docs_per_s_ci_level = 0.95;
        row->docs_per_s_ci_within = 1;
    }
    char why[300];
    if (!a->failed && bf_steady_check_trend(series, row->duration_s, why, sizeof why)) {
        row->unsteady = 1;
        bf_row_add_reason(row, why);
    }
    qsort(series, x->D, sizeof *series, cmp_double);
    row->docs_per_s_min = series[0];
    row->docs_per_s_p10 = rank(series, x->D, 10);
    row->docs_per_s_median = rank(series, x->D, 50);
    row->docs_per_s_p90 = rank(series, x->D, 90);
    row->docs_per_s_max = series[x->D - 1];
    free(series);
}

/* The window's counters, rates, latency and the stalled / few-requests flags. */
static void row_counts(const bf_cellagg_t *a, bf_row_t *row, row_ctx *x)
{
    const bf_counters_t *w = &x->win;
    row->attempted_docs_per_s = (double)w->docs_sent / x->Dw;
    row->target_docs_per_s = a->cell->target_rate;
    /* request counters over the whole cell (warmup and tail too), for the stalled reason: a
     * request is booked in the second it completed, its documents pro rata over its flight */
    x->answered_all = 0;
    x->no_answer_all = 0;
    x->completed_ok_all = 0;
    for (size_t sec = 0; sec < a->nsec; sec++) {
        const bf_counters_t *m = &a->merged[sec];
        row->req_abandoned += m->req_abandoned;
        x->answered_all +=
            m->req_ok + m->req_partial + bf_counters_http_errors(m) + m->req_bad_response;
        x->no_answer_all += m->req_connect_error + m->req_timeout + m->req_reset;
        x->completed_ok_all += m->req_ok + m->req_partial;
    }
    uint64_t answered =
        w->req_ok + w->req_partial + bf_counters_http_errors(w) + w->req_bad_response;
    /* a cell whose every document failed (400 mapper_parsing_exception, 406, 413,
     * 401) stops after a request or two; in warmup that left an empty window, read as 0 %
     * errors, "stalled" and "lengthen run.duration" */
    x->failed_early = a->failed &&
                      answered + w->req_connect_error + w->req_timeout + w->req_reset == 0 &&
                      x->answered_all + x->no_answer_all > 0;
    /* requests abandoned because the load was interrupted (Ctrl-C) or the cell failed (its
     * agents stop at a fatal answer) are no sign of a stall */
    /* a cell without one sample never started its load (it failed while being prepared, e.g.
     * the cluster was unreachable): nothing stalled, nothing was measured on few requests
     * (such a cell showed "FAILED stalled") */
    x->loaded = a->nsec > 0;
    row->stalled = x->loaded && a->cell->concurrency > 0 && !x->failed_early &&
                   (answered == 0 || (row->req_abandoned > 0 && !a->stopped_early && !a->failed));
    row->target_missed = a->cell->target_rate > 0 &&
                         row->attempted_docs_per_s < (1.0 - BF_TARGET_MISS) * a->cell->target_rate;
    row->mb_per_s_payload = (double)w->bytes_payload / x->Dw / 1e6;
    row->mb_per_s_wire = (double)w->bytes_wire / x->Dw / 1e6;
    row->docs_sent = w->docs_sent;
    row->docs_ok = w->docs_ok;
    row->docs_rejected = w->docs_rejected;
    row->docs_conflict = w->docs_conflict;
    row->docs_mapping = w->docs_mapping;
    row->docs_failed = bf_counters_docs_failed(w);
    row->docs_unknown = w->docs_unknown;
    row->docs_retried = w->docs_retried;
    row->subbulks = w->subbulks;
    row->docs_unrouted = w->docs_unrouted;
    row->docs_misrouted = w->docs_misrouted;
    row->subbulk_docs_mean =
        w->subbulks ? (double)w->bulks_split * a->cell->batch_size / (double)w->subbulks : NAN;
    row->req_http_error = bf_counters_http_errors(w);
    /* a 2xx that is not a bulk response is a bad response (documents unknown), not a transport
     * error: the transport carried an answer */
    row->req_transport_error = w->req_connect_error + w->req_timeout + w->req_reset;
    row->req_bad_response = w->req_bad_response;
    row->req_ok = w->req_ok;
    row->req_partial = w->req_partial;
    row->req_total = w->req_ok + w->req_partial + row->req_http_error + row->req_transport_error +
                     row->req_bad_response;
    row->http_429 = w->http_status[429];
    row->docs_429 = w->docs_429;
    row->doc_errors = a->doc_errors;
    /* unknown outcomes (timeouts, resets, unreadable responses) are errors too: never ok */
    row->doc_error_rate =
        w->docs_sent ? (double)(row->docs_failed + row->docs_rejected + row->docs_unknown) /
                           (double)w->docs_sent
                     : 0;
    row->request_error_rate =
        row->req_total
            ? (double)(row->req_http_error + row->req_transport_error + row->req_bad_response) /
                  (double)row->req_total
            : 0;
    if (x->failed_early) { /* over what it sent: the *_all outcome */
        row->doc_error_rate =
            row->docs_sent_all
                ? (double)(row->docs_failed_all + row->docs_rejected_all + row->docs_unknown_all) /
                      (double)row->docs_sent_all
                : 0;
        row->request_error_rate =
            (double)(x->answered_all + x->no_answer_all - x->completed_ok_all) /
            (double)(x->answered_all + x->no_answer_all);
    }
    latency_stats(a->svc, &row->service);
    latency_stats(a->lat, &row->latency);
    /* a failed cell gets no advice to measure longer: the failure says what to fix */
    /* a stalled cell (no answer at all) is flagged as such, not as this */
    /* a cell that read its whole corpus in the window is flagged too when that took few
     * requests (4 requests in 0.2 s read as 15,385 docs/s against a per-second
     * max of 3,000): its docs/s is every document over the time they took, but on so few
     * responses that time is a handful of round trips */
    row->few_requests = x->loaded && a->cell->concurrency > 0 && !row->stalled && !a->failed &&
                        row->service.count < BF_FEW_REQUESTS;
}

/* Agent CPU, the busiest worker's busy share, the send lag: whether the client was the limit. */
static void row_client(const bf_cellagg_t *a, bf_row_t *row, const row_ctx *x)
{
    double cpu_ms = (double)(x->win.cpu_user_ms + x->win.cpu_sys_ms);
    row->agent_cpu_pct = x->cores ? 100.0 * cpu_ms / (1000.0 * x->Dw * (double)x->cores) : 0;
    row->host_load_avg = x->win.host_load_agents ? (double)x->win.host_load_milli /
                                                       (double)x->win.host_load_agents / 1000.0
                                                 : NAN;
    /* client-bound, measured where it happens: the busiest worker thread's
     * busy share of each window second (the highest over threads and agents), median over the
     * window; and the mean send lag against the mean service time */
    double *busy = bf_calloc(x->D, sizeof *busy);
    for (uint32_t k = 0; k < x->D; k++) {
        size_t sec = (size_t)x->W + k;
        double b = sec < a->nsec ? (double)a->merged[sec].busy_us_max / 1e4 : 0;
        busy[k] = b > 100 ? 100 : b;
    }
    qsort(busy, x->D, sizeof *busy, cmp_double);
    row->client_busy_pct = rank(busy, x->D, 50);
    free(busy);
    row->send_lag_ms =
        x->win.sends ? (double)x->win.send_lag_us / (double)x->win.sends / 1000.0 : NAN;
    row->client_bound = bf_row_client_bound(row->agent_cpu_pct, row->client_busy_pct,
                                            row->send_lag_ms, row->service.mean_ms,
                                            row->client_bound_why, sizeof row->client_bound_why);
    bf_row_stage_shares(&x->win, &row->stage_render_pct, &row->stage_compress_pct,
                        &row->stage_judge_pct, &row->stage_send_wait_pct);
    if (row->client_bound) {
        size_t n = strlen(row->client_bound_why);
        bf_row_client_cost(row->stage_render_pct, row->stage_compress_pct, row->stage_judge_pct,
                           row->stage_send_wait_pct, row->client_bound_why + n,
                           sizeof row->client_bound_why - n);
    }
}

int bf_row_client_cost(double render_pct, double compress_pct, double judge_pct,
                       double send_wait_pct, char *why, size_t why_size)
{
    double r = render_pct, z = compress_pct, j = judge_pct;
    if (why_size)
        why[0] = '\0';
    if (!isfinite(r) || !isfinite(z) || !isfinite(j) ||
        (r < BF_CLIENT_COST_MIN_PCT && z < BF_CLIENT_COST_MIN_PCT && j < BF_CLIENT_COST_MIN_PCT))
        return 0;
    /* which stage is the cost: the largest of the client's own three */
    const char *top = r >= z && r >= j ? "building the bodies (render)"
                      : z >= j         ? "compressing them (gzip)"
                                       : "reading the answers (judge)";
    snprintf(why, why_size,
             "; the cost is %s: worker threads' time render %.0f %%, compress %.0f %%, "
             "judge %.0f %%, send/wait %.0f %%",
             top, r, z, j, isfinite(send_wait_pct) ? send_wait_pct : 0.0);
    return 1;
}

void bf_row_stage_shares(const bf_counters_t *c, double *render_pct, double *compress_pct,
                         double *judge_pct, double *send_wait_pct)
{
    if (c->worker_threads == 0) {
        *render_pct = *compress_pct = *judge_pct = *send_wait_pct = NAN;
        return;
    }
    double total = (double)c->worker_threads * 1e6;
    double r = (double)c->render_us, z = (double)c->compress_us, j = (double)c->judge_us;
    double busy = r + z + j;
    if (busy > total)
        total = busy;
    *render_pct = 100.0 * r / total;
    *compress_pct = 100.0 * z / total;
    *judge_pct = 100.0 * j / total;
    *send_wait_pct = 100.0 * (total - busy) / total;
}

/* One row per named query (search clients) and the search rate. */
static void row_queries(const bf_cellagg_t *a, bf_row_t *row, const row_ctx *x)
{
    row->nqueries = (uint32_t)a->nq;
    row->search_shard_queries = -1;
    row->search_shard_queries_expected = -1;
    row->search_verified = -1;
    for (size_t q = 0; q < a->nq; q++) {
        bf_qrow_t *qr = &row->queries[q];
        const bf_qstats_t *w = &a->qwin[q];
        qr->name = a->search->queries[q].name;
        double *qs = bf_calloc(x->D, sizeof *qs);
        uint64_t ok = 0;
        for (uint32_t k = 0; k < x->D; k++) {
            size_t sec = (size_t)x->W + k;
            qs[k] = sec < a->nsec ? (double)a->qok[q][sec] : 0;
            ok += sec < a->nsec ? a->qok[q][sec] : 0;
        }
        qsort(qs, x->D, sizeof *qs, cmp_double);
        qr->ops_per_s = (double)ok / x->Dw;
        qr->ops_per_s_min = qs[0];
        qr->ops_per_s_median = rank(qs, x->D, 50);
        qr->ops_per_s_max = qs[x->D - 1];
        free(qs);
        qr->ops_sent = w->ops_sent;
        qr->ops_ok = w->ops_ok;
        qr->ops_error = w->ops_error;
        qr->timed_out = w->timed_out;
        qr->shard_failures = w->shard_failures;
        qr->ops_ok_all = a->qok_all[q];
        qr->mean_hits = w->ops_ok ? (double)w->hits / (double)w->ops_ok : NAN;
        qr->took_mean_ms = w->took_count ? (double)w->took_ms / (double)w->took_count : NAN;
        latency_stats(w->svc, &qr->service);
        latency_stats(w->lat, &qr->latency);
        const bf_qprofile_t *pf = &w->prof;
        qr->prof_service_ms = pf->set ? pf->service_ms : NAN;
        qr->prof_query_ms = pf->set ? pf->query_ms : NAN;
        qr->prof_collectors_ms = pf->set ? pf->collectors_ms : NAN;
        qr->prof_rewrite_ms = pf->set ? pf->rewrite_ms : NAN;
        qr->prof_fetch_ms = pf->set ? pf->fetch_ms : NAN;
        qr->prof_rest_ms = pf->set ? pf->rest_ms : NAN;
        qr->prof_rest_pct =
            pf->set && pf->service_ms > 0 ? 100.0 * pf->rest_ms / pf->service_ms : NAN;
        qr->prof_shards = pf->set ? pf->shards : 0;
        const bf_query_spec_t *qspec = &a->search->queries[q];
        qr->skip_may = qspec->paging != BF_PAGING_NONE || strstr(qspec->path, "{index}") == NULL ||
                       (qspec->body && strstr(qspec->body, "\"sort\"")) || qspec->msearch_retargets;
        size_t used = 0;
        qr->errors[0] = '\0';
        for (unsigned e = 0; e < BF_QERR_TYPES && used < sizeof qr->errors; e++)
            if (w->err_type[e][0])
                used += (size_t)snprintf(qr->errors + used, sizeof qr->errors - used, "%s%s %llu",
                                         used ? ", " : "", w->err_type[e],
                                         (unsigned long long)w->err_count[e]);
    }
    uint64_t started = 0;
    for (size_t q = 0; q < a->nq; q++)
        started += a->qwin[q].started;
    row->search_started_per_s = (double)started / x->Dw;
    row->search_rate_missed =
        a->nq > 0 && bf_search_rate_missed(a->cell, row->search_started_per_s);
}

void bf_cellagg_row(const bf_cellagg_t *a, bf_row_t *row)
{
    row_ctx x;
    row_defaults(a, row);
    row_window(a, row, &x);
    row_whole_cell(a, row);
    row_rate_series(a, row, &x);
    row_counts(a, row, &x);
    row_client(a, row, &x);
    row_queries(a, row, &x);
    for (uint32_t i = 0; i < a->nagents; i++)
        if (a->lost_from[i] >= 0)
            row->degraded = 1;
    row_reasons(a, row, &x);
}

/* Appends to buf (len bytes, *used of them taken; truncated to fit). */
static void appendf(char *buf, size_t len, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void appendf(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
    if (*used >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, len - *used, fmt, ap);
    va_end(ap);
    if (n > 0)
        *used += (size_t)n;
}

/* The unknown documents over the whole cell by where they came from (README "What the numbers
 * mean": unknown), e.g. "unknown outcome over the whole cell: 140000 documents, 140000 timed
 * out (request.timeout; 28 requests, 28 of them after the window)". */
static void unknown_clause(const bf_cellagg_t *a, const bf_row_t *row, char *buf, size_t len)
{
    uint64_t tail_timeouts = 0;
    for (size_t sec = (size_t)a->warmup_s + a->duration_s; sec < a->nsec; sec++)
        tail_timeouts += a->merged[sec].req_timeout;
    size_t used = 0;
    buf[0] = '\0';
    appendf(buf, len, &used, "unknown outcome over the whole cell: %llu documents",
            (unsigned long long)row->docs_unknown_all);
    if (row->docs_unknown_abandoned)
        appendf(buf, len, &used,
                ", %llu abandoned in flight when the load stopped (%llu "
                "requests%s)",
                (unsigned long long)row->docs_unknown_abandoned,
                (unsigned long long)row->req_abandoned,
                a->stopped_early ? ", cut off by the interruption"
                : a->failed      ? ", cut off when the cell failed"
                                 : "");
    if (row->docs_unknown_timeout)
        appendf(buf, len, &used,
                ", %llu timed out (request.timeout; %llu requests, %llu of "
                "them after the window)",
                (unsigned long long)row->docs_unknown_timeout,
                (unsigned long long)row->req_timeout_all, (unsigned long long)tail_timeouts);
    if (row->docs_unknown_reset)
        appendf(buf, len, &used,
                ", %llu in requests whose connection died after the body was "
                "written (reset)",
                (unsigned long long)row->docs_unknown_reset);
    if (row->docs_unknown_bad_response)
        appendf(buf, len, &used, ", %llu in answers that were not a bulk response",
                (unsigned long long)row->docs_unknown_bad_response);
    if (row->docs_unknown_http)
        appendf(buf, len, &used,
                ", %llu in requests answered with a status that leaves them "
                "unknown (502, 504, 1xx, 3xx)",
                (unsigned long long)row->docs_unknown_http);
    appendf(buf, len, &used, "; the cluster may have indexed any of them");
    /* seen on OpenSearch 2.19 (c200 x 5000 cut off by Ctrl-C): _count 26296 at the
     * verification, 312451 fifteen seconds later, of the 1000000 abandoned */
    if (row->docs_unknown_abandoned)
        appendf(buf, len, &used,
                ", and keeps indexing a bulk request whose client went away, "
                "so a later _count can be higher than the row's");
}

/* Every document sent ends in one outcome and every request sent in one (bf_row_t.counts_ok):
 * when not, the row says which numbers differ, so a booking bug shows in the results. */
static void counts_clause(bf_row_t *row)
{
    uint64_t outcomes =
        row->docs_ok_all + row->docs_failed_all + row->docs_rejected_all + row->docs_unknown_all;
    uint64_t causes = row->docs_unknown_abandoned + row->docs_unknown_timeout +
                      row->docs_unknown_reset + row->docs_unknown_bad_response +
                      row->docs_unknown_http;
    /* agents before these counters (sends, the causes of unknown documents) report 0 for
     * them: only what every sample carries is held to the identity */
    row->counts_ok = outcomes == row->docs_sent_all &&
                     (causes == 0 || causes == row->docs_unknown_all) &&
                     (row->req_sent_all == 0 || row->req_sent_all == row->req_total_all);
    if (row->counts_ok)
        return;
    char why[420];
    snprintf(why, sizeof why,
             "counts do not add up over the cell: %llu documents sent, %llu with an outcome "
             "(ok + failed + rejected + unknown), %llu unknown by cause; %llu bulk requests "
             "sent, %llu with an outcome%s",
             (unsigned long long)row->docs_sent_all, (unsigned long long)outcomes,
             (unsigned long long)causes, (unsigned long long)row->req_sent_all,
             (unsigned long long)row->req_total_all,
             row->degraded ? " (an agent was lost: what it had sent and not yet reported is "
                             "missing)"
                           : "");
    bf_row_add_reason(row, why);
}

/* Why an early-failed row's error rates are over the whole cell, e.g. "failed before its
 * measurement window: no bulk request completed in the 3 s window, 2 completed in the 5 s
 * warmup (run.warmup) or after it; doc errors % (100.00) and request errors % (100.00) are
 * over all it sent: 200 of 200 documents failed, rejected or unknown, 2 of 2 bulk requests
 * answered with an error or none". */
static void failed_early_clause(const bf_cellagg_t *a, const bf_row_t *row, const row_ctx *x,
                                char *buf, size_t len)
{
    uint64_t reqs = x->answered_all + x->no_answer_all;
    snprintf(
        buf, len,
        "failed before its measurement window: no bulk request completed in the %u s "
        "window, %llu ended in the %u s warmup (run.warmup) or after it; doc errors "
        "%% (%.2f) and request errors %% (%.2f) are over all it sent: %llu of %llu "
        "documents failed, rejected or unknown, %llu of %llu bulk requests answered with "
        "an error or none",
        row->duration_s, (unsigned long long)reqs, a->warmup_s, row->doc_error_rate * 100.0,
        row->request_error_rate * 100.0,
        (unsigned long long)(row->docs_failed_all + row->docs_rejected_all + row->docs_unknown_all),
        (unsigned long long)row->docs_sent_all, (unsigned long long)(reqs - x->completed_ok_all),
        (unsigned long long)reqs);
}

/* Every reason clause that applies, in this order: degraded, missing agent-seconds, stalled,
 * target-missed, few-requests, client-bound, unknown documents (the window's, then the whole
 * cell's by cause), counts that do not add up, search-rate-missed. None overwrites another
 * (bf_finish_cell puts a failure first and appends the verification's). */
static void row_reasons(const bf_cellagg_t *a, bf_row_t *row, const row_ctx *x)
{
    uint32_t D = x->D;
    uint64_t answered_all = x->answered_all, no_answer_all = x->no_answer_all;
    char buf[sizeof row->reason];
    row->reason[0] = '\0';
    if (row->degraded) {
        degraded_reason(a, buf, sizeof buf);
        bf_row_add_reason(row, buf);
    }
    if (row->corpus_ended) {
        uint32_t first_ms = UINT32_MAX, n = 0;
        for (uint32_t i = 0; i < a->nagents; i++)
            if (a->corpus_end_ms[i]) {
                n++;
                if (a->corpus_end_ms[i] < first_ms)
                    first_ms = a->corpus_end_ms[i];
            }
        size_t used = 0;
        appendf(buf, sizeof buf, &used,
                "ended at the end of the corpus (document.corpus.passes) %.1f s after the start, "
                "before run.duration's %u s",
                row->corpus_end_s, a->duration_s);
        if (row->duration_s)
            appendf(buf, sizeof buf, &used,
                    ": docs/s is over the %.1f s from the end of the warmup to there",
                    row->corpus_end_s - a->warmup_s);
        else
            appendf(buf, sizeof buf, &used,
                    ", within the %u s warmup: nothing was measured (use warmup: 0s)", a->warmup_s);
        if (n > 1 && first_ms < row->corpus_end_s * 1000.0 - 500.0)
            appendf(buf, sizeof buf, &used,
                    " (the first of %u agents ended at %.1f s; each counts 0 after its own "
                    "end)",
                    n, first_ms / 1000.0);
        bf_row_add_reason(row, buf);
    }
    if (row->late_seconds) {
        snprintf(buf, sizeof buf, "%llu agent-seconds missing in the window",
                 (unsigned long long)row->late_seconds);
        bf_row_add_reason(row, buf);
    }
    buf[0] = '\0';
    /* pending at an interruption (Ctrl-C) is the interruption's, not a sign of the cluster
     * (found by tests/integration/agent_cutoff.sh: "the cluster stopped answering within
     * request.timeout" on a cell cut off 1.5 s into a 30 s timeout) */
    if (row->stalled && row->req_abandoned && !a->stopped_early)
        snprintf(buf, sizeof buf,
                 "stalled: %llu bulk requests still pending "
                 "when the load ended (their documents are unknown); the cluster stopped "
                 "answering within request.timeout",
                 (unsigned long long)row->req_abandoned);
    else if (row->stalled && row->req_transport_error)
        snprintf(buf, sizeof buf,
                 "stalled: no bulk request was answered in the %u s window; %llu got no answer "
                 "in it (connect error, timeout, reset: req_transport_error)",
                 D, (unsigned long long)row->req_transport_error);
    else if (row->stalled && answered_all && row->corpus_ended && !row->duration_s)
        /* an imported 240 s warmup read a small corpus to its end, and the row
         * advised "lengthen run.duration" (3600 s): nothing a longer window would change */
        snprintf(buf, sizeof buf,
                 "stalled: the window holds no request because the corpus was read to its end "
                 "within the %u s warmup (%llu bulk requests answered there); set run.warmup "
                 "below the time the corpus takes (0s measures all of it), or read it more "
                 "often (document.corpus.passes, loop)",
                 a->warmup_s, (unsigned long long)answered_all);
    else if (row->stalled && answered_all)
        snprintf(buf, sizeof buf,
                 "stalled: no bulk request completed in the %u s window (req_total 0): the %llu "
                 "answered completed in warmup or after the window, each in flight longer "
                 "than it; docs/s counts pro rata the documents of requests in flight in the "
                 "window; lengthen run.duration or lower batch_size or concurrency",
                 D, (unsigned long long)answered_all);
    else if (row->stalled && row->req_abandoned)
        snprintf(buf, sizeof buf,
                 "stalled: no bulk request was answered in the whole cell (%llu got no answer: "
                 "connect error, timeout, reset; %llu were still in flight when the load was "
                 "interrupted)",
                 (unsigned long long)no_answer_all, (unsigned long long)row->req_abandoned);
    else if (row->stalled)
        snprintf(buf, sizeof buf,
                 "stalled: no bulk request was answered in the whole cell (%llu got no answer: "
                 "connect error, timeout, reset)",
                 (unsigned long long)no_answer_all);
    if (x->failed_early)
        failed_early_clause(a, row, x, buf, sizeof buf);
    if (buf[0])
        bf_row_add_reason(row, buf);
    if (row->target_missed) {
        snprintf(buf, sizeof buf,
                 "target-missed: %.0f docs/s sent of the %.0f "
                 "docs/s target_rate (%.0f acknowledged); add connections (concurrency) or "
                 "agents, or lower target_rate",
                 row->attempted_docs_per_s, row->target_docs_per_s, row->docs_per_s);
        bf_row_add_reason(row, buf);
    }
    if (row->few_requests && row->corpus_ended) {
        snprintf(buf, sizeof buf,
                 "few-requests: the corpus ended after only %llu bulk responses in the window "
                 "(%.1f s), too few to rank this cell's docs/s; use a larger corpus or more "
                 "passes (document.corpus.passes), a smaller batch_size, or a shorter run.warmup",
                 (unsigned long long)row->service.count, row->corpus_end_s - a->warmup_s);
        bf_row_add_reason(row, buf);
    } else if (row->few_requests) {
        snprintf(buf, sizeof buf,
                 "few-requests: only %llu bulk responses in the %u s window, too few to rank "
                 "this cell's docs/s; lengthen run.duration",
                 (unsigned long long)row->service.count, D);
        bf_row_add_reason(row, buf);
    }
    if (row->client_bound)
        bf_row_add_reason(row, row->client_bound_why);
    if (row->docs_unknown) { /* doc errors % counts them; doc_errors lists answered errors */
        snprintf(buf, sizeof buf,
                 "doc errors %% includes %llu documents of unknown outcome (no error type, not "
                 "in doc_errors) of the %llu sent in the window",
                 (unsigned long long)row->docs_unknown, (unsigned long long)row->docs_sent);
        bf_row_add_reason(row, buf);
    }
    if (row->docs_unknown_all) {
        unknown_clause(a, row, buf, sizeof buf);
        bf_row_add_reason(row, buf);
    }
    counts_clause(row);
    if (row->search_rate_missed) {
        snprintf(buf, sizeof buf,
                 "search-rate-missed: %.1f queries/s started of the %.1f search_rate (the "
                 "latency includes the wait for a free client); add search clients or agents, "
                 "or lower search_rate",
                 row->search_started_per_s, a->cell->search_rate);
        bf_row_add_reason(row, buf);
    }
}

void bf_cellagg_live(const bf_cellagg_t *a, int32_t second, uint64_t *docs_ok, uint64_t *errors,
                     uint64_t *rejected)
{
    *docs_ok = *errors = *rejected = 0;
    if (second < 0 || (size_t)second >= a->nsec)
        return;
    const bf_counters_t *c = &a->merged[second];
    *docs_ok = c->docs_ok;
    *errors = bf_counters_docs_failed(c) + c->docs_unknown;
    *rejected = c->docs_rejected;
}

int bf_row_client_bound(double cpu_pct, double busy_pct, double lag_ms, double service_mean_ms,
                        char *why, size_t why_size)
{
    if (why_size)
        why[0] = '\0';
    int cpu = cpu_pct >= BF_CLIENT_BOUND_CPU * 100.0;
    int busy = busy_pct >= BF_CLIENT_BOUND_BUSY * 100.0;
    int works =
        busy_pct >= BF_CLIENT_BOUND_LAG_WORK * 100.0 || cpu_pct >= BF_CLIENT_BOUND_LAG_WORK * 100.0;
    int lag = works && isfinite(lag_ms) && isfinite(service_mean_ms) &&
              lag_ms >= BF_CLIENT_BOUND_LAG_MIN_MS &&
              lag_ms >= BF_CLIENT_BOUND_LAG * service_mean_ms;
    if (!cpu && !busy && !lag)
        return 0;
    snprintf(why, why_size,
             "client-bound: the load generator limited this number (agent CPU %.0f %% of its "
             "cores; busiest worker thread busy %.0f %% of each second, median; send lag %.2f "
             "ms per request against a service time of %.2f ms): add agents or threads",
             cpu_pct, busy_pct, isfinite(lag_ms) ? lag_ms : 0.0,
             isfinite(service_mean_ms) ? service_mean_ms : 0.0);
    return 1;
}

int bf_row_has_errors(const bf_row_t *row)
{
    return row->docs_failed > 0 || row->docs_unknown > 0 || row->req_transport_error > 0 ||
           row->req_bad_response > 0 || row->req_http_error > row->http_429;
}

static int cmp_row(const void *x, const void *y)
{
    const bf_row_t *a = x, *b = y;
    return (a->docs_per_s > b->docs_per_s) - (a->docs_per_s < b->docs_per_s);
}

void bf_rows_median(const bf_row_t *reps, size_t n, bf_row_t *out)
{
    bf_row_t *sorted = bf_malloc(n * sizeof *sorted);
    memcpy(sorted, reps, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_row);
    *out = sorted[(n - 1) / 2];
    double mean = 0, var = 0;
    for (size_t i = 0; i < n; i++)
        mean += reps[i].docs_per_s;
    mean /= (double)n;
    for (size_t i = 0; i < n; i++)
        var += (reps[i].docs_per_s - mean) * (reps[i].docs_per_s - mean);
    var = n > 1 ? var / (double)(n - 1) : 0;
    out->cv = n < 2 ? NAN : mean > 0 ? sqrt(var) / mean : 0;
    out->repeat = (uint32_t)n;
    out->repetition = 0;
    /* every repetition's docs/s in order, and the interval of their median */
    out->reps_n = 0;
    for (size_t i = 0; i < n && i < BF_ROW_MAX_REPS; i++)
        if (isfinite(reps[i].docs_per_s))
            out->reps_docs_per_s[out->reps_n++] = reps[i].docs_per_s;
    double lo, hi, level;
    /* the shown docs/s is the median the interval (and the findings' tests) are about: for an
     * even count the mean of the two middle runs, not the lower-middle run's own figure (it
     * used to be, beside an interval centred between the two) */
    if (out->reps_n >= 2)
        out->docs_per_s = bf_stats_median(out->reps_docs_per_s, out->reps_n);
    if (n >= 2 &&
        bf_stats_median_ci(out->reps_docs_per_s, out->reps_n, 0.95, &lo, &hi, &level) == BF_OK) {
        out->docs_per_s_ci_low = lo;
        out->docs_per_s_ci_high = hi;
        out->docs_per_s_ci_level = level;
        out->docs_per_s_ci_within = 0;
    }
    out->round = 0; /* each repetition's place is in matrix.json's schedule */
    out->position = 0;
    out->started_at_ms = -1;
    for (size_t i = 0; i < n; i++) {
        if (reps[i].unsteady && !out->unsteady) { /* the row shown is steady, one other is not */
            char why[120];
            snprintf(why, sizeof why, "unsteady: repetition %u (its row says why)",
                     reps[i].repetition);
            out->unsteady = 1;
            bf_row_add_reason(out, why);
        }
        out->failed |= reps[i].failed;
        out->degraded |= reps[i].degraded;
        out->verified = out->verified && reps[i].verified;
    }
    free(sorted);
}

const double *bf_row_reps(const bf_row_t *row, size_t *n)
{
    if (row->reps_n > 0) {
        *n = row->reps_n;
        return row->reps_docs_per_s;
    }
    *n = isfinite(row->docs_per_s) ? 1 : 0;
    return &row->docs_per_s;
}

void bf_row_add_reason(bf_row_t *row, const char *text)
{
    size_t l = strlen(row->reason);
    snprintf(row->reason + l, sizeof row->reason - l, "%s%s", l ? "; " : "", text);
}
