/* SPDX-License-Identifier: MIT */
/* bf_bulkresp.h — judge a _bulk response: how many documents were acknowledged, rejected,
 * failed, by class.
 *
 * Facts from docs/internals/es-api.md: a 2xx bulk response has "errors": false when every item
 * succeeded (fast path: no item is parsed); otherwise each item in "items" (in request order)
 * is judged by the presence of "error", its "status" and its error "type"
 * (bf_bulkresp_classify): 429 or an error type ending in "rejected_execution_exception"
 * (Elasticsearch's es_rejected_execution_exception and OpenSearch's
 * rejected_execution_exception) is rejected; 409 conflict; a 400 whose type says mapping or
 * parsing (or has no type) is mapping; other 400s (routing_missing_exception,
 * illegal_argument_exception, ...) and other 4xx are other 4xx; 5xx. An item without "error" and
 * with a 2xx status is ok. A 429 whose type is cluster_block_exception (flood-stage read-only
 * block) is an index block, not a rejection: other 4xx, never retried (docs/internals/es-api.md
 * appendix A). Details (docs/internals/es-api.md §1.6): an item without "error" is ok whatever its
 * status (a delete of a missing document is 404 without error, and "errors" stays false); an item
 * with "error" and a status outside 4xx counts as 5xx; an item with "failure_store":"used" (ES data
 * streams) went to the failure index and counts as mapping although "errors" is false. The judge is
 * incremental: bf_bulkresp_stream_* takes the body in pieces as they come off the socket, so a
 * multi-megabyte response is judged in a few hundred bytes of state (plus one class byte per
 * document) and never held in memory (docs/internals/style.md rule 7). bf_bulkresp_parse is the
 * same judge over a whole body.
 * Thread-safe: no shared state.
 */
#ifndef BF_BULKRESP_H
#define BF_BULKRESP_H

#include "bf_errtypes.h"

#include <stddef.h>
#include <stdint.h>

#define BF_MAX_RESPONSE_BYTES (256u << 20) /* a bulk response larger than this is refused */
#define BF_BULKRESP_MAX_DEPTH 128          /* JSON nesting deeper than this is refused */
#define BF_BULKRESP_TYPE_CAP 128           /* bytes of an item's error type kept (escaped) */
#define BF_BULKRESP_REASON_CAP 512         /* bytes of an item's error reason kept (escaped) */
#define BF_BULKRESP_ITEM_CAP 4096          /* an item split over reads, kept to judge it again */

typedef struct bf_bulk_counts {
    uint64_t ok;
    uint64_t rejected;   /* 429 items */
    uint64_t conflict;   /* 409 */
    uint64_t mapping;    /* 400 */
    uint64_t failed_4xx; /* other 4xx */
    uint64_t failed_5xx;
} bf_bulk_counts_t;

enum bf_item_class {
    BF_ITEM_OK = 0,
    BF_ITEM_REJECTED,
    BF_ITEM_CONFLICT,
    BF_ITEM_MAPPING,
    BF_ITEM_4XX,
    BF_ITEM_5XX,
};

/* bf_bulkresp_classify — the class of one item: has_error says the item carried "error",
 * status is its "status", type its error.type ("" when none), failure_store_used that it had
 * "failure_store":"used". Rules (docs/internals/es-api.md §1.6, §1.7 and the error table):
 *   - no error: ok, or mapping when it went to the failure store;
 *   - 429 cluster_block_exception: other 4xx (an index block, not a rejection);
 *   - 429, or a type ending in rejected_execution_exception: rejected;
 *   - 409: conflict;
 *   - 400 with a mapping or parsing type (mapper_parsing_exception, document_parsing_exception,
 *     strict_dynamic_mapping_exception, any mapper_* type, or no type at all): mapping;
 *   - other 400s (routing_missing_exception, illegal_argument_exception,
 *     action_request_validation_exception, ...) and 401..499: other 4xx;
 *   - anything else (5xx, no or a nonsensical status): 5xx.
 * Pure; thread-safe. */
enum bf_item_class bf_bulkresp_classify(int64_t status, const char *type, int has_error,
                                        int failure_store_used);
/* bf_bulkresp_mapping_type — 1 when a 400 item of this error type counts as a mapping or
 * parsing failure (see bf_bulkresp_classify), else 0. Pure. */
int bf_bulkresp_mapping_type(const char *type);

/* bf_bulkresp_parse — parse the body of a 2xx _bulk response for a request of `ndocs` items.
 * counts is zeroed, then filled. If item_class is not NULL it receives ndocs classes (one per
 * item, request order), for retrying rejected items; with "errors":false it is filled with
 * BF_ITEM_OK. first_error (may be NULL, size first_error_size) gets the first item error's
 * "type: reason" for logs ("" when none; truncated to fit).
 * Returns 0, or BF_E_PARSE when the body is not a bulk response (not JSON, no "errors", items
 * missing or their number differs from ndocs, truncated, over BF_MAX_RESPONSE_BYTES): the
 * outcome is then unknown, counts are zero and first_error says what was wrong. The items are
 * counted (not parsed) on the "errors":false path too. */
int bf_bulkresp_parse(const char *body, size_t len, uint32_t ndocs, bf_bulk_counts_t *counts,
                      uint8_t *item_class, char *first_error, size_t first_error_size);

