/* SPDX-License-Identifier: MIT */
/* bf_es.h — small Elasticsearch/OpenSearch REST client (libcurl easy) for cluster APIs.
 *
 * Used by the coordinator to prepare indices and read telemetry, and by agents to apply a
 * target's auth, TLS and headers to their own bulk handles. Facts: docs/internals/es-api.md.
 * One bf_es_t per thread (a CURL easy handle is not thread-safe).
 */
#ifndef BF_ES_H
#define BF_ES_H

#include "bf_buf.h"
#include "bf_error.h"
#include "bf_scenario.h"
#include "bf_url.h"

#include <curl/curl.h>

#define BF_MAX_API_RESPONSE_BYTES (64u << 20)

typedef struct bf_es bf_es_t;

/* bf_es_transport_hint — what to do about a failed transfer: cc is libcurl's result, detail
 * its error buffer (CURLOPT_ERRORBUFFER; may be NULL or empty), url the request's URL (its
 * scheme matters), target the connection (may be NULL = the scenario's target; whether a
 * client certificate is configured, and target->names: which keys to name). Writes one
 * sentence naming the scenario key or option to check (TLS trust, client certificate, URL
 * scheme, or whether the cluster or store runs at its hosts: target.hosts,
 * metrics_store.hosts, --metrics-store URL) into buf (size bytes, truncated) and returns buf.
 * Thread-safe. */
const char *bf_es_transport_hint(CURLcode cc, const char *detail, const char *url,
                                 const bf_target_t *target, char *buf, size_t size);

/* bf_es_apply_target — set auth (basic / ApiKey / Bearer), TLS options and the target's extra
 * headers on a curl easy handle. TLS files go in as their in-memory PEM contents
 * (target->ca_pem, cert_pem, key_pem; copied into the handle), never as paths. *headers is
 * appended to (caller frees with curl_slist_free_all after the handle is done). Target is
 * borrowed. Returns 0, or BF_E_INVAL when this libcurl's TLS backend refuses in-memory PEM
 * (libcurl < 7.77 or a backend without it): the handle then verifies against the system CAs,
 * so a TLS connection fails with libcurl's certificate error rather than passing unverified.
 * Thread-safe for distinct handles. */
int bf_es_apply_target(CURL *h, const bf_target_t *target, struct curl_slist **headers);

/* bf_es_new — client for host number host_index of target (borrowed; must outlive the
 * client). timeout_ms bounds every request. Caller owns: bf_es_destroy. */
bf_es_t *bf_es_new(const bf_target_t *target, size_t host_index, long timeout_ms);
void bf_es_destroy(bf_es_t **es_p);
/* bf_es_host — the base URL this client talks to, password redacted, for messages (borrowed). */
const char *bf_es_host(const bf_es_t *es);
/* bf_es_target — the target this client was made for (borrowed, as given to bf_es_new). */
const bf_target_t *bf_es_target(const bf_es_t *es);

/* bf_es_set_tick — call tick(ctx) every interval_ms while a request of this client is in
 * flight (the request then runs in a curl multi loop that waits at most interval_ms at a time,
 * on the calling thread; libcurl's progress callback slows to 1/s on a silent transfer), so the
 * caller's own loop keeps going while a cluster call blocks: the coordinator answers its fleet's
 * heartbeats and Hellos while it deletes and creates a cell's index, which can take seconds on a
 * loaded cluster. tick must not use this client (libcurl refuses a nested call on a handle). tick
 * NULL: none (the default). ctx is borrowed. Not thread-safe (like the client). */
void bf_es_set_tick(bf_es_t *es, void (*tick)(void *ctx), void *ctx, unsigned interval_ms);

/* bf_es_set_timeout — bound every later request of this client by timeout_ms (> 0) instead of
 * what bf_es_new was given; returns the bound it had, so a caller can restore it after one long
 * call (a force merge). Not thread-safe (like the client). */
long bf_es_set_timeout(bf_es_t *es, long timeout_ms);

/* bf_es_pause — wait ms milliseconds on the calling thread, calling the tick (bf_es_set_tick)
 * as often as it asks meanwhile, so a caller that polls the cluster (a count that lags) keeps
 * its own loop going. Not thread-safe (like the client). */
void bf_es_pause(bf_es_t *es, unsigned ms);

/* bf_es_request — METHOD host+path with an optional JSON body. The response body is in
 * *body_out (borrowed, valid until the next call; NUL-terminated) and the status in *status.
 * Returns 0 when a response arrived (any status), BF_E_TRANSPORT (diag says connect refused /
 * timeout / ..., naming the host) or BF_E_TOOBIG. */
int bf_es_request(bf_es_t *es, const char *method, const char *path, const char *json_body,
                  long *status, const char **body_out, bf_diag_t *diag);

#endif
