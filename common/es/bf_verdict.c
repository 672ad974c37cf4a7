/* SPDX-License-Identifier: MIT */
/* bf_verdict.c — what a finished bulk request counts as (the table is in bf_verdict.h).
 *
 * No I/O, no clock, no globals: the worker passes facts, gets decisions. Error types that make
 * a cell fail at once are the ones that cannot get better by themselves while the cell runs:
 * they come from the scenario (template, mapping, index, auth, headers), not from load.
 */
#include "bf_verdict.h"

#include <curl/curl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum bf_xfer bf_verdict_xfer(int curl_code, uint64_t request_bytes)
{
    switch ((CURLcode)curl_code) {
    case CURLE_OK: return BF_XFER_RESPONSE;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
        /* with bytes already written this is libcurl's own retry of a reused keep-alive
         * connection that died after the request went out (lib/transfer.c Curl_retry_request):
         * the retry could not connect, but the first attempt's body may be indexed */
        return request_bytes == 0 ? BF_XFER_NOT_SENT : BF_XFER_RESET;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
        return request_bytes == 0 ? BF_XFER_TLS_CONFIG : BF_XFER_BAD;
    case CURLE_UNSUPPORTED_PROTOCOL: /* "Received HTTP/0.9 when not allowed": TLS bytes */
    case CURLE_WEIRD_SERVER_REPLY: return BF_XFER_NOT_HTTP;
    default: break;
    }
    /* a timeout, reset or TLS failure before a single byte of the request was written is a
     * connection that never came up; once anything was written the server may act on it */
    if (request_bytes == 0 &&
        (curl_code == CURLE_OPERATION_TIMEDOUT || curl_code == CURLE_SSL_CONNECT_ERROR ||
         curl_code == CURLE_SEND_ERROR || curl_code == CURLE_RECV_ERROR ||
         curl_code == CURLE_GOT_NOTHING))
        return BF_XFER_NOT_SENT;
    switch ((CURLcode)curl_code) {
    case CURLE_OPERATION_TIMEDOUT: return BF_XFER_TIMEOUT;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SEND_FAIL_REWIND: return BF_XFER_RESET;
    default: return BF_XFER_BAD;
    }
}

/* Item error types that say the scenario is wrong, whatever the load (docs/internals/es-api.md
 * §1.6), each with what to do when every document of a request failed with it. A 409 is not one (a
 * workload may measure conflicts); 429 and 5xx are load. Mapping advice only for mapping and
 * parsing errors; privileges for security_exception (an item-level 403: the user may read but
 * not write this index; it was told to fix document.source and index.mappings). */
static const struct {
    const char *type, *hint;
} config_types[] = {
    {"index_not_found_exception",
     "the index does not exist; set index.recreate: true or fix index.name"},
    {"routing_missing_exception", "the mapping requires routing; set document.routing"},
    {"strict_dynamic_mapping_exception",
     "the mapping is strict; add the fields to index.mappings or change document.source"},
    {"mapper_parsing_exception", "the documents do not fit the index's mapping; fix "
                                 "document.source or index.mappings (bulkfleet-agent render "
                                 "shows the body)"},
    {"document_parsing_exception", "the documents do not fit the index's mapping; fix "
                                   "document.source or index.mappings (bulkfleet-agent render "
                                   "shows the body)"},
    {"mapper_exception", "the documents do not fit the index's mapping; fix document.source or "
                         "index.mappings (bulkfleet-agent render shows the body)"},
    {"type_missing_exception", "the index has no mapping type for the documents (an index "
                               "template of another version?); fix index.mappings"},
    {"illegal_argument_exception",
     "the cluster refused an argument of each document or its action line (an _id longer "
     "than 512 bytes, a version, a field it cannot take); check document.id, document.action "
     "and document.source (bulkfleet-agent render shows the body)"},
    {"action_request_validation_exception",
     "each action line is invalid; check document.action, document.id and document.routing "
     "(bulkfleet-agent render shows the body)"},
    {"invalid_index_name_exception",
     "the index name is invalid (lowercase, no spaces, no \\ / * ? \" < > | , #, not "
     "starting with _ - +); fix index.name"},
    {"document_missing_exception", "an update of ids that do not exist; set document.update: "
                                   "upsert, or make document.id draw ids an earlier cell "
                                   "indexed"},
    {"security_exception",
     "the user lacks the privilege to write to this index (item-level 403); grant it the "
     "index privileges write, index or create_doc on the index (or use a user that has them in "
     "target.auth)"},
};

