/* SPDX-License-Identifier: MIT */
/* test_bulkresp.c — unit tests for bf_bulkresp: fast path, item classes, filter_path forms,
 * malformed and truncated bodies; the incremental judge against the whole-body one for every
 * way of cutting a body into reads, and both against a jansson reference on generated
 * responses. */
#include "bf_buf.h"
#include "bf_bulkresp.h"
#include "bf_clock.h"
#include "bf_error.h"
#include "bf_mem.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <jansson.h>

#define ERRBUF 256
#define MAXCLS 20000

/* The judge fed in pieces of `step` bytes (step 0: random sizes from seed). */
static int parse_stream(const char *body, size_t len, uint32_t ndocs, size_t step, unsigned seed,
                        bf_bulk_counts_t *c, uint8_t *cls, char *err, size_t err_size)
{
    bf_bulkresp_stream_t *st = bf_malloc(sizeof *st);
    bf_bulkresp_stream_init(st, ndocs, cls);
    size_t off = 0;
    while (off < len) {
        size_t n = step ? step : 1 + (size_t)(rand_r(&seed) % 300);
        if (n > len - off)
            n = len - off;
        /* a heap copy of exactly n bytes so ASan sees any read past the piece */
        char *piece = bf_malloc(n);
        memcpy(piece, body + off, n);
        bf_bulkresp_stream_feed(st, piece, n);
        free(piece);
        off += n;
    }
    int rc = bf_bulkresp_stream_finish(st, c, err, err_size);
    free(st);
    return rc;
}

/* Every cut gives the whole-body verdict: same code, counts, classes and message. */
static void assert_cuts_agree(const char *body, size_t len, uint32_t ndocs)
{
    static uint8_t want_cls[MAXCLS], cls[MAXCLS];
    bf_bulk_counts_t want, c;
    char want_err[ERRBUF], err[ERRBUF];
    uint32_t ncls = ndocs < MAXCLS ? ndocs : 0;
    memset(want_cls, 0xEE, sizeof want_cls);
    int want_rc = bf_bulkresp_parse(body, len, ndocs, &want, ncls ? want_cls : NULL, want_err,
                                    sizeof want_err);
    const size_t steps[] = {1, 2, 3, 7, 13, 63, 64, 65, 127, 4096, 0, 0, 0};
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        if (steps[k] == 1 && len > 200000)
            continue;
        memset(cls, 0xEE, sizeof cls);
        int rc = parse_stream(body, len, ndocs, steps[k], (unsigned)k, &c, ncls ? cls : NULL, err,
                              sizeof err);
        if (rc != want_rc || memcmp(&c, &want, sizeof c) != 0 || strcmp(err, want_err) != 0 ||
            (ncls && memcmp(cls, want_cls, ncls) != 0))
            fail_msg("pieces of %zu bytes: rc %d (want %d), ok %llu (want %llu), err \"%s\" "
                     "(want \"%s\") for %.200s", steps[k], rc, want_rc,
                     (unsigned long long)c.ok, (unsigned long long)want.ok, err, want_err, body);
    }
}

static int parse(const char *body, uint32_t ndocs, bf_bulk_counts_t *c, uint8_t *cls, char *err)
{
    assert_cuts_agree(body, strlen(body), ndocs);
    return bf_bulkresp_parse(body, strlen(body), ndocs, c, cls, err, err ? ERRBUF : 0);
}

static void assert_counts(const bf_bulk_counts_t *c, uint64_t ok, uint64_t rejected,
                          uint64_t conflict, uint64_t mapping, uint64_t f4xx, uint64_t f5xx)
{
    assert_int_equal(c->ok, ok);
    assert_int_equal(c->rejected, rejected);
    assert_int_equal(c->conflict, conflict);
    assert_int_equal(c->mapping, mapping);
    assert_int_equal(c->failed_4xx, f4xx);
    assert_int_equal(c->failed_5xx, f5xx);
}

/* What OpenSearch 2.19 answers for three successful index actions. */
static const char os219_ok[] =
    "{\"took\":12,\"errors\":false,\"items\":["
    "{\"index\":{\"_index\":\"bench-1\",\"_id\":\"1\",\"_version\":1,\"result\":\"created\","
    "\"_shards\":{\"total\":2,\"successful\":1,\"failed\":0},\"_seq_no\":0,\"_primary_term\":1,"
    "\"status\":201}},"
    "{\"index\":{\"_index\":\"bench-1\",\"_id\":\"2\",\"_version\":1,\"result\":\"created\","
    "\"_shards\":{\"total\":2,\"successful\":1,\"failed\":0},\"_seq_no\":1,\"_primary_term\":1,"
    "\"status\":201}},"
    "{\"index\":{\"_index\":\"bench-1\",\"_id\":\"3\",\"_version\":2,\"result\":\"updated\","
    "\"_shards\":{\"total\":2,\"successful\":1,\"failed\":0},\"_seq_no\":2,\"_primary_term\":1,"
    "\"status\":200}}]}";

