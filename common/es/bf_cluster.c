/* SPDX-License-Identifier: MIT */
/* bf_cluster.c — cluster APIs used around each cell. */
#include "bf_cluster.h"

#include "bf_aws.h"

#include "bf_buf.h"
#include "bf_clock.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_strmap.h"
#include "bf_units.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "a,b,c" of the cell's index names; caller frees. */
static char *index_list(const bf_cell_t *cell)
{
    bf_buf_t b;
    bf_buf_init(&b, 0);
    for (uint32_t i = 0; i < cell->indices; i++) {
        if (i)
            bf_buf_append(&b, ",", 1);
        bf_buf_appendz(&b, cell->index_names[i]);
    }
    return bf_buf_steal(&b);
}

static int http_error(bf_diag_t *diag, const char *what, const bf_es_t *es, long status,
                      const char *body)
{
    /* keep the cluster's own reason: it is what the user needs to fix the scenario */
    char reason[600] = "";
    json_t *j = json_loads(body ? body : "", 0, NULL);
    json_t *err = j ? json_object_get(j, "error") : NULL;
    if (json_is_object(err)) {
        json_t *root = json_object_get(err, "root_cause");
        json_t *first = json_is_array(root) ? json_array_get(root, 0) : err;
        snprintf(reason, sizeof reason, "%s: %s",
                 json_string_value(json_object_get(first, "type")) ?: "error",
                 json_string_value(json_object_get(first, "reason")) ?: "");
    } else if (body) {
        snprintf(reason, sizeof reason, "%.300s", body);
    }
    json_decref(j);
    return bf_diag_set(diag, BF_E_HTTP, "%s on %s: HTTP %ld: %s", what, bf_es_host(es), status,
                       reason);
}

/* ---- ownership: bulkfleet's mark in _meta (bf_cluster.h, bf_owner_t) ---------------------- */

#define BF_DS_MARK "bulkfleet_created" /* the data streams' mark before created_by existed */
#define BF_MARK_BY "created_by"
#define BF_MARK_BY_VALUE "bulkfleet"
#define BF_CLUSTER_WAIT_SAY_MS 10000 /* a progress line this often while indices allocate */

int bf_owner_may_replace(const bf_owner_t *owner, const char *name)
{
    if (owner == NULL || name == NULL)
        return 0;
    for (size_t i = 0; i < owner->nreplace; i++)
        if (owner->replace[i] && strcmp(owner->replace[i], name) == 0)
            return 1;
    return 0;
}

static int meta_ours(const json_t *meta)
{
    const char *by = json_string_value(json_object_get(meta, BF_MARK_BY));
    return json_is_true(json_object_get(meta, BF_DS_MARK)) ||
           (by != NULL && strcmp(by, BF_MARK_BY_VALUE) == 0);
}

/* the _meta object bulkfleet writes; caller owns the reference */
static json_t *mark_new(const bf_owner_t *owner)
{
    json_t *m = json_object();
    json_object_set_new(m, BF_MARK_BY, json_string(BF_MARK_BY_VALUE));
    json_object_set_new(m, BF_DS_MARK, json_true());
    if (owner && owner->scenario)
        json_object_set_new(m, "scenario", json_string(owner->scenario));
    if (owner && owner->campaign)
        json_object_set_new(m, "campaign", json_string(owner->campaign));
    return m;
}

/* obj._meta gets the mark (merged into a _meta already there) */
static void mark_into(json_t *obj, const bf_owner_t *owner)
{
    json_t *meta = json_object_get(obj, "_meta");
    if (!json_is_object(meta)) {
        meta = json_object();
        json_object_set_new(obj, "_meta", meta);
    }
    json_t *m = mark_new(owner);
    json_object_update(meta, m);
    json_decref(m);
}

/* the mappings JSON text with the mark in its _meta; caller frees. Mappings that are not an
 * object are sent as they are (the cluster will say what is wrong with them). */
static char *mappings_marked(const char *mappings_json, const bf_owner_t *owner)
{
    json_t *m = mappings_json ? json_loads(mappings_json, 0, NULL) : json_object();
    if (!json_is_object(m)) {
        json_decref(m);
        return mappings_json ? bf_strdup(mappings_json) : NULL;
    }
    mark_into(m, owner);
    char *out = json_dumps(m, JSON_COMPACT);
    json_decref(m);
    return out;
}

/* What the cluster has under an index name. */
enum index_state {
    IX_NONE = 0,    /* nothing */
    IX_OURS = 1,    /* an index with bulkfleet's mark */
    IX_FOREIGN = 2, /* an index without it */
    IX_ALIAS = 3    /* an alias (never ours to delete: it names someone's indices) */
};

/* *state: what the cluster has under name (GET /<name>/_mapping). */
static int index_state(bf_es_t *es, const char *name, enum index_state *state, bf_diag_t *diag)
{
    *state = IX_NONE;
    long status = 0;
    const char *body = NULL;
    char *path = bf_asprintf("/%s/_mapping", name);
    int rc = bf_es_request(es, "GET", path, NULL, &status, &body, diag);
    free(path);
    if (rc != BF_OK)
        return rc;
    if (status == 404)
        return BF_OK;
    if (status != 200)
        return http_error(diag, "GET _mapping", es, status, body);
    json_t *j = json_loads(body ? body : "", 0, NULL);
    json_t *ix = json_object_get(j, name);
    if (ix == NULL)
        *state = json_object_size(j) > 0 ? IX_ALIAS : IX_NONE;
    else
        *state = meta_ours(json_object_get(json_object_get(ix, "mappings"), "_meta")) ? IX_OURS
                                                                                      : IX_FOREIGN;
    json_decref(j);
    return BF_OK;
}

/* Say, before it is deleted, what --replace-existing lets index.recreate delete (else an
 * index would go without a word): its kind, name and document count (GET _count;
 * "documents unknown" when it cannot be read) */
static void say_replacing(bf_es_t *es, const char *cell_id, const char *kind, const char *name)
{
    long status = 0;
    const char *body = NULL;
    bf_diag_t d = {0};
    char *path = bf_asprintf("/%s/_count", name);
    char docs[64] = "documents unknown";
    if (bf_es_request(es, "GET", path, NULL, &status, &body, &d) == BF_OK && status == 200) {
        json_t *j = json_loads(body ? body : "", 0, NULL);
        json_t *n = json_object_get(j, "count");
        if (json_is_integer(n))
            snprintf(docs, sizeof docs, "%lld documents", (long long)json_integer_value(n));
        json_decref(j);
    }
    free(path);
    bf_warn("cell %s: deleting %s %s on %s (%s), which bulkfleet did not create: "
            "--replace-existing %s",
            cell_id, kind, name, bf_es_host(es), docs, name);
}

static int refuse_index(bf_diag_t *diag, const bf_es_t *es, const char *cell_id, const char *name,
                        enum index_state state)
{
    return bf_diag_set(diag, BF_E_INVAL,
                       "cell %s: %s %s on %s exists and was not created by bulkfleet (its mappings "
                       "have no _meta.created_by: bulkfleet), so index.recreate: true will not "
                       "delete it; set index.recreate: false to load into it, run with "
                       "--replace-existing %s to delete and recreate it, or choose another "
                       "index.name",
                       cell_id, state == IX_ALIAS ? "alias" : "index", name, bf_es_host(es), name);
}

/* An existing index template `name` that bulkfleet did not make (nor owner allows) is not
 * replaced: BF_E_INVAL. */
static int template_owned(bf_es_t *es, const char *name, const bf_owner_t *owner, int say,
                          bf_diag_t *diag)
{
    long status = 0;
    const char *body = NULL;
    char *path = bf_asprintf("/_index_template/%s", name);
    int rc = bf_es_request(es, "GET", path, NULL, &status, &body, diag);
    free(path);
    if (rc != BF_OK || status == 404)
        return rc;
    if (status != 200)
        return http_error(diag, "GET _index_template", es, status, body);
    json_t *j = json_loads(body ? body : "", 0, NULL);
    json_t *t = json_array_get(json_object_get(j, "index_templates"), 0);
    int ours = meta_ours(json_object_get(json_object_get(t, "index_template"), "_meta"));
    json_decref(j);
    if (ours)
        return BF_OK;
    if (bf_owner_may_replace(owner, name)) {
        if (say) /* just before the PUT that replaces it, once */
            bf_warn("replacing index template %s on %s, which bulkfleet did not create: "
                    "--replace-existing %s",
                    name, bf_es_host(es), name);
        return BF_OK;
    }
    return bf_diag_set(diag, BF_E_INVAL,
                       "index template %s on %s exists and was not created by bulkfleet (no "
                       "_meta.created_by: bulkfleet), so index.template will not replace it; "
                       "give the template another name, or run with --replace-existing %s to "
                       "replace it",
                       name, bf_es_host(es), name);
}

