/* bf_sample.c — counters and their protobuf form. */
#include "bf_sample.h"

#include "bf_error.h"
#include "bf_mem.h"

#include <stdlib.h>
#include <string.h>

void bf_counters_add(bf_counters_t *dst, const bf_counters_t *src)
{
    /* every field is a uint64_t: add them as an array */
    uint64_t *d = (uint64_t *)dst;
    const uint64_t *s = (const uint64_t *)src;
    for (size_t i = 0; i < sizeof *dst / sizeof(uint64_t); i++)
        d[i] += s[i];
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
    s->docs_sent = c->docs_sent;
    s->docs_ok = c->docs_ok;
    s->docs_rejected = c->docs_rejected;
    s->docs_conflict = c->docs_conflict;
    s->docs_mapping = c->docs_mapping;
    s->docs_failed_4xx = c->docs_failed_4xx;
    s->docs_failed_5xx = c->docs_failed_5xx;
    s->docs_unknown = c->docs_unknown;
    s->docs_retried = c->docs_retried;
    s->req_ok = c->req_ok;
    s->req_partial = c->req_partial;
    s->req_connect_error = c->req_connect_error;
    s->req_timeout = c->req_timeout;
    s->req_reset = c->req_reset;
    s->req_bad_response = c->req_bad_response;
    s->bytes_payload = c->bytes_payload;
    s->bytes_wire = c->bytes_wire;
    s->inflight = (uint32_t)c->inflight;
    s->cpu_user_ms = c->cpu_user_ms;
    s->cpu_sys_ms = c->cpu_sys_ms;
    s->processing_us = c->processing_us;
    s->conn_wait = c->conn_wait;
    s->rate_behind = c->rate_behind;
    s->connections_opened = c->connections_opened;
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

static int unpack_hist(const Bf__Hist *pb, bf_hist_t *h)
{
    if (pb == NULL || h == NULL)
        return BF_OK;
    if (pb->n_index != pb->n_count)
        return BF_E_RANGE;
    return bf_hist_import_add(h, pb->index, pb->count, pb->n_index, pb->clamped);
}

int bf_sample_unpack_add(const Bf__Sample *s, bf_counters_t *c, bf_hist_t *svc, bf_hist_t *lat)
{
    c->docs_sent += s->docs_sent;
    c->docs_ok += s->docs_ok;
    c->docs_rejected += s->docs_rejected;
    c->docs_conflict += s->docs_conflict;
    c->docs_mapping += s->docs_mapping;
    c->docs_failed_4xx += s->docs_failed_4xx;
    c->docs_failed_5xx += s->docs_failed_5xx;
    c->docs_unknown += s->docs_unknown;
    c->docs_retried += s->docs_retried;
    c->req_ok += s->req_ok;
    c->req_partial += s->req_partial;
    c->req_connect_error += s->req_connect_error;
    c->req_timeout += s->req_timeout;
    c->req_reset += s->req_reset;
    c->req_bad_response += s->req_bad_response;
    c->bytes_payload += s->bytes_payload;
    c->bytes_wire += s->bytes_wire;
    c->inflight += s->inflight;
    c->cpu_user_ms += s->cpu_user_ms;
    c->cpu_sys_ms += s->cpu_sys_ms;
    c->processing_us += s->processing_us;
    c->conn_wait += s->conn_wait;
    c->rate_behind += s->rate_behind;
    c->connections_opened += s->connections_opened;
    for (size_t i = 0; i < s->n_req_http_error; i++) {
        const Bf__StatusCount *sc = s->req_http_error[i];
        uint32_t st = sc->status < BF_HTTP_STATUS_MAX ? sc->status : 0;
        c->http_status[st] += sc->count;
    }
    int rc = unpack_hist(s->service_time, svc);
    if (rc == BF_OK)
        rc = unpack_hist(s->latency, lat);
    return rc;
}