static int config_item_type(const char *type)
{
    for (size_t i = 0; i < sizeof config_types / sizeof config_types[0]; i++)
        if (strcmp(type, config_types[i].type) == 0)
            return 1;
    return 0;
}

size_t bf_verdict_config_type_count(void)
{
    return sizeof config_types / sizeof config_types[0];
}

const char *bf_verdict_config_type(size_t i)
{
    return i < sizeof config_types / sizeof config_types[0] ? config_types[i].type : NULL;
}

const char *bf_verdict_items_hint(const char *item_type, const char *first_error)
{
    /* a failing ingest pipeline shows as the pipeline's own error type (often
     * illegal_argument_exception "pipeline with id [p] does not exist"): the pipeline first */
    if (strcmp(item_type, "security_exception") != 0 && first_error &&
        strstr(first_error, "pipeline") != NULL)
        return "the ingest pipeline fails every document; fix request.pipeline, "
               "document.pipeline or the pipeline itself (index.pipeline_file)";
    for (size_t i = 0; i < sizeof config_types / sizeof config_types[0]; i++)
        if (strcmp(item_type, config_types[i].type) == 0)
            return config_types[i].hint;
    return "fix document.source or document.action (bulkfleet-agent render shows the body)";
}

static void all_docs(bf_verdict_t *v, enum bf_item_class cls, uint64_t n)
{
    switch (cls) {
    case BF_ITEM_OK: v->docs.ok = n; break;
    case BF_ITEM_REJECTED: v->docs.rejected = n; break;
    case BF_ITEM_CONFLICT: v->docs.conflict = n; break;
    case BF_ITEM_MAPPING: v->docs.mapping = n; break;
    case BF_ITEM_4XX: v->docs.failed_4xx = n; break;
    case BF_ITEM_5XX: v->docs.failed_5xx = n; break;
    }
}

static void judge_2xx(const bf_verdict_in_t *in, bf_verdict_t *v)
{
    if (!in->parsed) {
        v->req = BF_REQ_BAD;
        v->unknown = in->ndocs;
        v->warn = BF_WARN_BAD_RESPONSE;
        if (!in->bulk_seen || in->not_bulk_streak >= BF_NOT_BULK_STREAK)
            v->fatal = BF_FATAL_NOT_BULK;
        return;
    }
    v->docs = in->items;
    if (in->items.ok == in->ndocs) {
        v->req = BF_REQ_OK;
        return;
    }
    v->req = BF_REQ_PARTIAL;
    v->warn = BF_WARN_ITEMS;
    if (in->items.rejected && in->retry_left) {
        v->retry = in->items.rejected;
        v->docs.rejected = 0;
        v->next = BF_NEXT_RETRY_ITEMS;
    }
    if (strcmp(in->item_type, "cluster_block_exception") == 0)
        v->fatal = BF_FATAL_BLOCK;
    else if (in->items.ok == 0 && in->items_one_type && in->items.rejected == 0 &&
             in->items.conflict == 0 && in->items.failed_5xx == 0 &&
             config_item_type(in->item_type))
        v->fatal = BF_FATAL_ITEMS;
}

static void judge_status(const bf_verdict_in_t *in, bf_verdict_t *v)
{
    long st = in->status;
    const char *et = in->error_type;
    v->req = BF_REQ_HTTP_ERROR;
    v->warn = BF_WARN_HTTP;
    if (strcmp(et, "cluster_block_exception") == 0) {
        all_docs(v, BF_ITEM_4XX, in->ndocs);
        v->fatal = BF_FATAL_BLOCK;
    } else if (st == 429) {
        if (strcmp(et, "circuit_breaking_exception/PERMANENT") != 0 && in->retry_left) {
            v->retry = in->ndocs;
            v->next = BF_NEXT_RETRY_WHOLE;
        } else {
            all_docs(v, BF_ITEM_REJECTED, in->ndocs);
        }
    } else if (st == 502 || st == 504) {
        v->unknown = in->ndocs;
    } else if (st >= 500) {
        all_docs(v, BF_ITEM_5XX, in->ndocs);
        if (st == 500 && strcmp(et, "json_parse_exception") == 0)
            v->fatal = BF_FATAL_JSON_PARSE;
    } else if (st >= 400) {
        all_docs(v, BF_ITEM_4XX, in->ndocs);
        if (st == 401 || st == 403)
            v->fatal = BF_FATAL_AUTH;
        else if (st == 404)
            v->fatal = BF_FATAL_NOT_FOUND;
        else if (st == 413)
            v->fatal = BF_FATAL_TOO_LARGE;
        else if (st == 400)
            v->fatal = BF_FATAL_BAD_REQUEST;
        else if (st == 406)
            v->fatal = BF_FATAL_MEDIA_TYPE;
        else if (st == 411)
            v->fatal = BF_FATAL_LENGTH;
    } else {
        v->unknown = in->ndocs; /* 1xx, 3xx: not an answer to a bulk request */
    }
}