/* A shipped template must not reach indices bulkfleet did not make: "*" is refused, and so is
 * a pattern that matches an existing index without the mark. */
static int template_patterns_owned(bf_es_t *es, const bf_index_spec_t *ix, const bf_owner_t *owner,
                                   bf_diag_t *diag)
{
    if (bf_owner_may_replace(owner, ix->template_name))
        return BF_OK;
    json_t *body = json_loads(ix->template_json, 0, NULL);
    json_t *pats = json_object_get(body, "index_patterns");
    json_t *list = json_is_string(pats) ? json_pack("[O]", pats) : json_incref(pats);
    int rc = BF_OK;
    size_t i;
    json_t *p;
    json_array_foreach(list, i, p)
    {
        const char *pat = json_string_value(p);
        if (pat == NULL || rc != BF_OK)
            continue;
        if (strspn(pat, "*") == strlen(pat)) {
            rc = bf_diag_set(diag, BF_E_INVAL,
                             "index template %s: index_patterns \"%s\" matches "
                             "every index on %s, and would change indices bulkfleet did not "
                             "make; give it a pattern of the campaign's own names (e.g. the "
                             "index.name prefix followed by *)",
                             ix->template_name, pat, bf_es_host(es));
            continue;
        }
        long status = 0;
        const char *rb = NULL;
        char *path = bf_asprintf("/%s/_mapping?allow_no_indices=true&ignore_unavailable=true", pat);
        rc = bf_es_request(es, "GET", path, NULL, &status, &rb, diag);
        free(path);
        if (rc != BF_OK)
            continue;
        if (status == 404)
            continue;
        if (status != 200) {
            rc = http_error(diag, "GET _mapping of the template's index_patterns", es, status, rb);
            continue;
        }
        json_t *j = json_loads(rb ? rb : "", 0, NULL);
        const char *k;
        json_t *v;
        json_object_foreach(j, k, v)
        {
            if (meta_ours(json_object_get(json_object_get(v, "mappings"), "_meta")) ||
                bf_owner_may_replace(owner, k))
                continue;
            rc = bf_diag_set(diag, BF_E_INVAL,
                             "index template %s: index_patterns \"%s\" matches "
                             "index %s on %s, which bulkfleet did not create; narrow the pattern "
                             "to the campaign's own names, or run with --replace-existing %s if "
                             "the template may apply to it",
                             ix->template_name, pat, k, bf_es_host(es), ix->template_name);
            break;
        }
        json_decref(j);
    }
    json_decref(list);
    json_decref(body);
    return rc;
}

/* The probe's note of what it waits for (bf_es tick, on the probing thread). */
typedef struct probe_note {
    const char *host; /* redacted URL */
    const char *what; /* "GET /" */
    uint64_t t0_us;   /* when `what` was sent */
    uint64_t next_ms; /* elapsed time of the next note */
    uint64_t timeout_ms;
} probe_note;

static void on_probe_tick(void *ctx)
{
    probe_note *p = ctx;
    if (p == NULL || p->what == NULL)
        return;
    uint64_t el_ms = (bf_clock_mono_us() - p->t0_us) / 1000u;
    if (el_ms < p->next_ms)
        return;
    char lim[32];
    bf_units_format_duration_ms(p->timeout_ms, lim, sizeof lim);
    bf_info("still waiting for the cluster: %s on %s has no answer after %llu s; giving up after "
            "request.timeout %s",
            p->what, p->host, (unsigned long long)(el_ms / 1000u), lim);
    p->next_ms = (el_ms / BF_PROBE_NOTE_MS + 1) * BF_PROBE_NOTE_MS;
}

static void probe_start(probe_note *p, const char *what)
{
    if (p == NULL)
        return;
    p->what = what;
    p->t0_us = bf_clock_mono_us();
    p->next_ms = BF_PROBE_NOTE_MS;
}

/* The server's reason for a 401/403: error.reason (root_cause first), a string "error", or the
 * body's first line; control characters dropped, at most 300 bytes. */
static void auth_reason(const char *body, char *out, size_t size)
{
    out[0] = '\0';
    json_t *j = json_loads(body ? body : "", 0, NULL);
    json_t *err = json_object_get(j, "error");
    const char *r = NULL;
    if (json_is_object(err)) {
        json_t *root = json_object_get(err, "root_cause");
        json_t *first = json_is_array(root) ? json_array_get(root, 0) : NULL;
        r = json_string_value(json_object_get(first, "reason"));
        if (r == NULL)
            r = json_string_value(json_object_get(err, "reason"));
    } else if (json_is_string(err)) {
        r = json_string_value(err);
    } else if (json_is_string(json_object_get(j, "message"))) {
        r = json_string_value(json_object_get(j, "message")); /* AWS's answers */
    } else if (json_is_string(json_object_get(j, "Message"))) {
        r = json_string_value(json_object_get(j, "Message"));
    } else if (j == NULL) {
        r = body; /* e.g. "Unauthorized" as text/plain */
    }
    size_t n = 0;
    for (const char *c = r; c && *c && *c != '\n' && n + 1 < size && n < 300; c++)
        if ((unsigned char)*c >= 0x20)
            out[n++] = *c;
    out[n] = '\0';
    json_decref(j);
}

/* What target.auth sent, for the 401/403 message. */
static const char *auth_sent(const bf_target_t *t, char *buf, size_t size)
{
    switch (t ? t->auth : BF_AUTH_NONE) {
    case BF_AUTH_BASIC:
        snprintf(buf, size, "target.auth sent user '%s' (basic)", t->username);
        break;
    case BF_AUTH_APIKEY: snprintf(buf, size, "target.auth sent an api_key"); break;
    case BF_AUTH_BEARER: snprintf(buf, size, "target.auth sent a bearer token"); break;
    case BF_AUTH_AWS:
        snprintf(buf, size, "target.auth.aws signed it for %s in %s", t->aws_service,
                 t->aws_region);
        break;
    case BF_AUTH_NONE:
    default: snprintf(buf, size, "no target.auth is set"); break;
    }
    return buf;
}

/* what a non-cluster answer looks like, for bf_cluster_root_check: an HTML page and its title,
 * JSON and its keys, or the first bytes of text */
static void describe_answer(const char *body, json_t *j, char *what, size_t size)
{
    while (body && (*body == ' ' || *body == '\t' || *body == '\r' || *body == '\n'))
        body++;
    if (body == NULL || body[0] == '\0') {
        snprintf(what, size, "an empty body");
        return;
    }
    if (json_is_object(j)) {
        /* at most 6 keys, each cut to 40 bytes: a message, not the answer */
        char keys[300] = "";
        size_t n = 0, len = 0;
        const char *k;
        json_t *v;
        json_object_foreach(j, k, v)
        {
            int w = n++ == 6
                        ? snprintf(keys + len, sizeof keys - len, ", ...")
                        : snprintf(keys + len, sizeof keys - len, "%s%.40s", n > 1 ? ", " : "", k);
            if (w < 0 || (size_t)w >= sizeof keys - len || n > 6)
                break;
            len += (size_t)w;
        }
        const char *miss = !json_is_string(json_object_get(json_object_get(j, "version"), "number"))
                               ? "version.number"
                               : "cluster_name";
        snprintf(what, size, "JSON without %s (its keys: %s)", miss, n ? keys : "none");
        return;
    }
    if (j != NULL) {
        snprintf(what, size, "JSON that is not an object");
        return;
    }
    const char *html = body[0] == '<' ? body : NULL;
    if (html != NULL) {
        char title[96] = "";
        const char *t = strstr(html, "<title>");
        if (t == NULL)
            t = strstr(html, "<TITLE>");
        if (t != NULL) {
            t += 7;
            size_t o = 0;
            while (*t && *t != '<' && o + 1 < sizeof title) {
                unsigned char c = (unsigned char)*t++;
                if (c < 0x20)
                    c = ' ';
                if (c == ' ' && (o == 0 || title[o - 1] == ' '))
                    continue;
                title[o++] = (char)c;
            }
            while (o > 0 && title[o - 1] == ' ')
                o--;
            title[o] = '\0';
        }
        if (title[0])
            snprintf(what, size, "an HTML page titled \"%s\"", title);
        else
            snprintf(what, size, "an HTML page (\"%.60s\")", body);
        for (char *c = what; *c; c++)
            if ((unsigned char)*c < 0x20)
                *c = ' ';
        return;
    }
    char text[81];
    size_t o = 0;
    for (; body[o] && o + 1 < sizeof text; o++)
        text[o] = (unsigned char)body[o] < 0x20 ? ' ' : body[o];
    text[o] = '\0';
    snprintf(what, size, "text \"%s%s\"", text, body[o] ? "..." : "");
}

