/* SPDX-License-Identifier: MIT */
/* bf_qstats.c — a named query's per-second counters: merging, answers, wire form. */
#include "bf_qstats.h"

#include "bf_error.h"
#include "bf_mem.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bf_qstats_init(bf_qstats_t *q)
{
    memset(q, 0, sizeof *q);
    q->svc = bf_hist_new();
    q->lat = bf_hist_new();
}

void bf_qprofile_clear(bf_qprofile_t *p)
{
    free(p->answer);
    memset(p, 0, sizeof *p);
}

void bf_qprofile_keep_slower(bf_qprofile_t *dst, const bf_qprofile_t *src)
{
    if (!src->set || (dst->set && dst->service_ms >= src->service_ms))
        return;
    bf_qprofile_clear(dst);
    *dst = *src;
    dst->answer = src->answer ? bf_strdup(src->answer) : NULL;
}

static double nanos_ms(json_t *v)
{
    return json_is_integer(v) ? (double)json_integer_value(v) / 1e6 : 0;
}

int bf_qstats_profile_parse(const char *body, size_t len, uint64_t service_us, bf_qprofile_t *p)
{
    memset(p, 0, sizeof *p);
    json_t *j = body && len ? json_loadb(body, len, 0, NULL) : NULL;
    json_t *shards = json_object_get(json_object_get(j, "profile"), "shards");
    if (!json_is_array(shards)) {
        json_decref(j);
        return BF_E_PARSE;
    }
    double best = -1;
    size_t i;
    json_t *sh;
    json_array_foreach(shards, i, sh)
    {
        double q = 0, c = 0, r = 0, f = 0;
        size_t k;
        json_t *se;
        json_array_foreach(json_object_get(sh, "searches"), k, se)
        {
            size_t m;
            json_t *node;
            json_array_foreach(json_object_get(se, "query"), m, node) q +=
                nanos_ms(json_object_get(node, "time_in_nanos"));
            json_array_foreach(json_object_get(se, "collector"), m, node) c +=
                nanos_ms(json_object_get(node, "time_in_nanos"));
            r += nanos_ms(json_object_get(se, "rewrite_time"));
        }
        f = nanos_ms(json_object_get(json_object_get(sh, "fetch"), "time_in_nanos"));
        if (q + c + r + f > best) {
            best = q + c + r + f;
            p->query_ms = q;
            p->collectors_ms = c;
            p->rewrite_ms = r;
            p->fetch_ms = f;
            const char *id = json_string_value(json_object_get(sh, "id"));
            snprintf(p->shard, sizeof p->shard, "%s", id ? id : "");
        }
    }
    p->shards = (uint32_t)json_array_size(shards);
    p->service_ms = (double)service_us / 1000.0;
    p->rest_ms = p->service_ms - (best > 0 ? best : 0);
    if (p->rest_ms < 0)
        p->rest_ms = 0;
    if (len <= BF_MAX_PROFILE_BYTES) {
        p->answer = bf_strndup(body, len);
        p->answer_len = len;
    }
    p->set = 1;
    json_decref(j);
    return BF_OK;
}

void bf_qstats_cleanup(bf_qstats_t *q)
{
    bf_qprofile_clear(&q->prof);
    bf_hist_destroy(&q->svc);
    bf_hist_destroy(&q->lat);
}

void bf_qstats_reset(bf_qstats_t *q)
{
    bf_qprofile_clear(&q->prof);
    bf_hist_t *svc = q->svc, *lat = q->lat;
    memset(q, 0, sizeof *q);
    q->svc = svc;
    q->lat = lat;
    if (svc)
        bf_hist_reset(svc);
    if (lat)
        bf_hist_reset(lat);
}

int bf_qstats_empty(const bf_qstats_t *q)
{
    return q->started == 0 && q->ops_sent == 0 && q->ops_ok == 0 && q->ops_error == 0 &&
           (q->svc == NULL || bf_hist_count(q->svc) == 0);
}

static void add_type(bf_qstats_t *q, const char *type, uint64_t n)
{
    char t[BF_QERR_TYPE_LEN];
    snprintf(t, sizeof t, "%s", type && type[0] ? type : "unknown");
    for (unsigned i = 0; i < BF_QERR_TYPES; i++) {
        if (q->err_type[i][0] == '\0') {
            memcpy(q->err_type[i], t, sizeof t);
            q->err_count[i] = n;
            return;
        }
        if (strcmp(q->err_type[i], t) == 0) {
            q->err_count[i] += n;
            return;
        }
    }
    /* full: the last slot becomes "other" */
    snprintf(q->err_type[BF_QERR_TYPES - 1], BF_QERR_TYPE_LEN, "other");
    q->err_count[BF_QERR_TYPES - 1] += n;
}

