/* SPDX-License-Identifier: MIT */
/* bf_jsonesc.h — JSON string escaping and UTF-8 repair for dictionary values and templates.
 *
 * Values from dictionaries (type: file, list) are escaped once, when the scenario is loaded, so
 * the agent's hot path only copies bytes. Escaping follows RFC 8259 §7: '"' and '\' are escaped,
 * every control character below U+0020 (and DEL) becomes \b \f \n \r \t or \u00XX, and each
 * maximal invalid UTF-8 subsequence (Unicode §3.9, "substitution of maximal subparts") becomes
 * U+FFFD, so the output is always valid UTF-8 and a valid JSON string body.
 * All functions are pure and thread-safe.
 */
#ifndef BF_JSONESC_H
#define BF_JSONESC_H

#include "bf_buf.h"

#include <stddef.h>

/* bf_jsonesc_bound — most bytes bf_jsonesc_write can produce for `len` input bytes (6 per byte:
 * a control character becomes \u00XX). */
static inline size_t bf_jsonesc_bound(size_t len)
{
    return len * 6;
}

/* bf_jsonesc_write — escape src[0..len) into dst (room for bf_jsonesc_bound(len) bytes), no
 * surrounding quotes, no NUL. Returns the number of bytes written. */
size_t bf_jsonesc_write(char *dst, const char *src, size_t len);

/* bf_jsonesc_append — escape src[0..len) onto out. Returns 0 or BF_E_TOOBIG (out's cap). */
int bf_jsonesc_append(bf_buf_t *out, const char *src, size_t len);

/* bf_jsonesc_needed — 1 if src[0..len) would change when escaped (quotes, backslashes, control
 * characters or invalid UTF-8), else 0. */
int bf_jsonesc_needed(const char *src, size_t len);

/* bf_utf8_valid — 1 if src[0..len) is well-formed UTF-8, else 0. */
int bf_utf8_valid(const char *src, size_t len);

/* bf_json_is_literal — 1 if s[0..len) is exactly one JSON number, true, false or null
 * (RFC 8259 §6 grammar, no surrounding space), else 0. */
int bf_json_is_literal(const char *s, size_t len);

#endif
