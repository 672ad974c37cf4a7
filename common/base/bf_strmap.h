/* SPDX-License-Identifier: MIT */
/* bf_strmap.h — hash map from byte-string keys to borrowed pointers (open addressing).
 *
 * For lookups that run once per network message and must not grow with the fleet: agent ids
 * to agents (bf_fleet), sha256 hex strings to presence (cached dictionary files). Keys are
 * copied; values are borrowed (the map never frees them). Linear probing with backward-shift
 * deletion (no tombstones), load factor at most 1/2, FNV-1a hash of the key bytes.
 *
 * Embedded struct: bf_strmap_init / bf_strmap_cleanup. Not thread-safe; one owner at a time.
 * Memory: bf_malloc aborts on exhaustion (docs/internals/style.md rule 7), so only the key cap can
 * fail.
 */
#ifndef BF_STRMAP_H
#define BF_STRMAP_H

#include <stddef.h>

#define BF_STRMAP_MAX_KEY_BYTES 4096 /* longer keys are refused (BF_E_TOOBIG) */

typedef struct bf_strmap_slot {
    char *key; /* owned copy, NUL-terminated; NULL = empty slot */
    size_t key_len;
    void *value; /* borrowed */
} bf_strmap_slot_t;

typedef struct bf_strmap {
    bf_strmap_slot_t *slots; /* owned; capacity is a power of two (or 0) */
    size_t cap;
    size_t len; /* keys present */
} bf_strmap_t;

/* bf_strmap_init — empty map, no allocation. */
void bf_strmap_init(bf_strmap_t *m);
/* bf_strmap_cleanup — free the keys and the table (not the values); the map is empty and
 * reusable afterwards. NULL-safe. */
void bf_strmap_cleanup(bf_strmap_t *m);
/* bf_strmap_get — the value stored for key[0..key_len), or NULL when absent. O(1) expected. */
void *bf_strmap_get(const bf_strmap_t *m, const char *key, size_t key_len);
/* bf_strmap_put — store value (not NULL) for the key, replacing any earlier value. The key is
 * copied. Returns BF_OK, BF_E_INVAL for a NULL value, BF_E_TOOBIG for a key longer than
 * BF_STRMAP_MAX_KEY_BYTES. O(1) amortized. */
int bf_strmap_put(bf_strmap_t *m, const char *key, size_t key_len, void *value);
/* bf_strmap_del — remove the key; returns 1 if it was present, else 0. */
int bf_strmap_del(bf_strmap_t *m, const char *key, size_t key_len);
/* bf_strmap_len — number of keys present. */
size_t bf_strmap_len(const bf_strmap_t *m);

#endif
