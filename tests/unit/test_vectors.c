/* SPDX-License-Identifier: MIT */
/* test_vectors.c — the `vector` variable (docs/vectors.md): loaded from scenario text and
 * rendered through a query body, as the agents render them.
 *   - JSON floats round-trip: each element's text, read by strtof, is the float32 whose bytes
 *     the base64 encoding of the same seed carries (big- and little-endian), and the base64 text
 *     equals a reference encoder's (written here, bit by bit, not the renderer's table code);
 *   - draws are seeded: the same seed and stream give the same vector, another stream another,
 *     and one seed's first values are pinned for each distribution;
 *   - unit vectors have length 1, uniform elements stay in [-1, 1], bytes in -128..127, bit
 *     vectors dims/8 bytes; the loader refuses what no engine reads (bit dims not a multiple of 8,
 *     unit bytes, precision on a byte vector) with the key's position;
 *   - pool: N: every value one of N vectors;
 *   - the probe's check: base64 needs Elasticsearch 9.3 / OpenSearch 3.9 in its byte order;
 *   - dims that disagree with the mapped field's knn_vector dimension / dense_vector dims. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_buf.h"
#include "bf_error.h"
#include "bf_scenario.h"
#include "bf_template.h"
#include "bf_vars.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAD "name: v\ntarget: {hosts: [http://127.0.0.1:9200]}\n"
#define TAIL "document:\n  source: '{\"v\":$[[v]]}'\n"

typedef struct rendered {
    bf_scenario_t *sc;
    bf_tmpl_t *t;
    bf_gen_t *g;
} rendered;

/* Loads HEAD + `var` (one variables: item named v) + TAIL; fails the test on an error. */
static rendered open_var(const char *var, uint64_t seed, uint32_t stream)
{
    char text[1024];
    snprintf(text, sizeof text, HEAD "variables:\n  - %s\n" TAIL, var);
    rendered r = {0};
    bf_diag_t d = {0};
    if (bf_scenario_load_text(text, strlen(text), "vec", NULL, &r.sc, &d) != BF_OK)
        fail_msg("load %s: %s", var, d.msg);
    if (bf_tmpl_compile_body(r.sc, "{\"v\":$[[v]]}", "body", &r.t, &d) != BF_OK)
        fail_msg("compile: %s", d.msg);
    bf_partition_t p = {stream, 4, seed};
    r.g = bf_gen_new(r.t, &p);
    return r;
}

static void close_var(rendered *r)
{
    bf_gen_destroy(&r->g);
    bf_tmpl_destroy(&r->t);
    bf_scenario_destroy(&r->sc);
}

/* The next value of v as a JSON value (caller decrefs). */
static json_t *next_value(rendered *r, bf_buf_t *out)
{
    bf_buf_reset(out);
    assert_int_equal(bf_tmpl_render_body(r->t, r->g, out), BF_OK);
    json_error_t e;
    json_t *doc = json_loadb(out->data, out->len, 0, &e);
    if (doc == NULL)
        fail_msg("not JSON (%s): %.200s", e.text, out->data);
    json_t *v = json_incref(json_object_get(doc, "v"));
    json_decref(doc);
    return v;
}

/* The reference encoder: RFC 4648 base64, one bit at a time. */
static void ref_base64(const uint8_t *src, size_t n, char *dst)
{
    static const char *A = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t bits = 8 * n, o = 0;
    for (size_t b = 0; b < bits; b += 6) {
        unsigned v = 0;
        for (size_t k = 0; k < 6; k++) {
            size_t bit = b + k;
            unsigned x = bit < bits ? (src[bit / 8] >> (7 - bit % 8)) & 1u : 0u;
            v = v << 1 | x;
        }
        dst[o++] = A[v];
    }
    while (o % 4)
        dst[o++] = '=';
    dst[o] = '\0';
}

/* The element texts of the JSON array in `body` (the rendered {"v":[...]}), read by strtof:
 * the literal decimal text, not jansson's double. Returns the count. */