int bf_cluster_root_check(long status, const char *body, char *what, size_t size)
{
    if (size > 0)
        what[0] = '\0';
    json_t *j = body ? json_loads(body, JSON_DECODE_ANY, NULL) : NULL;
    int ok;
    if (status != 200)
        ok = json_is_object(j) && json_object_get(j, "error") != NULL;
    else
        ok = json_is_object(j) && json_is_string(json_object_get(j, "cluster_name")) &&
             json_is_string(json_object_get(json_object_get(j, "version"), "number"));
    if (!ok && size > 0)
        describe_answer(body, j, what, size);
    json_decref(j);
    return ok;
}

static int info_impl(bf_es_t *es, const bf_target_t *t, bf_cluster_info_t *info, bf_diag_t *diag,
                     probe_note *note)
{
    memset(info, 0, sizeof *info);
    long status = 0;
    const char *body = NULL;
    probe_start(note, "GET /");
    int rc = bf_es_request(es, "GET", "/", NULL, &status, &body, diag);
    if (rc != BF_OK)
        return rc;
    if (status == 401 || status == 403) {
        char reason[320], sent[160];
        auth_reason(body, reason, sizeof reason);
        auth_sent(t, sent, sizeof sent);
        char hint[600];
        if (t && t->auth == BF_AUTH_AWS)
            bf_aws_auth_hint(t, reason, hint, sizeof hint);
        else
            snprintf(hint, sizeof hint, "%s",
                     status == 401 ? "check target.auth (username and password, api_key or "
                                     "bearer)"
                                   : "the credentials were refused for GET /: check "
                                     "target.auth and the user's roles");
        return bf_diag_set(diag, BF_E_HTTP,
                           "GET / on %s: HTTP %ld: authentication failed%s%s (%s); %s",
                           bf_es_host(es), status,
                           reason[0] ? ": " : " (the server gave no reason)", reason, sent, hint);
    }
    if (bf_target_serverless(t) && status != 200) {
        /* OpenSearch Serverless serves no GET / (and no _cluster/health): the signature was
         * accepted (no 401/403), which is what the probe is for */
        bf_strlcpy(info->version, "serverless", sizeof info->version);
        bf_strlcpy(info->distribution, "opensearch-serverless", sizeof info->distribution);
        return BF_OK;
    }
    char what[256];
    if (!bf_cluster_root_check(status, body, what, sizeof what))
        /* a proxy's page, a web server or another search engine is named here,
         * before any index is made or any load sent */
        return bf_diag_set(diag, BF_E_HTTP,
                           "GET / on %s answered HTTP %ld with %s: this is neither Elasticsearch "
                           "nor OpenSearch (their GET / is JSON with cluster_name and "
                           "version.number); check target.hosts (the node's HTTP address, e.g. "
                           "http://host:9200, not a proxy's or another service's)",
                           bf_es_host(es), status, what);
    if (status != 200)
        return http_error(diag, "GET /", es, status, body);
    json_t *j = json_loads(body, 0, NULL);
    json_t *ver = j ? json_object_get(j, "version") : NULL;
    const char *num = json_string_value(json_object_get(ver, "number"));
    const char *dist = json_string_value(json_object_get(ver, "distribution"));
    const char *name = json_string_value(json_object_get(j, "cluster_name"));
    bf_strlcpy(info->version, num ? num : "unknown", sizeof info->version);
    bf_strlcpy(info->distribution, dist ? dist : "elasticsearch", sizeof info->distribution);
    bf_strlcpy(info->cluster_name, name ? name : "", sizeof info->cluster_name);
    const char *uuid = json_string_value(json_object_get(j, "cluster_uuid"));
    bf_strlcpy(info->cluster_uuid, uuid ? uuid : "", sizeof info->cluster_uuid);
    const char *flavor = json_string_value(json_object_get(ver, "build_flavor"));
    bf_strlcpy(info->flavor, flavor ? flavor : "", sizeof info->flavor);
    json_decref(j);
    if (strcmp(info->flavor, "serverless") == 0)
        return BF_OK; /* Elastic Serverless: _cluster/health is not public (410), not asked */
    probe_start(note, "GET /_cluster/health");
    rc = bf_es_request(es, "GET", "/_cluster/health", NULL, &status, &body, diag);
    if (rc != BF_OK)
        return rc;
    j = json_loads(body, 0, NULL);
    info->nodes = (uint32_t)json_integer_value(json_object_get(j, "number_of_nodes"));
    info->data_nodes = (uint32_t)json_integer_value(json_object_get(j, "number_of_data_nodes"));
    json_decref(j);
    return BF_OK;
}

int bf_cluster_info(bf_es_t *es, bf_cluster_info_t *info, bf_diag_t *diag)
{
    return info_impl(es, bf_es_target(es), info, diag, NULL);
}

int bf_cluster_probe(const bf_target_t *target, size_t host_index, uint64_t timeout_ms,
                     bf_cluster_info_t *info, bf_diag_t *diag)
{
    bf_es_t *es = bf_es_new(target, host_index, (long)timeout_ms);
    probe_note note = {.host = bf_es_host(es), .timeout_ms = timeout_ms};
    bf_es_set_tick(es, on_probe_tick, &note, 250);
    bf_diag_t d = {0};
    int rc = info_impl(es, target, info, &d, &note);
    uint64_t el_ms = (bf_clock_mono_us() - note.t0_us) / 1000u; /* of the request that failed */
    uint64_t conn_ms = target->connect_timeout_ms ? target->connect_timeout_ms : 10000u;
    char lim[32];
    if (rc == BF_E_TRANSPORT && el_ms + 50 >= timeout_ms) {
        bf_units_format_duration_ms(timeout_ms, lim, sizeof lim);
        bf_diag_set(diag, rc,
                    "no answer within request.timeout %s (raise it for a slow "
                    "cluster): %s",
                    lim, d.msg);
    } else if (rc == BF_E_TRANSPORT && conn_ms < timeout_ms && el_ms + 50 >= conn_ms) {
        bf_units_format_duration_ms(conn_ms, lim, sizeof lim);
        bf_diag_set(diag, rc, "no connection within target.connect_timeout %s: %s", lim, d.msg);
    } else if (rc != BF_OK) {
        bf_diag_set(diag, rc, "%s", d.msg);
    }
    bf_es_destroy(&es);
    return rc;
}

/* Settings as flat dotted keys with the "index." prefix ({"index":{"a":1}} and {"a":1} both
 * give {"index.a":1}) added to out (later calls override earlier ones). */
static void flatten_settings(json_t *out, const char *prefix, json_t *obj)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v)
    {
        char *key = prefix[0] ? bf_asprintf("%s.%s", prefix, k)
                              : (strncmp(k, "index", 5) == 0 && (k[5] == '\0' || k[5] == '.')
                                     ? bf_strdup(k)
                                     : bf_asprintf("index.%s", k));
        if (json_is_object(v))
            flatten_settings(out, key, v);
        else
            json_object_set(out, key, v);
        free(key);
    }
}

