/* SPDX-License-Identifier: MIT */
/* bf_bulkresp.c — judge a _bulk response: acknowledged, rejected and failed documents.
 *
 * One pass, incremental: the worker feeds the body as curl receives it, so the response is never
 * stored (a 5000-item answer is about 1 MB, several MB when items fail) and is judged while
 * the rest is still in flight. The tokenizer is a push-down state machine over JSON (strings,
 * brackets, literals; keys and the few values that matter are captured, bounded; nothing is
 * allocated). It knows where it stands — top-level object, the "items" array, an item, its
 * action object, the item's "error" — and judges each item when it closes (docs/internals/es-api.md
 * §1.6, §1.7). Because it follows string and nesting boundaries, text such as "errors":false inside
 * an item's error reason, or a top-level key named like an item field, cannot fool it.
 *
 * Most of a response does not need that much attention. A container whose content does not
 * matter (an item's "_shards", an error's "caused_by") and, once "errors":false has been read
 * (ES and OpenSearch write it before "items"), the whole items array are skipped by a tight
 * loop that follows only strings and brackets, counting the items. An item that turns out to
 * hold a "failure_store" string is judged again in full from its bytes (kept when a read splits
 * it), and the rest of the response is read in full.
 *
 * The verdict is decided at the end, because "errors" may come after "items":
 *   - "errors":false (nearly every response of a healthy run): every document is ok; the items
 *     are only counted (their number must equal the documents sent). The filter_path form
 *     {"errors":false} without items is accepted too.
 *   - "errors":true: the per-item verdicts, and every item must be {"<op>":{...}} with an
 *     integer status.
 *   - Elasticsearch's failure store (8.19/9.1+ data streams) answers "errors":false while items
 *     carry "failure_store":"used": the document went to the failure index, not the stream. A
 *     "failure_store" string anywhere below the top level selects the per-item verdicts, which
 *     count such items as mapping failures (docs/internals/es-api.md §1.6: "Count it as a
 * failure").
 */
#include "bf_bulkresp.h"

#include "bf_error.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <immintrin.h>
#endif

enum state {
    S_VALUE = 0, /* a value is expected */
    S_OBJ_FIRST, /* after '{': a key or '}' */
    S_OBJ_KEY,   /* after ',' in an object: a key */
    S_COLON,     /* after a key */
    S_AFTER,     /* after a value: ',' or the closing bracket */
    S_ARR_FIRST, /* after '[': a value or ']' */
    S_STRING,
    S_STRING_ESC, /* after a backslash inside a string */
    S_LITERAL,    /* number, true, false, null */
    S_SKIP,       /* inside a skipped region (skip says which kind) */
    S_DONE,       /* the top-level object is closed */
    S_ERROR,
};

/* What an open container is. */
enum role { R_OTHER = 0, R_TOP, R_ITEMS, R_ITEM, R_ACTION, R_ERROR, R_ARRAY };

/* A key that matters, in the object where it matters. */
enum key {
    K_NONE = 0,
    K_ERRORS,
    K_ITEMS,
    K_OP,
    K_BAD_OP,
    K_STATUS,
    K_ERROR,
    K_FS,
    K_TYPE,
    K_REASON
};

/* What the value being read is, from its container and key. */
enum vctx {
    V_OTHER = 0,
    V_TOP,
    V_ERRORS,
    V_ITEMS,
    V_ITEM,
    V_OP,
    V_BAD_OP,
    V_STATUS,
    V_ERROR,
    V_FS,
    V_TYPE,
    V_REASON
};

enum capture { C_NONE = 0, C_TYPE, C_REASON };

enum skip { SKIP_NONE = 0, SKIP_OTHER, SKIP_ITEMS };

/* Bytes that end a literal's run, and bytes that end a string's run. */
static bool is_literal_byte(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
           c == '+' || c == '.';
}

/* The first '"' or '\\' in [p, end), or end. Strings are most of a response: 16 bytes at a
 * time where SSE2 is there (every x86-64). */
static inline const char *string_stop(const char *p, const char *end)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash));
        int m = _mm_movemask_epi8(hit);
        if (m != 0)
            return p + __builtin_ctz((unsigned)m);
        p += 16;
    }
#endif
    while (p < end && *p != '"' && *p != '\\')
        p++;
    return p;
}

static inline bool is_skip_stop(char c)
{
    return c == '"' || c == '{' || c == '}' || c == '[' || c == ']';
}

/* Writes "not a bulk response: <message>" for the caller's log. buf may be NULL. */
__attribute__((format(printf, 3, 4))) static void why(char *buf, size_t size, const char *fmt, ...)
{
    if (buf == NULL || size == 0)
        return;
    int n = snprintf(buf, size, "not a bulk response: ");
    if (n < 0 || (size_t)n >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, size - (size_t)n, fmt, ap);
    va_end(ap);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? ; *integer says no fraction or
 * exponent. */
static bool is_number(const char *s, size_t n, bool *integer)
{
    size_t i = 0;
    *integer = true;
    if (i < n && s[i] == '-')
        i++;
    if (i >= n)
        return false;
    if (s[i] == '0') {
        i++;
    } else if (s[i] >= '1' && s[i] <= '9') {
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    } else {
        return false;
    }
    if (i < n && s[i] == '.') {
        *integer = false;
        size_t d = ++i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == d)
            return false;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        *integer = false;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t d = i;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == d)
            return false;
    }
    return i == n;
}

/* The value of 4 hex digits (a non-hex digit counts as 0: the text is only for messages). */
static unsigned hex4(const char *h)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char c = h[k];
        v = v * 16u + (unsigned)(c >= '0' && c <= '9'   ? c - '0'
                                 : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                 : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                        : 0);
    }
    return v;
}