static size_t floats_of(const char *body, float *out, size_t max)
{
    const char *p = strchr(body, '[');
    assert_non_null(p);
    size_t n = 0;
    p++;
    while (*p && *p != ']') {
        char *end;
        assert_true(n < max);
        out[n++] = strtof(p, &end);
        assert_true(end != p);
        p = *end == ',' ? end + 1 : end;
    }
    return n;
}

static void test_json_float_round_trip_and_base64(void **state)
{
    (void)state;
    static const char *const dists[] = {"uniform", "normal", "unit"};
    enum { DIMS = 67 };
    bf_buf_t out;
    bf_buf_init(&out, 0);
    for (size_t di = 0; di < 3; di++) {
        for (unsigned prec = 1; prec <= 6; prec += 5) {
            char js[200], be[200], le[200];
            snprintf(js, sizeof js,
                     "{name: v, type: vector, dims: %d, distribution: %s, "
                     "precision: %u}",
                     DIMS, dists[di], prec);
            snprintf(be, sizeof be,
                     "{name: v, type: vector, dims: %d, distribution: %s, "
                     "precision: %u, encoding: base64}",
                     DIMS, dists[di], prec);
            snprintf(le, sizeof le,
                     "{name: v, type: vector, dims: %d, distribution: %s, "
                     "precision: %u, encoding: base64, byte_order: little}",
                     DIMS, dists[di], prec);
            rendered rj = open_var(js, 42, 1), rb = open_var(be, 42, 1), rl = open_var(le, 42, 1);
            for (int k = 0; k < 50; k++) {
                json_t *vj = next_value(&rj, &out);
                assert_true(json_is_array(vj));
                assert_int_equal(json_array_size(vj), DIMS);
                float f[DIMS];
                assert_int_equal(floats_of(out.data, f, DIMS), DIMS);
                /* precision: exactly prec fraction digits */
                const char *dot = strchr(out.data, '.');
                assert_non_null(dot);
                assert_true(dot[prec + 1] == ',' || dot[prec + 1] == ']');
                double n2 = 0;
                for (int i = 0; i < DIMS; i++) {
                    n2 += (double)f[i] * f[i];
                    if (di == 0)
                        assert_true(f[i] >= -1.0f && f[i] <= 1.0f);
                }
                if (di == 2 && prec == 6)
                    assert_true(fabs(sqrt(n2) - 1.0) < 1e-4);
                uint8_t bytes_be[4 * DIMS], bytes_le[4 * DIMS];
                for (int i = 0; i < DIMS; i++) {
                    uint32_t u;
                    memcpy(&u, &f[i], 4);
                    for (int b = 0; b < 4; b++) {
                        bytes_be[4 * i + b] = (uint8_t)(u >> (24 - 8 * b));
                        bytes_le[4 * i + b] = (uint8_t)(u >> (8 * b));
                    }
                }
                char want[4 * DIMS * 2];
                json_t *vb = next_value(&rb, &out);
                assert_true(json_is_string(vb));
                ref_base64(bytes_be, sizeof bytes_be, want);
                assert_string_equal(json_string_value(vb), want);
                json_t *vl = next_value(&rl, &out);
                ref_base64(bytes_le, sizeof bytes_le, want);
                assert_string_equal(json_string_value(vl), want);
                json_decref(vj);
                json_decref(vb);
                json_decref(vl);
            }
            close_var(&rj);
            close_var(&rb);
            close_var(&rl);
        }
    }
    bf_buf_cleanup(&out);
}

