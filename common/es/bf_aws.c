/* SPDX-License-Identifier: MIT */
/* bf_aws.c — AWS credentials (environment, shared files, web identity, IMDSv2) and SigV4.
 *
 * The provider chain follows the AWS SDKs' default order ("Standardized credential providers",
 * AWS SDKs and Tools Reference Guide). STS AssumeRoleWithWebIdentity is the Query API (form
 * POST, XML answer); IMDSv2 is PUT /latest/api/token, then GET
 * /latest/meta-data/iam/security-credentials/[role] with the token (JSON answer).
 */
#include "bf_aws.h"

#include "bf_buf.h"
#include "bf_log.h"
#include "bf_mem.h"
#include "bf_sha256.h"
#include "bf_sigv4.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

void bf_aws_creds_cleanup(bf_aws_creds_t *c)
{
    if (c == NULL)
        return;
    if (c->secret)
        memset(c->secret, 0, strlen(c->secret));
    free(c->key_id);
    free(c->secret);
    free(c->token);
    c->key_id = c->secret = c->token = NULL;
    c->expires = 0;
}

static void creds_copy(bf_aws_creds_t *dst, const bf_aws_creds_t *src)
{
    dst->key_id = src->key_id ? bf_strdup(src->key_id) : NULL;
    dst->secret = src->secret ? bf_strdup(src->secret) : NULL;
    dst->token = src->token ? bf_strdup(src->token) : NULL;
    dst->expires = src->expires;
    bf_strlcpy(dst->source, src->source, sizeof dst->source);
}

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* "2026-12-07T22:00:00Z" (also with fractional seconds or "+00:00") -> UTC seconds; 0 if not. */
static time_t parse_iso8601(const char *s)
{
    struct tm tm = {0};
    if (s == NULL || strptime(s, "%Y-%m-%dT%H:%M:%S", &tm) == NULL)
        return 0;
    return timegm(&tm);
}

/* ---- HTTP for STS and the metadata service ---------------------------------------------- */

static size_t on_answer(char *p, size_t size, size_t n, void *ud)
{
    return bf_buf_append(ud, p, size * n) == BF_OK ? size * n : 0;
}

/* One request; the answer in *ans (NUL-terminated). Returns 0 with *status, BF_E_TIMEOUT when
 * the server accepted the connection and then did not answer within BF_AWS_HTTP_TIMEOUT_MS (a
 * stalled service, not an absent one), or BF_E_TRANSPORT. */
static int http(const char *method, const char *url, struct curl_slist *hdrs, const char *body,
                bf_buf_t *ans, long *status, bf_diag_t *diag)
{
    CURL *h = curl_easy_init();
    char err[CURL_ERROR_SIZE] = "";
    bf_buf_reset(ans);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
    if (body)
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    else if (strcmp(method, "PUT") == 0)
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, "");
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)BF_AWS_HTTP_TIMEOUT_MS);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 1000L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_answer);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, ans);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, err);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "bulkfleet");
    CURLcode cc = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
    curl_off_t connect_us = 0;
    curl_easy_getinfo(h, CURLINFO_CONNECT_TIME_T, &connect_us);
    curl_easy_cleanup(h);
    bf_buf_append(ans, "", 1);
    ans->len--;
    if (cc == CURLE_OPERATION_TIMEDOUT && connect_us > 0)
        return bf_diag_set(diag, BF_E_TIMEOUT, "%s %s: connected, then no answer within %d s (%s)",
                           method, url, BF_AWS_HTTP_TIMEOUT_MS / 1000,
                           err[0] ? err : curl_easy_strerror(cc));
    if (cc != CURLE_OK)
        return bf_diag_set(diag, BF_E_TRANSPORT, "%s %s: %s", method, url,
                           err[0] ? err : curl_easy_strerror(cc));
    return BF_OK;
}

