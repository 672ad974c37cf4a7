/* SPDX-License-Identifier: MIT */
/* bf_reshuffle.c — a bulk body into sub-bulks by primary node or shard (see the header). */
#include "bf_reshuffle.h"

#include "bf_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bf_reshuffle_init(bf_reshuffle_t *r, enum bf_routing_mode mode, uint32_t max_parts,
                       const char *id_prefix)
{
    memset(r, 0, sizeof *r);
    r->mode = mode;
    r->max_parts = max_parts < 2 ? 2 : max_parts;
    r->parts = bf_calloc(r->max_parts, sizeof *r->parts);
    for (uint32_t i = 0; i < r->max_parts; i++)
        bf_buf_init(&r->parts[i].body, BF_MAX_BODY_BYTES);
    snprintf(r->id_prefix, sizeof r->id_prefix, "%.32s", id_prefix ? id_prefix : "");
}

void bf_reshuffle_cleanup(bf_reshuffle_t *r)
{
    for (uint32_t i = 0; r->parts && i < r->max_parts; i++) {
        bf_buf_cleanup(&r->parts[i].body);
        free(r->parts[i].gshard);
    }
    free(r->parts);
    free(r->key_part);
    free(r->sent_by_shard);
    memset(r, 0, sizeof *r);
}

static size_t total_shards(const bf_routetable_t *rt)
{
    size_t n = 0;
    for (size_t i = 0; i < rt->nindices; i++)
        n += rt->indices[i].routing.shards;
    return n;
}

/* The action line's fields we route by (pointers into the body, JSON-escaped text). */
typedef struct action {
    const char *index, *id, *routing;
    size_t index_len, id_len, routing_len;
    const char *after_index; /* just past the closing quote of the _index value */
} action;

/* Scans a JSON string body starting after its opening quote; returns the closing quote or
 * NULL. */
static const char *string_end(const char *p, const char *end)
{
    while (p < end) {
        if (*p == '\\') {
            p += 2;
            continue;
        }
        if (*p == '"')
            return p;
        p++;
    }
    return NULL;
}

/* Parses {"<action>":{"k":"v"(,"k":"v")*}} in line[0..len). Returns 0 or -1. */
static int parse_action(const char *line, size_t len, action *a)
{
    const char *p = line, *end = line + len;
    memset(a, 0, sizeof *a);
    if (len < 4 || p[0] != '{' || p[1] != '"')
        return -1;
    const char *q = memchr(p + 2, '"', (size_t)(end - p - 2));
    if (q == NULL || end - q < 3 || q[1] != ':' || q[2] != '{')
        return -1;
    p = q + 3;
    for (;;) {
        if (p >= end || *p != '"')
            return -1;
        const char *k = p + 1;
        const char *ke = string_end(k, end);
        if (ke == NULL || end - ke < 3 || ke[1] != ':' || ke[2] != '"')
            return -1;
        const char *v = ke + 3;
        const char *ve = string_end(v, end);
        if (ve == NULL)
            return -1;
        size_t klen = (size_t)(ke - k), vlen = (size_t)(ve - v);
        if (klen == 6 && memcmp(k, "_index", 6) == 0) {
            a->index = v, a->index_len = vlen, a->after_index = ve + 1;
        } else if (klen == 3 && memcmp(k, "_id", 3) == 0) {
            a->id = v, a->id_len = vlen;
        } else if (klen == 7 && memcmp(k, "routing", 7) == 0) {
            a->routing = v, a->routing_len = vlen;
        }
        p = ve + 1;
        if (p < end && *p == ',') {
            p++;
            continue;
        }
        if (end - p == 2 && p[0] == '}' && p[1] == '}')
            return a->index ? 0 : -1;
        return -1;
    }
}

static bf_reshuffle_part_t *part_for(bf_reshuffle_t *r, uint32_t key, uint32_t node)
{
    if (r->key_part[key] == 0) {
        /* the last part is kept for the fallback */
        if (node != BF_RESHUFFLE_FALLBACK && r->nparts + 1 >= r->max_parts)
            return NULL;
        bf_reshuffle_part_t *pt = &r->parts[r->nparts++];
        pt->node = node;
        pt->key = key;
        pt->ndocs = 0;
        bf_buf_reset(&pt->body);
        r->key_part[key] = r->nparts;
    }
    return &r->parts[r->key_part[key] - 1];
}

