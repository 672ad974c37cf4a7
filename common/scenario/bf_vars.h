/* SPDX-License-Identifier: MIT */
/* bf_vars.h — variable specifications and their per-thread generators.
 *
 * A scenario's `variables:` list (docs/scenario.md) becomes an array of bf_var_spec_t owned by the
 * scenario (immutable after load). Each worker thread owns one bf_vars_t holding the RNG,
 * sequence counters and time caches of every variable, so drawing a value takes no lock and no
 * allocation. Types follow INFINI loadgen (docs/internals/loadgen-compat.md §1.4), with these
 * deliberate differences, all documented per type below:
 *   - values are reproducible: the RNG is xoshiro256** seeded by splitmix64 from the run seed
 *     and the thread's global stream number (Blackman & Vigna, https://prng.di.unimi.it/);
 *   - `sequence` is partitioned over the fleet's streams so values are unique across threads and
 *     agents: the n-th value drawn by stream s of S is from + n*S + s;
 *   - `uuid` is a real RFC 4122 version 4 UUID; loadgen's time-ordered "uuid" (an xid) is
 *     `sortable_id` (alias `xid`).
 * Every value is JSON-string-safe: it can be copied between quotes without escaping.
 */
#ifndef BF_VARS_H
#define BF_VARS_H

#include <stddef.h>
#include <stdint.h>

enum bf_var_type {
    BF_VAR_FILE = 0,        /* a random line of a dictionary file (+ `data` items) */
    BF_VAR_LIST,            /* a random item of `data` */
    BF_VAR_SEQUENCE,        /* partitioned counter in [from, to] (loadgen sequence/sequence64) */
    BF_VAR_RANGE,           /* uniform random integer in [from, to] */
    BF_VAR_UUID,            /* RFC 4122 v4, 36 characters */
    BF_VAR_SORTABLE_ID,     /* xid layout: 20 base32hex characters, time-ordered (alias xid) */
    BF_VAR_NOW_LOCAL,       /* "2022-06-14 17:39:39.420724895 +0800 CST" (Go's time.String) */
    BF_VAR_NOW_UTC,         /* the same in UTC: "... +0000 UTC" */
    BF_VAR_NOW_UTC_LITE,    /* "2022-06-14T09:39:39.420" */
    BF_VAR_NOW_UNIX,        /* epoch seconds */
    BF_VAR_NOW_UNIX_MS,     /* epoch milliseconds (alias now_unix_in_ms) */
    BF_VAR_NOW_UNIX_US,     /* epoch microseconds (alias now_unix_in_micro) */
    BF_VAR_NOW_UNIX_NS,     /* epoch nanoseconds (alias now_unix_in_nano) */
    BF_VAR_NOW_WITH_FORMAT, /* strftime(3) of local time with `format` */
    BF_VAR_RANDOM_ARRAY,    /* `size` values of `variable_key` joined by commas */
    BF_VAR_VECTOR,          /* `dims` numbers: a JSON array or a base64 string (docs/vectors.md) */
};

/* vector: what one element is (Elasticsearch dense_vector element_type; OpenSearch knn_vector
 * data_type float / byte / binary) */
enum bf_vec_elem {
    BF_VEC_FLOAT = 0, /* IEEE-754 float32; JSON: a decimal with `precision` fraction digits */
    BF_VEC_BYTE,      /* signed 8-bit integer, -128..127 */
    BF_VEC_BIT,       /* dims bits packed 8 to a byte; JSON: dims/8 signed bytes */
};

/* vector: how the elements are drawn */
enum bf_vec_dist {
    BF_VEC_UNIFORM = 0, /* float: uniform in [-1, 1]; byte: -128..127; bit: fair bits */
    BF_VEC_NORMAL,      /* float: N(0, 1) clamped to [-16, 16]; byte: round(32 z) clamped */
    BF_VEC_UNIT,        /* float: a uniformly random direction of length 1 (cosine, dot_product)
                         */
};

/* vector: how a value is written */
enum bf_vec_enc {
    BF_VEC_JSON = 0, /* [e0,e1,...] */
    BF_VEC_BASE64,   /* "..." : RFC 4648 base64 of the packed elements (float32 in byte_order) */
};

/* How a variable's value is re-used (loadgen: runtime_variables / runtime_body_line_variables). */
enum bf_var_scope {
    BF_VAR_SCOPE_DOCUMENT = 0, /* one value per document, shared by all its placeholders */
    BF_VAR_SCOPE_REQUEST,      /* one value per bulk request, shared by all its documents */
};