/* Decodes JSON string escapes of raw (n bytes, possibly cut inside an escape) into out. */
static void unescape(const char *raw, size_t n, char *out, size_t out_size)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 1 < out_size; i++) {
        char c = raw[i];
        if (c != '\\') {
            out[o++] = c;
            continue;
        }
        if (++i >= n)
            break;
        switch (raw[i]) {
        case 'b': out[o++] = '\b'; break;
        case 'f': out[o++] = '\f'; break;
        case 'n': out[o++] = '\n'; break;
        case 'r': out[o++] = '\r'; break;
        case 't': out[o++] = '\t'; break;
        case 'u': {
            if (i + 4 >= n)
                goto done;
            unsigned cp = hex4(raw + i + 1);
            i += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < n && raw[i + 1] == '\\' &&
                raw[i + 2] == 'u') {
                unsigned lo = hex4(raw + i + 3);
                if (lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                }
            }
            char u[4];
            size_t un;
            if (cp < 0x80) {
                u[0] = (char)cp;
                un = 1;
            } else if (cp < 0x800) {
                u[0] = (char)(0xC0 | (cp >> 6));
                u[1] = (char)(0x80 | (cp & 0x3F));
                un = 2;
            } else if (cp < 0x10000) {
                u[0] = (char)(0xE0 | (cp >> 12));
                u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
                u[2] = (char)(0x80 | (cp & 0x3F));
                un = 3;
            } else {
                u[0] = (char)(0xF0 | (cp >> 18));
                u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
                u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
                u[3] = (char)(0x80 | (cp & 0x3F));
                un = 4;
            }
            if (o + un >= out_size)
                goto done;
            memcpy(out + o, u, un);
            o += un;
            break;
        }
        default: out[o++] = raw[i]; break; /* \" \\ \/ */
        }
    }
done:
    out[o] = '\0';
}

static void fail(bf_bulkresp_stream_t *st, const char *what, uint64_t at)
{
    st->why = what;
    st->why_at = at;
    st->state = S_ERROR;
}

static void item_bad(bf_bulkresp_stream_t *st, const char *what)
{
    st->item_bad_now = 1;
    if (st->item_bad == NULL) {
        st->item_bad = what;
        st->item_bad_index = st->items;
    }
}

int bf_bulkresp_mapping_type(const char *type)
{
    /* docs/internals/es-api.md error table: a bad document is mapper_parsing_exception (OpenSearch,
     * ES before 8.8) or document_parsing_exception (ES 8.8+); strict mappings give
     * strict_dynamic_mapping_exception. An error without a type is judged by its status. */
    return type[0] == '\0' || strncmp(type, "mapper_", 7) == 0 ||
           strcmp(type, "document_parsing_exception") == 0 ||
           strcmp(type, "strict_dynamic_mapping_exception") == 0;
}

/* docs/internals/es-api.md §1.7: success is decided by the presence of "error", not by the status
 * (a delete of a missing document is 404 without error). Rejections are recognized by status or by
 * type, since a 429 is not the only way they are reported; a 400 is a mapping failure only when its
 * type says so (routing_missing_exception is the scenario's routing, not the mapping). */
enum bf_item_class bf_bulkresp_classify(int64_t status, const char *type, int has_error,
                                        int failure_store_used)
{
    if (!has_error)
        return failure_store_used ? BF_ITEM_MAPPING : BF_ITEM_OK;
    /* docs/internals/es-api.md appendix A: a 429 cluster_block_exception (flood-stage disk
     * watermark) is not a transient rejection: it is an index block, failed like the 403 form */
    if (status == 429 && strcmp(type, "cluster_block_exception") == 0)
        return BF_ITEM_4XX;
    if (status == 429 || ends_with(type, "rejected_execution_exception"))
        return BF_ITEM_REJECTED;
    if (status == 409)
        return BF_ITEM_CONFLICT;
    if (status == 400)
        return bf_bulkresp_mapping_type(type) ? BF_ITEM_MAPPING : BF_ITEM_4XX;
    if (status > 400 && status < 500)
        return BF_ITEM_4XX;
    return BF_ITEM_5XX; /* 5xx, and an error with no or a nonsensical status */
}

static void count_class(bf_bulk_counts_t *c, enum bf_item_class cls)
{
    switch (cls) {
    case BF_ITEM_OK: c->ok++; break;
    case BF_ITEM_REJECTED: c->rejected++; break;
    case BF_ITEM_CONFLICT: c->conflict++; break;
    case BF_ITEM_MAPPING: c->mapping++; break;
    case BF_ITEM_4XX: c->failed_4xx++; break;
    case BF_ITEM_5XX: c->failed_5xx++; break;
    }
}

static void item_begin(bf_bulkresp_stream_t *st)
{
    st->item_keys = 0;
    st->item_bad_now = 0;
    st->item_has_status = 0;
    st->item_has_error = 0;
    st->item_fs_used = 0;
    st->item_action = 0;
    st->item_status = 0;
    st->type_len = 0;
    st->reason_len = 0;
}

/* A failed item into st->errs: its error type and reason, unescaped (a new type's only). */
static void count_type(bf_bulkresp_stream_t *st)
{
    char type[BF_ERRTYPE_LEN], reason[BF_ERRREASON_LEN];
    int missing = !st->item_has_error && st->item_status == 404 && !st->item_fs_used;
    if (missing)
        snprintf(type, sizeof type, "not_found");
    else if (!st->item_has_error)
        snprintf(type, sizeof type, "failure_store");
    else if (st->type[0] == '\0')
        snprintf(type, sizeof type, "http_%d", (int)st->item_status);
    else
        unescape(st->type, strlen(st->type), type, sizeof type);
    for (uint32_t i = 0; i < st->errs.n; i++) {
        if (strcmp(st->errs.e[i].type, type) == 0) {
            st->errs.e[i].docs++;
            return;
        }
    }
    unescape(st->reason, st->reason_len, reason, sizeof reason);
    if (missing)
        snprintf(reason, sizeof reason,
                 "a delete of a missing document (404 without error), "
                 "a failure by document.delete_missing: fail");
    else if (!st->item_has_error)
        snprintf(reason, sizeof reason, "document stored in the failure store (status %d)",
                 (int)st->item_status);
    bf_errtypes_add(&st->errs, type, reason, 1);
}