int bf_reshuffle_split(bf_reshuffle_t *r, const bf_routetable_t *rt, const char *body,
                       size_t len, uint32_t ndocs, bf_diag_t *d)
{
    size_t nshards = total_shards(rt);
    size_t nkeys = (r->mode == BF_ROUTE_SHARD ? nshards : rt->nnodes) + 1; /* + fallback */
    if (nkeys != r->nkeys) {
        r->key_part = bf_realloc(r->key_part, nkeys * sizeof *r->key_part);
        r->nkeys = nkeys;
    }
    memset(r->key_part, 0, nkeys * sizeof *r->key_part);
    if (nshards != r->nshards) {
        r->sent_by_shard = bf_realloc(r->sent_by_shard, (nshards ? nshards : 1) *
                                                            sizeof *r->sent_by_shard);
        memset(r->sent_by_shard, 0, (nshards ? nshards : 1) * sizeof *r->sent_by_shard);
        r->nshards = nshards;
    }
    r->nparts = 0;
    r->unrouted = 0;
    const uint32_t fallback_key = (uint32_t)(nkeys - 1);
    const char *p = body, *end = body + len;
    long last_ix = -1;
    size_t last_name_len = 0;
    const char *last_name = NULL;
    for (uint32_t i = 0; i < ndocs; i++) {
        const char *l1 = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        const char *l2 = l1 ? memchr(l1 + 1, '\n', (size_t)(end - l1 - 1)) : NULL;
        action a;
        if (l2 == NULL || parse_action(p, (size_t)(l1 - p), &a) != 0)
            return bf_diag_set(d, BF_E_PARSE, "routing: document %u of a bulk body is not "
                               "{\"index\":{\"_index\":...}} + source (byte %zu)", i,
                               (size_t)(p - body));
        char genid[64];
        size_t genlen = 0;
        if (a.id == NULL) {
            genlen = (size_t)snprintf(genid, sizeof genid, "%s%llx", r->id_prefix,
                                      (unsigned long long)r->id_counter++);
            a.id = genid;
            a.id_len = genlen;
        }
        /* the index: usually the same as the previous document's */
        long ix = last_ix;
        if (last_name == NULL || a.index_len != last_name_len ||
            memcmp(a.index, last_name, a.index_len) != 0) {
            ix = bf_routetable_find(rt, a.index, a.index_len);
            last_ix = ix, last_name = a.index, last_name_len = a.index_len;
        }
        uint32_t key = fallback_key, node = BF_RESHUFFLE_FALLBACK;
        uint32_t shard = 0, g = BF_RESHUFFLE_NO_SHARD;
        if (ix >= 0) {
            const bf_rt_index_t *ri = &rt->indices[ix];
            if (bf_routing_shard_json(&ri->routing, a.id, a.id_len, a.routing,
                                      a.routing ? a.routing_len : 0, &shard, NULL) == BF_OK) {
                uint32_t n = ri->primary_node[shard];
                if (n != BF_RT_NO_NODE && rt->nodes[n].url && !rt->nodes[n].refused) {
                    size_t base = 0;
                    for (long k = 0; k < ix; k++)
                        base += rt->indices[k].routing.shards;
                    r->sent_by_shard[base + shard]++;
                    g = (uint32_t)(base + shard);
                    node = n;
                    key = r->mode == BF_ROUTE_SHARD ? (uint32_t)(base + shard) : n;
                }
            }
        }
        bf_reshuffle_part_t *pt = part_for(r, key, node);
        if (pt == NULL) { /* more targets than parts: this one goes the unrouted way */
            pt = part_for(r, fallback_key, BF_RESHUFFLE_FALLBACK);
            node = BF_RESHUFFLE_FALLBACK;
        }
        if (node == BF_RESHUFFLE_FALLBACK) {
            r->unrouted++;
            g = BF_RESHUFFLE_NO_SHARD;
        }
        if (pt->ndocs >= pt->gshard_cap) {
            pt->gshard_cap = pt->gshard_cap ? 2 * pt->gshard_cap : 64;
            pt->gshard = bf_realloc(pt->gshard, pt->gshard_cap * sizeof *pt->gshard);
        }
        pt->gshard[pt->ndocs] = g;
        int rc;
        if (genlen) {
            const char *cut = a.after_index;
            rc = bf_buf_append(&pt->body, p, (size_t)(cut - p));
            rc |= bf_buf_appendz(&pt->body, ",\"_id\":\"");
            rc |= bf_buf_append(&pt->body, genid, genlen);
            rc |= bf_buf_appendz(&pt->body, "\"");
            rc |= bf_buf_append(&pt->body, cut, (size_t)(l2 + 1 - cut));
        } else {
            rc = bf_buf_append(&pt->body, p, (size_t)(l2 + 1 - p));
        }
        if (rc != BF_OK)
            return bf_diag_set(d, BF_E_TOOBIG, "routing: a sub-bulk exceeds %u bytes",
                               BF_MAX_BODY_BYTES);
        pt->ndocs++;
        p = l2 + 1;
    }
    return BF_OK;
}

