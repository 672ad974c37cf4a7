/* SPDX-License-Identifier: MIT */
/* bf_verdict.h — what a finished bulk request counts as: the agent's verdict policy.
 *
 * One pure function over plain values (docs/internals/style.md rule 16): given what happened to a
 * bulk request (the transport outcome, the HTTP status, the judged items, the error type of the
 * body) it says which request counter moves, what each document counts as (ok, rejected, failed by
 * class, unknown, or not sent at all), whether documents are sent again and whether the cell must
 * fail, with the message naming the scenario key to fix. bf_worker only gathers the facts from
 * libcurl and executes the verdict. Every row of the table is in tests/unit/test_verdict.c.
 *
 * The table (docs/internals/es-api.md §1.6, §1.7, docs/internals/measurement.md):
 *   transport
 *     nothing of the request was written (connect refused or timed out, name not resolved)
 *                          -> connect error; no document counted; the same body again after a
 *                             back-off (BF_NEXT_RESEND). The only case that is ever re-sent
 *                             without a retry policy.
 *     TLS certificate problem before anything was written -> connect error, fail the cell
 *     timeout after writing (also on a reused keep-alive connection, whose connect time
 *     libcurl reports as 0)           -> timeout; documents unknown
 *     connection died after writing, no complete answer (also a resend libcurl wanted to do
 *     by itself on a reused connection and we refused, CURLE_SEND_FAIL_REWIND) -> reset; unknown
 *     an answer that could not be read (bad encoding, TLS error mid-response) -> bad response;
 *                                        unknown. A plain http answer that is not HTTP (a TLS
 *                                        port) fails the cell: "use https".
 *   2xx
 *     body not a bulk response (not JSON, item count differs) -> bad response; unknown; and
 *     the cell fails when it is the thread's first answer of the cell or the
 *     BF_NOT_BULK_STREAK-th such answer in a row (a login page of a proxy, another service's
 *     JSON: a configuration mistake, which would otherwise count every document unknown
 *     until the cell ends); a rare one among bulk responses stays an unknown outcome
 *     every item ok           -> ok
 *     some items not ok       -> partial; each by class; 429 items retried when a retry is
 *                                left (BF_NEXT_RETRY_ITEMS), else rejected
 *     an item blocked (cluster_block_exception) -> fail the cell (disk watermark)
 *     every item failed with one non-transient error type (400/404-class: mapping, strict
 *     mapping, index_not_found, routing_missing, ...) -> fail the cell naming the key
 *   non-2xx (counted in http_status[status])
 *     401, 403 -> failed 4xx; fail (target.auth)     404 -> failed 4xx; fail (index.recreate)
 *     413 -> failed 4xx; fail (batch_size)           400 -> failed 4xx; fail (document/index)
 *     406 -> failed 4xx; fail (Content-Type header)  411 -> failed 4xx; fail (request headers)
 *     500 json_parse_exception -> failed 5xx; fail (document.source / request.compression)
 *     cluster_block_exception (any status) -> failed 4xx; fail (disk watermark)
 *     429 transient -> retried whole when a retry is left (BF_NEXT_RETRY_WHOLE), else rejected
 *     429 circuit_breaking_exception with durability PERMANENT -> rejected, never retried
 *     502, 504 (a proxy: the upstream may have indexed them) -> unknown
 *     other 5xx -> failed 5xx      other 4xx -> failed 4xx      1xx, 3xx -> unknown
 * Thread-safe: no state.
 */
#ifndef BF_VERDICT_H
#define BF_VERDICT_H

#include "bf_bulkresp.h"

#include <stddef.h>
#include <stdint.h>

/* What the transport says happened to the request. */
enum bf_xfer {
    BF_XFER_RESPONSE = 0, /* a complete HTTP response was read */
    BF_XFER_NOT_SENT,     /* no byte of the request was written */
    BF_XFER_TLS_CONFIG,   /* TLS refused the server's certificate (or ours) before any write */
    BF_XFER_TIMEOUT,      /* request.timeout passed after (part of) the request was written */
    BF_XFER_RESET,        /* the connection died after writing, without a complete answer */
    BF_XFER_BAD,          /* an answer came but could not be read */
    BF_XFER_NOT_HTTP,     /* the answer was not HTTP at all (plain http to a TLS port) */
};

/* bf_verdict_xfer — the transport outcome from a libcurl result code (CURLcode as int) and the
 * bytes of the request libcurl wrote (CURLINFO_REQUEST_SIZE: headers, plus body bytes
 * CURLINFO_SIZE_UPLOAD, plus the body bytes handed to libcurl by earlier attempts of the same
 * request). "Nothing was written" is decided by the bytes, never by the connect time (0 on a
 * reused connection); a connect failure with bytes written is libcurl's own retry of a dead
 * keep-alive connection after the first attempt wrote the body: a reset (documents unknown).
 * Pure; thread-safe. */