/* An element of the items array is complete; `object` says whether it was an object. */
static void item_end(bf_bulkresp_stream_t *st, bool object)
{
    if (!object)
        item_bad(st, "item is not {\"index|create|update|delete\":{...}}");
    else if (st->item_keys != 1 || !st->item_action)
        item_bad(st, "item is not {\"index|create|update|delete\":{...}}");
    if (!st->item_bad_now) {
        st->type[st->type_len < sizeof st->type ? st->type_len : sizeof st->type - 1] = '\0';
        enum bf_item_class cls =
            bf_bulkresp_classify(st->item_status, st->type, st->item_has_error, st->item_fs_used);
        if (cls == BF_ITEM_OK && st->missing_fails && !st->item_has_error &&
            st->item_status == 404) {
            /* asked for (document.delete_missing: fail): the missing delete is a failure */
            cls = BF_ITEM_4XX;
            memcpy(st->type, "not_found", 9);
            st->type_len = 9;
            st->type[9] = '\0';
        }
        if (cls != BF_ITEM_OK)
            count_type(st);
        count_class(&st->judged, cls);
        if (st->item_class != NULL && st->items < st->ndocs)
            st->item_class[st->items] = (uint8_t)cls;
        if (st->have_first && cls != BF_ITEM_OK && !st->types_differ &&
            strcmp(st->first_type, st->type) != 0)
            st->types_differ = 1;
        if (!st->have_first && cls != BF_ITEM_OK) {
            st->have_first = 1;
            memcpy(st->first_type, st->type, st->type_len);
            st->first_type[st->type_len] = '\0';
            memcpy(st->first_reason, st->reason, st->reason_len);
            st->first_reason[st->reason_len] = '\0';
            st->first_status = st->item_status;
            st->first_has_error = st->item_has_error;
        }
    }
    st->items++;
}

/* The context of a value about to start in the open container. */
static inline enum vctx value_ctx(const bf_bulkresp_stream_t *st)
{
    if (st->depth == 0)
        return V_TOP;
    switch (st->role[st->depth - 1]) {
    case R_TOP: return st->key == K_ERRORS ? V_ERRORS : st->key == K_ITEMS ? V_ITEMS : V_OTHER;
    case R_ITEMS: return V_ITEM;
    case R_ITEM: return st->key == K_OP ? V_OP : V_BAD_OP;
    case R_ACTION:
        return st->key == K_STATUS  ? V_STATUS
               : st->key == K_ERROR ? V_ERROR
               : st->key == K_FS    ? V_FS
                                    : V_OTHER;
    case R_ERROR: return st->key == K_TYPE ? V_TYPE : st->key == K_REASON ? V_REASON : V_OTHER;
    default: return V_OTHER;
    }
}

/* A value (scalar or container) has been read completely; its container is role[depth-1]. */
static void value_done(bf_bulkresp_stream_t *st, bool object)
{
    if (st->depth == 0) {
        st->state = S_DONE;
        return;
    }
    if (st->role[st->depth - 1] == R_ITEMS)
        item_end(st, object);
    st->state = S_AFTER;
}

static void push(bf_bulkresp_stream_t *st, enum role r, uint64_t at)
{
    if (st->depth >= BF_BULKRESP_MAX_DEPTH) {
        fail(st, "nested too deep", at);
        return;
    }
    st->role[st->depth++] = (uint8_t)r;
}

/* '{' or '[' starts a value. */
static void open_container(bf_bulkresp_stream_t *st, char c, uint64_t at)
{
    enum vctx v = value_ctx(st);
    bool obj = c == '{';
    enum role r = obj ? R_OTHER : R_ARRAY;
    switch (v) {
    case V_TOP:
        if (!obj) {
            fail(st, "not a JSON object", at);
            return;
        }
        r = R_TOP;
        break;
    case V_ERRORS: fail(st, "\"errors\" is not a boolean", at); return;
    case V_ITEMS:
        if (!obj) {
            r = R_ITEMS;
            st->has_items = 1;
            st->items = 0;
            memset(&st->judged, 0, sizeof st->judged);
            bf_errtypes_reset(&st->errs);
        }
        break;
    case V_ITEM:
        if (obj) {
            r = R_ITEM;
            item_begin(st);
        }
        break;
    case V_OP:
        if (obj) {
            r = R_ACTION;
            st->item_action = 1;
        } else {
            item_bad(st, "item is not {\"index|create|update|delete\":{...}}");
        }
        break;
    case V_BAD_OP: break;
    case V_STATUS: item_bad(st, "\"status\" of an item is not an integer"); break;
    case V_ERROR:
        st->item_has_error = 1;
        st->type_len = 0;
        st->reason_len = 0;
        if (obj)
            r = R_ERROR;
        break;
    case V_OTHER:
    case V_FS:
    case V_TYPE:
    case V_REASON: break;
    }
    if (r == R_OTHER || r == R_ARRAY) {
        st->skip = SKIP_OTHER;
        st->skip_depth = 1;
        st->skip_in_string = 0;
        st->skip_escape = 0;
        st->state = S_SKIP;
        return;
    }
    push(st, r, at);
    if (st->state == S_ERROR)
        return;
    if (r == R_ITEMS && st->has_errors && !st->errors && !st->failure_store && !st->missing_fails) {
        st->skip = SKIP_ITEMS;
        st->skip_depth = 0;
        st->skip_in_string = 0;
        st->skip_escape = 0;
        st->state = S_SKIP;
        return;
    }
    st->state = obj ? S_OBJ_FIRST : S_ARR_FIRST;
}

static void close_container(bf_bulkresp_stream_t *st, char c, uint64_t at)
{
    enum role r = (enum role)st->role[st->depth - 1];
    bool obj = r != R_ARRAY && r != R_ITEMS;
    if ((c == '}') != obj) {
        fail(st, obj ? "expected ',' or '}'" : "expected ',' or ']'", at);
        return;
    }
    st->depth--;
    value_done(st, r == R_ITEM);
}

/* A token (string or literal) is read in place from the chunk it lies in; only one that spans
 * two chunks is copied, bounded, into st->tok. Captured values (error type and reason) are
 * copied into their own bounded buffers. */
