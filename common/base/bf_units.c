/* SPDX-License-Identifier: MIT */
/* bf_units.c — durations, sizes and counts. */
#include "bf_units.h"

#include "bf_error.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bf_units_parse_u64(const char *s, uint64_t *out)
{
    if (s == NULL || !isdigit((unsigned char)s[0]))
        return BF_E_PARSE;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0')
        return BF_E_PARSE;
    if (errno == ERANGE)
        return BF_E_RANGE;
    *out = v;
    return BF_OK;
}

int bf_units_parse_double(const char *s, double *out)
{
    if (s == NULL || *s == '\0' || isspace((unsigned char)s[0]))
        return BF_E_PARSE;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (*end != '\0' || errno == ERANGE || !isfinite(v))
        return BF_E_PARSE;
    *out = v;
    return BF_OK;
}

/* Reads a non-negative decimal number (with optional fraction) and the unit letters after it. */
static int number_and_unit(const char **p, double *num, char *unit, size_t unit_size)
{
    const char *s = *p;
    if (!isdigit((unsigned char)*s) && *s != '.')
        return BF_E_PARSE;
    errno = 0;
    char *end;
    *num = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(*num) || *num < 0)
        return BF_E_PARSE;
    size_t n = 0;
    while (isalpha((unsigned char)*end)) {
        if (n + 1 >= unit_size)
            return BF_E_PARSE;
        unit[n++] = *end++;
    }
    unit[n] = '\0';
    *p = end;
    return BF_OK;
}

int bf_units_parse_duration_ms(const char *s, uint64_t *out_ms)
{
    if (s == NULL || *s == '\0')
        return BF_E_PARSE;
    double total_ms = 0;
    const char *p = s;
    int parts = 0;
    while (*p) {
        double num;
        char unit[8];
        if (number_and_unit(&p, &num, unit, sizeof unit) != BF_OK)
            return BF_E_PARSE;
        double mult;
        if (strcmp(unit, "ms") == 0)
            mult = 1;
        else if (strcmp(unit, "s") == 0 || (unit[0] == '\0' && parts == 0 && *p == '\0'))
            mult = 1000;
        else if (strcmp(unit, "m") == 0 || strcmp(unit, "min") == 0)
            mult = 60000;
        else if (strcmp(unit, "h") == 0)
            mult = 3600000;
        else if (strcmp(unit, "d") == 0)
            mult = 86400000;
        else
            return BF_E_PARSE;
        total_ms += num * mult;
        parts++;
    }
    if (total_ms > 1e15)
        return BF_E_RANGE;
    *out_ms = (uint64_t)llround(total_ms);
    return BF_OK;
}

int bf_units_parse_size(const char *s, uint64_t *out_bytes)
{
    if (s == NULL)
        return BF_E_PARSE;
    const char *p = s;
    double num;
    char unit[8];
    if (number_and_unit(&p, &num, unit, sizeof unit) != BF_OK || *p != '\0')
        return BF_E_PARSE;
    static const struct {
        const char *name;
        double mult;
    } units[] = {
        {"", 1},
        {"b", 1},
        {"B", 1},
        {"k", 1024.0},
        {"K", 1024.0},
        {"KiB", 1024.0},
        {"kib", 1024.0},
        {"KB", 1e3},
        {"kb", 1e3},
        {"m", 1048576.0},
        {"M", 1048576.0},
        {"MiB", 1048576.0},
        {"mib", 1048576.0},
        {"MB", 1e6},
        {"mb", 1e6},
        {"g", 1073741824.0},
        {"G", 1073741824.0},
        {"GiB", 1073741824.0},
        {"gib", 1073741824.0},
        {"GB", 1e9},
        {"gb", 1e9},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(unit, units[i].name) == 0) {
            double v = num * units[i].mult;
            if (v > 1.8e19)
                return BF_E_RANGE;
            *out_bytes = (uint64_t)llround(v);
            return BF_OK;
        }
    }
    return BF_E_PARSE;
}