static void test_seeded(void **state)
{
    (void)state;
    const char *var = "{name: v, type: vector, dims: 32, distribution: normal}";
    bf_buf_t a, b;
    bf_buf_init(&a, 0);
    bf_buf_init(&b, 0);
    rendered r1 = open_var(var, 7, 0), r2 = open_var(var, 7, 0), r3 = open_var(var, 7, 1),
             r4 = open_var(var, 8, 0);
    for (int k = 0; k < 20; k++) {
        json_t *x = next_value(&r1, &a), *y = next_value(&r2, &b);
        assert_string_equal(a.data, b.data);
        json_t *z = next_value(&r3, &b);
        assert_string_not_equal(a.data, b.data);
        json_t *w = next_value(&r4, &b);
        assert_string_not_equal(a.data, b.data);
        json_decref(x);
        json_decref(y);
        json_decref(z);
        json_decref(w);
    }
    close_var(&r1);
    close_var(&r2);
    close_var(&r3);
    close_var(&r4);
    bf_buf_cleanup(&a);
    bf_buf_cleanup(&b);
}

/* The seeded stream, pinned: seed 7, stream 0 of 4 renders these first values. They change
 * only when the drawing method does (normal draws: the ziggurat, docs/vectors.md
 * "Reproducibility"); a change must be said there. */
static void test_seeded_pinned(void **state)
{
    (void)state;
    static const struct {
        const char *var, *want;
    } pins[] = {
        /* the unit vector is the normal one's direction, the bytes round(32 z) of it */
        {"{name: v, type: vector, dims: 3, distribution: normal}",
         "{\"v\":[0.059216,-1.546405,-0.274354]}"},
        {"{name: v, type: vector, dims: 3, distribution: unit, precision: 4}",
         "{\"v\":[0.0377,-0.9839,-0.1746]}"},
        {"{name: v, type: vector, dims: 4, element_type: byte, distribution: normal}",
         "{\"v\":[2,-49,-9,-20]}"},
        /* uniform floats: one bounded integer draw each, unchanged by the ziggurat */
        {"{name: v, type: vector, dims: 3, distribution: uniform}",
         "{\"v\":[0.275113,-0.136302,-0.981074]}"},
    };
    bf_buf_t out;
    bf_buf_init(&out, 0);
    for (size_t i = 0; i < sizeof pins / sizeof pins[0]; i++) {
        rendered r = open_var(pins[i].var, 7, 0);
        assert_int_equal(bf_tmpl_render_body(r.t, r.g, &out), BF_OK);
        bf_buf_append(&out, "", 1);
        if (strcmp(out.data, pins[i].want) != 0)
            fail_msg("%s: %s, pinned %s", pins[i].var, out.data, pins[i].want);
        bf_buf_reset(&out);
        close_var(&r);
    }
    bf_buf_cleanup(&out);
}

static void test_byte_and_bit(void **state)
{
    (void)state;
    bf_buf_t out;
    bf_buf_init(&out, 0);
    rendered rb = open_var("{name: v, type: vector, dims: 100, element_type: byte}", 1, 0);
    rendered rn = open_var("{name: v, type: vector, dims: 100, element_type: byte, "
                           "distribution: normal}",
                           1, 0);
    rendered rt = open_var("{name: v, type: vector, dims: 64, element_type: bit}", 1, 0);
    rendered r64 = open_var("{name: v, type: vector, dims: 100, element_type: byte, "
                            "encoding: base64}",
                            1, 0);
    int seen_neg = 0, seen_pos = 0;
    for (int k = 0; k < 30; k++) {
        json_t *v = next_value(&rb, &out);
        assert_int_equal(json_array_size(v), 100);
        uint8_t bytes[100];
        for (size_t i = 0; i < 100; i++) {
            json_t *e = json_array_get(v, i);
            assert_true(json_is_integer(e));
            json_int_t x = json_integer_value(e);
            assert_true(x >= -128 && x <= 127);
            seen_neg |= x < 0;
            seen_pos |= x > 0;
            bytes[i] = (uint8_t)(int8_t)x;
        }
        json_decref(v);
        /* the base64 byte vector of the same seed and stream is the same bytes */
        json_t *s = next_value(&r64, &out);
        char want[200];
        ref_base64(bytes, 100, want);
        assert_string_equal(json_string_value(s), want);
        json_decref(s);
        v = next_value(&rn, &out);
        assert_int_equal(json_array_size(v), 100);
        json_decref(v);
        v = next_value(&rt, &out);
        assert_int_equal(json_array_size(v), 8);
        json_decref(v);
    }
    assert_true(seen_neg && seen_pos);
    close_var(&rb);
    close_var(&rn);
    close_var(&rt);
    close_var(&r64);
    bf_buf_cleanup(&out);
}

