/* SPDX-License-Identifier: MIT */
/* bf_vars.c — per-thread variable generators (loadgen-compatible types, reproducible RNG).
 *
 * Everything here runs on the agent's hot path: no allocation after bf_vars_new, no locks, no
 * printf. Integers and hex are written by hand; time strings are rebuilt once per second and
 * only the sub-second digits are written per value.
 */
#include "bf_vars.h"

#include "bf_error.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_vecfile.h"
#include "bf_vecgen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOW_FORMAT_MAX 256 /* bytes of one now_with_format value */

/* ---- clocks (a fixed time for the golden render test) -------------------------------------- */

static int fake_on;
static struct timespec fake_ts;

void bf__vars_fake_clock(const struct timespec *ts)
{
    fake_on = ts != NULL;
    if (ts)
        fake_ts = *ts;
}

/* clock_gettime(id), or the test's fixed time */
static inline void read_clock(clockid_t id, struct timespec *ts)
{
    if (__builtin_expect(fake_on, 0))
        *ts = fake_ts;
    else
        clock_gettime(id, ts);
}

/* ---- RNG: splitmix64 for seeding, xoshiro256** for values ---------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void bf_rng_seed(bf_rng_t *r, uint64_t seed, uint64_t stream)
{
    uint64_t a = seed, b = stream ^ 0x6A09E667F3BCC909ull;
    uint64_t x = splitmix64(&a) ^ splitmix64(&b) * 0xD1B54A32D192ED03ull;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
    if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0)
        r->s[0] = 1; /* the all-zero state is a fixed point */
}

/* ---- integer and hex formatting ------------------------------------------------------------ */

static const char digits2[201] = "00010203040506070809101112131415161718192021222324"
                                 "25262728293031323334353637383940414243444546474849"
                                 "50515253545556575859606162636465666768697071727374"
                                 "75767778798081828384858687888990919293949596979899";

/* decimal digits of v by comparisons: a loop of divisions was a chain of multiplies per digit
 * (perf: most of bf_fmt_u64), and the values of one variable mostly have one length, so the
 * branches predict */
static inline size_t digits_u64(uint64_t v)
{
    if (v < 100000u) {
        if (v < 100u)
            return v < 10u ? 1 : 2;
        return v < 1000u ? 3 : v < 10000u ? 4 : 5;
    }
    size_t n = 6;
    for (uint64_t t = v / 100000u; t >= 10u; t /= 10u)
        n++;
    return n;
}

size_t bf_fmt_u64(char *dst, uint64_t v)
{
    /* digits counted first, then written in place from the end (no temporary and copy: this
     * runs several times per rendered document) */
    size_t n = digits_u64(v);
    char *p = dst + n;
    while (v >= 100) {
        unsigned k = (unsigned)(v % 100) * 2;
        v /= 100;
        *--p = digits2[k + 1];
        *--p = digits2[k];
    }
    if (v >= 10) {
        unsigned k = (unsigned)v * 2;
        *--p = digits2[k + 1];
        *--p = digits2[k];
    } else {
        *--p = (char)('0' + v);
    }
    return n;
}

size_t bf_fmt_i64(char *dst, int64_t v)
{
    if (v < 0) {
        dst[0] = '-';
        return 1 + bf_fmt_u64(dst + 1, (uint64_t)0 - (uint64_t)v);
    }
    return bf_fmt_u64(dst, (uint64_t)v);
}

/* Fixed-width zero-padded decimal. */
static void fmt_fixed(char *dst, uint64_t v, int width)
{
    for (int i = width - 1; i >= 0; i--) {
        dst[i] = (char)('0' + v % 10);
        v /= 10;
    }
}

/* "000102...ff": byte b as two hex digits at 2b */
static const char hex_pairs[513] =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
    "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
    "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
    "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
    "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
    "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
    "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
static const char base32hex[] = "0123456789abcdefghijklmnopqrstuv";

/* ---- type names and sizes ------------------------------------------------------------------ */

/* packed bytes of one vector: float32 4 a dimension, byte 1, bit 1 per 8 dimensions */
static size_t vec_bytes(const bf_var_spec_t *s)
{
    switch ((enum bf_vec_elem)s->elem) {
    case BF_VEC_FLOAT: return 4 * (size_t)s->dims;
    case BF_VEC_BYTE: return s->dims;
    case BF_VEC_BIT: return s->dims / 8;
    }
    return 0;
}

