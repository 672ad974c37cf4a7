/* SPDX-License-Identifier: MIT */
/* bf_sigv4.c — AWS Signature Version 4: canonical request, string to sign, signature.
 *
 * The steps of AWS's "Signature Version 4 signing process": the canonical request (method,
 * canonical URI, canonical query string, canonical headers, signed headers, payload hash), the
 * string to sign ("AWS4-HMAC-SHA256", date, scope, hash of the canonical request) and the
 * signature (HMAC-SHA256 chain "AWS4"+secret -> date -> region -> service -> "aws4_request").
 * Checked against AWS's published test suite (tests/fixtures/sigv4) and botocore
 * (tests/unit/test_sigv4_botocore.py).
 */
#include "bf_sigv4.h"

#include "bf_buf.h"
#include "bf_error.h"
#include "bf_mem.h"
#include "bf_sha256.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIGNED_HEADERS 64

static int unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == '~';
}

/* SigV4's URI encoding: every byte but the unreserved ones as %XX (upper-case hex); '/' kept
 * when keep_slash (the path), encoded otherwise (query keys and values). */
static void uri_encode(bf_buf_t *b, const char *p, size_t n, int keep_slash)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (unreserved(c) || (keep_slash && c == '/')) {
            bf_buf_append(b, &p[i], 1);
        } else {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            bf_buf_append(b, e, 3);
        }
    }
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* %XX decoded (a '%' not followed by two hex digits stays as it is; '+' stays '+'). */
static char *uri_decode(const char *p, size_t n)
{
    char *out = bf_malloc(n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '%' && i + 2 < n && hexval(p[i + 1]) >= 0 && hexval(p[i + 2]) >= 0) {
            out[k++] = (char)(hexval(p[i + 1]) * 16 + hexval(p[i + 2]));
            i += 2;
        } else {
            out[k++] = p[i];
        }
    }
    out[k] = '\0';
    return out;
}

/* The canonical URI: the wire path, its "." and ".." and empty segments removed when
 * normalize (a trailing '/' kept), then URI-encoded once more ('/' kept): for every service
 * but S3 the signed path is the encoded wire path (so "%2A" is signed as "%252A"). */
static void canonical_uri(bf_buf_t *b, const char *path, int normalize)
{
    if (path == NULL || *path == '\0')
        path = "/";
    if (!normalize) {
        uri_encode(b, path, strlen(path), 1);
        return;
    }
    size_t n = strlen(path);
    const char **seg = bf_calloc(n + 1, sizeof *seg);
    size_t *len = bf_calloc(n + 1, sizeof *len);
    size_t nseg = 0;
    const char *p = path;
    while (*p) {
        while (*p == '/')
            p++;
        const char *s = p;
        while (*p && *p != '/')
            p++;
        size_t l = (size_t)(p - s);
        if (l == 0 || (l == 1 && s[0] == '.'))
            continue;
        if (l == 2 && s[0] == '.' && s[1] == '.') {
            if (nseg > 0)
                nseg--;
            continue;
        }
        seg[nseg] = s;
        len[nseg++] = l;
    }
    int trailing = n > 1 && path[n - 1] == '/';
    bf_buf_append(b, "/", 1);
    for (size_t i = 0; i < nseg; i++) {
        uri_encode(b, seg[i], len[i], 1);
        if (i + 1 < nseg || trailing)
            bf_buf_append(b, "/", 1);
    }
    free(seg);
    free(len);
}

typedef struct qparam {
    char *key; /* encoded */
    char *val; /* encoded */
} qparam;

static int qparam_cmp(const void *a, const void *b)
{
    const qparam *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : strcmp(x->val, y->val);
}

/* The canonical query string: each key=value decoded and encoded again (so "%E1%88%B4" and the
 * raw bytes sign alike), sorted by key then value, joined with '&'; "key" alone is "key=". */
