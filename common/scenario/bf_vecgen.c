/* SPDX-License-Identifier: MIT */
/* bf_vecgen.c — normal draws, quantizing and the two encodings of drawn vectors (bf_vecgen.h).
 * Where the time goes is recorded in bench/RESULTS.md (the vector budget): one normal draw and one
 * element written per dimension, so each step here is a short loop without a branch that
 * depends on the value's sign and without a libm call on the common path. */
#include "bf_vecgen.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

/* ---- tables, built once -------------------------------------------------------------------- */

#define ZIG_C 256
#define ZIG_R 3.6541528853610088
#define ZIG_V 0.00492867323399

static double zig_x[ZIG_C + 1]; /* layer i spans [0, zig_x[i]); zig_x[1] = R, zig_x[C] = 0 */
static double zig_r[ZIG_C];     /* zig_x[i + 1] / zig_x[i]: |u| below it is inside the layer */
static uint16_t b64_pair[4096]; /* two base64 characters of 12 bits, in memory order */
static uint32_t digits3[1000];  /* "000" to "999" and a fourth byte, in memory order */
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void tables_build(void)
{
    /* Doornik (2005), zigNorInit: layer 0 is the base strip with the tail, of area V */
    double f = exp(-0.5 * ZIG_R * ZIG_R);
    zig_x[0] = ZIG_V / f;
    zig_x[1] = ZIG_R;
    zig_x[ZIG_C] = 0;
    for (int i = 2; i < ZIG_C; i++) {
        zig_x[i] = sqrt(-2.0 * log(ZIG_V / zig_x[i - 1] + f));
        f = exp(-0.5 * zig_x[i] * zig_x[i]);
    }
    for (int i = 0; i < ZIG_C; i++)
        zig_r[i] = zig_x[i + 1] / zig_x[i];
    for (unsigned v = 0; v < 1000; v++) {
        char three[4] = {(char)('0' + v / 100), (char)('0' + v / 10 % 10), (char)('0' + v % 10), 0};
        memcpy(&digits3[v], three, 4);
    }
    for (unsigned v = 0; v < 4096; v++) {
        char two[2] = {b64_alphabet[v >> 6], b64_alphabet[v & 63]};
        memcpy(&b64_pair[v], two, 2);
    }
}

static inline void tables_ready(void)
{
    pthread_once(&tables_once, tables_build);
}

/* ---- normal draws -------------------------------------------------------------------------- */

/* a uniform double in (0, 1): never 0, so its log is finite */
static inline double open_unit(bf_rng_t *r)
{
    return ((double)(bf_rng_next(r) >> 11) + 0.5) * 0x1p-53;
}

/* the tail beyond R (Marsaglia 1964, as Doornik's DRanNormalTail) */
static double zig_tail(bf_rng_t *r, int negative)
{
    double x, y;
    do {
        x = log(open_unit(r)) / ZIG_R;
        y = log(open_unit(r));
    } while (-2.0 * y < x * x);
    return negative ? x - ZIG_R : ZIG_R - x;
}

/* the rare path: u (in [-1, 1)) fell outside layer i's rectangle core */
static double zig_slow(bf_rng_t *r, unsigned i, double u)
{
    for (;;) {
        if (i == 0)
            return zig_tail(r, u < 0);
        double x = u * zig_x[i];
        double f0 = exp(-0.5 * (zig_x[i] * zig_x[i] - x * x));
        double f1 = exp(-0.5 * (zig_x[i + 1] * zig_x[i + 1] - x * x));
        if (f1 + open_unit(r) * (f0 - f1) < 1.0)
            return x;
        uint64_t b = bf_rng_next(r);
        i = (unsigned)(b & 0xff);
        u = (double)(b >> 11) * 0x1p-52 - 1.0;
        if (fabs(u) < zig_r[i])
            return u * zig_x[i];
    }
}

void bf_vec_normal_fill(bf_rng_t *r, double *out, size_t n)
{
    tables_ready();
    /* the generator's state in locals (registers), written back only around the rare path:
     * bf_rng_next on r->s kept four stores a draw in the loop */
    uint64_t s0 = r->s[0], s1 = r->s[1], s2 = r->s[2], s3 = r->s[3];
    for (size_t j = 0; j < n; j++) {
        /* xoshiro256**, as bf_rng_next */
        uint64_t x = s1 * 5;
        uint64_t b = ((x << 7) | (x >> 57)) * 9;
        uint64_t t = s1 << 17;
        s2 ^= s0;
        s3 ^= s1;
        s1 ^= s2;
        s0 ^= s3;
        s2 ^= t;
        s3 = (s3 << 45) | (s3 >> 19);
        unsigned i = (unsigned)(b & 0xff);
        double u = (double)(b >> 11) * 0x1p-52 - 1.0;
        if (__builtin_expect(fabs(u) < zig_r[i], 1)) {
            out[j] = u * zig_x[i];
            continue;
        }
        r->s[0] = s0, r->s[1] = s1, r->s[2] = s2, r->s[3] = s3;
        out[j] = zig_slow(r, i, u);
        s0 = r->s[0], s1 = r->s[1], s2 = r->s[2], s3 = r->s[3];
    }
    r->s[0] = s0, r->s[1] = s1, r->s[2] = s2, r->s[3] = s3;
}