static void capture(bf_bulkresp_stream_t *st, const char *p, size_t n)
{
    if (st->capture == C_TYPE) {
        size_t room = sizeof st->type - 1 - st->type_len;
        size_t k = n < room ? n : room;
        memcpy(st->type + st->type_len, p, k);
        st->type_len += (uint32_t)k;
    } else {
        size_t room = sizeof st->reason - 1 - st->reason_len;
        size_t k = n < room ? n : room;
        memcpy(st->reason + st->reason_len, p, k);
        st->reason_len += (uint32_t)k;
    }
}

/* The part of the open token in this chunk, [p, q), is kept for the next chunk. */
static void tok_save(bf_bulkresp_stream_t *st, const char *p, const char *q)
{
    size_t n = (size_t)(q - p);
    size_t room = sizeof st->tok - st->tok_len;
    size_t k = n < room ? n : room;
    memcpy(st->tok + st->tok_len, p, k);
    st->tok_len += (uint32_t)k;
    if (n > room)
        st->tok_long = 1;
    if (st->capture != C_NONE)
        capture(st, p, n);
    st->tok_partial = 1;
}

/* The whole token: [p, q) of this chunk after what earlier chunks held. *n is SIZE_MAX when
 * it is longer than st->tok could hold (then it matches no key). */
static inline const char *tok_whole(bf_bulkresp_stream_t *st, const char *p, const char *q,
                                    size_t *n)
{
    if (st->capture != C_NONE)
        capture(st, p, (size_t)(q - p));
    if (!st->tok_partial) {
        *n = (size_t)(q - p);
        return p;
    }
    st->tok_partial = 0;
    size_t m = (size_t)(q - p), room = sizeof st->tok - st->tok_len;
    if (m > room || st->tok_long) {
        *n = SIZE_MAX;
        return st->tok;
    }
    memcpy(st->tok + st->tok_len, p, m);
    *n = st->tok_len + m;
    return st->tok;
}

#define IS(s, n, lit) ((n) == sizeof(lit) - 1 && memcmp((s), (lit), sizeof(lit) - 1) == 0)

/* A string value starts (the opening quote has been read). */
static void string_value_begin(bf_bulkresp_stream_t *st, uint64_t at)
{
    enum vctx v = value_ctx(st);
    st->value_key = (uint8_t)v;
    st->string_is_key = 0;
    st->capture = C_NONE;
    switch (v) {
    case V_TOP: fail(st, "not a JSON object", at); return;
    case V_ERRORS: fail(st, "\"errors\" is not a boolean", at); return;
    case V_OP: item_bad(st, "item is not {\"index|create|update|delete\":{...}}"); break;
    case V_STATUS: item_bad(st, "\"status\" of an item is not an integer"); break;
    case V_ERROR:
        /* "error":"text" — an error without a type */
        st->item_has_error = 1;
        st->type_len = 0;
        st->reason_len = 0;
        st->capture = C_REASON; /* every failed item's: the first of each type is kept */
        break;
    case V_TYPE: /* always kept: the class may depend on it */
        st->type_len = 0;
        st->capture = C_TYPE;
        break;
    case V_REASON:
        st->reason_len = 0;
        st->capture = C_REASON; /* every failed item's: the first of each type is kept */
        break;
    case V_ITEM:
        /* "items": [..., "text", ...]: no document's verdict can be read from it */
        fail(st, "an item is not an object", at);
        return;
    case V_ITEMS:
    case V_BAD_OP:
    case V_FS:
    case V_OTHER: break;
    }
    st->state = S_STRING;
}

static void string_end(bf_bulkresp_stream_t *st, const char *s, size_t n)
{
    st->capture = C_NONE;
    if (n == 13 && st->depth >= 2 && memcmp(s, "failure_store", 13) == 0)
        st->failure_store = 1;
    if (st->string_is_key) {
        enum key k = K_NONE;
        switch (st->role[st->depth - 1]) {
        case R_TOP: k = IS(s, n, "errors") ? K_ERRORS : IS(s, n, "items") ? K_ITEMS : K_NONE; break;
        case R_ITEM:
            st->item_keys++;
            if (st->item_keys == 1 && (IS(s, n, "create") || IS(s, n, "index") ||
                                       IS(s, n, "update") || IS(s, n, "delete"))) {
                k = K_OP;
            } else {
                k = K_BAD_OP;
                item_bad(st, "item is not {\"index|create|update|delete\":{...}}");
            }
            break;
        case R_ACTION:
            k = IS(s, n, "status")          ? K_STATUS
                : IS(s, n, "error")         ? K_ERROR
                : IS(s, n, "failure_store") ? K_FS
                                            : K_NONE;
            break;
        case R_ERROR: k = IS(s, n, "type") ? K_TYPE : IS(s, n, "reason") ? K_REASON : K_NONE; break;
        default: break;
        }
        st->key = (uint8_t)k;
        st->state = S_COLON;
        return;
    }
    if (st->value_key == V_FS && IS(s, n, "used"))
        st->item_fs_used = 1;
    value_done(st, false);
}