void bf_verdict_judge(const bf_verdict_in_t *in, bf_verdict_t *v)
{
    memset(v, 0, sizeof *v);
    v->sent = 1;
    v->latency = 1;
    switch (in->xfer) {
    case BF_XFER_NOT_SENT:
        v->req = BF_REQ_CONNECT;
        v->sent = 0;
        v->latency = 0;
        v->next = BF_NEXT_RESEND;
        v->warn = BF_WARN_CONNECT;
        return;
    case BF_XFER_TLS_CONFIG:
        v->req = BF_REQ_CONNECT;
        v->sent = 0;
        v->latency = 0;
        v->fatal = BF_FATAL_TLS;
        return;
    case BF_XFER_TIMEOUT:
        v->req = BF_REQ_TIMEOUT;
        v->unknown = in->ndocs;
        v->warn = BF_WARN_TIMEOUT;
        return;
    case BF_XFER_RESET:
        v->req = BF_REQ_RESET;
        v->unknown = in->ndocs;
        v->warn = BF_WARN_RESET;
        return;
    case BF_XFER_BAD:
        v->req = BF_REQ_BAD;
        v->unknown = in->ndocs;
        v->warn = BF_WARN_BAD_RESPONSE;
        return;
    case BF_XFER_NOT_HTTP:
        v->req = BF_REQ_BAD;
        v->unknown = in->ndocs;
        v->fatal = BF_FATAL_NOT_HTTP;
        return;
    case BF_XFER_RESPONSE: break;
    }
    if (in->status >= 200 && in->status < 300) {
        judge_2xx(in, v);
        if (in->parsed) {
            v->typed = in->ndocs - in->items.ok;
            v->rejections = in->items.rejected;
        }
    } else {
        judge_status(in, v);
        v->typed = in->ndocs - v->unknown; /* 502/504, 1xx, 3xx: unknown, nothing typed */
        if (in->status == 429 && strcmp(in->error_type, "cluster_block_exception") != 0)
            v->rejections = in->ndocs;
    }
}

/* The first bytes of an answer on one printable line: at most 160 bytes of head, control
 * characters as one space each run, other bytes outside ASCII as '?', '"' as '\''. */
static const char *printable_head(char *buf, size_t size, const char *head, size_t len)
{
    size_t o = 0;
    int space = 0;
    if (len > 160)
        len = 160;
    for (size_t i = 0; i < len && o + 1 < size; i++) {
        unsigned char ch = (unsigned char)head[i];
        if (ch < 0x20 || ch == 0x7f) {
            space = o > 0;
            continue;
        }
        if (space && o + 2 < size)
            buf[o++] = ' ';
        space = 0;
        buf[o++] = ch >= 0x80 ? '?' : ch == '"' ? '\'' : (char)ch;
    }
    buf[o] = '\0';
    return buf;
}

static const char *both(char *buf, size_t size, const char *type, const char *reason)
{
    snprintf(buf, size, "%s%s%s", type, type[0] && reason[0] ? ": " : "", reason);
    return buf;
}