/* ---- quantizing ---------------------------------------------------------------------------- */

/* one element, as the vector code below computes it */
static inline int32_t quantize1(double x, double mult, double lim)
{
    double y = x * mult;
    y = y == y ? y : 0.0; /* NaN */
    y = y > lim ? lim : y;
    y = y < -lim ? -lim : y;
    int32_t t = (int32_t)y;
    double f = y - (double)t; /* exact: |y| < 2^31 */
    return t + (f >= 0.5) - (f <= -0.5);
}

#if defined(__SSE2__)
#include <emmintrin.h>

void bf_vec_quantize(const double *x, size_t n, double mult, double lim, int32_t *k)
{
    /* Two at a time: NaN to 0, clamp, then the nearest integer by adding 1.5 * 2^52, which
     * leaves round-half-even(y) in the low bits of the sum (|y| < 2^51); a half rounded to the
     * even side toward zero is then moved away from it, as quantize1 rounds. */
    const __m128d magic = _mm_set1_pd(0x1.8p52), half = _mm_set1_pd(0.5), nhalf = _mm_set1_pd(-0.5),
                  m2 = _mm_set1_pd(mult), hi = _mm_set1_pd(lim), lo = _mm_set1_pd(-lim),
                  zero = _mm_setzero_pd();
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        __m128d y = _mm_mul_pd(_mm_loadu_pd(x + i), m2);
        y = _mm_and_pd(y, _mm_cmpeq_pd(y, y));
        y = _mm_min_pd(_mm_max_pd(y, lo), hi);
        __m128d m = _mm_add_pd(y, magic);
        __m128i q = _mm_sub_epi64(_mm_castpd_si128(m), _mm_castpd_si128(magic));
        __m128d d = _mm_sub_pd(y, _mm_sub_pd(m, magic));
        /* a half rounded toward zero (to the even side): y > 0 and d = 0.5, or y < 0 and
         * d = -0.5; a true comparison is all ones, -1 as an integer */
        __m128d up = _mm_and_pd(_mm_cmpge_pd(d, half), _mm_cmpgt_pd(y, zero));
        __m128d down = _mm_and_pd(_mm_cmple_pd(d, nhalf), _mm_cmplt_pd(y, zero));
        q = _mm_sub_epi64(q, _mm_castpd_si128(up));
        q = _mm_add_epi64(q, _mm_castpd_si128(down));
        _mm_storel_epi64((__m128i *)(void *)(k + i), _mm_shuffle_epi32(q, _MM_SHUFFLE(2, 0, 2, 0)));
    }
    if (i < n)
        k[i] = quantize1(x[i], mult, lim);
}
#else
void bf_vec_quantize(const double *x, size_t n, double mult, double lim, int32_t *k)
{
    for (size_t i = 0; i < n; i++)
        k[i] = quantize1(x[i], mult, lim);
}
#endif

/* ---- JSON decimals ------------------------------------------------------------------------- */

static const uint32_t pow10_u32[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};

size_t bf_vec_json_max(size_t n, unsigned prec)
{
    return 2 + n * (5 + (size_t)prec); /* "[" "]" and each "-16." digits "," */
}

/* One element and a comma: sign, integer part, '.', then all six digits of the fraction scaled
 * to 10^6 (fp * 10^(6 - prec)), the comma put after the first prec of them. The store runs up to
 * 6 - prec bytes past the comma: room the next element's bytes give (a caller writes the last
 * element with put_last). The sign is stored always and kept by advancing (no branch on it). */
static inline char *put_elem(char *p, int32_t k, unsigned prec, uint32_t div, uint32_t up)
{
    uint32_t neg = (uint32_t)k >> 31;
    uint32_t a = ((uint32_t)k ^ (0u - neg)) + neg; /* |k| */
    *p = '-';
    p += neg;
    uint32_t ip, fp;
    if (prec == 6) { /* a constant divisor: a multiply */
        ip = a / 1000000u;
        fp = a - ip * 1000000u;
    } else {
        ip = a / div;
        fp = (a - ip * div) * up;
    }
    if (__builtin_expect(ip >= 10, 0)) {
        *p++ = (char)('0' + ip / 10);
        ip %= 10;
    }
    p[0] = (char)('0' + ip);
    p[1] = '.';
    /* two groups of three digits, four bytes a store: the fourth byte of each is overwritten by
     * the next store or the comma */
    uint32_t hi = fp / 1000u, lo = fp - hi * 1000u;
    memcpy(p + 2, &digits3[hi], 4);
    memcpy(p + 5, &digits3[lo], 4);
    p += 2 + prec;
    *p = ',';
    return p + 1;
}