uint64_t bf_reshuffle_moved(bf_reshuffle_t *r, const bf_routetable_t *before,
                            const bf_routetable_t *now)
{
    uint64_t moved = 0;
    size_t base = 0;
    if (r->sent_by_shard == NULL)
        return 0;
    for (size_t i = 0; i < before->nindices && i < now->nindices; i++) {
        const bf_rt_index_t *a = &before->indices[i], *b = &now->indices[i];
        uint32_t n = a->routing.shards;
        for (uint32_t s = 0; s < n && base + s < r->nshards; s++) {
            const char *was = a->primary_node[s] == BF_RT_NO_NODE
                                  ? NULL : before->nodes[a->primary_node[s]].id;
            const char *is = s < b->routing.shards && b->primary_node[s] != BF_RT_NO_NODE
                                 ? now->nodes[b->primary_node[s]].id : NULL;
            if (was && (is == NULL || strcmp(was, is) != 0))
                moved += r->sent_by_shard[base + s];
        }
        base += n;
    }
    memset(r->sent_by_shard, 0, (r->nshards ? r->nshards : 1) * sizeof *r->sent_by_shard);
    return moved;
}

/* ---- stale tables from responses ---------------------------------------------------------- */

enum { TS_NONE = 0, TS_ITEMS, TS_TERM };

void bf_termscan_init(bf_termscan_t *ts, uint64_t *terms, uint32_t n)
{
    memset(ts, 0, sizeof *ts);
    ts->terms = terms;
    ts->n = n;
    if (terms && n)
        memset(terms, 0, n * sizeof *terms);
}

static void end_number(bf_termscan_t *ts)
{
    if (ts->in_num && ts->items > 0 && ts->items - 1 < ts->n)
        ts->terms[ts->items - 1] = ts->num;
    ts->in_num = 0;
    ts->num = 0;
}

void bf_termscan_feed(bf_termscan_t *ts, const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = p[i];
        if (ts->in_str) {
            if (ts->esc)
                ts->esc = 0;
            else if (c == '\\')
                ts->esc = 1;
            else if (c == '"')
                ts->in_str = 0;
            else if (ts->key_len < sizeof ts->key)
                ts->key[ts->key_len++] = c;
            else
                ts->key_long = 1;
            continue;
        }
        if (ts->in_num && c >= '0' && c <= '9') {
            if (ts->num < UINT64_MAX / 10)
                ts->num = ts->num * 10 + (uint64_t)(c - '0');
            continue;
        }
        end_number(ts);
        switch (c) {
        case '"':
            ts->in_str = 1;
            ts->key_len = 0;
            ts->key_long = 0;
            break;
        case ':': {
            int is_term =
                !ts->key_long && ts->key_len == 13 && memcmp(ts->key, "_primary_term", 13) == 0;
            int is_items = !ts->key_long && ts->key_len == 5 && memcmp(ts->key, "items", 5) == 0;
            ts->pending = is_items && ts->depth == 1 ? TS_ITEMS
                          : is_term && ts->items_depth && ts->depth == ts->items_depth + 2
                              ? TS_TERM
                              : TS_NONE;
            break;
        }
        case '[':
            ts->depth++;
            if (ts->pending == TS_ITEMS)
                ts->items_depth = ts->depth;
            ts->pending = TS_NONE;
            break;
        case '{':
            ts->depth++;
            if (ts->items_depth && ts->depth == ts->items_depth + 1)
                ts->items++;
            ts->pending = TS_NONE;
            break;
        case '}':
        case ']':
            if (ts->depth)
                ts->depth--;
            if (ts->items_depth && ts->depth < ts->items_depth)
                ts->items_depth = 0;
            ts->pending = TS_NONE;
            break;
        case ',': ts->pending = TS_NONE; break;
        default:
            if (c >= '0' && c <= '9' && ts->pending == TS_TERM) {
                ts->in_num = 1;
                ts->num = (uint64_t)(c - '0');
                ts->pending = TS_NONE;
            }
            break;
        }
    }
}

uint64_t bf_routetable_gshard_term(const bf_routetable_t *rt, uint32_t g, const char **index,
                                   uint32_t *shard)
{
    size_t base = 0;
    for (size_t i = 0; rt && i < rt->nindices; i++) {
        uint32_t n = rt->indices[i].routing.shards;
        if (g < base + n) {
            if (index)
                *index = rt->indices[i].name;
            if (shard)
                *shard = (uint32_t)(g - base);
            return rt->indices[i].primary_term ? rt->indices[i].primary_term[g - base] : 0;
        }
        base += n;
    }
    return 0;
}

long bf_reshuffle_stale_item(const bf_routetable_t *rt, const uint32_t *gshard,
                             const uint64_t *terms, uint32_t ndocs)
{
    for (uint32_t k = 0; k < ndocs; k++) {
        if (gshard[k] == BF_RESHUFFLE_NO_SHARD || terms[k] == 0)
            continue;
        uint64_t t = bf_routetable_gshard_term(rt, gshard[k], NULL, NULL);
        if (t > 0 && terms[k] > t) /* 0: the table has no term for it (nothing to compare) */
            return (long)k;
    }
    return -1;
}
