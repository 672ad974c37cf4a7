/* SPDX-License-Identifier: MIT */
/* bf_strmap.c — open-addressing hash map from byte strings to borrowed pointers.
 *
 * Linear probing keeps a probe sequence in one or two cache lines; deletion shifts the
 * following entries of the cluster back (Knuth vol. 3, 6.4, algorithm R) so no tombstones
 * accumulate in a long-running coordinator.
 */
#include "bf_strmap.h"

#include "bf_error.h"
#include "bf_mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a, 64 bit (Fowler, Noll, Vo; http://www.isthe.com/chongo/tech/comp/fnv/) */
static uint64_t hash(const char *key, size_t len)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)key[i];
        h *= 1099511628211ull;
    }
    return h;
}

static int same(const bf_strmap_slot_t *s, const char *key, size_t len)
{
    return s->key_len == len && memcmp(s->key, key, len) == 0;
}

void bf_strmap_init(bf_strmap_t *m)
{
    m->slots = NULL;
    m->cap = 0;
    m->len = 0;
}

void bf_strmap_cleanup(bf_strmap_t *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->cap; i++)
        free(m->slots[i].key);
    free(m->slots);
    bf_strmap_init(m);
}

static bf_strmap_slot_t *lookup(const bf_strmap_t *m, const char *key, size_t len)
{
    if (m->cap == 0)
        return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)hash(key, len) & mask;; i = (i + 1) & mask) {
        bf_strmap_slot_t *s = &m->slots[i];
        if (s->key == NULL)
            return NULL;
        if (same(s, key, len))
            return s;
    }
}

void *bf_strmap_get(const bf_strmap_t *m, const char *key, size_t key_len)
{
    bf_strmap_slot_t *s = lookup(m, key, key_len);
    return s ? s->value : NULL;
}

/* place an owned key without checking for an existing one (used by put and by growth) */
static void place(bf_strmap_t *m, char *key, size_t len, void *value)
{
    size_t mask = m->cap - 1;
    size_t i = (size_t)hash(key, len) & mask;
    while (m->slots[i].key != NULL)
        i = (i + 1) & mask;
    m->slots[i].key = key;
    m->slots[i].key_len = len;
    m->slots[i].value = value;
}

static void grow(bf_strmap_t *m)
{
    bf_strmap_slot_t *old = m->slots;
    size_t old_cap = m->cap;
    m->cap = old_cap ? old_cap * 2 : 16;
    m->slots = bf_calloc(m->cap, sizeof *m->slots);
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].key != NULL)
            place(m, old[i].key, old[i].key_len, old[i].value);
    free(old);
}

int bf_strmap_put(bf_strmap_t *m, const char *key, size_t key_len, void *value)
{
    if (value == NULL)
        return BF_E_INVAL;
    if (key_len > BF_STRMAP_MAX_KEY_BYTES)
        return BF_E_TOOBIG;
    bf_strmap_slot_t *s = lookup(m, key, key_len);
    if (s != NULL) {
        s->value = value;
        return BF_OK;
    }
    if ((m->len + 1) * 2 > m->cap)
        grow(m);
    char *copy = bf_malloc(key_len + 1);
    memcpy(copy, key, key_len);
    copy[key_len] = '\0';
    place(m, copy, key_len, value);
    m->len++;
    return BF_OK;
}

int bf_strmap_del(bf_strmap_t *m, const char *key, size_t key_len)
{
    bf_strmap_slot_t *s = lookup(m, key, key_len);
    if (s == NULL)
        return 0;
    size_t mask = m->cap - 1;
    size_t hole = (size_t)(s - m->slots);
    free(s->key);
    s->key = NULL;
    m->len--;
    /* shift back every later entry of the cluster whose home slot is not between hole and it */
    for (size_t j = (hole + 1) & mask; m->slots[j].key != NULL; j = (j + 1) & mask) {
        size_t home = (size_t)hash(m->slots[j].key, m->slots[j].key_len) & mask;
        int movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
        if (movable) {
            m->slots[hole] = m->slots[j];
            m->slots[j].key = NULL;
            hole = j;
        }
    }
    return 1;
}

size_t bf_strmap_len(const bf_strmap_t *m)
{
    return m->len;
}