void bf_qstats_error(bf_qstats_t *q, const char *type, uint64_t n)
{
    q->ops_error += n;
    add_type(q, type, n);
}

void bf_qstats_add(bf_qstats_t *dst, const bf_qstats_t *src)
{
    dst->started += src->started;
    dst->ops_sent += src->ops_sent;
    dst->ops_ok += src->ops_ok;
    dst->ops_error += src->ops_error;
    dst->timed_out += src->timed_out;
    dst->shard_failures += src->shard_failures;
    dst->hits += src->hits;
    dst->took_ms += src->took_ms;
    dst->took_count += src->took_count;
    for (unsigned i = 0; i < BF_QERR_TYPES; i++)
        if (src->err_type[i][0])
            add_type(dst, src->err_type[i], src->err_count[i]);
    bf_qprofile_keep_slower(&dst->prof, &src->prof);
    if (dst->svc && src->svc)
        bf_hist_add(dst->svc, src->svc);
    if (dst->lat && src->lat)
        bf_hist_add(dst->lat, src->lat);
}

static uint64_t u64_of(json_t *v)
{
    if (json_is_integer(v) && json_integer_value(v) > 0)
        return (uint64_t)json_integer_value(v);
    return 0;
}

/* hits.total is {"value": N, "relation": ...} (7.x and later, OpenSearch) or a number (6.x) */
static void one_response(json_t *o, bf_qanswer_t *a)
{
    json_t *took = json_object_get(o, "took");
    if (json_is_integer(took)) {
        a->took_ms += u64_of(took);
        a->has_took = 1;
    }
    if (json_is_true(json_object_get(o, "timed_out")))
        a->timed_out = 1;
    a->shard_failures += u64_of(json_object_get(json_object_get(o, "_shards"), "failed"));
    json_t *hits = json_object_get(o, "hits");
    json_t *total = json_object_get(hits, "total");
    if (json_is_object(total))
        a->hits += u64_of(json_object_get(total, "value"));
    else if (json_is_integer(total))
        a->hits += u64_of(total);
    else if (json_is_integer(json_object_get(o, "count")))
        a->hits += u64_of(json_object_get(o, "count"));
    else if (json_is_array(json_object_get(hits, "hits"))) /* track_total_hits: false */
        a->hits += json_array_size(json_object_get(hits, "hits"));
}

void bf_qstats_parse_answer(const char *body, size_t len, bf_qanswer_t *a)
{
    memset(a, 0, sizeof *a);
    json_error_t je;
    json_t *j = body && len ? json_loadb(body, len, 0, &je) : NULL;
    if (!json_is_object(j)) {
        json_decref(j);
        return;
    }
    a->json_ok = 1;
    json_t *err = json_object_get(j, "error");
    if (json_is_object(err)) {
        /* the root cause names the query's own mistake (parsing_exception inside
         * search_phase_execution_exception) */
        json_t *rc = json_array_get(json_object_get(err, "root_cause"), 0);
        json_t *src = json_is_object(rc) ? rc : err;
        const char *t = json_string_value(json_object_get(src, "type"));
        const char *r = json_string_value(json_object_get(src, "reason"));
        snprintf(a->error_type, sizeof a->error_type, "%s", t ? t : "");
        snprintf(a->error_reason, sizeof a->error_reason, "%s", r ? r : "");
    } else if (json_is_string(err)) {
        snprintf(a->error_reason, sizeof a->error_reason, "%s", json_string_value(err));
    }
    json_t *resp = json_object_get(j, "responses");
    if (json_is_array(resp)) {
        size_t i;
        json_t *r;
        json_array_foreach(resp, i, r)
        {
            if (!json_is_object(r))
                continue;
            if (json_object_get(r, "error"))
                a->shard_failures++;
            one_response(r, a);
        }
    } else {
        one_response(j, a);
    }
    json_decref(j);
}

/* An error type into a fixed table of BF_QERR_TYPES slots, the last becoming "other" when full
 * (as add_type for bf_qstats_t). */
static void items_add_type(bf_qitems_t *it, const char *type)
{
    char t[BF_QERR_TYPE_LEN];
    snprintf(t, sizeof t, "%s", type && type[0] ? type : "unknown");
    for (unsigned i = 0; i < BF_QERR_TYPES; i++) {
        if (it->err_type[i][0] == '\0') {
            memcpy(it->err_type[i], t, sizeof t);
            it->err_count[i] = 1;
            return;
        }
        if (strcmp(it->err_type[i], t) == 0) {
            it->err_count[i]++;
            return;
        }
    }
    snprintf(it->err_type[BF_QERR_TYPES - 1], BF_QERR_TYPE_LEN, "other");
    it->err_count[BF_QERR_TYPES - 1]++;
}

