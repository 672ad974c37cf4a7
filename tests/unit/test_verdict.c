/* SPDX-License-Identifier: MIT */
/* test_verdict.c — unit tests for bf_verdict: every row of the verdict table (bf_verdict.h),
 * the transport outcome of every libcurl result the worker can see, the error-body shapes and
 * the scenario key each fatal message names. */
#include "bf_verdict.h"

#include <curl/curl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#define N 100 /* documents per request in the table */

typedef struct row {
    const char *name;
    /* facts */
    enum bf_xfer xfer;
    long status;
    int parsed;
    bf_bulk_counts_t items;
    const char *item_type;
    int one_type;
    const char *error_type;
    int retry_left;
    /* expected verdict */
    enum bf_req req;
    int sent;
    bf_bulk_counts_t docs;
    uint64_t unknown, retry;
    enum bf_next next;
    enum bf_fatal fatal;
    enum bf_warn warn;
    int latency;
} row_t;

#define C(ok, rej, conf, map, f4, f5) {ok, rej, conf, map, f4, f5}
#define NONE C(0, 0, 0, 0, 0, 0)

static const row_t table[] = {
    /* transport */
    {"not sent: resend after back-off, nothing counted", BF_XFER_NOT_SENT, 0, 0, NONE, "", 0, "",
     1, BF_REQ_CONNECT, 0, NONE, 0, 0, BF_NEXT_RESEND, BF_FATAL_NONE, BF_WARN_CONNECT, 0},
    {"not sent, no retry policy: still resent (nothing left)", BF_XFER_NOT_SENT, 0, 0, NONE, "",
     0, "", 0, BF_REQ_CONNECT, 0, NONE, 0, 0, BF_NEXT_RESEND, BF_FATAL_NONE, BF_WARN_CONNECT, 0},
    {"TLS certificate refused: fail", BF_XFER_TLS_CONFIG, 0, 0, NONE, "", 0, "", 1,
     BF_REQ_CONNECT, 0, NONE, 0, 0, BF_NEXT_DONE, BF_FATAL_TLS, BF_WARN_NONE, 0},
    {"timeout after writing: unknown, never resent", BF_XFER_TIMEOUT, 0, 0, NONE, "", 0, "", 1,
     BF_REQ_TIMEOUT, 1, NONE, N, 0, BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_TIMEOUT, 1},
    {"reset after writing: unknown, never resent", BF_XFER_RESET, 0, 0, NONE, "", 0, "", 1,
     BF_REQ_RESET, 1, NONE, N, 0, BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_RESET, 1},
    {"unreadable answer: bad response, unknown", BF_XFER_BAD, 0, 0, NONE, "", 0, "", 1, BF_REQ_BAD,
     1, NONE, N, 0, BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_BAD_RESPONSE, 1},
    {"not HTTP (TLS port): unknown, fail", BF_XFER_NOT_HTTP, 0, 0, NONE, "", 0, "", 1, BF_REQ_BAD,
     1, NONE, N, 0, BF_NEXT_DONE, BF_FATAL_NOT_HTTP, BF_WARN_NONE, 1},
    /* 2xx */
    {"2xx not a bulk response: unknown", BF_XFER_RESPONSE, 200, 0, NONE, "", 0, "", 1, BF_REQ_BAD,
     1, NONE, N, 0, BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_BAD_RESPONSE, 1},
    {"2xx all ok", BF_XFER_RESPONSE, 200, 1, C(N, 0, 0, 0, 0, 0), "", 1, "", 1, BF_REQ_OK, 1,
     C(N, 0, 0, 0, 0, 0), 0, 0, BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_NONE, 1},
    {"201 all ok", BF_XFER_RESPONSE, 201, 1, C(N, 0, 0, 0, 0, 0), "", 1, "", 0, BF_REQ_OK, 1,
     C(N, 0, 0, 0, 0, 0), 0, 0, BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_NONE, 1},
    {"2xx mixed classes, no retry", BF_XFER_RESPONSE, 200, 1, C(60, 10, 10, 10, 5, 5),
     "es_rejected_execution_exception", 0, "", 0, BF_REQ_PARTIAL, 1, C(60, 10, 10, 10, 5, 5), 0,
     0, BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_ITEMS, 1},
    {"2xx 429 items with a retry left: only they again", BF_XFER_RESPONSE, 200, 1,
     C(80, 15, 0, 5, 0, 0), "es_rejected_execution_exception", 0, "", 1, BF_REQ_PARTIAL, 1,
     C(80, 0, 0, 5, 0, 0), 0, 15, BF_NEXT_RETRY_ITEMS, BF_FATAL_NONE, BF_WARN_ITEMS, 1},
    {"2xx every item 429: rejections are load, not configuration", BF_XFER_RESPONSE, 200, 1,
     C(0, N, 0, 0, 0, 0), "rejected_execution_exception", 1, "", 0, BF_REQ_PARTIAL, 1,
     C(0, N, 0, 0, 0, 0), 0, 0, BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_ITEMS, 1},
    {"2xx every item 409: conflicts are a workload's business", BF_XFER_RESPONSE, 200, 1,
     C(0, 0, N, 0, 0, 0), "version_conflict_engine_exception", 1, "", 0, BF_REQ_PARTIAL, 1,
     C(0, 0, N, 0, 0, 0), 0, 0, BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_ITEMS, 1},
    {"2xx an item blocked: fail", BF_XFER_RESPONSE, 200, 1, C(90, 0, 0, 0, 10, 0),
     "cluster_block_exception", 1, "", 0, BF_REQ_PARTIAL, 1, C(90, 0, 0, 0, 10, 0), 0, 0,
     BF_NEXT_DONE, BF_FATAL_BLOCK, BF_WARN_ITEMS, 1},
    {"2xx every item index_not_found: fail", BF_XFER_RESPONSE, 200, 1, C(0, 0, 0, 0, N, 0),
     "index_not_found_exception", 1, "", 0, BF_REQ_PARTIAL, 1, C(0, 0, 0, 0, N, 0), 0, 0,
     BF_NEXT_DONE, BF_FATAL_ITEMS, BF_WARN_ITEMS, 1},
    {"2xx every item routing_missing: fail", BF_XFER_RESPONSE, 200, 1, C(0, 0, 0, N, 0, 0),
     "routing_missing_exception", 1, "", 1, BF_REQ_PARTIAL, 1, C(0, 0, 0, N, 0, 0), 0, 0,
     BF_NEXT_DONE, BF_FATAL_ITEMS, BF_WARN_ITEMS, 1},
    {"2xx every item strict mapping: fail", BF_XFER_RESPONSE, 200, 1, C(0, 0, 0, N, 0, 0),
     "strict_dynamic_mapping_exception", 1, "", 0, BF_REQ_PARTIAL, 1, C(0, 0, 0, N, 0, 0), 0, 0,
     BF_NEXT_DONE, BF_FATAL_ITEMS, BF_WARN_ITEMS, 1},
    {"2xx every item mapper_parsing: fail", BF_XFER_RESPONSE, 200, 1, C(0, 0, 0, N, 0, 0),
     "mapper_parsing_exception", 1, "", 0, BF_REQ_PARTIAL, 1, C(0, 0, 0, N, 0, 0), 0, 0,
     BF_NEXT_DONE, BF_FATAL_ITEMS, BF_WARN_ITEMS, 1},
    {"2xx every item failed, two error types: counted, not fatal", BF_XFER_RESPONSE, 200, 1,
     C(0, 0, 0, N, 0, 0), "mapper_parsing_exception", 0, "", 0, BF_REQ_PARTIAL, 1,
     C(0, 0, 0, N, 0, 0), 0, 0, BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_ITEMS, 1},
    {"2xx some items mapping, some ok: counted, not fatal", BF_XFER_RESPONSE, 200, 1,
     C(1, 0, 0, N - 1, 0, 0), "mapper_parsing_exception", 1, "", 0, BF_REQ_PARTIAL, 1,
     C(1, 0, 0, N - 1, 0, 0), 0, 0, BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_ITEMS, 1},
    {"2xx every item 5xx of one type: load, not fatal", BF_XFER_RESPONSE, 200, 1,
     C(0, 0, 0, 0, 0, N), "unavailable_shards_exception", 1, "", 0, BF_REQ_PARTIAL, 1,
     C(0, 0, 0, 0, 0, N), 0, 0, BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_ITEMS, 1},
    /* non-2xx */
    {"401: fail", BF_XFER_RESPONSE, 401, 0, NONE, "", 0, "security_exception", 1,
     BF_REQ_HTTP_ERROR, 1, C(0, 0, 0, 0, N, 0), 0, 0, BF_NEXT_DONE, BF_FATAL_AUTH, BF_WARN_HTTP, 1},
    {"403: fail", BF_XFER_RESPONSE, 403, 0, NONE, "", 0, "security_exception", 1,
     BF_REQ_HTTP_ERROR, 1, C(0, 0, 0, 0, N, 0), 0, 0, BF_NEXT_DONE, BF_FATAL_AUTH, BF_WARN_HTTP, 1},
    {"404: fail", BF_XFER_RESPONSE, 404, 0, NONE, "", 0, "index_not_found_exception", 1,
     BF_REQ_HTTP_ERROR, 1, C(0, 0, 0, 0, N, 0), 0, 0, BF_NEXT_DONE, BF_FATAL_NOT_FOUND,
     BF_WARN_HTTP, 1},
    {"413: fail", BF_XFER_RESPONSE, 413, 0, NONE, "", 0, "", 1, BF_REQ_HTTP_ERROR, 1,
     C(0, 0, 0, 0, N, 0), 0, 0, BF_NEXT_DONE, BF_FATAL_TOO_LARGE, BF_WARN_HTTP, 1},
    {"400 whole request: fail", BF_XFER_RESPONSE, 400, 0, NONE, "", 0, "illegal_argument_exception",
     1, BF_REQ_HTTP_ERROR, 1, C(0, 0, 0, 0, N, 0), 0, 0, BF_NEXT_DONE, BF_FATAL_BAD_REQUEST,
     BF_WARN_HTTP, 1},
    {"406: fail", BF_XFER_RESPONSE, 406, 0, NONE, "", 0, "", 1, BF_REQ_HTTP_ERROR, 1,
     C(0, 0, 0, 0, N, 0), 0, 0, BF_NEXT_DONE, BF_FATAL_MEDIA_TYPE, BF_WARN_HTTP, 1},
    {"411: fail", BF_XFER_RESPONSE, 411, 0, NONE, "", 0, "", 1, BF_REQ_HTTP_ERROR, 1,
     C(0, 0, 0, 0, N, 0), 0, 0, BF_NEXT_DONE, BF_FATAL_LENGTH, BF_WARN_HTTP, 1},
    {"other 4xx (405): failed, not fatal", BF_XFER_RESPONSE, 405, 0, NONE, "", 0, "", 1,
     BF_REQ_HTTP_ERROR, 1, C(0, 0, 0, 0, N, 0), 0, 0, BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_HTTP, 1},
    {"cluster_block_exception 403: fail as a block", BF_XFER_RESPONSE, 403, 0, NONE, "", 0,
     "cluster_block_exception", 1, BF_REQ_HTTP_ERROR, 1, C(0, 0, 0, 0, N, 0), 0, 0, BF_NEXT_DONE,
     BF_FATAL_BLOCK, BF_WARN_HTTP, 1},
    {"cluster_block_exception 429: a block, not a rejection", BF_XFER_RESPONSE, 429, 0, NONE, "",
     0, "cluster_block_exception", 1, BF_REQ_HTTP_ERROR, 1, C(0, 0, 0, 0, N, 0), 0, 0,
     BF_NEXT_DONE, BF_FATAL_BLOCK, BF_WARN_HTTP, 1},
    {"429 with a retry left: all again", BF_XFER_RESPONSE, 429, 0, NONE, "", 0,
     "rejected_execution_exception", 1, BF_REQ_HTTP_ERROR, 1, NONE, 0, N, BF_NEXT_RETRY_WHOLE,
     BF_FATAL_NONE, BF_WARN_HTTP, 1},
    {"429 no retry left: rejected", BF_XFER_RESPONSE, 429, 0, NONE, "", 0,
     "rejected_execution_exception", 0, BF_REQ_HTTP_ERROR, 1, C(0, N, 0, 0, 0, 0), 0, 0,
     BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_HTTP, 1},
    {"429 transient circuit breaker: retried", BF_XFER_RESPONSE, 429, 0, NONE, "", 0,
     "circuit_breaking_exception", 1, BF_REQ_HTTP_ERROR, 1, NONE, 0, N, BF_NEXT_RETRY_WHOLE,
     BF_FATAL_NONE, BF_WARN_HTTP, 1},
    {"429 permanent circuit breaker: rejected, never retried", BF_XFER_RESPONSE, 429, 0, NONE, "",
     0, "circuit_breaking_exception/PERMANENT", 1, BF_REQ_HTTP_ERROR, 1, C(0, N, 0, 0, 0, 0), 0,
     0, BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_HTTP, 1},
    {"502 from a proxy: unknown", BF_XFER_RESPONSE, 502, 0, NONE, "", 0, "", 1, BF_REQ_HTTP_ERROR,
     1, NONE, N, 0, BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_HTTP, 1},
    {"504 from a proxy: unknown", BF_XFER_RESPONSE, 504, 0, NONE, "", 0, "", 1, BF_REQ_HTTP_ERROR,
     1, NONE, N, 0, BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_HTTP, 1},
    {"503: failed 5xx", BF_XFER_RESPONSE, 503, 0, NONE, "", 0,
     "cluster_manager_not_discovered_exception", 1, BF_REQ_HTTP_ERROR, 1, C(0, 0, 0, 0, 0, N), 0,
     0, BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_HTTP, 1},
    {"500 other: failed 5xx", BF_XFER_RESPONSE, 500, 0, NONE, "", 0, "null_pointer_exception", 1,
     BF_REQ_HTTP_ERROR, 1, C(0, 0, 0, 0, 0, N), 0, 0, BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_HTTP, 1},
    {"500 json_parse_exception: fail", BF_XFER_RESPONSE, 500, 0, NONE, "", 0,
     "json_parse_exception", 1, BF_REQ_HTTP_ERROR, 1, C(0, 0, 0, 0, 0, N), 0, 0, BF_NEXT_DONE,
     BF_FATAL_JSON_PARSE, BF_WARN_HTTP, 1},
    {"3xx: unknown", BF_XFER_RESPONSE, 302, 0, NONE, "", 0, "", 1, BF_REQ_HTTP_ERROR, 1, NONE, N,
     0, BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_HTTP, 1},
    {"1xx: unknown", BF_XFER_RESPONSE, 100, 0, NONE, "", 0, "", 1, BF_REQ_HTTP_ERROR, 1, NONE, N,
     0, BF_NEXT_DONE, BF_FATAL_NONE, BF_WARN_HTTP, 1},
};