static void test_errors_false_opensearch(void **state)
{
    (void)state;
    bf_bulk_counts_t c;
    uint8_t cls[3];
    char err[ERRBUF] = "stale";
    memset(&c, 0xAA, sizeof c);
    memset(cls, 0xFF, sizeof cls);
    assert_int_equal(parse(os219_ok, 3, &c, cls, err), BF_OK);
    assert_counts(&c, 3, 0, 0, 0, 0, 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(cls[i], BF_ITEM_OK);
    assert_string_equal(err, "");
    /* Optional outputs may be NULL. */
    assert_int_equal(bf_bulkresp_parse(os219_ok, strlen(os219_ok), 3, &c, NULL, NULL, 0), BF_OK);
    assert_counts(&c, 3, 0, 0, 0, 0, 0);
}

static void test_errors_false_layouts(void **state)
{
    (void)state;
    bf_bulk_counts_t c;
    /* pretty=true style, errors after took, spaces around the colon, trailing newline */
    const char *pretty = "{\n  \"took\" : 3,\n  \"errors\" :\tfalse ,\n  \"items\" : [\n"
                         "    {\n      \"create\" : {\n        \"_id\" : \"a\",\n"
                         "        \"status\" : 201\n      }\n    }\n  ]\n}\n";
    assert_int_equal(parse(pretty, 1, &c, NULL, NULL), BF_OK);
    assert_counts(&c, 1, 0, 0, 0, 0, 0);
    /* errors first, ingest_took present, ES 7 _type */
    const char *first = "{\"errors\":false,\"took\":1,\"ingest_took\":0,\"items\":[{\"index\":"
                        "{\"_index\":\"x\",\"_type\":\"_doc\",\"_id\":\"1\",\"status\":201}}]}";
    assert_int_equal(parse(first, 1, &c, NULL, NULL), BF_OK);
    assert_counts(&c, 1, 0, 0, 0, 0, 0);
    /* ids full of JSON punctuation and escapes must not confuse the scan */
    const char *ids = "{\"took\":1,\"errors\":false,\"items\":["
                      "{\"index\":{\"_id\":\"a\\\"}]{[\\\\\",\"status\":201}},"
                      "{\"index\":{\"_id\":\"\\\\\",\"status\":201}},"
                      "{\"index\":{\"_id\":\"\\\"errors\\\":true\",\"status\":201}}]}";
    assert_int_equal(parse(ids, 3, &c, NULL, NULL), BF_OK);
    assert_counts(&c, 3, 0, 0, 0, 0, 0);
    assert_int_equal(parse(ids, 4, &c, NULL, NULL), BF_E_PARSE);
    /* no items for no documents */
    assert_int_equal(parse("{\"took\":0,\"errors\":false,\"items\":[]}", 0, &c, NULL, NULL),
                     BF_OK);
    assert_counts(&c, 0, 0, 0, 0, 0, 0);
}

/* 201 ok, 429 rejected, 400 mapping, 409 conflict, 500 and 503 5xx, 404 with error 4xx,
 * 404 delete without error ok, 403 4xx, 200 update ok. */
static const char mixed[] =
    "{\"took\":30,\"errors\":true,\"items\":["
    "{\"index\":{\"_index\":\"b\",\"_id\":\"1\",\"_version\":1,\"result\":\"created\","
    "\"_shards\":{\"total\":1,\"successful\":1,\"failed\":0},\"status\":201}},"
    "{\"index\":{\"_index\":\"b\",\"_id\":\"2\",\"status\":429,\"error\":{\"type\":"
    "\"es_rejected_execution_exception\",\"reason\":\"rejected execution of "
    "coordinating operation [coordinating_and_primary_bytes=1, "
    "max_coordinating_and_primary_bytes=1]\"}}},"
    "{\"index\":{\"_index\":\"b\",\"_id\":\"3\",\"status\":400,\"error\":{\"type\":"
    "\"mapper_parsing_exception\",\"reason\":\"failed to parse field [n] of type [long]\","
    "\"caused_by\":{\"type\":\"illegal_argument_exception\",\"reason\":\"For input string\"}}}},"
    "{\"create\":{\"_index\":\"b\",\"_id\":\"7\",\"status\":409,\"error\":{\"type\":"
    "\"version_conflict_engine_exception\",\"reason\":\"[7]: version conflict, document "
    "already exists (current version [1])\",\"index_uuid\":\"u\",\"shard\":\"0\","
    "\"index\":\"b\"}}},"
    "{\"index\":{\"_index\":\"b\",\"_id\":\"5\",\"status\":500,\"error\":{\"type\":\"exception\","
    "\"reason\":\"boom\"}}},"
    "{\"index\":{\"_index\":\"nope\",\"_id\":\"6\",\"status\":404,\"error\":{\"type\":"
    "\"index_not_found_exception\",\"reason\":\"no such index [nope]\"}}},"
    "{\"delete\":{\"_index\":\"b\",\"_id\":\"8\",\"_version\":1,\"result\":\"not_found\","
    "\"status\":404}},"
    "{\"index\":{\"_index\":\"b\",\"_id\":\"9\",\"status\":503,\"error\":{\"type\":"
    "\"unavailable_shards_exception\",\"reason\":\"primary shard is not active\"}}},"
    "{\"index\":{\"_index\":\"b\",\"_id\":\"10\",\"status\":403,\"error\":{\"type\":"
    "\"cluster_block_exception\",\"reason\":\"index [b] blocked by: [FORBIDDEN/8/index write "
    "(api)];\"}}},"
    "{\"update\":{\"_index\":\"b\",\"_id\":\"11\",\"_version\":2,\"result\":\"updated\","
    "\"status\":200}}"
    "]}";

static void test_errors_true_mixed(void **state)
{
    (void)state;
    bf_bulk_counts_t c;
    uint8_t cls[10];
    char err[ERRBUF];
    memset(cls, 0xFF, sizeof cls);
    assert_int_equal(parse(mixed, 10, &c, cls, err), BF_OK);
    assert_counts(&c, 3, 1, 1, 1, 2, 2);
    const uint8_t want[10] = {BF_ITEM_OK,  BF_ITEM_REJECTED, BF_ITEM_MAPPING, BF_ITEM_CONFLICT,
                              BF_ITEM_5XX, BF_ITEM_4XX,      BF_ITEM_OK,      BF_ITEM_5XX,
                              BF_ITEM_4XX, BF_ITEM_OK};
    assert_memory_equal(cls, want, sizeof want);
    assert_string_equal(err, "es_rejected_execution_exception: rejected execution of "
                             "coordinating operation [coordinating_and_primary_bytes=1, "
                             "max_coordinating_and_primary_bytes=1]");
    /* A short first_error buffer is truncated, not overrun. */
    char small[12];
    memset(small, 'x', sizeof small);
    assert_int_equal(bf_bulkresp_parse(mixed, strlen(mixed), 10, &c, NULL, small, 8), BF_OK);
    assert_string_equal(small, "es_reje");
    assert_int_equal(small[8], 'x');
    /* Wrong item count. */
    assert_int_equal(parse(mixed, 9, &c, cls, err), BF_E_PARSE);
    assert_counts(&c, 0, 0, 0, 0, 0, 0);
    assert_int_equal(parse(mixed, 11, &c, cls, err), BF_E_PARSE);
    assert_non_null(strstr(err, "10 items for 11 documents"));
}

static void test_rejection_names(void **state)
{
    (void)state;
    bf_bulk_counts_t c;
    uint8_t cls[4];
    char err[ERRBUF];
    const char *body =
        "{\"took\":1,\"errors\":true,\"items\":["
        /* OpenSearch */
        "{\"index\":{\"_index\":\"b\",\"_id\":\"1\",\"status\":429,\"error\":{\"type\":"
        "\"rejected_execution_exception\",\"reason\":\"rejected execution of "
        "org.opensearch.common.util.concurrent.TimedRunnable@1 on OpenSearchThreadPoolExecutor"
        "[name = n/write, queue capacity = 10000]\"}}},"
        /* Elasticsearch */
        "{\"index\":{\"_index\":\"b\",\"_id\":\"2\",\"status\":429,\"error\":{\"type\":"
        "\"es_rejected_execution_exception\",\"reason\":\"rejected execution of primary "
        "operation\"}}},"
        /* recognized by the type even without a 429 */
        "{\"index\":{\"_index\":\"b\",\"_id\":\"3\",\"status\":503,\"error\":{\"type\":"
        "\"rejected_execution_exception\",\"reason\":\"r\"}}},"
        /* and by the status even with another type */
        "{\"index\":{\"_index\":\"b\",\"_id\":\"4\",\"status\":429,\"error\":{\"type\":"
        "\"circuit_breaking_exception\",\"reason\":\"[parent] Data too large\"}}}"
        "]}";
    assert_int_equal(parse(body, 4, &c, cls, err), BF_OK);
    assert_counts(&c, 0, 4, 0, 0, 0, 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(cls[i], BF_ITEM_REJECTED);
    assert_true(strncmp(err, "rejected_execution_exception: rejected execution of org.", 56) ==
                0);
}

static void test_filter_path_forms(void **state)
{
    (void)state;
    bf_bulk_counts_t c;
    uint8_t cls[2];
    char err[ERRBUF];
    assert_int_equal(parse("{\"errors\":false}", 500, &c, NULL, err), BF_OK);
    assert_counts(&c, 500, 0, 0, 0, 0, 0);
    assert_int_equal(parse("{\"took\":7,\"errors\":false}", 2, &c, cls, err), BF_OK);
    assert_int_equal(cls[0], BF_ITEM_OK);
    assert_int_equal(cls[1], BF_ITEM_OK);
    assert_int_equal(parse("{\"took\":7,\"errors\":false,\"items\":[{\"index\":{\"status\":201}},"
                           "{\"index\":{\"status\":201}}]}",
                           2, &c, cls, err),
                     BF_OK);
    assert_counts(&c, 2, 0, 0, 0, 0, 0);

    const char *both = "{\"errors\":true,\"items\":[{\"create\":{\"status\":201}},{\"create\":"
                       "{\"status\":429,\"error\":{\"type\":"
                       "\"es_rejected_execution_exception\"}}}]}";
    memset(cls, 0xFF, sizeof cls);
    assert_int_equal(parse(both, 2, &c, cls, err), BF_OK);
    assert_counts(&c, 1, 1, 0, 0, 0, 0);
    assert_int_equal(cls[0], BF_ITEM_OK);
    assert_int_equal(cls[1], BF_ITEM_REJECTED);
    assert_string_equal(err, "es_rejected_execution_exception: ");
    /* with the reason kept */
    const char *reason = "{\"took\":3,\"errors\":true,\"items\":[{\"create\":{\"status\":409,"
                         "\"error\":{\"type\":\"version_conflict_engine_exception\",\"reason\":"
                         "\"[1]: version conflict\"}}}]}";
    assert_int_equal(parse(reason, 1, &c, cls, err), BF_OK);
    assert_counts(&c, 0, 0, 1, 0, 0, 0);
    assert_string_equal(err, "version_conflict_engine_exception: [1]: version conflict");
    /* errors:true but items filtered away: the outcome is unknown */
    assert_int_equal(parse("{\"errors\":true}", 2, &c, cls, err), BF_E_PARSE);
    /* filter_path=items.*.error drops the good items: the count no longer matches */
    assert_int_equal(parse("{\"items\":[{\"create\":{\"error\":{\"type\":\"x\"}}}],"
                           "\"errors\":true}",
                           2, &c, cls, err),
                     BF_E_PARSE);
}

static void test_not_json(void **state)
{
    (void)state;
    bf_bulk_counts_t c;
    char err[ERRBUF];
    const char *bad[] = {
        "",
        "   ",
        "<html><body>502 Bad Gateway</body></html>",
        "Unauthorized",
        "null",
        "[]",
        "{}",
        "{\"took\":1}",                                   /* no errors */
        "{\"errors\":\"false\"}",                         /* not a boolean */
        "{\"errors\":0}",
        "{\"errors\":falsey}",
        "{\"errors\":false}x",                            /* data after the object */
        "{\"errors\":false}{\"errors\":false}",
        "{\"errors\":false,}",
        "{errors:false}",
        "{\"error\":{\"type\":\"x\",\"reason\":\"y\"},\"status\":400}", /* an error body */
        "{\"errors\":true,\"items\":{}}",                 /* items not an array */
        "{\"errors\":true,\"items\":[1]}",                /* item not an object */
        "{\"errors\":true,\"items\":[{}]}",               /* no action key */
        "{\"errors\":true,\"items\":[{\"index\":{\"status\":201},\"x\":{}}]}", /* two keys */
        "{\"errors\":true,\"items\":[{\"upsert\":{\"status\":201}}]}",          /* unknown op */
        "{\"errors\":true,\"items\":[{\"index\":5}]}",
        "{\"errors\":true,\"items\":[{\"index\":{\"status\":\"201\"}}]}",
        "{\"errors\":true,\"items\":[{\"index\":{\"status\":201}}]", /* unbalanced */
        "{\"errors\":true,\"items\":[{\"index\":{\"status\":201}}]}]", /* extra bracket */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&c, 0xAA, sizeof c);
        err[0] = '\0';
        int rc = parse(bad[i], 1, &c, NULL, err);
        if (rc != BF_E_PARSE)
            fail_msg("body %zu accepted: %s", i, bad[i]);
        assert_counts(&c, 0, 0, 0, 0, 0, 0);
        assert_true(strncmp(err, "not a bulk response: ", 21) == 0);
    }
    /* NUL bytes inside the body */
    const char nul[] = "{\"errors\":false}\0";
    assert_int_equal(bf_bulkresp_parse(nul, sizeof nul - 1, 1, &c, NULL, NULL, 0), BF_E_PARSE);
    /* over the cap: refused before it is read */
    assert_int_equal(bf_bulkresp_parse("{}", (size_t)BF_MAX_RESPONSE_BYTES + 1, 1, &c, NULL, err,
                                       sizeof err),
                     BF_E_PARSE);
    assert_non_null(strstr(err, "BF_MAX_RESPONSE_BYTES"));
    assert_int_equal(bf_bulkresp_parse(NULL, 0, 1, &c, NULL, NULL, 0), BF_E_PARSE);
}

/* Every proper prefix of a response is a truncated response. */
static void assert_all_prefixes_rejected(const char *body, uint32_t ndocs)
{
    bf_bulk_counts_t c;
    uint8_t cls[16];
    char err[ERRBUF];
    size_t len = strlen(body);
    assert_int_equal(bf_bulkresp_parse(body, len, ndocs, &c, cls, err, sizeof err), BF_OK);
    for (size_t n = 0; n < len; n++) {
        /* A heap copy of exactly n bytes so ASan sees any read past the end. */
        char *copy = bf_malloc(n ? n : 1);
        memcpy(copy, body, n);
        int rc = bf_bulkresp_parse(copy, n, ndocs, &c, cls, err, sizeof err);
        if (rc != BF_E_PARSE)
            fail_msg("prefix of %zu bytes accepted: %.*s", n, (int)n, body);
        free(copy);
    }
}

static void test_truncated(void **state)
{
    (void)state;
    assert_all_prefixes_rejected(os219_ok, 3);
    assert_all_prefixes_rejected(mixed, 10);
    assert_all_prefixes_rejected("{\"took\":7,\"errors\":false}", 2);
    assert_all_prefixes_rejected("{\"errors\":false,\"took\":12345}", 2);
}

static void test_item_count_mismatch(void **state)
{
    (void)state;
    bf_bulk_counts_t c;
    uint8_t cls[4];
    char err[ERRBUF];
    /* fast path too: the items are counted even when they are not parsed */
    assert_int_equal(parse(os219_ok, 4, &c, cls, err), BF_E_PARSE);
    assert_non_null(strstr(err, "3 items for 4 documents"));
    assert_int_equal(parse(os219_ok, 2, &c, cls, err), BF_E_PARSE);
    assert_int_equal(parse(os219_ok, 0, &c, cls, err), BF_E_PARSE);
    assert_int_equal(parse("{\"errors\":false,\"items\":[]}", 1, &c, cls, err), BF_E_PARSE);
    assert_counts(&c, 0, 0, 0, 0, 0, 0);
}

static void test_5000_items_with_errors(void **state)
{
    (void)state;
    enum { N = 5000 };
    bf_buf_t b;
    bf_buf_init(&b, 0);
    bf_buf_appendz(&b, "{\"took\":812,\"errors\":true,\"items\":[");
    uint64_t want[6] = {0};
    uint8_t want_cls[N];
    for (int i = 0; i < N; i++) {
        const char *sep = i ? "," : "";
        if (i % 7 == 3) {
            bf_buf_appendf(&b,
                           "%s{\"create\":{\"_index\":\"bench-1\",\"_id\":\"%d\",\"status\":429,"
                           "\"error\":{\"type\":\"rejected_execution_exception\",\"reason\":"
                           "\"rejected execution of coordinating operation\"}}}",
                           sep, i);
            want_cls[i] = BF_ITEM_REJECTED;
        } else if (i % 11 == 5) {
            bf_buf_appendf(&b,
                           "%s{\"create\":{\"_index\":\"bench-1\",\"_id\":\"%d\",\"status\":409,"
                           "\"error\":{\"type\":\"version_conflict_engine_exception\",\"reason\":"
                           "\"[%d]: version conflict, document already exists\"}}}",
                           sep, i, i);
            want_cls[i] = BF_ITEM_CONFLICT;
        } else {
            bf_buf_appendf(&b,
                           "%s{\"create\":{\"_index\":\"bench-1\",\"_id\":\"%d\",\"_version\":1,"
                           "\"result\":\"created\",\"_shards\":{\"total\":2,\"successful\":1,"
                           "\"failed\":0},\"_seq_no\":%d,\"_primary_term\":1,\"status\":201}}",
                           sep, i, i);
            want_cls[i] = BF_ITEM_OK;
        }
        want[want_cls[i]]++;
    }
    bf_buf_appendz(&b, "]}");

    bf_bulk_counts_t c;
    uint8_t *cls = bf_malloc(N);
    char err[ERRBUF];
    uint64_t t0 = bf_clock_mono_us();
    assert_int_equal(bf_bulkresp_parse(b.data, b.len, N, &c, cls, err, sizeof err), BF_OK);
    uint64_t slow_us = bf_clock_mono_us() - t0;
    assert_counts(&c, want[BF_ITEM_OK], want[BF_ITEM_REJECTED], want[BF_ITEM_CONFLICT], 0, 0, 0);
    assert_memory_equal(cls, want_cls, N);
    assert_int_equal(c.ok + c.rejected + c.conflict, N);
    assert_non_null(strstr(err, "rejected_execution_exception"));

    /* The same size with errors:false takes the fast path. */
    bf_buf_t ok;
    bf_buf_init(&ok, 0);
    bf_buf_appendz(&ok, "{\"took\":812,\"errors\":false,\"items\":[");
    for (int i = 0; i < N; i++)
        bf_buf_appendf(&ok,
                       "%s{\"create\":{\"_index\":\"bench-1\",\"_id\":\"%d\",\"_version\":1,"
                       "\"result\":\"created\",\"_shards\":{\"total\":2,\"successful\":1,"
                       "\"failed\":0},\"_seq_no\":%d,\"_primary_term\":1,\"status\":201}}",
                       i ? "," : "", i, i);
    bf_buf_appendz(&ok, "]}");
    t0 = bf_clock_mono_us();
    assert_int_equal(bf_bulkresp_parse(ok.data, ok.len, N, &c, cls, err, sizeof err), BF_OK);
    uint64_t fast_us = bf_clock_mono_us() - t0;
    assert_counts(&c, N, 0, 0, 0, 0, 0);
    print_message("5000 items: errors:true %zu bytes in %" PRIu64 " us; errors:false %zu bytes "
                  "in %" PRIu64 " us\n",
                  b.len, slow_us, ok.len, fast_us);

    free(cls);
    bf_buf_cleanup(&b);
    bf_buf_cleanup(&ok);
}

/* Regression guard: "errors":false as text inside an errors:true response is not the flag. */
static void test_errors_false_inside_item_is_not_the_flag(void **state)
{
    (void)state;
    bf_bulk_counts_t c;
    uint8_t cls[2];
    char err[ERRBUF];
    /* in an error reason */
    const char *in_reason =
        "{\"took\":1,\"errors\":true,\"items\":[{\"index\":{\"status\":400,\"error\":{\"type\":"
        "\"mapper_parsing_exception\",\"reason\":\"failed to parse: {\\\"errors\\\":false}\"}}}"
        ",{\"index\":{\"status\":201}}]}";
    assert_int_equal(parse(in_reason, 2, &c, cls, err), BF_OK);
    assert_counts(&c, 1, 0, 0, 1, 0, 0);
    assert_string_equal(err, "mapper_parsing_exception: failed to parse: {\"errors\":false}");
    /* the flag after the items, with "errors":false earlier inside strings and as an item key */
    const char *flag_last =
        "{\"took\":1,\"items\":[{\"index\":{\"errors\":false,\"status\":429,\"error\":{\"type\":"
        "\"es_rejected_execution_exception\",\"reason\":\"\\\"errors\\\":false\"}}},"
        "{\"index\":{\"_id\":\"\\\"errors\\\":false\",\"status\":201}}],\"errors\":true}";
    memset(cls, 0xFF, sizeof cls);
    assert_int_equal(parse(flag_last, 2, &c, cls, err), BF_OK);
    assert_counts(&c, 1, 1, 0, 0, 0, 0);
    assert_int_equal(cls[0], BF_ITEM_REJECTED);
    assert_int_equal(cls[1], BF_ITEM_OK);
    /* a nested object called errors with a false value, and no top-level flag at all */
    assert_int_equal(parse("{\"took\":1,\"meta\":{\"errors\":false},\"items\":[]}", 0, &c, cls,
                           err),
                     BF_E_PARSE);
}

static void test_failure_store_counts_as_failure(void **state)
{
    (void)state;
    bf_bulk_counts_t c;
    uint8_t cls[2];
    char err[ERRBUF];
    const char *body = "{\"took\":2,\"errors\":false,\"items\":["
                       "{\"create\":{\"_index\":\".ds-logs-a-2025\",\"_id\":\"1\",\"status\":201}},"
                       "{\"create\":{\"_index\":\".fs-logs-a-2025\",\"_id\":\"2\",\"status\":201,"
                       "\"failure_store\":\"used\"}}]}";
    assert_int_equal(parse(body, 2, &c, cls, err), BF_OK);
    assert_counts(&c, 1, 0, 0, 1, 0, 0);
    assert_int_equal(cls[0], BF_ITEM_OK);
    assert_int_equal(cls[1], BF_ITEM_MAPPING);
    assert_non_null(strstr(err, "failure_store"));
    /* "not_enabled" is an ordinary success */
    const char *off = "{\"took\":2,\"errors\":false,\"items\":[{\"create\":{\"_id\":\"1\","
                      "\"status\":201,\"failure_store\":\"not_enabled\"}}]}";
    assert_int_equal(parse(off, 1, &c, cls, err), BF_OK);
    assert_counts(&c, 1, 0, 0, 0, 0, 0);
}


/* ---- generated responses against a jansson reference ------------------------------------- */

/* The old whole-body judge, on jansson: the reference for valid JSON bodies. */
static bool ref_has_fs(json_t *v, int depth)
{
    if (json_is_string(v))
        return depth >= 2 && strcmp(json_string_value(v), "failure_store") == 0;
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) {
            if (depth + 1 >= 2 && strcmp(k, "failure_store") == 0)
                return true;
            if (ref_has_fs(x, depth + 1))
                return true;
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) {
            if (ref_has_fs(x, depth + 1))
                return true;
        }
    }
    return false;
}

