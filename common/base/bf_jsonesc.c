/* SPDX-License-Identifier: MIT */
/* bf_jsonesc.c — JSON string escaping with UTF-8 repair.
 *
 * One pass over the input: ASCII is copied or escaped, multi-byte sequences are validated with
 * the well-formed table of Unicode §3.9 (Table 3-7: no overlongs, no surrogates, nothing above
 * U+10FFFF) and copied, anything else becomes U+FFFD once per maximal subpart.
 */
#include "bf_jsonesc.h"

#include "bf_error.h"

#include <string.h>

static const char hex_digits[] = "0123456789abcdef";

/* Length of the well-formed UTF-8 sequence at s (1..4), or 0 if invalid; *bad_len is then the
 * length of the maximal subpart to replace (>= 1). */
static size_t utf8_seq(const unsigned char *s, size_t avail, size_t *bad_len)
{
    unsigned char c = s[0];
    size_t need;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else {
        *bad_len = 1;
        return 0;
    }
    size_t i = 1;
    for (; i < need; i++) {
        if (i >= avail) {
            *bad_len = i;
            return 0;
        }
        unsigned char b = s[i];
        unsigned char l = i == 1 ? lo : 0x80, h = i == 1 ? hi : 0xBF;
        if (b < l || b > h) {
            *bad_len = i;
            return 0;
        }
    }
    return need;
}

size_t bf_jsonesc_write(char *dst, const char *src, size_t len)
{
    const unsigned char *s = (const unsigned char *)src;
    char *d = dst;
    size_t i = 0;
    while (i < len) {
        unsigned char c = s[i];
        if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
            *d++ = (char)c;
            i++;
            continue;
        }
        if (c < 0x80) {
            *d++ = '\\';
            switch (c) {
            case '"': *d++ = '"'; break;
            case '\\': *d++ = '\\'; break;
            case '\b': *d++ = 'b'; break;
            case '\f': *d++ = 'f'; break;
            case '\n': *d++ = 'n'; break;
            case '\r': *d++ = 'r'; break;
            case '\t': *d++ = 't'; break;
            default:
                *d++ = 'u';
                *d++ = '0';
                *d++ = '0';
                *d++ = hex_digits[c >> 4];
                *d++ = hex_digits[c & 15];
                break;
            }
            i++;
            continue;
        }
        size_t bad = 0;
        size_t n = utf8_seq(s + i, len - i, &bad);
        if (n) {
            memcpy(d, s + i, n);
            d += n;
            i += n;
        } else {
            *d++ = (char)0xEF; /* U+FFFD */
            *d++ = (char)0xBF;
            *d++ = (char)0xBD;
            i += bad;
        }
    }
    return (size_t)(d - dst);
}

/* Exact number of bytes bf_jsonesc_write produces for src[0..len). */
static size_t escaped_len(const unsigned char *s, size_t len)
{
    size_t n = 0, i = 0;
    while (i < len) {
        unsigned char c = s[i];
        if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
            n++;
            i++;
        } else if (c < 0x80) {
            n += (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' ||
                  c == '\t')
                     ? 2
                     : 6;
            i++;
        } else {
            size_t bad = 0;
            size_t k = utf8_seq(s + i, len - i, &bad);
            n += k ? k : 3;
            i += k ? k : bad;
        }
    }
    return n;
}

int bf_jsonesc_append(bf_buf_t *out, const char *src, size_t len)
{
    /* The bound is pessimistic; near the buffer's cap, ask for the exact size instead. */
    size_t need = bf_jsonesc_bound(len);
    if (need > out->max_len - out->len)
        need = escaped_len((const unsigned char *)src, len);
    int rc = bf_buf_reserve(out, need);
    if (rc != BF_OK)
        return rc;
    out->len += bf_jsonesc_write(out->data + out->len, src, len);
    out->data[out->len] = '\0';
    return BF_OK;
}

int bf_jsonesc_needed(const char *src, size_t len)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t i = 0;
    while (i < len) {
        unsigned char c = s[i];
        if (c < 0x20 || c == '"' || c == '\\' || c == 0x7F)
            return 1;
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t bad = 0;
        size_t n = utf8_seq(s + i, len - i, &bad);
        if (n == 0)
            return 1;
        i += n;
    }
    return 0;
}

int bf_utf8_valid(const char *src, size_t len)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t i = 0;
    while (i < len) {
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        size_t bad = 0;
        size_t n = utf8_seq(s + i, len - i, &bad);
        if (n == 0)
            return 0;
        i += n;
    }
    return 1;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

int bf_json_is_literal(const char *s, size_t len)
{
    if ((len == 4 && memcmp(s, "true", 4) == 0) || (len == 5 && memcmp(s, "false", 5) == 0) ||
        (len == 4 && memcmp(s, "null", 4) == 0))
        return 1;
    size_t i = 0;
    if (i < len && s[i] == '-')
        i++;
    if (i >= len)
        return 0;
    if (s[i] == '0') {
        i++;
    } else if (s[i] >= '1' && s[i] <= '9') {
        while (i < len && is_digit(s[i]))
            i++;
    } else {
        return 0;
    }
    if (i < len && s[i] == '.') {
        i++;
        if (i >= len || !is_digit(s[i]))
            return 0;
        while (i < len && is_digit(s[i]))
            i++;
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= len || !is_digit(s[i]))
            return 0;
        while (i < len && is_digit(s[i]))
            i++;
    }
    return i == len;
}