void bf_qstats_parse_msearch(const char *body, size_t len, uint32_t searches, bf_qitems_t *it)
{
    memset(it, 0, sizeof *it);
    it->bad_item = -1;
    json_t *j = body && len ? json_loadb(body, len, 0, NULL) : NULL;
    json_t *resp = json_object_get(j, "responses");
    size_t n = json_is_array(resp) ? json_array_size(resp) : 0;
    for (uint32_t k = 0; k < searches; k++) {
        json_t *r = k < n ? json_array_get(resp, k) : NULL;
        if (!json_is_object(r)) {
            it->errors++;
            items_add_type(it, "bad_response");
            continue;
        }
        json_t *status = json_object_get(r, "status");
        long st = json_is_integer(status) ? (long)json_integer_value(status) : 200;
        json_t *err = json_object_get(r, "error");
        if (err == NULL && st >= 200 && st < 300) {
            bf_qanswer_t a;
            memset(&a, 0, sizeof a);
            one_response(r, &a);
            it->ok++;
            it->timed_out += (uint64_t)a.timed_out;
            it->shard_failures += a.shard_failures;
            it->hits += a.hits;
            if (a.has_took) {
                it->took_ms += a.took_ms;
                it->took_count++;
            }
            continue;
        }
        /* the root cause, else the innermost caused_by (a failed reduce, e.g.
         * too_many_buckets_exception inside search_phase_execution_exception, has an empty
         * root_cause list) */
        json_t *rc = json_array_get(json_object_get(err, "root_cause"), 0);
        json_t *src = json_is_object(rc) ? rc : err;
        for (int depth = 0;
             !json_is_object(rc) && depth < 16 && json_is_object(json_object_get(src, "caused_by"));
             depth++)
            src = json_object_get(src, "caused_by");
        const char *t = json_string_value(json_object_get(src, "type"));
        const char *why = json_string_value(json_object_get(src, "reason"));
        char type[BF_QERR_TYPE_LEN];
        if (t && t[0])
            snprintf(type, sizeof type, "%s", t);
        else
            snprintf(type, sizeof type, "http_%ld", st);
        it->errors++;
        items_add_type(it, type);
        if (it->bad_item < 0 && (st == 400 || st == 401 || st == 403 || st == 404 || st == 405)) {
            it->bad_item = (int32_t)k;
            it->bad_status = st;
            snprintf(it->bad_type, sizeof it->bad_type, "%s", type);
            snprintf(it->bad_reason, sizeof it->bad_reason, "%s",
                     why                   ? why
                     : json_is_string(err) ? json_string_value(err)
                                           : "");
        }
    }
    json_decref(j);
}

void bf_qstats_add_items(bf_qstats_t *q, const bf_qitems_t *it)
{
    q->ops_ok += it->ok;
    q->timed_out += it->timed_out;
    q->shard_failures += it->shard_failures;
    q->hits += it->hits;
    q->took_ms += it->took_ms;
    q->took_count += it->took_count;
    for (unsigned i = 0; i < BF_QERR_TYPES; i++)
        if (it->err_type[i][0])
            bf_qstats_error(q, it->err_type[i], it->err_count[i]);
}

static Bf__Hist *pack_hist(const bf_hist_t *h)
{
    Bf__Hist *pb = bf_malloc(sizeof *pb);
    bf__hist__init(pb);
    size_t n = h ? bf_hist_nonzero(h) : 0;
    pb->index = bf_malloc(n * sizeof *pb->index + 1);
    pb->count = bf_malloc(n * sizeof *pb->count + 1);
    pb->n_index = pb->n_count = h ? bf_hist_export(h, pb->index, pb->count, n) : 0;
    pb->clamped = h ? bf_hist_clamped(h) : 0;
    return pb;
}