/* The shipped template body of a data stream with the cell's settings (shards, replicas,
 * settings.* axes) put into template.settings, so the backing index gets them (a data stream
 * has no PUT /<index> of its own to carry them). Caller frees. */
static char *ds_template_body(const bf_index_spec_t *ix, const bf_cell_t *cell)
{
    json_t *body = json_loads(ix->template_json, 0, NULL);
    if (!json_is_object(body)) {
        json_decref(body);
        return bf_strdup(ix->template_json);
    }
    json_t *tmpl = json_object_get(body, "template");
    if (!json_is_object(tmpl)) {
        tmpl = json_object();
        json_object_set_new(body, "template", tmpl);
    }
    json_t *flat = json_object();
    flatten_settings(flat, "", json_object_get(tmpl, "settings"));
    json_t *cs = json_loads(cell->settings_json ? cell->settings_json : "{}", 0, NULL);
    flatten_settings(flat, "", cs);
    json_decref(cs);
    json_object_set_new(tmpl, "settings", flat);
    char *out = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    return out;
}

/* What the cluster has under a data stream name: *kind 0 nothing, 1 a data stream, 2 an index
 * or alias (GET /_data_stream answered 404, 405, or 200 with no stream), 3 nothing on a cluster
 * without the data stream API; *ours 1 when a backing index carries bulkfleet's _meta mark. */
static int ds_probe(bf_es_t *es, const char *name, int *kind, int *ours, bf_diag_t *diag)
{
    *kind = 0;
    *ours = 0;
    long status = 0;
    const char *body = NULL;
    char *path = bf_asprintf("/_data_stream/%s", name);
    int rc = bf_es_request(es, "GET", path, NULL, &status, &body, diag);
    free(path);
    if (rc != BF_OK)
        return rc;
    /* 404: no data stream of that name; 405: a cluster without the data stream API (an
     * Elasticsearch whose data-streams module is not installed, as the dev cluster built from
     * Maven Central), where none can exist. Either way `name` may be an index or an
     * alias. */
    if (status == 404 || status == 405) {
        int no_api = status == 405;
        path = bf_asprintf("/%s", name);
        rc = bf_es_request(es, "HEAD", path, NULL, &status, &body, diag);
        free(path);
        if (rc == BF_OK)
            *kind = status == 200 ? 2 : no_api ? 3 : 0;
        return rc;
    }
    if (status != 200)
        return http_error(diag, "GET _data_stream", es, status, body);
    /* Elasticsearch answers a concrete name that is an index, not a data stream, with 200 and
     * an empty "data_streams" list (seen on 8.17.0): that name is an index, not a stream. */
    json_t *got = json_loads(body, 0, NULL);
    size_t nds = json_array_size(json_object_get(got, "data_streams"));
    int listed = json_is_array(json_object_get(got, "data_streams"));
    json_decref(got);
    if (listed && nds == 0) {
        path = bf_asprintf("/%s", name);
        rc = bf_es_request(es, "HEAD", path, NULL, &status, &body, diag);
        free(path);
        if (rc == BF_OK)
            *kind = status == 200 ? 2 : 0;
        return rc;
    }
    *kind = 1;
    path = bf_asprintf("/%s/_mapping", name);
    rc = bf_es_request(es, "GET", path, NULL, &status, &body, diag);
    free(path);
    if (rc != BF_OK)
        return rc;
    json_t *j = status == 200 ? json_loads(body, 0, NULL) : NULL;
    const char *k;
    json_t *v;
    json_object_foreach(j, k, v)
    {
        if (meta_ours(json_object_get(json_object_get(v, "mappings"), "_meta")))
            *ours = 1;
    }
    json_decref(j);
    return BF_OK;
}

/* Prepare data stream `name`: with recreate, delete it when bulkfleet made it (refuse when it
 * did not); create it when missing (PUT /_data_stream) and mark it as bulkfleet's. */
static int ds_prepare(bf_es_t *es, const bf_index_spec_t *ix, const bf_cell_t *cell,
                      const char *name, const bf_owner_t *owner, bf_diag_t *diag)
{
    int kind, ours;
    int rc = ds_probe(es, name, &kind, &ours, diag);
    if (rc != BF_OK)
        return rc;
    long status = 0;
    const char *body = NULL;
    if (kind == 3)
        return bf_diag_set(diag, BF_E_INVAL,
                           "cell %s: %s answers GET /_data_stream/%s with HTTP "
                           "405: this cluster has no data stream API (an Elasticsearch without "
                           "its data-streams module); index into a plain index (drop "
                           "index.data_stream)",
                           cell->id, bf_es_host(es), name);
    if (kind == 2)
        return bf_diag_set(diag, BF_E_INVAL,
                           "cell %s: %s on %s is an index or alias, not a data "
                           "stream (index.data_stream): it is not deleted; delete it yourself "
                           "or choose another index.name",
                           cell->id, name, bf_es_host(es));
    if (kind == 1 && ix->recreate) {
        if (!ours && !bf_owner_may_replace(owner, name))
            return bf_diag_set(diag, BF_E_INVAL,
                               "cell %s: data stream %s on %s was not created "
                               "by bulkfleet, so index.recreate does not delete it; delete it "
                               "yourself (DELETE /_data_stream/%s) or run with "
                               "--replace-existing %s, set index.recreate: false to write into "
                               "it, or choose another index.name",
                               cell->id, name, bf_es_host(es), name, name);
        if (!ours)
            say_replacing(es, cell->id, "data stream", name);
        char *path = bf_asprintf("/_data_stream/%s", name);
        rc = bf_es_request(es, "DELETE", path, NULL, &status, &body, diag);
        free(path);
        if (rc == BF_OK && status != 200 && status != 404)
            rc = http_error(diag, "DELETE _data_stream", es, status, body);
        if (rc != BF_OK)
            return rc;
        kind = 0;
    }
    if (kind == 1)
        return BF_OK; /* recreate: false: write into the existing stream */
    char *path = bf_asprintf("/_data_stream/%s", name);
    rc = bf_es_request(es, "PUT", path, NULL, &status, &body, diag);
    free(path);
    if (rc != BF_OK)
        return rc;
    if (status != 200) {
        char what[300];
        snprintf(what, sizeof what,
                 "cell %s: creating data stream %s (it needs an index "
                 "template with \"data_stream\": {} whose index_patterns match it; "
                 "index.template ships one)",
                 cell->id, name);
        return http_error(diag, what, es, status, body);
    }
    path = bf_asprintf("/%s/_mapping", name);
    json_t *mk = json_object();
    mark_into(mk, owner);
    char *mtext = json_dumps(mk, JSON_COMPACT);
    json_decref(mk);
    rc = bf_es_request(es, "PUT", path, mtext, &status, &body, diag);
    free(mtext);
    free(path);
    if (rc == BF_OK && status != 200)
        rc = http_error(diag, "marking the data stream (PUT _mapping _meta)", es, status, body);
    return rc;
}

/* The cell's ingest pipelines: index.pipeline(_file) put under request.pipeline (deleted
 * first with recreate, like the index), then request.pipeline and a document.pipeline without
 * placeholders must exist (GET /_ingest/pipeline/<name>), so a typo fails the cell at once
 * instead of failing every document. */