static void test_pool(void **state)
{
    (void)state;
    bf_buf_t out;
    bf_buf_init(&out, 0);
    rendered r = open_var("{name: v, type: vector, dims: 16, pool: 4, encoding: base64}", 3, 0);
    char seen[4][128];
    int nseen = 0;
    for (int k = 0; k < 200; k++) {
        json_t *v = next_value(&r, &out);
        const char *s = json_string_value(v);
        assert_non_null(s);
        int i = 0;
        while (i < nseen && strcmp(seen[i], s) != 0)
            i++;
        if (i == nseen) {
            assert_true(nseen < 4); /* never a fifth distinct vector */
            snprintf(seen[nseen++], sizeof seen[0], "%s", s);
        }
        json_decref(v);
    }
    assert_int_equal(nseen, 4); /* 200 seeded picks among 4 reach all of them */
    close_var(&r);
    bf_buf_cleanup(&out);
}

/* A mistake refused by the loader, its message containing `want`. */
static void refused(const char *var, const char *want)
{
    char text[1024];
    snprintf(text, sizeof text, HEAD "variables:\n  - %s\n" TAIL, var);
    bf_scenario_t *sc = NULL;
    bf_diag_t d = {0};
    assert_int_not_equal(bf_scenario_load_text(text, strlen(text), "vec", NULL, &sc, &d), BF_OK);
    if (strstr(d.msg, want) == NULL)
        fail_msg("'%s': message '%s' lacks '%s'", var, d.msg, want);
    assert_non_null(strstr(d.msg, "vec:4:"));
}

static void test_refused(void **state)
{
    (void)state;
    refused("{name: v, type: vector}", "needs dims");
    refused("{name: v, type: vector, dims: 12, element_type: bit}", "multiple of 8");
    refused("{name: v, type: vector, dims: 8, element_type: byte, distribution: unit}",
            "unit vectors are float");
    refused("{name: v, type: vector, dims: 8, element_type: byte, precision: 3}", "precision");
    refused("{name: v, type: vector, dims: 8, byte_order: little}", "byte_order");
    refused("{name: v, type: vector, dims: 8, precision: 7}", "precision");
    refused("{name: v, type: vector, dims: 0}", "dims");
    refused("{name: v, type: vector, dims: 8, encoding: hex}", "encoding");
    refused("{name: v, type: vector, dims: 16384, pool: 65536}", "MiB a thread");
}

static void test_engine_check(void **state)
{
    (void)state;
    char text[1024];
    snprintf(text, sizeof text,
             HEAD "variables:\n  - {name: j, type: vector, dims: 4}\n"
                  "  - {name: v, type: vector, dims: 4, encoding: base64}\n" TAIL);
    bf_scenario_t *sc = NULL;
    bf_diag_t d = {0};
    assert_int_equal(bf_scenario_load_text(text, strlen(text), "vec", NULL, &sc, &d), BF_OK);
    const bf_var_spec_t *vs = bf_scenario_variables(sc);
    size_t n = bf_scenario_variable_count(sc);
    char msg[512];
    assert_int_equal(bf_var_vector_check(vs, n, "elasticsearch", "9.3.0", msg, sizeof msg), 0);
    assert_int_equal(bf_var_vector_check(vs, n, "elasticsearch", "10.0.1", msg, sizeof msg), 0);
    assert_int_equal(bf_var_vector_check(vs, n, "elasticsearch", "9.2.4", msg, sizeof msg),
                     BF_E_INVAL);
    assert_non_null(strstr(msg, "Elasticsearch 9.3"));
    assert_non_null(strstr(msg, "9.2.4"));
    assert_non_null(strstr(msg, "variables[1] (v)"));
    assert_int_equal(bf_var_vector_check(vs, n, "elasticsearch", "8.19.0", msg, sizeof msg),
                     BF_E_INVAL);
    assert_int_equal(bf_var_vector_check(vs, n, "opensearch", "3.8.0", msg, sizeof msg),
                     BF_E_INVAL);
    assert_non_null(strstr(msg, "OpenSearch 3.9"));
    /* the right version, the wrong byte order */
    assert_int_equal(bf_var_vector_check(vs, n, "opensearch", "3.9.0", msg, sizeof msg),
                     BF_E_INVAL);
    assert_non_null(strstr(msg, "byte_order: little"));
    /* JSON vectors go to any version */
    assert_int_equal(bf_var_vector_check(vs, 1, "elasticsearch", "7.17.0", msg, sizeof msg), 0);
    bf_scenario_destroy(&sc);
}