/* The last element, written to its exact length (no store past it), then ']'. */
static char *put_last(char *p, int32_t k, unsigned prec)
{
    uint32_t a = k < 0 ? (uint32_t)0 - (uint32_t)k : (uint32_t)k;
    if (k < 0)
        *p++ = '-';
    uint32_t ip = a / pow10_u32[prec], fp = a - ip * pow10_u32[prec];
    if (ip >= 10) {
        *p++ = (char)('0' + ip / 10);
        ip %= 10;
    }
    *p++ = (char)('0' + ip);
    *p++ = '.';
    for (unsigned j = prec; j > 0; j--) {
        p[j - 1] = (char)('0' + fp % 10);
        fp /= 10;
    }
    p += prec;
    *p++ = ']';
    return p;
}

size_t bf_vec_write_json(char *dst, const int32_t *k, size_t n, unsigned prec)
{
    tables_ready();
    char *p = dst;
    *p++ = '[';
    uint32_t div = pow10_u32[prec], up = pow10_u32[6 - prec];
    if (prec == 6) {
        for (size_t i = 0; i + 1 < n; i++)
            p = put_elem(p, k[i], 6, 1000000u, 1);
    } else {
        for (size_t i = 0; i + 1 < n; i++)
            p = put_elem(p, k[i], prec, div, up);
    }
    p = put_last(p, k[n - 1], prec);
    return (size_t)(p - dst);
}

/* ---- base64 -------------------------------------------------------------------------------- */

/* 24 bits as four characters */
static inline char *put24(char *p, uint32_t g)
{
    memcpy(p, &b64_pair[g >> 12], 2);
    memcpy(p + 2, &b64_pair[g & 0xfff], 2);
    return p + 4;
}

/* the padded end: the last 1 or 2 bytes */
static char *put_tail(char *p, const uint8_t *src, size_t left)
{
    uint32_t x = (uint32_t)src[0] << 16 | (left > 1 ? (uint32_t)src[1] << 8 : 0);
    p[0] = b64_alphabet[x >> 18];
    p[1] = b64_alphabet[(x >> 12) & 63];
    p[2] = left > 1 ? b64_alphabet[(x >> 6) & 63] : '=';
    p[3] = '=';
    return p + 4;
}

size_t bf_vec_base64(char *dst, const uint8_t *src, size_t n)
{
    tables_ready();
    char *p = dst;
    size_t i = 0;
    for (; i + 3 <= n; i += 3)
        p = put24(p, (uint32_t)src[i] << 16 | (uint32_t)src[i + 1] << 8 | src[i + 2]);
    if (i < n)
        p = put_tail(p, src + i, n - i);
    return (size_t)(p - dst);
}

typedef int32_t v4i __attribute__((vector_size(16)));
typedef float v4f __attribute__((vector_size(16)));
typedef uint32_t v4u __attribute__((vector_size(16)));

/* three float32 words in the stream's byte order (w[0] first, most significant byte first):
 * twelve bytes as sixteen characters */
static inline char *put_words(char *p, uint32_t w0, uint32_t w1, uint32_t w2)
{
    p = put24(p, w0 >> 8);
    p = put24(p, (w0 & 0xff) << 16 | w1 >> 16);
    p = put24(p, (w1 & 0xffff) << 8 | w2 >> 24);
    return put24(p, w2 & 0xffffff);
}

static inline uint32_t stream_word(float f, int little)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return little ? __builtin_bswap32(u) : u;
}

size_t bf_vec_write_base64_f32(char *dst, const int32_t *k, size_t n, unsigned prec, int little)
{
    tables_ready();
    float scale = (float)pow10_u32[prec];
    v4f scale4 = {scale, scale, scale, scale};
    char *p = dst;
    size_t i = 0;
    /* twelve elements a step: three 4-wide IEEE divisions (correctly rounded, as the scalar) */
    for (; i + 12 <= n; i += 12) {
        uint32_t w[12];
        for (int j = 0; j < 3; j++) {
            v4i ki;
            memcpy(&ki, k + i + 4 * j, sizeof ki);
            v4f f = __builtin_convertvector(ki, v4f) / scale4;
            v4u u;
            memcpy(&u, &f, sizeof u);
            memcpy(w + 4 * j, &u, sizeof u);
        }
        if (little)
            for (int j = 0; j < 12; j++)
                w[j] = __builtin_bswap32(w[j]);
        for (int j = 0; j < 12; j += 3)
            p = put_words(p, w[j], w[j + 1], w[j + 2]);
    }
    for (; i + 3 <= n; i += 3)
        p = put_words(p, stream_word((float)k[i] / scale, little),
                      stream_word((float)k[i + 1] / scale, little),
                      stream_word((float)k[i + 2] / scale, little));
    if (i < n) { /* one or two elements: 4 or 8 bytes, the last 1 or 2 of them padded */
        uint8_t b[8];
        size_t nb = 4 * (n - i);
        for (size_t j = 0; i + j < n; j++) {
            uint32_t w = stream_word((float)k[i + j] / scale, little);
            b[4 * j] = (uint8_t)(w >> 24);
            b[4 * j + 1] = (uint8_t)(w >> 16);
            b[4 * j + 2] = (uint8_t)(w >> 8);
            b[4 * j + 3] = (uint8_t)w;
        }
        p += bf_vec_base64(p, b, nb);
    }
    return (size_t)(p - dst);
}