/* The text of <tag>...</tag> in xml (a new string), or NULL. */
static char *xml_text(const char *xml, const char *tag)
{
    char open[64], close[64];
    snprintf(open, sizeof open, "<%s>", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    const char *a = strstr(xml, open);
    if (a == NULL)
        return NULL;
    a += strlen(open);
    const char *b = strstr(a, close);
    return b ? bf_strndup(a, (size_t)(b - a)) : NULL;
}

static char *form_escape(const char *s)
{
    CURL *h = curl_easy_init();
    char *e = curl_easy_escape(h, s, 0);
    char *out = bf_strdup(e ? e : "");
    curl_free(e);
    curl_easy_cleanup(h);
    return out;
}

/* ---- providers --------------------------------------------------------------------------- */

static int from_env(bf_aws_creds_t *c)
{
    const char *id = env("AWS_ACCESS_KEY_ID"), *secret = env("AWS_SECRET_ACCESS_KEY");
    if (id == NULL || secret == NULL)
        return BF_E_NOTFOUND;
    c->key_id = bf_strdup(id);
    c->secret = bf_strdup(secret);
    c->token = env("AWS_SESSION_TOKEN") ? bf_strdup(env("AWS_SESSION_TOKEN")) : NULL;
    snprintf(c->source, sizeof c->source, "environment (AWS_ACCESS_KEY_ID)");
    return BF_OK;
}

/* The keys of [section] of an INI file: 1 when the section exists. */
typedef struct profile_keys {
    char *id, *secret, *token;
    int unsupported; /* role_arn, credential_process, sso_*: another provider bulkfleet lacks */
} profile_keys;

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    size_t k = strspn(s, " \t");
    memmove(s, s + k, n - k + 1);
}

static int ini_section(const char *path, const char *section, profile_keys *pk)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    char line[4096];
    int in = 0, found = 0;
    while (fgets(line, sizeof line, f)) {
        trim(line);
        if (line[0] == '#' || line[0] == ';' || line[0] == '\0')
            continue;
        if (line[0] == '[') {
            char *end = strchr(line, ']');
            if (end)
                *end = '\0';
            char *name = line + 1;
            trim(name);
            in = strcmp(name, section) == 0;
            found |= in;
            continue;
        }
        char *eq = strchr(line, '=');
        if (!in || eq == NULL)
            continue;
        *eq = '\0';
        char *k = line, *v = eq + 1;
        trim(k);
        trim(v);
        char **dst = strcmp(k, "aws_access_key_id") == 0       ? &pk->id
                     : strcmp(k, "aws_secret_access_key") == 0 ? &pk->secret
                     : strcmp(k, "aws_session_token") == 0     ? &pk->token
                                                               : NULL;
        if (dst) {
            free(*dst);
            *dst = bf_strdup(v);
        } else if (strcmp(k, "role_arn") == 0 || strcmp(k, "credential_process") == 0 ||
                   strncmp(k, "sso_", 4) == 0) {
            pk->unsupported = 1;
        }
    }
    fclose(f);
    return found;
}

static int from_files(bf_aws_creds_t *c, char *tried, size_t tsize, bf_diag_t *diag)
{
    const char *home = env("HOME");
    char cred[1024], conf[1024];
    snprintf(cred, sizeof cred, "%s",
             env("AWS_SHARED_CREDENTIALS_FILE") ? env("AWS_SHARED_CREDENTIALS_FILE") : "");
    if (cred[0] == '\0')
        snprintf(cred, sizeof cred, "%s/.aws/credentials", home ? home : "");
    snprintf(conf, sizeof conf, "%s", env("AWS_CONFIG_FILE") ? env("AWS_CONFIG_FILE") : "");
    if (conf[0] == '\0')
        snprintf(conf, sizeof conf, "%s/.aws/config", home ? home : "");
    const char *profile = env("AWS_PROFILE") ? env("AWS_PROFILE") : "default";
    char conf_section[300];
    if (strcmp(profile, "default") == 0)
        snprintf(conf_section, sizeof conf_section, "default");
    else
        snprintf(conf_section, sizeof conf_section, "profile %s", profile);
    profile_keys pk = {0};
    int found = ini_section(conf, conf_section, &pk);
    found |= ini_section(cred, profile, &pk); /* the credentials file wins */
    int rc = BF_E_NOTFOUND;
    if (pk.id && pk.secret) {
        c->key_id = pk.id;
        c->secret = pk.secret;
        c->token = pk.token;
        snprintf(c->source, sizeof c->source, "shared credentials (profile %.60s, %.80s)", profile,
                 cred);
        return BF_OK;
    }
    if (found && env("AWS_PROFILE"))
        rc = bf_diag_set(diag, BF_E_INVAL,
                         "AWS_PROFILE=%s: the profile has no aws_access_key_id and "
                         "aws_secret_access_key in %s or %s%s",
                         profile, cred, conf,
                         pk.unsupported ? " (its role_arn, sso_* or credential_process is not "
                                          "supported: export the credentials it gives, e.g. "
                                          "`aws configure export-credentials --format env`)"
                                        : "");
    else if (env("AWS_PROFILE"))
        rc = bf_diag_set(diag, BF_E_INVAL,
                         "AWS_PROFILE=%s: no such profile in %s or %s; check the name (aws "
                         "configure list-profiles)",
                         profile, cred, conf);
    snprintf(tried, tsize, "shared files (%s, %s: no profile [%s] with keys)", cred, conf, profile);
    free(pk.id);
    free(pk.secret);
    free(pk.token);
    return rc;
}