static void ref_judge(const char *body, size_t len, uint32_t ndocs, bf_bulk_counts_t *c,
                      uint8_t *cls)
{
    memset(c, 0, sizeof *c);
    json_t *root = json_loadb(body, len, 0, NULL);
    assert_non_null(root);
    json_t *items = json_object_get(root, "items");
    bool errors = json_is_true(json_object_get(root, "errors"));
    bool fs = false;
    const char *k;
    json_t *x;
    json_object_foreach(root, k, x) {
        if ((json_is_object(x) || json_is_array(x)) && ref_has_fs(x, 1))
            fs = true;
    }
    assert_int_equal(json_array_size(items), ndocs);
    for (size_t i = 0; i < ndocs; i++) {
        json_t *res = json_object_iter_value(json_object_iter(json_array_get(items, i)));
        json_int_t status = json_integer_value(json_object_get(res, "status"));
        json_t *err = json_object_get(res, "error");
        bool has_error = err != NULL && !json_is_null(err);
        const char *type = json_string_value(json_object_get(err, "type"));
        type = type ? type : "";
        const char *fsv = json_string_value(json_object_get(res, "failure_store"));
        bool used = fsv && strcmp(fsv, "used") == 0;
        uint8_t k8;
        if (!errors && !fs)
            k8 = BF_ITEM_OK;
        else if (!has_error)
            k8 = used ? BF_ITEM_MAPPING : BF_ITEM_OK;
        else if (status == 429 && strcmp(type, "cluster_block_exception") == 0)
            k8 = BF_ITEM_4XX;
        else if (status == 429 ||
                 (strlen(type) >= 28 &&
                  strcmp(type + strlen(type) - 28, "rejected_execution_exception") == 0))
            k8 = BF_ITEM_REJECTED;
        else if (status == 409)
            k8 = BF_ITEM_CONFLICT;
        else if (status == 400)
            k8 = (type[0] == '\0' || strncmp(type, "mapper_", 7) == 0 ||
                  strcmp(type, "document_parsing_exception") == 0 ||
                  strcmp(type, "strict_dynamic_mapping_exception") == 0)
                     ? BF_ITEM_MAPPING
                     : BF_ITEM_4XX;
        else if (status > 400 && status < 500)
            k8 = BF_ITEM_4XX;
        else
            k8 = BF_ITEM_5XX;
        cls[i] = k8;
        switch (k8) {
        case BF_ITEM_OK: c->ok++; break;
        case BF_ITEM_REJECTED: c->rejected++; break;
        case BF_ITEM_CONFLICT: c->conflict++; break;
        case BF_ITEM_MAPPING: c->mapping++; break;
        case BF_ITEM_4XX: c->failed_4xx++; break;
        default: c->failed_5xx++; break;
        }
    }
    json_decref(root);
}

