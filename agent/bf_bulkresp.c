/* bf_bulkresp.c — judge a _bulk response: acknowledged, rejected and failed documents.
 *
 * Two paths. Every body first goes through a structural scan (strings, brackets, top-level
 * keys; no allocation, no number or UTF-8 decoding) that finds the top-level "errors" flag,
 * counts the elements of the top-level "items" array and checks that the body is one complete
 * object. With "errors":false — nearly every response of a healthy run — that is all: the items
 * are counted, never parsed. With "errors":true the body is parsed with jansson and each item is
 * judged (es-api.md §1.6, §1.7). Because the scan follows string and nesting boundaries, text
 * such as "errors":false inside an item's error reason, or a top-level key named like an item
 * field, cannot fool it.
 *
 * Elasticsearch's failure store (8.19/9.1+ data streams) answers "errors":false while items
 * carry "failure_store":"used" — the document went to the failure index, not the stream. The
 * scan notices such a key and takes the slow path, which counts those items as mapping
 * failures (es-api.md §1.6: "Count it as a failure").
 */
#include "bf_bulkresp.h"

#include "bf_error.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* What the structural scan learned about the top-level object. */
typedef struct scan {
    bool has_errors;          /* a top-level "errors" key with a boolean value */
    bool errors;              /* its value (true if any of several was true) */
    bool has_items;           /* a top-level "items" key holding an array */
    size_t items;             /* number of elements in that array */
    bool failure_store;       /* a "failure_store" key somewhere inside a value */
    const char *why;          /* on failure: what was wrong */
    size_t at;                /* on failure: byte offset */
} scan_t;

/* Writes "not a bulk response: <message>" for the caller's log. buf may be NULL. */
__attribute__((format(printf, 3, 4))) static void why(char *buf, size_t size, const char *fmt,
                                                      ...)
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

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/* p at the opening quote. Returns the byte after the closing quote, or NULL if unterminated. */
static const char *skip_string(const char *p, const char *end)
{
    const char *start = ++p;
    for (;;) {
        const char *q = memchr(p, '"', (size_t)(end - p));
        if (q == NULL)
            return NULL;
        /* The quote is escaped when an odd number of backslashes precede it. */
        size_t bs = 0;
        while (q - bs > start && q[-1 - (ptrdiff_t)bs] == '\\')
            bs++;
        if (bs % 2 == 0)
            return q + 1;
        p = q + 1;
    }
}

static bool is_key(const char *s, size_t len, const char *key)
{
    size_t klen = strlen(key);
    return len == klen && memcmp(s, key, klen) == 0;
}

/* p at '{' or '['. Skips to the byte after the matching bracket, noting a "failure_store" string
 * on the way. Returns NULL if the body ends first. */
static const char *skip_nested(const char *p, const char *end, scan_t *sc)
{
    size_t depth = 0;
    while (p < end) {
        switch (*p) {
        case '"': {
            const char *q = skip_string(p, end);
            if (q == NULL)
                return NULL;
            if (is_key(p + 1, (size_t)(q - p - 2), "failure_store"))
                sc->failure_store = true;
            p = q;
            continue;
        }
        case '{':
        case '[':
            depth++;
            break;
        case '}':
        case ']':
            if (--depth == 0)
                return p + 1;
            break;
        default:
            break;
        }
        p++;
    }
    return NULL;
}

/* Skips one JSON value of any kind. Returns NULL if it is missing or unterminated. */
static const char *skip_value(const char *p, const char *end, scan_t *sc)
{
    if (p >= end)
        return NULL;
    if (*p == '"')
        return skip_string(p, end);
    if (*p == '{' || *p == '[')
        return skip_nested(p, end, sc);
    if (strchr("-0123456789tfn", *p) == NULL || *p == '\0')
        return NULL;
    while (p < end && strchr(",}] \t\r\n", *p) == NULL)
        p++;
    return p;
}