/* A literal [s, s+n) ended (the delimiter is not consumed). */
static void literal_end(bf_bulkresp_stream_t *st, const char *s, size_t n, uint64_t at)
{
    enum vctx v = (enum vctx)st->value_key;
    bool integer = false;
    /* A literal longer than st->tok cannot be checked once it is split across reads, so none
     * is accepted, split or not: the verdict must not depend on where reads end (no number in
     * a bulk response comes near 32 characters). */
    if (n > sizeof st->tok)
        n = SIZE_MAX;
    bool is_true = IS(s, n, "true"), is_false = IS(s, n, "false"), is_null = IS(s, n, "null");
    if (!is_true && !is_false && !is_null && (n == SIZE_MAX || !is_number(s, n, &integer))) {
        fail(st, v == V_ERRORS ? "\"errors\" is not a boolean" : "truncated or malformed value",
             at);
        return;
    }
    switch (v) {
    case V_TOP: fail(st, "not a JSON object", at); return;
    case V_ERRORS:
        if (!is_true && !is_false) {
            fail(st, "\"errors\" is not a boolean", at);
            return;
        }
        st->has_errors = 1;
        if (is_true)
            st->errors = 1;
        break;
    case V_STATUS:
        if (is_true || is_false || is_null || !integer || n > 18) {
            item_bad(st, "\"status\" of an item is not an integer");
        } else {
            int64_t v10 = 0;
            for (size_t i = s[0] == '-' ? 1 : 0; i < n; i++)
                v10 = v10 * 10 + (s[i] - '0');
            st->item_status = s[0] == '-' ? -v10 : v10;
            st->item_has_status = 1;
        }
        break;
    case V_ERROR:
        st->item_has_error = !is_null;
        st->type_len = 0;
        st->reason_len = 0;
        break;
    case V_OP: item_bad(st, "item is not {\"index|create|update|delete\":{...}}"); break;
    case V_ITEM: fail(st, "an item is not an object", at); return;
    case V_ITEMS:
    case V_BAD_OP:
    case V_FS:
    case V_TYPE:
    case V_REASON:
    case V_OTHER: break;
    }
    value_done(st, false);
}

void bf_bulkresp_stream_init(bf_bulkresp_stream_t *st, uint32_t ndocs, uint8_t *item_class)
{
    memset(st, 0, offsetof(bf_bulkresp_stream_t, tok));
    st->tok_len = 0;
    st->tok_long = 0;
    st->tok_partial = 0;
    st->type_len = 0;
    st->reason_len = 0;
    st->capture = C_NONE;
    st->have_first = 0;
    st->types_differ = 0;
    st->skip = SKIP_NONE;
    st->skip_in_string = 0;
    st->skip_escape = 0;
    st->skip_depth = 0;
    st->item_saved = 0;
    st->item_fs = 0;
    st->ndocs = ndocs;
    st->item_class = item_class;
    bf_errtypes_reset(&st->errs);
    st->state = S_VALUE;
}

int bf_bulkresp_stream_failed(const bf_bulkresp_stream_t *st)
{
    return st->state == S_ERROR;
}

static void feed_bytes(bf_bulkresp_stream_t *st, const char *buf, size_t len);

#ifdef __SSE2__
/* The bits of one 64-byte block: bit i of each mask describes byte p[i]. */
typedef struct block_bits {
    uint64_t quote, bslash; /* '"', '\\' */
    uint64_t open, close;   /* '{' or '[', '}' or ']' */
    uint64_t f, e;          /* 'f', 'e': where a "failure_store" string may start and end */
} block_bits;

static inline void block_masks(const char *p, block_bits *m)
{
    const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\'), low = _mm_set1_epi8(0x20),
                  ob = _mm_set1_epi8('{'), cb = _mm_set1_epi8('}'), lf = _mm_set1_epi8('f'),
                  le = _mm_set1_epi8('e');
    uint64_t mq = 0, mb = 0, mo = 0, mc = 0, mf = 0, me = 0;
    for (int i = 0; i < 4; i++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
        __m128i f = _mm_or_si128(v, low); /* '[' -> '{', ']' -> '}' */
        mq |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, q)) << (16 * i);
        mb |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, b)) << (16 * i);
        mo |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(f, ob)) << (16 * i);
        mc |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(f, cb)) << (16 * i);
        mf |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, lf)) << (16 * i);
        me |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, le)) << (16 * i);
    }
    *m = (block_bits){mq, mb, mo, mc, mf, me};
}

/* 1 when bytes [from, to) of p hold only the blanks and commas that may sit between items.
 * Scalar: the gap is almost always the single ',' between two items. */
static inline int gap_is_blank(const char *p, int from, int to)
{
    for (int k = from; k < to; k++)
        if (p[k] != ',' && p[k] != ' ' && p[k] != '\n' && p[k] != '\r' && p[k] != '\t')
            return 0;
    return 1;
}

/* Bit i = xor of bits 0..i: with quote bits, 1 from an opening quote to before its closing one. */
static inline uint64_t prefix_xor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/* 1 when a "failure_store" string may end in or after the block at p, whose bits are m: a
 * candidate is an 'f' after a quote (or at the block's start) with an 'e' 12 bytes on before a
 * quote (or past the block), and it stands unless the read's bytes from it (up to end) show it
 * is not the word with its closing quote. The one pass over a read: the byte loop then reads
 * the block and judges the string exactly (a read used to be searched once more before). */
static inline int may_hold_failure_store(const char *p, const char *end, const block_bits *m)
{
    uint64_t e_end = m->e & ((m->quote >> 1) | (1ull << 63));
    uint64_t cand = m->f & ((m->quote << 1) | 1) & ((e_end >> 12) | (~0ull << 52));
    while (cand != 0) {
        int i = __builtin_ctzll(cand);
        if (end - (p + i) < 14 || memcmp(p + i, "failure_store\"", 14) == 0)
            return 1;
        cand &= cand - 1;
    }
    return 0;
}

/* SKIP_ITEMS over whole 64-byte blocks: the brackets outside strings are found 64 bytes at a
 * time (after simdjson's stage 1) and counted. Enter outside a string. Returns the new
 * position: before a block holding a backslash (escapes are left to the byte loop) or one that
 * may hold a "failure_store" string (may_hold_failure_store), at the ']' that closes the items
 * array, or where fewer than 64 bytes are left; the string state is in st->skip_in_string (and
 * *ts when inside one). */
typedef void block_masks_fn(const char *p, block_bits *m);
typedef uint64_t prefix_xor_fn(uint64_t x);