/* An id with JSON punctuation, escapes, and now and then text that looks like the keys. */
static void gen_id(bf_buf_t *b, unsigned *seed, int i)
{
    static const char *odd[] = {"a\\\\\\\"}]{[\\\\", "\\\"errors\\\":true", "failure\\\\store",
                                "x\\u00e9\\ud83d\\ude00y", "},{\\\"index\\\":{", "\\\\\\\\"};
    if (rand_r(seed) % 9 == 0)
        bf_buf_appendf(b, "%s%d", odd[rand_r(seed) % 6], i);
    else
        bf_buf_appendf(b, "id-%020d", i);
}

/* One response of n items. Returns with *errors_flag as written. */
static void gen_response(bf_buf_t *b, unsigned seed, uint32_t n, int errors, int with_fs,
                         int pretty, int errors_last)
{
    static const char *types[] = {"es_rejected_execution_exception", "rejected_execution_exception",
                                  "version_conflict_engine_exception", "mapper_parsing_exception",
                                  "index_not_found_exception", "unavailable_shards_exception",
                                  "cluster_block_exception", "circuit_breaking_exception"};
    static const int statuses[] = {429, 429, 409, 400, 404, 503, 429, 429};
    const char *sp = pretty ? " \n  " : "";
    bf_buf_reset(b);
    bf_buf_appendf(b, "{%s\"took\":%s%u,", sp, sp, seed % 1000);
    if (!errors_last)
        bf_buf_appendf(b, "%s\"errors\"%s:%s%s,", sp, sp, sp, errors ? "true" : "false");
    bf_buf_appendf(b, "\"items\":%s[", sp);
    for (uint32_t i = 0; i < n; i++) {
        const char *op = (const char *[]){"index", "create", "update", "delete"}[rand_r(&seed) % 4];
        bf_buf_appendf(b, "%s%s{\"%s\":%s{\"_index\":\"bench-%u\",\"_id\":\"", i ? "," : "", sp,
                       op, sp, i % 3);
        gen_id(b, &seed, (int)i);
        int fail = errors && rand_r(&seed) % 4 == 0;
        if (fail) {
            int t = rand_r(&seed) % 8;
            bf_buf_appendf(b, "\",\"status\":%d,\"error\":{\"type\":\"%s\",\"reason\":\"reason "
                           "\\\"%u\\\" [x]\\n\\u00e9\",\"caused_by\":{\"type\":\"x\",\"reason\":"
                           "\"{[\\\"]}\",\"caused_by\":{\"type\":\"y\"}}}}}",
                           (rand_r(&seed) % 5 == 0) ? 503 : statuses[t], types[t], i);
        } else {
            bf_buf_appendf(b, "\",%s\"_version\":1,\"result\":\"created\",\"_shards\":{\"total\":2,"
                           "\"successful\":1,\"failed\":0},\"_seq_no\":%u,\"_primary_term\":1,"
                           "\"status\":%s201", sp, i, sp);
            if (with_fs && rand_r(&seed) % 5 == 0)
                bf_buf_appendf(b, ",\"failure_store\":\"%s\"",
                               rand_r(&seed) % 2 ? "used" : "not_enabled");
            bf_buf_appendz(b, "}}");
        }
    }
    bf_buf_appendf(b, "%s]", sp);
    if (errors_last)
        bf_buf_appendf(b, ",\"errors\":%s", errors ? "true" : "false");
    bf_buf_appendf(b, "%s}%s", sp, pretty ? "\n" : "");
}

