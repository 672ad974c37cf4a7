/* SPDX-License-Identifier: MIT */
/* bf_routing.c — document -> shard as OpenSearch's OperationRouting computes it.
 *
 * The hash is streamed: UTF-8 (or a JSON string body) is decoded into UTF-16 code units and each
 * unit is fed as two little-endian bytes into an incremental murmur3 x86_32, so no copy of the
 * value is made and there is no length cap. Arithmetic is in uint32_t (wrapping is defined) and
 * reinterpreted as int32_t only where Java reads an int; floorMod is done in int64_t.
 */
#include "bf_routing.h"

#include <stdlib.h>
#include <string.h>

#define C1 0xcc9e2d51u
#define C2 0x1b873593u

static uint32_t rotl32(uint32_t x, int r)
{
    return (x << r) | (x >> (32 - r));
}

static uint32_t mix_k(uint32_t k)
{
    k *= C1;
    k = rotl32(k, 15);
    return k * C2;
}

static uint32_t fmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

/* Incremental murmur3 x86_32: whole 4-byte blocks as they fill, the tail at the end. */
typedef struct {
    uint32_t h;
    uint32_t block; /* bytes of the pending block, little-endian */
    unsigned nblock;
    uint32_t len; /* total bytes (murmur mixes len mod 2^32) */
} mm3_t;

static void mm3_init(mm3_t *m, uint32_t seed)
{
    m->h = seed;
    m->block = 0;
    m->nblock = 0;
    m->len = 0;
}

static void mm3_byte(mm3_t *m, uint8_t b)
{
    m->block |= (uint32_t)b << (8 * m->nblock);
    m->len++;
    if (++m->nblock == 4) {
        m->h ^= mix_k(m->block);
        m->h = rotl32(m->h, 13);
        m->h = m->h * 5 + 0xe6546b64u;
        m->block = 0;
        m->nblock = 0;
    }
}

static void mm3_unit(mm3_t *m, uint16_t u)
{
    mm3_byte(m, (uint8_t)(u & 0xff));
    mm3_byte(m, (uint8_t)(u >> 8));
}

static uint32_t mm3_final(mm3_t *m)
{
    uint32_t h = m->h;
    if (m->nblock > 0)
        h ^= mix_k(m->block);
    h ^= m->len;
    return fmix32(h);
}

uint32_t bf_routing_murmur3_32(const void *data, size_t len, uint32_t seed)
{
    const uint8_t *p = data;
    mm3_t m;
    mm3_init(&m, seed);
    for (size_t i = 0; i < len; i++)
        mm3_byte(&m, p[i]);
    return mm3_final(&m);
}

static void mm3_codepoint(mm3_t *m, uint32_t cp)
{
    if (cp < 0x10000) {
        mm3_unit(m, (uint16_t)cp);
    } else {
        cp -= 0x10000;
        mm3_unit(m, (uint16_t)(0xd800 + (cp >> 10)));
        mm3_unit(m, (uint16_t)(0xdc00 + (cp & 0x3ff)));
    }
}

/* Decode one UTF-8 sequence at s[0..len) (Unicode §3.9 Table 3-7: no overlongs, no surrogates,
 * at most U+10FFFF). Returns its length, 0 if ill-formed. */