enum bf_xfer bf_verdict_xfer(int curl_code, uint64_t request_bytes);

/* Which request counter of bf_counters_t moves. */
enum bf_req {
    BF_REQ_OK = 0,     /* req_ok */
    BF_REQ_PARTIAL,    /* req_partial: 2xx with item errors */
    BF_REQ_HTTP_ERROR, /* http_status[status] */
    BF_REQ_CONNECT,    /* req_connect_error */
    BF_REQ_TIMEOUT,    /* req_timeout */
    BF_REQ_RESET,      /* req_reset */
    BF_REQ_BAD,        /* req_bad_response */
};

/* Where a verdict's unknown documents came from (bf_counters_t docs_unknown_*; a request
 * abandoned in flight at the stop has no verdict and is docs_unknown_abandoned). */
enum bf_unknown_cause {
    BF_UNKNOWN_TIMEOUT = 0, /* request.timeout passed after the body was written */
    BF_UNKNOWN_RESET,       /* the connection died after the body was written */
    BF_UNKNOWN_BAD,         /* an answer that is not a bulk response */
    BF_UNKNOWN_HTTP,        /* a status that leaves them unknown (502, 504, 1xx, 3xx) */
};

/* bf_verdict_unknown_cause — the cause of the unknown documents of a request counted as req
 * (timeout, reset, bad response; any other counter: an HTTP status). Pure; thread-safe. */
enum bf_unknown_cause bf_verdict_unknown_cause(enum bf_req req);

/* What happens to the request next. */
enum bf_next {
    BF_NEXT_DONE = 0,    /* nothing */
    BF_NEXT_RESEND,      /* nothing was sent: the same body again after the connect back-off */
    BF_NEXT_RETRY_WHOLE, /* whole-request 429: every document again after the retry back-off */
    BF_NEXT_RETRY_ITEMS, /* only the 429 items again after the retry back-off */
};

/* Why the cell must end now (0: it need not). */
enum bf_fatal {
    BF_FATAL_NONE = 0,
    BF_FATAL_AUTH,        /* 401, 403 */
    BF_FATAL_NOT_FOUND,   /* 404 */
    BF_FATAL_TOO_LARGE,   /* 413 */
    BF_FATAL_BAD_REQUEST, /* whole-request 400 */
    BF_FATAL_MEDIA_TYPE,  /* 406 */
    BF_FATAL_LENGTH,      /* 411 */
    BF_FATAL_JSON_PARSE,  /* 500 json_parse_exception */
    BF_FATAL_BLOCK,       /* cluster_block_exception, whole request or item */
    BF_FATAL_ITEMS,       /* every item failed with the same non-transient error */
    BF_FATAL_TLS,         /* certificate refused */
    BF_FATAL_NOT_HTTP,    /* plain http to a TLS port */
    BF_FATAL_NOT_BULK,    /* 2xx answers that are no bulk response (bf_verdict_in_t) */
};

/* 2xx answers in a row that are no bulk response after which the cell fails although the
 * thread had bulk responses before (a proxy that began to answer with its own page). */
#define BF_NOT_BULK_STREAK 3

/* What to log once per thread (a bit each). */
enum bf_warn {
    BF_WARN_NONE = 0,
    BF_WARN_BAD_RESPONSE = 1,
    BF_WARN_HTTP = 2,
    BF_WARN_ITEMS = 4,
    BF_WARN_CONNECT = 8,
    BF_WARN_TIMEOUT = 16,
    BF_WARN_RESET = 32,
};

/* The facts of one finished bulk request. Strings are borrowed, never NULL ("" = none). */
typedef struct bf_verdict_in {
    enum bf_xfer xfer;
    long status;              /* HTTP status, 0 when no response */
    uint32_t ndocs;           /* documents in the request */
    int parsed;               /* 2xx: 1 when the judge read a bulk response (BF_OK) */
    bf_bulk_counts_t items;   /* 2xx and parsed: the judge's counts */
    const char *item_type;    /* 2xx and parsed: the first failed item's error type, unescaped */
    int items_one_type;       /* 2xx and parsed: every failed item has item_type */
    const char *error_type;   /* non-2xx: the body's error.type ("circuit_breaking_exception/
                                 PERMANENT" for a permanent breaker; see bf_verdict_error_body) */
    int retry_left;           /* a retry is allowed: retries so far < request.retry and the
                                 load time is not over */
    int bulk_seen;            /* 2xx: this thread has read a bulk response earlier in the cell */
    uint32_t not_bulk_streak; /* 2xx and not parsed: answers in a row on this thread that were
                                 no bulk response, this one included */
} bf_verdict_in_t;

