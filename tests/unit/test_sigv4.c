/* SPDX-License-Identifier: MIT */
/* test_sigv4.c — the SigV4 signer against AWS's published test suite (tests/fixtures/sigv4):
 * canonical request, string to sign and signature of each case, byte for byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_error.h"
#include "bf_sha256.h"
#include "bf_sigv4.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SUITE BF_SOURCE_DIR "/tests/fixtures/sigv4"

static char *slurp(const char *dir, const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = malloc(1 << 16);
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* Signs one case; returns the number of mismatches (and prints them). */
static int run_case(const char *name)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", SUITE, name);
    size_t req_len = 0;
    char *ctx_text = slurp(dir, "context.json", NULL), *req = slurp(dir, "request.txt", &req_len);
    char *want_cr = slurp(dir, "header-canonical-request.txt", NULL);
    char *want_sts = slurp(dir, "header-string-to-sign.txt", NULL);
    char *want_sig = slurp(dir, "header-signature.txt", NULL);
    assert_non_null(ctx_text);
    assert_non_null(req);
    assert_non_null(want_cr);
    json_error_t je;
    json_t *ctx = json_loads(ctx_text, 0, &je);
    assert_non_null(ctx);
    json_t *cr = json_object_get(ctx, "credentials");
    int omit_token = json_is_true(json_object_get(ctx, "omit_session_token"));
    bf_sigv4_creds_t creds = {
        json_string_value(json_object_get(cr, "access_key_id")),
        json_string_value(json_object_get(cr, "secret_access_key")),
        omit_token ? NULL : json_string_value(json_object_get(cr, "token")),
    };
    struct tm tm = {0};
    assert_non_null(
        strptime(json_string_value(json_object_get(ctx, "timestamp")), "%Y-%m-%dT%H:%M:%SZ", &tm));

    /* request.txt: "METHOD PATH HTTP/1.1", "Name:value" lines (a line starting with a space
     * continues the value), a blank line, the body */
    char *body = strstr(req, "\n\n");
    size_t body_len = 0;
    if (body) {
        *body = '\0';
        body += 2;
        body_len = req_len - (size_t)(body - req);
    } else {
        body = "";
    }
    char *line_end = strchr(req, '\n');
    if (line_end)
        *line_end = '\0';
    char *sp = strchr(req, ' '), *proto = strstr(req, " HTTP/");
    assert_non_null(sp);
    assert_non_null(proto);
    *sp = '\0';
    *proto = '\0';
    char *target = sp + 1, *query = strchr(target, '?');
    if (query)
        *query++ = '\0';
    bf_sigv4_header_t hdrs[32];
    char *values[32];
    size_t nh = 0;
    for (char *l = line_end ? line_end + 1 : NULL; l && *l;) {
        char *e = strchr(l, '\n');
        if (e)
            *e = '\0';
        if ((l[0] == ' ' || l[0] == '\t') && nh > 0) {
            size_t jl = strlen(values[nh - 1]) + strlen(l) + 2;
            char *j = malloc(jl);
            snprintf(j, jl, "%s %s", values[nh - 1], l);
            free(values[nh - 1]);
            values[nh - 1] = j;
            hdrs[nh - 1].value = j;
        } else {
            char *colon = strchr(l, ':');
            assert_non_null(colon);
            *colon = '\0';
            values[nh] = strdup(colon + 1);
            hdrs[nh].name = l;
            hdrs[nh].value = values[nh];
            nh++;
        }
        l = e ? e + 1 : NULL;
    }
    char payload[65];
    bf_sha256_hex(body, body_len, payload);
    bf_sigv4_input_t in = {
        .method = req,
        .path = target,
        .query = query,
        .headers = hdrs,
        .nheaders = nh,
        .payload_sha256 = payload,
        .sign_content_sha256 = json_is_true(json_object_get(ctx, "sign_body")),
        .normalize = json_is_true(json_object_get(ctx, "normalize")),
        .when = timegm(&tm),
        .region = json_string_value(json_object_get(ctx, "region")),
        .service = json_string_value(json_object_get(ctx, "service")),
    };
    bf_sigv4_out_t out;
    int bad = 0;
    int rc = bf_sigv4_sign(&creds, &in, &out);
    if (rc != BF_OK) {
        printf("%s: bf_sigv4_sign returned %d\n", name, rc);
        bad++;
    } else {
        if (strcmp(out.canonical_request, want_cr) != 0) {
            printf("%s: canonical request\n--- got\n%s\n--- want\n%s\n", name,
                   out.canonical_request, want_cr);
            bad++;
        }
        if (strcmp(out.string_to_sign, want_sts) != 0) {
            printf("%s: string to sign\n--- got\n%s\n--- want\n%s\n", name, out.string_to_sign,
                   want_sts);
            bad++;
        }
        if (strncmp(out.signature, want_sig, 64) != 0) {
            printf("%s: signature %s, want %.64s\n", name, out.signature, want_sig);
            bad++;
        }
    }
    bf_sigv4_out_cleanup(&out);
    for (size_t i = 0; i < nh; i++)
        free(values[i]);
    json_decref(ctx);
    free(ctx_text);
    free(req);
    free(want_cr);
    free(want_sts);
    free(want_sig);
    return bad;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* every case of the suite, none skipped: a directory added to the fixtures is run too */
static void test_aws_suite(void **state)
{
    (void)state;
    DIR *d = opendir(SUITE);
    assert_non_null(d);
    char *names[128];
    size_t n = 0;
    for (struct dirent *e = readdir(d); e && n < 128; e = readdir(d))
        if (e->d_name[0] != '.' && strchr(e->d_name, '.') == NULL)
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        bad += run_case(names[i]);
        free(names[i]);
    }
    printf("%zu cases of the AWS SigV4 test suite\n", n);
    assert_true(n >= 38);
    assert_int_equal(bad, 0);
}

/* missing pieces are refused, not signed */
static void test_refusals(void **state)
{
    (void)state;
    bf_sigv4_creds_t creds = {"AKID", "secret", NULL};
    bf_sigv4_header_t host = {"Host", "example.amazonaws.com"};
    bf_sigv4_input_t in = {.method = "GET",
                           .path = "/",
                           .headers = &host,
                           .nheaders = 1,
                           .when = 1440938160,
                           .region = "us-east-1",
                           .service = "es"};
    bf_sigv4_out_t out;
    assert_int_equal(bf_sigv4_sign(&creds, &in, &out), BF_OK);
    bf_sigv4_out_cleanup(&out);
    in.nheaders = 0; /* no host header */
    assert_int_equal(bf_sigv4_sign(&creds, &in, &out), BF_E_INVAL);
    bf_sigv4_out_cleanup(&out);
    in.nheaders = 1;
    in.region = NULL;
    assert_int_equal(bf_sigv4_sign(&creds, &in, &out), BF_E_INVAL);
    bf_sigv4_out_cleanup(&out);
    bf_sigv4_out_cleanup(&out); /* twice is fine */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aws_suite),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