/* What a value is in JSON terms; decides how a placeholder outside a JSON string renders. */
enum bf_var_kind {
    BF_VAR_KIND_NUMBER = 0, /* digits (and '-'): rendered bare everywhere */
    BF_VAR_KIND_STRING,     /* escaped string content: quoted when outside a JSON string */
    BF_VAR_KIND_LITERAL,    /* list/file whose items are all JSON literals: bare */
    BF_VAR_KIND_FRAGMENT,   /* random_array: JSON text; escaped again inside a JSON string */
};

typedef struct bf_var_spec {
    char *name; /* [A-Za-z0-9_.-]+, unique in the scenario */
    enum bf_var_type type;
    enum bf_var_scope scope;
    enum bf_var_kind kind; /* set by the loader from type and values */
    /* file, list: every value JSON-escaped (no quotes), concatenated; value i is
     * values[value_off[i] .. value_off[i+1]). Empty lines are skipped. */
    char *path; /* file: as written in the scenario */
    char *values;
    size_t *value_off;      /* nvalues + 1 offsets */
    size_t nvalues;         /* >= 1 */
    size_t max_value_len;   /* longest escaped value in bytes */
    size_t total_value_len; /* sum of escaped value lengths (mean = total / nvalues) */
    /* sequence, range: inclusive bounds. Sequence defaults 0 .. INT64_MAX, range 0 .. 100. */
    int64_t from;
    int64_t to;
    int wrap; /* sequence: 1 = restart at `from` after `to`; 0 = exhausted */
    /* now_with_format: strftime format, already JSON-escaped outside its %-directives */
    char *format;
    /* random_array */
    char *variable_key;   /* name of the variable the items come from */
    size_t ref;           /* its index in the scenario's variable array */
    uint32_t size;        /* items per value, >= 1 */
    int item_string;      /* 1: variable_type string (items quoted), 0: number (bare) */
    int square_bracket;   /* 1: wrap in [ ] */
    char *string_bracket; /* quote around string items, JSON-escaped; default "\"" */
    /* vector */
    uint32_t dims;            /* elements (bit: bits, a multiple of 8) */
    uint8_t elem;             /* enum bf_vec_elem */
    uint8_t dist;             /* enum bf_vec_dist */
    uint8_t enc;              /* enum bf_vec_enc */
    uint8_t little;           /* base64 float: 1 = little-endian (OpenSearch k-NN), 0 = big-endian
                                 (Elasticsearch) */
    uint32_t precision;       /* float: fraction digits, 1..6; every element is k / 10^precision
                                 with |k| < 2^24, so float32(k) / float32(10^precision) is the
                                 float32 nearest the decimal text: JSON and base64 bodies of one
                                 seed carry the same float32 vector */
    uint32_t pool;            /* vector: 0 = every value drawn anew; N = each value one of N drawn
                                 once per generator (thread) at its start, so rendering is a copy
                                 (the vector budget, bench/RESULTS.md) */
    struct bf_vecfile *vfile; /* vector with file: the rows (owned; nvalues = rows), read by each
                                 generator a window at a time and rendered as sent */
    uint32_t passes;          /* vector with file: 0 = rows over and over; N = the fleet sends
                                 each row N times, then its threads stop (bf_vars_docs_left) */
} bf_var_spec_t;

/* bf_var_vector_check — whether the cluster (distribution "elasticsearch" / "opensearch",
 * version "9.3.0") reads every vector variable of specs[0..n) as it is encoded: base64 needs
 * Elasticsearch 9.3 (big-endian float32, elastic/elasticsearch PR #137072) or OpenSearch 3.9 with
 * k-NN (little-endian float32, opensearch-project/k-NN PR #3350), in that engine's byte order.
 * Returns 0, or BF_E_INVAL with msg (size bytes, always terminated) naming the variable, the
 * version it needs and what to change. Pure; thread-safe. */
int bf_var_vector_check(const bf_var_spec_t *specs, size_t n, const char *distribution,
                        const char *version, char *msg, size_t size);

/* bf_var_type_name — canonical name of a type ("sequence"), static string. */
const char *bf_var_type_name(enum bf_var_type type);

/* bf_var_max_len — the most bytes one value of specs[i] can have (for buffer sizing). specs is
 * the whole variable array (random_array sizes its items from the variable it refers to). */
size_t bf_var_max_len(const bf_var_spec_t *specs, size_t i);

/* bf_var_spec_cleanup — free what a spec owns (the loader's destructor). NULL-safe. */
void bf_var_spec_cleanup(bf_var_spec_t *spec);