static uint64_t sum_docs(const bf_verdict_t *v)
{
    return v->docs.ok + v->docs.rejected + v->docs.conflict + v->docs.mapping +
           v->docs.failed_4xx + v->docs.failed_5xx + v->unknown + v->retry;
}

static void test_every_row(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const row_t *r = &table[i];
        bf_verdict_in_t in = {
            .xfer = r->xfer,
            .status = r->status,
            .ndocs = N,
            .parsed = r->parsed,
            .items = r->items,
            .item_type = r->item_type,
            .items_one_type = r->one_type,
            .error_type = r->error_type,
            .retry_left = r->retry_left,
            /* a thread that has had bulk responses: a lone bad answer (the fail-fast rules
             * are test_not_bulk_fail_fast's) */
            .bulk_seen = 1,
            .not_bulk_streak = r->parsed ? 0 : 1,
        };
        bf_verdict_t v;
        bf_verdict_judge(&in, &v);
        print_message("row %zu: %s\n", i, r->name);
        assert_int_equal(v.req, r->req);
        assert_int_equal(v.sent, r->sent);
        assert_memory_equal(&v.docs, &r->docs, sizeof v.docs);
        assert_int_equal(v.unknown, r->unknown);
        assert_int_equal(v.retry, r->retry);
        assert_int_equal(v.next, r->next);
        assert_int_equal(v.fatal, r->fatal);
        assert_int_equal(v.warn, r->warn);
        assert_int_equal(v.latency, r->latency);
        /* errors by type: every document the cluster answered with an error, none that is
         * unknown or ok */
        assert_int_equal(v.typed, r->sent ? N - v.docs.ok - v.unknown : 0);
        /* the 429 column: every rejection in this answer, the retried ones too (item 8) */
        int answered = r->xfer == BF_XFER_RESPONSE;
        int ok2xx = answered && r->status >= 200 && r->status < 300;
        assert_int_equal(v.rejections, ok2xx && r->parsed ? r->items.rejected
                                       : answered && r->status == 429 &&
                                               strcmp(r->error_type, "cluster_block_exception") != 0
                                           ? N
                                           : 0);
        if (v.next == BF_NEXT_RETRY_WHOLE || v.next == BF_NEXT_RETRY_ITEMS)
            assert_int_equal(v.rejections, v.retry); /* retried, and still counted */
        /* every document sent ends in exactly one verdict (or is sent again) */
        assert_int_equal(sum_docs(&v), r->sent ? N : 0);
        /* unknown documents say where they came from (counts at the stop, notes2/fa.md):
         * the transport's outcome, or an answer that leaves them unknown */
        if (v.unknown > 0) {
            enum bf_unknown_cause want = r->xfer == BF_XFER_TIMEOUT    ? BF_UNKNOWN_TIMEOUT
                                         : r->xfer == BF_XFER_RESET    ? BF_UNKNOWN_RESET
                                         : r->xfer != BF_XFER_RESPONSE ? BF_UNKNOWN_BAD
                                         : v.req == BF_REQ_BAD         ? BF_UNKNOWN_BAD
                                                                       : BF_UNKNOWN_HTTP;
            assert_int_equal(bf_verdict_unknown_cause(v.req), want);
        }
        /* nothing is re-sent unless nothing was sent or a retry policy allows it */
        if (v.next == BF_NEXT_RESEND)
            assert_int_equal(r->xfer, BF_XFER_NOT_SENT);
        if (v.next == BF_NEXT_RETRY_WHOLE || v.next == BF_NEXT_RETRY_ITEMS)
            assert_true(r->retry_left);
        /* the message says something, and for a fatal verdict names what to fix */
        char ctxmsg[1024];
        bf_verdict_ctx_t ctx = {.cell_id = "c1", .batch_size = N, .payload_bytes = 1000,
                                .wire_bytes = 300, .error_reason = "why", .first_error = "t: r",
                                .transport = "Timeout was reached", .total_s = 2.0};
        bf_verdict_describe(&in, &v, &ctx, ctxmsg, sizeof ctxmsg);
        if (v.fatal != BF_FATAL_NONE || v.warn != BF_WARN_NONE)
            assert_true(strlen(ctxmsg) > 10);
        else
            assert_string_equal(ctxmsg, "");
    }
}