char *bf_verdict_describe(const bf_verdict_in_t *in, const bf_verdict_t *v,
                          const bf_verdict_ctx_t *c, char *buf, size_t size)
{
    char e[640];
    const char *id = c->cell_id;
    long st = in->status;
    both(e, sizeof e, in->error_type, c->error_reason);
    buf[0] = '\0';
    switch (v->fatal) {
    case BF_FATAL_AUTH:
        if (strstr(e, "ignature") || strstr(e, "security token"))
            snprintf(buf, size,
                     "cell %s: the cluster answered HTTP %ld to _bulk (%s): check "
                     "target.auth.aws (this agent's AWS credentials: the secret key, an expired "
                     "session token; region and service) and this host's clock (SigV4 allows 5 "
                     "minutes)",
                     id, st, e);
        else
            snprintf(buf, size,
                     "cell %s: the cluster answered HTTP %ld to _bulk (%s): check "
                     "target.auth (user, password, API key or AWS credentials) and the user's "
                     "write privileges on the index",
                     id, st, e);
        return buf;
    case BF_FATAL_NOT_FOUND:
        snprintf(buf, size,
                 "cell %s: HTTP 404 from _bulk (%s): the index is missing and "
                 "automatic creation is off; set index.recreate: true",
                 id, e);
        return buf;
    case BF_FATAL_TOO_LARGE:
        snprintf(buf, size,
                 "cell %s: HTTP 413 Request Entity Too Large for a bulk request of "
                 "%u documents (batch_size %u) and %zu bytes uncompressed (%zu on the wire): "
                 "lower batch_size or raise the cluster's http.max_content_length",
                 id, in->ndocs, c->batch_size, c->payload_bytes, c->wire_bytes);
        return buf;
    case BF_FATAL_BAD_REQUEST:
        snprintf(buf, size,
                 "cell %s: HTTP 400 from _bulk for the whole request (%s): the "
                 "bulk body is not valid; check document.action, document.id, "
                 "document.routing and document.source (bulkfleet-agent render shows the "
                 "body)",
                 id, e);
        return buf;
    case BF_FATAL_MEDIA_TYPE:
        snprintf(buf, size,
                 "cell %s: HTTP 406 from _bulk (%s): the cluster does not accept "
                 "the Content-Type or Accept bulkfleet sent; set request.media_type (default: "
                 "application/x-ndjson; elasticsearch8: Elasticsearch 8's compatible-with=8 "
                 "types)",
                 id, e);
        return buf;
    case BF_FATAL_LENGTH:
        if (c->chunked) {
            snprintf(buf, size,
                     "cell %s: HTTP 411 from _bulk (%s): the server or a proxy in front of it "
                     "refuses chunked bodies, which bulkfleet sent because request.transfer is "
                     "chunked; set request.transfer: auto (switches to Content-Length bodies "
                     "by itself) or length",
                     id, e);
            return buf;
        }
        snprintf(buf, size,
                 "cell %s: HTTP 411 from _bulk (%s): a proxy or the cluster wants "
                 "a Content-Length, which bulkfleet sends with every bulk body: a proxy "
                 "between them rewrote the request (chunked); fix the proxy or target the "
                 "cluster directly (target.hosts)",
                 id, e);
        return buf;
    case BF_FATAL_JSON_PARSE:
        snprintf(buf, size,
                 "cell %s: HTTP 500 json_parse_exception from _bulk (%s): the "
                 "cluster could not read the body as JSON; check document.source (bulkfleet-"
                 "agent render shows the body) and request.compression (a gateway that does "
                 "not inflate gzip)",
                 id, e);
        return buf;
    case BF_FATAL_BLOCK:
        snprintf(buf, size,
                 "cell %s: the index is blocked (%s): free disk space (flood-stage "
                 "watermark) or remove the write block (index.blocks.write)",
                 id, st >= 200 && st < 300 ? c->first_error : e);
        return buf;
    case BF_FATAL_ITEMS:
        snprintf(buf, size, "cell %s: every document of a bulk request failed with %s: %s", id,
                 c->first_error, bf_verdict_items_hint(in->item_type, c->first_error));
        return buf;
    case BF_FATAL_TLS:
        snprintf(buf, size,
                 "cell %s: TLS refused the connection (%s): set target.tls.ca_file "
                 "to the cluster's CA (or tls.insecure: true for a test cluster)",
                 id, c->transport);
        return buf;
    case BF_FATAL_NOT_HTTP:
        snprintf(buf, size,
                 "cell %s: the answer to _bulk is not HTTP (%s): the port speaks "
                 "TLS; use https:// in target.hosts",
                 id, c->transport);
        return buf;
    case BF_FATAL_NOT_BULK: {
        char h[200];
        printable_head(h, sizeof h, c->head ? c->head : "", c->head ? c->head_len : 0);
        snprintf(buf, size,
                 "cell %s: _bulk answered HTTP %ld with something that is not a bulk "
                 "response%s (Content-Type %s, %llu bytes, first bytes \"%s\"; %s): "
                 "target.hosts does not lead to the cluster's REST endpoint (a proxy's login "
                 "page, another service, a wrong port or path?); fix target.hosts or the "
                 "proxy in between",
                 id, st, in->bulk_seen ? ", several times in a row after bulk responses" : "",
                 c->content_type && c->content_type[0] ? c->content_type : "(none)",
                 (unsigned long long)c->body_bytes, h, c->first_error);
        return buf;
    }
    case BF_FATAL_NONE: break;
    }
    switch (v->warn) {
    case BF_WARN_CONNECT: snprintf(buf, size, "cannot connect: %s", c->transport); break;
    case BF_WARN_TIMEOUT:
    case BF_WARN_RESET:
        snprintf(buf, size, "bulk request of %u documents: %s after %.1f s (outcome unknown)",
                 in->ndocs, c->transport, c->total_s);
        break;
    case BF_WARN_BAD_RESPONSE:
        if (in->xfer == BF_XFER_RESPONSE)
            snprintf(buf, size, "%s; %u documents counted as unknown", c->first_error, in->ndocs);
        else
            snprintf(buf, size, "bulk request of %u documents: %s (outcome unknown)", in->ndocs,
                     c->transport);
        break;
    case BF_WARN_HTTP: snprintf(buf, size, "HTTP %ld from _bulk: %s", st, e); break;
    case BF_WARN_ITEMS:
        snprintf(buf, size, "%u of %u documents not acknowledged, first: %s",
                 in->ndocs - (uint32_t)in->items.ok, in->ndocs, c->first_error);
        break;
    case BF_WARN_NONE: break;
    }
    return buf;
}