static inline __attribute__((always_inline)) const char *
skip_items_blocks_impl(bf_bulkresp_stream_t *st, const char *p, const char *end, const char **is,
                       const char **ts, block_masks_fn *masks, prefix_xor_fn *pxor)
{
    uint64_t carry = 0; /* all ones when a string is open at the block start */
    const char *last_open = NULL;
    while (end - p >= 64) {
        block_bits m;
        masks(p, &m);
        if (m.bslash != 0 || may_hold_failure_store(p, end, &m))
            break;
        uint64_t q = m.quote, o = m.open, c = m.close;
        uint64_t in = pxor(q) ^ carry;
        uint64_t opening = q & in;
        if (opening != 0)
            last_open = p + 63 - __builtin_clzll(opening);
        uint64_t structural = (o | c) & ~in;
        /* Between items (depth 0) only blanks and commas may appear; anything else (a string or
         * a stray byte) is for the byte loop, which refuses it or judges it in full, so the
         * verdict never depends on where a read happens to start (fuzz_bulkresp). */
        int from = 0; /* bytes before this one are accounted for */
        while (structural != 0) {
            int i = __builtin_ctzll(structural);
            if (st->skip_depth == 0 && !gap_is_blank(p, from, i)) {
                st->skip_in_string = 0;
                return p + from;
            }
            structural &= structural - 1;
            from = i + 1;
            if ((o >> i) & 1) {
                if (st->skip_depth == 0) {
                    *is = p + i;
                    st->item_saved = 0;
                    st->item_overflow = 0;
                }
                st->skip_depth++;
            } else if (st->skip_depth == 0) {
                st->skip_in_string = 0;
                return p + i; /* the array's ']': the byte loop closes it */
            } else if (--st->skip_depth == 0) {
                if (st->item_class != NULL && st->items < st->ndocs)
                    st->item_class[st->items] = BF_ITEM_OK;
                st->judged.ok++;
                st->items++;
            }
        }
        if (st->skip_depth == 0 && !gap_is_blank(p, from, 64)) {
            st->skip_in_string = 0;
            return p + from;
        }
        carry = (uint64_t)((int64_t)in >> 63);
        p += 64;
    }
    st->skip_in_string = carry != 0;
    if (st->skip_in_string) {
        *ts = last_open + 1;
        st->tok_len = 0;
        st->tok_long = 0;
        st->tok_partial = 0;
    }
    return p;
}

/* The same 64-byte masks with AVX2: two 32-byte loads instead of four 16-byte ones. */
/* prefix_xor as one carry-less multiplication by all ones (simdjson's stage 1). */
__attribute__((target("avx2,pclmul"))) static inline uint64_t prefix_xor_clmul(uint64_t x)
{
    __m128i r = _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8(-1), 0);
    return (uint64_t)_mm_cvtsi128_si64(r);
}

__attribute__((target("avx2"))) static inline uint64_t eq_mask_avx2(__m256i lo, __m256i hi,
                                                                    __m256i c)
{
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, c)) |
           (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, c)) << 32;
}

__attribute__((target("avx2"))) static inline void block_masks_avx2(const char *p, block_bits *m)
{
    const __m256i low = _mm256_set1_epi8(0x20);
    __m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
    __m256i flo = _mm256_or_si256(lo, low), fhi = _mm256_or_si256(hi, low); /* '[' -> '{' */
    m->quote = eq_mask_avx2(lo, hi, _mm256_set1_epi8('"'));
    m->bslash = eq_mask_avx2(lo, hi, _mm256_set1_epi8('\\'));
    m->open = eq_mask_avx2(flo, fhi, _mm256_set1_epi8('{'));
    m->close = eq_mask_avx2(flo, fhi, _mm256_set1_epi8('}'));
    m->f = eq_mask_avx2(lo, hi, _mm256_set1_epi8('f'));
    m->e = eq_mask_avx2(lo, hi, _mm256_set1_epi8('e'));
}

static const char *skip_items_blocks_sse2(bf_bulkresp_stream_t *st, const char *p, const char *end,
                                          const char **is, const char **ts)
{
    return skip_items_blocks_impl(st, p, end, is, ts, block_masks, prefix_xor);
}

__attribute__((target("avx2,pclmul"))) static const char *
skip_items_blocks_avx2(bf_bulkresp_stream_t *st, const char *p, const char *end, const char **is,
                       const char **ts)
{
    return skip_items_blocks_impl(st, p, end, is, ts, block_masks_avx2, prefix_xor_clmul);
}

/* The AVX2 variant where the CPU has it (found once at start); the masks are the same bits,
 * test_bulkresp runs both (bf_bulkresp_force_sse2). */
static int have_avx2, forced_sse2;

__attribute__((constructor)) static void detect_avx2(void)
{
    __builtin_cpu_init();
    /* AVX2 and PCLMULQDQ (every AVX2 CPU has it, checked all the same) */
    have_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul") ? 1 : 0;
}

void bf_bulkresp_force_sse2(int on)
{
    forced_sse2 = on;
}

static const char *skip_items_blocks(bf_bulkresp_stream_t *st, const char *p, const char *end,
                                     const char **is, const char **ts)
{
    return have_avx2 && !forced_sse2 ? skip_items_blocks_avx2(st, p, end, is, ts)
                                     : skip_items_blocks_sse2(st, p, end, is, ts);
}
#else
void bf_bulkresp_force_sse2(int on)
{
    (void)on;
}
#endif

/* Skipped region, from p: strings and brackets only. Returns where it stopped: end, or where
 * the full reading takes over (st->state is then no longer S_SKIP). *ts is where the open
 * string's bytes start in this read, *is where the current item's. */