/* Every row's facts with every retry_left: the transport rows never depend on it. */
static void test_transport_ignores_retry(void **state)
{
    (void)state;
    enum bf_xfer x[] = {BF_XFER_NOT_SENT, BF_XFER_TIMEOUT, BF_XFER_RESET, BF_XFER_BAD};
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++) {
        bf_verdict_in_t in = {.xfer = x[i], .status = 429, .ndocs = N, .item_type = "",
                              .error_type = "rejected_execution_exception", .retry_left = 1};
        bf_verdict_t v;
        bf_verdict_judge(&in, &v);
        assert_int_equal(v.retry, 0);
        assert_true(v.next == BF_NEXT_DONE || v.next == BF_NEXT_RESEND);
        assert_int_equal(v.docs.rejected, 0);
    }
}

typedef struct xrow {
    int cc;
    uint64_t bytes;
    enum bf_xfer want;
} xrow_t;

/* The transport outcome: decided by what was written, never by the connect time. */
static void test_xfer(void **state)
{
    (void)state;
    static const xrow_t rows[] = {
        {CURLE_OK, 500, BF_XFER_RESPONSE},
        {CURLE_COULDNT_CONNECT, 0, BF_XFER_NOT_SENT},
        /* regression: libcurl's own retry of a dead keep-alive connection (the first attempt
         * had written the body) found the gateway gone; counted as not sent, the body's
         * documents (indexed) were missing from docs_sent */
        {CURLE_COULDNT_CONNECT, 1000, BF_XFER_RESET},
        {CURLE_COULDNT_RESOLVE_HOST, 0, BF_XFER_NOT_SENT},
        {CURLE_COULDNT_RESOLVE_PROXY, 0, BF_XFER_NOT_SENT},
        {CURLE_OPERATION_TIMEDOUT, 0, BF_XFER_NOT_SENT}, /* connect timed out */
        /* regression: a timeout on a reused keep-alive connection (connect time 0) after the
         * request was written was counted as a connect error and sent again */
        {CURLE_OPERATION_TIMEDOUT, 180, BF_XFER_TIMEOUT},
        {CURLE_OPERATION_TIMEDOUT, 5000000, BF_XFER_TIMEOUT},
        {CURLE_SSL_CONNECT_ERROR, 0, BF_XFER_NOT_SENT},
        {CURLE_SSL_CONNECT_ERROR, 100, BF_XFER_BAD},
        {CURLE_PEER_FAILED_VERIFICATION, 0, BF_XFER_TLS_CONFIG},
        {CURLE_SSL_CACERT_BADFILE, 0, BF_XFER_TLS_CONFIG},
        {CURLE_SSL_CERTPROBLEM, 0, BF_XFER_TLS_CONFIG},
        {CURLE_SEND_ERROR, 0, BF_XFER_NOT_SENT},
        {CURLE_SEND_ERROR, 10, BF_XFER_RESET},
        {CURLE_RECV_ERROR, 0, BF_XFER_NOT_SENT},
        {CURLE_RECV_ERROR, 1000, BF_XFER_RESET},
        {CURLE_GOT_NOTHING, 0, BF_XFER_NOT_SENT},
        {CURLE_GOT_NOTHING, 1000, BF_XFER_RESET},
        {CURLE_PARTIAL_FILE, 1000, BF_XFER_RESET},
        /* libcurl wanted to resend the body on a fresh connection by itself; refused */
        {CURLE_SEND_FAIL_REWIND, 1000, BF_XFER_RESET},
        {CURLE_BAD_CONTENT_ENCODING, 1000, BF_XFER_BAD},
        {CURLE_TOO_MANY_REDIRECTS, 1000, BF_XFER_BAD},
        {CURLE_UNSUPPORTED_PROTOCOL, 100, BF_XFER_NOT_HTTP},
        {CURLE_WEIRD_SERVER_REPLY, 100, BF_XFER_NOT_HTTP},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        print_message("xfer row %zu: curl %d, %" PRIu64 " bytes\n", i, rows[i].cc, rows[i].bytes);
        assert_int_equal(bf_verdict_xfer(rows[i].cc, rows[i].bytes), rows[i].want);
    }
}