static void test_generated_against_reference(void **state)
{
    (void)state;
    bf_buf_t b;
    bf_buf_init(&b, 0);
    static uint8_t cls[MAXCLS], want_cls[MAXCLS];
    const uint32_t sizes[] = {1, 2, 5, 40, 333, 5000};
    unsigned runs = 0;
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        for (unsigned v = 0; v < 32; v++) {
            uint32_t n = sizes[z];
            int errors = v & 1, with_fs = (v >> 1) & 1, pretty = (v >> 2) & 1,
                errors_last = (v >> 3) & 1;
            gen_response(&b, v * 7919u + n, n, errors, with_fs, pretty, errors_last);
            bf_bulk_counts_t want, c;
            char err[ERRBUF];
            ref_judge(b.data, b.len, n, &want, want_cls);
            memset(cls, 0xEE, n);
            int rc = bf_bulkresp_parse(b.data, b.len, n, &c, cls, err, sizeof err);
            if (rc != BF_OK)
                fail_msg("n=%u v=%u: %s", n, v, err);
            if (memcmp(&c, &want, sizeof c) != 0 || memcmp(cls, want_cls, n) != 0)
                fail_msg("n=%u v=%u: ok %llu/%llu rejected %llu/%llu mapping %llu/%llu", n, v,
                         (unsigned long long)c.ok, (unsigned long long)want.ok,
                         (unsigned long long)c.rejected, (unsigned long long)want.rejected,
                         (unsigned long long)c.mapping, (unsigned long long)want.mapping);
            if (n <= 333 || v % 4 == 0)
                assert_cuts_agree(b.data, b.len, n);
            /* one item fewer or more is never accepted */
            assert_int_equal(bf_bulkresp_parse(b.data, b.len, n + 1, &c, NULL, NULL, 0),
                             BF_E_PARSE);
            /* truncated anywhere: refused */
            for (int cut = 0; cut < 20; cut++) {
                size_t at = (size_t)((b.len * (unsigned)cut) / 20 + (unsigned)cut);
                if (at < b.len)
                    assert_int_equal(bf_bulkresp_parse(b.data, at, n, &c, NULL, NULL, 0),
                                     BF_E_PARSE);
            }
            runs++;
        }
    }
    print_message("%u generated responses agree with the reference\n", runs);
    bf_buf_cleanup(&b);
}