const char *bf_var_type_name(enum bf_var_type type)
{
    switch (type) {
    case BF_VAR_FILE: return "file";
    case BF_VAR_LIST: return "list";
    case BF_VAR_SEQUENCE: return "sequence";
    case BF_VAR_RANGE: return "range";
    case BF_VAR_UUID: return "uuid";
    case BF_VAR_SORTABLE_ID: return "sortable_id";
    case BF_VAR_NOW_LOCAL: return "now_local";
    case BF_VAR_NOW_UTC: return "now_utc";
    case BF_VAR_NOW_UTC_LITE: return "now_utc_lite";
    case BF_VAR_NOW_UNIX: return "now_unix";
    case BF_VAR_NOW_UNIX_MS: return "now_unix_ms";
    case BF_VAR_NOW_UNIX_US: return "now_unix_us";
    case BF_VAR_NOW_UNIX_NS: return "now_unix_ns";
    case BF_VAR_NOW_WITH_FORMAT: return "now_with_format";
    case BF_VAR_RANDOM_ARRAY: return "random_array";
    case BF_VAR_VECTOR: return "vector";
    }
    return "?";
}

size_t bf_var_max_len(const bf_var_spec_t *specs, size_t i)
{
    const bf_var_spec_t *s = &specs[i];
    switch (s->type) {
    case BF_VAR_FILE:
    case BF_VAR_LIST: return s->max_value_len;
    case BF_VAR_SEQUENCE:
    case BF_VAR_RANGE: return 21;
    case BF_VAR_UUID: return 36;
    case BF_VAR_SORTABLE_ID: return 20;
    case BF_VAR_NOW_LOCAL:
    case BF_VAR_NOW_UTC: return 96; /* date, 9 digits, offset and an escaped zone name */
    case BF_VAR_NOW_UTC_LITE: return 23;
    case BF_VAR_NOW_UNIX:
    case BF_VAR_NOW_UNIX_MS:
    case BF_VAR_NOW_UNIX_US:
    case BF_VAR_NOW_UNIX_NS: return 21;
    case BF_VAR_NOW_WITH_FORMAT: return NOW_FORMAT_MAX;
    case BF_VAR_RANDOM_ARRAY: {
        /* The loader forbids random_array of random_array, so this does not recurse twice. */
        size_t item = s->ref != i ? bf_var_max_len(specs, s->ref) : 0;
        size_t quote = s->item_string && s->string_bracket ? strlen(s->string_bracket) : 0;
        return 2 + (size_t)s->size * (item + 2 * quote + 1);
    }
    case BF_VAR_VECTOR: {
        if (s->vfile)
            return s->max_value_len; /* file: */
        size_t bytes = vec_bytes(s);
        if (s->enc == BF_VEC_BASE64)
            return 4 * ((bytes + 2) / 3);
        if (s->elem != BF_VEC_FLOAT)
            return 2 + bytes * 5; /* "-128," */
        return bf_vec_json_max(s->dims, s->precision);
    }
    }
    return 0;
}

void bf_var_spec_cleanup(bf_var_spec_t *spec)
{
    if (spec == NULL)
        return;
    free(spec->name);
    free(spec->path);
    free(spec->values);
    free(spec->value_off);
    free(spec->format);
    free(spec->variable_key);
    free(spec->string_bracket);
    bf_vecfile_close(&spec->vfile);
    memset(spec, 0, sizeof *spec);
}

/* ---- generator state ----------------------------------------------------------------------- */

typedef struct var_state {
    uint64_t n;         /* values drawn so far (sequence) / id counter (sortable_id) */
    int64_t cached_sec; /* time types, sortable_id: second of the cached text, INT64_MIN if
                           none */
    char head[64];      /* time text up to the seconds */
    size_t head_len;
    char tail[48]; /* time text after the fraction (zone) */
    size_t tail_len;
    /* time types: the whole last value and the clock reading it is of (a value is a function
     * of the reading alone, so the same reading is a copy: every document of a render call) */
    int full_ok;
    struct timespec full_ts;
    size_t full_len;
    char full[NOW_FORMAT_MAX];
    /* vector: the elements of the value being written (k, the decimal's integer numerator, for
     * float; the byte for byte and bit) */
    int32_t *vk;
    double *vtmp;      /* normal and unit: the normal draws before quantizing */
    uint8_t *vraw;     /* base64: the packed bytes */
    char *vpool;       /* pool: the values, value k at vpool_off[k] */
    size_t *vpool_off; /* pool + 1 offsets */
    /* file: rows vwin_first + j * stream_count (j < vwin_n) read raw into vwin, the value
     * rendered into vout */
    unsigned char *vwin;
    uint64_t vwin_first;
    size_t vwin_n, vwin_cap;
    bf_buf_t vout;
} var_state;