static void test_error_body(void **state)
{
    (void)state;
    char t[128], r[400];
    const char *s = "{\"error\":{\"type\":\"index_not_found_exception\",\"reason\":\"no such "
                    "index [x]\"},\"status\":404}";
    bf_verdict_error_body(s, strlen(s), t, sizeof t, r, sizeof r);
    assert_string_equal(t, "index_not_found_exception");
    assert_string_equal(r, "no such index [x]");
    s = "{\"error\":{\"type\":\"circuit_breaking_exception\",\"reason\":\"x\","
        "\"durability\":\"PERMANENT\"},\"status\":429}";
    bf_verdict_error_body(s, strlen(s), t, sizeof t, r, sizeof r);
    assert_string_equal(t, "circuit_breaking_exception/PERMANENT");
    s = "{\"error\":{\"type\":\"circuit_breaking_exception\",\"reason\":\"x\","
        "\"durability\":\"TRANSIENT\"},\"status\":429}";
    bf_verdict_error_body(s, strlen(s), t, sizeof t, r, sizeof r);
    assert_string_equal(t, "circuit_breaking_exception");
    s = "{\"error\":\"Incorrect HTTP method\"}";
    bf_verdict_error_body(s, strlen(s), t, sizeof t, r, sizeof r);
    assert_string_equal(t, "");
    assert_string_equal(r, "Incorrect HTTP method");
    bf_verdict_error_body("", 0, t, sizeof t, r, sizeof r);
    assert_string_equal(r, "(empty body)");
    s = "<html>\r\n<title>502 Bad Gateway</title>";
    bf_verdict_error_body(s, strlen(s), t, sizeof t, r, sizeof r);
    assert_string_equal(t, "");
    assert_string_equal(r, "<html>");
    s = "Unauthorized\x01";
    bf_verdict_error_body(s, strlen(s), t, sizeof t, r, sizeof r);
    assert_string_equal(r, "Unauthorized?");
}

