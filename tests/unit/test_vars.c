/* SPDX-License-Identifier: MIT */
/* test_vars.c — variable generators: bounds, rough uniformity, wrap, formats, reproducibility,
 * and ids unique across 4 threads x 3 agents through partitions (real threads). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_error.h"
#include "bf_mem.h"
#include "bf_vars.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define THREADS 4
#define AGENTS 3
#define STREAMS (THREADS * AGENTS)

static bf_var_spec_t spec(enum bf_var_type type)
{
    bf_var_spec_t s;
    memset(&s, 0, sizeof s);
    s.name = "v";
    s.type = type;
    s.kind = BF_VAR_KIND_STRING;
    s.to = INT64_MAX;
    s.wrap = 1;
    return s;
}

/* Builds list values by hand (the loader normally does this). */
static void set_values(bf_var_spec_t *s, const char *const *items, size_t n)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += strlen(items[i]);
    s->values = bf_malloc(total + 1);
    s->value_off = bf_malloc((n + 1) * sizeof *s->value_off);
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        s->value_off[i] = off;
        memcpy(s->values + off, items[i], strlen(items[i]));
        off += strlen(items[i]);
        if (strlen(items[i]) > s->max_value_len)
            s->max_value_len = strlen(items[i]);
    }
    s->value_off[n] = off;
    s->nvalues = n;
}

static void free_values(bf_var_spec_t *s)
{
    free(s->values);
    free(s->value_off);
}

