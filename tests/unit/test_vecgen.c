/* SPDX-License-Identifier: MIT */
/* test_vecgen.c — the arithmetic of drawn vectors (bf_vecgen.h), on chosen inputs:
 *   - JSON decimals equal a reference written with snprintf from k's integer and fraction
 *     parts, for every precision, lengths 1..40, random k and the edges (0, ±1 unit, ±(10^p - 1),
 *     ±10^p, ±16 * 10^p); strtof of each element is float32(k) / float32(10^p); no byte is
 *     stored past bf_vec_json_max;
 *   - quantizing: -0.0, denormals and NaN give 0 (written "0.000000", never "-0.000000" or
 *     "nan"); 0.9999996 at precision 6 rounds up a digit to "1.000000"; halves go away from
 *     zero; ±1e300 and ±inf clamp to ±16; random doubles equal libm round() of the clamped
 *     product;
 *   - base64 of float32 in both byte orders and of raw bytes equals a reference encoder (bit by
 *     bit) for every length 0..40 (every padding case, the twelve-element vector path and its
 *     tail);
 *   - normal draws: never NaN or infinite, mean 0 and variance 1, a chi-square over 82 bins
 *     against the normal CDF, the tail beyond the ziggurat's R as often as the CDF says, and
 *     the first draws of one seed pinned (the seeded stream: docs/vectors.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_vecgen.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t P10[7] = {1, 10, 100, 1000, 10000, 100000, 1000000};

/* the reference: "[" each "-"? int "." prec digits "," ... "]" by snprintf on integer parts */
static size_t ref_json(char *dst, size_t cap, const int32_t *k, size_t n, unsigned prec)
{
    size_t o = 0;
    dst[o++] = '[';
    for (size_t i = 0; i < n; i++) {
        uint32_t a = k[i] < 0 ? (uint32_t)(-(int64_t)k[i]) : (uint32_t)k[i];
        o += (size_t)snprintf(dst + o, cap - o, "%s%u.%0*u%s", k[i] < 0 ? "-" : "", a / P10[prec],
                              (int)prec, a % P10[prec], i + 1 < n ? "," : "]");
    }
    return o;
}

/* a random k in [-16 * 10^p, 16 * 10^p], or one of the edges */
static int32_t pick_k(unsigned prec, unsigned *seed)
{
    int32_t m = (int32_t)P10[prec];
    int32_t edges[] = {0,        1,      -1,      m - 1,  -(m - 1), m,          -m,           m + 1,
                       -(m + 1), 16 * m, -16 * m, 10 * m, -10 * m,  10 * m - 1, -(10 * m - 1)};
    unsigned r = (unsigned)rand_r(seed);
    if (r % 4 == 0)
        return edges[(r / 4) % (sizeof edges / sizeof edges[0])];
    int64_t span = 32 * (int64_t)m + 1;
    int64_t x = ((int64_t)rand_r(seed) << 16 ^ rand_r(seed)) % span;
    return (int32_t)(x - 16 * (int64_t)m);
}

static void test_json_reference(void **state)
{
    (void)state;
    unsigned seed = 1;
    for (unsigned prec = 1; prec <= 6; prec++) {
        for (size_t n = 1; n <= 40; n++) {
            for (int round = 0; round < 30; round++) {
                int32_t k[40];
                for (size_t i = 0; i < n; i++)
                    k[i] = pick_k(prec, &seed);
                size_t max = bf_vec_json_max(n, prec);
                char *got = malloc(max + 16);
                memset(got, 0x5a, max + 16);
                size_t len = bf_vec_write_json(got, k, n, prec);
                char want[40 * 16];
                size_t wlen = ref_json(want, sizeof want, k, n, prec);
                assert_true(len <= max);
                for (size_t b = max; b < max + 16; b++)
                    assert_int_equal((unsigned char)got[b], 0x5a); /* nothing past the room */
                if (len != wlen || memcmp(got, want, len) != 0)
                    fail_msg("prec %u n %zu: got %.*s want %.*s", prec, n, (int)len, got, (int)wlen,
                             want);
                /* each element read back is the float32 the base64 encoding carries */
                got[len] = '\0';
                const char *p = got + 1;
                for (size_t i = 0; i < n; i++) {
                    char *end;
                    float f = strtof(p, &end);
                    assert_true(f == (float)k[i] / (float)P10[prec]);
                    p = end + 1;
                }
                free(got);
            }
        }
    }
}

