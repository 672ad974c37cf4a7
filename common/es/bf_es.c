/* SPDX-License-Identifier: MIT */
/* bf_es.c — REST client on libcurl easy. */
#include "bf_es.h"

#include "bf_aws.h"
#include "bf_clock.h"
#include "bf_url.h"
#include "bf_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct bf_es {
    CURL *h;
    const bf_target_t *target;
    const char *host;
    char *display_host; /* host with any password in the URL redacted: what messages show */
    long timeout_ms;
    bf_buf_t resp;
    void (*tick)(void *ctx); /* bf_es_set_tick: called while a request is in flight */
    void *tick_ctx;
    CURLM *multi; /* with a tick: the request runs in this multi handle's loop (perform) */
    uint64_t tick_interval_us, last_tick_us;
};

const char *bf_es_transport_hint(CURLcode cc, const char *detail, const char *url,
                                 const bf_target_t *t, char *buf, size_t size)
{
    const bf_conn_names_t *n = t && t->names ? t->names : &bf_conn_names_target;
    const char *cert = n->cert ? n->cert : "a client certificate (this command cannot send one)";
    switch (cc) {
    case CURLE_PEER_FAILED_VERIFICATION:
        snprintf(buf, size,
                 "%s's TLS certificate is not trusted: set %s to the CA that signed it "
                 "(or %s to skip verification)",
                 n->what, n->ca_file, n->insecure);
        return buf;
    case CURLE_SSL_CERTPROBLEM:
        snprintf(buf, size,
                 "the client certificate or key could not be used: check %s (PEM, "
                 "belonging together, key not encrypted)",
                 cert);
        return buf;
    case CURLE_SSL_CACERT_BADFILE:
        snprintf(buf, size, "the CA bundle could not be read: check %s (PEM)", n->ca_file);
        return buf;
    default: break;
    }
    if (detail && (strstr(detail, "certificate required") || strstr(detail, "handshake failure") ||
                   strstr(detail, "bad certificate") || strstr(detail, "unknown ca"))) {
        snprintf(buf, size,
                 "%s refused the TLS handshake: if it requires a client certificate, "
                 "set %s to one signed by a CA it trusts",
                 n->what, cert);
        return buf;
    }
    int https = url && strncmp(url, "https://", 8) == 0;
    if (https && (cc == CURLE_SEND_ERROR || cc == CURLE_RECV_ERROR || cc == CURLE_GOT_NOTHING ||
                  cc == CURLE_SSL_CONNECT_ERROR)) {
        /* TLS 1.3: a server that refuses the client's certificate (or its absence) says so
         * after the client thinks the handshake is done, so the error is a send or receive */
        if (t == NULL || t->cert_pem.data == NULL)
            snprintf(buf, size,
                     "%s closed the TLS connection: if it requires a client "
                     "certificate, set %s; if the port is not TLS, write http://",
                     n->what, cert);
        else
            snprintf(buf, size,
                     "%s closed the TLS connection: does it trust the CA that signed "
                     "%s?",
                     n->what, cert);
        return buf;
    }
    if (!https && (cc == CURLE_RECV_ERROR || cc == CURLE_GOT_NOTHING ||
                   cc == CURLE_WEIRD_SERVER_REPLY || cc == CURLE_UNSUPPORTED_PROTOCOL)) {
        /* a TLS port reads the plain request as a broken handshake: it resets the connection
         * (OpenSSL servers), closes it, or answers TLS bytes that are not HTTP */
        snprintf(buf, size,
                 "the server did not answer plain HTTP: if %s names a TLS port, use "
                 "https:// (and %s)",
                 n->hosts, n->ca_file);
        return buf;
    }
    if (cc == CURLE_SSL_CONNECT_ERROR) {
        snprintf(buf, size,
                 "the TLS handshake failed: is the URL's scheme right in %s (https:// "
                 "for a TLS port, http:// for a plain one)?",
                 n->hosts);
        return buf;
    }
    snprintf(buf, size, "is %s running and is %s right?", n->what, n->hosts);
    return buf;
}

