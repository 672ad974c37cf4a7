/* SPDX-License-Identifier: MIT */
/* test_cloudid.c — Elastic Cloud IDs decoded to the deployment's endpoint as Elastic's clients
 * do ("name:" + base64 of "host[:port]$es_uuid[:port]$kibana_uuid", port 443 by default). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bf_error.h"
#include "bf_scenario.h"

#include <stdlib.h>
#include <string.h>

static void expect_url(const char *id, const char *want)
{
    char *url = NULL, err[200] = "";
    int rc = bf_cloud_id_decode(id, &url, err, sizeof err);
    if (rc != BF_OK)
        fail_msg("%s: %s", id, err);
    assert_string_equal(url, want);
    free(url);
}

static void expect_error(const char *id, const char *part)
{
    char *url = NULL, err[200] = "";
    assert_int_equal(bf_cloud_id_decode(id, &url, err, sizeof err), BF_E_PARSE);
    assert_null(url);
    if (strstr(err, part) == NULL)
        fail_msg("%s: '%s' lacks '%s'", id, err, part);
}

static void test_decode(void **state)
{
    (void)state;
    /* us-east-1.aws.found.io$abc123$def456 */
    expect_url("bench:dXMtZWFzdC0xLmF3cy5mb3VuZC5pbyRhYmMxMjMkZGVmNDU2",
               "https://abc123.us-east-1.aws.found.io");
    /* no "name:" prefix */
    expect_url("dXMtZWFzdC0xLmF3cy5mb3VuZC5pbyRhYmMxMjMkZGVmNDU2",
               "https://abc123.us-east-1.aws.found.io");
    /* the host's port: us-east-1.aws.found.io:9243$abc123$def456 (with and without padding) */
    expect_url("my-deployment:dXMtZWFzdC0xLmF3cy5mb3VuZC5pbzo5MjQzJGFiYzEyMyRkZWY0NTY=",
               "https://abc123.us-east-1.aws.found.io:9243");
    expect_url("my-deployment:dXMtZWFzdC0xLmF3cy5mb3VuZC5pbzo5MjQzJGFiYzEyMyRkZWY0NTY",
               "https://abc123.us-east-1.aws.found.io:9243");
    /* the Elasticsearch part's own port wins; 443 is left out: eu.example.com:443$es1:9200$kb */
    expect_url("x:ZXUuZXhhbXBsZS5jb206NDQzJGVzMTo5MjAwJGti", "https://es1.eu.example.com:9200");
    /* no Kibana part: eu.example.com$es2 */
    expect_url("x:ZXUuZXhhbXBsZS5jb20kZXMy", "https://es2.eu.example.com");
}

static void test_refused(void **state)
{
    (void)state;
    expect_error("bench:", "no base64 part");
    expect_error("bench:!!!!", "not base64");
    expect_error("bench:bm9kb2xsYXI=", "not \"host$es_uuid$kibana_uuid\""); /* nodollar */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