static int prepare_pipelines(bf_es_t *es, const bf_scenario_t *sc, const bf_cell_t *cell,
                             bf_diag_t *diag)
{
    const bf_index_spec_t *ix = bf_scenario_index(sc);
    const char *req = bf_scenario_request(sc)->pipeline;
    const char *doc = bf_scenario_document(sc)->pipeline;
    long status = 0;
    const char *body = NULL;
    int rc;
    if (ix->pipeline_json && req) {
        char *path = bf_asprintf("/_ingest/pipeline/%s", req);
        if (ix->recreate) {
            rc = bf_es_request(es, "DELETE", path, NULL, &status, &body, diag);
            if (rc == BF_OK && status != 200 && status != 404)
                rc = http_error(diag, "DELETE _ingest/pipeline", es, status, body);
            if (rc != BF_OK) {
                free(path);
                return rc;
            }
        }
        rc = bf_es_request(es, "PUT", path, ix->pipeline_json, &status, &body, diag);
        free(path);
        if (rc != BF_OK)
            return rc;
        if (status != 200) {
            char what[300];
            snprintf(what, sizeof what,
                     "cell %s: creating ingest pipeline %s from "
                     "index.pipeline(_file)",
                     cell->id, req);
            return http_error(diag, what, es, status, body);
        }
    }
    const char *names[2] = {req, doc && !strstr(doc, "$[[") ? doc : NULL};
    const char *keys[2] = {"request.pipeline", "document.pipeline"};
    for (int i = 0; i < 2; i++) {
        if (names[i] == NULL)
            continue;
        char *path = bf_asprintf("/_ingest/pipeline/%s", names[i]);
        rc = bf_es_request(es, "GET", path, NULL, &status, &body, diag);
        free(path);
        if (rc != BF_OK)
            return rc;
        if (status == 404)
            return bf_diag_set(diag, BF_E_INVAL,
                               "cell %s: %s '%s' does not exist on %s: every "
                               "document would fail; create it (PUT /_ingest/pipeline/%s), ship "
                               "its definition in index.pipeline_file, or fix the name",
                               cell->id, keys[i], names[i], bf_es_host(es), names[i]);
        if (status != 200)
            return http_error(diag, "GET _ingest/pipeline", es, status, body);
    }
    return BF_OK;
}

/* the template body to PUT: the cell's settings for data streams, and the mark at the top and
 * in template.mappings; caller frees */
static char *template_marked(const bf_index_spec_t *ix, const bf_cell_t *cell,
                             const bf_owner_t *owner)
{
    char *text = ix->data_stream ? ds_template_body(ix, cell) : bf_strdup(ix->template_json);
    json_t *body = json_loads(text, 0, NULL);
    if (!json_is_object(body)) {
        json_decref(body);
        return text;
    }
    free(text);
    mark_into(body, owner);
    json_t *tmpl = json_object_get(body, "template");
    if (!json_is_object(tmpl)) {
        tmpl = json_object();
        json_object_set_new(body, "template", tmpl);
    }
    json_t *mappings = json_object_get(tmpl, "mappings");
    if (!json_is_object(mappings)) {
        mappings = json_object();
        json_object_set_new(tmpl, "mappings", mappings);
    }
    mark_into(mappings, owner);
    char *out = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    return out;
}

/* The replicas the cluster must allocate for the cell's indices: with index.recreate false (or a
 * data stream, whose settings the cluster's template may decide) an index may already exist with
 * its own number_of_replicas, which the cell's replicas do not change (a kept
 * 1-replica index on one node was waited on for 2 minutes, then reported as "replicas 0").
 * Reads GET <indices>/_settings/index.number_of_replicas once; *replicas = the largest, *which =
 * the index that has it (caller frees). Returns 1 when read, 0 when not (the cell's count then
 * stands). */
static int real_replicas(bf_es_t *es, const char *names, uint32_t *replicas, char **which)
{
    char *path = bf_asprintf("/%s/_settings/index.number_of_replicas", names);
    long status = 0;
    const char *body = NULL;
    bf_diag_t d = {0};
    int rc = bf_es_request(es, "GET", path, NULL, &status, &body, &d);
    free(path);
    *which = NULL;
    if (rc != BF_OK || status != 200 || body == NULL)
        return 0;
    json_t *j = json_loads(body, 0, NULL);
    const char *k;
    json_t *v;
    int found = 0;
    json_object_foreach(j, k, v)
    {
        const char *re = json_string_value(json_object_get(
            json_object_get(json_object_get(v, "settings"), "index"), "number_of_replicas"));
        if (re == NULL)
            continue;
        uint32_t n = (uint32_t)strtoul(re, NULL, 10);
        if (!found || n > *replicas) {
            *replicas = n;
            free(*which);
            *which = bf_strdup(k);
        }
        found = 1;
    }
    json_decref(j);
    return found;
}

/* "no handler for type [scaled_float] declared on field [x]": the module to name, or NULL */
static const char *missing_module(const char *body, char *type, size_t type_size)
{
    /* OpenSearch 2.x says "no handler", older versions and Elasticsearch "No handler" */
    const char *p = body ? strstr(body, "o handler for type [") : NULL;
    if (p == NULL)
        return NULL;
    p += strlen("o handler for type [");
    size_t n = strcspn(p, "]");
    if (n == 0 || n >= type_size)
        return NULL;
    memcpy(type, p, n);
    type[n] = '\0';
    return bf_cluster_type_module(type);
}