static int64_t eval_i64(bf_vars_t *v, size_t i, int *rc)
{
    char buf[64], tmp[32];
    const char *val;
    size_t len;
    *rc = bf_vars_eval(v, i, buf, &val, &len);
    if (*rc != 0)
        return 0;
    assert_true(len > 0 && len < sizeof tmp);
    memcpy(tmp, val, len);
    tmp[len] = '\0';
    char *end;
    long long x = strtoll(tmp, &end, 10);
    assert_true(*end == '\0');
    return x;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- sequence ------------------------------------------------------------------------------ */

static void test_sequence_single_stream(void **state)
{
    (void)state;
    bf_var_spec_t s = spec(BF_VAR_SEQUENCE);
    s.from = 100;
    bf_vars_t *v = bf_vars_new(&s, 1, 0, 1, 1);
    int rc;
    for (int64_t i = 0; i < 1000; i++)
        assert_int_equal(eval_i64(v, 0, &rc), 100 + i);
    bf_vars_destroy(&v);
    assert_null(v);
    bf_vars_destroy(NULL);
}

static void test_sequence_wrap(void **state)
{
    (void)state;
    bf_var_spec_t s = spec(BF_VAR_SEQUENCE);
    s.from = 5;
    s.to = 9;
    bf_vars_t *v = bf_vars_new(&s, 1, 0, 1, 1);
    int rc;
    int64_t want[] = {5, 6, 7, 8, 9, 5, 6, 7, 8, 9, 5};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_int_equal(eval_i64(v, 0, &rc), want[i]);
    bf_vars_destroy(&v);
    /* no wrap: exhausted after `to`, reported, never repeated */
    s.wrap = 0;
    s.from = 0;
    s.to = 9;
    v = bf_vars_new(&s, 1, 1, 3, 1); /* stream 1 of 3: 1, 4, 7, then 10 > 9 */
    assert_int_equal(eval_i64(v, 0, &rc), 1);
    assert_int_equal(eval_i64(v, 0, &rc), 4);
    assert_int_equal(eval_i64(v, 0, &rc), 7);
    eval_i64(v, 0, &rc);
    assert_int_equal(rc, BF_E_RANGE);
    eval_i64(v, 0, &rc);
    assert_int_equal(rc, BF_E_RANGE);
    bf_vars_destroy(&v);
}

static void test_sequence_64bit_and_negative(void **state)
{
    (void)state;
    bf_var_spec_t s = spec(BF_VAR_SEQUENCE);
    s.from = INT64_MAX - 2;
    s.to = INT64_MAX;
    bf_vars_t *v = bf_vars_new(&s, 1, 0, 1, 1);
    char buf[32];
    const char *val;
    size_t len;
    assert_int_equal(bf_vars_eval(v, 0, buf, &val, &len), 0);
    assert_int_equal(len, 19);
    assert_memory_equal(val, "9223372036854775805", 19);
    int rc;
    assert_int_equal(eval_i64(v, 0, &rc), INT64_MAX - 1);
    assert_int_equal(eval_i64(v, 0, &rc), INT64_MAX);
    assert_int_equal(eval_i64(v, 0, &rc), INT64_MAX - 2); /* wrapped */
    bf_vars_destroy(&v);
    s.from = -3;
    s.to = 2;
    v = bf_vars_new(&s, 1, 0, 1, 1);
    for (int64_t i = -3; i <= 2; i++)
        assert_int_equal(eval_i64(v, 0, &rc), i);
    bf_vars_destroy(&v);
    /* the whole int64 range: span 2^64 */
    s.from = INT64_MIN;
    s.to = INT64_MAX;
    v = bf_vars_new(&s, 1, 0, 1, 1);
    assert_int_equal(eval_i64(v, 0, &rc), INT64_MIN);
    assert_int_equal(eval_i64(v, 0, &rc), INT64_MIN + 1);
    bf_vars_destroy(&v);
}

/* 4 threads x 3 agents, each agent numbering its threads from its own stream base. */
typedef struct worker {
    const bf_var_spec_t *specs;
    size_t nspecs, var;
    uint32_t stream, streams;
    uint64_t seed;
    size_t n;
    char **out; /* n strings */
} worker;

static void *run_worker(void *arg)
{
    worker *w = arg;
    bf_vars_t *v = bf_vars_new(w->specs, w->nspecs, w->stream, w->streams, w->seed);
    char buf[64];
    for (size_t i = 0; i < w->n; i++) {
        const char *val;
        size_t len;
        if (bf_vars_eval(v, w->var, buf, &val, &len) != 0)
            return NULL;
        w->out[i] = bf_strndup(val, len);
    }
    bf_vars_destroy(&v);
    return w;
}

/* Draws n values per stream on STREAMS threads; returns all values sorted. */
static char **draw_fleet(const bf_var_spec_t *s, size_t n, uint64_t seed)
{
    pthread_t th[STREAMS];
    worker w[STREAMS];
    char **all = bf_calloc(n * STREAMS, sizeof *all);
    for (uint32_t agent = 0; agent < AGENTS; agent++) {
        for (uint32_t t = 0; t < THREADS; t++) {
            uint32_t k = agent * THREADS + t; /* stream_base(agent) + thread */
            w[k] = (worker){.specs = s,
                            .nspecs = 1,
                            .var = 0,
                            .stream = k,
                            .streams = STREAMS,
                            .seed = seed,
                            .n = n,
                            .out = all + (size_t)k * n};
            assert_int_equal(pthread_create(&th[k], NULL, run_worker, &w[k]), 0);
        }
    }
    for (size_t k = 0; k < STREAMS; k++) {
        void *r;
        pthread_join(th[k], &r);
        assert_non_null(r);
    }
    qsort(all, n * STREAMS, sizeof *all, cmp_str);
    return all;
}

static void free_all(char **all, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(all[i]);
    free(all);
}

static void test_sequence_unique_across_fleet(void **state)
{
    (void)state;
    enum { N = 2000 };
    bf_var_spec_t s = spec(BF_VAR_SEQUENCE);
    s.from = 1;
    char **all = draw_fleet(&s, N, 99);
    int64_t *nums = bf_malloc(N * STREAMS * sizeof *nums);
    for (size_t i = 0; i < N * STREAMS; i++)
        nums[i] = strtoll(all[i], NULL, 10);
    qsort(nums, N * STREAMS, sizeof *nums, cmp_i64);
    /* exactly 1 .. N*STREAMS: unique and without gaps */
    for (size_t i = 0; i < N * STREAMS; i++)
        assert_int_equal(nums[i], (int64_t)i + 1);
    free(nums);
    free_all(all, N * STREAMS);
}

/* search.prefill draws from .. from + n - 1 in one stream; the load's streams then start after
 * it (bf_vars_skip_sequences), so together they are unique and without gaps (regression: the
 * load's sequence ids repeated the prefill's, turning create into 409s and overwriting with
 * index) */
static void test_sequence_skip_prefill(void **state)
{
    (void)state;
    enum { PREFILL = 500, PER = 300, NSTREAMS = 3 };
    bf_var_spec_t s = spec(BF_VAR_SEQUENCE);
    s.from = 1;
    s.to = PREFILL + PER * NSTREAMS; /* exactly enough, without wrap */
    s.wrap = 0;
    int64_t seen[PREFILL + PER * NSTREAMS + 1] = {0};
    int rc;
    bf_vars_t *pre = bf_vars_new(&s, 1, 0, 1, 5);
    for (int i = 0; i < PREFILL; i++)
        seen[eval_i64(pre, 0, &rc)]++;
    bf_vars_destroy(&pre);
    for (uint32_t k = 0; k < NSTREAMS; k++) {
        bf_vars_t *v = bf_vars_new(&s, 1, k, NSTREAMS, 5);
        bf_vars_skip_sequences(v, PREFILL);
        for (int i = 0; i < PER; i++) {
            int64_t x = eval_i64(v, 0, &rc);
            assert_int_equal(rc, BF_OK);
            assert_true(x > PREFILL && x <= PREFILL + PER * NSTREAMS);
            seen[x]++;
        }
        const char *val;
        size_t len;
        char scratch[32];
        assert_int_equal(bf_vars_eval(v, 0, scratch, &val, &len), BF_E_RANGE); /* span used up */
        bf_vars_destroy(&v);
    }
    for (int x = 1; x <= PREFILL + PER * NSTREAMS; x++)
        assert_int_equal(seen[x], 1);
}

/* ---- range --------------------------------------------------------------------------------- */

static void test_range_bounds_and_uniformity(void **state)
{
    (void)state;
    enum { DRAWS = 200000, BUCKETS = 10 };
    bf_var_spec_t s = spec(BF_VAR_RANGE);
    s.kind = BF_VAR_KIND_NUMBER;
    s.from = -3;
    s.to = 6;
    bf_vars_t *v = bf_vars_new(&s, 1, 0, 1, 12345);
    size_t count[BUCKETS] = {0};
    int rc;
    for (int i = 0; i < DRAWS; i++) {
        int64_t x = eval_i64(v, 0, &rc);
        assert_true(x >= -3 && x <= 6);
        count[x + 3]++;
    }
    /* chi-square with 9 degrees of freedom: 27.9 is the 0.1% tail */
    double chi = 0, e = (double)DRAWS / BUCKETS;
    for (int b = 0; b < BUCKETS; b++)
        chi += ((double)count[b] - e) * ((double)count[b] - e) / e;
    assert_true(chi < 27.9);
    bf_vars_destroy(&v);
    /* from == to */
    s.from = s.to = 12;
    v = bf_vars_new(&s, 1, 0, 1, 1);
    for (int i = 0; i < 100; i++)
        assert_int_equal(eval_i64(v, 0, &rc), 12);
    bf_vars_destroy(&v);
    /* the full int64 range works */
    s.from = INT64_MIN;
    s.to = INT64_MAX;
    v = bf_vars_new(&s, 1, 0, 1, 1);
    int neg = 0, pos = 0;
    for (int i = 0; i < 1000; i++) {
        int64_t x = eval_i64(v, 0, &rc);
        neg += x < 0;
        pos += x > 0;
    }
    assert_true(neg > 400 && pos > 400);
    bf_vars_destroy(&v);
}

static void test_rng_below(void **state)
{
    (void)state;
    bf_rng_t r;
    bf_rng_seed(&r, 1, 2);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(bf_rng_below(&r, 1), 0);
    uint64_t big = (UINT64_C(1) << 63) + 1;
    for (int i = 0; i < 1000; i++)
        assert_true(bf_rng_below(&r, big) < big);
    size_t c[3] = {0};
    for (int i = 0; i < 30000; i++)
        c[bf_rng_below(&r, 3)]++;
    for (int i = 0; i < 3; i++)
        assert_true(c[i] > 9500 && c[i] < 10500);
    /* seeds and streams give different sequences; the same ones repeat */
    bf_rng_t a, b, d;
    bf_rng_seed(&a, 7, 0);
    bf_rng_seed(&b, 7, 0);
    bf_rng_seed(&d, 7, 1);
    uint64_t x = bf_rng_next(&a);
    assert_true(x == bf_rng_next(&b));
    assert_true(x != bf_rng_next(&d));
}

/* ---- uuid and sortable_id ------------------------------------------------------------------ */

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static void test_uuid_v4_format_and_unique(void **state)
{
    (void)state;
    enum { N = 5000 };
    bf_var_spec_t s = spec(BF_VAR_UUID);
    char **all = draw_fleet(&s, N, 42);
    for (size_t i = 0; i < N * STREAMS; i++) {
        const char *u = all[i];
        assert_int_equal(strlen(u), 36);
        for (int k = 0; k < 36; k++) {
            if (k == 8 || k == 13 || k == 18 || k == 23)
                assert_int_equal(u[k], '-');
            else
                assert_true(is_hex(u[k]));
        }
        assert_int_equal(u[14], '4');           /* version 4 */
        assert_non_null(strchr("89ab", u[19])); /* RFC 4122 variant */
        if (i > 0)
            assert_true(strcmp(all[i - 1], u) < 0); /* sorted and unique */
    }
    free_all(all, N * STREAMS);
}

static void test_uuid_reproducible(void **state)
{
    (void)state;
    bf_var_spec_t s = spec(BF_VAR_UUID);
    char b1[40], b2[40], b3[40];
    const char *v1, *v2, *v3;
    size_t l1, l2, l3;
    bf_vars_t *a = bf_vars_new(&s, 1, 3, 8, 1234), *b = bf_vars_new(&s, 1, 3, 8, 1234),
              *c = bf_vars_new(&s, 1, 3, 8, 1235);
    for (int i = 0; i < 10; i++) {
        bf_vars_eval(a, 0, b1, &v1, &l1);
        bf_vars_eval(b, 0, b2, &v2, &l2);
        bf_vars_eval(c, 0, b3, &v3, &l3);
        assert_memory_equal(v1, v2, 36);
        assert_memory_not_equal(v1, v3, 36);
    }
    bf_vars_destroy(&a);
    bf_vars_destroy(&b);
    bf_vars_destroy(&c);
}

static void test_sortable_id_unique_and_time_ordered(void **state)
{
    (void)state;
    enum { N = 5000 };
    bf_var_spec_t s = spec(BF_VAR_SORTABLE_ID);
    time_t before = time(NULL);
    char **all = draw_fleet(&s, N, 7);
    time_t after = time(NULL);
    for (size_t i = 0; i < N * STREAMS; i++) {
        const char *id = all[i];
        assert_int_equal(strlen(id), 20);
        for (int k = 0; k < 20; k++)
            assert_non_null(strchr("0123456789abcdefghijklmnopqrstuv", id[k]));
        if (i > 0)
            assert_true(strcmp(all[i - 1], id) < 0);
        /* the first 32 bits are the Unix time (xid layout): decode 7 characters = 35 bits */
        uint64_t bits = 0;
        for (int k = 0; k < 7; k++)
            bits = (bits << 5) | (uint64_t)(strchr("0123456789abcdefghijklmnopqrstuv", id[k]) -
                                            "0123456789abcdefghijklmnopqrstuv");
        uint64_t sec = bits >> 3;
        assert_true(sec >= (uint64_t)before && sec <= (uint64_t)after);
    }
    free_all(all, N * STREAMS);
}

/* ---- time ---------------------------------------------------------------------------------- */

static size_t eval_str(bf_vars_t *v, size_t i, char *buf, char *out, size_t cap)
{
    const char *val;
    size_t len;
    assert_int_equal(bf_vars_eval(v, i, buf, &val, &len), 0);
    assert_true(len < cap);
    memcpy(out, val, len);
    out[len] = '\0';
    return len;
}

static int digits(const char *s, int n)
{
    for (int i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

static void test_time_formats(void **state)
{
    (void)state;
    bf_var_spec_t s[8] = {spec(BF_VAR_NOW_UTC),      spec(BF_VAR_NOW_LOCAL),
                          spec(BF_VAR_NOW_UTC_LITE), spec(BF_VAR_NOW_UNIX),
                          spec(BF_VAR_NOW_UNIX_MS),  spec(BF_VAR_NOW_UNIX_US),
                          spec(BF_VAR_NOW_UNIX_NS),  spec(BF_VAR_NOW_WITH_FORMAT)};
    s[7].format = "year %Y";
    bf_vars_t *v = bf_vars_new(s, 8, 0, 1, 1);
    char buf[512], out[512];
    time_t now = time(NULL);
    for (int rep = 0; rep < 3; rep++) {
        /* "2022-06-14 09:39:39.420724895 +0000 UTC" (fraction without trailing zeros) */
        size_t n = eval_str(v, 0, buf, out, sizeof out);
        assert_true(n >= 29 && n <= 39);
        assert_true(digits(out, 4) && out[4] == '-' && out[10] == ' ' && out[13] == ':');
        assert_string_equal(out + n - 10, " +0000 UTC");
        if (out[19] == '.')
            assert_true(out[n - 11] != '0');
        n = eval_str(v, 1, buf, out, sizeof out);
        assert_true(n >= 25);
        assert_true(digits(out, 4) && out[4] == '-' && out[10] == ' ');
        n = eval_str(v, 2, buf, out, sizeof out);
        assert_int_equal(n, 23); /* 2006-01-02T15:04:05.000 */
        assert_int_equal(out[10], 'T');
        assert_int_equal(out[19], '.');
        assert_true(digits(out + 20, 3));
        n = eval_str(v, 3, buf, out, sizeof out);
        long long sec = strtoll(out, NULL, 10);
        assert_true(sec >= now && sec <= now + 5);
        assert_int_equal(eval_str(v, 4, buf, out, sizeof out), 13);
        assert_true(strtoll(out, NULL, 10) / 1000 >= now);
        assert_int_equal(eval_str(v, 5, buf, out, sizeof out), 16);
        assert_int_equal(eval_str(v, 6, buf, out, sizeof out), 19);
        n = eval_str(v, 7, buf, out, sizeof out);
        char want[32];
        struct tm tm;
        localtime_r(&now, &tm);
        snprintf(want, sizeof want, "year %d", tm.tm_year + 1900);
        assert_string_equal(out, want);
    }
    bf_vars_destroy(&v);
}

/* ---- list, file, random_array ------------------------------------------------------------- */

static void test_list_uniform(void **state)
{
    (void)state;
    enum { DRAWS = 40000 };
    static const char *items[] = {"a", "bb", "ccc", "dddd"};
    bf_var_spec_t s = spec(BF_VAR_LIST);
    set_values(&s, items, 4);
    bf_vars_t *v = bf_vars_new(&s, 1, 0, 1, 5);
    size_t count[4] = {0};
    char buf[8];
    for (int i = 0; i < DRAWS; i++) {
        const char *val;
        size_t len;
        assert_int_equal(bf_vars_eval(v, 0, buf, &val, &len), 0);
        assert_true(len >= 1 && len <= 4);
        assert_memory_equal(val, items[len - 1], len); /* borrowed from the dictionary */
        count[len - 1]++;
    }
    for (int i = 0; i < 4; i++)
        assert_true(count[i] > 9500 && count[i] < 10500);
    assert_int_equal(bf_var_max_len(&s, 0), 4);
    bf_vars_destroy(&v);
    free_values(&s);
}

static void test_random_array(void **state)
{
    (void)state;
    static const char *items[] = {"x"};
    bf_var_spec_t s[3] = {spec(BF_VAR_LIST), spec(BF_VAR_RANDOM_ARRAY), spec(BF_VAR_RANDOM_ARRAY)};
    set_values(&s[0], items, 1);
    s[1].ref = 0;
    s[1].size = 3;
    s[1].item_string = 1;
    s[1].square_bracket = 1;
    s[1].string_bracket = "\"";
    s[1].kind = BF_VAR_KIND_FRAGMENT;
    bf_var_spec_t seq = spec(BF_VAR_SEQUENCE);
    seq.from = 7;
    bf_var_spec_t all[4] = {s[0], s[1], seq, s[2]};
    all[3].ref = 2;
    all[3].size = 4;
    all[3].item_string = 0;
    all[3].square_bracket = 0;
    bf_vars_t *v = bf_vars_new(all, 4, 0, 1, 1);
    char *buf = bf_malloc(bf_var_max_len(all, 1) > bf_var_max_len(all, 3) ? bf_var_max_len(all, 1)
                                                                          : bf_var_max_len(all, 3));
    char out[128];
    eval_str(v, 1, buf, out, sizeof out);
    assert_string_equal(out, "[\"x\",\"x\",\"x\"]");
    eval_str(v, 3, buf, out, sizeof out);
    assert_string_equal(out, "7,8,9,10");
    assert_true(bf_var_max_len(all, 1) >= strlen("[\"x\",\"x\",\"x\"]"));
    free(buf);
    bf_vars_destroy(&v);
    free_values(&s[0]);
}

static void test_format_integers(void **state)
{
    (void)state;
    char b[32];
    struct {
        uint64_t v;
        const char *s;
    } u[] = {{0, "0"},
             {9, "9"},
             {10, "10"},
             {99, "99"},
             {100, "100"},
             {999, "999"},
             {1000, "1000"},
             {9999, "9999"},
             {10000, "10000"},
             {99999, "99999"},
             {100000, "100000"},
             {999999, "999999"},
             {1000000, "1000000"},
             {9999999999ull, "9999999999"},
             {1234567890123ull, "1234567890123"},
             {UINT64_MAX, "18446744073709551615"}};
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        size_t n = bf_fmt_u64(b, u[i].v);
        b[n] = '\0';
        assert_string_equal(b, u[i].s);
    }
    size_t n = bf_fmt_i64(b, INT64_MIN);
    b[n] = '\0';
    assert_string_equal(b, "-9223372036854775808");
    n = bf_fmt_i64(b, -42);
    b[n] = '\0';
    assert_string_equal(b, "-42");
    assert_string_equal(bf_var_type_name(BF_VAR_SORTABLE_ID), "sortable_id");
    assert_string_equal(bf_var_type_name(BF_VAR_NOW_UNIX_MS), "now_unix_ms");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sequence_single_stream),
        cmocka_unit_test(test_sequence_wrap),
        cmocka_unit_test(test_sequence_64bit_and_negative),
        cmocka_unit_test(test_sequence_unique_across_fleet),
        cmocka_unit_test(test_sequence_skip_prefill),
        cmocka_unit_test(test_range_bounds_and_uniformity),
        cmocka_unit_test(test_rng_below),
        cmocka_unit_test(test_uuid_v4_format_and_unique),
        cmocka_unit_test(test_uuid_reproducible),
        cmocka_unit_test(test_sortable_id_unique_and_time_ordered),
        cmocka_unit_test(test_time_formats),
        cmocka_unit_test(test_list_uniform),
        cmocka_unit_test(test_random_array),
        cmocka_unit_test(test_format_integers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