struct bf_vars {
    const bf_var_spec_t *specs;
    size_t n;
    uint32_t stream_index;
    uint32_t stream_count;
    uint64_t seq_skip; /* bf_vars_skip_sequences */
    uint8_t id_salt;   /* sortable_id: one byte of the seed, so runs of one stream differ */
    bf_rng_t rng;
    var_state *st;
    int hold; /* bf_vars_hold_clock: one clock reading until the next call */
    int have_now;
    struct timespec now;
};

void bf_vars_hold_clock(bf_vars_t *v)
{
    v->hold = 1;
    v->have_now = 0;
}

/* The clock for a time value: the held reading (bf_vars_hold_clock; CLOCK_REALTIME, read at
 * the first time value after the hold), else clock `id` now. */
static inline void now_of(bf_vars_t *v, clockid_t id, struct timespec *ts)
{
    if (v->hold) {
        if (!v->have_now) {
            read_clock(CLOCK_REALTIME, &v->now);
            v->have_now = 1;
        }
        *ts = v->now;
        return;
    }
    read_clock(id, ts);
}

void bf_vars_skip_sequences(bf_vars_t *v, uint64_t n)
{
    v->seq_skip = n;
}

static void vec_pool_fill(bf_vars_t *v, const bf_var_spec_t *s, var_state *st, size_t max_len);

bf_vars_t *bf_vars_new(const bf_var_spec_t *specs, size_t n, uint32_t stream_index,
                       uint32_t stream_count, uint64_t seed)
{
    bf_vars_t *v = bf_calloc(1, sizeof *v);
    v->specs = specs;
    v->n = n;
    v->stream_count = stream_count ? stream_count : 1;
    v->stream_index = stream_index % v->stream_count;
    bf_rng_seed(&v->rng, seed, stream_index);
    uint64_t salt = seed;
    v->id_salt = (uint8_t)(splitmix64(&salt) >> 56);
    v->st = bf_calloc(n ? n : 1, sizeof *v->st);
    for (size_t i = 0; i < n; i++) {
        v->st[i].cached_sec = INT64_MIN;
        if (specs[i].type == BF_VAR_SORTABLE_ID)
            v->st[i].n = bf_rng_next(&v->rng) & 0xFFFFFF;
        if (specs[i].type == BF_VAR_VECTOR) {
            size_t d = specs[i].dims ? specs[i].dims : 1;
            v->st[i].vk = bf_calloc(d, sizeof *v->st[i].vk);
            if (specs[i].dist != BF_VEC_UNIFORM)
                v->st[i].vtmp = bf_calloc(d, sizeof *v->st[i].vtmp);
            if (specs[i].enc == BF_VEC_BASE64)
                v->st[i].vraw = bf_calloc(4 * d, 1);
            if (specs[i].pool)
                vec_pool_fill(v, &specs[i], &v->st[i], bf_var_max_len(specs, i));
            if (specs[i].vfile) {
                var_state *st = &v->st[i];
                st->vwin_cap = bf_vecfile_chunk_rows(specs[i].vfile, 1);
                st->vwin = bf_malloc(st->vwin_cap * bf_vecfile_row_bytes(specs[i].vfile));
                bf_buf_init(&st->vout, 0);
                bf_buf_reserve(&st->vout, specs[i].max_value_len + 1);
            }
        }
    }
    return v;
}

bf_rng_t *bf_vars_rng(bf_vars_t *v)
{
    return &v->rng;
}

void bf_vars_destroy(bf_vars_t **v_p)
{
    if (v_p == NULL || *v_p == NULL)
        return;
    for (size_t i = 0; i < (*v_p)->n; i++) {
        free((*v_p)->st[i].vk);
        free((*v_p)->st[i].vtmp);
        free((*v_p)->st[i].vraw);
        free((*v_p)->st[i].vpool);
        free((*v_p)->st[i].vpool_off);
        free((*v_p)->st[i].vwin);
        bf_buf_cleanup(&(*v_p)->st[i].vout);
    }
    free((*v_p)->st);
    free(*v_p);
    *v_p = NULL;
}