/* the JSON of one double quantized at precision 6 with distribution normal's clamp */
static const char *json6(double x, char *buf)
{
    int32_t k;
    bf_vec_quantize(&x, 1, 1e6, BF_VEC_MAX_ABS * 1e6, &k);
    buf[bf_vec_write_json(buf, &k, 1, 6)] = '\0';
    return buf;
}

static void test_quantize_edges(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(json6(-0.0, b), "[0.000000]");
    assert_string_equal(json6(-1e-7, b), "[0.000000]");
    assert_string_equal(json6(-4.9e-7, b), "[0.000000]");
    assert_string_equal(json6(5e-324, b), "[0.000000]"); /* the smallest denormal */
    assert_string_equal(json6(-DBL_MIN / 4, b), "[0.000000]");
    assert_string_equal(json6(NAN, b), "[0.000000]");
    assert_string_equal(json6(-NAN, b), "[0.000000]");
    assert_string_equal(json6(0.9999996, b), "[1.000000]");
    assert_string_equal(json6(-0.9999996, b), "[-1.000000]");
    assert_string_equal(json6(0.9999994, b), "[0.999999]");
    assert_string_equal(json6(0.0999996, b), "[0.100000]");
    assert_string_equal(json6(9.9999996, b), "[10.000000]");
    assert_string_equal(json6(-9.9999996, b), "[-10.000000]");
    assert_string_equal(json6(15.9999996, b), "[16.000000]");
    assert_string_equal(json6(16.4, b), "[16.000000]");
    assert_string_equal(json6(1e300, b), "[16.000000]");
    assert_string_equal(json6(-1e300, b), "[-16.000000]");
    assert_string_equal(json6(INFINITY, b), "[16.000000]");
    assert_string_equal(json6(-INFINITY, b), "[-16.000000]");
    assert_string_equal(json6(1e-300, b), "[0.000000]");
    assert_string_equal(json6(0.088170, b), "[0.088170]");
    assert_string_equal(json6(-0.0881704, b), "[-0.088170]");
    /* halves away from zero, and the largest double below a half down; both quantize paths
     * (pairs and the odd last one) */
    static const double x[] = {
        0.5,       -0.5,       1.5, -1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994,
        4503599.5, -1048576.5, 7.0};
    static const int32_t want[] = {1, -1, 2, -2, 3, -3, 0, 0, 4503600, -1048577, 7};
    int32_t k[11];
    bf_vec_quantize(x, 11, 1.0, 1e9, k);
    for (int i = 0; i < 11; i++)
        assert_int_equal(k[i], want[i]);
    /* random magnitudes from 1e-12 to 1e12 against libm round() of the clamped product */
    unsigned seed = 7;
    enum { N = 20001 };
    static double r[N];
    static int32_t q[N];
    for (int i = 0; i < N; i++) {
        double m = (double)rand_r(&seed) / RAND_MAX * 2.0 - 1.0;
        r[i] = m * pow(10.0, (double)(rand_r(&seed) % 25) - 12.0);
    }
    static const double mults[] = {10.0, 1e3, 1e6, 32.0};
    for (int mi = 0; mi < 4; mi++) {
        double lim = mults[mi] == 32.0 ? 128.0 : 16.0 * mults[mi];
        bf_vec_quantize(r, N, mults[mi], lim, q);
        for (int i = 0; i < N; i++) {
            double y = fmin(fmax(r[i] * mults[mi], -lim), lim);
            if (q[i] != (int32_t)round(y))
                fail_msg("x %.17g mult %g: %d, round() %g", r[i], mults[mi], q[i], round(y));
        }
    }
}

/* RFC 4648 base64, one bit at a time */
static size_t ref_base64(const uint8_t *src, size_t n, char *dst)
{
    static const char *A = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t bits = 8 * n, o = 0;
    for (size_t bt = 0; bt < bits; bt += 6) {
        unsigned v = 0;
        for (size_t j = 0; j < 6; j++) {
            size_t bit = bt + j;
            v = v << 1 | (bit < bits ? (src[bit / 8] >> (7 - bit % 8)) & 1u : 0u);
        }
        dst[o++] = A[v];
    }
    while (o % 4)
        dst[o++] = '=';
    return o;
}