int bf_units_parse_count(const char *s, uint64_t *out)
{
    /* Exact integer arithmetic, never a double: "9223372036854775807" keeps every digit (strtod
     * would round it to 2^53 precision), and "1e3" or "0x10" are not counts. */
    if (s == NULL)
        return BF_E_PARSE;
    const char *p = s;
    uint64_t whole = 0, frac = 0, scale = 1;
    int nd = 0, nf = 0;
    for (; isdigit((unsigned char)*p); p++, nd++) {
        uint64_t d = (uint64_t)(*p - '0');
        if (whole > (UINT64_MAX - d) / 10)
            return BF_E_RANGE;
        whole = whole * 10 + d;
    }
    if (*p == '.') {
        for (p++; isdigit((unsigned char)*p); p++, nf++) {
            if (nf < 9) {
                frac = frac * 10 + (uint64_t)(*p - '0');
                scale *= 10;
            } else if (*p != '0') {
                return BF_E_PARSE; /* finer than any unit: not a whole count */
            }
        }
    }
    if (nd == 0 && nf == 0)
        return BF_E_PARSE;
    uint64_t mult = 1;
    switch (*p) {
    case '\0': break;
    case 'k':
    case 'K': mult = 1000u; break;
    case 'm':
    case 'M': mult = 1000000u; break;
    case 'g':
    case 'G': mult = 1000000000u; break;
    default: return BF_E_PARSE;
    }
    if (*p != '\0' && p[1] != '\0')
        return BF_E_PARSE;
    if (whole > UINT64_MAX / mult)
        return BF_E_RANGE;
    uint64_t v = whole * mult;
    /* frac < 10^9 and mult <= 10^9: the product fits in 64 bits */
    uint64_t f = frac * mult;
    if (f % scale != 0)
        return BF_E_PARSE; /* "1.5" or "1.0005k": not a whole number of documents */
    f /= scale;
    if (v > UINT64_MAX - f)
        return BF_E_RANGE;
    *out = v + f;
    return BF_OK;
}

char *bf_units_format_duration_ms(uint64_t ms, char *buf, size_t buf_size)
{
    if (ms < 1000)
        snprintf(buf, buf_size, "%llums", (unsigned long long)ms);
    else if (ms < 60000)
        snprintf(buf, buf_size, "%.1fs", (double)ms / 1000.0);
    else if (ms < 3600000)
        snprintf(buf, buf_size, "%llum%02llus", (unsigned long long)(ms / 60000),
                 (unsigned long long)(ms / 1000 % 60));
    else
        snprintf(buf, buf_size, "%lluh%02llum%02llus", (unsigned long long)(ms / 3600000),
                 (unsigned long long)(ms / 60000 % 60), (unsigned long long)(ms / 1000 % 60));
    return buf;
}

char *bf_units_format_bytes(uint64_t bytes, char *buf, size_t buf_size)
{
    static const char *names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    size_t i = 0;
    while (v >= 1024.0 && i + 1 < sizeof names / sizeof names[0]) {
        v /= 1024.0;
        i++;
    }
    if (i == 0)
        snprintf(buf, buf_size, "%llu B", (unsigned long long)bytes);
    else
        snprintf(buf, buf_size, "%.1f %s", v, names[i]);
    return buf;
}

int bf_units_suggest_duration(const char *s, char *out, size_t out_size)
{
    static const struct {
        const char *word, *unit;
    } words[] = {
        {"milliseconds", "ms"}, {"millisecond", "ms"}, {"millis", "ms"},
        {"msecs", "ms"},        {"msec", "ms"},        {"seconds", "s"},
        {"second", "s"},        {"secs", "s"},         {"sec", "s"},
        {"minutes", "m"},       {"minute", "m"},       {"mins", "m"},
        {"min", "m"},           {"hours", "h"},        {"hour", "h"},
        {"hrs", "h"},           {"hr", "h"},
    };
    char low[64], norm[64];
    size_t n = 0;
    for (const char *p = s; *p; p++) {
        if (*p == ' ' || *p == '\t')
            continue;
        if (n + 1 >= sizeof low)
            return 0;
        low[n++] = (char)((*p >= 'A' && *p <= 'Z') ? *p - 'A' + 'a' : *p);
    }
    low[n] = '\0';
    /* replace each unit word by its letter: digits pass, letters must spell a known unit */
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        if ((low[i] >= '0' && low[i] <= '9') || low[i] == '.') {
            norm[o++] = low[i++];
            continue;
        }
        size_t j = i;
        while (j < n && low[j] >= 'a' && low[j] <= 'z')
            j++;
        if (j == i)
            return 0;
        const char *unit = NULL;
        for (size_t w = 0; w < sizeof words / sizeof words[0] && unit == NULL; w++)
            if (strlen(words[w].word) == j - i && memcmp(low + i, words[w].word, j - i) == 0)
                unit = words[w].unit;
        /* no word matched: the letters stay (a unit letter already, or a parse failure) */
        size_t ul = unit ? strlen(unit) : j - i;
        if (o + ul + 1 >= sizeof norm)
            return 0;
        memcpy(norm + o, unit ? unit : low + i, ul);
        o += ul;
        i = j;
    }
    norm[o] = '\0';
    uint64_t ms;
    if (strcmp(norm, s) == 0 || bf_units_parse_duration_ms(norm, &ms) != 0)
        return 0;
    snprintf(out, out_size, "%s", norm);
    return 1;
}