int bf_cluster_prepare_cell_tick(bf_es_t *es, const bf_scenario_t *sc, const bf_cell_t *cell,
                                 const bf_owner_t *owner, uint32_t data_nodes, uint64_t wait_ms,
                                 int *yellow, void (*tick)(void *ctx), void *tick_ctx,
                                 bf_diag_t *diag)
{
    const bf_index_spec_t *ix = bf_scenario_index(sc);
    long status = 0;
    const char *body = NULL;
    int rc;
    *yellow = 0;
    rc = prepare_pipelines(es, sc, cell, diag);
    if (rc != BF_OK)
        return rc;
    if (ix->template_json && ix->template_name) {
        rc = template_owned(es, ix->template_name, owner, 1, diag);
        if (rc != BF_OK)
            return rc;
        char *path = bf_asprintf("/_index_template/%s", ix->template_name);
        char *tb = template_marked(ix, cell, owner);
        rc = bf_es_request(es, "PUT", path, tb, &status, &body, diag);
        free(tb);
        free(path);
        if (rc != BF_OK)
            return rc;
        /* Elasticsearch 7.x without x-pack (the 7.17 dev cluster): its templates know no
         * data_stream key, and /_data_stream answers 405 */
        if (status == 400 && ix->data_stream && body && strstr(body, "unknown field [data_stream]"))
            return bf_diag_set(diag, BF_E_INVAL,
                               "cell %s: %s has no data streams (PUT _index_template: \"unknown "
                               "field [data_stream]\"): on Elasticsearch 7.x they are x-pack's, "
                               "which the Elasticsearch 7.17 dev cluster has not; run the "
                               "scenario with index.data_stream: false, or against OpenSearch "
                               "(1.x and later), Elasticsearch 8+ or a 7.x with x-pack",
                               cell->id, bf_es_host(es));
        if (status != 200)
            return http_error(diag, "PUT _index_template", es, status, body);
    }
    for (uint32_t i = 0; i < cell->indices; i++) {
        const char *name = cell->index_names[i];
        if (ix->data_stream) {
            rc = ds_prepare(es, ix, cell, name, owner, diag);
            if (rc != BF_OK)
                return rc;
            continue;
        }
        char *path = bf_asprintf("/%s", name);
        if (ix->recreate) {
            /* only what bulkfleet made, or what --replace-existing names */
            enum index_state state = IX_NONE;
            rc = index_state(es, name, &state, diag);
            if (rc == BF_OK && (state == IX_FOREIGN || state == IX_ALIAS) &&
                !bf_owner_may_replace(owner, name))
                rc = refuse_index(diag, es, cell->id, name, state);
            if (rc != BF_OK) {
                free(path);
                return rc;
            }
            if (state == IX_FOREIGN || state == IX_ALIAS)
                say_replacing(es, cell->id, state == IX_ALIAS ? "alias" : "index", name);
            rc = bf_es_request(es, "DELETE", path, NULL, &status, &body, diag);
            if (rc == BF_OK && status != 200 && status != 404)
                rc = http_error(diag, "DELETE index", es, status, body);
            if (rc != BF_OK) {
                free(path);
                return rc;
            }
        }
        bf_buf_t b;
        bf_buf_init(&b, 0);
        bf_buf_appendf(&b, "{\"settings\":%s", cell->settings_json ? cell->settings_json : "{}");
        char *mappings = mappings_marked(ix->mappings_json, owner);
        if (mappings)
            bf_buf_appendf(&b, ",\"mappings\":%s", mappings);
        free(mappings);
        bf_buf_appendz(&b, "}");
        rc = bf_es_request(es, "PUT", path, b.data, &status, &body, diag);
        bf_buf_cleanup(&b);
        free(path);
        if (rc != BF_OK)
            return rc;
        if (status == 400 && !ix->recreate && body && strstr(body, "resource_already_exists"))
            continue;
        if (status == 400 && body && strstr(body, "creates data streams only"))
            return bf_diag_set(diag, BF_E_INVAL,
                               "cell %s: %s on %s matches an index template "
                               "that creates data streams only; set index.data_stream: true "
                               "(bulkfleet then creates the data stream and sends action "
                               "create)",
                               cell->id, name, bf_es_host(es));
        char type[64];
        const char *module = status == 400 ? missing_module(body, type, sizeof type) : NULL;
        if (module)
            return bf_diag_set(diag, BF_E_INVAL,
                               "cell %s: creating index %s on %s: the mappings "
                               "use field type %s, which the cluster lacks: it comes from the "
                               "module %s (docs/development.md lists what each dev cluster of "
                               "scripts/devcluster.sh lacks); run against a dev cluster that "
                               "has it or a full OpenSearch or Elasticsearch distribution, or "
                               "change the type in the mappings",
                               cell->id, name, bf_es_host(es), type, module);
        char hint[900];
        if (status == 400 && bf_cluster_analysis_hint(body, hint, sizeof hint))
            return bf_diag_set(diag, BF_E_INVAL, "cell %s: creating index %s on %s: %s", cell->id,
                               name, bf_es_host(es), hint);
        if (status != 200) {
            char what[300];
            snprintf(what, sizeof what, "cell %s: creating index %s", cell->id, name);
            return http_error(diag, what, es, status, body);
        }
    }
    if (bf_target_managed(bf_es_target(es)))
        return BF_OK; /* a collection or project has no public _cluster/health: its indices
                         are usable once made */
    char *names = index_list(cell);
    /* what must be allocated: the indices' own replicas when they may be someone else's */
    uint32_t replicas = cell->replicas;
    char *holder = NULL;
    if ((!ix->recreate || ix->data_stream) && real_replicas(es, names, &replicas, &holder) &&
        replicas != cell->replicas && data_nodes > 0 && replicas + 1 > data_nodes)
        bf_warn("cell %s: index %s already exists with %u replicas (%s, and the cell's "
                "replicas %u do not apply to it): each shard's %u copies need %u data nodes, "
                "the cluster has %u, so the index stays yellow; the cell runs at once and is "
                "flagged yellow. To measure without unassigned replicas, set "
                "index.recreate: true, or PUT /%s/_settings {\"index\": "
                "{\"number_of_replicas\": %u}}",
                cell->id, holder, replicas,
                ix->recreate ? "a data stream's backing index: the cluster's index template "
                               "set them"
                             : "index.recreate is false, so it is kept",
                cell->replicas, replicas + 1, replicas + 1, data_nodes, holder,
                cell->replicas < data_nodes ? cell->replicas : data_nodes - 1);
    else if (data_nodes > 0 && replicas + 1 > data_nodes)
        bf_warn("cell %s: %u replicas need %u data nodes, the cluster has %u: the indices will be "
                "yellow (unassigned replicas); the cell runs and is flagged yellow",
                cell->id, replicas, replicas + 1, data_nodes);
    int never_green = data_nodes > 0 && replicas + 1 > data_nodes;
    /* wait in steps of at most 1 s so the caller's tick (the coordinator's fleet loop) keeps
     * heartbeats flowing while a large index allocates; a line every 10 s says what is awaited */
    uint64_t waited_ms = 0, said_ms = 0;
    json_t *j = NULL;
    const char *st = NULL;
    for (;;) {
        uint64_t step_ms = wait_ms - waited_ms < 1000 ? wait_ms - waited_ms : 1000;
        char *path = bf_asprintf("/_cluster/health/%s?wait_for_status=%s&timeout=%llums", names,
                                 never_green ? "yellow" : "green", (unsigned long long)step_ms);
        uint64_t t0 = bf_clock_mono_us();
        rc = bf_es_request(es, "GET", path, NULL, &status, &body, diag);
        free(path);
        if (rc != BF_OK)
            break;
        json_decref(j);
        j = json_loads(body, 0, NULL);
        st = json_string_value(json_object_get(j, "status"));
        int timed_out = json_is_true(json_object_get(j, "timed_out"));
        waited_ms += (bf_clock_mono_us() - t0) / 1000u + 1;
        if (!timed_out || waited_ms >= wait_ms)
            break;
        if (waited_ms - said_ms >= BF_CLUSTER_WAIT_SAY_MS) {
            said_ms = waited_ms;
            bf_info("cell %s: waiting for indices %s to turn %s (%s now, %lld unassigned "
                    "shards; %llu of at most %llu s)",
                    cell->id, names, never_green ? "yellow" : "green", st ? st : "unknown",
                    (long long)json_integer_value(json_object_get(j, "unassigned_shards")),
                    (unsigned long long)(waited_ms / 1000u), (unsigned long long)(wait_ms / 1000u));
        }
        if (tick)
            tick(tick_ctx);
    }
    if (rc == BF_OK) {
        if (st && strcmp(st, "green") == 0) {
            *yellow = 0;
        } else if (st && strcmp(st, "yellow") == 0 && never_green) {
            *yellow = 1;
        } else if (st && strcmp(st, "yellow") == 0) {
            *yellow = 1;
            if (data_nodes > 0)
                bf_warn("cell %s: indices %s stay yellow after %llu s (replicas %u on %u data "
                        "nodes could not all be allocated: check the shard allocation, e.g. GET "
                        "_cluster/allocation/explain); the cell runs and is flagged yellow",
                        cell->id, names, (unsigned long long)(waited_ms / 1000u), replicas,
                        data_nodes);
            else
                bf_warn("cell %s: indices %s stay yellow after %llu s (replicas %u could not all "
                        "be allocated; the number of data nodes is unknown); the cell runs and is "
                        "flagged yellow",
                        cell->id, names, (unsigned long long)(waited_ms / 1000u), replicas);
        } else {
            rc = bf_diag_set(diag, BF_E_TIMEOUT,
                             "cell %s: indices %s are %s after %llu ms; check "
                             "the cluster's disk and shard limits",
                             cell->id, names, st ? st : "unknown", (unsigned long long)wait_ms);
        }
    }
    free(holder);
    json_decref(j);
    free(names);
    return rc;
}

int bf_cluster_prepare_cell(bf_es_t *es, const bf_scenario_t *sc, const bf_cell_t *cell,
                            const bf_owner_t *owner, uint32_t data_nodes, uint64_t wait_ms,
                            int *yellow, bf_diag_t *diag)
{
    return bf_cluster_prepare_cell_tick(es, sc, cell, owner, data_nodes, wait_ms, yellow, NULL,
                                        NULL, diag);
}

/* 1 when name is an index, data stream or the index template of a selected cell */
static int names_a_cell(const bf_scenario_t *sc, const uint8_t *selected, const char *name)
{
    const bf_index_spec_t *ix = bf_scenario_index(sc);
    if (ix->template_json && ix->template_name && strcmp(ix->template_name, name) == 0)
        return 1;
    for (size_t k = 0; k < bf_scenario_cell_count(sc); k++) {
        const bf_cell_t *cell = bf_scenario_cell(sc, k);
        for (uint32_t i = 0; (!selected || selected[k]) && i < cell->indices; i++)
            if (strcmp(cell->index_names[i], name) == 0)
                return 1;
    }
    return 0;
}