/* Elasticsearch 8.17.0's whole-request 429 (its write pool full: 1 thread, queue 16), as a real
 * node answered it in elasticsearch_reject: 2,529 bytes, longer than the 2 kB the agent keeps of
 * an answer, so the agent judges it cut short. Before the fix the cut body was no JSON: type ""
 * (doc_errors said "http_429") and the reason was its first 160 raw bytes. */
#define ES8_REJ_REASON                                                                             \
    "rejected execution of TimedRunnable{original=org.elasticsearch.action.bulk."                  \
    "TransportBulkAction$1/org.elasticsearch.action.ActionListenerImplementations$"                \
    "RunBeforeActionListener/org.elasticsearch.action.ActionListenerImplementations$"              \
    "RunBeforeActionListener/org.elasticsearch.tasks.TaskManager$1{org.elasticsearch.rest.action." \
    "RestRefCountedChunkedToXContentListener@55010b37}{Task{id=798, type='transport', "            \
    "action='indices:data/write/bulk', description='requests[50], indices[bf-x]', "                \
    "parentTask=unset, startTime=1796603496079, headers={}, startTimeNanos=57400157220145}}/"      \
    "org.elasticsearch.action.support.TransportAction$$Lambda$3026/0x00007f9f5479ed90@65ea048e/"   \
    "org.elasticsearch.action.bulk.TransportAbstractBulkAction$$Lambda$3833/"                      \
    "0x00007f9f54928df0@1af8ca75, creationTimeNanos=57401221343236, startTimeNanos=0, "            \
    "finishTimeNanos=-1, failedOrRejected=false} on TaskExecutionTimeTrackingEsThreadPoolExecutor" \
    "[name = node-0/write, queue capacity = 16, task execution EWMA = 17.2ms, total task "         \
    "execution time = 5.4s, org.elasticsearch.common.util.concurrent."                             \
    "TaskExecutionTimeTrackingEsThreadPoolExecutor@21552249[Running, pool size = 1, active "       \
    "threads = 1, queued tasks = 16, completed tasks = 169]]"