static void canonical_query(bf_buf_t *b, const char *q)
{
    if (q == NULL || *q == '\0')
        return;
    size_t cap = 1;
    for (const char *p = q; *p; p++)
        cap += *p == '&';
    qparam *v = bf_calloc(cap, sizeof *v);
    size_t nv = 0;
    const char *p = q;
    while (1) {
        const char *amp = strchr(p, '&');
        size_t l = amp ? (size_t)(amp - p) : strlen(p);
        if (l > 0) {
            const char *eq = memchr(p, '=', l);
            size_t kl = eq ? (size_t)(eq - p) : l;
            char *k = uri_decode(p, kl);
            char *val = eq ? uri_decode(eq + 1, l - kl - 1) : bf_strdup("");
            bf_buf_t e;
            bf_buf_init(&e, 1u << 20);
            uri_encode(&e, k, strlen(k), 0);
            bf_buf_append(&e, "", 1);
            v[nv].key = bf_strdup(e.data);
            bf_buf_reset(&e);
            uri_encode(&e, val, strlen(val), 0);
            bf_buf_append(&e, "", 1);
            v[nv].val = bf_strdup(e.data);
            nv++;
            bf_buf_cleanup(&e);
            free(k);
            free(val);
        }
        if (amp == NULL)
            break;
        p = amp + 1;
    }
    qsort(v, nv, sizeof *v, qparam_cmp);
    for (size_t i = 0; i < nv; i++) {
        bf_buf_appendf(b, "%s%s=%s", i ? "&" : "", v[i].key, v[i].val);
        free(v[i].key);
        free(v[i].val);
    }
    free(v);
}

typedef struct hdr {
    char *name;  /* lower case */
    char *value; /* trimmed, space runs folded; duplicates joined with ',' */
    size_t order;
} hdr;

static int hdr_cmp(const void *a, const void *b)
{
    const hdr *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->order < y->order ? -1 : x->order > y->order;
}

static char *fold_value(const char *v)
{
    while (*v == ' ' || *v == '\t')
        v++;
    size_t n = strlen(v);
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    char *out = bf_malloc(n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int sp = v[i] == ' ' || v[i] == '\t';
        if (sp && k > 0 && out[k - 1] == ' ')
            continue;
        out[k++] = sp ? ' ' : v[i];
    }
    out[k] = '\0';
    return out;
}

static void hmac(const void *key, size_t keylen, const char *msg, size_t len, unsigned char md[32])
{
    unsigned int n = 32;
    if (HMAC(EVP_sha256(), key, (int)keylen, (const unsigned char *)msg, len, md, &n) == NULL ||
        n != 32)
        abort(); /* only on allocation failure inside libcrypto: as bf_malloc */
}

static void to_hex(const unsigned char *md, size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[2 * n] = '\0';
}

/* The headers to sign, canonical: lower-case names, sorted, duplicates joined in order. */
static int collect_headers(const bf_sigv4_input_t *in, const bf_sigv4_creds_t *creds,
                           const bf_sigv4_out_t *out, hdr *h, size_t *nh)
{
    size_t n = 0;
    int host = 0;
    for (size_t i = 0; i < in->nheaders && n < MAX_SIGNED_HEADERS - 3; i++) {
        h[n].name = bf_strdup(in->headers[i].name);
        for (char *c = h[n].name; *c; c++)
            if (*c >= 'A' && *c <= 'Z')
                *c = (char)(*c - 'A' + 'a');
        host |= strcmp(h[n].name, "host") == 0;
        h[n].value = fold_value(in->headers[i].value ? in->headers[i].value : "");
        h[n].order = n;
        n++;
    }
    h[n] = (hdr){bf_strdup("x-amz-date"), bf_strdup(out->amz_date), n};
    n++;
    if (in->sign_content_sha256) {
        h[n] = (hdr){bf_strdup("x-amz-content-sha256"), bf_strdup(out->content_sha256), n};
        n++;
    }
    if (creds->session_token && *creds->session_token) {
        h[n] = (hdr){bf_strdup("x-amz-security-token"), fold_value(creds->session_token), n};
        n++;
    }
    qsort(h, n, sizeof *h, hdr_cmp);
    /* duplicates: one name, values joined with ',' in the order given */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k > 0 && strcmp(h[k - 1].name, h[i].name) == 0) {
            char *j = bf_asprintf("%s,%s", h[k - 1].value, h[i].value);
            free(h[k - 1].value);
            h[k - 1].value = j;
            free(h[i].name);
            free(h[i].value);
            continue;
        }
        h[k++] = h[i];
    }
    *nh = k;
    return host ? BF_OK : BF_E_INVAL;
}

