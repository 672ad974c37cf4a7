/* SPDX-License-Identifier: MIT */
/* bf_scenario_keys.c — the one table of scenario keys, and did-you-mean for mistakes.
 *
 * Every key a scenario may contain is one row of BF__KEYS (bf_scenario_int.h): path, type,
 * default, bounds, flags (required, secret), the variable types it applies to, enum values and
 * an extra validator (docs/internals/style.md rule 10, after redis's static_configs[]). The loader
 * walks the YAML against this table; unknown keys and bad enum values get a suggestion by edit
 * distance.
 */
#include "bf_scenario_int.h"

#include <string.h>

#define BF__KEY_ROW(id, path, type, def, min, max, flags, vm, extra, validate)                     \
    {path, type, def, min, max, flags, vm, extra, validate},
const bf__key_t bf__keys[BF__K_COUNT_] = {BF__KEYS(BF__KEY_ROW)};
#undef BF__KEY_ROW

int bf__key_find(const char *path)
{
    for (int i = 0; i < BF__K_COUNT_; i++)
        if (strcmp(bf__keys[i].path, path) == 0)
            return i;
    return -1;
}

size_t bf__key_parent_len(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot ? (size_t)(dot - path) : 0;
}

size_t bf__edit_distance(const char *a, const char *b)
{
    enum { MAXL = 64 };
    size_t la = strlen(a), lb = strlen(b);
    if (la > MAXL)
        la = MAXL;
    if (lb > MAXL)
        lb = MAXL;
    size_t d[MAXL + 1][MAXL + 1];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            /* transposition ("optimal string alignment") */
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    }
    return d[la][lb];
}

/* Close enough to be a typo: at most a third of the longer word (at least 1, at most 3), or
 * one is a prefix of the other ("replica" / "replicas"). */
static int is_close(const char *word, const char *cand, size_t dist)
{
    size_t lw = strlen(word), lc = strlen(cand);
    size_t longer = lw > lc ? lw : lc;
    size_t limit = longer / 3;
    if (limit < 1)
        limit = 1;
    if (limit > 3)
        limit = 3;
    if (dist >= lw || dist >= lc)
        return 0; /* everything replaced: not a typo */
    if (dist <= limit)
        return 1;
    size_t shorter = lw < lc ? lw : lc;
    return shorter >= 4 && strncmp(word, cand, shorter) == 0;
}

const char *bf__did_you_mean(const char *word, const char *const *candidates, size_t n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        size_t dd = bf__edit_distance(word, candidates[i]);
        if (dd < best_d && is_close(word, candidates[i], dd)) {
            best_d = dd;
            best = candidates[i];
        }
    }
    return best;
}

const char *bf__did_you_mean_alt(const char *word, const char *alts, char *buf, size_t size)
{
    const char *best = NULL;
    size_t best_len = 0, best_d = (size_t)-1;
    const char *p = alts;
    while (p && *p) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        char cand[64];
        if (len < sizeof cand) {
            memcpy(cand, p, len);
            cand[len] = '\0';
            size_t dd = bf__edit_distance(word, cand);
            if (dd < best_d && is_close(word, cand, dd)) {
                best_d = dd;
                best = p;
                best_len = len;
            }
        }
        p = bar ? bar + 1 : NULL;
    }
    if (best == NULL || best_len >= size)
        return NULL;
    memcpy(buf, best, best_len);
    buf[best_len] = '\0';
    return buf;
}

const char *bf__did_you_mean_key(const char *word, const char *parent, char *buf, size_t size)
{
    size_t pl = strlen(parent);
    const char *cands[BF__K_COUNT_];
    size_t n = 0;
    for (int i = 0; i < BF__K_COUNT_; i++) {
        const char *path = bf__keys[i].path;
        if (bf__key_parent_len(path) != pl || strncmp(path, parent, pl) != 0)
            continue;
        cands[n++] = pl ? path + pl + 1 : path;
    }
    const char *best = bf__did_you_mean(word, cands, n);
    if (best == NULL || strlen(best) >= size)
        return NULL;
    memcpy(buf, best, strlen(best) + 1);
    return buf;
}

int bf__enum_index(const char *alts, const char *word)
{
    size_t wl = strlen(word);
    int idx = 0;
    const char *p = alts;
    while (p && *p) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == wl && memcmp(p, word, wl) == 0)
            return idx;
        idx++;
        p = bar ? bar + 1 : NULL;
    }
    return -1;
}