/* failure_store in an item that a read splits, inside a response read 64 bytes at a time: the
 * item is judged again from its kept bytes. */
/* Found by fuzz_bulkresp: the verdict on a malformed body depended on where reads ended.
 * Garbage between two items of an errors:false response was skipped by the 64-byte block path
 * (whole body: accepted) but refused byte by byte (small reads); a literal longer than the
 * token buffer was accepted in one read and refused when split. Both are refused now, however
 * the body is cut. */
static void test_malformed_refused_whatever_the_cut(void **state)
{
    (void)state;
    bf_bulk_counts_t c;
    char err[ERRBUF];
    static const char garbage[] =
        "{\"took\": 3, \"errors\": false, \"items\": [{\"create\": {\"_index\": \"i\", \"_id\": "
        "\"x\", \"status\": 201}}, {\"create\": {\"_index\": \"i\", \"_id\": \"x\", \"status\": "
        "201}}, {\"create\": {\"_index\": \"i\", \"_id\": \"x\", \"status\": 201}}x\x01yz, "
        "{\"create\": {\"_index\": \"i\", \"_id\": \"x\", \"status\": 201}}]}";
    assert_int_equal(parse(garbage, 4, &c, NULL, err), BF_E_PARSE);
    static const char stray_string[] =
        "{\"took\": 3, \"errors\": false, \"items\": [{\"create\": {\"_index\": \"i\", \"_id\": "
        "\"x\", \"status\": 201}}, \"not an item\", {\"create\": {\"_index\": \"i\", \"_id\": "
        "\"x\", \"status\": 201}}, {\"create\": {\"_index\": \"i\", \"status\": 201}}]}";
    assert_int_equal(parse(stray_string, 3, &c, NULL, err), BF_E_PARSE);
    static const char long_literal[] =
        "{\"errors\":true,\"items\":[{\"index\":{\"status\":201}},{\"index\":{\"status\":429,"
        "\"error\":{\"type\":\"es_rejected_execution_exception\",\"reason\":\"r\"}}},"
        "{\"index\":{\"stat\":2018888888888888888888888888888888888888888}}]}";
    assert_int_equal(parse(long_literal, 3, &c, NULL, err), BF_E_PARSE);
    /* a 32-character number is still a number */
    static const char max_literal[] =
        "{\"errors\":false,\"took\":12345678901234567890123456789012,\"items\":["
        "{\"index\":{\"status\":201}}]}";
    assert_int_equal(parse(max_literal, 1, &c, NULL, err), 0);
    assert_int_equal(c.ok, 1);
}

static void test_failure_store_split_item(void **state)
{
    (void)state;
    bf_buf_t b;
    bf_buf_init(&b, 0);
    bf_buf_appendz(&b, "{\"took\":1,\"errors\":false,\"items\":[");
    enum { N = 400 };
    for (int i = 0; i < N; i++)
        bf_buf_appendf(&b, "%s{\"create\":{\"_index\":\"logs\",\"_id\":\"%06d\",\"_shards\":"
                       "{\"total\":1,\"successful\":1,\"failed\":0},\"status\":201%s}}",
                       i ? "," : "", i, i == 300 ? ",\"failure_store\":\"used\"" : "");
    bf_buf_appendz(&b, "]}");
    uint8_t cls[N];
    bf_bulk_counts_t c;
    char err[ERRBUF];
    assert_int_equal(bf_bulkresp_parse(b.data, b.len, N, &c, cls, err, sizeof err), BF_OK);
    assert_counts(&c, N - 1, 0, 0, 1, 0, 0);
    assert_int_equal(cls[300], BF_ITEM_MAPPING);
    assert_string_equal(err, "failure_store: document stored in the failure store (status 201)");
    assert_cuts_agree(b.data, b.len, N);
    /* every seam position around the key */
    const char *key = strstr(b.data, "failure_store");
    size_t at = (size_t)(key - b.data);
    for (size_t cut = at - 200; cut < at + 40; cut++) {
        bf_bulkresp_stream_t *st = bf_malloc(sizeof *st);
        bf_bulkresp_stream_init(st, N, cls);
        bf_bulkresp_stream_feed(st, b.data, cut);
        bf_bulkresp_stream_feed(st, b.data + cut, b.len - cut);
        assert_int_equal(bf_bulkresp_stream_finish(st, &c, NULL, 0), BF_OK);
        assert_counts(&c, N - 1, 0, 0, 1, 0, 0);
        free(st);
    }
    bf_buf_cleanup(&b);
}

/* document.delete_missing: fail (bf_bulkresp_stream_missing_fails): a delete of a missing
 * document (404 without error, which leaves "errors" false) counts as other 4xx of type
 * not_found; without it such an item is ok. Judged one by one although "errors" is false,
 * wherever the body is cut. */
static void test_missing_delete_counts_when_asked(void **state)
{
    (void)state;
    bf_buf_t b;
    bf_buf_init(&b, 0);
    bf_buf_appendz(&b, "{\"took\":3,\"errors\":false,\"items\":[");
    enum { N = 300 };
    for (int i = 0; i < N; i++)
        bf_buf_appendf(&b,
                       "%s{\"delete\":{\"_index\":\"d\",\"_id\":\"%d\",\"_version\":2,"
                       "\"result\":\"%s\",\"_shards\":{\"total\":1,\"successful\":1,\"failed\":0},"
                       "\"_seq_no\":%d,\"_primary_term\":1,\"status\":%d}}",
                       i ? "," : "", i, i % 3 == 0 ? "not_found" : "deleted", i,
                       i % 3 == 0 ? 404 : 200);
    bf_buf_appendz(&b, "]}");
    uint8_t cls[N];
    bf_bulk_counts_t c;
    char err[ERRBUF];
    /* default: the cluster's word, acknowledged */
    assert_int_equal(bf_bulkresp_parse(b.data, b.len, N, &c, cls, err, sizeof err), BF_OK);
    assert_counts(&c, N, 0, 0, 0, 0, 0);
    for (size_t cut = 1; cut < b.len; cut += 97) {
        bf_bulkresp_stream_t *st = bf_malloc(sizeof *st);
        bf_bulkresp_stream_init(st, N, cls);
        bf_bulkresp_stream_missing_fails(st);
        bf_bulkresp_stream_feed(st, b.data, cut);
        bf_bulkresp_stream_feed(st, b.data + cut, b.len - cut);
        char e2[ERRBUF];
        assert_int_equal(bf_bulkresp_stream_finish(st, &c, e2, sizeof e2), BF_OK);
        assert_counts(&c, N - N / 3, 0, 0, 0, N / 3, 0);
        assert_int_equal(cls[0], BF_ITEM_4XX);
        assert_int_equal(cls[1], BF_ITEM_OK);
        assert_int_equal(cls[3], BF_ITEM_4XX);
        assert_string_equal(e2, "not_found: a delete of a missing document (404 without error; "
                                "document.delete_missing: fail)");
        const bf_errtypes_t *et = bf_bulkresp_stream_errtypes(st);
        assert_int_equal(et->n, 1);
        assert_string_equal(et->e[0].type, "not_found");
        assert_int_equal(et->e[0].docs, N / 3);
        char ft[64];
        assert_int_equal(bf_bulkresp_stream_first_type(st, ft, sizeof ft), 1);
        assert_string_equal(ft, "not_found");
        free(st);
    }
    /* a 404 with an error (index missing) stays what it was: other 4xx of its own type */
    const char *e404 = "{\"errors\":true,\"items\":[{\"delete\":{\"_index\":\"x\",\"_id\":\"1\","
                       "\"status\":404,\"error\":{\"type\":\"index_not_found_exception\","
                       "\"reason\":\"no such index [x]\"}}}]}";
    bf_bulkresp_stream_t *st = bf_malloc(sizeof *st);
    bf_bulkresp_stream_init(st, 1, cls);
    bf_bulkresp_stream_missing_fails(st);
    bf_bulkresp_stream_feed(st, e404, strlen(e404));
    assert_int_equal(bf_bulkresp_stream_finish(st, &c, err, sizeof err), BF_OK);
    assert_counts(&c, 0, 0, 0, 0, 1, 0);
    assert_string_equal(bf_bulkresp_stream_errtypes(st)->e[0].type, "index_not_found_exception");
    free(st);
    bf_buf_cleanup(&b);
}