int bf_cluster_check_owned(bf_es_t *es, const bf_scenario_t *sc, const uint8_t *selected,
                           const bf_owner_t *owner, bf_diag_t *diag)
{
    const bf_index_spec_t *ix = bf_scenario_index(sc);
    int rc = BF_OK;
    for (size_t i = 0; owner && i < owner->nreplace; i++) {
        /* a typo would replace nothing and say nothing */
        if (owner->replace[i] == NULL || names_a_cell(sc, selected, owner->replace[i]))
            continue;
        const bf_cell_t *c0 = bf_scenario_cell_count(sc) ? bf_scenario_cell(sc, 0) : NULL;
        bf_warn("--replace-existing %s: no cell of this run writes an index, data stream or "
                "index template of that name, so it replaces nothing; names are exact (the "
                "first cell's index is %s; `plan` lists every cell)",
                owner->replace[i], c0 && c0->indices ? c0->index_names[0] : "-");
    }
    if (ix->template_json && ix->template_name) {
        rc = template_owned(es, ix->template_name, owner, 0, diag);
        if (rc == BF_OK)
            rc = template_patterns_owned(es, ix, owner, diag);
        if (rc != BF_OK)
            return rc;
    }
    if (!ix->recreate)
        return BF_OK; /* nothing is deleted: the documents go into what is there */
    bf_strmap_t seen;
    bf_strmap_init(&seen);
    for (size_t k = 0; k < bf_scenario_cell_count(sc) && rc == BF_OK; k++) {
        if (selected && !selected[k])
            continue;
        const bf_cell_t *cell = bf_scenario_cell(sc, k);
        for (uint32_t i = 0; i < cell->indices && rc == BF_OK; i++) {
            const char *name = cell->index_names[i];
            size_t len = strlen(name);
            if (bf_strmap_get(&seen, name, len) || bf_owner_may_replace(owner, name))
                continue;
            bf_strmap_put(&seen, name, len, (void *)cell);
            if (ix->data_stream) {
                int kind, ours;
                rc = ds_probe(es, name, &kind, &ours, diag);
                if (rc == BF_OK && kind == 1 && !ours)
                    rc = bf_diag_set(diag, BF_E_INVAL,
                                     "cell %s: data stream %s on %s was not "
                                     "created by bulkfleet, so index.recreate does not delete "
                                     "it; set index.recreate: false to write into it, run with "
                                     "--replace-existing %s, or choose another index.name",
                                     cell->id, name, bf_es_host(es), name);
                else if (rc == BF_OK && kind == 2)
                    rc = bf_diag_set(diag, BF_E_INVAL,
                                     "cell %s: %s on %s is an index or alias, "
                                     "not a data stream (index.data_stream): it is not deleted; "
                                     "delete it yourself or choose another index.name",
                                     cell->id, name, bf_es_host(es));
                continue;
            }
            enum index_state state = IX_NONE;
            rc = index_state(es, name, &state, diag);
            if (rc == BF_OK && (state == IX_FOREIGN || state == IX_ALIAS))
                rc = refuse_index(diag, es, cell->id, name, state);
        }
    }
    bf_strmap_cleanup(&seen);
    return rc;
}

int bf_cluster_production_like(const char *name)
{
    static const char *const prefixes[] = {
        "logs",       "logstash",  "filebeat",   "metricbeat", "metrics", "traces",   "apm",
        "winlogbeat", "auditbeat", "packetbeat", "heartbeat",  "kibana",  "security", "audit"};
    if (name == NULL || name[0] == '\0')
        return 0;
    if (name[0] == '.' || strspn(name, "*") == strlen(name))
        return 1;
    if (strstr(name, "prod") != NULL)
        return 1;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t n = strlen(prefixes[i]);
        if (strncmp(name, prefixes[i], n) == 0 &&
            (name[n] == '\0' || name[n] == '-' || name[n] == '_' || name[n] == '*' ||
             name[n] == '.'))
            return 1;
    }
    return 0;
}

int64_t bf_cluster_search_total(bf_es_t *es, const bf_cell_t *cell)
{
    if (bf_target_managed(bf_es_target(es)))
        return -1; /* no public _stats on OpenSearch or Elastic Serverless */
    char *names = index_list(cell);
    char *path = bf_asprintf("/%s/_stats/search", names);
    long status = 0;
    const char *body = NULL;
    bf_diag_t d = {0};
    int64_t total = -1;
    if (bf_es_request(es, "GET", path, NULL, &status, &body, &d) == BF_OK && status == 200) {
        json_t *j = json_loads(body, 0, NULL);
        json_t *v = json_object_get(
            json_object_get(json_object_get(json_object_get(j, "_all"), "total"), "search"),
            "query_total");
        if (json_is_integer(v) && json_integer_value(v) >= 0)
            total = (int64_t)json_integer_value(v);
        json_decref(j);
    }
    free(path);
    free(names);
    return total;
}

int bf_cluster_store_bytes(bf_es_t *es, const bf_cell_t *cell, int64_t *bytes, bf_diag_t *diag)
{
    static const char *const steps[] = {"_refresh", "_flush"};
    if (bf_target_serverless(bf_es_target(es)))
        return bf_diag_set(diag, BF_E_STATE,
                           "OpenSearch Serverless has no _refresh, _flush or _stats (a "
                           "collection's storage is not the client's to see)");
    if (bf_target_managed(bf_es_target(es)))
        return bf_diag_set(diag, BF_E_STATE,
                           "Elastic Serverless does not make _flush or _stats public (a "
                           "project's storage is not the client's to see); skipped, as Rally "
                           "skips non-public operations");
    char *names = index_list(cell);
    long status = 0;
    const char *body = NULL;
    int rc = BF_OK;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0] && rc == BF_OK; i++) {
        char *path = bf_asprintf("/%s/%s", names, steps[i]);
        rc = bf_es_request(es, "POST", path, NULL, &status, &body, diag);
        free(path);
        if (rc == BF_OK && status != 200)
            rc = http_error(diag, steps[i], es, status, body);
    }
    if (rc == BF_OK) {
        char *path = bf_asprintf("/%s/_stats/store", names);
        rc = bf_es_request(es, "GET", path, NULL, &status, &body, diag);
        free(path);
        if (rc == BF_OK && status != 200)
            rc = http_error(diag, "_stats/store", es, status, body);
    }
    if (rc == BF_OK) {
        json_t *j = json_loads(body, 0, NULL);
        json_t *store =
            json_object_get(json_object_get(json_object_get(j, "_all"), "primaries"), "store");
        json_t *size = json_object_get(store, "size_in_bytes");
        if (json_is_integer(size) && json_integer_value(size) >= 0)
            *bytes = (int64_t)json_integer_value(size);
        else
            rc = bf_diag_set(diag, BF_E_PARSE,
                             "_stats/store on %s: no "
                             "_all.primaries.store.size_in_bytes in the response",
                             bf_es_host(es));
        json_decref(j);
    }
    free(names);
    return rc;
}

int bf_cluster_segments(bf_es_t *es, const bf_cell_t *cell, int64_t *count, bf_diag_t *diag)
{
    char *names = index_list(cell);
    char *path = bf_asprintf("/%s/_stats/segments", names);
    free(names);
    long status = 0;
    const char *body = NULL;
    int rc = bf_es_request(es, "GET", path, NULL, &status, &body, diag);
    free(path);
    if (rc == BF_OK && status != 200)
        return http_error(diag, "_stats/segments", es, status, body);
    if (rc != BF_OK)
        return rc;
    json_t *j = json_loads(body, 0, NULL);
    json_t *n = json_object_get(
        json_object_get(json_object_get(json_object_get(j, "_all"), "primaries"), "segments"),
        "count");
    if (json_is_integer(n) && json_integer_value(n) >= 0)
        *count = (int64_t)json_integer_value(n);
    else
        rc = bf_diag_set(diag, BF_E_PARSE,
                         "_stats/segments on %s: no _all.primaries.segments.count in the "
                         "response",
                         bf_es_host(es));
    json_decref(j);
    return rc;
}

int bf_cluster_force_merge(bf_es_t *es, const bf_cell_t *cell, uint32_t max_segments,
                           long timeout_ms, double *seconds, bf_diag_t *diag)
{
    char *names = index_list(cell);
    uint64_t t0 = bf_clock_mono_us();
    long status = 0;
    const char *body = NULL;
    char *path = bf_asprintf("/%s/_forcemerge?max_num_segments=%u", names, max_segments);
    long old = bf_es_set_timeout(es, timeout_ms);
    int rc = bf_es_request(es, "POST", path, NULL, &status, &body, diag);
    bf_es_set_timeout(es, old);
    free(path);
    if (rc == BF_OK && status != 200)
        rc = http_error(diag, "_forcemerge", es, status, body);
    if (rc == BF_OK) {
        path = bf_asprintf("/%s/_refresh", names);
        rc = bf_es_request(es, "POST", path, NULL, &status, &body, diag);
        free(path);
        if (rc == BF_OK && status != 200)
            rc = http_error(diag, "_refresh", es, status, body);
    }
    free(names);
    *seconds = (double)(bf_clock_mono_us() - t0) / 1e6;
    return rc;
}

