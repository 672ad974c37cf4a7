/* SPDX-License-Identifier: MIT */
/* bf_sigv4_sign.c — bf_sigv4_sign as a filter, for the differential test against botocore
 * (tests/unit/test_sigv4_botocore.py).
 *
 *   bf_sigv4_sign < request.json
 *
 * request.json: {"method", "path", "query", "headers": [[name, value], ...], "body_file",
 * "access_key", "secret_key", "token", "region", "service", "when" (UTC seconds)}. Prints one
 * JSON object: authorization, amz_date, content_sha256, canonical_request, string_to_sign.
 * Exit 0, or 1 naming what was wrong. Secrets come on stdin, never argv.
 */
#include "bf_error.h"
#include "bf_sha256.h"
#include "bf_sigv4.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *str(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

int main(void)
{
    json_error_t je;
    json_t *rq = json_loadf(stdin, 0, &je);
    if (rq == NULL) {
        fprintf(stderr, "bf_sigv4_sign: stdin is not JSON: %s\n", je.text);
        return 1;
    }
    json_t *hs = json_object_get(rq, "headers");
    size_t nh = json_array_size(hs);
    bf_sigv4_header_t *h = calloc(nh ? nh : 1, sizeof *h);
    for (size_t i = 0; i < nh; i++) {
        h[i].name = json_string_value(json_array_get(json_array_get(hs, i), 0));
        h[i].value = json_string_value(json_array_get(json_array_get(hs, i), 1));
    }
    char payload[65];
    const char *bf = str(rq, "body_file");
    char *body = NULL;
    size_t len = 0;
    if (bf) {
        FILE *f = fopen(bf, "rb");
        if (f == NULL) {
            fprintf(stderr, "bf_sigv4_sign: cannot read %s\n", bf);
            return 1;
        }
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        body = malloc(n > 0 ? (size_t)n : 1);
        len = fread(body, 1, n > 0 ? (size_t)n : 0, f);
        fclose(f);
    }
    bf_sha256_hex(body ? body : "", len, payload);
    bf_sigv4_creds_t creds = {str(rq, "access_key"), str(rq, "secret_key"), str(rq, "token")};
    bf_sigv4_input_t in = {
        .method = str(rq, "method"),
        .path = str(rq, "path"),
        .query = str(rq, "query"),
        .headers = h,
        .nheaders = nh,
        .payload_sha256 = payload,
        .sign_content_sha256 = 1,
        .normalize = 1,
        .when = (time_t)json_integer_value(json_object_get(rq, "when")),
        .region = str(rq, "region"),
        .service = str(rq, "service"),
    };
    bf_sigv4_out_t out;
    int rc = bf_sigv4_sign(&creds, &in, &out);
    if (rc != BF_OK) {
        fprintf(stderr, "bf_sigv4_sign: %s\n", bf_strerror(rc));
        return 1;
    }
    json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:s}", "authorization", out.authorization, "amz_date",
                          out.amz_date, "content_sha256", out.content_sha256, "canonical_request",
                          out.canonical_request, "string_to_sign", out.string_to_sign);
    json_dumpf(o, stdout, JSON_COMPACT);
    putchar('\n');
    json_decref(o);
    bf_sigv4_out_cleanup(&out);
    json_decref(rq);
    free(h);
    free(body);
    return 0;
}