static size_t gen_uuid(bf_vars_t *v, char *dst)
{
    uint64_t a = bf_rng_next(&v->rng), b = bf_rng_next(&v->rng);
    unsigned char u[16];
    for (int i = 0; i < 8; i++) {
        u[i] = (unsigned char)(a >> (56 - 8 * i));
        u[8 + i] = (unsigned char)(b >> (56 - 8 * i));
    }
    u[6] = (unsigned char)((u[6] & 0x0F) | 0x40); /* version 4 */
    u[8] = (unsigned char)((u[8] & 0x3F) | 0x80); /* variant 10 (RFC 4122) */
    /* each byte as a pair of hex digits from a table, at its place in 8-4-4-4-12 */
    static const uint8_t at[16] = {0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34};
    for (int i = 0; i < 16; i++)
        memcpy(dst + at[i], hex_pairs + 2 * u[i], 2);
    dst[8] = dst[13] = dst[18] = dst[23] = '-';
    return 36;
}

/* xid layout (github.com/rs/xid, what loadgen calls uuid): 4 bytes big-endian Unix seconds,
 * 5 bytes of "machine and process" — here the global stream number and a seed byte, so ids are
 * unique across threads and agents by construction — and a 3-byte counter; base32hex encoded
 * (0-9a-v) as 20 characters, so ids sort by time. */
static size_t gen_sortable_id(bf_vars_t *v, var_state *st, char *dst)
{
    /* whole seconds only: the coarse clock (a few ms behind, a fifth of the cost) will do */
    struct timespec ts;
    now_of(v, CLOCK_REALTIME_COARSE, &ts);
    uint32_t sec = (uint32_t)ts.tv_sec;
    uint32_t counter = (uint32_t)(st->n++ & 0xFFFFFF);
    /* The 12 bytes are 96 bits, big-endian, 5 bits per character with 4 zero bits of padding
     * at the end. Taken as groups of 40, 40 and 16 (+4) bits, each character is one shift and
     * mask of a register (no byte array and bit accumulator: a loop-carried chain per
     * character, which perf showed in bf_vars_eval). */
    /* bytes 0-4: seconds, stream >> 24; 5-9: stream & 0xFFFFFF, salt, counter >> 16;
     * 10-11: counter & 0xFFFF, then the padding */
    uint64_t g1 = ((uint64_t)(v->stream_index & 0xFFFFFF) << 16) | ((uint64_t)v->id_salt << 8) |
                  (counter >> 16);
    uint32_t g2 = (counter & 0xFFFF) << 4;
    /* characters 0-7 are the seconds and the stream's top byte, 8-13 the rest of the stream
     * and 6 bits of the salt: the same for every id of one second, so they are kept in
     * st->head and copied (16 bytes; 14 and 15 are written below) */
    if (st->cached_sec != (int64_t)sec) {
        uint64_t g0 = ((uint64_t)sec << 8) | (v->stream_index >> 24);
        for (int k = 0; k < 8; k++) {
            st->head[k] = base32hex[(g0 >> (35 - 5 * k)) & 31];
            st->head[8 + k] = base32hex[(g1 >> (35 - 5 * k)) & 31];
        }
        st->cached_sec = (int64_t)sec;
    }
    memcpy(dst, st->head, 16);
    dst[14] = base32hex[(g1 >> 5) & 31];
    dst[15] = base32hex[g1 & 31];
    for (int k = 0; k < 4; k++)
        dst[16 + k] = base32hex[(g2 >> (15 - 5 * k)) & 31];
    return 20;
}

/* Go's time.String(): "2006-01-02 15:04:05.999999999 -0700 MST" (fraction without trailing
 * zeros, omitted when zero). The date part and the zone are cached per second. */
