/* SPDX-License-Identifier: MIT */
/* bf_sigv4.h — AWS Signature Version 4 (header form) of one HTTP request.
 *
 * Pure computation, no I/O: the canonical request, the string to sign and the signature of a
 * request as AWS defines them ("Create a signed AWS API request", AWS General Reference,
 * Signature Version 4; the same steps as botocore's SigV4Auth and aws-c-auth's signer). Used for
 * Amazon OpenSearch Service (service "es") and OpenSearch Serverless ("aoss"), which both check
 * the X-Amz-Content-SHA256 header against the body. HMAC-SHA256 and SHA-256 come from
 * libcrypto. Thread-safe: no state.
 */
#ifndef BF_SIGV4_H
#define BF_SIGV4_H

#include <stddef.h>
#include <time.h>

/* The credentials (borrowed; all SECRET but the key id). session_token NULL or "" for long-term
 * keys; with one, X-Amz-Security-Token is sent and signed. */
typedef struct bf_sigv4_creds {
    const char *access_key_id;
    const char *secret_access_key;
    const char *session_token;
} bf_sigv4_creds_t;

/* One header to sign, as it goes on the wire (name in any case; the value is trimmed and its
 * runs of spaces folded for signing, as SigV4 says). */
typedef struct bf_sigv4_header {
    const char *name;
    const char *value;
} bf_sigv4_header_t;

typedef struct bf_sigv4_input {
    const char *method; /* "POST" */
    const char *path;   /* the path as on the wire (percent-encoded), "/_bulk"; NULL = "/" */
    const char *query;  /* the query as on the wire, without '?'; NULL or "" for none */
    const bf_sigv4_header_t *headers; /* headers to sign besides the ones the signer adds;
                                         must hold "host" (with ":port" when not the scheme's) */
    size_t nheaders;
    const char *payload_sha256; /* lowercase hex SHA-256 of the body bytes on the wire (the gzip
                                   bytes when compressed); NULL = of an empty body
                                   (bf_sha256_hex gives it) */
    int sign_content_sha256;    /* 1: add and sign x-amz-content-sha256 (OpenSearch needs it) */
    int normalize;              /* 1: remove "." / ".." segments and empty ones from the path */
    time_t when;                /* the request's time (UTC seconds) */
    const char *region;         /* "eu-west-1" */
    const char *service;        /* "es", "aoss" */
} bf_sigv4_input_t;

/* What to send: the X-Amz-Date value, the x-amz-content-sha256 value (when asked) and the
 * Authorization value; canonical request and string to sign for tests and diagnostics (they
 * hold no secret). Free with bf_sigv4_out_cleanup. */
typedef struct bf_sigv4_out {
    char amz_date[17];       /* "20150830T123600Z" */
    char content_sha256[65]; /* the payload hash used */
    char signature[65];
    char *authorization; /* "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=..." */
    char *canonical_request;
    char *string_to_sign;
} bf_sigv4_out_t;

/* bf_sigv4_sign — sign in (with creds) into *out (overwritten; caller frees with
 * bf_sigv4_out_cleanup, also after an error). The signer adds x-amz-date, x-amz-content-sha256
 * (when in->sign_content_sha256) and x-amz-security-token (when creds has a token) to the
 * signed headers: the caller sends those three with the values in *out and creds. Returns 0,
 * or BF_E_INVAL when a field is missing (no method, region, service, key, or no host header) or
 * the date cannot be formatted. Thread-safe. */
int bf_sigv4_sign(const bf_sigv4_creds_t *creds, const bf_sigv4_input_t *in, bf_sigv4_out_t *out);

/* bf_sigv4_out_cleanup — free what bf_sigv4_sign allocated in *out; NULL-safe, idempotent. */
void bf_sigv4_out_cleanup(bf_sigv4_out_t *out);

/* bf_sigv4_canonical_query — query (as on the wire, without '?') in SigV4's canonical form:
 * each key and value %-decoded and encoded again (unreserved characters kept, every other byte
 * %XX), sorted by key then value. Sent as the request's query, it is what every signer and
 * verifier (AWS's, botocore's) signs alike. Returns a new string (caller frees). Thread-safe. */
char *bf_sigv4_canonical_query(const char *query);

#endif
