/* SPDX-License-Identifier: MIT */
/* bf_sample.c — counters and their protobuf form. */
#include "bf_sample.h"

#include "bf_error.h"
#include "bf_mem.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The one list of scalar counters: wire form, merge and results files all walk it. */
#define F(name, u32)                                                                               \
    {                                                                                              \
#name, offsetof(bf_counters_t, name), offsetof(Bf__Sample, name), u32                      \
    }
// clang-format off
const bf_counter_field_t bf_counter_fields[] = {
    F(docs_sent, 0),
    F(docs_ok, 0),
    F(docs_rejected, 0),
    F(docs_conflict, 0),
    F(docs_mapping, 0),
    F(docs_failed_4xx, 0),
    F(docs_failed_5xx, 0),
    F(docs_unknown, 0),
    F(docs_retried, 0),
    F(req_ok, 0),
    F(req_partial, 0),
    F(req_connect_error, 0),
    F(req_timeout, 0),
    F(req_reset, 0),
    F(req_bad_response, 0),
    F(bytes_payload, 0),
    F(bytes_wire, 0),
    F(inflight, 1),
    F(cpu_user_ms, 0),
    F(cpu_sys_ms, 0),
    F(processing_us, 0),
    F(conn_wait, 0),
    F(rate_behind, 0),
    F(connections_opened, 0),
    F(req_abandoned, 0),
    F(docs_429, 0),
    F(busy_us_max, 0),
    F(send_lag_us, 0),
    F(sends, 0),
    F(bulks_split, 0),
    F(subbulks, 0),
    F(docs_unrouted, 0),
    F(docs_misrouted, 0),
    F(docs_unknown_abandoned, 0),
    F(docs_unknown_timeout, 0),
    F(docs_unknown_reset, 0),
    F(docs_unknown_bad, 0),
    F(docs_unknown_http, 0),
    F(render_us, 0),
    F(compress_us, 0),
    F(judge_us, 0),
    F(worker_threads, 1),
    F(host_load_milli, 0),
    F(host_load_agents, 1),
};
// clang-format on
#undef F
const size_t bf_counter_nfields = sizeof bf_counter_fields / sizeof bf_counter_fields[0];

void bf_counters_add(bf_counters_t *dst, const bf_counters_t *src)
{
    /* every field is a uint64_t: add them as an array; busy_us_max is a maximum */
    uint64_t busy = dst->busy_us_max > src->busy_us_max ? dst->busy_us_max : src->busy_us_max;
    uint64_t *d = (uint64_t *)dst;
    const uint64_t *s = (const uint64_t *)src;
    for (size_t i = 0; i < sizeof *dst / sizeof(uint64_t); i++)
        d[i] += s[i];
    dst->busy_us_max = busy;
}

uint64_t bf_counters_http_errors(const bf_counters_t *c)
{
    uint64_t n = 0;
    for (int i = 0; i < BF_HTTP_STATUS_MAX; i++)
        n += c->http_status[i];
    return n;
}

uint64_t bf_counters_docs_failed(const bf_counters_t *c)
{
    return c->docs_conflict + c->docs_mapping + c->docs_failed_4xx + c->docs_failed_5xx;
}

static void pack_hist(Bf__Hist *pb, const bf_hist_t *h)
{
    bf__hist__init(pb);
    size_t n = bf_hist_nonzero(h);
    pb->index = bf_malloc(n * sizeof *pb->index + 1);
    pb->count = bf_malloc(n * sizeof *pb->count + 1);
    pb->n_index = pb->n_count = bf_hist_export(h, pb->index, pb->count, n);
    pb->clamped = bf_hist_clamped(h);
}