/* xoshiro256** state. */
typedef struct bf_rng {
    uint64_t s[4];
} bf_rng_t;

/* bf_rng_seed — seed from (seed, stream) through splitmix64, so streams of one seed differ. */
void bf_rng_seed(bf_rng_t *r, uint64_t seed, uint64_t stream);
/* bf_rng_next — next 64 random bits. Inline: the renderer draws several times a document
 * (a call each was about 2 % of rendering, callgrind, bench/RESULTS.md). */
static inline uint64_t bf_rng_next(bf_rng_t *r)
{
    uint64_t *s = r->s;
    uint64_t x = s[1] * 5;
    uint64_t result = ((x << 7) | (x >> 57)) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* bf_rng_below — uniform integer in [0, n) without modulo bias (Lemire 2019,
 * https://arxiv.org/abs/1805.10941); n = 0 means 2^64. */
static inline uint64_t bf_rng_below(bf_rng_t *r, uint64_t n)
{
    uint64_t x = bf_rng_next(r);
    if (n == 0)
        return x;
    __uint128_t m = (__uint128_t)x * n;
    uint64_t l = (uint64_t)m;
    if (__builtin_expect(l < n, 0)) {
        uint64_t t = (0 - n) % n;
        while (l < t) {
            x = bf_rng_next(r);
            m = (__uint128_t)x * n;
            l = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

/* bf_fmt_u64 / bf_fmt_i64 — decimal digits into dst (room for 20 / 21 bytes), no NUL.
 * Return the length. */
size_t bf_fmt_u64(char *dst, uint64_t v);
size_t bf_fmt_i64(char *dst, int64_t v);

typedef struct bf_vars bf_vars_t;

/* bf_vars_docs_left — documents this generator may still render: UINT64_MAX, or with a vector
 * file of `passes` N (document scope) the values of its stream left in the fleet's N passes
 * (stream s of S takes rows k = s, s + S, ... while k < N x rows). Not thread-safe (the
 * generator's thread). */
uint64_t bf_vars_docs_left(const bf_vars_t *v);

/* bf_vars_new — generator state for variables specs[0..n) (borrowed; must outlive it) for one
 * stream (thread) of a fleet of stream_count streams. Caller owns; bf_vars_destroy. Not
 * thread-safe: one thread at a time. */
bf_vars_t *bf_vars_new(const bf_var_spec_t *specs, size_t n, uint32_t stream_index,
                       uint32_t stream_count, uint64_t seed);
void bf_vars_destroy(bf_vars_t **v_p);
/* bf_vars_rng — v's RNG, borrowed (valid while v lives): the renderer draws dictionary items
 * and range values from it directly, exactly the draws bf_vars_eval would make for those types
 * (bf_template.c), so the two can be mixed and a seed's documents stay the same. */
bf_rng_t *bf_vars_rng(bf_vars_t *v);
/* bf_vars_skip_sequences — every sequence variable starts n values later: stream i of
 * stream_count draws from + n + i, from + n + i + stream_count, ... (n = search.prefill, whose
 * one stream drew from .. from + n - 1). A span exhausted by the skip wraps or ends as usual. */
void bf_vars_skip_sequences(bf_vars_t *v, uint64_t n);

/* bf_vars_eval — draw a fresh value of variable i. `scratch` has room for
 * bf_var_max_len(specs, i) bytes; *val is set to the value (in scratch, borrowed from the
 * spec's dictionary, or for a time type the generator's copy of its last value, valid until
 * the next bf_vars_eval of variable i) and *len to its length. Returns 0, or BF_E_RANGE when a
 * sequence with wrap: false is exhausted. */
int bf_vars_eval(bf_vars_t *v, size_t i, char *scratch, const char **val, size_t *len);
/* bf_vars_hold_clock — from now on every time value (now_*, and sortable_id's seconds) of v
 * comes from one CLOCK_REALTIME reading taken at the first such value after this call, until
 * the next call (the renderer calls it once per render call: one clock read per piece of a
 * body instead of one per document). Without it each value reads the clock. Not thread-safe
 * per v. */
void bf_vars_hold_clock(bf_vars_t *v);

struct timespec;
/* bf__vars_fake_clock — tests only (the golden render test): while set, every clock read of
 * every generator (CLOCK_REALTIME and CLOCK_REALTIME_COARSE alike) returns *ts, copied; NULL
 * goes back to the real clocks. Not thread-safe: call it while no generator runs. */
void bf__vars_fake_clock(const struct timespec *ts);

#endif