static int from_web_identity(const char *region, bf_aws_creds_t *c, bf_diag_t *diag)
{
    const char *file = env("AWS_WEB_IDENTITY_TOKEN_FILE"), *role = env("AWS_ROLE_ARN");
    if (file == NULL || role == NULL)
        return BF_E_NOTFOUND;
    FILE *f = fopen(file, "r");
    if (f == NULL)
        return bf_diag_set(diag, BF_E_IO,
                           "AWS_WEB_IDENTITY_TOKEN_FILE=%s cannot be read: is the service "
                           "account token mounted?",
                           file);
    bf_buf_t tok;
    bf_buf_init(&tok, BF_AWS_MAX_ANSWER_BYTES);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        bf_buf_append(&tok, chunk, n);
    fclose(f);
    bf_buf_append(&tok, "", 1);
    trim(tok.data);
    char session[64];
    snprintf(session, sizeof session, "bulkfleet-%ld", (long)time(NULL));
    const char *sname = env("AWS_ROLE_SESSION_NAME") ? env("AWS_ROLE_SESSION_NAME") : session;
    char *erole = form_escape(role), *ename = form_escape(sname), *etok = form_escape(tok.data);
    char *body = bf_asprintf("Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=%s&"
                             "RoleSessionName=%s&WebIdentityToken=%s",
                             erole, ename, etok);
    free(erole);
    free(ename);
    memset(etok, 0, strlen(etok));
    free(etok);
    bf_buf_cleanup(&tok);
    const char *ep =
        env("AWS_ENDPOINT_URL_STS") ? env("AWS_ENDPOINT_URL_STS") : env("AWS_ENDPOINT_URL");
    char *url = ep ? bf_asprintf("%s/", ep) : bf_asprintf("https://sts.%s.amazonaws.com/", region);
    struct curl_slist *h =
        curl_slist_append(NULL, "Content-Type: application/x-www-form-urlencoded");
    bf_buf_t ans;
    bf_buf_init(&ans, BF_AWS_MAX_ANSWER_BYTES);
    long status = 0;
    bf_diag_t hd = {0};
    int rc = http("POST", url, h, body, &ans, &status, &hd);
    if (rc != BF_OK)
        rc = bf_diag_set(diag, rc,
                         "web identity: STS did not answer for AWS_ROLE_ARN=%s (%s); check "
                         "that STS (AWS_ENDPOINT_URL_STS, or sts.<region>.amazonaws.com) is "
                         "reachable from this host, or give credentials another way "
                         "(docs/cloud.md)",
                         role, hd.msg);
    memset(body, 0, strlen(body));
    free(body);
    curl_slist_free_all(h);
    if (rc == BF_OK) {
        char *id = xml_text(ans.data, "AccessKeyId"),
             *secret = xml_text(ans.data, "SecretAccessKey");
        char *token = xml_text(ans.data, "SessionToken"), *exp = xml_text(ans.data, "Expiration");
        if (status == 200 && id && secret && token) {
            c->key_id = id;
            c->secret = secret;
            c->token = token;
            c->expires = parse_iso8601(exp);
            snprintf(c->source, sizeof c->source, "web identity (%.120s)", role);
            id = secret = token = NULL;
        } else {
            char *msg = xml_text(ans.data, "Message"), *code = xml_text(ans.data, "Code");
            rc = bf_diag_set(diag, BF_E_HTTP,
                             "web identity: STS %s answered HTTP %ld%s%s%s%s for AWS_ROLE_ARN=%s; "
                             "check the role's trust policy and the token in "
                             "AWS_WEB_IDENTITY_TOKEN_FILE",
                             url, status, code ? ": " : "", code ? code : "", msg ? ": " : "",
                             msg ? msg : "", role);
            free(msg);
            free(code);
        }
        free(id);
        free(secret);
        free(token);
        free(exp);
    }
    bf_buf_cleanup(&ans);
    free(url);
    return rc;
}