static size_t gen_go_time(var_state *st, struct timespec ts, char *dst, int utc)
{
    if (st->cached_sec != (int64_t)ts.tv_sec) {
        struct tm tm;
        time_t t = ts.tv_sec;
        if (utc)
            gmtime_r(&t, &tm);
        else
            localtime_r(&t, &tm);
        st->head_len = strftime(st->head, sizeof st->head, "%Y-%m-%d %H:%M:%S", &tm);
        if (utc) {
            memcpy(st->tail, " +0000 UTC", 10);
            st->tail_len = 10;
        } else {
            char z[40];
            size_t zl = strftime(z, sizeof z, " %z %Z", &tm);
            /* zone names are plain letters, but never trust the environment (TZ) */
            size_t k = 0;
            for (size_t i = 0; i < zl && k < sizeof st->tail; i++)
                if ((unsigned char)z[i] >= 0x20 && z[i] != '"' && z[i] != '\\' &&
                    (unsigned char)z[i] < 0x7F)
                    st->tail[k++] = z[i];
            st->tail_len = k;
        }
        st->cached_sec = (int64_t)ts.tv_sec;
    }
    char *p = dst;
    memcpy(p, st->head, st->head_len);
    p += st->head_len;
    if (ts.tv_nsec != 0) {
        char frac[9];
        fmt_fixed(frac, (uint64_t)ts.tv_nsec, 9);
        int n = 9;
        while (n > 0 && frac[n - 1] == '0')
            n--;
        *p++ = '.';
        memcpy(p, frac, (size_t)n);
        p += n;
    }
    memcpy(p, st->tail, st->tail_len);
    p += st->tail_len;
    return (size_t)(p - dst);
}

static size_t gen_utc_lite(var_state *st, struct timespec ts, char *dst)
{
    if (st->cached_sec != (int64_t)ts.tv_sec) {
        struct tm tm;
        time_t t = ts.tv_sec;
        gmtime_r(&t, &tm);
        st->head_len = strftime(st->head, sizeof st->head, "%Y-%m-%dT%H:%M:%S", &tm);
        st->cached_sec = (int64_t)ts.tv_sec;
    }
    memcpy(dst, st->head, st->head_len);
    dst[st->head_len] = '.';
    fmt_fixed(dst + st->head_len + 1, (uint64_t)ts.tv_nsec / 1000000u, 3);
    return st->head_len + 4;
}

static size_t gen_with_format(const bf_var_spec_t *s, var_state *st, struct timespec ts, char *dst)
{
    if (st->cached_sec != (int64_t)ts.tv_sec) {
        /* strftime has no sub-second directive, so one rendering per second is exact. */
        struct tm tm;
        time_t t = ts.tv_sec;
        localtime_r(&t, &tm);
        char tmp[NOW_FORMAT_MAX];
        /* the format is the user's by design (validated text, JSON-escaped at load) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        size_t n = strftime(tmp, sizeof tmp, s->format ? s->format : "", &tm);
#pragma GCC diagnostic pop
        memcpy(st->head, tmp, n < sizeof st->head ? n : 0);
        st->head_len = n < sizeof st->head ? n : 0;
        st->cached_sec = (int64_t)ts.tv_sec;
        if (n >= sizeof st->head) {
            /* long formats are rendered every time (rare) */
            memcpy(dst, tmp, n);
            st->cached_sec = INT64_MIN;
            return n;
        }
    }
    memcpy(dst, st->head, st->head_len);
    return st->head_len;
}

static size_t gen_unix(enum bf_var_type type, struct timespec ts, char *dst)
{
    uint64_t sec = (uint64_t)ts.tv_sec, ns = (uint64_t)ts.tv_nsec;
    uint64_t v;
    switch (type) {
    case BF_VAR_NOW_UNIX_MS: v = sec * 1000u + ns / 1000000u; break;
    case BF_VAR_NOW_UNIX_US: v = sec * 1000000u + ns / 1000u; break;
    case BF_VAR_NOW_UNIX_NS: v = sec * 1000000000u + ns; break;
    default: v = sec; break;
    }
    return bf_fmt_u64(dst, v);
}

/* ---- vectors ------------------------------------------------------------------------------- */

static const uint32_t pow10_u32[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};

/* The elements of a fresh value into st->vk: for float the integer k of k / 10^precision, for
 * byte and bit the signed byte. */