char *bf_sigv4_canonical_query(const char *query)
{
    bf_buf_t b;
    bf_buf_init(&b, 16u << 20);
    canonical_query(&b, query);
    bf_buf_append(&b, "", 1);
    char *out = bf_strdup(b.data);
    bf_buf_cleanup(&b);
    return out;
}

int bf_sigv4_sign(const bf_sigv4_creds_t *creds, const bf_sigv4_input_t *in, bf_sigv4_out_t *out)
{
    memset(out, 0, sizeof *out);
    if (creds == NULL || in == NULL || in->method == NULL || in->region == NULL ||
        in->service == NULL || creds->access_key_id == NULL || creds->secret_access_key == NULL)
        return BF_E_INVAL;
    struct tm tm;
    if (gmtime_r(&in->when, &tm) == NULL ||
        strftime(out->amz_date, sizeof out->amz_date, "%Y%m%dT%H%M%SZ", &tm) != 16)
        return BF_E_INVAL;
    if (in->payload_sha256)
        snprintf(out->content_sha256, sizeof out->content_sha256, "%s", in->payload_sha256);
    else
        bf_sha256_hex("", 0, out->content_sha256);

    hdr h[MAX_SIGNED_HEADERS];
    size_t nh = 0;
    int rc = collect_headers(in, creds, out, h, &nh);
    bf_buf_t cr, signed_names;
    bf_buf_init(&cr, 1u << 20);
    bf_buf_init(&signed_names, 1u << 16);
    bf_buf_appendf(&cr, "%s\n", in->method);
    canonical_uri(&cr, in->path, in->normalize);
    bf_buf_append(&cr, "\n", 1);
    canonical_query(&cr, in->query);
    bf_buf_append(&cr, "\n", 1);
    for (size_t i = 0; i < nh; i++) {
        bf_buf_appendf(&cr, "%s:%s\n", h[i].name, h[i].value);
        bf_buf_appendf(&signed_names, "%s%s", i ? ";" : "", h[i].name);
        free(h[i].name);
        free(h[i].value);
    }
    bf_buf_append(&signed_names, "", 1);
    bf_buf_appendf(&cr, "\n%s\n%s", signed_names.data, out->content_sha256);
    bf_buf_append(&cr, "", 1);
    out->canonical_request = bf_strdup(cr.data);
    bf_buf_cleanup(&cr);
    if (rc != BF_OK) {
        bf_buf_cleanup(&signed_names);
        return rc;
    }

    char date[9];
    memcpy(date, out->amz_date, 8);
    date[8] = '\0';
    char cr_hash[65];
    bf_sha256_hex(out->canonical_request, strlen(out->canonical_request), cr_hash);
    char *scope = bf_asprintf("%s/%s/%s/aws4_request", date, in->region, in->service);
    out->string_to_sign =
        bf_asprintf("AWS4-HMAC-SHA256\n%s\n%s\n%s", out->amz_date, scope, cr_hash);

    char *k0 = bf_asprintf("AWS4%s", creds->secret_access_key);
    unsigned char kd[32], kr[32], ks[32], kf[32], sig[32];
    hmac(k0, strlen(k0), date, 8, kd);
    memset(k0, 0, strlen(k0)); /* the secret does not stay in freed memory */
    free(k0);
    hmac(kd, 32, in->region, strlen(in->region), kr);
    hmac(kr, 32, in->service, strlen(in->service), ks);
    hmac(ks, 32, "aws4_request", 12, kf);
    hmac(kf, 32, out->string_to_sign, strlen(out->string_to_sign), sig);
    to_hex(sig, 32, out->signature);
    out->authorization =
        bf_asprintf("AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, "
                    "Signature=%s",
                    creds->access_key_id, scope, signed_names.data, out->signature);
    free(scope);
    bf_buf_cleanup(&signed_names);
    return BF_OK;
}

void bf_sigv4_out_cleanup(bf_sigv4_out_t *out)
{
    if (out == NULL)
        return;
    free(out->authorization);
    free(out->canonical_request);
    free(out->string_to_sign);
    out->authorization = out->canonical_request = out->string_to_sign = NULL;
}