/* The metadata service at ep (el bytes) accepted a connection and did not answer: named with
 * what to do. Returns BF_E_TIMEOUT. */
static int imds_stalled(bf_diag_t *diag, int el, const char *ep, const char *what)
{
    return bf_diag_set(diag, BF_E_TIMEOUT,
                       "instance metadata %.*s did not answer within %d s (%s): the metadata "
                       "service is stalled or throttling; check the instance's metadata options "
                       "(aws ec2 describe-instances: MetadataOptions) or give credentials "
                       "another way (environment, shared files, web identity: docs/cloud.md)",
                       el, ep, BF_AWS_HTTP_TIMEOUT_MS / 1000, what);
}

static int from_imds(bf_aws_creds_t *c, bf_diag_t *diag)
{
    const char *off = env("AWS_EC2_METADATA_DISABLED");
    if (off && strcasecmp(off, "true") == 0)
        return BF_E_NOTFOUND;
    const char *ep = env("AWS_EC2_METADATA_SERVICE_ENDPOINT")
                         ? env("AWS_EC2_METADATA_SERVICE_ENDPOINT")
                         : "http://169.254.169.254";
    size_t el = strlen(ep);
    while (el > 0 && ep[el - 1] == '/')
        el--;
    bf_buf_t ans;
    bf_buf_init(&ans, BF_AWS_MAX_ANSWER_BYTES);
    long status = 0;
    bf_diag_t d = {0};
    char *url = bf_asprintf("%.*s/latest/api/token", (int)el, ep);
    struct curl_slist *h = curl_slist_append(NULL, "X-aws-ec2-metadata-token-ttl-seconds: 21600");
    int rc = http("PUT", url, h, NULL, &ans, &status, &d);
    curl_slist_free_all(h);
    free(url);
    char *role = NULL, *tokhdr = NULL;
    if (rc == BF_E_TIMEOUT) {
        rc = imds_stalled(diag, (int)el, ep, d.msg);
        goto out;
    }
    if (rc != BF_OK) {
        rc = BF_E_NOTFOUND; /* not on EC2 (or no route to it): the chain ends here */
        goto out;
    }
    if (status != 200) {
        rc = bf_diag_set(diag, BF_E_HTTP,
                         "instance metadata %.*s: PUT /latest/api/token answered HTTP %ld "
                         "(IMDSv2 session token refused; a hop limit of 1 refuses containers: "
                         "raise HttpPutResponseHopLimit)",
                         (int)el, ep, status);
        goto out;
    }
    tokhdr = bf_asprintf("X-aws-ec2-metadata-token: %s", ans.data);
    h = curl_slist_append(NULL, tokhdr);
    url = bf_asprintf("%.*s/latest/meta-data/iam/security-credentials/", (int)el, ep);
    rc = http("GET", url, h, NULL, &ans, &status, &d);
    free(url);
    if (rc != BF_OK)
        rc = rc == BF_E_TIMEOUT ? imds_stalled(diag, (int)el, ep, d.msg)
                                : bf_diag_set(diag, rc, "instance metadata: %s", d.msg);
    if (rc == BF_OK && (status != 200 || ans.len == 0)) {
        rc = bf_diag_set(diag, BF_E_NOTFOUND,
                         "instance metadata %.*s: no instance role (HTTP %ld): attach an IAM "
                         "role to the instance",
                         (int)el, ep, status);
    }
    if (rc == BF_OK) {
        role = bf_strndup(ans.data, strcspn(ans.data, "\r\n"));
        url = bf_asprintf("%.*s/latest/meta-data/iam/security-credentials/%s", (int)el, ep, role);
        rc = http("GET", url, h, NULL, &ans, &status, &d);
        free(url);
        if (rc != BF_OK)
            rc = rc == BF_E_TIMEOUT ? imds_stalled(diag, (int)el, ep, d.msg)
                                    : bf_diag_set(diag, rc, "instance metadata: %s", d.msg);
    }
    curl_slist_free_all(h);
    if (rc == BF_OK) {
        json_t *j = json_loads(ans.data, 0, NULL);
        const char *id = json_string_value(json_object_get(j, "AccessKeyId"));
        const char *secret = json_string_value(json_object_get(j, "SecretAccessKey"));
        const char *token = json_string_value(json_object_get(j, "Token"));
        if (status == 200 && id && secret) {
            c->key_id = bf_strdup(id);
            c->secret = bf_strdup(secret);
            c->token = token ? bf_strdup(token) : NULL;
            c->expires = parse_iso8601(json_string_value(json_object_get(j, "Expiration")));
            snprintf(c->source, sizeof c->source, "instance metadata (role %.100s)", role);
        } else {
            rc = bf_diag_set(diag, BF_E_HTTP,
                             "instance metadata %.*s: the credentials of role %s could not be "
                             "read (HTTP %ld)",
                             (int)el, ep, role, status);
        }
        json_decref(j);
    }
out:
    free(role);
    free(tokhdr);
    bf_buf_cleanup(&ans);
    return rc;
}