static void vec_draw(bf_vars_t *v, const bf_var_spec_t *s, var_state *st)
{
    int32_t *k = st->vk;
    if (s->elem != BF_VEC_FLOAT) {
        uint32_t d = s->elem == BF_VEC_BIT ? s->dims / 8 : s->dims;
        if (s->dist == BF_VEC_NORMAL && s->elem == BF_VEC_BYTE) {
            bf_vec_normal_fill(&v->rng, st->vtmp, d);
            bf_vec_quantize(st->vtmp, d, 32.0, 128.0, k);
            for (uint32_t i = 0; i < d; i++)
                k[i] = k[i] > 127 ? 127 : k[i];
            return;
        }
        /* eight bytes a draw */
        for (uint32_t i = 0; i < d; i += 8) {
            uint64_t x = bf_rng_next(&v->rng);
            for (uint32_t j = 0; j < 8 && i + j < d; j++)
                k[i + j] = (int32_t)(int8_t)(uint8_t)(x >> (8 * j));
        }
        return;
    }
    int64_t scale = pow10_u32[s->precision];
    switch ((enum bf_vec_dist)s->dist) {
    case BF_VEC_UNIFORM: {
        uint64_t span = 2 * (uint64_t)scale + 1;
        for (uint32_t i = 0; i < s->dims; i++)
            k[i] = (int32_t)((int64_t)bf_rng_below(&v->rng, span) - scale);
        return;
    }
    case BF_VEC_NORMAL:
        bf_vec_normal_fill(&v->rng, st->vtmp, s->dims);
        bf_vec_quantize(st->vtmp, s->dims, (double)scale, (double)(BF_VEC_MAX_ABS * scale), k);
        return;
    case BF_VEC_UNIT: {
        bf_vec_normal_fill(&v->rng, st->vtmp, s->dims);
        /* four partial sums: one was a chain of dependent additions (latency-bound) */
        const double *z = st->vtmp;
        double a[4] = {0, 0, 0, 0};
        uint32_t i = 0;
        for (; i + 4 <= s->dims; i += 4)
            for (int j = 0; j < 4; j++)
                a[j] += z[i + j] * z[i + j];
        for (; i < s->dims; i++)
            a[0] += z[i] * z[i];
        double n2 = (a[0] + a[1]) + (a[2] + a[3]);
        double inv = n2 > 0 ? (double)scale / sqrt(n2) : 0;
        bf_vec_quantize(st->vtmp, s->dims, inv, (double)scale, k);
        if (n2 <= 0)
            k[0] = (int32_t)scale;
        return;
    }
    }
}

/* One vector value into dst (room for bf_var_max_len). */
static size_t gen_vector(bf_vars_t *v, const bf_var_spec_t *s, var_state *st, char *dst)
{
    vec_draw(v, s, st);
    const int32_t *k = st->vk;
    uint32_t d = s->elem == BF_VEC_BIT ? s->dims / 8 : s->dims;
    if (s->enc == BF_VEC_BASE64) {
        uint8_t *raw = st->vraw;
        if (s->elem != BF_VEC_FLOAT) {
            for (uint32_t i = 0; i < d; i++)
                raw[i] = (uint8_t)k[i];
            return bf_vec_base64(dst, raw, d);
        }
        return bf_vec_write_base64_f32(dst, k, d, s->precision, s->little);
    }
    if (s->elem != BF_VEC_FLOAT) {
        char *p = dst;
        *p++ = '[';
        for (uint32_t i = 0; i < d; i++) {
            p += bf_fmt_i64(p, k[i]);
            *p++ = ',';
        }
        p[-1] = ']'; /* d >= 1: the last comma */
        return (size_t)(p - dst);
    }
    return bf_vec_write_json(dst, k, d, s->precision);
}

/* A pooled vector variable's values: s->pool vectors drawn from v's RNG, back to back. */
static void vec_pool_fill(bf_vars_t *v, const bf_var_spec_t *s, var_state *st, size_t max_len)
{
    st->vpool = bf_malloc((size_t)s->pool * max_len);
    st->vpool_off = bf_malloc(((size_t)s->pool + 1) * sizeof *st->vpool_off);
    size_t off = 0;
    for (uint32_t k = 0; k < s->pool; k++) {
        st->vpool_off[k] = off;
        off += gen_vector(v, s, st, st->vpool + off);
    }
    st->vpool_off[s->pool] = off;
}

/* "9.3.0-SNAPSHOT" -> 9, 3 */
static void major_minor(const char *ver, int *major, int *minor)
{
    *major = *minor = 0;
    if (ver)
        sscanf(ver, "%d.%d", major, minor);
}