/* The search for "failure_store" in a read goes 16 positions at a time: the word is found at
 * every position modulo 16, and near the read's end, in one whole read. */
static void test_failure_store_any_offset(void **state)
{
    (void)state;
    enum { N = 40, FS = 20 };
    /* the word at every offset modulo 64 (the block scan's block) and so across block ends:
     * as the key of a used failure store (a mapping failure), as a value (it only selects the
     * per-item verdicts: the item is ok), and near misses that are not the word; judged whole
     * and in reads of 1, 13, 64 and 100 bytes and random ones (a read may end inside it) */
    const char *forms[] = {",\"failure_store\":\"used\"", ",\"x\":\"failure_store\"",
                           ",\"failure_stores\":1",       ",\"xfailure_store\":1",
                           ",\"failure_stor\":1",         ",\"f\":\"failure_storf\""};
    int is_word[] = {1, 0, 0, 0, 0, 0}; /* a mapping failure */
    const size_t steps[] = {0, 1, 13, 64, 100, SIZE_MAX};
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++)
        for (int pad = 0; pad < 80; pad++) {
            bf_buf_t b;
            bf_buf_init(&b, 0);
            bf_buf_appendf(&b, "{\"took\":1,\"errors\":false,\"items\":[");
            for (int i = 0; i < N; i++)
                bf_buf_appendf(&b,
                               "%s{\"create\":{\"_index\":\"%.*s\",\"_id\":\"%06d\",\"_shards\":"
                               "{\"total\":1,\"successful\":1,\"failed\":0},\"status\":201%s}}",
                               i ? "," : "", i == 0 ? pad : 4,
                               "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmno"
                               "pqrstuvwxyzab",
                               i, i == FS ? forms[k] : "");
            bf_buf_appendz(&b, "]}");
            for (size_t j = 0; j < sizeof steps / sizeof steps[0]; j++) {
                uint8_t cls[N];
                bf_bulk_counts_t c;
                char err[ERRBUF];
                int rc = steps[j] == SIZE_MAX
                             ? bf_bulkresp_parse(b.data, b.len, N, &c, cls, err, sizeof err)
                             : parse_stream(b.data, b.len, N, steps[j], (unsigned)pad, &c, cls, err,
                                            sizeof err);
                if (rc != BF_OK)
                    fail_msg("form %zu pad %d step %zu: %s", k, pad, steps[j], err);
                if (is_word[k]) {
                    assert_counts(&c, N - 1, 0, 0, 1, 0, 0);
                    assert_int_equal(cls[FS], BF_ITEM_MAPPING);
                } else {
                    assert_counts(&c, N, 0, 0, 0, 0, 0);
                    assert_int_equal(cls[FS], BF_ITEM_OK);
                }
            }
            bf_buf_cleanup(&b);
        }
}

/* Bounded memory: a 20 MB response is judged in the fixed-size state, a read at a time. */
static void test_large_response_bounded(void **state)
{
    (void)state;
    enum { N = 100000 };
    bf_buf_t b;
    bf_buf_init(&b, 0);
    gen_response(&b, 42, N, 1, 0, 0, 0);
    assert_true(b.len > (10u << 20));
    assert_true(sizeof(bf_bulkresp_stream_t) < 8192);
    uint8_t *cls = bf_malloc(N);
    bf_bulk_counts_t c;
    uint64_t t0 = bf_clock_mono_us();
    assert_int_equal(parse_stream(b.data, b.len, N, 16384, 0, &c, cls, NULL, 0), BF_OK);
    uint64_t us = bf_clock_mono_us() - t0;
    assert_int_equal(c.ok + c.rejected + c.conflict + c.mapping + c.failed_4xx + c.failed_5xx, N);
    print_message("%zu bytes (errors:true) judged in %zu-byte state in %" PRIu64 " us\n", b.len,
                  sizeof(bf_bulkresp_stream_t), us);
    free(cls);
    bf_buf_cleanup(&b);
}

/* The first failed item's type, and whether every failed item had it (fail fast on one
 * configuration error, bf_verdict). */
static int first_type_of(const char *body, uint32_t ndocs, char *type, size_t size)
{
    bf_bulkresp_stream_t *st = bf_malloc(sizeof *st);
    bf_bulk_counts_t c;
    bf_bulkresp_stream_init(st, ndocs, NULL);
    bf_bulkresp_stream_feed(st, body, strlen(body));
    assert_int_equal(bf_bulkresp_stream_finish(st, &c, NULL, 0), BF_OK);
    int one = bf_bulkresp_stream_first_type(st, type, size);
    free(st);
    return one;
}

static void test_first_type_uniform(void **state)
{
    (void)state;
    char t[BF_BULKRESP_TYPE_CAP];
    const char *same = "{\"errors\":true,\"items\":["
        "{\"create\":{\"status\":400,\"error\":{\"type\":\"routing_missing_exception\",\"reason\":\"a\"}}},"
        "{\"create\":{\"status\":201}},"
        "{\"create\":{\"status\":400,\"error\":{\"type\":\"routing_missing_exception\",\"reason\":\"b\"}}}]}";
    assert_int_equal(first_type_of(same, 3, t, sizeof t), 1);
    assert_string_equal(t, "routing_missing_exception");
    const char *two = "{\"errors\":true,\"items\":["
        "{\"index\":{\"status\":400,\"error\":{\"type\":\"mapper_parsing_exception\",\"reason\":\"a\"}}},"
        "{\"index\":{\"status\":400,\"error\":{\"type\":\"mapper_parsing_exceptio\",\"reason\":\"b\"}}}]}";
    assert_int_equal(first_type_of(two, 2, t, sizeof t), 0);
    assert_string_equal(t, "mapper_parsing_exception");
    const char *none = "{\"errors\":false,\"items\":[{\"index\":{\"status\":201}}]}";
    assert_int_equal(first_type_of(none, 1, t, sizeof t), 1);
    assert_string_equal(t, "");
}