void bf_qstats_pack(Bf__QueryStats *pb, uint32_t qi, const bf_qstats_t *q)
{
    bf__query_stats__init(pb);
    pb->query = qi;
    pb->started = q->started;
    pb->ops_sent = q->ops_sent;
    pb->ops_ok = q->ops_ok;
    pb->ops_error = q->ops_error;
    pb->timed_out = q->timed_out;
    pb->shard_failures = q->shard_failures;
    pb->hits = q->hits;
    pb->took_ms = q->took_ms;
    pb->took_count = q->took_count;
    if (q->prof.set) {
        Bf__ProfileSummary *ps = bf_malloc(sizeof *ps);
        bf__profile_summary__init(ps);
        ps->service_ms = q->prof.service_ms;
        ps->query_ms = q->prof.query_ms;
        ps->collectors_ms = q->prof.collectors_ms;
        ps->rewrite_ms = q->prof.rewrite_ms;
        ps->fetch_ms = q->prof.fetch_ms;
        ps->rest_ms = q->prof.rest_ms;
        ps->shards = q->prof.shards;
        ps->shard = bf_strdup(q->prof.shard);
        ps->answer.data = (uint8_t *)q->prof.answer; /* borrowed until pack_cleanup */
        ps->answer.len = q->prof.answer ? q->prof.answer_len : 0;
        pb->profile = ps;
    }
    pb->service_time = pack_hist(q->svc);
    pb->latency = pack_hist(q->lat);
    size_t n = 0;
    for (unsigned i = 0; i < BF_QERR_TYPES; i++)
        n += q->err_type[i][0] != '\0';
    pb->errors = bf_calloc(n + 1, sizeof *pb->errors);
    for (unsigned i = 0; i < BF_QERR_TYPES; i++) {
        if (q->err_type[i][0] == '\0')
            continue;
        Bf__ErrorCount *e = bf_malloc(sizeof *e);
        bf__error_count__init(e);
        e->type = bf_strdup(q->err_type[i]);
        e->count = q->err_count[i];
        pb->errors[pb->n_errors++] = e;
    }
}

static void free_hist(Bf__Hist *h)
{
    if (h == NULL)
        return;
    free(h->index);
    free(h->count);
    free(h);
}

void bf_qstats_pack_cleanup(Bf__QueryStats *pb)
{
    free_hist(pb->service_time);
    free_hist(pb->latency);
    if (pb->profile) {
        free(pb->profile->shard);
        free(pb->profile);
        pb->profile = NULL;
    }
    for (size_t i = 0; i < pb->n_errors; i++) {
        free(pb->errors[i]->type);
        free(pb->errors[i]);
    }
    free(pb->errors);
    pb->service_time = pb->latency = NULL;
    pb->errors = NULL;
    pb->n_errors = 0;
}

static int check_hist(const Bf__Hist *pb, const bf_hist_t *h)
{
    if (pb == NULL || h == NULL)
        return BF_OK;
    if (pb->n_index != pb->n_count)
        return BF_E_RANGE;
    return bf_hist_import_check(h, pb->index, pb->count, pb->n_index, pb->clamped);
}

int bf_qstats_unpack_add(const Bf__QueryStats *pb, bf_qstats_t *q)
{
    q->started += pb->started;
    q->ops_sent += pb->ops_sent;
    q->ops_ok += pb->ops_ok;
    q->timed_out += pb->timed_out;
    q->shard_failures += pb->shard_failures;
    q->hits += pb->hits;
    q->took_ms += pb->took_ms;
    q->took_count += pb->took_count;
    uint64_t typed = 0;
    for (size_t i = 0; i < pb->n_errors; i++) {
        const Bf__ErrorCount *e = pb->errors[i];
        add_type(q, e->type, e->count);
        typed += e->count;
    }
    q->ops_error += pb->ops_error;
    if (pb->ops_error > typed)
        add_type(q, "unknown", pb->ops_error - typed);
    if (pb->profile) {
        const Bf__ProfileSummary *ps = pb->profile;
        bf_qprofile_t p = {.set = 1,
                           .service_ms = ps->service_ms,
                           .query_ms = ps->query_ms,
                           .collectors_ms = ps->collectors_ms,
                           .rewrite_ms = ps->rewrite_ms,
                           .fetch_ms = ps->fetch_ms,
                           .rest_ms = ps->rest_ms,
                           .shards = ps->shards};
        snprintf(p.shard, sizeof p.shard, "%s", ps->shard ? ps->shard : "");
        if (ps->answer.len > 0 && ps->answer.len <= BF_MAX_PROFILE_BYTES) {
            p.answer = bf_strndup((const char *)ps->answer.data, ps->answer.len);
            p.answer_len = ps->answer.len;
        }
        bf_qprofile_keep_slower(&q->prof, &p);
        free(p.answer);
    }
    int rc = check_hist(pb->service_time, q->svc);
    if (rc == BF_OK)
        rc = check_hist(pb->latency, q->lat);
    if (rc != BF_OK)
        return rc;
    if (pb->service_time && q->svc)
        bf_hist_import_add(q->svc, pb->service_time->index, pb->service_time->count,
                           pb->service_time->n_index, pb->service_time->clamped);
    if (pb->latency && q->lat)
        bf_hist_import_add(q->lat, pb->latency->index, pb->latency->count, pb->latency->n_index,
                           pb->latency->clamped);
    return BF_OK;
}