int bf_aws_creds_resolve(const char *region, bf_aws_creds_t *out, bf_diag_t *diag)
{
    memset(out, 0, sizeof *out);
    if (from_env(out) == BF_OK)
        return BF_OK;
    char tried_files[1200] = "";
    int rc = from_files(out, tried_files, sizeof tried_files, diag);
    if (rc != BF_E_NOTFOUND)
        return rc;
    rc = from_web_identity(region ? region : "us-east-1", out, diag);
    if (rc != BF_E_NOTFOUND)
        return rc;
    rc = from_imds(out, diag);
    if (rc != BF_E_NOTFOUND)
        return rc;
    const char *off = env("AWS_EC2_METADATA_DISABLED");
    return bf_diag_set(diag, BF_E_NOTFOUND,
                       "no AWS credentials on this host: tried the environment "
                       "(AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY unset), %s, web identity "
                       "(AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN unset), instance "
                       "metadata (%s); give credentials in one of these ways (docs/cloud.md)",
                       tried_files,
                       off && strcasecmp(off, "true") == 0 ? "AWS_EC2_METADATA_DISABLED=true"
                                                           : "no answer: not an EC2 instance");
}

/* The auth key of t's section for messages: "target.auth", "metrics_store.auth". */
static const char *auth_key(const bf_target_t *t)
{
    const char *a = t && t->names && t->names->auth ? t->names->auth : "target.auth";
    return strncmp(a, "metrics_store", 13) == 0 ? "metrics_store.auth" : "target.auth";
}

/* ---- the process's cache ----------------------------------------------------------------- */

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t fetch_lock = PTHREAD_MUTEX_INITIALIZER;
static bf_aws_creds_t cache;
static int cache_set;
static time_t last_fetch;     /* the last fetch of the chain (under cache_lock) */
static uint64_t cache_gen;    /* +1 each time the cache gets other credentials (under cache_lock) */
static int fetching;          /* a background fetch (bg_fetch) runs (under cache_lock) */
static char last_error[1024]; /* the last fetch's failure when it left nothing valid, "" after a
                                 success (under cache_lock) */
static bf_aws_creds_t shipped; /* an agent's: what the coordinator shipped (under cache_lock) */
static int shipped_set;

void bf_aws_forget(void)
{
    pthread_mutex_lock(&cache_lock);
    bf_aws_creds_cleanup(&cache);
    cache_set = 0;
    last_fetch = 0;
    last_error[0] = '\0';
    bf_aws_creds_cleanup(&shipped);
    shipped_set = 0;
    pthread_mutex_unlock(&cache_lock);
}