/* The position just after the string value's opening quote of the first `"key": "` in
 * body[from, len), or 0 when there is none (a key inside a string value can match: the
 * callers look for keys Elasticsearch writes before any free text). */
static size_t find_string_value(const char *body, size_t len, size_t from, const char *key)
{
    size_t kl = strlen(key);
    for (size_t i = from; i + kl + 2 < len; i++) {
        if (body[i] != '"' || memcmp(body + i + 1, key, kl) != 0 || body[i + 1 + kl] != '"')
            continue;
        size_t k = i + kl + 2;
        while (k < len && (body[k] == ' ' || body[k] == '\n' || body[k] == '\r' || body[k] == '\t'))
            k++;
        if (k >= len || body[k] != ':')
            continue;
        k++;
        while (k < len && (body[k] == ' ' || body[k] == '\n' || body[k] == '\r' || body[k] == '\t'))
            k++;
        if (k < len && body[k] == '"')
            return k + 1;
    }
    return 0;
}

/* Decodes the JSON string that starts at body[at] (after its opening quote) into out (size
 * out_size): up to its closing quote, or, when the body was cut inside it, up to the last whole
 * character (an escape cut in two is dropped). Sets *end to the index after the closing quote
 * (len when cut). Unescaping is jansson's; a cut value ends with " ...". Returns 1 when out
 * holds the whole value, 2 when it holds a cut one, 0 when there is none. */
static int decode_string_at(const char *body, size_t len, size_t at, char *out, size_t out_size,
                            size_t *end)
{
    size_t i = at, last_whole = at;
    int closed = 0;
    while (i < len) {
        if (body[i] == '"') {
            closed = 1;
            break;
        }
        size_t step = 1;
        if (body[i] == '\\')
            step = i + 1 < len && body[i + 1] == 'u' ? 6 : 2;
        if (i + step > len)
            break;
        i += step;
        last_whole = i;
    }
    size_t n = closed ? i - at : last_whole - at;
    *end = closed ? i + 1 : len;
    char *quoted = malloc(n + 2);
    if (quoted == NULL)
        return 0;
    json_t *v = NULL;
    /* a cut inside a UTF-8 sequence: up to 3 bytes fewer until jansson takes it */
    for (size_t drop = 0; v == NULL && drop <= (closed ? 0 : 3) && drop <= n; drop++) {
        quoted[0] = '"';
        memcpy(quoted + 1, body + at, n - drop);
        quoted[n - drop + 1] = '"';
        v = json_loadb(quoted, n - drop + 2, JSON_DECODE_ANY, NULL);
    }
    free(quoted);
    int got = json_is_string(v) ? (closed ? 1 : 2) : 0;
    if (got) {
        snprintf(out, out_size, "%s%s", json_string_value(v), closed ? "" : " ...");
        for (char *c = out; *c; c++)
            if ((unsigned char)*c < 0x20)
                *c = ' '; /* one line */
    }
    json_decref(v);
    return got;
}