/* p at '['. Counts the elements of the array; returns the byte after ']' or NULL. */
static const char *count_array(const char *p, const char *end, scan_t *sc, size_t *n)
{
    *n = 0;
    p = skip_ws(p + 1, end);
    if (p < end && *p == ']')
        return p + 1;
    for (;;) {
        p = skip_value(p, end, sc);
        if (p == NULL)
            return NULL;
        (*n)++;
        p = skip_ws(p, end);
        if (p >= end)
            return NULL;
        if (*p == ']')
            return p + 1;
        if (*p != ',')
            return NULL;
        p = skip_ws(p + 1, end);
    }
}

/* Walks the top-level object: returns 0, or BF_E_PARSE with sc->why and sc->at set. */
static int scan_top(const char *body, size_t len, scan_t *sc)
{
    const char *end = body + len, *p = skip_ws(body, end);
    memset(sc, 0, sizeof *sc);
    if (p >= end || *p != '{') {
        sc->why = "not a JSON object";
        goto error;
    }
    p = skip_ws(p + 1, end);
    if (p < end && *p == '}') {
        p++;
    } else {
        for (;;) {
            if (p >= end || *p != '"') {
                sc->why = "expected a key";
                goto error;
            }
            const char *key = p + 1;
            p = skip_string(p, end);
            if (p == NULL) {
                sc->why = "unterminated string";
                p = end;
                goto error;
            }
            size_t key_len = (size_t)(p - key - 1);
            p = skip_ws(p, end);
            if (p >= end || *p != ':') {
                sc->why = "expected ':'";
                goto error;
            }
            p = skip_ws(p + 1, end);
            const char *value = p;
            if (is_key(key, key_len, "errors")) {
                if ((size_t)(end - p) >= 4 && memcmp(p, "true", 4) == 0) {
                    sc->errors = true;
                    p += 4;
                } else if ((size_t)(end - p) >= 5 && memcmp(p, "false", 5) == 0) {
                    p += 5;
                } else {
                    sc->why = "\"errors\" is not a boolean";
                    goto error;
                }
                sc->has_errors = true;
            } else if (is_key(key, key_len, "items") && p < end && *p == '[') {
                sc->has_items = true;
                p = count_array(p, end, sc, &sc->items);
            } else {
                p = skip_value(p, end, sc);
            }
            if (p == NULL) {
                sc->why = "truncated or malformed value";
                p = value;
                goto error;
            }
            p = skip_ws(p, end);
            if (p < end && *p == ',') {
                p = skip_ws(p + 1, end);
                continue;
            }
            if (p < end && *p == '}') {
                p++;
                break;
            }
            sc->why = p < end ? "expected ',' or '}'" : "truncated";
            goto error;
        }
    }
    if (skip_ws(p, end) != end) {
        sc->why = "data after the object";
        goto error;
    }
    if (!sc->has_errors) {
        sc->why = "no top-level \"errors\"";
        goto error;
    }
    return BF_OK;
error:
    sc->at = (size_t)(p - body);
    return BF_E_PARSE;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* es-api.md §1.7: success is decided by the presence of "error", not by the status (a delete
 * of a missing document is 404 without error). Rejections are recognized by status or by type,
 * since a 429 is not the only way they are reported. */
static enum bf_item_class classify(json_int_t status, const char *type, bool has_error,
                                   bool failure_store_used)
{
    if (!has_error)
        return failure_store_used ? BF_ITEM_MAPPING : BF_ITEM_OK;
    if (status == 429 || ends_with(type, "rejected_execution_exception"))
        return BF_ITEM_REJECTED;
    if (status == 409)
        return BF_ITEM_CONFLICT;
    if (status == 400)
        return BF_ITEM_MAPPING;
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

/* The slow path: judge every item. Returns 0 or BF_E_PARSE (why in msg). */
static int judge_items(const char *body, size_t len, uint32_t ndocs, bf_bulk_counts_t *counts,
                       uint8_t *item_class, char *first_error, size_t first_error_size)
{
    json_error_t jerr;
    int rc = BF_E_PARSE;
    bool have_first = false;
    json_t *root = json_loadb(body, len, 0, &jerr);
    if (root == NULL) {
        why(first_error, first_error_size, "%s at byte %zu", jerr.text, (size_t)jerr.position);
        return BF_E_PARSE;
    }
    json_t *items = json_object_get(root, "items");
    if (!json_is_array(items)) {
        why(first_error, first_error_size, "\"errors\":true without an \"items\" array");
        goto error;
    }
    if (json_array_size(items) != ndocs) {
        why(first_error, first_error_size, "%zu items for %" PRIu32 " documents",
            json_array_size(items), ndocs);
        goto error;
    }
    for (size_t i = 0; i < ndocs; i++) {
        json_t *item = json_array_get(items, i);
        void *it = json_object_iter(item);
        json_t *res = it ? json_object_iter_value(it) : NULL;
        const char *op = it ? json_object_iter_key(it) : "";
        if (!json_is_object(item) || json_object_size(item) != 1 || !json_is_object(res) ||
            (strcmp(op, "index") && strcmp(op, "create") && strcmp(op, "update") &&
             strcmp(op, "delete"))) {
            why(first_error, first_error_size,
                "item %zu is not {\"index|create|update|delete\":{...}}", i);
            goto error;
        }
        json_t *jstatus = json_object_get(res, "status");
        if (jstatus != NULL && !json_is_integer(jstatus)) {
            why(first_error, first_error_size, "\"status\" of item %zu is not an integer", i);
            goto error;
        }
        json_int_t status = jstatus ? json_integer_value(jstatus) : 0;
        json_t *err = json_object_get(res, "error");
        bool has_error = err != NULL && !json_is_null(err);
        const char *type = "", *reason = "";
        if (json_is_object(err)) {
            const char *t = json_string_value(json_object_get(err, "type"));
            const char *r = json_string_value(json_object_get(err, "reason"));
            type = t ? t : "";
            reason = r ? r : "";
        } else if (json_is_string(err)) {
            reason = json_string_value(err);
        }
        const char *fs = json_string_value(json_object_get(res, "failure_store"));
        bool fs_used = fs != NULL && strcmp(fs, "used") == 0;
        enum bf_item_class cls = classify(status, type, has_error, fs_used);
        count_class(counts, cls);
        if (item_class != NULL)
            item_class[i] = (uint8_t)cls;
        if (!have_first && cls != BF_ITEM_OK) {
            have_first = true;
            if (first_error != NULL && first_error_size > 0) {
                if (has_error)
                    snprintf(first_error, first_error_size, "%s: %s", type[0] ? type : "error",
                             reason);
                else
                    snprintf(first_error, first_error_size,
                             "failure_store: document stored in the failure store (status %d)",
                             (int)status);
            }
        }
    }
    rc = BF_OK;
error:
    json_decref(root);
    return rc;
}

int bf_bulkresp_parse(const char *body, size_t len, uint32_t ndocs, bf_bulk_counts_t *counts,
                      uint8_t *item_class, char *first_error, size_t first_error_size)
{
    scan_t sc;
    int rc;
    memset(counts, 0, sizeof *counts);
    if (first_error != NULL && first_error_size > 0)
        first_error[0] = '\0';
    if (body == NULL || len > BF_MAX_RESPONSE_BYTES) {
        why(first_error, first_error_size, "%s (%zu bytes)",
            body ? "larger than BF_MAX_RESPONSE_BYTES" : "no body", len);
        return BF_E_PARSE;
    }
    rc = scan_top(body, len, &sc);
    if (rc != BF_OK) {
        why(first_error, first_error_size, "%s at byte %zu", sc.why, sc.at);
        return rc;
    }
    if (sc.has_items && sc.items != ndocs) {
        why(first_error, first_error_size, "%zu items for %" PRIu32 " documents", sc.items,
            ndocs);
        return BF_E_PARSE;
    }
    if (!sc.errors && !sc.failure_store) {
        /* Fast path. Also the filter_path form {"errors":false} without items. */
        counts->ok = ndocs;
        if (item_class != NULL)
            memset(item_class, BF_ITEM_OK, ndocs);
        return BF_OK;
    }
    if (!sc.has_items) {
        why(first_error, first_error_size, "\"errors\":true without an \"items\" array");
        return BF_E_PARSE;
    }
    rc = judge_items(body, len, ndocs, counts, item_class, first_error, first_error_size);
    if (rc != BF_OK)
        memset(counts, 0, sizeof *counts);
    return rc;
}
