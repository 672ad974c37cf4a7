/* bf_bulkresp.h — judge a _bulk response: how many documents were acknowledged, rejected,
 * failed, by class.
 *
 * Facts from reference/es-api.md: a 2xx bulk response has "errors": false when every item
 * succeeded (fast path: no item is parsed); otherwise each item in "items" (in request order)
 * is judged by the presence of "error" and its "status": 429 or an error type ending in
 * "rejected_execution_exception" (Elasticsearch's es_rejected_execution_exception and
 * OpenSearch's rejected_execution_exception) is rejected; 409 conflict; 400 mapping/parsing;
 * other 4xx; 5xx. An item without "error" and with a 2xx status is ok.
 * Details (es-api.md §1.6): an item without "error" is ok whatever its status (a delete of a
 * missing document is 404 without error, and "errors" stays false); an item with "error" and a
 * status outside 4xx counts as 5xx; an item with "failure_store":"used" (ES data streams) went
 * to the failure index and counts as mapping although "errors" is false.
 * Thread-safe: no shared state.
 */
#ifndef BF_BULKRESP_H
#define BF_BULKRESP_H

#include <stddef.h>
#include <stdint.h>

#define BF_MAX_RESPONSE_BYTES (256u << 20) /* a bulk response larger than this is refused */

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

#endif