int bf_es_apply_target(CURL *h, const bf_target_t *t, struct curl_slist **headers)
{
    switch (t->auth) {
    case BF_AUTH_NONE: break;
    case BF_AUTH_BASIC:
        curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl_easy_setopt(h, CURLOPT_USERNAME, t->username ? t->username : "");
        curl_easy_setopt(h, CURLOPT_PASSWORD, t->password ? t->password : "");
        break;
    case BF_AUTH_APIKEY: {
        char *hdr = bf_asprintf("Authorization: ApiKey %s", t->api_key ? t->api_key : "");
        *headers = curl_slist_append(*headers, hdr);
        free(hdr);
        break;
    }
    case BF_AUTH_BEARER: {
        char *hdr = bf_asprintf("Authorization: Bearer %s", t->bearer ? t->bearer : "");
        *headers = curl_slist_append(*headers, hdr);
        free(hdr);
        break;
    }
    case BF_AUTH_AWS: break; /* each request is signed with its body (bf_aws_sign) */
    }
    /* The files' contents as loaded with the scenario (on an agent: as shipped by the
     * coordinator), never the paths: a path means nothing on another host. CURL_BLOB_COPY:
     * the handle keeps its own copy (libcurl >= 7.77 for CAINFO_BLOB, 7.71 for the others). */
    struct curl_blob blob = {.flags = CURL_BLOB_COPY};
    if (t->ca_pem.data) {
        blob.data = (void *)t->ca_pem.data;
        blob.len = t->ca_pem.len;
        if (curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &blob) != CURLE_OK)
            return BF_E_INVAL;
    }
    if (t->cert_pem.data) {
        blob.data = (void *)t->cert_pem.data;
        blob.len = t->cert_pem.len;
        curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
        if (curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &blob) != CURLE_OK)
            return BF_E_INVAL;
    }
    if (t->key_pem.data) {
        blob.data = (void *)t->key_pem.data;
        blob.len = t->key_pem.len;
        curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
        if (curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &blob) != CURLE_OK)
            return BF_E_INVAL;
    }
    if (t->tls_insecure) {
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    for (size_t i = 0; i < t->nheaders; i++)
        *headers = curl_slist_append(*headers, t->headers[i]);
    return BF_OK;
}

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    bf_buf_t *b = ud;
    if (bf_buf_append(b, p, size * n) != BF_OK)
        return 0; /* makes curl fail with CURLE_WRITE_ERROR: the cap was hit */
    return size * n;
}

long bf_es_set_timeout(bf_es_t *es, long timeout_ms)
{
    long old = es->timeout_ms;
    if (timeout_ms > 0)
        es->timeout_ms = timeout_ms;
    return old;
}

bf_es_t *bf_es_new(const bf_target_t *target, size_t host_index, long timeout_ms)
{
    bf_es_t *es = bf_calloc(1, sizeof *es);
    es->target = target;
    es->host = target->hosts[host_index % target->nhosts];
    es->display_host = bf_url_redact_userinfo(es->host);
    if (es->display_host == NULL)
        es->display_host = bf_strdup(es->host);
    es->timeout_ms = timeout_ms;
    es->h = curl_easy_init();
    bf_buf_init(&es->resp, BF_MAX_API_RESPONSE_BYTES);
    return es;
}

void bf_es_destroy(bf_es_t **es_p)
{
    if (es_p == NULL || *es_p == NULL)
        return;
    bf_es_t *es = *es_p;
    if (es->multi)
        curl_multi_cleanup(es->multi);
    curl_easy_cleanup(es->h);
    bf_buf_cleanup(&es->resp);
    free(es->display_host);
    free(es);
    *es_p = NULL;
}

const char *bf_es_host(const bf_es_t *es)
{
    return es->display_host;
}

const bf_target_t *bf_es_target(const bf_es_t *es)
{
    return es->target;
}

void bf_es_set_tick(bf_es_t *es, void (*tick)(void *ctx), void *ctx, unsigned interval_ms)
{
    es->tick = tick;
    es->tick_ctx = ctx;
    es->tick_interval_us = (uint64_t)(interval_ms ? interval_ms : 1) * 1000u;
    es->last_tick_us = 0;
}

static void tick_due(bf_es_t *es)
{
    uint64_t now = bf_clock_mono_us();
    if (now - es->last_tick_us >= es->tick_interval_us) {
        es->last_tick_us = now;
        es->tick(es->tick_ctx);
    }
}

/* curl_easy_perform, or with a tick our own multi loop: libcurl's progress callback
 * (CURLOPT_XFERINFOFUNCTION) slows to about once a second while nothing is transferred, which
 * is exactly when a cluster call blocks (an index of many shards being created, a stalled
 * node), and a second between ticks delayed the fleet's Pongs enough to skew its clock
 * exchange (seen: "best round trip 1000.4 ms" after a 60-shard create). curl_multi_poll waits
 * at most the tick interval, so the tick keeps its pace. */