/* Loads a scenario whose mappings (inline) map field emb as `field`, the variable v as `var`
 * and the source `{"emb": $[[v]]}`; the load's code, its message in msg. */
static int load_mapped(const char *field, const char *var, char *msg, size_t size)
{
    char text[1024];
    snprintf(text, sizeof text,
             HEAD "index:\n  mappings: {properties: {meta: {properties: {emb: %s}}}}\n"
                  "variables:\n  - %s\ndocument:\n  source: '{\"meta\": {\"emb\": $[[v]]}}'\n",
             field, var);
    bf_scenario_t *sc = NULL;
    bf_diag_t d = {0};
    int rc = bf_scenario_load_text(text, strlen(text), "vec", NULL, &sc, &d);
    snprintf(msg, size, "%s", d.msg);
    bf_scenario_destroy(&sc);
    return rc;
}

/* A vector whose dims differ from its mapped field's (knn_vector dimension, dense_vector dims)
 * is refused at load with the variable's position and both figures: the cluster would reject
 * every document. Agreeing dims, and a field the mappings do not map as a vector, load. */
static void test_dims_against_mapping(void **state)
{
    (void)state;
    char msg[1024];
    assert_int_equal(load_mapped("{type: knn_vector, dimension: 8}",
                                 "{name: v, type: vector, dims: 16}", msg, sizeof msg),
                     BF_E_INVAL);
    if (strstr(msg, "vec:6:35:") == NULL)
        fail_msg("%s", msg);
    assert_non_null(strstr(msg, "16 dimensions"));
    assert_non_null(strstr(msg, "knn_vector with dimension 8"));
    assert_non_null(strstr(msg, "field 'emb'"));
    assert_int_equal(load_mapped("{type: dense_vector, dims: 4, element_type: bit}",
                                 "{name: v, type: vector, dims: 32, element_type: bit}", msg,
                                 sizeof msg),
                     BF_E_INVAL);
    assert_non_null(strstr(msg, "dense_vector with dims 4"));
    assert_int_equal(load_mapped("{type: knn_vector, dimension: 8}",
                                 "{name: v, type: vector, dims: 8}", msg, sizeof msg),
                     BF_OK);
    assert_int_equal(load_mapped("{type: dense_vector, dims: 32, element_type: bit}",
                                 "{name: v, type: vector, dims: 32, element_type: bit}", msg,
                                 sizeof msg),
                     BF_OK);
    assert_int_equal(
        load_mapped("{type: dense_vector}", "{name: v, type: vector, dims: 16}", msg, sizeof msg),
        BF_OK);
    assert_int_equal(
        load_mapped("{type: keyword}", "{name: v, type: vector, dims: 16}", msg, sizeof msg),
        BF_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_float_round_trip_and_base64),
        cmocka_unit_test(test_seeded),
        cmocka_unit_test(test_seeded_pinned),
        cmocka_unit_test(test_byte_and_bit),
        cmocka_unit_test(test_pool),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_engine_check),
        cmocka_unit_test(test_dims_against_mapping),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