static int same_str(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

void bf_aws_ship_receive(const char *key_id, const char *secret, const char *token, int64_t expires,
                         const char *source)
{
    if (key_id == NULL || *key_id == '\0')
        return;
    const char *tok = token && *token ? token : NULL;
    pthread_mutex_lock(&cache_lock);
    if (shipped_set && same_str(shipped.key_id, key_id) && same_str(shipped.secret, secret) &&
        same_str(shipped.token, tok)) {
        pthread_mutex_unlock(&cache_lock);
        return;
    }
    int first = !shipped_set;
    bf_aws_creds_cleanup(&shipped);
    shipped.key_id = bf_strdup(key_id);
    shipped.secret = bf_strdup(secret ? secret : "");
    shipped.token = tok ? bf_strdup(tok) : NULL;
    shipped.expires = (time_t)expires;
    snprintf(shipped.source, sizeof shipped.source, "the coordinator (its %s)",
             source && *source ? source : "credentials");
    shipped_set = 1;
    if (first)
        bf_info("AWS credentials shipped by %s (key %.8s...)%s", shipped.source, shipped.key_id,
                expires ? ", temporary: shipped again when the coordinator fetches fresh ones"
                        : "");
    else
        bf_info("AWS credentials shipped again by %s (key %.8s...), valid until %ld s from now",
                shipped.source, shipped.key_id, expires ? (long)(expires - time(NULL)) : -1L);
    pthread_mutex_unlock(&cache_lock);
}

/* 1 when c can sign now without fetching (and 2 when it is fresh, not near its expiry). */
static int usable(const bf_aws_creds_t *c, time_t now)
{
    if (c->expires == 0 || c->expires - now > BF_AWS_REFRESH_BEFORE_S)
        return 2;
    return c->expires > now + 10 ? 1 : 0;
}

static int chain_current(const bf_target_t *t, bf_aws_creds_t *out, bf_diag_t *diag);

int bf_aws_creds_current(const bf_target_t *t, bf_aws_creds_t *out, bf_diag_t *diag)
{
    memset(out, 0, sizeof *out);
    if (t->aws_key_id) {
        out->key_id = bf_strdup(t->aws_key_id);
        out->secret = bf_strdup(t->aws_secret ? t->aws_secret : "");
        out->token = t->aws_token ? bf_strdup(t->aws_token) : NULL;
        snprintf(out->source, sizeof out->source, "the scenario (%s.aws.access_key_id)",
                 auth_key(t));
        return BF_OK;
    }
    if (t->aws_ship) {
        pthread_mutex_lock(&cache_lock);
        int have = shipped_set;
        if (have)
            creds_copy(out, &shipped);
        pthread_mutex_unlock(&cache_lock);
        if (have)
            return BF_OK;
    }
    return chain_current(t, out, diag);
}

/* Walk the chain and put what it gives into the cache (the caller holds fetch_lock); a copy
 * into *out when out is not NULL. A failure with still-valid credentials cached keeps them
 * (warned) and returns 0; otherwise its message, prefixed with akey ("target.auth"), goes to
 * diag and to last_error. Returns as bf_aws_creds_resolve. */
static int fetch_locked(const char *region, const char *akey, bf_aws_creds_t *out, bf_diag_t *diag)
{
    bf_aws_creds_t fresh;
    bf_diag_t d = {0};
    int rc = bf_aws_creds_resolve(region, &fresh, &d);
    pthread_mutex_lock(&cache_lock);
    last_fetch = time(NULL);
    if (rc == BF_OK) {
        int first = !cache_set || strcmp(cache.source, fresh.source) != 0;
        if (!cache_set || !same_str(cache.key_id, fresh.key_id) ||
            !same_str(cache.secret, fresh.secret) || !same_str(cache.token, fresh.token))
            cache_gen++;
        bf_aws_creds_cleanup(&cache);
        cache = fresh;
        cache_set = 1;
        last_error[0] = '\0';
        if (!first)
            bf_info("AWS credentials from %s fetched again (key %.8s...), valid until %ld s from "
                    "now",
                    cache.source, cache.key_id, (long)(cache.expires - time(NULL)));
        if (first)
            bf_info("AWS credentials from %s (key %.8s...)%s", cache.source, cache.key_id,
                    cache.expires ? ", temporary: fetched again before they expire" : "");
        if (out)
            creds_copy(out, &cache);
    } else if (cache_set && usable(&cache, time(NULL)) >= 1) {
        bf_warn("AWS credentials could not be fetched again (%s); signing with the ones from %s "
                "until they expire",
                d.msg, cache.source);
        if (out)
            creds_copy(out, &cache);
        rc = BF_OK;
    } else {
        snprintf(last_error, sizeof last_error, "%s.aws: %s", akey, d.msg);
        bf_diag_set(diag, rc, "%s", last_error);
    }
    pthread_mutex_unlock(&cache_lock);
    return rc;
}

typedef struct bg_fetch_arg {
    char *region;     /* owned, or NULL */
    const char *akey; /* a literal (auth_key) */
} bg_fetch_arg_t;

/* A fetch again off the caller's thread: a hanging metadata service, STS or credential file
 * read never holds up a thread with other duties (the coordinator's fleet loop, which pings the
 * agents). */
static void *bg_fetch(void *p)
{
    bg_fetch_arg_t *a = p;
    pthread_mutex_lock(&fetch_lock);
    pthread_mutex_lock(&cache_lock);
    int fresh = cache_set && usable(&cache, time(NULL)) == 2; /* fetched meanwhile */
    pthread_mutex_unlock(&cache_lock);
    bf_diag_t d = {0};
    if (!fresh)
        fetch_locked(a->region, a->akey, NULL, &d);
    pthread_mutex_unlock(&fetch_lock);
    pthread_mutex_lock(&cache_lock);
    fetching = 0;
    pthread_mutex_unlock(&cache_lock);
    free(a->region);
    free(a);
    return NULL;
}

/* Start a background fetch for t unless one runs (caller holds cache_lock). */
static void bg_start_locked(const bf_target_t *t)
{
    if (fetching)
        return;
    bg_fetch_arg_t *a = bf_calloc(1, sizeof *a);
    a->region = t->aws_region ? bf_strdup(t->aws_region) : NULL;
    a->akey = auth_key(t);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t th;
    if (pthread_create(&th, &attr, bg_fetch, a) == 0) {
        fetching = 1;
    } else {
        free(a->region);
        free(a);
    }
    pthread_attr_destroy(&attr);
}

int bf_aws_ship_current(const bf_target_t *t, bf_aws_creds_t *out, uint64_t *gen, bf_diag_t *diag)
{
    memset(out, 0, sizeof *out);
    time_t now = time(NULL);
    pthread_mutex_lock(&cache_lock);
    int u = cache_set ? usable(&cache, now) : 0;
    if (u <= 1 && now - last_fetch >= BF_AWS_REFETCH_EVERY_S)
        bg_start_locked(t); /* near expiry or none valid: fetched off this thread */
    int rc = BF_OK;
    if (u >= 1)
        creds_copy(out, &cache);
    else if (last_error[0])
        rc = bf_diag_set(diag, BF_E_STATE, "%s", last_error);
    else
        rc = bf_diag_set(diag, BF_E_STATE,
                         "%s.aws: the credentials are being fetched (AWS_* environment, shared "
                         "files, web identity, instance metadata) and have not come yet",
                         auth_key(t));
    *gen = cache_gen;
    pthread_mutex_unlock(&cache_lock);
    return rc;
}

static int chain_current(const bf_target_t *t, bf_aws_creds_t *out, bf_diag_t *diag)
{
    memset(out, 0, sizeof *out);
    time_t now = time(NULL);
    pthread_mutex_lock(&cache_lock);
    int u = cache_set ? usable(&cache, now) : 0;
    if (u == 1 && now - last_fetch >= BF_AWS_REFETCH_EVERY_S)
        bg_start_locked(t); /* near expiry: fetched again off this thread */
    if (u >= 1) {
        creds_copy(out, &cache);
        pthread_mutex_unlock(&cache_lock);
        return BF_OK;
    }
    pthread_mutex_unlock(&cache_lock);
    /* nothing valid to sign with: wait for a fetch (this thread's, or one under way) */
    pthread_mutex_lock(&fetch_lock);
    pthread_mutex_lock(&cache_lock);
    u = cache_set ? usable(&cache, time(NULL)) : 0;
    if (u >= 1) {
        creds_copy(out, &cache);
        pthread_mutex_unlock(&cache_lock);
        pthread_mutex_unlock(&fetch_lock);
        return BF_OK;
    }
    pthread_mutex_unlock(&cache_lock);
    int rc = fetch_locked(t->aws_region, auth_key(t), out, diag);
    pthread_mutex_unlock(&fetch_lock);
    return rc;
}

/* ---- signing ----------------------------------------------------------------------------- */

int bf_aws_sign(const bf_target_t *t, const char *method, const char *url, const void *body,
                size_t len, struct curl_slist **headers, char **url_out, bf_diag_t *diag)
{
    *url_out = NULL;
    bf_aws_creds_t c;
    int rc = bf_aws_creds_current(t, &c, diag);
    if (rc != BF_OK)
        return rc;
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL, *port = NULL, *path = NULL, *query = NULL;
    if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_PATH, &path, 0) != CURLUE_OK) {
        rc = bf_diag_set(diag, BF_E_INVAL, "cannot sign a request to '%s': not a URL", url);
        goto out;
    }
    curl_url_get(u, CURLUPART_PORT, &port, 0); /* only when the URL gives one */
    curl_url_get(u, CURLUPART_QUERY, &query, 0);
    /* libcurl's Host header: the port unless it is the scheme's default */
    int dflt = port == NULL || (strcmp(scheme, "http") == 0 && strcmp(port, "80") == 0) ||
               (strcmp(scheme, "https") == 0 && strcmp(port, "443") == 0);
    char *hostval = dflt ? bf_strdup(host) : bf_asprintf("%s:%s", host, port);
    char *canon = query ? bf_sigv4_canonical_query(query) : NULL;
    if (canon && strcmp(canon, query) != 0) {
        /* by hand: libcurl's URL API writes %-escapes in lower case, SigV4 in upper case */
        const char *q = strchr(url, '?');
        const char *frag = q ? strchr(q, '#') : NULL;
        *url_out = bf_asprintf("%.*s?%s%s", (int)(q - url), url, canon, frag ? frag : "");
    }
    char payload[65];
    bf_sha256_hex(body ? body : "", body ? len : 0, payload);
    bf_sigv4_header_t sh = {"host", hostval};
    bf_sigv4_creds_t sc = {c.key_id, c.secret, c.token};
    bf_sigv4_input_t in = {.method = method,
                           .path = path,
                           .query = canon,
                           .headers = &sh,
                           .nheaders = 1,
                           .payload_sha256 = payload,
                           .sign_content_sha256 = 1,
                           .normalize = 1,
                           .when = time(NULL),
                           .region = t->aws_region,
                           .service = t->aws_service ? t->aws_service : "es"};
    bf_sigv4_out_t so;
    rc = bf_sigv4_sign(&sc, &in, &so);
    if (rc == BF_OK) {
        char *v = bf_asprintf("X-Amz-Date: %s", so.amz_date);
        *headers = curl_slist_append(*headers, v);
        free(v);
        v = bf_asprintf("X-Amz-Content-SHA256: %s", so.content_sha256);
        *headers = curl_slist_append(*headers, v);
        free(v);
        if (c.token) {
            v = bf_asprintf("X-Amz-Security-Token: %s", c.token);
            *headers = curl_slist_append(*headers, v);
            free(v);
        }
        v = bf_asprintf("Authorization: %s", so.authorization);
        *headers = curl_slist_append(*headers, v);
        free(v);
    } else {
        bf_diag_set(diag, rc, "cannot sign a request to %s (region, service or key missing)",
                    hostval);
    }
    bf_sigv4_out_cleanup(&so);
    free(hostval);
    free(canon);