static size_t utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t n;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if (c >= 0xc2 && c <= 0xdf) {
        n = 2, v = c & 0x1f, min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3, v = c & 0x0f, min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (len < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return n;
}

int bf_routing_hash_utf8(const char *s, size_t len, int32_t *hash_out, bf_diag_t *d)
{
    const unsigned char *u = (const unsigned char *)s;
    mm3_t m;
    mm3_init(&m, 0);
    size_t i = 0;
    while (i < len) {
        uint32_t cp;
        size_t n = utf8_decode(u + i, len - i, &cp);
        if (n == 0)
            return bf_diag_set(d, BF_E_INVAL,
                               "invalid UTF-8 at byte %zu (0x%02x) of a routing value or _id; "
                               "the cluster would refuse it too: fix the encoding",
                               i, u[i]);
        mm3_codepoint(&m, cp);
        i += n;
    }
    *hash_out = (int32_t)mm3_final(&m);
    return BF_OK;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int bf_routing_hash_json(const char *s, size_t len, int32_t *hash_out, bf_diag_t *d)
{
    const unsigned char *u = (const unsigned char *)s;
    mm3_t m;
    mm3_init(&m, 0);
    size_t i = 0;
    while (i < len) {
        if (u[i] != '\\') {
            uint32_t cp;
            size_t n = utf8_decode(u + i, len - i, &cp);
            if (n == 0)
                return bf_diag_set(d, BF_E_INVAL,
                                   "invalid UTF-8 at byte %zu (0x%02x) of a JSON _id or routing", i,
                                   u[i]);
            mm3_codepoint(&m, cp);
            i += n;
            continue;
        }
        if (i + 1 >= len)
            return bf_diag_set(d, BF_E_INVAL, "a JSON _id or routing ends in a lone backslash");
        char e = s[i + 1];
        uint16_t unit;
        switch (e) {
        case '"': unit = '"'; break;
        case '\\': unit = '\\'; break;
        case '/': unit = '/'; break;
        case 'b': unit = '\b'; break;
        case 'f': unit = '\f'; break;
        case 'n': unit = '\n'; break;
        case 'r': unit = '\r'; break;
        case 't': unit = '\t'; break;
        case 'u': {
            if (i + 6 > len)
                return bf_diag_set(d, BF_E_INVAL, "a JSON \\u escape at byte %zu is cut short", i);
            uint32_t v = 0;
            for (size_t k = 2; k < 6; k++) {
                int h = hexval(s[i + k]);
                if (h < 0)
                    return bf_diag_set(d, BF_E_INVAL,
                                       "a JSON \\u escape at byte %zu has a non-hex digit", i);
                v = (v << 4) | (uint32_t)h;
            }
            /* A surrogate escape is one UTF-16 code unit, as Java's String holds it: a pair
             * written as two escapes hashes the same as the character itself. */
            mm3_unit(&m, (uint16_t)v);
            i += 6;
            continue;
        }
        default: return bf_diag_set(d, BF_E_INVAL, "unknown JSON escape '\\%c' at byte %zu", e, i);
        }
        mm3_unit(&m, unit);
        i += 2;
    }
    *hash_out = (int32_t)mm3_final(&m);
    return BF_OK;
}

uint32_t bf_routing_default_routing_shards(uint32_t shards)
{
    if (shards == 0 || shards > BF_ROUTING_MAX_SHARDS)
        return 0;
    /* ceil(log2 shards) = 32 - numberOfLeadingZeros(shards - 1); 0 for 1 shard */
    unsigned log2n = 0;
    while (log2n < 32 && (1u << log2n) < shards)
        log2n++;
    unsigned splits = log2n >= 9 ? 1 : 10 - log2n;
    uint64_t r = (uint64_t)shards << splits;
    return r > UINT32_MAX ? 0 : (uint32_t)r;
}

int bf_routing_index_init(bf_routing_index_t *ix, uint32_t shards, uint32_t routing_shards,
                          uint32_t partition_size, bf_diag_t *d)
{
    if (shards == 0 || shards > BF_ROUTING_MAX_SHARDS)
        return bf_diag_set(d, BF_E_RANGE, "number of shards %u: expected 1..%u", shards,
                           BF_ROUTING_MAX_SHARDS);
    if (routing_shards == 0)
        routing_shards = bf_routing_default_routing_shards(shards);
    if (routing_shards < shards || routing_shards % shards != 0 ||
        routing_shards > BF_ROUTING_MAX_SHARDS * 2)
        return bf_diag_set(d, BF_E_RANGE,
                           "number of routing shards %u: expected a multiple of the number of "
                           "shards (%u), as index.number_of_routing_shards must be",
                           routing_shards, shards);
    if (partition_size == 0)
        partition_size = 1;
    if (partition_size > 1 && partition_size >= routing_shards)
        return bf_diag_set(d, BF_E_RANGE,
                           "routing partition size %u: expected less than the number of routing "
                           "shards (%u), as IndexMetadata requires",
                           partition_size, routing_shards);
    ix->shards = shards;
    ix->routing_shards = routing_shards;
    ix->factor = routing_shards / shards;
    ix->partition_size = partition_size;
    ix->modulo = 0;
    return BF_OK;
}

int bf_routing_es_modulo_created(uint64_t created)
{
    return created >= BF_ROUTING_ES_MODULO_INDEX_VERSION && (created & 0x08000000u) == 0;
}

int bf_routing_es_modulo_release(const char *version)
{
    unsigned long major, minor;
    char *end;
    if (version == NULL || *version < '0' || *version > '9')
        return -1;
    major = strtoul(version, &end, 10);
    if (*end != '.' || end[1] < '0' || end[1] > '9')
        return -1;
    minor = strtoul(end + 1, &end, 10);
    return major > 9 || (major == 9 && minor >= 4);
}

static uint32_t floor_mod(int64_t x, uint32_t m)
{
    int64_t r = x % (int64_t)m;
    return (uint32_t)(r < 0 ? r + (int64_t)m : r);
}

uint32_t bf_routing_shard_of_hash(const bf_routing_index_t *ix, int32_t routing_hash,
                                  int32_t id_hash)
{
    uint32_t offset = ix->partition_size > 1 ? floor_mod(id_hash, ix->partition_size) : 0;
    int32_t h = (int32_t)((uint32_t)routing_hash + offset); /* Java int addition wraps */
    if (ix->modulo)
        return floor_mod(h, ix->shards);
    return floor_mod(h, ix->routing_shards) / ix->factor;
}

typedef int (*hash_fn)(const char *, size_t, int32_t *, bf_diag_t *);

static int shard_with(hash_fn fn, const bf_routing_index_t *ix, const char *id, size_t id_len,
                      const char *routing, size_t routing_len, uint32_t *shard_out, bf_diag_t *d)
{
    int32_t id_hash = 0, routing_hash = 0;
    int rc;
    if (routing == NULL && ix->partition_size > 1)
        return bf_diag_set(d, BF_E_INVAL,
                           "a partitioned index (routing_partition_size %u) needs a routing "
                           "value for every document",
                           ix->partition_size);
    if (routing == NULL || ix->partition_size > 1) {
        rc = fn(id, id_len, &id_hash, d);
        if (rc != 0)
            return rc;
    }
    if (routing != NULL) {
        rc = fn(routing, routing_len, &routing_hash, d);
        if (rc != 0)
            return rc;
    } else {
        routing_hash = id_hash;
    }
    *shard_out = bf_routing_shard_of_hash(ix, routing_hash, id_hash);
    return BF_OK;
}

int bf_routing_shard_utf8(const bf_routing_index_t *ix, const char *id, size_t id_len,
                          const char *routing, size_t routing_len, uint32_t *shard_out,
                          bf_diag_t *d)
{
    return shard_with(bf_routing_hash_utf8, ix, id, id_len, routing, routing_len, shard_out, d);
}

int bf_routing_shard_json(const bf_routing_index_t *ix, const char *id, size_t id_len,
                          const char *routing, size_t routing_len, uint32_t *shard_out,
                          bf_diag_t *d)
{
    return shard_with(bf_routing_hash_json, ix, id, id_len, routing, routing_len, shard_out, d);
}