static void test_error_body_cut(void **state)
{
    (void)state;
    static const char body[] =
        "{\"error\":{\"root_cause\":[{\"type\":\"es_rejected_execution_"
        "exception\",\"reason\":\"" ES8_REJ_REASON "\"}],\"type\":\"es_"
        "rejected_execution_exception\",\"reason\":\"" ES8_REJ_REASON "\"},\"status\":429}";
    char t[128], r[400];
    assert_int_equal(strlen(body), 2529);
    /* whole: jansson, error.type and error.reason */
    bf_verdict_error_body(body, strlen(body), t, sizeof t, r, sizeof r);
    assert_string_equal(t, "es_rejected_execution_exception");
    assert_int_equal(strncmp(r, "rejected execution of TimedRunnable{", 36), 0);
    /* what the agent keeps (HEAD_BYTES 2048 less the NUL): root_cause[0]'s type and reason */
    bf_verdict_error_body(body, 2047, t, sizeof t, r, sizeof r);
    assert_string_equal(t, "es_rejected_execution_exception");
    assert_int_equal(
        strncmp(r,
                "rejected execution of "
                "TimedRunnable{original=org.elasticsearch.action.bulk.TransportBulkAction$1/",
                97),
        0);
    assert_int_equal(strlen(r), sizeof r - 1); /* the reason, truncated to fit */
    /* cut inside the first reason: what there is of it, and " ..." */
    bf_verdict_error_body(body, 120, t, sizeof t, r, sizeof r);
    assert_string_equal(t, "es_rejected_execution_exception");
    assert_string_equal(r, "rejected execution of TimedRunnable{original ...");
    /* cut before the reason's value */
    bf_verdict_error_body(body, 70, t, sizeof t, r, sizeof r);
    assert_string_equal(t, "es_rejected_execution_exception");
    assert_string_equal(r, "(cut short before its reason)");
    /* cut inside the type: no type (a cut type is no type), the first bytes as the reason */
    bf_verdict_error_body(body, 50, t, sizeof t, r, sizeof r);
    assert_string_equal(t, "");
    assert_string_equal(r, "{\"error\":{\"root_cause\":[{\"type\":\"es_rejected_execu");
    /* cut inside an escape and inside a UTF-8 sequence: up to the last whole character */
    const char *s = "{\"error\":{\"type\":\"x\",\"reason\":\"a\\nb\\u00e9c\\u00";
    bf_verdict_error_body(s, strlen(s), t, sizeof t, r, sizeof r);
    assert_string_equal(t, "x");
    assert_string_equal(r, "a b\xc3\xa9"
                           "c ...");
    s = "{\"error\":{\"type\":\"x\",\"reason\":\"caf\xc3\xa9 caf\xc3";
    bf_verdict_error_body(s, strlen(s), t, sizeof t, r, sizeof r);
    assert_string_equal(r, "caf\xc3\xa9 caf ...");
}

typedef struct frow {
    enum bf_fatal fatal;
    long status;
    const char *item_type;
    const char *needle; /* the scenario key or what to do */
} frow_t;