out:
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_free(path);
    curl_free(query);
    curl_url_cleanup(u);
    bf_aws_creds_cleanup(&c);
    return rc;
}

const char *bf_aws_auth_hint(const bf_target_t *t, const char *reason, char *buf, size_t size)
{
    char key[96];
    snprintf(key, sizeof key, "%s.aws", auth_key(t));
    bf_aws_creds_t c = {0};
    bf_diag_t d = {0};
    char src[200] = "";
    if (t && bf_aws_creds_current(t, &c, &d) == BF_OK)
        snprintf(src, sizeof src, " (key %.8s... from %s)", c.key_id, c.source);
    bf_aws_creds_cleanup(&c);
    const char *r = reason ? reason : "";
    if (strstr(r, "Signature expired") || strstr(r, "not yet current") ||
        strstr(r, "RequestTimeTooSkewed") || strstr(r, "too skewed"))
        snprintf(buf, size,
                 "this host's clock is off from AWS's by more than the 5 minutes SigV4 allows "
                 "(the request was signed at this host's time): synchronise it (chrony or "
                 "systemd-timesyncd) and run again");
    else if (strstr(r, "security token") || strstr(r, "Security Token") ||
             strstr(r, "ExpiredToken"))
        snprintf(buf, size,
                 "the session token was refused (expired or invalid)%s: give fresh temporary "
                 "credentials (AWS_SESSION_TOKEN with its key), or let bulkfleet fetch them "
                 "(web identity, instance role)",
                 src);
    else if (strstr(r, "signature") || strstr(r, "Signature"))
        snprintf(buf, size,
                 "the request's SigV4 signature does not match%s: check the secret access "
                 "key, and that %s.region and .service (es for a domain, aoss for a Serverless "
                 "collection) are the endpoint's",
                 src, key);
    else if (strstr(r, "not authorized") || strstr(r, "no permissions") || strstr(r, "Forbidden") ||
             strstr(r, "forbidden"))
        snprintf(buf, size,
                 "the signature was accepted but the identity%s may not do this: check the "
                 "domain's access policy or the collection's data access policy "
                 "(docs/cloud.md lists what bulkfleet needs)",
                 src);
    else
        snprintf(buf, size, "check %s (credentials%s, region, service)", key, src);
    return buf;
}