/* An Elasticsearch error body cut short (the caller keeps its first bytes; Elasticsearch 8's
 * whole-request 429 is ~2.5 kB, the task's description twice): the first "type" and the
 * "reason" after it, following "error" (root_cause[0]'s, which Elasticsearch and OpenSearch
 * write first). Returns 1 when a type was found. */
static int cut_error_body(const char *body, size_t len, char *type, size_t type_size, char *reason,
                          size_t reason_size)
{
    size_t e = 0, at, end;
    for (size_t i = 0; i < len && e == 0; i++)
        if (body[i] == '"' && len - i >= 7 && memcmp(body + i, "\"error\"", 7) == 0)
            e = i + 7;
    if (e == 0 || (at = find_string_value(body, len, e, "type")) == 0 ||
        decode_string_at(body, len, at, type, type_size, &end) != 1) {
        type[0] = '\0';
        return 0;
    }
    if ((at = find_string_value(body, len, end, "reason")) == 0 ||
        !decode_string_at(body, len, at, reason, reason_size, &end))
        snprintf(reason, reason_size, "(cut short before its reason)");
    return 1;
}

void bf_verdict_error_body(const char *body, size_t len, char *type, size_t type_size, char *reason,
                           size_t reason_size)
{
    type[0] = '\0';
    reason[0] = '\0';
    json_t *j = json_loadb(body, len, 0, NULL);
    json_t *err = json_object_get(j, "error");
    if (j == NULL && len > 0 && cut_error_body(body, len, type, type_size, reason, reason_size)) {
        /* JSON cut short: what was found before the cut */
    } else if (json_is_object(err)) {
        const char *t = json_string_value(json_object_get(err, "type"));
        const char *r = json_string_value(json_object_get(err, "reason"));
        snprintf(type, type_size, "%s", t ? t : "");
        snprintf(reason, reason_size, "%s", r ? r : "");
        if (t && strcmp(t, "circuit_breaking_exception") == 0) {
            const char *d = json_string_value(json_object_get(err, "durability"));
            if (d && strcmp(d, "PERMANENT") == 0)
                snprintf(type, type_size, "%s", "circuit_breaking_exception/PERMANENT");
        }
    } else if (json_is_string(err)) {
        snprintf(reason, reason_size, "%s", json_string_value(err));
    } else if (json_is_string(json_object_get(j, "message"))) {
        /* Amazon OpenSearch Service's own refusals (signature, clock, token, policy) */
        snprintf(reason, reason_size, "%s", json_string_value(json_object_get(j, "message")));
    } else if (len == 0) {
        snprintf(reason, reason_size, "(empty body)");
    } else {
        /* not JSON (a proxy, OpenSearch's 401): the first line, printable bytes only */
        size_t o = 0;
        for (size_t i = 0; i < len && o + 1 < reason_size && o < 160; i++) {
            char ch = body[i];
            if (ch == '\n' || ch == '\r')
                break;
            reason[o++] = (ch >= 0x20 && ch < 0x7f) ? ch : '?';
        }
        reason[o] = '\0';
    }
    json_decref(j);
}

enum bf_unknown_cause bf_verdict_unknown_cause(enum bf_req req)
{
    switch (req) {
    case BF_REQ_TIMEOUT: return BF_UNKNOWN_TIMEOUT;
    case BF_REQ_RESET: return BF_UNKNOWN_RESET;
    case BF_REQ_BAD: return BF_UNKNOWN_BAD;
    case BF_REQ_OK:
    case BF_REQ_PARTIAL:
    case BF_REQ_HTTP_ERROR:
    case BF_REQ_CONNECT: break;
    }
    return BF_UNKNOWN_HTTP;
}