int bf_var_vector_check(const bf_var_spec_t *specs, size_t n, const char *distribution,
                        const char *version, char *msg, size_t size)
{
    if (size)
        msg[0] = '\0';
    int major, minor;
    major_minor(version, &major, &minor);
    int os = distribution && strcmp(distribution, "opensearch") == 0;
    for (size_t i = 0; i < n; i++) {
        const bf_var_spec_t *s = &specs[i];
        if (s->type != BF_VAR_VECTOR || s->enc != BF_VEC_BASE64)
            continue;
        int need_major = os ? 3 : 9, need_minor = os ? 9 : 3;
        if (major < need_major || (major == need_major && minor < need_minor)) {
            snprintf(msg, size,
                     "variables[%zu] (%s): encoding: base64 needs %s %d.%d or later "
                     "(base64 vectors in bulk requests%s), but the cluster is %s %s; use "
                     "encoding: json, or a newer cluster",
                     i, s->name, os ? "OpenSearch" : "Elasticsearch", need_major, need_minor,
                     os ? ", k-NN plugin" : "", os ? "OpenSearch" : "Elasticsearch",
                     version ? version : "?");
            return BF_E_INVAL;
        }
        if (s->elem == BF_VEC_FLOAT && s->little != os) {
            snprintf(msg, size,
                     "variables[%zu] (%s): byte_order: %s, but %s reads base64 float "
                     "vectors as %s-endian float32; set byte_order: %s",
                     i, s->name, s->little ? "little" : "big",
                     os ? "OpenSearch k-NN" : "Elasticsearch", os ? "little" : "big",
                     os ? "little" : "big");
            return BF_E_INVAL;
        }
    }
    return BF_OK;
}

uint64_t bf_vars_docs_left(const bf_vars_t *v)
{
    uint64_t left = UINT64_MAX;
    for (size_t i = 0; i < v->n; i++) {
        const bf_var_spec_t *s = &v->specs[i];
        if (!s->vfile || !s->passes)
            continue;
        uint64_t end = v->seq_skip + (uint64_t)s->passes * s->nvalues, first = v->seq_skip;
        uint64_t mine = 0; /* k = seq_skip + j * S + stream_index < end: j < mine */
        if (first + v->stream_index < end)
            mine = (end - first - v->stream_index - 1) / v->stream_count + 1;
        uint64_t l = mine > v->st[i].n ? mine - v->st[i].n : 0;
        if (l < left)
            left = l;
    }
    return left;
}

/* A vector file's next row for this generator, rendered into st->vout. Rows are partitioned as
 * sequences are: stream s of S takes rows s, s + S, ..., so each row is sent once per pass over
 * the fleet and a sequence from 0 gives its row number. The generator reads its next rows a
 * window at a time (bf_vecfile_chunk_rows: up to the file's end, where the next window starts
 * over at the stream's first row). Returns 0, or BF_E_PARSE when the rows cannot be read
 * (logged with the file and row). */
static int file_vector(bf_vars_t *v, const bf_var_spec_t *s, var_state *st, const char **val,
                       size_t *len)
{
    uint64_t rows = s->nvalues, S = v->stream_count;
    uint64_t k = (v->seq_skip + st->n * S + v->stream_index) % rows;
    uint64_t j = k >= st->vwin_first && (k - st->vwin_first) % S == 0 ? (k - st->vwin_first) / S
                                                                      : UINT64_MAX;
    if (st->vwin_n == 0 || j >= st->vwin_n) {
        size_t n = (size_t)((rows - 1 - k) / S + 1);
        if (n > st->vwin_cap)
            n = st->vwin_cap;
        char msg[512];
        if (bf_vecfile_read(s->vfile, k, S, n, st->vwin, msg, sizeof msg) != BF_OK) {
            bf_error("variables %s: %s", s->name, msg);
            st->vwin_n = 0;
            return BF_E_PARSE;
        }
        st->vwin_first = k;
        st->vwin_n = n;
        j = 0;
    }
    st->n++;
    bf_buf_reset(&st->vout);
    bf_vecfile_render(s->vfile, st->vwin + j * bf_vecfile_row_bytes(s->vfile),
                      s->enc == BF_VEC_BASE64, s->little, st->vraw, &st->vout);
    *val = st->vout.data;
    *len = st->vout.len;
    return BF_OK;
}