/* Each fatal message names the scenario key (or the cluster setting) to fix. */
static void test_fatal_messages(void **state)
{
    (void)state;
    static const frow_t rows[] = {
        {BF_FATAL_AUTH, 401, "", "target.auth"},
        {BF_FATAL_NOT_FOUND, 404, "", "index.recreate"},
        {BF_FATAL_TOO_LARGE, 413, "", "batch_size"},
        {BF_FATAL_BAD_REQUEST, 400, "", "document.source"},
        {BF_FATAL_MEDIA_TYPE, 406, "", "request.media_type"},
        {BF_FATAL_LENGTH, 411, "", "proxy"},
        {BF_FATAL_JSON_PARSE, 500, "", "request.compression"},
        {BF_FATAL_BLOCK, 403, "", "flood-stage"},
        {BF_FATAL_ITEMS, 200, "index_not_found_exception", "index.recreate"},
        {BF_FATAL_ITEMS, 200, "routing_missing_exception", "document.routing"},
        {BF_FATAL_ITEMS, 200, "strict_dynamic_mapping_exception", "index.mappings"},
        {BF_FATAL_ITEMS, 200, "mapper_parsing_exception", "document.source"},
        {BF_FATAL_ITEMS, 200, "security_exception", "privilege"},
        {BF_FATAL_ITEMS, 200, "document_missing_exception", "document.update: upsert"},
        {BF_FATAL_ITEMS, 200, "illegal_argument_exception: pipeline with id [p] does not exist",
         "request.pipeline"},
        {BF_FATAL_TLS, 0, "", "target.tls.ca_file"},
        {BF_FATAL_NOT_HTTP, 0, "", "https://"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        bf_verdict_in_t in = {.xfer = BF_XFER_RESPONSE, .status = rows[i].status, .ndocs = N,
                              .item_type = rows[i].item_type, .error_type = ""};
        bf_verdict_t v = {.fatal = rows[i].fatal};
        bf_verdict_ctx_t ctx = {.cell_id = "c7", .batch_size = N, .error_reason = "",
                                .first_error = rows[i].item_type, .transport = ""};
        char msg[1024];
        bf_verdict_describe(&in, &v, &ctx, msg, sizeof msg);
        print_message("%s\n", msg);
        assert_non_null(strstr(msg, "cell c7"));
        assert_non_null(strstr(msg, rows[i].needle));
    }
}

/* A 2xx that is no bulk response: the thread's first answer of the cell fails the
 * cell at once, as does the BF_NOT_BULK_STREAK-th in a row; a rare one among bulk responses
 * stays an unknown outcome. The message says what came: status, Content-Type, size, the first
 * bytes on one line, and what to fix. */
static void test_not_bulk_fail_fast(void **state)
{
    (void)state;
    struct {
        int bulk_seen;
        uint32_t streak;
        int fatal;
    } rows[] = {
        {0, 1, 1},                      /* the very first answer: a login page, not the cluster */
        {0, 2, 1},                      /* never a bulk response (another thread's were) */
        {1, 1, 0},                      /* a rare one among bulk responses: unknown */
        {1, BF_NOT_BULK_STREAK - 1, 0}, /* still below the streak */
        {1, BF_NOT_BULK_STREAK, 1},     /* a proxy began answering for the cluster */
        {1, BF_NOT_BULK_STREAK + 5, 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        bf_verdict_in_t in = {.xfer = BF_XFER_RESPONSE,
                              .status = 200,
                              .ndocs = N,
                              .parsed = 0,
                              .item_type = "",
                              .error_type = "",
                              .retry_left = 1,
                              .bulk_seen = rows[i].bulk_seen,
                              .not_bulk_streak = rows[i].streak};
        bf_verdict_t v;
        bf_verdict_judge(&in, &v);
        print_message("not-bulk row %zu: seen %d streak %u\n", i, rows[i].bulk_seen,
                      rows[i].streak);
        assert_int_equal(v.req, BF_REQ_BAD);
        assert_int_equal(v.unknown, N); /* counted unknown either way: nothing is lost */
        assert_int_equal(v.fatal, rows[i].fatal ? BF_FATAL_NOT_BULK : BF_FATAL_NONE);
        assert_int_equal(v.next, BF_NEXT_DONE);
    }
    /* a parsed bulk response never trips it, whatever came before */
    bf_verdict_in_t ok = {.xfer = BF_XFER_RESPONSE,
                          .status = 200,
                          .ndocs = N,
                          .parsed = 1,
                          .items = C(N, 0, 0, 0, 0, 0),
                          .item_type = "",
                          .items_one_type = 1,
                          .error_type = "",
                          .bulk_seen = 0,
                          .not_bulk_streak = 0};
    bf_verdict_t v;
    bf_verdict_judge(&ok, &v);
    assert_int_equal(v.fatal, BF_FATAL_NONE);

    const char page[] = "<!DOCTYPE html>\r\n<html><head><title>Sign in \xe2\x80\x94 \"proxy\""
                        "</title></head>\n\n<body>";
    bf_verdict_in_t in = {.xfer = BF_XFER_RESPONSE,
                          .status = 200,
                          .ndocs = N,
                          .item_type = "",
                          .error_type = "",
                          .not_bulk_streak = 1};
    bf_verdict_judge(&in, &v);
    bf_verdict_ctx_t ctx = {.cell_id = "c9",
                            .batch_size = N,
                            .error_reason = "",
                            .first_error = "not a bulk response: not JSON at byte 0",
                            .transport = "",
                            .content_type = "text/html; charset=utf-8",
                            .head = page,
                            .head_len = sizeof page - 1,
                            .body_bytes = 5120};
    char msg[1024];
    bf_verdict_describe(&in, &v, &ctx, msg, sizeof msg);
    print_message("%s\n", msg);
    assert_non_null(strstr(msg, "cell c9: _bulk answered HTTP 200"));
    assert_non_null(strstr(msg, "Content-Type text/html; charset=utf-8"));
    assert_non_null(strstr(msg, "5120 bytes"));
    /* one line: CR LF and the blank line became single spaces, '"' became '\'', UTF-8 '?' */
    assert_non_null(strstr(msg, "first bytes \"<!DOCTYPE html> <html><head><title>Sign in ??? "
                                "'proxy'</title></head> <body>\""));
    assert_non_null(strstr(msg, "not JSON at byte 0"));
    assert_non_null(strstr(msg, "target.hosts"));
    assert_null(strchr(msg, '\n'));
    /* no Content-Type at all, after bulk responses */
    in.bulk_seen = 1;
    in.not_bulk_streak = BF_NOT_BULK_STREAK;
    ctx.content_type = "";
    bf_verdict_describe(&in, &v, &ctx, msg, sizeof msg);
    assert_non_null(strstr(msg, "Content-Type (none)"));
    assert_non_null(strstr(msg, "several times in a row"));
}

/* the hint follows the error type, for every type the verdict module knows.
 * subject: what the hint must name; mapping: whether it may speak of index.mappings (only
 * mapping and parsing errors). An item-level 403 security_exception was told "fix
 * document.source, document.action or index.mappings". The 406 hint named request.headers,
 * which cannot set Content-Type: it names request.media_type, a key that exists. */
static void test_items_hint_by_type(void **state)
{
    (void)state;
    static const struct {
        const char *type, *subject;
        int mapping;
    } rows[] = {
        {"index_not_found_exception", "index.recreate", 0},
        {"routing_missing_exception", "document.routing", 0},
        {"strict_dynamic_mapping_exception", "index.mappings", 1},
        {"mapper_parsing_exception", "index.mappings", 1},
        {"document_parsing_exception", "index.mappings", 1},
        {"mapper_exception", "index.mappings", 1},
        {"type_missing_exception", "index.mappings", 1},
        {"illegal_argument_exception", "document.id", 0},
        {"action_request_validation_exception", "document.action", 0},
        {"invalid_index_name_exception", "index.name", 0},
        {"document_missing_exception", "document.update: upsert", 0},
        {"security_exception", "privilege", 0},
    };
    size_t n = sizeof rows / sizeof rows[0];
    assert_int_equal(bf_verdict_config_type_count(), n); /* a new type needs its row here */
    for (size_t i = 0; i < bf_verdict_config_type_count(); i++) {
        const char *type = bf_verdict_config_type(i);
        size_t k = 0;
        while (k < n && strcmp(rows[k].type, type) != 0)
            k++;
        assert_true(k < n);
        char first[200];
        snprintf(first, sizeof first, "%s: something", type);
        const char *hint = bf_verdict_items_hint(type, first);
        print_message("%s: %s\n", type, hint);
        assert_non_null(strstr(hint, rows[k].subject));
        assert_true((strstr(hint, "index.mappings") != NULL) == rows[k].mapping);
        if (strcmp(type, "security_exception") == 0) /* privileges, never the documents */
            assert_null(strstr(hint, "document."));
        /* the verdict fails the cell on it when every item failed with it */
        bf_verdict_in_t in = {.xfer = BF_XFER_RESPONSE,
                              .status = 200,
                              .ndocs = N,
                              .parsed = 1,
                              .items_one_type = 1,
                              .item_type = type,
                              .error_type = ""};
        in.items.failed_4xx = N;
        bf_verdict_t v;
        bf_verdict_judge(&in, &v);
        assert_int_equal(v.fatal, BF_FATAL_ITEMS);
    }
    assert_null(bf_verdict_config_type(n));
    /* a security_exception that names a pipeline is still about privileges */
    assert_non_null(strstr(bf_verdict_items_hint("security_exception",
                                                 "security_exception: action [indices:data/"
                                                 "write/bulk[s]] is unauthorized for user [u] "
                                                 "with roles [pipeline_reader]"),
                           "privilege"));
    /* a pipeline's failure names the pipeline, whatever its type */
    assert_non_null(strstr(bf_verdict_items_hint("illegal_argument_exception",
                                                 "illegal_argument_exception: pipeline with "
                                                 "id [p] does not exist"),
                           "request.pipeline"));
    /* a type the module does not know: the documents, no mapping advice */
    const char *other = bf_verdict_items_hint("some_new_exception", "some_new_exception: x");
    assert_non_null(strstr(other, "document.source"));
    assert_null(strstr(other, "index.mappings"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_row),
        cmocka_unit_test(test_transport_ignores_retry),
        cmocka_unit_test(test_xfer),
        cmocka_unit_test(test_error_body),
        cmocka_unit_test(test_error_body_cut),
        cmocka_unit_test(test_fatal_messages),
        cmocka_unit_test(test_not_bulk_fail_fast),
        cmocka_unit_test(test_items_hint_by_type),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