void bf_sample_pack(Bf__Sample *s, Bf__Hist *svc_pb, Bf__Hist *lat_pb, const char *cell_id,
                    uint64_t seq, int32_t second, const bf_counters_t *c, const bf_hist_t *svc,
                    const bf_hist_t *lat)
{
    bf__sample__init(s);
    s->cell_id = (char *)cell_id;
    s->seq = seq;
    s->second = second;
    for (size_t i = 0; i < bf_counter_nfields; i++) {
        const bf_counter_field_t *f = &bf_counter_fields[i];
        uint64_t v = *(const uint64_t *)((const char *)c + f->counters_off);
        char *dst = (char *)s + f->sample_off;
        if (f->sample_u32)
            *(uint32_t *)dst = (uint32_t)v;
        else
            *(uint64_t *)dst = v;
    }
    size_t nstatus = 0;
    for (int i = 0; i < BF_HTTP_STATUS_MAX; i++)
        nstatus += c->http_status[i] != 0;
    s->req_http_error = bf_calloc(nstatus + 1, sizeof *s->req_http_error);
    for (int i = 0; i < BF_HTTP_STATUS_MAX; i++) {
        if (c->http_status[i] == 0)
            continue;
        Bf__StatusCount *sc = bf_malloc(sizeof *sc);
        bf__status_count__init(sc);
        sc->status = (uint32_t)i;
        sc->count = c->http_status[i];
        s->req_http_error[s->n_req_http_error++] = sc;
    }
    if (svc) {
        pack_hist(svc_pb, svc);
        s->service_time = svc_pb;
    }
    if (lat) {
        pack_hist(lat_pb, lat);
        s->latency = lat_pb;
    }
}

void bf_sample_pack_cleanup(Bf__Sample *s)
{
    for (size_t i = 0; i < s->n_req_http_error; i++)
        free(s->req_http_error[i]);
    free(s->req_http_error);
    if (s->service_time) {
        free(s->service_time->index);
        free(s->service_time->count);
    }
    if (s->latency) {
        free(s->latency->index);
        free(s->latency->count);
    }
    s->req_http_error = NULL;
    s->n_req_http_error = 0;
    s->service_time = s->latency = NULL;
}

static int check_hist(const Bf__Hist *pb, const bf_hist_t *h)
{
    if (pb == NULL || h == NULL)
        return BF_OK;
    if (pb->n_index != pb->n_count)
        return BF_E_RANGE;
    return bf_hist_import_check(h, pb->index, pb->count, pb->n_index, pb->clamped);
}

static int unpack_hist(const Bf__Hist *pb, bf_hist_t *h)
{
    if (pb == NULL || h == NULL)
        return BF_OK;
    return bf_hist_import_add(h, pb->index, pb->count, pb->n_index, pb->clamped);
}

int bf_sample_unpack_add(const Bf__Sample *s, bf_counters_t *c, bf_hist_t *svc, bf_hist_t *lat)
{
    for (size_t i = 0; i < bf_counter_nfields; i++) {
        const bf_counter_field_t *f = &bf_counter_fields[i];
        const char *src = (const char *)s + f->sample_off;
        *(uint64_t *)((char *)c + f->counters_off) +=
            f->sample_u32 ? *(const uint32_t *)src : *(const uint64_t *)src;
    }
    for (size_t i = 0; i < s->n_req_http_error; i++) {
        const Bf__StatusCount *sc = s->req_http_error[i];
        uint32_t st = sc->status < BF_HTTP_STATUS_MAX ? sc->status : 0;
        c->http_status[st] += sc->count;
    }
    /* both histograms are checked before either is added (a sample is taken whole or its
     * histograms not at all; found by tests/fuzz/fuzz_sample.c) */
    int rc = check_hist(s->service_time, svc);
    if (rc == BF_OK)
        rc = check_hist(s->latency, lat);
    if (rc == BF_OK)
        rc = unpack_hist(s->service_time, svc);
    if (rc == BF_OK)
        rc = unpack_hist(s->latency, lat);
    return rc;
}

/* ---- the error table as Sample.doc_errors (bf_errtypes.h) ----------------------------------- */

void bf_sample_pack_errtypes(const bf_errtypes_t *t, Bf__ErrorCount ***out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (t->n == 0)
        return;
    Bf__ErrorCount **arr = bf_calloc(t->n, sizeof *arr);
    for (uint32_t i = 0; i < t->n; i++) {
        Bf__ErrorCount *e = bf_malloc(sizeof *e);
        bf__error_count__init(e);
        e->type = (char *)t->e[i].type;
        e->reason = (char *)t->e[i].reason;
        e->count = t->e[i].docs;
        arr[i] = e;
    }
    *out = arr;
    *n_out = t->n;
}

void bf_sample_pack_errtypes_cleanup(Bf__ErrorCount ***arr, size_t *n)
{
    for (size_t i = 0; *arr != NULL && i < *n; i++)
        free((*arr)[i]);
    free(*arr);
    *arr = NULL;
    *n = 0;
}

void bf_sample_unpack_errtypes_add(bf_errtypes_t *t, Bf__ErrorCount *const *arr, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (arr[i] != NULL)
            bf_errtypes_add(t, arr[i]->type ? arr[i]->type : "", arr[i]->reason, arr[i]->count);
}