int bf_vars_eval(bf_vars_t *v, size_t i, char *scratch, const char **val, size_t *len)
{
    const bf_var_spec_t *s = &v->specs[i];
    var_state *st = &v->st[i];
    *val = scratch;
    switch (s->type) {
    case BF_VAR_FILE:
    case BF_VAR_LIST: {
        size_t k = s->nvalues > 1 ? (size_t)bf_rng_below(&v->rng, s->nvalues) : 0;
        *val = s->values + s->value_off[k];
        *len = s->value_off[k + 1] - s->value_off[k];
        return BF_OK;
    }
    case BF_VAR_SEQUENCE: {
        uint64_t span = (uint64_t)s->to - (uint64_t)s->from + 1u; /* 0 means 2^64 */
        uint64_t k = v->seq_skip + st->n * v->stream_count + v->stream_index;
        if (span != 0 && k >= span) {
            if (!s->wrap)
                return BF_E_RANGE;
            k %= span;
        }
        st->n++;
        *len = bf_fmt_i64(scratch, (int64_t)((uint64_t)s->from + k));
        return BF_OK;
    }
    case BF_VAR_RANGE: {
        uint64_t span = (uint64_t)s->to - (uint64_t)s->from + 1u;
        uint64_t k = bf_rng_below(&v->rng, span);
        *len = bf_fmt_i64(scratch, (int64_t)((uint64_t)s->from + k));
        return BF_OK;
    }
    case BF_VAR_UUID: *len = gen_uuid(v, scratch); return BF_OK;
    case BF_VAR_SORTABLE_ID: *len = gen_sortable_id(v, st, scratch); return BF_OK;
    case BF_VAR_NOW_LOCAL:
    case BF_VAR_NOW_UTC:
    case BF_VAR_NOW_UTC_LITE:
    case BF_VAR_NOW_UNIX:
    case BF_VAR_NOW_UNIX_MS:
    case BF_VAR_NOW_UNIX_US:
    case BF_VAR_NOW_UNIX_NS:
    case BF_VAR_NOW_WITH_FORMAT: {
        struct timespec ts;
        now_of(v, CLOCK_REALTIME, &ts);
        if (st->full_ok && st->full_ts.tv_sec == ts.tv_sec && st->full_ts.tv_nsec == ts.tv_nsec) {
            *val = st->full; /* the same reading: the same text */
            *len = st->full_len;
            return BF_OK;
        }
        size_t n;
        if (s->type == BF_VAR_NOW_LOCAL || s->type == BF_VAR_NOW_UTC)
            n = gen_go_time(st, ts, scratch, s->type == BF_VAR_NOW_UTC);
        else if (s->type == BF_VAR_NOW_UTC_LITE)
            n = gen_utc_lite(st, ts, scratch);
        else if (s->type == BF_VAR_NOW_WITH_FORMAT)
            n = gen_with_format(s, st, ts, scratch);
        else
            n = gen_unix(s->type, ts, scratch);
        st->full_ok = n <= sizeof st->full;
        if (st->full_ok) {
            memcpy(st->full, scratch, n);
            st->full_len = n;
            st->full_ts = ts;
        }
        *len = n;
        return BF_OK;
    }
    case BF_VAR_RANDOM_ARRAY: {
        char *p = scratch;
        size_t ql = s->item_string && s->string_bracket ? strlen(s->string_bracket) : 0;
        if (s->square_bracket)
            *p++ = '[';
        for (uint32_t k = 0; k < s->size; k++) {
            if (k)
                *p++ = ',';
            if (ql) {
                memcpy(p, s->string_bracket, ql);
                p += ql;
            }
            const char *iv;
            size_t il;
            if (s->ref == i || v->specs[s->ref].type == BF_VAR_RANDOM_ARRAY) {
                il = 0; /* the loader rejects this; never recurse */
                iv = p;
            } else {
                int rc = bf_vars_eval(v, s->ref, p, &iv, &il);
                if (rc != BF_OK)
                    return rc;
            }
            if (iv != p)
                memmove(p, iv, il);
            p += il;
            if (ql) {
                memcpy(p, s->string_bracket, ql);
                p += ql;
            }
        }
        if (s->square_bracket)
            *p++ = ']';
        *len = (size_t)(p - scratch);
        return BF_OK;
    }
    case BF_VAR_VECTOR:
        if (s->vfile)
            return file_vector(v, s, st, val, len);
        if (s->pool) {
            size_t k = s->pool > 1 ? (size_t)bf_rng_below(&v->rng, s->pool) : 0;
            *val = st->vpool + st->vpool_off[k];
            *len = st->vpool_off[k + 1] - st->vpool_off[k];
            return BF_OK;
        }
        *len = gen_vector(v, s, st, scratch);
        return BF_OK;
    }
    *len = 0;
    return BF_OK;
}