/* The incremental judge. Embedded struct (bf_bulkresp_stream_init, no cleanup: it owns no
 * memory); its fields are private to bf_bulkresp.c. */
typedef struct bf_bulkresp_stream {
    uint64_t offset; /* bytes fed so far */
    uint32_t ndocs;
    uint8_t *item_class;                 /* borrowed, ndocs bytes, or NULL */
    int state;                           /* tokenizer state */
    uint8_t string_is_key;               /* the open string is a key (else a value) */
    uint32_t depth;                      /* open containers */
    uint8_t role[BF_BULKRESP_MAX_DEPTH]; /* what each open container is (top, items, item...) */
    uint8_t key;       /* the known key whose value comes next in the open object */
    uint8_t value_key; /* key of the value being read (strings and literals) */
    const char *why;   /* first error, or NULL */
    uint64_t why_at;
    /* top level */
    uint8_t has_errors, errors, has_items, failure_store;
    uint8_t missing_fails; /* bf_bulkresp_stream_missing_fails */
    uint64_t items;
    /* the item being read */
    uint32_t item_keys;
    uint8_t item_bad_now, item_has_status, item_has_error, item_fs_used, item_action;
    int64_t item_status;
    const char *item_bad; /* first structural problem of any item (slow path refuses) */
    uint64_t item_bad_index;
    bf_bulk_counts_t judged; /* per-item verdicts, used when errors:true */
    /* the string or literal being read (first bytes, for keys and small values) */
    char tok[32];
    uint32_t tok_len;
    uint8_t tok_long;
    uint8_t tok_partial; /* tok holds the start of a token continued in the next chunk */
    /* error type and reason of the current item (the reason of failed items only) */
    char type[BF_BULKRESP_TYPE_CAP];
    uint32_t type_len;
    char reason[BF_BULKRESP_REASON_CAP];
    uint32_t reason_len;
    uint8_t capture; /* 0, or which of type/reason the open string is */
    uint8_t have_first;
    uint8_t types_differ; /* a failed item's error type differs from the first's */
    char first_type[BF_BULKRESP_TYPE_CAP];
    char first_reason[BF_BULKRESP_REASON_CAP];
    int64_t first_status;
    uint8_t first_has_error;
    /* skipping: a container whose content does not matter, or the items after "errors":false */
    uint8_t skip, skip_in_string, skip_escape, item_fs, item_overflow;
    uint32_t skip_depth;
    uint32_t item_saved; /* bytes of the current item from earlier reads, in item_buf */
    char item_buf[BF_BULKRESP_ITEM_CAP];
    bf_errtypes_t errs; /* failed items by error type (per-item verdicts only) */
} bf_bulkresp_stream_t;

/* bf_bulkresp_stream_init — start judging the response to a request of ndocs documents.
 * item_class (may be NULL; else ndocs bytes, borrowed until finish) receives the classes. */
void bf_bulkresp_stream_init(bf_bulkresp_stream_t *st, uint32_t ndocs, uint8_t *item_class);
/* bf_bulkresp_stream_missing_fails — call after init, before the first feed: an item without
 * "error" whose status is 404 (a delete of a missing document, docs/internals/es-api.md §1.7)
 * counts as other 4xx of error type "not_found" instead of ok (document.delete_missing: fail). The
 * items are then judged one by one also when "errors" is false (no fast path: such a 404 does not
 * set "errors"), which costs the full reading of every response. */
void bf_bulkresp_stream_missing_fails(bf_bulkresp_stream_t *st);
/* bf_bulkresp_force_sse2 — on = 1: judge with the SSE2 block scan even where the CPU has AVX2
 * (which is used by default: the same verdicts, fewer instructions); on = 0: back to the
 * default. For tests that compare both; not thread-safe (call before any judging starts). */
void bf_bulkresp_force_sse2(int on);

/* bf_bulkresp_stream_feed — the next len bytes of the body. Once the body is known not to be
 * a bulk response, further bytes are ignored (the verdict comes from finish). */
void bf_bulkresp_stream_feed(bf_bulkresp_stream_t *st, const char *p, size_t len);
/* bf_bulkresp_stream_failed — 1 when the body is already known not to be a bulk response. */
int bf_bulkresp_stream_failed(const bf_bulkresp_stream_t *st);
/* bf_bulkresp_stream_finish — the body is complete: the verdict, exactly as bf_bulkresp_parse
 * gives it for the whole body (same counts, classes, first_error and return codes). */
int bf_bulkresp_stream_finish(bf_bulkresp_stream_t *st, bf_bulk_counts_t *counts, char *first_error,
                              size_t first_error_size);

/* bf_bulkresp_stream_errtypes — after finish returned BF_OK: the failed items by error type
 * with the first reason of each (unescaped; an item without a type is "http_<status>", one
 * stored in the failure store "failure_store", a missing delete counted by
 * bf_bulkresp_stream_missing_fails "not_found"); borrowed, valid until the stream is
 * initialised again. Empty when every document was ok. */
const bf_errtypes_t *bf_bulkresp_stream_errtypes(const bf_bulkresp_stream_t *st);

/* bf_bulkresp_stream_first_type — after finish returned BF_OK: the first failed item's error
 * type, unescaped, into type (size bytes; "" when no item failed or it had no type). Returns 1
 * when every failed item had that same type, else 0. */
int bf_bulkresp_stream_first_type(const bf_bulkresp_stream_t *st, char *type, size_t size);

#endif