static void test_base64_reference(void **state)
{
    (void)state;
    unsigned seed = 3;
    char got[1024], want[1024];
    for (size_t n = 0; n <= 40; n++) {
        uint8_t raw[40];
        for (size_t i = 0; i < n; i++)
            raw[i] = (uint8_t)rand_r(&seed);
        size_t len = bf_vec_base64(got, raw, n);
        size_t wlen = ref_base64(raw, n, want);
        assert_int_equal(len, wlen);
        assert_memory_equal(got, want, len);
    }
    for (unsigned prec = 1; prec <= 6; prec++) {
        for (size_t n = 1; n <= 40; n++) {
            int32_t k[40];
            for (size_t i = 0; i < n; i++)
                k[i] = pick_k(prec, &seed);
            for (int little = 0; little <= 1; little++) {
                uint8_t bytes[160];
                for (size_t i = 0; i < n; i++) {
                    float f = (float)k[i] / (float)P10[prec];
                    uint32_t u;
                    memcpy(&u, &f, 4);
                    for (int b = 0; b < 4; b++)
                        bytes[4 * i + (size_t)b] =
                            (uint8_t)(little ? u >> (8 * b) : u >> (24 - 8 * b));
                }
                size_t len = bf_vec_write_base64_f32(got, k, n, prec, little);
                size_t wlen = ref_base64(bytes, 4 * n, want);
                assert_int_equal(len, wlen);
                if (memcmp(got, want, len) != 0)
                    fail_msg("n %zu prec %u %s: %.*s want %.*s", n, prec, little ? "le" : "be",
                             (int)len, got, (int)wlen, want);
            }
        }
    }
}

static double phi(double x)
{
    return 0.5 * erfc(-x / sqrt(2.0));
}

static void test_normal(void **state)
{
    (void)state;
    enum { N = 2000000, BINS = 80 };
    double *x = malloc(N * sizeof *x);
    bf_rng_t r;
    bf_rng_seed(&r, 12345, 0);
    /* the seeded stream, pinned: these change only with the method (docs/vectors.md) */
    bf_vec_normal_fill(&r, x, 4);
    static const double first[4] = {0x1.d3eaf8cbab554p-5, 0x1.31969cd6483cap+0,
                                    0x1.ea062e50fb699p+0, 0x1.e22372cef4507p-1};
    for (int i = 0; i < 4; i++)
        if (x[i] != first[i])
            fail_msg("draw %d: %.17g, pinned %.17g", i, x[i], first[i]);
    bf_vec_normal_fill(&r, x, N);
    double sum = 0, sum2 = 0;
    long bins[BINS + 2] = {0}, tail = 0;
    for (size_t i = 0; i < N; i++) {
        assert_true(isfinite(x[i]) && fabs(x[i]) < 40.0);
        sum += x[i];
        sum2 += x[i] * x[i];
        tail += fabs(x[i]) > 3.6541528853610088;
        int b = x[i] < -4.0 ? 0 : x[i] >= 4.0 ? BINS + 1 : 1 + (int)((x[i] + 4.0) * 10.0);
        bins[b == BINS + 1 && x[i] < 4.0 ? BINS : b]++; /* x just below 4 rounded up */
    }
    double mean = sum / N, var = sum2 / N - mean * mean;
    assert_true(fabs(mean) < 5.0 / sqrt((double)N));
    assert_true(fabs(var - 1.0) < 5.0 * sqrt(2.0 / N));
    double chi2 = 0;
    for (int b = 0; b < BINS + 2; b++) {
        double lo = b == 0 ? -INFINITY : -4.0 + (b - 1) / 10.0;
        double hi = b == BINS + 1 ? INFINITY : -4.0 + b / 10.0;
        double e = N * (phi(hi) - phi(lo));
        chi2 += (bins[b] - e) * (bins[b] - e) / e;
    }
    /* 81 degrees of freedom: mean 81, sd 12.7; 160 is p < 1e-8 */
    if (chi2 > 160.0)
        fail_msg("chi-square %.1f over %d bins", chi2, BINS + 2);
    double et = 2.0 * N * (1.0 - phi(3.6541528853610088));
    assert_true(fabs((double)tail - et) < 5.0 * sqrt(et));
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_reference),
        cmocka_unit_test(test_quantize_edges),
        cmocka_unit_test(test_base64_reference),
        cmocka_unit_test(test_normal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