/* The verdict. docs counts add up to ndocs, except when sent is 0 (nothing was sent) or a
 * retry takes some: ok + rejected + conflict + mapping + failed_4xx + failed_5xx + unknown +
 * retry = ndocs. */
typedef struct bf_verdict {
    enum bf_req req;
    int sent;              /* 1: the documents count as sent (docs_sent or docs_retried) */
    bf_bulk_counts_t docs; /* final verdicts of this request's documents */
    uint64_t unknown;      /* documents whose outcome is unknown */
    uint64_t retry;        /* documents to be sent again (BF_NEXT_RETRY_*) */
    enum bf_next next;
    enum bf_fatal fatal;
    enum bf_warn warn; /* what to log once (bf_verdict_describe) when not fatal */
    int latency;       /* 1: record service time and latency (a request was in flight) */
    /* documents the cluster answered with an error of a type (errors by type, bf_errtypes):
     * a 2xx's failed and rejected items, retried ones too (the judge's table has their types),
     * or a non-2xx's documents that are not unknown (under the body's error.type, else
     * http_<status>) */
    uint64_t typed;
    /* documents the cluster rejected in this answer (429 items, or every document of a
     * whole-request 429 that is not an index block), whether retried or not: the 429
     * column counts first rejections too */
    uint64_t rejections;
} bf_verdict_t;

/* bf_verdict_config_type_count, bf_verdict_config_type — the item error types that fail a
 * cell when every document of a request failed with one of them (configuration errors, not
 * load); i from 0 to count - 1, NULL past the end. Static strings. Pure; thread-safe. */
size_t bf_verdict_config_type_count(void);
const char *bf_verdict_config_type(size_t i);

/* bf_verdict_items_hint — what to do when every document of a request failed with item_type
 * (an error type from bf_verdict_config_type, or any other), first_error the judge's first
 * item error "type: reason" (NULL = none): the ingest pipeline when the error names one,
 * privileges or target.auth for security_exception, index.mappings only for mapping and parsing
 * errors. Returns a static string. Pure; thread-safe. */
const char *bf_verdict_items_hint(const char *item_type, const char *first_error);

/* bf_verdict_judge — the verdict for `in` (the table above). Pure; thread-safe. */
void bf_verdict_judge(const bf_verdict_in_t *in, bf_verdict_t *out);

/* Context for messages. Strings borrowed, never NULL. */
typedef struct bf_verdict_ctx {
    const char *cell_id;
    uint32_t batch_size;
    size_t payload_bytes;     /* uncompressed body */
    size_t wire_bytes;        /* body on the wire */
    const char *error_reason; /* non-2xx: error.reason or the first line of the body */
    const char *first_error;  /* 2xx: the judge's first item error "type: reason", or why the
                                 body is not a bulk response */
    const char *transport;    /* libcurl's error text (curl_easy_strerror) */
    double total_s;           /* time the request took */
    const char *content_type; /* the answer's Content-Type ("" when it had none) */
    const char *head;         /* the first bytes of the answer's body (not NUL-terminated) */
    size_t head_len;          /* bytes at head; the answer may be longer */
    uint64_t body_bytes;      /* bytes of the answer's body in all */
    int chunked;              /* the body went with Transfer-Encoding: chunked (not a length) */
} bf_verdict_ctx_t;

/* bf_verdict_describe — the message for v: when v->fatal, why the cell fails and which
 * scenario key (or cluster setting) to fix; else the once-per-thread warning for v->warn, or ""
 * when there is none. Writes at most size bytes (NUL-terminated, truncated). Returns buf. */
char *bf_verdict_describe(const bf_verdict_in_t *in, const bf_verdict_t *v,
                          const bf_verdict_ctx_t *ctx, char *buf, size_t size);

/* bf_verdict_error_body — from the first `len` bytes of a non-2xx body (docs/internals/es-api.md
 * §1.7 shapes: structured {"error":{"type","reason"}}, simple {"error":"text"}, empty, not JSON),
 * the error type ("" if none; "circuit_breaking_exception/PERMANENT" for a permanent breaker) and a
 * one-line printable reason. A structured body cut short by `len` (the agent keeps the first
 * 2 kB; Elasticsearch 8's whole-request 429 es_rejected_execution_exception is ~2.5 kB) gives
 * the first "type" after "error" (root_cause[0]'s) and the "reason" after it, ending in " ..."
 * when cut. Pure; thread-safe. */
void bf_verdict_error_body(const char *body, size_t len, char *type, size_t type_size, char *reason,
                           size_t reason_size);

#endif