int bf_cluster_count(bf_es_t *es, const bf_cell_t *cell, int64_t *count, bf_diag_t *diag)
{
    char *names = index_list(cell);
    long status = 0;
    const char *body = NULL;
    int rc = BF_OK;
    if (!bf_target_serverless(bf_es_target(es))) { /* a collection has no _refresh */
        char *path = bf_asprintf("/%s/_refresh", names);
        rc = bf_es_request(es, "POST", path, NULL, &status, &body, diag);
        free(path);
        if (rc == BF_OK && status != 200)
            rc = http_error(diag, "_refresh", es, status, body);
    }
    if (rc == BF_OK) {
        char *path = bf_asprintf("/%s/_count", names);
        rc = bf_es_request(es, "GET", path, NULL, &status, &body, diag);
        free(path);
        if (rc == BF_OK && status != 200)
            rc = http_error(diag, "_count", es, status, body);
        if (rc == BF_OK) {
            json_t *j = json_loads(body, 0, NULL);
            json_t *c = json_object_get(j, "count");
            json_t *sh = json_object_get(j, "_shards");
            json_int_t failed = json_integer_value(json_object_get(sh, "failed"));
            if (!json_is_integer(c)) {
                rc = bf_diag_set(diag, BF_E_PARSE, "_count on %s: no count in the response",
                                 bf_es_host(es));
            } else if (failed > 0) {
                /* a 200 with shard failures (a primary unassigned or failing): the count
                 * lacks those shards' documents, and a row compared with it would blame
                 * duplicate ids or deletes (docs/internals/es-api.md: _shards in search answers) */
                json_t *f0 = json_array_get(json_object_get(sh, "failures"), 0);
                json_t *why = json_object_get(json_object_get(f0, "reason"), "reason");
                rc = bf_diag_set(diag, BF_E_PARSE,
                                 "_count on %s answered for %lld of %lld shards (%lld failed%s%s): "
                                 "a partial count; check the indices' health "
                                 "(GET _cluster/health?level=indices)",
                                 bf_es_host(es),
                                 (long long)json_integer_value(json_object_get(sh, "successful")),
                                 (long long)json_integer_value(json_object_get(sh, "total")),
                                 (long long)failed, json_is_string(why) ? ": " : "",
                                 json_is_string(why) ? json_string_value(why) : "");
            } else {
                *count = (int64_t)json_integer_value(c);
            }
            json_decref(j);
        }
    }
    free(names);
    return rc;
}

int bf_cluster_delete_cell(bf_es_t *es, const bf_cell_t *cell, bf_diag_t *diag)
{
    int rc = BF_OK;
    for (uint32_t i = 0; i < cell->indices && rc == BF_OK; i++) {
        int kind, ours;
        rc = ds_probe(es, cell->index_names[i], &kind, &ours, diag);
        if (rc != BF_OK || kind != 1)
            continue;
        if (!ours) {
            bf_warn("cell %s: data stream %s was not created by bulkfleet: left in place", cell->id,
                    cell->index_names[i]);
            continue;
        }
        char *path = bf_asprintf("/_data_stream/%s", cell->index_names[i]);
        long status = 0;
        const char *body = NULL;
        rc = bf_es_request(es, "DELETE", path, NULL, &status, &body, diag);
        free(path);
        if (rc == BF_OK && status != 200 && status != 404)
            rc = http_error(diag, "DELETE _data_stream", es, status, body);
    }
    for (uint32_t i = 0; i < cell->indices && rc == BF_OK; i++) {
        enum index_state state = IX_NONE;
        rc = index_state(es, cell->index_names[i], &state, diag);
        if (rc != BF_OK || state == IX_NONE)
            continue;
        if (state != IX_OURS) {
            bf_warn("cell %s: %s was not created by bulkfleet: left in place", cell->id,
                    cell->index_names[i]);
            continue;
        }
        char *path = bf_asprintf("/%s", cell->index_names[i]);
        long status = 0;
        const char *body = NULL;
        rc = bf_es_request(es, "DELETE", path, NULL, &status, &body, diag);
        if (rc == BF_OK && status != 200 && status != 404)
            rc = http_error(diag, "DELETE index", es, status, body);
        free(path);
    }
    return rc;
}

int64_t bf_cluster_baseline(bf_es_t *es, const bf_scenario_t *sc, const bf_cell_t *cell)
{
    /* a search section may fill (prefill) or keep (search-only cells) a recreated index */
    if (bf_scenario_index(sc)->recreate && !bf_scenario_search(sc)->enabled)
        return 0;
    int64_t n = 0;
    bf_diag_t d = {0};
    if (bf_cluster_count(es, cell, &n, &d) != BF_OK) {
        bf_warn("cell %s: could not count the documents already in its indices (%s): the cell "
                "will not be verified",
                cell->id, d.msg);
        return -1;
    }
    if (n > 0 && !bf_scenario_index(sc)->recreate)
        bf_info("cell %s: its indices already hold %lld documents (index.recreate is false); "
                "the cell is verified against the documents it adds",
                cell->id, (long long)n);
    return n;
}

int bf_cluster_existing_mismatch(bf_es_t *es, const bf_scenario_t *sc, const bf_cell_t *cell,
                                 char *why, size_t why_size, uint32_t *index_shards,
                                 uint32_t *index_replicas)
{
    const bf_index_spec_t *spec = bf_scenario_index(sc);
    if (spec->recreate && !spec->data_stream)
        return 0;
    int found = 0;
    for (uint32_t i = 0; i < cell->indices && !found; i++) {
        const char *name = cell->index_names[i];
        char *path =
            bf_asprintf("/%s/_settings/index.number_of_shards,index.number_of_replicas", name);
        long status = 0;
        const char *body = NULL;
        bf_diag_t d = {0};
        int rc = bf_es_request(es, "GET", path, NULL, &status, &body, &d);
        free(path);
        if (rc != BF_OK || status != 200 || body == NULL)
            continue;
        json_t *j = json_loads(body, 0, NULL);
        json_t *entry = json_object_get(j, name);
        const char *bk = name;
        if (entry == NULL && spec->data_stream) { /* keyed by the backing indices */
            const char *k;
            json_t *v;
            json_object_foreach(j, k, v)
            {
                entry = v;
                bk = k;
            }
        }
        json_t *ix = json_object_get(json_object_get(entry, "settings"), "index");
        const char *sh = json_string_value(json_object_get(ix, "number_of_shards"));
        const char *re = json_string_value(json_object_get(ix, "number_of_replicas"));
        if (sh && re && spec->data_stream &&
            (strtoul(sh, NULL, 10) != cell->shards || strtoul(re, NULL, 10) != cell->replicas)) {
            snprintf(why, why_size,
                     "data stream %s's backing index %s has %s shards and %s "
                     "replicas (from the cluster's index template: bulkfleet applies the cell's "
                     "settings only to a template it ships in index.template); this row's shards "
                     "%u / replicas %u are the scenario's, not the index's",
                     name, bk, sh, re, cell->shards, cell->replicas);
            found = 1;
        } else if (sh && re &&
                   (strtoul(sh, NULL, 10) != cell->shards ||
                    strtoul(re, NULL, 10) != cell->replicas)) {
            snprintf(why, why_size,
                     "index %s already existed with %s shards and %s replicas "
                     "(index.recreate is false, so it was kept); this row's shards %u / replicas "
                     "%u are the scenario's, not the index's",
                     name, sh, re, cell->shards, cell->replicas);
            found = 1;
        }
        if (found && index_shards)
            *index_shards = (uint32_t)strtoul(sh, NULL, 10);
        if (found && index_replicas)
            *index_replicas = (uint32_t)strtoul(re, NULL, 10);
        json_decref(j);
    }
    return found;
}