/* Issue #10 item 6: the class follows the error type, not only the status. */
static void test_classify_by_type(void **state)
{
    (void)state;
    assert_int_equal(bf_bulkresp_classify(400, "routing_missing_exception", 1, 0), BF_ITEM_4XX);
    assert_int_equal(bf_bulkresp_classify(400, "illegal_argument_exception", 1, 0), BF_ITEM_4XX);
    assert_int_equal(bf_bulkresp_classify(400, "action_request_validation_exception", 1, 0),
                     BF_ITEM_4XX);
    assert_int_equal(bf_bulkresp_classify(400, "mapper_parsing_exception", 1, 0), BF_ITEM_MAPPING);
    assert_int_equal(bf_bulkresp_classify(400, "document_parsing_exception", 1, 0),
                     BF_ITEM_MAPPING);
    assert_int_equal(bf_bulkresp_classify(400, "strict_dynamic_mapping_exception", 1, 0),
                     BF_ITEM_MAPPING);
    assert_int_equal(bf_bulkresp_classify(400, "", 1, 0), BF_ITEM_MAPPING);
    assert_int_equal(bf_bulkresp_classify(409, "version_conflict_engine_exception", 1, 0),
                     BF_ITEM_CONFLICT);
    assert_int_equal(bf_bulkresp_classify(200, "", 0, 1), BF_ITEM_MAPPING);
    assert_int_equal(bf_bulkresp_classify(201, "", 0, 0), BF_ITEM_OK);
    /* and the stream agrees */
    const char *body =
        "{\"errors\":true,\"items\":["
        "{\"create\":{\"status\":400,\"error\":{\"type\":\"routing_missing_exception\","
        "\"reason\":\"routing is required for [b]/[1]\"}}},"
        "{\"create\":{\"status\":400,\"error\":{\"type\":\"mapper_parsing_exception\","
        "\"reason\":\"failed to parse\"}}}]}";
    bf_bulk_counts_t c;
    uint8_t cls[2];
    char err[ERRBUF];
    assert_int_equal(parse(body, 2, &c, cls, err), BF_OK);
    assert_int_equal(cls[0], BF_ITEM_4XX);
    assert_int_equal(cls[1], BF_ITEM_MAPPING);
    assert_int_equal(c.mapping, 1);
    assert_int_equal(c.failed_4xx, 1);
}

static const bf_errtype_t *type_in(const bf_errtypes_t *t, const char *type)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (strcmp(t->e[i].type, type) == 0)
            return &t->e[i];
    return NULL;
}

/* Issue #10 item 6: failed items by error type with the first reason of each (unescaped),
 * whatever the cut of the body; ok items and "errors":false count nothing. */
static void test_error_types_first_reason(void **state)
{
    (void)state;
    const bf_errtypes_t *t;
    bf_bulk_counts_t c;
    char err[ERRBUF];
    for (size_t step = 1; step <= 7; step += 3) {
        bf_bulkresp_stream_t st;
        bf_bulkresp_stream_init(&st, 10, NULL);
        for (size_t off = 0; off < strlen(mixed); off += step) {
            size_t n = strlen(mixed) - off < step ? strlen(mixed) - off : step;
            bf_bulkresp_stream_feed(&st, mixed + off, n);
        }
        assert_int_equal(bf_bulkresp_stream_finish(&st, &c, err, sizeof err), BF_OK);
        t = bf_bulkresp_stream_errtypes(&st);
        assert_int_equal(t->n, 7);
        assert_int_equal(bf_errtypes_total(t), 7); /* 10 items, 3 ok */
        const bf_errtype_t *e = type_in(t, "mapper_parsing_exception");
        assert_non_null(e);
        assert_int_equal(e->docs, 1);
        assert_string_equal(e->reason, "failed to parse field [n] of type [long]");
        e = type_in(t, "es_rejected_execution_exception");
        assert_non_null(e);
        assert_int_equal(e->docs, 1);
        e = type_in(t, "version_conflict_engine_exception");
        assert_non_null(e);
        assert_non_null(strstr(e->reason, "version conflict"));
        assert_non_null(type_in(t, "cluster_block_exception"));
        assert_non_null(type_in(t, "unavailable_shards_exception"));
    }
    /* two of a type: counted twice, the first reason kept; escapes decoded; no type */
    const char *two = "{\"errors\":true,\"items\":["
                      "{\"index\":{\"status\":400,\"error\":{\"type\":\"mapper_parsing_exception\","
                      "\"reason\":\"field [a\\\"b] \\u00e9\"}}},"
                      "{\"index\":{\"status\":201}},"
                      "{\"index\":{\"status\":400,\"error\":{\"type\":\"mapper_parsing_exception\","
                      "\"reason\":\"second\"}}},"
                      "{\"index\":{\"status\":400,\"error\":\"plain text\"}}]}";
    bf_bulkresp_stream_t st;
    bf_bulkresp_stream_init(&st, 4, NULL);
    bf_bulkresp_stream_feed(&st, two, strlen(two));
    assert_int_equal(bf_bulkresp_stream_finish(&st, &c, err, sizeof err), BF_OK);
    t = bf_bulkresp_stream_errtypes(&st);
    assert_int_equal(t->n, 2);
    const bf_errtype_t *e = type_in(t, "mapper_parsing_exception");
    assert_non_null(e);
    assert_int_equal(e->docs, 2);
    assert_string_equal(e->reason, "field [a\"b] \xc3\xa9");
    e = type_in(t, "http_400");
    assert_non_null(e);
    assert_string_equal(e->reason, "plain text");
    /* all ok: nothing */
    const char *ok = "{\"errors\":false,\"items\":[{\"index\":{\"status\":201}}]}";
    bf_bulkresp_stream_init(&st, 1, NULL);
    bf_bulkresp_stream_feed(&st, ok, strlen(ok));
    assert_int_equal(bf_bulkresp_stream_finish(&st, &c, err, sizeof err), BF_OK);
    assert_int_equal(bf_bulkresp_stream_errtypes(&st)->n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors_false_opensearch),
        cmocka_unit_test(test_errors_false_layouts),
        cmocka_unit_test(test_errors_true_mixed),
        cmocka_unit_test(test_rejection_names),
        cmocka_unit_test(test_filter_path_forms),
        cmocka_unit_test(test_not_json),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_item_count_mismatch),
        cmocka_unit_test(test_5000_items_with_errors),
        cmocka_unit_test(test_errors_false_inside_item_is_not_the_flag),
        cmocka_unit_test(test_failure_store_counts_as_failure),
        cmocka_unit_test(test_generated_against_reference),
        cmocka_unit_test(test_failure_store_split_item),
        cmocka_unit_test(test_missing_delete_counts_when_asked),
        cmocka_unit_test(test_failure_store_any_offset),
        cmocka_unit_test(test_malformed_refused_whatever_the_cut),
        cmocka_unit_test(test_large_response_bounded),
        cmocka_unit_test(test_first_type_uniform),
        cmocka_unit_test(test_classify_by_type),
        cmocka_unit_test(test_error_types_first_reason),
    };
    /* every test with the default block scan (AVX2 where the CPU has it), then with SSE2 */
    int failed = cmocka_run_group_tests_name("bulkresp (default scan)", tests, NULL, NULL);
    bf_bulkresp_force_sse2(1);
    failed += cmocka_run_group_tests_name("bulkresp (SSE2 scan)", tests, NULL, NULL);
    return failed;
}