static const char *skip_run(bf_bulkresp_stream_t *st, const char *p, const char *end,
                            const char **ts, const char **is, uint64_t base, const char *buf)
{
#ifdef __SSE2__
    const char *blocks_from = p; /* not before: the last attempt met a backslash */
#endif
    while (p < end) {
#ifdef __SSE2__
        if (st->skip == SKIP_ITEMS && !st->skip_in_string && !st->item_fs && p >= blocks_from &&
            end - p >= 64) {
            const char *q = skip_items_blocks(st, p, end, is, ts);
            if (q == p) {
                blocks_from = p + 64;
            } else {
                p = q;
                continue;
            }
        }
#endif
        if (st->skip_in_string) {
            if (st->skip_escape) {
                st->skip_escape = 0;
                p++;
                continue;
            }
            const char *q = string_stop(p, end);
            if (q == end)
                return end;
            if (*q == '\\') {
                p = q + 1;
                if (p == end) {
                    st->skip_escape = 1;
                    return end;
                }
                p++;
                continue;
            }
            size_t n;
            const char *sv = tok_whole(st, *ts, q, &n);
            if (n == 13 && memcmp(sv, "failure_store", 13) == 0) {
                st->failure_store = 1;
                st->item_fs = 1;
            }
            st->skip_in_string = 0;
            p = q + 1;
            continue;
        }
        if (st->skip_depth > 0) {
            /* inside a container: only quotes and brackets matter */
            while (p < end && !is_skip_stop(*p))
                p++;
            if (p == end)
                return end;
        }
        char c = *p;
        switch (c) {
        case '"':
            if (st->skip == SKIP_ITEMS && st->skip_depth == 0) {
                /* a string where an item belongs: the full reading refuses it */
                st->skip = SKIP_NONE;
                st->state = S_VALUE;
                return p;
            }
            st->skip_in_string = 1;
            st->tok_len = 0;
            st->tok_long = 0;
            st->tok_partial = 0;
            *ts = ++p;
            break;
        case '{':
        case '[':
            if (st->skip == SKIP_ITEMS && st->skip_depth == 0) {
                *is = p;
                st->item_fs = 0;
                st->item_saved = 0;
                st->item_overflow = 0;
            }
            st->skip_depth++;
            p++;
            break;
        case '}':
        case ']':
            if (st->skip_depth == 0) { /* SKIP_ITEMS: the items array ends */
                if (c != ']') {
                    fail(st, "expected ',' or ']'", base + (uint64_t)(p - buf));
                    return end;
                }
                st->skip = SKIP_NONE;
                st->depth--;
                value_done(st, false);
                return p + 1;
            }
            p++;
            if (--st->skip_depth > 0)
                break;
            if (st->skip == SKIP_OTHER) {
                st->skip = SKIP_NONE;
                value_done(st, false);
                return p;
            }
            if (!st->item_fs) { /* an item of an "errors":false response */
                if (st->item_class != NULL && st->items < st->ndocs)
                    st->item_class[st->items] = BF_ITEM_OK;
                st->judged.ok++;
                st->items++;
                break;
            }
            /* a "failure_store" item: judge it in full, and the rest of the response too */
            st->skip = SKIP_NONE;
            st->state = S_VALUE;
            if (st->item_overflow) {
                fail(st, "an item too large to judge", base + (uint64_t)(p - buf));
                return end;
            }
            feed_bytes(st, st->item_buf, st->item_saved);
            feed_bytes(st, *is, (size_t)(p - *is));
            return p;
        default:
            if (st->skip == SKIP_ITEMS && st->skip_depth == 0 && c != ',' && c != ' ' &&
                c != '\n' && c != '\r' && c != '\t') {
                /* an item that is not an object: the full reading judges it */
                st->skip = SKIP_NONE;
                st->state = S_VALUE;
                return p;
            }
            p++;
            break;
        }
    }
    return end;
}

/* Reads len bytes; st->offset is the position of buf (error messages). */
static void feed_bytes(bf_bulkresp_stream_t *st, const char *buf, size_t len)
{
    const char *p = buf, *end = buf + len;
    const char *ts = buf; /* where the open token's bytes start in this chunk */
    const char *is = buf; /* where the current skipped item's bytes start in this chunk */
    while (p < end && st->state != S_ERROR) {
        switch (st->state) {
        case S_SKIP: p = skip_run(st, p, end, &ts, &is, st->offset, buf); break;
        case S_STRING_ESC:
            p++; /* the escaped byte */
            st->state = S_STRING;
            break;
        case S_STRING:
            p = string_stop(p, end);
            if (p == end)
                break;
            if (*p == '\\') {
                p++;
                if (p == end) {
                    st->state = S_STRING_ESC;
                    break;
                }
                p++;
                break;
            }
            {
                size_t n;
                const char *s = tok_whole(st, ts, p, &n);
                p++; /* the closing quote */
                string_end(st, s, n);
            }
            break;
        case S_LITERAL:
            while (p < end && is_literal_byte(*p))
                p++;
            if (p < end) {
                size_t n;
                const char *s = tok_whole(st, ts, p, &n);
                literal_end(st, s, n, st->offset + (uint64_t)(p - buf));
            }
            break;
        default: {
            char c = *p;
            uint64_t at = st->offset + (uint64_t)(p - buf);
            if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
                p++;
                break;
            }
            p++;
            switch (st->state) {
            case S_DONE: fail(st, "data after the object", at); break;
            case S_COLON:
                if (c == ':')
                    st->state = S_VALUE;
                else
                    fail(st, "expected ':'", at);
                break;
            case S_OBJ_FIRST:
                if (c == '}') {
                    st->depth--;
                    value_done(st, st->role[st->depth] == R_ITEM);
                    break;
                }
                __attribute__((fallthrough)); /* both compilers see it */
            case S_OBJ_KEY:
                if (c == '"') {
                    ts = p;
                    st->tok_len = 0;
                    st->tok_long = 0;
                    st->string_is_key = 1;
                    st->capture = C_NONE;
                    st->state = S_STRING;
                } else {
                    fail(st, "expected a key", at);
                }
                break;
            case S_AFTER:
                if (c == ',') {
                    enum role r = (enum role)st->role[st->depth - 1];
                    st->state = (r == R_ARRAY || r == R_ITEMS) ? S_VALUE : S_OBJ_KEY;
                } else if (c == '}' || c == ']') {
                    close_container(st, c, at);
                } else {
                    fail(st,
                         st->depth == 1 ? "expected ',' or '}'" : "truncated or malformed value",
                         at);
                }
                break;
            case S_ARR_FIRST:
                if (c == ']') {
                    st->depth--;
                    value_done(st, false);
                    break;
                }
                __attribute__((fallthrough)); /* both compilers see it */
            case S_VALUE:
                if (c == '{' || c == '[') {
                    open_container(st, c, at);
                } else if (c == '"') {
                    ts = p;
                    st->tok_len = 0;
                    st->tok_long = 0;
                    string_value_begin(st, at);
                } else if (is_literal_byte(c)) {
                    st->value_key = (uint8_t)value_ctx(st);
                    if (st->value_key == V_TOP) {
                        fail(st, "not a JSON object", at);
                        break;
                    }
                    ts = p - 1;
                    st->tok_len = 0;
                    st->tok_long = 0;
                    st->capture = C_NONE;
                    st->state = S_LITERAL;
                } else {
                    fail(st, st->depth == 0 ? "not a JSON object" : "truncated or malformed value",
                         at);
                }
                break;
            default: fail(st, "internal state", at); break;
            }
            break;
        }
        }
    }
    if (st->state == S_STRING || st->state == S_STRING_ESC || st->state == S_LITERAL ||
        (st->state == S_SKIP && st->skip_in_string))
        tok_save(st, ts, end);
    if (st->state == S_SKIP && st->skip == SKIP_ITEMS && st->skip_depth > 0) {
        /* an item goes on in the next read: keep its bytes in case it must be judged again */
        size_t n = (size_t)(end - is), room = sizeof st->item_buf - st->item_saved;
        if (n > room) {
            n = room;
            st->item_overflow = 1;
        }
        memcpy(st->item_buf + st->item_saved, is, n);
        st->item_saved += (uint32_t)n;
    }
}