static CURLcode perform(bf_es_t *es)
{
    if (es->tick == NULL)
        return curl_easy_perform(es->h);
    if (es->multi == NULL)
        es->multi = curl_multi_init();
    if (es->multi == NULL || curl_multi_add_handle(es->multi, es->h) != CURLM_OK)
        return curl_easy_perform(es->h); /* out of memory: no ticks, but the request runs */
    int poll_ms = (int)(es->tick_interval_us / 1000u);
    poll_ms = poll_ms < 1 ? 1 : poll_ms;
    CURLcode cc = CURLE_OK;
    int running = 1;
    for (;;) {
        CURLMcode mc = curl_multi_perform(es->multi, &running);
        if (mc == CURLM_OK && running)
            mc = curl_multi_poll(es->multi, NULL, 0, poll_ms, NULL);
        if (mc != CURLM_OK) {
            cc = CURLE_OUT_OF_MEMORY; /* the only way libcurl's multi loop fails here */
            break;
        }
        if (!running)
            break;
        tick_due(es);
    }
    int left = 0;
    for (CURLMsg *msg = curl_multi_info_read(es->multi, &left); msg != NULL;
         msg = curl_multi_info_read(es->multi, &left))
        if (msg->msg == CURLMSG_DONE && msg->easy_handle == es->h)
            cc = msg->data.result;
    curl_multi_remove_handle(es->multi, es->h);
    return cc;
}

void bf_es_pause(bf_es_t *es, unsigned ms)
{
    uint64_t end = bf_clock_mono_us() + (uint64_t)ms * 1000u;
    for (uint64_t now = bf_clock_mono_us(); now < end; now = bf_clock_mono_us()) {
        uint64_t step = es->tick ? es->tick_interval_us : end - now;
        if (step > end - now)
            step = end - now;
        struct timespec ts = {.tv_sec = (time_t)(step / 1000000u),
                              .tv_nsec = (long)(step % 1000000u) * 1000L};
        nanosleep(&ts, NULL);
        if (es->tick)
            tick_due(es);
    }
}

int bf_es_request(bf_es_t *es, const char *method, const char *path, const char *json_body,
                  long *status, const char **body_out, bf_diag_t *diag)
{
    CURL *h = es->h;
    curl_easy_reset(h);
    struct curl_slist *headers = NULL;
    char *url = bf_asprintf("%s%s", es->host, path);
    bf_buf_reset(&es->resp);
    bf_buf_append(&es->resp, "", 0);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, es->timeout_ms);
    long connect_ms =
        es->target->connect_timeout_ms ? (long)es->target->connect_timeout_ms : 10000L;
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     es->timeout_ms < connect_ms ? es->timeout_ms : connect_ms);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &es->resp);
    if (strcmp(method, "HEAD") == 0)
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    bf_es_apply_target(h, es->target, &headers);
    if (json_body != NULL) {
        headers = curl_slist_append(headers, "Content-Type: application/json");
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, json_body);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(json_body));
    }
    headers = curl_slist_append(headers, "Expect:");
    if (es->target->auth == BF_AUTH_AWS) {
        char *signed_url = NULL;
        int src = bf_aws_sign(es->target, method, url, json_body, json_body ? strlen(json_body) : 0,
                              &headers, &signed_url, diag);
        if (src != BF_OK) {
            curl_slist_free_all(headers);
            free(url);
            return src;
        }
        if (signed_url) {
            free(url);
            url = signed_url;
            curl_easy_setopt(h, CURLOPT_URL, url);
        }
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    char errbuf[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    CURLcode cc = perform(es);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
    int rc = BF_OK;
    if (cc == CURLE_WRITE_ERROR) {
        rc = bf_diag_set(diag, BF_E_TOOBIG, "%s %s%s: response larger than %u bytes", method,
                         es->display_host, path, BF_MAX_API_RESPONSE_BYTES);
    } else if (cc != CURLE_OK) {
        char hint[400];
        rc = bf_diag_set(diag, BF_E_TRANSPORT, "%s %s%s: %s%s%s; %s", method, es->display_host,
                         path, curl_easy_strerror(cc), errbuf[0] ? ": " : "", errbuf,
                         bf_es_transport_hint(cc, errbuf, url, es->target, hint, sizeof hint));
    } else {
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
        *body_out = es->resp.data;
    }
    curl_slist_free_all(headers);
    free(url);
    return rc;
}