void bf_bulkresp_stream_feed(bf_bulkresp_stream_t *st, const char *buf, size_t len)
{
    if (st->state == S_ERROR)
        return;
    if (len > BF_MAX_RESPONSE_BYTES - st->offset) {
        fail(st, "larger than BF_MAX_RESPONSE_BYTES", st->offset);
        return;
    }
    feed_bytes(st, buf, len);
    st->offset += len;
}

int bf_bulkresp_stream_finish(bf_bulkresp_stream_t *st, bf_bulk_counts_t *counts, char *first_error,
                              size_t first_error_size)
{
    memset(counts, 0, sizeof *counts);
    if (first_error != NULL && first_error_size > 0)
        first_error[0] = '\0';
    if (st->state == S_ERROR) {
        if (strcmp(st->why, "larger than BF_MAX_RESPONSE_BYTES") == 0)
            why(first_error, first_error_size,
                "larger than BF_MAX_RESPONSE_BYTES (%" PRIu64 " bytes and more)", st->offset);
        else
            why(first_error, first_error_size, "%s at byte %" PRIu64, st->why, st->why_at);
        return BF_E_PARSE;
    }
    if (st->state != S_DONE) {
        why(first_error, first_error_size, "%s at byte %" PRIu64,
            st->offset == 0 ? "not a JSON object" : "truncated", st->offset);
        return BF_E_PARSE;
    }
    if (!st->has_errors) {
        why(first_error, first_error_size, "no top-level \"errors\"");
        return BF_E_PARSE;
    }
    if (st->has_items && st->items != st->ndocs) {
        why(first_error, first_error_size, "%" PRIu64 " items for %" PRIu32 " documents", st->items,
            st->ndocs);
        return BF_E_PARSE;
    }
    if (!st->errors && !st->failure_store && !(st->missing_fails && st->has_items)) {
        /* Fast path. Also the filter_path form {"errors":false} without items. */
        counts->ok = st->ndocs;
        bf_errtypes_reset(&st->errs);
        if (st->item_class != NULL)
            memset(st->item_class, BF_ITEM_OK, st->ndocs);
        return BF_OK;
    }
    if (!st->has_items) {
        why(first_error, first_error_size, "\"errors\":true without an \"items\" array");
        return BF_E_PARSE;
    }
    if (st->item_bad != NULL) {
        why(first_error, first_error_size, "item %" PRIu64 ": %s", st->item_bad_index,
            st->item_bad);
        return BF_E_PARSE;
    }
    *counts = st->judged;
    if (st->have_first && first_error != NULL && first_error_size > 0) {
        if (st->first_has_error) {
            char type[BF_BULKRESP_TYPE_CAP], reason[BF_BULKRESP_REASON_CAP];
            unescape(st->first_type, strlen(st->first_type), type, sizeof type);
            unescape(st->first_reason, strlen(st->first_reason), reason, sizeof reason);
            snprintf(first_error, first_error_size, "%s: %s", type[0] ? type : "error", reason);
        } else if (st->first_status == 404 && strcmp(st->first_type, "not_found") == 0) {
            snprintf(first_error, first_error_size,
                     "not_found: a delete of a missing document "
                     "(404 without error; document.delete_missing: fail)");
        } else {
            snprintf(first_error, first_error_size,
                     "failure_store: document stored in the failure store (status %d)",
                     (int)st->first_status);
        }
    }
    return BF_OK;
}

const bf_errtypes_t *bf_bulkresp_stream_errtypes(const bf_bulkresp_stream_t *st)
{
    return &st->errs;
}

void bf_bulkresp_stream_missing_fails(bf_bulkresp_stream_t *st)
{
    st->missing_fails = 1;
}

int bf_bulkresp_stream_first_type(const bf_bulkresp_stream_t *st, char *type, size_t size)
{
    if (size == 0)
        return 0;
    type[0] = '\0';
    if (!st->have_first)
        return 1;
    if (st->first_has_error || strcmp(st->first_type, "not_found") == 0)
        unescape(st->first_type, strlen(st->first_type), type, size);
    return !st->types_differ;
}

int bf_bulkresp_parse(const char *body, size_t len, uint32_t ndocs, bf_bulk_counts_t *counts,
                      uint8_t *item_class, char *first_error, size_t first_error_size)
{
    if (body == NULL || len > BF_MAX_RESPONSE_BYTES) {
        memset(counts, 0, sizeof *counts);
        why(first_error, first_error_size, "%s (%zu bytes)",
            body ? "larger than BF_MAX_RESPONSE_BYTES" : "no body", len);
        return BF_E_PARSE;
    }
    bf_bulkresp_stream_t st;
    bf_bulkresp_stream_init(&st, ndocs, item_class);
    bf_bulkresp_stream_feed(&st, body, len);
    return bf_bulkresp_stream_finish(&st, counts, first_error, first_error_size);
}
